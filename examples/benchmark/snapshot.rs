//! `--snapshot`: the cost of a snapshot and a restore against a step, and snapshot bytes
//! per body and per contact point.

use std::time::Duration;

use wgpu_sat::{CpuNarrowPhase, World, scenes};

use crate::{Plan, measure, ms};

/// Steps `world` `steps` times at 60 Hz on the CPU narrow phase (rain's groups dropped
/// as its step function says, without replacement, when `rain` is set).
fn settle(world: &mut World, steps: usize, rain: bool) -> Result<(), wgpu_sat::Error> {
    let mut narrow = CpuNarrowPhase::new();
    for k in 0..steps {
        if let (true, Some(step)) = (rain, scenes::rain_step(k)) {
            if !step.replace {
                for row in 0..scenes::RAIN_ROWS {
                    scenes::add_rain_group(world, scenes::rain_group_origin(row, step.column))?;
                }
            }
        }
        world.step(1.0 / 60.0, &mut narrow)?;
    }
    Ok(())
}

/// A scene of the snapshot size table: name, maker, steps before the snapshot, and
/// whether rain's groups are dropped meanwhile.
type SnapshotScene = (&'static str, fn() -> World, usize, bool);

/// The snapshot section (`--snapshot`): cost against a step, and size per scene.
pub fn snapshot_section(plan: &Plan) -> Result<(), Box<dyn std::error::Error>> {
    let mut pile = scenes::pile(10_000, 1);
    settle(&mut pile, 300, false)?;
    let mut narrow = CpuNarrowPhase::new();
    let mut stepped = pile.clone();
    let (step, _) = measure(plan, || {
        stepped
            .step(1.0 / 60.0, &mut narrow)
            .expect("the pile steps");
        None
    });
    let bytes = pile.snapshot();
    let (write, _) = measure(plan, || {
        std::hint::black_box(pile.snapshot());
        None
    });
    let (read, _) = measure(plan, || {
        std::hint::black_box(World::from_snapshot(&bytes).expect("the snapshot loads"));
        None
    });
    // A rollback loop's case: the snapshot restored over the world it was taken of.
    let mut target = stepped.clone();
    let (restore, _) = measure(plan, || {
        target
            .restore_snapshot(&bytes)
            .expect("the snapshot restores");
        None
    });
    let of_step = |d: Duration| d.as_secs_f64() / step.as_secs_f64();
    println!(
        "snapshot of pile(10000) after 300 steps: {} bytes; one step {:.3} ms, write {:.3} ms \
         ({:.2} of a step), read {:.3} ms ({:.2} of a step), restore over the world {:.3} ms \
         ({:.2} of a step)",
        bytes.len(),
        ms(step),
        ms(write),
        of_step(write),
        ms(read),
        of_step(read),
        ms(restore),
        of_step(restore),
    );
    println!();
    println!(
        "{:<14} {:>6} {:>7} {:>8} {:>9} {:>10} {:>10}",
        "scene", "steps", "bodies", "points", "bytes", "B/body", "B/(body+point)"
    );
    let scenes: [SnapshotScene; 6] = [
        ("pile", || scenes::pile(10_000, 1), 300, false),
        ("mixed", || scenes::mixed(3_000, 1), 300, false),
        ("large_pyramid", scenes::large_pyramid, 120, false),
        ("joint_grid", scenes::joint_grid, 60, false),
        ("rain", scenes::rain, 320, true),
        ("pyramid(20)", || scenes::pyramid(20), 0, false),
    ];
    for (name, make, steps, rain) in scenes {
        let mut world = make();
        settle(&mut world, steps, rain)?;
        let bytes = world.snapshot().len();
        let bodies = world.body_count();
        let points: usize = world.contacts().map(|c| c.manifold.points().len()).sum();
        println!(
            "{name:<14} {steps:>6} {bodies:>7} {points:>8} {bytes:>9} {:>10.1} {:>10.1}",
            bytes as f64 / bodies as f64,
            bytes as f64 / (bodies + points) as f64,
        );
    }
    Ok(())
}
