//! Circles and concave (compound) bodies in the world: mass properties, resting, rolling,
//! a concave "U" catching a box, and the mixed scene on both narrow phases.

#[cfg(all(feature = "gpu", feature = "scenes"))]
use crate::common;

#[cfg(all(feature = "gpu", feature = "scenes"))]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyShape, Circle, CpuNarrowPhase, Polygon, Shape, ShapeError, World};
#[cfg(feature = "scenes")]
use wgpu_sat::{NarrowPhase, scenes};

const DT: f32 = 1.0 / 60.0;

/// A U of outer width 3 and height 2: a base 0.3 thick and two uprights 0.3 thick, open at
/// the top, with its local origin at the middle of the base's bottom.
fn u_outline() -> Vec<Vec2> {
    [
        [-1.5, 0.0],
        [1.5, 0.0],
        [1.5, 2.0],
        [1.2, 2.0],
        [1.2, 0.3],
        [-1.2, 0.3],
        [-1.2, 2.0],
        [-1.5, 2.0],
    ]
    .map(Vec2::from)
    .to_vec()
}

fn ground(world: &mut World) {
    world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(20.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
}

#[test]
fn a_concave_u_catches_a_box_dropped_into_it() {
    let mut world = World::default();
    ground(&mut world);
    let u = world
        .add_body(&BodyDef::dynamic(
            BodyShape::concave(&u_outline()).unwrap(),
            Vec2::ZERO,
        ))
        .unwrap();
    let pieces = world.body_colliders(u).len();
    assert!(
        (2..=3).contains(&pieces),
        "a U splits into 2 or 3 convex pieces, got {pieces}"
    );
    let box_ = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.4, 0.4),
            Vec2::new(0.3, 4.0),
        ))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..240 {
        world.step(DT, &mut narrow).unwrap();
    }
    // The box sits on the base, between the uprights: below their tops, which a convex hull
    // of the U (its lid closed) would not allow.
    let c = world.center_of_mass(box_);
    assert!(
        c.x.abs() < 1.2 - 0.4 + 0.01,
        "box centre {c} is not between the uprights"
    );
    assert!(
        (c.y - (0.3 + 0.4)).abs() < 0.03,
        "box centre {c} should rest on the base (y = 0.7)"
    );
    // The U stands upright where it was and holds the box: contacts between the two bodies
    // are reported with their handles.
    let t = world.transform(u);
    assert!(
        t.angle().abs() < 0.02 && t.translation().length() < 0.05,
        "U moved to {t:?}"
    );
    let touching = world.contacts().filter(|k| k.bodies == [u, box_]).count();
    assert!(
        touching >= 1,
        "no contact reported between the U and the box"
    );
    // And every collider contact maps to the body contact at the same position.
    assert_eq!(world.contacts().len(), world.collider_contacts().len());
    for (body, collider) in world.contacts().zip(world.collider_contacts()) {
        for (k, slot) in [collider.a, collider.b].into_iter().enumerate() {
            let id = world
                .collider_id(slot as usize)
                .expect("a live collider slot");
            assert_eq!(body.colliders[k], id);
            assert_eq!(body.bodies[k], world.collider_body(id).unwrap());
        }
        assert_eq!(body.manifold, collider.manifold);
    }
}

#[test]
fn compound_mass_properties_add_up_with_parallel_axes() {
    // Two unit squares side by side (pieces) weigh and turn like one 2 x 1 rectangle.
    let left =
        Polygon::new(&[[-1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [-1.0, 1.0]].map(Vec2::from)).unwrap();
    let right =
        Polygon::new(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]].map(Vec2::from)).unwrap();
    let pieces = BodyShape::compound(vec![Shape::Polygon(left), Shape::Polygon(right)]).unwrap();
    let whole = BodyShape::from(Polygon::rectangle(1.0, 0.5));
    let mut world = World::new(Vec2::ZERO);
    let a = world
        .add_body(&BodyDef::dynamic(pieces, Vec2::ZERO))
        .unwrap();
    let b = world
        .add_body(&BodyDef::dynamic(whole, Vec2::new(0.0, 10.5)))
        .unwrap();
    // Same centre, mass and inertia: 2 units of area, m (w^2 + h^2) / 12 = 2 * 5 / 12.
    assert!((world.center_of_mass(a) - Vec2::new(0.0, 0.5)).length() < 1e-6);
    for body in [a, b] {
        assert!((world.mass(body) - 2.0).abs() < 1e-5);
        assert!((world.rotational_inertia(body) - 10.0 / 12.0).abs() < 1e-5);
    }
    // An L of three unit squares at (0,0), (1,0), (0,1) (as one concave outline): its centre
    // is the mean of the squares' centres, (5/6, 5/6), and its inertia the squares' own
    // (1/6 each) plus m d^2 for each (parallel axes).
    let l = [
        [0.0, 0.0],
        [2.0, 0.0],
        [2.0, 1.0],
        [1.0, 1.0],
        [1.0, 2.0],
        [0.0, 2.0],
    ]
    .map(Vec2::from);
    let body = world
        .add_body(&BodyDef::dynamic(
            BodyShape::concave(&l).unwrap(),
            Vec2::new(10.0, 0.0),
        ))
        .unwrap();
    let centre = Vec2::new(10.0 + 5.0 / 6.0, 5.0 / 6.0);
    assert!((world.center_of_mass(body) - centre).length() < 1e-5);
    let squares = [
        Vec2::new(0.5, 0.5),
        Vec2::new(1.5, 0.5),
        Vec2::new(0.5, 1.5),
    ];
    let local = centre - Vec2::new(10.0, 0.0);
    let inertia: f32 = squares
        .iter()
        .map(|c| 1.0 / 6.0 + c.distance_squared(local))
        .sum();
    assert!((world.mass(body) - 3.0).abs() < 1e-5);
    assert!((world.rotational_inertia(body) - inertia).abs() < 1e-4);
    // An empty compound is an error.
    assert_eq!(BodyShape::compound(vec![]), Err(ShapeError::NoPieces));
    // A self-intersecting outline is an error that says so.
    let bow_tie = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]].map(Vec2::from);
    assert!(matches!(
        BodyShape::concave(&bow_tie),
        Err(ShapeError::SelfIntersecting { .. })
    ));
}

#[test]
fn a_ball_rests_on_the_ground_and_rolls_down_a_slope() {
    let mut world = World::default();
    ground(&mut world);
    let ball = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.5).unwrap(),
            Vec2::new(0.0, 2.0),
        ))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..180 {
        world.step(DT, &mut narrow).unwrap();
    }
    let c = world.center_of_mass(ball);
    assert!(
        (c.y - 0.5).abs() < 0.01,
        "ball centre {c} should rest at y = 0.5"
    );
    assert!(world.linear_velocity(ball).length() < 0.05);

    // On a 20 degree slope with friction a ball rolls without slipping: its spin matches its
    // speed (v = -w r), and it accelerates at g sin(a) * 2/3 (a solid disc), not g sin(a).
    let angle = 20f32.to_radians();
    let mut world = World::default();
    let mut slope = BodyDef::fixed(Polygon::rectangle(30.0, 0.5), Vec2::ZERO);
    slope.angle = -angle;
    world.add_body(&slope).unwrap();
    let normal = Vec2::new(angle.sin(), angle.cos());
    let ball = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.5).unwrap(),
            normal * (0.5 + 0.5 - 0.004),
        ))
        .unwrap();
    let steps = 60;
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
    let v = world.linear_velocity(ball).length();
    let w = world.angular_velocity(ball);
    let expected = 10.0 * angle.sin() * 2.0 / 3.0 * steps as f32 * DT;
    assert!(
        (v - expected).abs() < 0.08 * expected,
        "speed {v}, rolling predicts {expected}"
    );
    assert!(
        (v - (-w) * 0.5).abs() < 0.05 * v,
        "speed {v} but spin {w}: slipping"
    );
}

/// Steps the mixed scene for 240 steps and checks every body stays finite and inside.
#[cfg(feature = "scenes")]
fn mixed_scene_stays_contained(narrow: &mut dyn NarrowPhase) {
    let bodies = 600;
    let mut world = scenes::mixed(bodies, 3);
    let kinds = world
        .bodies()
        .map(|i| world.body_pieces(i).collect::<Vec<_>>())
        .fold([0usize; 3], |mut k, pieces| {
            match (pieces.len(), pieces[0]) {
                (1, Shape::Circle(_)) => k[0] += 1,
                (1, Shape::Polygon(_)) => k[1] += 1,
                _ => k[2] += 1,
            }
            k
        });
    assert!(
        kinds.iter().all(|&k| k > bodies / 6),
        "circles, convex and concave bodies all present: {kinds:?}"
    );
    let half = 0.5 * scenes::pile_width(bodies);
    for step in 0..240 {
        world.step(DT, narrow).unwrap();
        if step % 60 == 59 {
            for i in world.bodies().filter(|&i| !world.is_static(i)) {
                let c = world.center_of_mass(i);
                assert!(
                    c.is_finite() && c.x.abs() < half && c.y > 0.0,
                    "body {i} left the container at step {step}: {c}"
                );
            }
        }
    }
}

#[cfg(feature = "scenes")]
#[test]
fn the_mixed_scene_stays_contained_on_the_cpu() {
    mixed_scene_stays_contained(&mut CpuNarrowPhase::new());
}

#[cfg(all(feature = "gpu", feature = "scenes"))]
#[test]
fn the_mixed_scene_stays_contained_on_the_gpu_and_matches_the_cpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    mixed_scene_stays_contained(&mut gpu);

    // One step of a settling mixed scene on each backend: the same contacts.
    let mut world = scenes::mixed(400, 5);
    for _ in 0..90 {
        world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    }
    let mut on_gpu = world.clone();
    world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    on_gpu.step(DT, &mut gpu).unwrap();
    common::assert_same_contacts(world.collider_contacts(), on_gpu.collider_contacts());
    assert!(
        world.contacts().len() > 300,
        "a settling pile has many contacts"
    );
}
