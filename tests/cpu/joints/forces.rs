//! What a joint reports (its force and torque) and how it breaks past its threshold.

use super::*;

#[test]
fn a_joint_reports_its_force_and_torque() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 5.0);
    let (ground, bob) = hanging_bob(&mut world, top);
    let pin = world
        .add_joint(&JointDef::revolute(ground, bob, top))
        .unwrap();
    run(&mut world, 60);
    let weight = world.mass(bob) * G;
    let force = world.joint_force(pin).unwrap();
    println!("hanging bob: force {force:?}, weight {weight}");
    assert!((force - Vec2::new(0.0, weight)).length() < 0.01 * weight);
    assert_eq!(world.joint_torque(pin), Some(0.0));

    // A motor at its cap reports its cap.
    let (mut world, wheel) = motor_wheel(100.0, 0.2);
    run(&mut world, 10);
    let motor = world.joints().next().unwrap();
    let torque = world.joint_torque(motor).unwrap();
    println!("motor at its cap: torque {torque}");
    assert!((torque - 0.2).abs() < 1e-4, "torque {torque}");
    assert!(world.angular_velocity(wheel) > 0.0);
    world.remove_joint(motor).unwrap();
    assert_eq!(world.joint_force(motor), None);
    assert_eq!(world.joint_torque(motor), None);
}

#[test]
fn a_joint_breaks_past_its_threshold_and_the_step_reports_it() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 5.0);
    let (ground, bob) = hanging_bob(&mut world, top);
    let weight = world.mass(bob) * G;
    let rope = world
        .add_joint(
            &JointDef::distance(ground, bob, top, top - Vec2::new(0.0, 1.0))
                .with_break_force(3.0 * weight),
        )
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        assert!(
            world.events().joint_broken.is_empty(),
            "broke under its weight"
        );
    }
    // Five times its weight, pulling down: the rope gives.
    let mut broke = None;
    for k in 0..10 {
        let c = world.center_of_mass(bob);
        world
            .apply_force(bob, Vec2::new(0.0, -5.0 * weight), c)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        if let Some(event) = world.events().joint_broken.first() {
            broke = Some((k, *event));
            break;
        }
    }
    let (k, event) = broke.expect("the rope held five times its weight");
    println!("broke after {k} steps: {event:?}");
    assert_eq!(event.joint, rope);
    assert_eq!(event.bodies, [ground, bob]);
    assert!(event.force.length() > 3.0 * weight);
    assert_eq!(world.joint_count(), 0);
    assert!(matches!(
        world.remove_joint(rope),
        Err(Error::Joint(JointError::StaleJoint { .. }))
    ));
    // Then it falls freely.
    let y = world.center_of_mass(bob).y;
    run(&mut world, 30);
    assert!(world.center_of_mass(bob).y < y - 1.0);
}
