//! The other kinds of joint, each against what it promises: rope, weld, prismatic and
//! wheel.

use super::*;

#[test]
fn a_rope_is_slack_within_its_length_and_holds_at_it() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    let start = top + Vec2::new(0.5, -0.5);
    let ball = world
        .add_body(&BodyDef::dynamic(Circle::new(0.2).unwrap(), start))
        .unwrap();
    let length = 3.0;
    world
        .add_joint(&JointDef::distance(ground, ball, top, start).with_limits(0.0, length))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    // Free fall while the rope is slack: it takes 0.4 s to fall to 1.3 below the pivot.
    for _ in 0..24 {
        world.step(DT, &mut narrow).unwrap();
    }
    let fallen = start.y - world.center_of_mass(ball).y;
    let free = 0.5 * G * 0.4 * 0.4;
    println!("slack rope: fell {fallen:.4} in 0.4 s, free fall {free:.4}");
    assert!((fallen - free).abs() < 0.03 * free, "fell {fallen}");
    let mut longest = 0.0_f32;
    for _ in 0..300 {
        world.step(DT, &mut narrow).unwrap();
        longest = longest.max(world.center_of_mass(ball).distance(top));
    }
    println!("rope: longest {longest:.4} of {length}");
    assert!(longest < length + 0.03, "stretched to {longest}");
    assert!(longest > length - 0.01, "never went taut: {longest}");
}

#[test]
fn a_rigid_weld_holds_a_cantilever_and_a_soft_one_bends() {
    let sag = |springs: Option<(f32, f32)>| {
        let mut world = World::new(Vec2::new(0.0, -G));
        world.set_sleeping(false);
        let at = Vec2::new(0.0, 5.0);
        let (ground, bar) = arm(&mut world, at, 1.0);
        let mut weld = JointDef::weld(ground, bar, at);
        if let Some((linear, angular)) = springs {
            weld = weld.with_weld_springs(linear, angular, 1.0);
        }
        world.add_joint(&weld).unwrap();
        run(&mut world, 240);
        let t = world.transform(bar);
        (
            t.angle(),
            t.transform_point(Vec2::new(-1.0, 0.0)).distance(at),
        )
    };
    let (rigid_angle, rigid_gap) = sag(None);
    let (soft_angle, _) = sag(Some((0.0, 2.0)));
    println!(
        "weld: rigid angle {rigid_angle:.4} gap {rigid_gap:.4}, soft (2 Hz) angle {soft_angle:.4}"
    );
    assert!(rigid_angle.abs() < 0.02, "rigid weld sags to {rigid_angle}");
    assert!(rigid_gap < 0.01, "rigid weld opens by {rigid_gap}");
    // A 2 Hz angular spring under the arm's weight: k θ = -m g L cos θ, with the
    // spring's stiffness k = I ω², I the arm's own rotational inertia (about its centre,
    // m (2L)² / 12; L = 1). For a small θ: θ = -g / (ω² / 3).
    let omega = std::f32::consts::TAU * 2.0;
    let expected = -G / (omega * omega / 3.0);
    assert!(
        (soft_angle - expected).abs() < 0.15 * expected.abs(),
        "soft weld at {soft_angle}, expected about {expected}"
    );
}

#[test]
fn a_prismatic_body_stays_on_its_axis_and_keeps_its_angle() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, at);
    let slider = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.4, 0.2), at))
        .unwrap();
    let axis = Vec2::new(1.0, 1.0).normalize();
    // Pushed sideways and spun: the joint takes both out at once.
    world
        .set_velocity(slider, Vec2::new(1.0, -1.0), 2.0)
        .unwrap();
    world
        .add_joint(&JointDef::prismatic(ground, slider, at, axis * 3.0))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut worst_off = 0.0_f32;
    let mut worst_turn = 0.0_f32;
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        let d = world.center_of_mass(slider) - at;
        worst_off = worst_off.max(d.perp_dot(axis).abs());
        worst_turn = worst_turn.max(world.transform(slider).angle().abs());
    }
    // Gravity along the axis: g / sqrt(2) down it; 1 s of it.
    let along = (world.center_of_mass(slider) - at).dot(axis);
    let expected = -0.5 * G * std::f32::consts::FRAC_1_SQRT_2;
    println!(
        "prismatic: off the axis {worst_off:.5}, turned {worst_turn:.5}, slid {along:.4} (free {expected:.4})"
    );
    assert!(worst_off < 0.01, "left the axis by {worst_off}");
    assert!(worst_turn < 0.01, "turned by {worst_turn}");
    assert!(
        (along - expected).abs() < 0.02 * expected.abs(),
        "slid {along}"
    );
}

#[test]
fn prismatic_limits_and_motor_act_along_the_axis() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, at);
    let make = |world: &mut World, x: f32| {
        world
            .add_body(&BodyDef::dynamic(
                Polygon::rectangle(0.2, 0.2),
                at + Vec2::new(x, 0.0),
            ))
            .unwrap()
    };
    // A vertical slider that may drop 1 unit, and a horizontal one driven at 2 units per
    // second with force to spare.
    let limited = make(&mut world, 0.0);
    world
        .add_joint(&JointDef::prismatic(ground, limited, at, Vec2::Y).with_limits(-1.0, 0.5))
        .unwrap();
    let driven = make(&mut world, 3.0);
    world
        .add_joint(
            &JointDef::prismatic(ground, driven, at + Vec2::new(3.0, 0.0), Vec2::X)
                .with_motor(2.0, 1000.0),
        )
        .unwrap();
    run(&mut world, 120);
    let drop = world.center_of_mass(limited).y - at.y;
    let speed = world.linear_velocity(driven);
    println!("prismatic: dropped {drop:.4} to a limit of -1, driven at {speed:?}");
    assert!((drop + 1.0).abs() < 0.01, "dropped {drop}");
    assert!(
        (speed.x - 2.0).abs() < 1e-3 && speed.y.abs() < 1e-3,
        "speed {speed}"
    );
}

#[test]
fn a_wheel_rides_its_suspension_and_turns_by_its_motor() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let chassis = pivot(&mut world, at + Vec2::new(0.0, 1.0));
    let wheel = world
        .add_body(&BodyDef::dynamic(Circle::new(0.4).unwrap(), at))
        .unwrap();
    let hertz = 4.0;
    world
        .add_joint(
            &JointDef::wheel(chassis, wheel, at, Vec2::Y)
                .with_spring(hertz, 1.0)
                .with_motor(5.0, 100.0),
        )
        .unwrap();
    run(&mut world, 180);
    // The suspension's stiffness is the wheel's mass times ω²: it sags g / ω².
    let omega = std::f32::consts::TAU * hertz;
    let sag = world.center_of_mass(wheel).y - at.y;
    let expected = -G / (omega * omega);
    let spin = world.angular_velocity(wheel);
    let side = world.center_of_mass(wheel).x - at.x;
    println!("wheel: sag {sag:.5} (g / w^2 = {expected:.5}), spin {spin:.4}, sideways {side:.5}");
    assert!((sag - expected).abs() < 0.05 * expected.abs(), "sag {sag}");
    assert!((spin - 5.0).abs() < 1e-3, "spin {spin}");
    assert!(side.abs() < 1e-3, "moved sideways {side}");
}
