//! Joints that drive a body to a target: the mouse joint and the motor joint.

use super::*;

#[test]
fn a_mouse_joint_drags_a_body_to_its_target_within_its_max_force() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let ground = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(10.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
    let crate_ = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 0.5),
        ))
        .unwrap();
    run(&mut world, 30);
    let grab = world.center_of_mass(crate_) + Vec2::new(0.0, 0.2);
    let weight = world.mass(crate_) * G;
    let mouse = world
        .add_joint(&JointDef::mouse(ground, crate_, grab).with_max_force(20.0 * weight))
        .unwrap();
    let target = Vec2::new(2.0, 3.0);
    world.set_joint_target(mouse, target).unwrap();
    run(&mut world, 180);
    let held = world.transform(crate_).transform_point(Vec2::new(0.0, 0.2));
    println!("mouse: held point {held:?}, target {target:?}");
    assert!(held.distance(target) < 0.1, "held at {held}");

    // Too weak to lift it: the crate stays on the ground.
    let weak = world
        .add_joint(&JointDef::mouse(ground, crate_, held).with_max_force(0.5 * weight))
        .unwrap();
    world.remove_joint(mouse).unwrap();
    world
        .set_joint_target(weak, target + Vec2::new(0.0, 3.0))
        .unwrap();
    run(&mut world, 180);
    let y = world.center_of_mass(crate_).y;
    println!("weak mouse: crate at height {y:.3}");
    assert!(y < 0.6, "half its weight lifted it to {y}");
    assert!(matches!(
        world.set_joint_target(weak, Vec2::NAN),
        Err(Error::Joint(JointError::InvalidJoint {
            field: "target",
            ..
        }))
    ));
}

#[test]
fn a_motor_joint_drives_its_body_to_the_target_pose_within_its_force() {
    let mut world = awake_world();
    let base = pivot(&mut world, Vec2::new(0.0, 5.0));
    let platform = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.1),
            Vec2::new(3.0, 5.0),
        ))
        .unwrap();
    let weight = world.mass(platform) * G;
    let drive = world
        .add_joint(
            &JointDef::motor(base, platform)
                .with_max_force(5.0 * weight)
                .with_max_torque(10.0 * weight),
        )
        .unwrap();
    run(&mut world, 30);
    let held = world.center_of_mass(platform);
    println!("motor joint holds at {held:?}");
    assert!(
        held.distance(Vec2::new(3.0, 5.0)) < 0.01,
        "sagged to {held}"
    );

    world
        .set_motor_target(drive, Vec2::new(1.0, 2.0), 0.5)
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut strongest = 0.0_f32;
    for _ in 0..180 {
        world.step(DT, &mut narrow).unwrap();
        strongest = strongest.max(world.joint_force(drive).unwrap().length());
    }
    let at = world.center_of_mass(platform);
    let angle = world.transform(platform).angle();
    println!(
        "motor joint: at {at:?}, angle {angle:.4}, strongest force {strongest:.3} (cap {:.3})",
        5.0 * weight
    );
    assert!(at.distance(Vec2::new(1.0, 7.0)) < 0.01, "at {at}");
    assert!((angle - 0.5).abs() < 0.01, "angle {angle}");
    assert!(strongest <= 5.0 * weight * 1.0001, "force {strongest}");
    assert!(
        strongest > 2.0 * weight,
        "the drive never pushed: {strongest}"
    );
    assert!(world.set_motor_target(drive, Vec2::ZERO, 4.0).is_err());
}
