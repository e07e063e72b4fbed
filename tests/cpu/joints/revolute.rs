//! The revolute joint's limits, motor and spring.

use super::*;

#[test]
fn revolute_limits_hold_under_ten_times_the_arms_weight() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 5.0);
    let (ground, bar) = arm(&mut world, top, 1.0);
    let (lower, upper) = (-0.3_f32, 0.2_f32);
    world
        .add_joint(&JointDef::revolute(ground, bar, top).with_limits(lower, upper))
        .unwrap();
    let weight = world.mass(bar) * G;
    let mut narrow = CpuNarrowPhase::new();
    let mut lowest = 0.0_f32;
    for _ in 0..300 {
        // Ten times its weight, down at the tip.
        let tip = world.transform(bar).transform_point(Vec2::new(1.0, 0.0));
        world
            .apply_force(bar, Vec2::new(0.0, -10.0 * weight), tip)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        lowest = lowest.min(world.transform(bar).angle());
    }
    let rest = world.transform(bar).angle();
    let gap = world
        .transform(bar)
        .transform_point(Vec2::new(-1.0, 0.0))
        .distance(top);
    println!("limit {lower}: lowest angle {lowest:.4}, at rest {rest:.4}, pin gap {gap:.4}");
    assert!(lowest > lower - 0.02, "went to {lowest} past {lower}");
    assert!(
        (rest - lower).abs() < 0.01,
        "rests at {rest}, not on {lower}"
    );
    assert!(gap < 0.01, "the pin opened by {gap}");

    // Pushed up as hard, it stops at the upper limit.
    let mut highest = rest;
    for _ in 0..300 {
        let tip = world.transform(bar).transform_point(Vec2::new(1.0, 0.0));
        world
            .apply_force(bar, Vec2::new(0.0, 12.0 * weight), tip)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        highest = highest.max(world.transform(bar).angle());
    }
    println!("limit {upper}: highest angle {highest:.4}");
    assert!(highest < upper + 0.02, "went to {highest} past {upper}");
    assert!((world.transform(bar).angle() - upper).abs() < 0.01);
}

#[test]
fn a_motor_reaches_its_speed_and_applies_no_more_than_its_torque() {
    // A strong motor: the set speed within a step or two, and held.
    let (mut world, wheel) = motor_wheel(3.0, 1000.0);
    run(&mut world, 30);
    let spin = world.angular_velocity(wheel);
    println!("strong motor: spin {spin:.5}");
    assert!((spin - 3.0).abs() < 1e-3 * 3.0, "spin {spin}");

    // A weak one: it accelerates the wheel at max_torque / inertia and no faster.
    let torque = 0.2;
    let (mut world, wheel) = motor_wheel(100.0, torque);
    let inertia = world.rotational_inertia(wheel);
    let seconds = 1.0;
    run(&mut world, 60);
    let spin = world.angular_velocity(wheel);
    let expected = torque * seconds / inertia;
    println!("weak motor: spin {spin:.4} after {seconds} s, torque / inertia * t = {expected:.4}");
    assert!((spin - expected).abs() < 0.01 * expected, "spin {spin}");
    // Reversed and still capped: slowing down at the same rate.
    let (mut world, wheel) = motor_wheel(-100.0, torque);
    run(&mut world, 60);
    let spin = world.angular_velocity(wheel);
    assert!((spin + expected).abs() < 0.01 * expected, "spin {spin}");
}

#[test]
fn a_revolute_spring_pulls_back_to_the_angle_it_was_made_at() {
    let mut world = World::new(Vec2::ZERO);
    world.set_sleeping(false);
    // A disc pinned at its centre: the spring's stiffness is the disc's own rotational
    // inertia times (2π hertz)², so it swings at the spring's hertz.
    let top = Vec2::new(0.0, 5.0);
    let ground = pivot(&mut world, top + Vec2::new(0.0, 2.0));
    let bar = world
        .add_body(&BodyDef::dynamic(Circle::new(0.5).unwrap(), top))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, bar, top).with_spring(1.0, 0.0))
        .unwrap();
    world.set_velocity(bar, Vec2::ZERO, 0.1).unwrap();
    // Undamped, 1 Hz: back through 0 after half a period, at the other side after 3/4.
    let mut narrow = CpuNarrowPhase::new();
    let mut angles = Vec::new();
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        angles.push(world.transform(bar).angle());
    }
    let amplitude = 0.1 / std::f32::consts::TAU;
    println!(
        "spring: at 1/4 period {:.4}, 1/2 {:.4}, 3/4 {:.4}, expected amplitude {amplitude:.4}",
        angles[14], angles[29], angles[44]
    );
    // The spring is integrated implicitly, which damps it a little even at a damping ratio
    // of 0 (some 6% of the amplitude over 3/4 of a period at 240 substeps a second).
    assert!((angles[14] - amplitude).abs() < 0.15 * amplitude);
    assert!(angles[29].abs() < 0.05 * amplitude);
    assert!((angles[44] + amplitude).abs() < 0.15 * amplitude);
}
