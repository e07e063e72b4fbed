//! `gpu_world`: the GPU world (`gpu::GpuWorld`) against the CPU world (`World::step`) and
//! Box2D v3 on the same warm piles of boxes, 5,000, 20,000 and 100,000 bodies.
//!
//! Each engine steps its own copy of the warm pile (`common::warm_world`, sleeping off) once
//! untimed, then `gpu_world_steps` steps back to back, timed; a row is the mean of those.
//! Ours runs on rayon's global pool (every CPU thread), Box2D with as many workers. The GPU
//! world's row carries its solver's bytes each way per step and, on adapters with
//! timestamp queries, its collision kernels' and solver pass's own time. On a software
//! adapter (lavapipe) the GPU world's times are CPU times.

use std::time::{Duration, Instant};

use wgpu_sat::gpu::GpuWorld;
use wgpu_sat::{ParallelCpuNarrowPhase, scenes};

use crate::common::{self, box2d};
use crate::{Plan, Row};

/// The three engines on each pile size of `plan`.
pub fn gpu_world(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let threads = rayon::current_num_threads();
    let steps = plan.gpu_world_steps;
    for &n in plan.gpu_world_sizes {
        let warm = common::warm_world(scenes::pile(n, common::SEED), common::pile_warm_frames(n));
        let stage = "gpu_world/pile".to_string();
        let row = |backend, mean, bytes: Option<[u64; 2]>, kernel| Row {
            stage: stage.clone(),
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
        let start = Instant::now();
        for _ in 0..steps {
            world.step(common::DT, &mut narrow)?;
        }
        rows.push(row("cpu_world", start.elapsed() / steps as u32, None, None));

        if let Some(g) = gpu {
            let mut on_gpu = GpuWorld::new(&g.device, &g.queue, &warm)?;
            on_gpu.step(common::DT)?;
            let mut kernel = Duration::ZERO;
            let start = Instant::now();
            for _ in 0..steps {
                on_gpu.step(common::DT)?;
                kernel += on_gpu.kernel_time().unwrap_or_default();
            }
            let mean = start.elapsed() / steps as u32;
            let kernel = on_gpu.kernel_time().map(|_| kernel / steps as u32);
            rows.push(row("gpu_world", mean, Some(on_gpu.solver_bytes()), kernel));
        }

        let mut theirs = box2d::box2d_world(&warm, threads)?;
        let run = box2d::time_box2d(&mut theirs, steps, None)?;
        rows.push(row("box2d", run.total / run.steps as u32, None, None));
        eprintln!("gpu_world/pile {n}: {steps} steps each");
    }
    Ok(())
}
