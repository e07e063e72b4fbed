//! The stages timed on every backend at several sizes: the narrow phase, ray-cast queries,
//! the broad phase and whole world steps.

use std::time::Instant;

use parry2d::partitioning::BvhWorkspace;
use wgpu_sat::broad_phase::{PairFilter, PersistentPairs, lbvh_pairs, sort_sweep};
use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuBroadPhase;
use wgpu_sat::{
    Aabb, BroadPhase, CpuNarrowPhase, Filter, GpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase,
    World, scenes,
};

use crate::common;
use crate::{Plan, Row, measure, median};

pub fn narrow_phase(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let mut gpu_narrow = match gpu {
        Some(g) => Some(GpuNarrowPhase::new(&g.device, &g.queue)?),
        None => None,
    };
    for &n in plan.narrow_sizes {
        let batch = scenes::narrow_phase_batch(n, common::SEED);
        let (colliders, pairs) = (&batch.colliders, &batch.pairs);
        let row = |backend, median, upload, readback, kernel| Row {
            stage: "narrow_phase".to_string(),
            backend,
            size: pairs.len(),
            unit: "pairs",
            median,
            upload,
            readback,
            kernel,
        };

        let mut cpu = CpuNarrowPhase::new();
        cpu.set_shapes(&batch.shapes)?;
        let reference = cpu.collide_pairs(colliders, pairs)?;
        // Every timed call writes into this vector, as `World` does, so that once it has
        // grown the calls time the work and not the allocator.
        let mut out = Vec::new();
        let (t, _) = measure(plan, || {
            cpu.collide_pairs_into(colliders, pairs, &mut out).unwrap();
            std::hint::black_box(out.len());
            None
        });
        rows.push(row("cpu_1_thread", t, None, None, None));

        let mut parallel = ParallelCpuNarrowPhase::new();
        parallel.set_shapes(&batch.shapes)?;
        let (t, _) = measure(plan, || {
            parallel
                .collide_pairs_into(colliders, pairs, &mut out)
                .unwrap();
            std::hint::black_box(out.len());
            None
        });
        rows.push(row("cpu_parallel", t, None, None, None));

        if let Some(narrow) = gpu_narrow.as_mut() {
            narrow.set_shapes(&batch.shapes)?;
            // Warm-up: compiles the shader on the first size, sizes the buffers, and sets
            // the shape ids, so the timed calls upload only poses and pairs.
            let contacts = narrow.collide_pairs(colliders, pairs)?;
            // The tests hold the backends to the same answers; this only guards the numbers
            // against comparing different work (near-touching pairs may differ).
            if contacts.len().abs_diff(reference.len()) > 5 {
                eprintln!(
                    "WARNING: GPU found {} contacts, CPU {}",
                    contacts.len(),
                    reference.len()
                );
            }
            let timestamps = narrow.timings().is_some_and(|t| t.kernel.is_some());
            let (t, kernel) = measure(plan, || {
                narrow
                    .collide_pairs_into(colliders, pairs, &mut out)
                    .unwrap();
                std::hint::black_box(out.len());
                narrow.timings().and_then(|t| t.kernel)
            });
            rows.push(row(
                "gpu",
                t,
                Some(common::gpu_upload_bytes(
                    colliders.len(),
                    pairs.len(),
                    false,
                )),
                Some(common::gpu_readback_bytes(contacts.len(), timestamps)),
                kernel,
            ));
        }

        let parry = common::ParryBatch::new(&batch.shapes, colliders);
        let mismatches = common::check_parry_agrees(&parry, &batch, &reference);
        let (t, _) = measure(plan, || {
            std::hint::black_box(parry.count_overlapping(colliders, pairs));
            None
        });
        rows.push(row("parry2d", t, None, None, None));
        eprintln!(
            "narrow_phase {n}: {} overlapping; parry2d differs on {mismatches}",
            reference.len()
        );
    }
    Ok(())
}

/// Closest-hit ray casts against worlds of static colliders, ours and parry2d's BVH on the
/// same shapes (see `benches/common/queries.rs`): one row per side and world size, the
/// size being the rays of a call.
pub fn queries(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    use common::queries::{RAYS_PER_CALL, RayScene};
    let mut gpu_rays = match gpu {
        Some(g) => Some(wgpu_sat::gpu::GpuRayCast::new(&g.device, &g.queue)?),
        None => None,
    };
    for &n in plan.query_sizes {
        let scene = RayScene::new(n, common::SEED);
        let (differ, hits) = scene.check();
        eprintln!("ray_cast {n}: {hits} of {RAYS_PER_CALL} rays hit; parry2d differs on {differ}");
        let row = |backend, median| Row {
            stage: format!("ray_cast/{n}"),
            backend,
            size: RAYS_PER_CALL,
            unit: "rays",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        let (t, _) = measure(plan, || {
            std::hint::black_box(scene.cast_ours());
            None
        });
        rows.push(row("cpu_1_thread", t));
        let (t, _) = measure(plan, || {
            std::hint::black_box(scene.cast_parry());
            None
        });
        rows.push(row("parry2d", t));

        // The batch form: every (ray, collider) pair whose boxes meet, on the GPU and on
        // one CPU thread; the size is the pairs of a call.
        let (colliders, rays, pairs) = scene.batch();
        let shapes = scene.world.shapes();
        let batch_row = |backend, median| Row {
            stage: format!("ray_batch/{n}"),
            backend,
            size: pairs.len(),
            unit: "pairs",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        let reference = wgpu_sat::query::cast_ray_pairs(shapes, &colliders, &rays, &pairs)?;
        let (t, _) = measure(plan, || {
            let hits = wgpu_sat::query::cast_ray_pairs(shapes, &colliders, &rays, &pairs).unwrap();
            std::hint::black_box(hits.len());
            None
        });
        rows.push(batch_row("cpu_1_thread", t));
        if let Some(gpu_rays) = gpu_rays.as_mut() {
            gpu_rays.set_shape_table(shapes)?;
            let mut out = Vec::new();
            gpu_rays.cast_ray_pairs_into(&colliders, &rays, &pairs, &mut out)?;
            let differ = out
                .iter()
                .zip(&reference)
                .filter(|(a, b)| a.is_some() != b.is_some())
                .count();
            eprintln!(
                "ray_batch {n}: {} pairs; the GPU differs from the CPU on {differ}",
                pairs.len()
            );
            let (t, _) = measure(plan, || {
                gpu_rays
                    .cast_ray_pairs_into(&colliders, &rays, &pairs, &mut out)
                    .unwrap();
                std::hint::black_box(out.len());
                None
            });
            let mut r = batch_row("gpu", t);
            // Per call: the poses, 24 bytes per pair up; a 16-byte record per pair back.
            r.upload = Some(16 * colliders.len() as u64 + 24 * pairs.len() as u64);
            r.readback = Some(16 * pairs.len() as u64);
            rows.push(r);
        }
    }
    Ok(())
}

pub fn broad_phase(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let mut gpu_broad = match gpu {
        Some(g) => Some(GpuBroadPhase::new(&g.device, &g.queue)?),
        None => None,
    };
    for &n in plan.broad_sizes {
        let boxes = common::MovingBoxes::new(n, common::SEED);
        let parry_frames = boxes.parry_frames();
        let mut sap = BroadPhase::new();
        let mut workspace = BvhWorkspace::default();
        let mut refit = common::ParryBvhRefit::new(&parry_frames[0]);
        let mut theirs = Vec::new();
        // The same pairs from all three, checked once on the first frame.
        let ours = sap.find_pairs(&boxes.frames[0]).to_vec();
        common::parry_bvh_rebuild(&parry_frames[0], &mut workspace, &mut theirs);
        common::assert_same_pairs("rebuild", &ours, &theirs);
        refit.find_pairs(&parry_frames[0], &mut theirs);
        common::assert_same_pairs("refit", &ours, &theirs);

        let row = |backend, median| Row {
            stage: "broad_phase".to_string(),
            backend,
            size: n,
            unit: "boxes",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        // Every call takes the next frame of the periodic motion (see MovingBoxes).
        let mut frame = 0;
        let mut next = || {
            frame = (frame + 1) % common::FRAMES;
            frame
        };
        let (t, _) = measure(plan, || {
            std::hint::black_box(sap.find_pairs(&boxes.frames[next()]).len());
            None
        });
        rows.push(row("sweep_and_prune", t));
        let (t, _) = measure(plan, || {
            common::parry_bvh_rebuild(&parry_frames[next()], &mut workspace, &mut theirs);
            None
        });
        rows.push(row("parry2d_bvh_rebuild", t));
        let (t, _) = measure(plan, || {
            refit.find_pairs(&parry_frames[next()], &mut theirs);
            None
        });
        rows.push(row("parry2d_bvh_refit", t));
        // The GPU broad phase's CPU twin: the GPU's stages one after the other on one
        // thread (what the GPU will do, not a CPU broad phase to use).
        assert_eq!(sort_sweep(&boxes.frames[0])?, ours, "the CPU twin");
        let (t, _) = measure(plan, || {
            // The frames are finite boxes: checked on the first one above.
            let pairs = sort_sweep(&boxes.frames[next()]).unwrap_or_default();
            std::hint::black_box(pairs.len());
            None
        });
        rows.push(row("gpu_twin_cpu", t));
        assert_eq!(lbvh_pairs(&boxes.frames[0])?, ours, "the LBVH's CPU twin");
        let (t, _) = measure(plan, || {
            let pairs = lbvh_pairs(&boxes.frames[next()]).unwrap_or_default();
            std::hint::black_box(pairs.len());
            None
        });
        rows.push(row("lbvh_twin_cpu", t));
        if let Some(gpu_broad) = gpu_broad.as_mut() {
            // Up: the boxes; back: the total, then the pairs. The sort-and-sweep, and the
            // LBVH it was measured against (the same contract and traffic).
            let upload = 16 * n as u64;
            let readback = 4 + 8 * ours.len() as u64;
            let faces: [(&'static str, FindPairs); 2] = [
                ("gpu_sort_sweep", GpuBroadPhase::find_pairs),
                ("gpu_lbvh", GpuBroadPhase::find_pairs_lbvh),
            ];
            for (backend, find) in faces {
                assert_eq!(find(gpu_broad, &boxes.frames[0])?, ours, "{backend}");
                let mut failed = None;
                let (t, kernel) = measure(plan, || {
                    match find(gpu_broad, &boxes.frames[next()]) {
                        Ok(pairs) => {
                            std::hint::black_box(pairs.len());
                        }
                        Err(e) => failed = Some(e),
                    }
                    gpu_broad.kernel_time()
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                rows.push(Row {
                    upload: Some(upload),
                    readback: Some(readback),
                    kernel,
                    ..row(backend, t)
                });
            }
        }
        // Fat boxes make more pairs than tight ones (8.4 a box against 5.1 here): at a
        // million boxes they outgrow one binding of a device with 128 MiB bindings
        // (lavapipe's), which the face refuses by name; the row is left out, said so.
        match persistent_pairs(plan, gpu_broad.as_mut(), &boxes, rows) {
            Err(wgpu_sat::Error::Gpu(e @ wgpu_sat::error::GpuError::TooLarge { .. })) => {
                eprintln!("persistent_pairs {n}: left out: {e}");
            }
            other => other?,
        }
        eprintln!("broad_phase {n}: {} pairs", ours.len());
    }
    Ok(())
}

/// A batch face of the GPU broad phase: boxes in, pairs out.
type FindPairs =
    for<'a> fn(&'a mut GpuBroadPhase, &[Aabb]) -> Result<&'a [[u32; 2]], wgpu_sat::Error>;

/// The persistent face over the same boxes: fat boxes kept from call to call, filters
/// asked, only the changes read back. Two motions: every box sliding 0.3 units one way,
/// then back, at each call (out of its fat box, 0.1 beyond: every fat box changes, the
/// whole pipeline runs, and the set is the same); and at rest, the same boxes again, where
/// an update is the host's containment test and filter comparison and nothing crosses the
/// bus. The CPU twin runs
/// the GPU's stages one after the other on one thread.
fn persistent_pairs(
    plan: &Plan,
    gpu: Option<&mut GpuBroadPhase>,
    boxes: &common::MovingBoxes,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let n = boxes.len();
    let filters: Vec<PairFilter> = (0..n as u32)
        .map(|body| PairFilter::new(Filter::default(), body))
        .collect();
    let row = |backend, median| Row {
        stage: "persistent_pairs".to_string(),
        backend,
        size: n,
        unit: "boxes",
        median,
        upload: None,
        readback: None,
        kernel: None,
    };
    let slid: Vec<Aabb> = boxes.frames[0]
        .iter()
        .map(|b| Aabb::new(b.min + Vec2::X * 0.3, b.max + Vec2::X * 0.3))
        .collect();
    let sliding = [&boxes.frames[0], &slid];
    let mut call = 0;
    let mut slide = || {
        call += 1;
        sliding[call % 2].as_slice()
    };
    let mut twin = PersistentPairs::new();
    let first = twin.update(&boxes.frames[0], &filters)?.pairs;
    let mut failed = None;
    let (t, _) = measure(plan, || {
        if let Err(e) = twin.update(slide(), &filters) {
            failed = Some(e);
        }
        None
    });
    rows.push(row("twin_cpu_sliding", t));
    if let Some(gpu) = gpu {
        assert_eq!(
            gpu.update_pairs(&boxes.frames[0], &filters)?.pairs,
            first,
            "the GPU's set"
        );
        let (t, kernel) = measure(plan, || {
            if let Err(e) = gpu.update_pairs(slide(), &filters) {
                failed = Some(e);
            }
            gpu.kernel_time()
        });
        let [up, down] = gpu.update_bytes();
        rows.push(Row {
            upload: Some(up),
            readback: Some(down),
            kernel,
            ..row("gpu_sliding", t)
        });
        // At rest: the same boxes again (after one update that brings the set to them).
        gpu.update_pairs(&boxes.frames[0], &filters)?;
        let (t, _) = measure(plan, || {
            if let Err(e) = gpu.update_pairs(&boxes.frames[0], &filters) {
                failed = Some(e);
            }
            gpu.kernel_time()
        });
        let [up, down] = gpu.update_bytes();
        rows.push(Row {
            upload: Some(up),
            readback: Some(down),
            ..row("gpu_at_rest", t)
        });
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The warm worlds `world_step` times, with their stage names: a pile of each of the plan's
/// sizes, and `large_pyramid`.
pub fn warm_worlds(plan: &Plan) -> Vec<(&'static str, World)> {
    let mut worlds: Vec<(&'static str, World)> = plan
        .pile_sizes
        .iter()
        .map(|&n| {
            let world = scenes::pile(n, common::SEED);
            (
                "world_step/pile",
                common::warm_world(world, common::pile_warm_frames(n)),
            )
        })
        .collect();
    worlds.push((
        "world_step/large_pyramid",
        common::warm_world(scenes::large_pyramid(), 60),
    ));
    worlds
}

pub fn world_step(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let worlds = warm_worlds(plan);
    let mut gpu_narrow = match gpu {
        Some(g) => Some(GpuNarrowPhase::new(&g.device, &g.queue)?),
        None => None,
    };
    for (stage, warm) in &worlds {
        let mut cpu = CpuNarrowPhase::new();
        let mut parallel = ParallelCpuNarrowPhase::new();
        let mut backends: Vec<(&'static str, &mut dyn NarrowPhase)> =
            vec![("cpu_1_thread", &mut cpu), ("cpu_parallel", &mut parallel)];
        if let Some(narrow) = gpu_narrow.as_mut() {
            backends.push(("gpu", narrow));
        }
        for (backend, narrow) in backends {
            // A step of a clone of the same warm world each time: every backend and
            // sample steps the identical state. The clone is made outside the timing.
            let mut samples = Vec::with_capacity(plan.samples);
            let mut kernels = Vec::new();
            let mut last = None;
            for k in 0..=plan.samples {
                let mut world = warm.clone();
                let start = Instant::now();
                let stats = world.step(common::DT, narrow)?;
                let t = start.elapsed();
                // Sample 0 is the warm-up (shape upload, shader compilation).
                if k > 0 {
                    samples.push(t);
                    if let Some(kernel) = stats.narrow_phase_detail.and_then(|d| d.kernel) {
                        kernels.push(kernel);
                    }
                }
                last = Some(stats);
            }
            let stats = last.expect("at least one step");
            let is_gpu = backend == "gpu";
            rows.push(Row {
                stage: stage.to_string(),
                backend,
                size: stats.bodies,
                unit: "bodies",
                median: median(samples),
                upload: is_gpu.then(|| common::gpu_upload_bytes(stats.bodies, stats.pairs, false)),
                readback: is_gpu
                    .then(|| common::gpu_readback_bytes(stats.contacts, !kernels.is_empty())),
                kernel: (!kernels.is_empty()).then(|| median(kernels)),
            });
            if backend == "cpu_1_thread" {
                eprintln!(
                    "{stage} {}: {} pairs, {} contacts per step",
                    stats.bodies, stats.pairs, stats.contacts
                );
            }
        }
    }
    Ok(())
}
