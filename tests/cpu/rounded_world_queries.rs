//! A world's queries on capsules, rounded polygons and segments, against closed forms:
//! points inside a capsule's cap and a rounded box's corner arc (and just outside, where the
//! bounding box still holds them), a box query finding a segment, a shape overlapping a
//! capsule or missing it by a hair, a shape cast landing on a capsule's side, a ray from
//! below a segment.

use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::Aabb;
use wgpu_sat::{
    BodyDef, BodyId, Capsule, Circle, ColliderId, Filter, Polygon, Segment, Shape, Transform, World,
};

struct Scene {
    world: World,
    capsule: BodyId,
    rounded: BodyId,
    segment: BodyId,
}

/// A capsule from (-1, 0) to (1, 0) of radius 0.5; a rounded box at (5, 0), core 2 x 1,
/// radius 0.2; a segment from (10, -3) to (-10, -3). All static, no gravity.
fn scene() -> Scene {
    let mut world = World::new(Vec2::ZERO);
    let capsule = Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap();
    let capsule = world
        .add_body(&BodyDef::fixed(capsule, Vec2::ZERO))
        .unwrap();
    let rounded = Polygon::rectangle(1.0, 0.5).with_radius(0.2).unwrap();
    let rounded = world
        .add_body(&BodyDef::fixed(rounded, Vec2::new(5.0, 0.0)))
        .unwrap();
    let segment = Segment::new(Vec2::new(10.0, -3.0), Vec2::new(-10.0, -3.0)).unwrap();
    let segment = world
        .add_body(&BodyDef::fixed(segment, Vec2::ZERO))
        .unwrap();
    Scene {
        world,
        capsule,
        rounded,
        segment,
    }
}

/// The bodies of `colliders`, in order.
fn bodies(world: &World, colliders: &[ColliderId]) -> Vec<BodyId> {
    colliders
        .iter()
        .map(|&c| world.collider_body(c).unwrap())
        .collect()
}

#[test]
fn points_inside_a_cap_and_a_corner_arc_and_not_just_outside() {
    let s = scene();
    let mut found = Vec::new();
    let mut at = |p: Vec2| {
        s.world
            .colliders_at(p, &Filter::default(), &mut found)
            .unwrap();
        bodies(&s.world, &found)
    };
    assert_eq!(at(Vec2::new(0.0, 0.45)), vec![s.capsule], "on the side");
    // 0.42 from the cap's centre (1, 0): inside; 0.64: outside, in the bounding box.
    assert_eq!(at(Vec2::new(1.3, 0.3)), vec![s.capsule], "in the cap");
    assert!(at(Vec2::new(1.45, 0.45)).is_empty(), "past the cap");
    // The corner arc about (6, 0.5), radius 0.2: 0.14 away inside, 0.21 away outside.
    assert_eq!(
        at(Vec2::new(6.1, 0.6)),
        vec![s.rounded],
        "in the corner arc"
    );
    assert!(at(Vec2::new(6.15, 0.65)).is_empty(), "past the corner arc");
    // A segment has no inside.
    assert!(at(Vec2::new(0.0, -3.0)).is_empty(), "on the segment");
    assert_eq!(s.world.body_at(Vec2::new(1.3, 0.3)), Some(s.capsule));
    assert_eq!(s.world.body_at(Vec2::new(1.45, 0.45)), None);
}

#[test]
fn boxes_overlaps_casts_and_rays_meet_the_new_shapes() {
    let s = scene();
    let mut found = Vec::new();
    s.world
        .colliders_in_aabb(
            &Aabb {
                min: Vec2::new(-0.5, -3.1),
                max: Vec2::new(0.5, -2.9),
            },
            &Filter::default(),
            &mut found,
        )
        .unwrap();
    assert_eq!(bodies(&s.world, &found), vec![s.segment]);

    // A circle of radius 0.3 above the capsule's side (top at y = 0.5): its bottom at 0.45
    // overlaps, at 0.55 it does not.
    let ball = Shape::from(Circle::new(0.3).unwrap());
    let mut overlap = |y: f32| {
        let at = Transform::new(Vec2::new(0.0, y), 0.0);
        s.world
            .overlap_shape(&ball, &at, &Filter::default(), &mut found)
            .unwrap();
        bodies(&s.world, &found)
    };
    assert_eq!(overlap(0.75), vec![s.capsule]);
    assert!(overlap(0.85).is_empty());

    // Cast straight down from y = 3 by 10: the ball touches the capsule's side when its
    // centre is at 0.8, after 2.2 of 10 units (the hit is conservative: at most that).
    let hit = s
        .world
        .cast_shape(
            &ball,
            &Transform::new(Vec2::new(0.0, 3.0), 0.0),
            Vec2::new(0.0, -10.0),
            &Filter::default(),
        )
        .unwrap()
        .expect("it lands on the capsule");
    assert_eq!(hit.body, s.capsule);
    assert!(
        hit.fraction <= 0.22 + 1e-5 && hit.fraction > 0.215,
        "fraction {}",
        hit.fraction
    );
    assert!(hit.normal.distance(Vec2::Y) < 1e-3, "normal {}", hit.normal);

    // A ray up from below the segment meets it from its underside.
    let (body, hit) = s
        .world
        .cast_ray(Vec2::new(-4.0, -5.0), Vec2::new(0.0, 4.0))
        .expect("the segment");
    assert_eq!(body, s.segment);
    assert!((hit.fraction - 0.5).abs() < 1e-5 && hit.normal.distance(-Vec2::Y) < 1e-4);
}
