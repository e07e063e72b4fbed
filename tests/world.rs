//! The world stepping through each narrow phase: stacks stand, piles stay finite and
//! contained, and the two backends give the same step.

mod common;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, CpuNarrowPhase, Error, GpuNarrowPhase, NarrowPhase, Polygon, World, scenes,
};

const DT: f32 = 1.0 / 60.0;

fn positions(world: &World) -> Vec<Vec2> {
    (0..world.body_count())
        .map(|i| world.center_of_mass(i))
        .collect()
}

/// Settles a 20-row pyramid, then steps 480 more times (8 s at 60 Hz) and returns the
/// largest distance any box moved over those steps.
fn pyramid_drift(narrow: &mut dyn NarrowPhase) -> f32 {
    let mut world = scenes::pyramid(20);
    assert_eq!(world.body_count(), 1 + 210);
    for _ in 0..240 {
        world.step(DT, narrow).unwrap();
    }
    let settled = positions(&world);
    for _ in 0..480 {
        world.step(DT, narrow).unwrap();
    }
    let end = positions(&world);
    let drift = settled
        .iter()
        .zip(&end)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    // Still a pyramid: the top box is where it started, 19.5 units up (less the slop the
    // solver keeps in each of the 20 contacts below it).
    let top = world.center_of_mass(world.body_count() - 1);
    assert!(
        top.x.abs() < 0.15 && (top.y - 19.5).abs() < 0.25,
        "top box at {top}"
    );
    drift
}

#[test]
fn a_20_row_pyramid_stands_on_the_cpu() {
    let drift = pyramid_drift(&mut CpuNarrowPhase::new());
    eprintln!("CPU: largest drift over 480 steps {drift}");
    assert!(drift < 0.05, "a box moved {drift} units");
}

#[test]
fn a_20_row_pyramid_stands_on_the_gpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let drift = pyramid_drift(&mut GpuNarrowPhase::new(&device, &queue).unwrap());
    eprintln!("GPU: largest drift over 480 steps {drift}");
    assert!(drift < 0.05, "a box moved {drift} units");
}
