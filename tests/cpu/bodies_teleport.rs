//! Teleporting bodies (`World::set_transform`) and changing their type
//! (`World::set_body_type`): queries see the change at once, the next step's pairs and
//! contacts follow it, and sleeping bodies that lose or gain a neighbour wake.

use crate::bodies_common;

use bodies_common::{DT, changed, ground, in_contact, stack, step, unit_box};
use wgpu_sat::error::WorldError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::world::BodyType;
use wgpu_sat::{BodyDef, BodyId, CpuNarrowPhase, Error, Filter, Polygon, World};

fn ended(world: &World, a: BodyId, b: BodyId) -> bool {
    changed(world, a, b, false)
}

fn began(world: &World, a: BodyId, b: BodyId) -> bool {
    changed(world, a, b, true)
}

/// Two static grounds, around x = 0 and x = 20, and a unit box resting on the first.
fn two_grounds() -> (World, [BodyId; 3]) {
    let mut world = World::default();
    let (a, b) = (ground(&mut world, 0.0, 3.0), ground(&mut world, 20.0, 3.0));
    let crate_ = unit_box(&mut world, Vec2::new(0.0, 0.5));
    step(&mut world, 20);
    assert!(in_contact(&world, a, crate_));
    (world, [a, b, crate_])
}

#[test]
fn a_teleported_body_is_found_at_its_new_place_at_once_and_touches_there_next_step() {
    let (mut world, [a, b, crate_]) = two_grounds();
    let v = world.linear_velocity(crate_);
    world
        .set_transform(crate_, Vec2::new(20.0, 0.5), 0.25)
        .unwrap();
    let t = world.transform(crate_);
    assert_eq!(t.translation(), Vec2::new(20.0, 0.5));
    assert!((t.angle() - 0.25).abs() < 1e-6);
    assert_eq!(world.linear_velocity(crate_), v, "the velocity is kept");
    // A ray down through the new place hits it first; the old place is empty.
    let hit = world.cast_ray(Vec2::new(20.0, 5.0), Vec2::new(0.0, -10.0));
    assert_eq!(hit.map(|(body, _)| body), Some(crate_));
    let hit = world.cast_ray(Vec2::new(0.0, 5.0), Vec2::new(0.0, -10.0));
    assert_eq!(hit.map(|(body, _)| body), Some(a));
    let mut found = Vec::new();
    world
        .colliders_at(Vec2::new(20.0, 0.5), &Filter::default(), &mut found)
        .unwrap();
    assert_eq!(found, world.body_colliders(crate_).collect::<Vec<_>>());
    assert!(world.body_aabb(crate_).min.x > 19.0);
    // The next step: the old contact ends, the new one begins.
    step(&mut world, 1);
    assert!(ended(&world, a, crate_) && !in_contact(&world, a, crate_));
    assert!(began(&world, b, crate_) && in_contact(&world, b, crate_));
    // Turned by 0.25 on flat ground it settles, and stays on the second ground.
    step(&mut world, 60);
    assert!((world.center_of_mass(crate_).x - 20.0).abs() < 1.0);
    assert!(in_contact(&world, b, crate_));
}

#[test]
fn teleporting_wakes_what_the_body_held_and_what_it_lands_on() {
    let mut world = World::default();
    ground(&mut world, 0.0, 10.0);
    let stack = stack(&mut world, 0.0, 3);
    let lone = unit_box(&mut world, Vec2::new(6.0, 0.5));
    let post = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(0.25, 0.25),
            Vec2::new(-6.0, 3.0),
        ))
        .unwrap();
    step(&mut world, 120);
    assert!(stack.iter().chain([&lone]).all(|&b| !world.is_awake(b)));
    // The bottom box leaves: the two above wake and fall.
    world
        .set_transform(stack[0], Vec2::new(-3.0, 0.5), 0.0)
        .unwrap();
    assert!(stack.iter().all(|&b| world.is_awake(b)));
    assert!(!world.is_awake(lone));
    let top = world.center_of_mass(stack[2]).y;
    step(&mut world, 30);
    assert!(
        world.center_of_mass(stack[2]).y < top - 0.5,
        "the stack fell"
    );
    // A static post put down onto the sleeping lone box wakes it, which is pushed out.
    world.set_transform(post, Vec2::new(6.3, 0.9), 0.0).unwrap();
    assert!(world.is_awake(lone));
    step(&mut world, 1);
    assert!(in_contact(&world, post, lone));
}

#[test]
fn a_bad_teleport_is_an_error_naming_the_value_and_moves_nothing() {
    let (mut world, [_, _, crate_]) = two_grounds();
    let before = world.transform(crate_);
    for (position, angle, field) in [
        (Vec2::new(f32::NAN, 0.0), 0.0, "position"),
        (Vec2::new(0.0, 2e12), 0.0, "position"),
        (Vec2::ZERO, f32::INFINITY, "angle"),
    ] {
        let e = world.set_transform(crate_, position, angle).unwrap_err();
        assert!(
            matches!(e, Error::World(WorldError::InvalidBody { .. })),
            "{e:?}"
        );
        assert!(e.to_string().contains(field), "{e}");
        assert_eq!(world.transform(crate_), before);
    }
    world.remove_body(crate_).unwrap();
    let e = world.set_transform(crate_, Vec2::ZERO, 0.0).unwrap_err();
    assert!(
        matches!(e, Error::World(WorldError::StaleBody { .. })),
        "{e:?}"
    );
}

#[test]
fn body_types_round_trip_and_pairs_follow_them() {
    let (mut world, [a, _, crate_]) = two_grounds();
    let (mass, inertia) = (world.mass(crate_), world.rotational_inertia(crate_));
    assert_eq!(world.body_type(crate_), Some(BodyType::Dynamic));

    // Static on a static ground: the pair is no longer allowed, and ends next step.
    world.set_body_type(crate_, BodyType::Static).unwrap();
    assert_eq!(world.body_type(crate_), Some(BodyType::Static));
    assert!(world.is_static(crate_) && world.mass(crate_).is_infinite());
    assert_eq!(world.linear_velocity(crate_), Vec2::ZERO);
    step(&mut world, 1);
    assert!(ended(&world, a, crate_) && !in_contact(&world, a, crate_));
    let at = world.center_of_mass(crate_);
    step(&mut world, 10);
    assert_eq!(world.center_of_mass(crate_), at);

    // Kinematic: still no contact with the ground; it moves by its velocity.
    world.set_body_type(crate_, BodyType::Kinematic).unwrap();
    assert!(world.is_kinematic(crate_) && world.mass(crate_).is_infinite());
    world
        .set_velocity(crate_, Vec2::new(0.0, -1.0), 0.0)
        .unwrap();
    step(&mut world, 30);
    assert!(!in_contact(&world, a, crate_));
    assert!((world.center_of_mass(crate_).y - (at.y - 0.5)).abs() < 1e-3);

    // Dynamic again: the same mass, and the ground pushes it back out and holds it.
    world.set_body_type(crate_, BodyType::Dynamic).unwrap();
    assert_eq!(world.mass(crate_), mass);
    assert_eq!(world.rotational_inertia(crate_), inertia);
    world.set_velocity(crate_, Vec2::ZERO, 0.0).unwrap();
    step(&mut world, 1);
    assert!(began(&world, a, crate_));
    step(&mut world, 90);
    assert!(in_contact(&world, a, crate_));
    assert!((world.center_of_mass(crate_).y - 0.5).abs() < 0.05);
    assert_eq!(world.body_type(crate_), Some(BodyType::Dynamic));
}

#[test]
fn a_static_body_made_dynamic_falls_and_wakes_what_rested_on_it() {
    let mut world = World::default();
    ground(&mut world, 0.0, 10.0);
    // A shelf of density 0 (ignored while static), and a box asleep on it.
    let shelf = world
        .add_body(&BodyDef {
            density: 0.0,
            ..BodyDef::fixed(Polygon::rectangle(2.0, 0.25), Vec2::new(0.0, 3.0))
        })
        .unwrap();
    let crate_ = unit_box(&mut world, Vec2::new(0.0, 3.75));
    step(&mut world, 90);
    assert!(!world.is_awake(crate_));
    let awake_before = world
        .step(DT, &mut CpuNarrowPhase::new())
        .unwrap()
        .awake_bodies;
    assert_eq!(awake_before, 0);
    world.set_body_type(shelf, BodyType::Dynamic).unwrap();
    // Density 1 stands in for the static body's 0: 4 x 0.5.
    assert!((world.mass(shelf) - 2.0).abs() < 1e-5);
    assert!(world.is_awake(shelf) && world.is_awake(crate_));
    let stats = world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    assert_eq!(stats.awake_bodies, 2);
    step(&mut world, 90);
    assert!(
        world.center_of_mass(shelf).y < 0.5,
        "the shelf fell to the ground"
    );
    assert!(world.center_of_mass(crate_).y < 1.5, "and the box with it");
}

#[test]
fn a_type_change_whose_mass_is_out_of_range_is_an_error_and_changes_nothing() {
    let mut world = World::default();
    let slab = world
        .add_body(&BodyDef {
            density: 1e30,
            ..BodyDef::fixed(Polygon::rectangle(2.0, 2.0), Vec2::ZERO)
        })
        .unwrap();
    let e = world.set_body_type(slab, BodyType::Dynamic).unwrap_err();
    assert!(e.to_string().contains("mass"), "{e}");
    assert_eq!(world.body_type(slab), Some(BodyType::Static));
    step(&mut world, 5);
    assert_eq!(world.center_of_mass(slab), Vec2::ZERO);
}
