//! The collision stage timed whole, colliders in and contacts out: our CPU path (the
//! parallel sweep-and-prune, then `ParallelCpuNarrowPhase` over its pairs), its one-thread
//! twin `collision::find_contacts`, and `GpuCollision` (the pairs found and collided on the
//! GPU in one submit, with the bytes it moves); and the world step through the GPU
//! collision stage (`World::step_on_gpu`) beside `World::step`'s rows of `stages.rs`.

use std::time::Instant;

use wgpu_sat::collision::find_contacts;
use wgpu_sat::gpu::GpuCollision;
use wgpu_sat::world::SPECULATIVE_DISTANCE;
use wgpu_sat::{Aabb, BroadPhase, NarrowPhase, ParallelCpuNarrowPhase, Shape, scenes};

use crate::common;
use crate::stages::warm_worlds;
use crate::{Plan, Row, measure, median};

/// Steps of a running world over which the bytes per step are averaged.
const BYTE_STEPS: u64 = 4;

/// Candidate pairs per collider in `scenes::narrow_phase_batch`'s scatter (about 5.5).
const PAIRS_PER_COLLIDER: usize = 5;

pub fn collision(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let mut stage = gpu
        .map(|g| GpuCollision::new(&g.device, &g.queue))
        .transpose()?;
    for &n in plan.broad_sizes {
        let batch = scenes::narrow_phase_batch(PAIRS_PER_COLLIDER * n, common::SEED);
        let shapes: Vec<Shape> = batch.shapes.iter().copied().map(Shape::from).collect();
        let colliders = &batch.colliders;
        let size = colliders.len();
        let row = |backend, median| Row {
            stage: "collision".to_string(),
            backend,
            size,
            unit: "colliders",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        let reference = find_contacts(&shapes, colliders, SPECULATIVE_DISTANCE)?;

        // Ours on the CPU, as fast as it goes: boxes, the parallel sweep, the parallel
        // narrow phase, into vectors kept from call to call.
        let mut sap = BroadPhase::new();
        let mut narrow = ParallelCpuNarrowPhase::new();
        narrow.set_shape_table(&shapes)?;
        narrow.set_speculative_distance(SPECULATIVE_DISTANCE)?;
        let (mut boxes, mut pairs, mut out) = (Vec::<Aabb>::new(), Vec::new(), Vec::new());
        let mut cpu_stage = || -> Result<usize, wgpu_sat::Error> {
            boxes.clear();
            boxes.extend(colliders.iter().map(|c| {
                shapes[c.shape as usize]
                    .aabb(&c.transform)
                    .expanded(0.5 * SPECULATIVE_DISTANCE)
            }));
            pairs.clear();
            pairs.extend_from_slice(sap.find_pairs(&boxes));
            narrow.collide_pairs_into(colliders, &pairs, &mut out)?;
            assert_eq!(out.len(), reference.len(), "the CPU stage");
            Ok(out.len())
        };
        cpu_stage()?;
        let (t, _) = measure(plan, || {
            // The same input every call: an error on the first would have returned.
            std::hint::black_box(cpu_stage().unwrap_or_default());
            None
        });
        rows.push(row("cpu_parallel", t));
        let (t, _) = measure(plan, || {
            let contacts = find_contacts(&shapes, colliders, SPECULATIVE_DISTANCE);
            std::hint::black_box(contacts.map(|c| c.len()).unwrap_or_default());
            None
        });
        rows.push(row("gpu_twin_cpu", t));

        if let Some(stage) = stage.as_mut() {
            stage.set_shape_table(&shapes)?;
            stage.set_speculative_distance(SPECULATIVE_DISTANCE)?;
            match stage.find_contacts(colliders) {
                // lavapipe gives the twin's bits (docs/reliability.md); a hardware GPU may
                // fuse or reassociate sums, so there the log says how close it came.
                Ok(found) if gpu.is_some_and(|g| g.is_software()) => {
                    assert_eq!(found, reference, "the GPU stage")
                }
                Ok(found) => eprintln!(
                    "collision {size}: against the twin: {}",
                    common::GpuAgreement::new(found, &reference).describe()
                ),
                // The adapter's bindings are too small for this size: say so, time the rest.
                Err(e @ wgpu_sat::Error::Gpu(wgpu_sat::error::GpuError::TooLarge { .. })) => {
                    eprintln!("collision {size}: no GPU row ({e})");
                    continue;
                }
                Err(e) => return Err(e),
            }
            let mut failed = None;
            let (t, kernel) = measure(plan, || match stage.find_contacts(colliders) {
                Ok(_) => stage.timings().kernel,
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            let timings = stage.timings();
            rows.push(Row {
                upload: Some(timings.uploaded_bytes),
                readback: Some(timings.read_back_bytes),
                kernel,
                ..row("gpu_collision", t)
            });
            eprintln!(
                "collision {size}: {} pairs on the GPU, {} contacts; {} B up, {} B back",
                stage.pair_count(),
                reference.len(),
                timings.uploaded_bytes,
                timings.read_back_bytes
            );
        }
    }
    if let Some(stage) = stage.as_mut() {
        step_on_gpu(plan, stage, rows)?;
    }
    Ok(())
}

/// `World::step_on_gpu` of the warm piles and pyramid `world_step` times with each narrow
/// phase: the same protocol (a clone of the warm world stepped once per sample).
fn step_on_gpu(
    plan: &Plan,
    stage: &mut GpuCollision,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let worlds = warm_worlds(plan);
    for (name, warm) in &worlds {
        let (mut samples, mut kernels) = (Vec::with_capacity(plan.samples), Vec::new());
        let mut last = None;
        for k in 0..=plan.samples {
            let mut world = warm.clone();
            let start = Instant::now();
            let stats = world.step_on_gpu(common::DT, stage)?;
            // Sample 0 is the warm-up (shape upload, shader compilation).
            if k > 0 {
                samples.push(start.elapsed());
                if let Some(kernel) = stats.narrow_phase_detail.and_then(|d| d.kernel) {
                    kernels.push(kernel);
                }
            }
            last = Some(stats);
        }
        let stats = last.expect("at least one step");
        // Bytes per step of a world that keeps stepping (every sample above started from
        // the same poses, which the stage then already held): the mean of the steps after
        // the first of a run.
        let mut world = warm.clone();
        world.step_on_gpu(common::DT, stage)?;
        let (mut up, mut back) = (0, 0);
        for _ in 0..BYTE_STEPS {
            let detail = world
                .step_on_gpu(common::DT, stage)?
                .narrow_phase_detail
                .unwrap_or_default();
            (up, back) = (up + detail.uploaded_bytes, back + detail.read_back_bytes);
        }
        rows.push(Row {
            stage: name.to_string(),
            backend: "gpu_collision",
            size: stats.bodies,
            unit: "bodies",
            median: median(samples),
            upload: Some(up / BYTE_STEPS),
            readback: Some(back / BYTE_STEPS),
            kernel: (!kernels.is_empty()).then(|| median(kernels)),
        });
    }
    Ok(())
}
