//! Removing bodies from a settled world, one criterion group (`removal`):
//!
//! - `remove_1000`: 1,000 `World::remove_body` calls on `scenes::many_pyramids()` (22,000
//!   boxes and 20 grounds), settled and asleep after 120 frames, the victims spread evenly
//!   over the boxes;
//! - `step_after_removal`: the one step after those removals (the pair set drops their
//!   pairs with a query per removed collider, their ends are recorded, what they held
//!   wakes), with the parallel CPU narrow phase;
//! - `step_without_removal`: the same step of the same world with nothing removed, for
//!   comparison.
//!
//! Each timed call starts from a clone made outside the timing. The world's cost of a
//! removal should be the body's own (its colliders, its pairs), not the world's: 1,000
//! removals cost far less than one step, and the step after them not much more than a step.
//!
//! ```text
//! cargo bench --bench removal
//! ```

mod common;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use wgpu_sat::{BodyId, ParallelCpuNarrowPhase, World, scenes};

/// How many bodies the benchmark removes.
const VICTIMS: usize = 1_000;

fn removal(c: &mut Criterion) {
    // Settled as a game's world is: sleeping on (`common::warm_world` turns it off, as
    // Box2D's benchmark scenes run).
    let mut warm = scenes::many_pyramids();
    let mut narrow = ParallelCpuNarrowPhase::new();
    for _ in 0..120 {
        warm.step(common::DT, &mut narrow).unwrap();
    }
    let boxes: Vec<BodyId> = warm.bodies().filter(|&b| !warm.is_static(b)).collect();
    let victims: Vec<BodyId> = boxes
        .iter()
        .step_by(boxes.len() / VICTIMS)
        .take(VICTIMS)
        .copied()
        .collect();
    let asleep = boxes.iter().filter(|&&b| !warm.is_awake(b)).count();
    eprintln!(
        "removal: {} bodies, {asleep} of {} boxes asleep; removing {}",
        warm.body_count(),
        boxes.len(),
        victims.len()
    );
    let remove_all = |world: &mut World| {
        for &body in &victims {
            world.remove_body(body).unwrap();
        }
    };
    let mut removed = warm.clone();
    remove_all(&mut removed);

    let mut group = c.benchmark_group("removal");
    group.sample_size(10);
    group.bench_function("remove_1000", |b| {
        b.iter_batched(
            || warm.clone(),
            |mut world| {
                remove_all(black_box(&mut world));
                world
            },
            BatchSize::PerIteration,
        )
    });
    for (id, start) in [
        ("step_after_removal", &removed),
        ("step_without_removal", &warm),
    ] {
        group.bench_function(id, |b| {
            b.iter_batched(
                || start.clone(),
                |mut world| {
                    let stats = world.step(black_box(common::DT), &mut narrow).unwrap();
                    (world, stats)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion_config();
    targets = removal
}
criterion_main!(benches);
