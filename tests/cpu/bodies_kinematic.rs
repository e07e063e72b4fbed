//! Kinematic bodies: moved by their velocity alone, infinite mass, pushing dynamic bodies
//! and never pushed, no contact with static or kinematic bodies, seen by sensors, waking
//! (and keeping awake) what they touch while they move.

use crate::bodies_common;

use bodies_common::{DT, ground, in_contact, stack, step, unit_box};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, BodyType, CpuNarrowPhase, Polygon, World};

fn moving_platform(world: &mut World, position: Vec2, velocity: Vec2) -> BodyId {
    world
        .add_body(&BodyDef {
            linear_velocity: velocity,
            ..BodyDef::kinematic(Polygon::rectangle(3.0, 0.25), position)
        })
        .unwrap()
}

#[test]
fn a_kinematic_body_moves_by_its_velocity_and_gravity_does_not_act_on_it() {
    let mut world = World::default();
    let still = world
        .add_body(&BodyDef::kinematic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::ZERO,
        ))
        .unwrap();
    let spinning = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(2.0, 1.0),
            angular_velocity: 1.0,
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::new(10.0, 0.0))
        })
        .unwrap();
    assert!(world.is_kinematic(still) && !world.is_static(still));
    assert!(world.mass(still).is_infinite() && world.rotational_inertia(still).is_infinite());
    step(&mut world, 60);
    assert_eq!(world.center_of_mass(still), Vec2::ZERO);
    assert_eq!(world.linear_velocity(still), Vec2::ZERO);
    let travelled = world.center_of_mass(spinning) - Vec2::new(10.0, 0.0);
    // 60 steps of 1/60 s: one second at (2, 1), summed in f32 over 240 substeps.
    assert!(
        (travelled - Vec2::new(2.0, 1.0)).length() < 1e-3,
        "{travelled}"
    );
    assert!((world.transform(spinning).angle() - 1.0).abs() < 1e-3);
    assert_eq!(world.linear_velocity(spinning), Vec2::new(2.0, 1.0));
    assert_eq!(world.angular_velocity(spinning), 1.0);
}

#[test]
fn a_moving_platform_carries_the_box_resting_on_it() {
    let mut world = World::default();
    let platform = moving_platform(&mut world, Vec2::ZERO, Vec2::new(1.0, 0.0));
    let crate_ = unit_box(&mut world, Vec2::new(0.0, 0.75));
    step(&mut world, 120);
    // Friction drags the box to the platform's speed; the solver leaves a residue of a few
    // thousandths (friction is solved once per substep against a soft normal).
    let v = world.linear_velocity(crate_);
    assert!(
        (v - Vec2::new(1.0, 0.0)).length() < 0.02,
        "the box moves at {v}, the platform at 1"
    );
    // It stays on it, over the same point.
    let offset = world.center_of_mass(crate_) - world.center_of_mass(platform);
    assert!(
        offset.x.abs() < 0.1 && (offset.y - 0.75).abs() < 0.02,
        "{offset}"
    );
    assert!(in_contact(&world, platform, crate_));
}

#[test]
fn a_heavy_box_landing_on_a_platform_does_not_change_its_velocity() {
    let mut world = World::default();
    let velocity = Vec2::new(0.5, 0.25);
    let platform = moving_platform(&mut world, Vec2::ZERO, velocity);
    let heavy = world
        .add_body(&BodyDef {
            density: 1000.0,
            linear_velocity: Vec2::new(0.5, -8.0),
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0))
        })
        .unwrap();
    let mut landed = false;
    let mut narrow = CpuNarrowPhase::new();
    for k in 1..=90 {
        world.step(DT, &mut narrow).unwrap();
        landed |= in_contact(&world, platform, heavy);
        assert_eq!(world.linear_velocity(platform), velocity, "step {k}");
        assert_eq!(world.angular_velocity(platform), 0.0, "step {k}");
    }
    assert!(landed, "the heavy box should land on the platform");
    let expected = velocity * (90.0 * DT);
    let at = world.center_of_mass(platform);
    assert!((at - expected).length() < 1e-3, "{at} vs {expected}");
    // And the box rides on it instead of sinking through.
    assert!(world.center_of_mass(heavy).y > at.y + 0.7);
}

#[test]
fn a_kinematic_body_pushes_a_dynamic_one_and_is_not_pushed() {
    let mut world = World::new(Vec2::ZERO);
    let pusher = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(2.0, 0.0),
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        })
        .unwrap();
    let pushed = unit_box(&mut world, Vec2::new(1.5, 0.0));
    step(&mut world, 60);
    assert_eq!(world.linear_velocity(pusher), Vec2::new(2.0, 0.0));
    let gap = world.center_of_mass(pushed).x - world.center_of_mass(pusher).x;
    assert!(
        gap >= 1.0 - 0.02,
        "the pushed box is {gap} ahead: overlapping"
    );
    assert!(world.linear_velocity(pushed).x >= 1.9);
}

#[test]
fn a_kinematic_body_passes_through_static_and_kinematic_bodies_without_contact() {
    let mut world = World::default();
    let wall = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(0.25, 3.0),
            Vec2::new(2.0, 0.0),
        ))
        .unwrap();
    let mover = moving_platform(&mut world, Vec2::ZERO, Vec2::new(3.0, 0.0));
    let other = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(-3.0, 0.0),
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::new(4.0, 0.0))
        })
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut narrow).unwrap();
        assert_eq!(world.contacts().len(), 0);
        assert!(world.events().contact_begin.is_empty());
    }
    assert!(!in_contact(&world, mover, wall) && !in_contact(&world, mover, other));
    assert!((world.center_of_mass(mover).x - 6.0).abs() < 1e-3);
    assert!((world.center_of_mass(other).x + 2.0).abs() < 1e-3);
    assert_eq!(world.center_of_mass(wall), Vec2::new(2.0, 0.0));
}

#[test]
fn a_sensor_sees_a_kinematic_body_pass() {
    let mut world = World::default();
    let gate = world
        .add_body(&BodyDef {
            is_sensor: true,
            ..BodyDef::fixed(Polygon::rectangle(1.0, 1.0), Vec2::new(3.0, 0.0))
        })
        .unwrap();
    let mover = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(3.0, 0.0),
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        })
        .unwrap();
    let (mut began, mut ended) = (0, 0);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..150 {
        world.step(DT, &mut narrow).unwrap();
        let events = world.events();
        let seen =
            |e: &&wgpu_sat::world::SensorEvent| e.sensor_body == gate && e.visitor_body == mover;
        began += events.sensor_begin.iter().filter(seen).count();
        ended += events.sensor_end.iter().filter(seen).count();
        assert!(events.contact_begin.is_empty());
    }
    assert_eq!((began, ended), (1, 1));
}

#[test]
fn a_moving_kinematic_body_wakes_a_sleeping_stack_it_touches() {
    let mut world = World::default();
    ground(&mut world, 0.0, 20.0);
    let stack = stack(&mut world, 0.0, 3);
    // A paddle at rest beside the stack, above the ground: it touches nothing.
    let paddle = world
        .add_body(&BodyDef::kinematic(
            Polygon::rectangle(0.25, 0.25),
            Vec2::new(-3.0, 1.5),
        ))
        .unwrap();
    step(&mut world, 120);
    assert!(
        stack.iter().all(|&b| !world.is_awake(b)),
        "the stack should sleep"
    );
    assert!(
        !world.is_awake(paddle),
        "a kinematic body at rest stops counting as awake"
    );
    world
        .set_velocity(paddle, Vec2::new(2.0, 0.0), 0.0)
        .unwrap();
    assert!(world.is_awake(paddle));
    // Still asleep until it arrives (over two units away at 2 per second).
    step(&mut world, 30);
    assert!(stack.iter().all(|&b| !world.is_awake(b)));
    let mut narrow = CpuNarrowPhase::new();
    let mut woke = false;
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        if stack.iter().all(|&b| world.is_awake(b)) {
            woke = true;
            break;
        }
    }
    assert!(woke, "the paddle should wake the stack it hits");
    assert!(in_contact(&world, paddle, stack[1]));
}

#[test]
fn a_box_on_a_slow_platform_stays_awake_and_sleeps_once_it_stops() {
    let mut world = World::default();
    // Slower than SLEEP_SPEED: the box alone would count as resting.
    let platform = moving_platform(&mut world, Vec2::ZERO, Vec2::new(0.02, 0.0));
    let crate_ = unit_box(&mut world, Vec2::new(0.0, 0.75));
    let mut narrow = CpuNarrowPhase::new();
    for k in 0..180 {
        world.step(DT, &mut narrow).unwrap();
        assert!(world.is_awake(crate_), "the box fell asleep at step {k}");
    }
    world.set_velocity(platform, Vec2::ZERO, 0.0).unwrap();
    step(&mut world, 120);
    assert!(
        !world.is_awake(crate_),
        "the box should sleep on the stopped platform"
    );
    assert!(!world.is_awake(platform));
    // The platform starts again: its load wakes at once and rides along.
    world
        .set_velocity(platform, Vec2::new(0.5, 0.0), 0.0)
        .unwrap();
    step(&mut world, 1);
    assert!(world.is_awake(crate_));
    step(&mut world, 60);
    assert!(world.linear_velocity(crate_).x > 0.4);
}

#[test]
fn a_bullet_stops_at_a_kinematic_wall() {
    let mut world = World::new(Vec2::ZERO);
    let wall = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(0.0, 0.5),
            ..BodyDef::kinematic(Polygon::rectangle(0.05, 2.0), Vec2::new(5.0, 0.0))
        })
        .unwrap();
    let bullet = world
        .add_body(&BodyDef {
            is_bullet: true,
            linear_velocity: Vec2::new(300.0, 0.0),
            ..BodyDef::dynamic(Polygon::rectangle(0.1, 0.1), Vec2::ZERO)
        })
        .unwrap();
    step(&mut world, 10);
    assert!(
        world.center_of_mass(bullet).x < world.center_of_mass(wall).x,
        "the bullet passed through the kinematic wall"
    );
    assert_eq!(world.linear_velocity(wall), Vec2::new(0.0, 0.5));
}

#[test]
fn a_kinematic_body_ignores_its_density_as_a_static_body_does() {
    let mut world = World::default();
    for body_type in [BodyType::Kinematic, BodyType::Static] {
        let def = BodyDef {
            density: 0.0,
            body_type,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        };
        let body = world.add_body(&def).unwrap();
        assert_eq!(world.body_type(body), Some(body_type));
        assert_eq!(world.mass(body), f32::INFINITY);
    }
    // A dynamic body of density 0 is refused, naming the field.
    let def = BodyDef {
        density: 0.0,
        ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
    };
    let message = world.add_body(&def).unwrap_err().to_string();
    assert!(message.contains("density"), "{message}");
}
