//! The house rules for joints: bad input is an error naming it, removed bodies take their
//! joints along, stale handles are refused, collision and sleep follow the joints.

use super::*;

#[test]
fn bad_joint_definitions_are_errors_naming_the_input() {
    let mut world = World::default();
    let [a, b] = two_boxes(&mut world);
    let pin = JointDef::revolute(a, b, Vec2::new(0.4, 0.0));
    let invalid = |world: &mut World, def: JointDef| match world.add_joint(&def) {
        Err(Error::Joint(JointError::InvalidJoint { field, .. })) => field,
        other => panic!("{def:?} gave {other:?}"),
    };
    assert!(matches!(
        world.add_joint(&JointDef::revolute(a, a, Vec2::ZERO)),
        Err(Error::Joint(JointError::JointToItself { body })) if body == a
    ));
    assert_eq!(
        invalid(
            &mut world,
            JointDef::revolute(a, b, Vec2::new(f32::NAN, 0.0))
        ),
        "anchor"
    );
    assert_eq!(
        invalid(
            &mut world,
            JointDef::distance(a, b, Vec2::ZERO, Vec2::new(1.0, f32::INFINITY))
        ),
        "anchor_b"
    );
    assert_eq!(
        invalid(&mut world, pin.with_limits(0.5, -0.5)),
        "lower limit"
    );
    assert_eq!(
        invalid(&mut world, pin.with_limits(f32::NAN, 0.5)),
        "lower limit"
    );
    assert_eq!(
        invalid(&mut world, pin.with_limits(-0.5, 7.0)),
        "upper limit"
    );
    assert_eq!(
        invalid(
            &mut world,
            JointDef::distance(a, b, Vec2::ZERO, Vec2::X).with_limits(-1.0, 2.0)
        ),
        "lower limit"
    );
    assert_eq!(
        invalid(&mut world, pin.with_spring(-1.0, 0.5)),
        "spring hertz"
    );
    assert_eq!(
        invalid(&mut world, pin.with_spring(4.0, f32::NAN)),
        "spring damping_ratio"
    );
    assert_eq!(
        invalid(&mut world, pin.with_motor(1.0, -5.0)),
        "motor max_torque"
    );
    assert_eq!(
        invalid(&mut world, pin.with_motor(f32::NAN, 5.0)),
        "motor speed"
    );
    assert_eq!(
        invalid(
            &mut world,
            JointDef::weld(a, b, Vec2::ZERO).with_weld_springs(-1.0, 0.0, 1.0)
        ),
        "spring hertz"
    );
    assert_eq!(
        invalid(
            &mut world,
            JointDef::mouse(a, b, Vec2::ZERO).with_max_force(-1.0)
        ),
        "max_force"
    );
    let message = world
        .add_joint(&pin.with_spring(-1.0, 0.5))
        .unwrap_err()
        .to_string();
    assert!(message.contains("spring hertz"), "{message}");
    assert_eq!(world.joint_count(), 0, "a refused joint is not added");

    world.remove_body(b).unwrap();
    assert!(matches!(
        world.add_joint(&pin),
        Err(Error::World(WorldError::StaleBody { body, .. })) if body == b
    ));
    assert!(world.add_joint(&pin.with_limits(-0.5, 0.5)).is_err());
}

#[test]
fn removing_a_body_removes_its_joints_and_stale_joint_handles_are_refused() {
    let mut world = World::default();
    let [a, b] = two_boxes(&mut world);
    let c = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(3.0, 0.0),
        ))
        .unwrap();
    let ab = world
        .add_joint(&JointDef::revolute(a, b, Vec2::new(0.4, 0.0)))
        .unwrap();
    let bc = world
        .add_joint(&JointDef::distance(
            b,
            c,
            Vec2::new(0.8, 0.0),
            Vec2::new(3.0, 0.0),
        ))
        .unwrap();
    let ac = world
        .add_joint(&JointDef::distance(a, c, Vec2::ZERO, Vec2::new(3.0, 0.0)))
        .unwrap();
    assert_eq!(world.joint_count(), 3);
    assert_eq!(world.joint_bodies(bc), Some([b, c]));

    world.remove_body(b).unwrap();
    assert_eq!(world.joints().collect::<Vec<JointId>>(), vec![ac]);
    for gone in [ab, bc] {
        assert!(matches!(
            world.remove_joint(gone),
            Err(Error::Joint(JointError::StaleJoint { joint, reason: StaleReason::Removed })) if joint == gone
        ));
        assert_eq!(world.joint_bodies(gone), None);
    }
    run(&mut world, 10);

    world.remove_joint(ac).unwrap();
    assert!(matches!(
        world.remove_joint(ac),
        Err(Error::Joint(JointError::StaleJoint { .. }))
    ));
    assert_eq!(world.joint_count(), 0);
    // A new joint takes a freed slot under a new generation: the old handle stays stale.
    let again = world
        .add_joint(&JointDef::revolute(a, c, Vec2::new(1.5, 0.0)))
        .unwrap();
    assert_ne!(again, ac);
    assert!(world.remove_joint(ac).is_err());

    let mut other = World::default();
    let [x, y] = two_boxes(&mut other);
    let foreign = other
        .add_joint(&JointDef::revolute(x, y, Vec2::ZERO))
        .unwrap();
    assert!(matches!(
        world.remove_joint(foreign),
        Err(Error::Joint(JointError::StaleJoint {
            reason: StaleReason::OtherWorld,
            ..
        }))
    ));
}

#[test]
fn joined_bodies_do_not_collide_unless_asked_to() {
    for collide in [false, true] {
        let mut world = World::new(Vec2::ZERO);
        let [a, b] = two_boxes(&mut world);
        // Overlapping by 0.2 from the start.
        run(&mut world, 1);
        assert_eq!(
            contacts_between(&world, a, b),
            1,
            "they touch before the joint"
        );
        let joint = world
            .add_joint(&JointDef::revolute(a, b, Vec2::new(0.4, 0.0)).collide_connected(collide))
            .unwrap();
        run(&mut world, 1);
        assert_eq!(contacts_between(&world, a, b), usize::from(collide));
        if !collide {
            assert!(
                world
                    .events()
                    .contact_end
                    .iter()
                    .any(|e| e.bodies.contains(&b)),
                "the contact ends with an event"
            );
            world.remove_joint(joint).unwrap();
            run(&mut world, 1);
            assert_eq!(contacts_between(&world, a, b), 1, "they collide again");
        }
    }
}

#[test]
fn a_joint_keeps_its_island_awake_and_wakes_it() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 10.0);
    let links = hanging_chain(&mut world, top, 3, 1.0);
    run(&mut world, 120);
    assert!(
        links.iter().all(|&l| !world.is_awake(l)),
        "the chain sleeps"
    );
    // Waking the top link wakes the whole chain: one island.
    world.wake(links[0]).unwrap();
    assert!(links.iter().all(|&l| world.is_awake(l)));
    run(&mut world, 120);
    // A joint added to a sleeping link wakes it, and its island.
    let weight = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.3).unwrap(),
            top - Vec2::new(0.0, 3.0 * 2.0 * LINK + 1.0),
        ))
        .unwrap();
    assert!(!world.is_awake(links[0]));
    let pin = world
        .transform(links[2])
        .transform_point(Vec2::new(0.0, -LINK));
    world
        .add_joint(&JointDef::distance(
            links[2],
            weight,
            pin,
            world.center_of_mass(weight),
        ))
        .unwrap();
    assert!(links.iter().all(|&l| world.is_awake(l)));
}

#[test]
fn a_filter_joint_only_keeps_its_bodies_apart() {
    let mut world = World::new(Vec2::ZERO);
    let [a, b] = two_boxes(&mut world);
    world.set_velocity(b, Vec2::new(0.0, 1.0), 0.0).unwrap();
    world
        .add_joint(&JointDef::filter(a, b).collide_connected(true))
        .unwrap();
    run(&mut world, 30);
    assert_eq!(
        contacts_between(&world, a, b),
        0,
        "a filter joint always filters"
    );
    // No constraint: each moves as it was set moving.
    let vb = world.linear_velocity(b);
    assert_eq!(world.linear_velocity(a), Vec2::ZERO);
    assert!((vb - Vec2::new(0.0, 1.0)).length() < 1e-6, "b at {vb}");
}

/// Found by `examples/fuzz` (world target): an anchor past `MAX_COORDINATE`, a spring of
/// 2.7e25 hertz, and two prismatic joints that contradict each other on a pair of bodies
/// of mass ratio 1e6, each of which once left a body NaN.
#[test]
fn hostile_joints_leave_the_world_finite() {
    let mut world = awake_world();
    let [a, b] = two_boxes(&mut world);
    assert!(matches!(
        world.add_joint(&JointDef::revolute(a, b, Vec2::new(-1.0e17, 0.0))),
        Err(Error::Joint(JointError::InvalidJoint {
            field: "anchor",
            ..
        }))
    ));
    world
        .add_joint(
            &JointDef::revolute(a, b, Vec2::new(0.4, 0.0))
                .with_limits(0.5, 2.8)
                .with_spring(2.7e25, 0.5)
                .with_motor(2.8, 2.7e25),
        )
        .unwrap();
    let heavy = world
        .add_body(&BodyDef {
            density: 1.0e6,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(5.0, 0.0))
        })
        .unwrap();
    let light = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.2, 0.2),
            Vec2::new(7.0, 0.0),
        ))
        .unwrap();
    for (anchor, axis) in [
        (Vec2::new(6.0, 0.0), Vec2::X),
        (Vec2::new(6.0, 3.0), Vec2::Y),
    ] {
        world
            .add_joint(
                &JointDef::prismatic(heavy, light, anchor, axis)
                    .with_limits(-0.1, 0.1)
                    .with_spring(20.0, 0.5),
            )
            .unwrap();
    }
    world
        .set_velocity(light, Vec2::new(50.0, -80.0), 30.0)
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut narrow).unwrap();
        for body in world.bodies() {
            let ok = world.transform(body).translation().is_finite()
                && world.linear_velocity(body).is_finite()
                && world.angular_velocity(body).is_finite();
            assert!(ok, "{body:?} is not finite");
        }
    }
}
