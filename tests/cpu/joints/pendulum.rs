//! Pendulums against their closed forms: a revolute joint's swing has the physical
//! pendulum's period, a distance joint's the simple pendulum's.

use super::*;

/// The period of `bob`'s swing through x = `x0`: the mean time between upward crossings
/// over `steps` steps, each crossing placed by linear interpolation.
fn measured_period(world: &mut World, bob: BodyId, x0: f32, steps: usize) -> f32 {
    let mut narrow = CpuNarrowPhase::new();
    let mut crossings = Vec::new();
    let mut last = world.center_of_mass(bob).x - x0;
    for k in 1..=steps {
        world.step(DT, &mut narrow).unwrap();
        let x = world.center_of_mass(bob).x - x0;
        if last < 0.0 && x >= 0.0 {
            crossings.push((k as f32 - x / (x - last)) * DT);
        }
        last = x;
    }
    assert!(crossings.len() >= 4, "too few swings: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32
}

#[test]
fn a_revolute_pendulum_swings_with_the_physical_pendulums_period() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    // A disc of radius r whose centre hangs L below the pin, let go 0.05 rad from rest.
    let (r, length, amplitude) = (0.1_f32, 1.0_f32, 0.05_f32);
    let start = top + length * Vec2::new(amplitude.sin(), -amplitude.cos());
    let bob = world
        .add_body(&BodyDef::dynamic(Circle::new(r).unwrap(), start))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, bob, top))
        .unwrap();
    // Small angles: T = 2π sqrt(I_pin / (m g L)), I_pin = m r²/2 + m L².
    let expected = std::f32::consts::TAU * ((0.5 * r * r + length * length) / (G * length)).sqrt();
    let period = measured_period(&mut world, bob, 0.0, 600);
    println!("revolute pendulum: period {period:.4} s, small-angle formula {expected:.4} s");
    assert!(
        (period - expected).abs() < 0.02 * expected,
        "period {period} vs {expected}"
    );
}

#[test]
fn a_distance_pendulum_swings_with_the_simple_pendulums_period() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    let (length, amplitude) = (2.0_f32, 0.05_f32);
    let start = top + length * Vec2::new(amplitude.sin(), -amplitude.cos());
    let bob = world
        .add_body(&BodyDef::dynamic(Circle::new(0.1).unwrap(), start))
        .unwrap();
    // The rod ends at the disc's centre, so its spin takes no part: T = 2π sqrt(L / g).
    world
        .add_joint(&JointDef::distance(ground, bob, top, start))
        .unwrap();
    let expected = std::f32::consts::TAU * (length / G).sqrt();
    let period = measured_period(&mut world, bob, 0.0, 900);
    println!("distance pendulum: period {period:.4} s, formula {expected:.4} s");
    assert!(
        (period - expected).abs() < 0.02 * expected,
        "period {period} vs {expected}"
    );
    let rod = world.center_of_mass(bob).distance(top);
    assert!(
        (rod - length).abs() < 0.01 * length,
        "rod stretched to {rod}"
    );
}
