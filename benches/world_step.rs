//! A whole simulation step, one criterion group (`world_step`): one `World::step(1/60, ..)`
//! (poses and AABBs, sweep-and-prune, the narrow phase, the contact solver with 4 substeps)
//! of
//!
//! - `pile_10000`: `scenes::pile(10_000, seed)`, random polygons raining into a container,
//!   after the top row has landed (`pile_warm_frames`: 321 frames, about 24k pairs);
//! - `large_pyramid`: `scenes::large_pyramid()`, Box2D's 5,050-box pyramid, after 60 frames
//!   (resting contact everywhere),
//!
//! - `many_pyramids`: `scenes::many_pyramids()`, Box2D's 22,000 boxes in 400 pyramids, after
//!   60 frames;
//! - `smash`: `scenes::smash()`, Box2D's heavy box into a wall of 9,600, at frame 75, just
//!   after the strike;
//! - `compounds`: `scenes::compounds()`, Box2D's 3,000 two-triangle bodies raining into a
//!   container, after 120 frames;
//! - `washer`: `scenes::washer()`, Box2D's 8,100 boxes in a turning kinematic drum, after
//!   120 frames;
//! - `junkyard`: `scenes::junkyard()`, Box2D's pentagons shoved by a kinematic pusher, after
//!   200 frames of its driver (Box2D's `StepJunkyard`, as the benchmark example runs it);
//!   the timed step is frame 201, with the pusher's velocity of that frame set in the
//!   warm world, so every clone steps the same shove (Box2D's world gets its frame's
//!   velocity before each timed step);
//! - `joint_grid`: `scenes::joint_grid()`, Box2D's net of 10,000 circles and 19,800
//!   revolute joints (no contacts), after 60 frames of its fall;
//! - `spinner`: `scenes::spinner()`, Box2D's 6,076 bodies stirred by a motorised paddle in
//!   a chain loop, after 120 frames;
//! - `tumbler`: `scenes::tumbler()`, Box2D's 2,025 boxes in a drum turned by a revolute
//!   motor, after 120 frames;
//! - `rain`: `scenes::rain()`, Box2D's ragdolls dropped in groups every eighth frame
//!   (`scenes::rain_step`, both engines through `common::box2d`'s hooks), after 200
//!   frames (130 groups, 7,151 bodies); the timed step adds none (Box2D's continues the
//!   hook, which adds a column on every eighth of its timed steps),
//!
//! with the `cpu_1_thread`, `cpu_parallel` and `gpu` narrow phases, and Box2D v3 (through
//! `boxdd`, built from the same world by `common::box2d`) with one worker (`box2d_1_thread`)
//! and two (`box2d_2_threads`, its built-in scheduler), 4 substeps, sleeping off (in every
//! scene: one step at one moment; the benchmark example's comparison runs `smash` and
//! `compounds` with sleeping on, as Box2D's benchmark does). Throughput
//! is in bodies.
//!
//! Every timed step starts from a clone of the same warm world (made outside the timing,
//! with `iter_batched`), so every backend steps the identical state and the state does not
//! drift while criterion samples: the numbers are "one step of this scene at this moment".
//! The warm-start caches and the broad phase's sort order are part of the clone.
//! A Box2D world cannot be cloned: it is stepped the same number of frames from the scene's
//! start, and then each timed step continues from the last (these scenes are at rest or
//! settling by then, so the state changes little while criterion samples). Only
//! `cargo bench` (Cargo's bench profile) compiles Box2D optimised (`-O2`); see
//! `benches/common/box2d/` for the instruction set.
//!
//! ```text
//! CARGO_TARGET_DIR=... cargo bench --bench world_step
//! cargo bench --bench world_step -- --warm-up-time 1 --measurement-time 2 large_pyramid
//! ```

mod common;

use common::box2d;

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use wgpu_sat::{
    CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, World, scenes,
};

/// Times one step of a clone of `warm` with `narrow`.
fn bench_step(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    warm: &World,
    narrow: &mut dyn NarrowPhase,
) {
    // Outside timing: the first step with this narrow phase uploads the shape table and
    // (on the GPU) compiles the shader and sizes the buffers.
    warm.clone().step(common::DT, narrow).unwrap();
    group.bench_function(id, |b| {
        b.iter_batched(
            || warm.clone(),
            |mut world| {
                let stats = world.step(black_box(common::DT), narrow).unwrap();
                // Returned, so that dropping the world happens outside the timing.
                (world, stats)
            },
            BatchSize::PerIteration,
        )
    });
}

fn world_step(c: &mut Criterion) {
    let gpu = common::gpu();
    let mut gpu_narrow = gpu
        .as_ref()
        .map(|g| GpuNarrowPhase::new(&g.device, &g.queue).expect("the pipeline builds"));

    // (name, scene, frames to step before timing), built one at a time to keep memory low.
    type Scene = (&'static str, fn() -> World, usize);
    let scenes: [Scene; 11] = [
        (
            "pile_10000",
            || scenes::pile(10_000, common::SEED),
            common::pile_warm_frames(10_000),
        ),
        ("large_pyramid", scenes::large_pyramid, 60),
        ("many_pyramids", scenes::many_pyramids, 60),
        ("smash", scenes::smash, 75),
        ("compounds", scenes::compounds, 120),
        ("washer", scenes::washer, 120),
        ("junkyard", scenes::junkyard, 200),
        ("joint_grid", scenes::joint_grid, 60),
        ("spinner", scenes::spinner, 120),
        ("tumbler", scenes::tumbler, 120),
        ("rain", scenes::rain, 200),
    ];
    let mut group = c.benchmark_group("world_step");
    // A step takes tens of milliseconds: ten samples are plenty.
    group.sample_size(10);
    for (name, make, frames) in scenes {
        // The scene's driver, as the benchmark example's comparison runs it.
        let hook = box2d::SCENES
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.hook);
        let fresh = make();
        let mut ours = box2d::OurHook::new(&fresh, hook);
        let warm = common::warm_world_driven(fresh, frames, |world, k| {
            ours.before_step(world, k)
                .expect("the step function's bodies live")
        });
        let stats = warm
            .clone()
            .step(common::DT, &mut CpuNarrowPhase::new())
            .unwrap();
        eprintln!(
            "world_step/{name}: {} bodies after {frames} frames: {} pairs, {} contacts",
            stats.bodies, stats.pairs, stats.contacts
        );
        group.throughput(Throughput::Elements(warm.body_count() as u64));

        let mut cpu = CpuNarrowPhase::new();
        bench_step(
            &mut group,
            BenchmarkId::new("cpu_1_thread", name),
            &warm,
            &mut cpu,
        );
        let mut parallel = ParallelCpuNarrowPhase::new();
        bench_step(
            &mut group,
            BenchmarkId::new("cpu_parallel", name),
            &warm,
            &mut parallel,
        );
        if let Some(narrow) = gpu_narrow.as_mut() {
            bench_step(&mut group, BenchmarkId::new("gpu", name), &warm, narrow);
        }
        drop(warm);
        for (workers, id) in [(1, "box2d_1_thread"), (2, "box2d_2_threads")] {
            // Sleeping off in Box2D as in ours (`warm_world`).
            let mut fresh = make();
            fresh.set_sleeping(false);
            let mut scene = box2d::box2d_world(&fresh, workers).expect("Box2D builds the scene");
            let mut theirs = box2d::TheirHook::new(hook);
            for k in 0..frames {
                theirs.before_step(&mut scene, k).unwrap();
                drop(
                    scene
                        .world
                        .step(common::DT, box2d::SUBSTEPS as i32)
                        .unwrap(),
                );
            }
            let mut k = frames;
            group.bench_function(BenchmarkId::new(id, name), |b| {
                b.iter(|| {
                    theirs.before_step(&mut scene, k).unwrap();
                    k += 1;
                    drop(
                        scene
                            .world
                            .step(black_box(common::DT), box2d::SUBSTEPS as i32)
                            .unwrap()
                            .into_result()
                            .unwrap(),
                    );
                })
            });
        }
    }
    group.finish();
    if let Some(g) = &gpu {
        eprintln!("GPU was {}", g.describe());
    }
}

criterion_group! {
    name = benches;
    config = common::criterion_config();
    targets = world_step
}
criterion_main!(benches);
