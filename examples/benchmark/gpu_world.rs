//! `gpu_world`: the GPU world (`gpu::GpuWorld`) against the CPU world (`World::step`) and
//! Box2D v3 on the same warm piles of boxes, 5,000, 20,000 and 100,000 bodies, and (not
//! with `--quick`) on Box2D's joint grid warmed a second (10,000 circles, 19,800 revolute
//! joints, no contact: `gpu_world/joint_grid`, where the joints' upload and prepare tell).
//!
//! Each engine steps its own copy of the warm pile (`common::warm_world`, sleeping off) once
//! untimed (the GPU world as many times as it is timed, for the GPU's clocks to rise), then
//! `gpu_world_steps` steps back to back, timed; a row is the mean of those.
//! Ours runs on rayon's global pool (every CPU thread), Box2D with as many workers. The GPU
//! world runs twice: with its pair set found and its continuous stage run on the device
//! (`gpu_world`, the default on a hardware adapter) and on the host
//! (`gpu_world_host_pairs`, `GpuWorld::set_pair_set_on_device(false)` and
//! `set_continuous_on_device(false)`). A GPU
//! world's row carries its solver's bytes each way per step and, on adapters with
//! timestamp queries, its collision kernels' and solver pass's own time. After the table,
//! each size's step is broken down: the host's stages (`GpuWorld::stats`) and the
//! device's (`GpuWorld::step_times`), each the mean over the timed steps. On a software
//! adapter (lavapipe) the GPU world's times are CPU times.

use std::time::{Duration, Instant};

use wgpu_sat::StepStats;
use wgpu_sat::gpu::{GpuStepTimes, GpuWorld};
use wgpu_sat::{ParallelCpuNarrowPhase, scenes};

use crate::common::{self, box2d};
use crate::{Plan, Row};

/// The three engines on each pile size of `plan`.
pub fn gpu_world(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut cases: Vec<(&str, usize, wgpu_sat::World)> = (plan.gpu_world_sizes.iter())
        .map(|&n| {
            let pile = scenes::pile(n, common::SEED);
            (
                "gpu_world/pile",
                n,
                common::warm_world(pile, common::pile_warm_frames(n)),
            )
        })
        .collect();
    if plan.gpu_world_joints {
        let grid = common::warm_world(scenes::joint_grid(), 60);
        cases.push(("gpu_world/joint_grid", grid.bodies().count(), grid));
    }
    let mut breakdown = Vec::new();
    for (stage, n, warm) in cases {
        compare(plan, gpu, stage, n, &warm, rows, &mut breakdown)?;
    }
    if !breakdown.is_empty() {
        println!();
        println!(
            "gpu_world's step by stage (ms, mean of the timed steps; host: GpuWorld::stats, \
             device: GpuWorld::step_times, by timestamp queries)"
        );
        for line in breakdown {
            println!("{line}");
        }
    }
    Ok(())
}

/// The three engines on `warm` (`n` bodies): a row each in `rows`, and each GPU world's
/// breakdown line in `breakdown`.
fn compare(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    stage: &str,
    n: usize,
    warm: &wgpu_sat::World,
    rows: &mut Vec<Row>,
    breakdown: &mut Vec<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let threads = rayon::current_num_threads();
    let steps = plan.gpu_world_steps;
    let row = |backend, mean, bytes: Option<[u64; 2]>, kernel| Row {
        stage: stage.to_string(),
        backend,
        size: n,
        unit: "bodies",
        median: mean,
        upload: bytes.map(|b| b[0]),
        readback: bytes.map(|b| b[1]),
        kernel,
    };

    let mut world = warm.clone();
    let mut narrow = ParallelCpuNarrowPhase::new();
    world.step(common::DT, &mut narrow)?;
    let mut cpu_host = [Duration::ZERO; 5];
    let start = Instant::now();
    for _ in 0..steps {
        let stats = world.step(common::DT, &mut narrow)?;
        for (sum, t) in cpu_host.iter_mut().zip(host_stages(&stats)) {
            *sum += t;
        }
    }
    let cpu_mean = start.elapsed() / steps as u32;
    rows.push(row("cpu_world", cpu_mean, None, None));
    let [broad, narrow_time, _, solver, continuous] =
        cpu_host.map(|d| d.as_secs_f64() * 1e3 / steps as f64);
    breakdown.push(format!(
        "{stage} {n:>7} bodies, CPU world: step {:.3} | broad phase {broad:.3}, narrow phase \
         {narrow_time:.3}, solver {solver:.3}, continuous {continuous:.3}",
        cpu_mean.as_secs_f64() * 1e3
    ));

    if let Some(g) = gpu {
        // The pair set on the device (the default), then on the host: the same bits,
        // and on a hardware GPU the difference is the host's largest stage.
        for (backend, on_device) in [("gpu_world", true), ("gpu_world_host_pairs", false)] {
            let run = time_gpu_world(g, warm, steps, on_device)?;
            rows.push(row(backend, run.mean, Some(run.solver_bytes), run.kernel));
            let line = breakdown_line(n, backend, &run, steps as u32);
            breakdown.push(format!("{stage} {line}"));
        }
    }

    let mut theirs = box2d::box2d_world(warm, threads)?;
    let run = box2d::time_box2d(&mut theirs, steps, None)?;
    rows.push(row("box2d", run.total / run.steps as u32, None, None));
    eprintln!("{stage} {n}: {steps} steps each");
    Ok(())
}

/// What a GPU world's timed steps measured: the mean step, its kernels' mean time (on
/// devices with timestamp queries), the host's stages and the device's summed over the
/// steps, the collision stage's and the pair set's bytes up summed, and the last step's
/// solver bytes and counts (pairs, recycled manifolds, contacts).
struct GpuRun {
    mean: Duration,
    kernel: Option<Duration>,
    host: [Duration; 5],
    device: Option<GpuStepTimes>,
    collision_up: u64,
    pair_set_up: u64,
    solver_bytes: [u64; 2],
    counts: [usize; 3],
}

/// A GPU world of `warm` stepped `steps` times untimed (a hardware GPU raises its clocks
/// under load: on an H200 the first steps of a run took up to three times as long on the
/// device as the same steps after a few hundred milliseconds of work), then `steps` times
/// timed, its pair set and continuous stage on the device or not.
fn time_gpu_world(
    g: &common::Gpu,
    warm: &wgpu_sat::World,
    steps: usize,
    pairs_on_device: bool,
) -> Result<GpuRun, wgpu_sat::Error> {
    let mut on_gpu = GpuWorld::new(&g.device, &g.queue, warm)?;
    on_gpu.set_pair_set_on_device(pairs_on_device);
    on_gpu.set_continuous_on_device(pairs_on_device);
    for _ in 0..steps {
        on_gpu.step(common::DT)?;
    }
    let mut kernel = Duration::ZERO;
    let mut host = [Duration::ZERO; 5];
    let mut collision_up = 0;
    let mut pair_set_up = 0;
    let mut device = Some(GpuStepTimes::default());
    let start = Instant::now();
    for _ in 0..steps {
        on_gpu.step(common::DT)?;
        kernel += on_gpu.kernel_time().unwrap_or_default();
        for (sum, t) in host.iter_mut().zip(host_stages(on_gpu.stats())) {
            *sum += t;
        }
        let detail = on_gpu.stats().narrow_phase_detail.unwrap_or_default();
        collision_up += detail.uploaded_bytes;
        pair_set_up += on_gpu.pair_set_bytes()[0];
        device = device.zip(on_gpu.step_times()).map(|(mut sum, t)| {
            sum += t;
            sum
        });
    }
    let mean = start.elapsed() / steps as u32;
    let s = on_gpu.stats();
    Ok(GpuRun {
        mean,
        kernel: on_gpu.kernel_time().map(|_| kernel / steps as u32),
        host,
        device,
        collision_up,
        pair_set_up,
        solver_bytes: on_gpu.solver_bytes(),
        counts: [s.pairs, s.recycled, s.contacts],
    })
}

/// The host's stages of a step: the pair set, the collision stage's round trip and, of
/// it, the contacts' readback and placing, the solver's round trip (upload, pass,
/// readback) and the continuous stage.
fn host_stages(stats: &StepStats) -> [Duration; 5] {
    let detail = stats.narrow_phase_detail.unwrap_or_default();
    [
        stats.broad_phase,
        stats.narrow_phase,
        detail.readback,
        stats.solver,
        stats.continuous,
    ]
}

/// One size's line for `backend`: the step, the host's stages and the device's, each over
/// `steps`, the last step's pairs, recycled manifolds and contacts, and the bytes the pair
/// set and the collision stage sent a step (the means).
fn breakdown_line(n: usize, backend: &str, run: &GpuRun, steps: u32) -> String {
    let (step, host, device) = (run.mean, run.host, run.device);
    let [pairs, recycled, contacts] = run.counts;
    let up = run.collision_up / u64::from(steps);
    let pair_set_up = run.pair_set_up / u64::from(steps);
    let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3 / steps as f64);
    let [pair_set, collision, readback, solver, continuous] = host.map(ms);
    let mut line = format!(
        "{n:>7} bodies, {backend} ({pairs} pairs, {recycled} recycled, {contacts} contacts): \
         step {:.3} \
         | host: pair set {pair_set} (up {pair_set_up} B), collision round trip {collision} \
         (up {up} B, readback {readback}), \
         solver round trip {solver}, continuous {continuous}",
        step.as_secs_f64() * 1e3
    );
    match device {
        Some(t) => {
            line += &format!(
                " | device: collision {}, colouring {}, prepare {}, integrate {}, warm start {}, \
             solve {}, relax {}, restitution {}, store {}, continuous and sleep {} (sum {})",
                ms(t.collision),
                ms(t.colouring),
                ms(t.prepare),
                ms(t.integrate),
                ms(t.warm_start),
                ms(t.solve),
                ms(t.relax),
                ms(t.restitution),
                ms(t.store),
                ms(t.continuous),
                ms(t.total()),
            )
        }
        None => line += " | device: no timestamp queries",
    }
    line
}
