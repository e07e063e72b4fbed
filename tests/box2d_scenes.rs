//! The Box2D comparison builds the same worlds in Box2D (`benches/common/box2d.rs`): for
//! every scene of the comparison, Box2D holds as many bodies and shapes as ours, the same
//! total mass, and each dynamic body's centre of mass where ours is. And `many_pyramids`
//! has the layout of Box2D's benchmark scene.

#[path = "../benches/common/box2d.rs"]
mod box2d;

use wgpu_sat::scenes;

/// The seed the benchmark example and the benches use (`benches/common/mod.rs`).
const SEED: u64 = 0x5a7_2024;

#[test]
fn box2d_builds_every_scene_with_our_bodies_and_masses() {
    for scene in &box2d::SCENES {
        let ours = (scene.make)(SEED);
        let theirs = box2d::box2d_world(&ours, 1).expect("Box2D accepts the scene");
        let counters = theirs.world.counters().expect("a live world");
        let name = scene.name;
        assert_eq!(
            counters.body_count as usize,
            ours.body_count(),
            "{name}: bodies"
        );
        assert_eq!(
            counters.shape_count as usize,
            ours.colliders().len(),
            "{name}: shapes (one per convex piece)"
        );

        let mut world = theirs.world;
        let (mut our_mass, mut their_mass) = (0.0f64, 0.0f64);
        let (mut worst_mass, mut worst_center) = (0.0f32, 0.0f32);
        assert_eq!(theirs.bodies.len(), ours.body_count(), "{name}: body ids");
        for (b, &id) in ours.bodies().zip(theirs.bodies.iter()) {
            let body = world.body(id).expect("a live body");
            if ours.is_static(b) || ours.is_kinematic(b) {
                // Box2D gives a static or kinematic body no mass (ours: infinite).
                assert_eq!(body.mass().expect("mass"), 0.0, "{name}: massless body {b}");
                assert!(ours.is_static(b) || ours.mass(b).is_infinite());
                continue;
            }
            let (m_ours, m_theirs) = (ours.mass(b), body.mass().expect("mass"));
            our_mass += f64::from(m_ours);
            their_mass += f64::from(m_theirs);
            worst_mass = worst_mass.max((m_theirs - m_ours).abs() / m_ours);
            let c = body.world_center_of_mass().expect("centre");
            let ours_c = ours.center_of_mass(b);
            worst_center = worst_center.max((c.x - ours_c.x).abs().max((c.y - ours_c.y).abs()));
        }
        // Both sum density times the pieces' areas in f32, in different orders: a few
        // units of f32 rounding (1e-7) apart per body, far below 1e-4, while a piece lost or
        // reshaped in translation changes a body's mass by a tenth or more.
        assert!(
            worst_mass < 1e-4,
            "{name}: a body's mass differs by {worst_mass} (relative)"
        );
        let relative = (their_mass - our_mass).abs() / our_mass;
        assert!(
            relative < 1e-3,
            "{name}: Box2D's total mass {their_mass} against ours {our_mass}"
        );
        // Centres of mass agree to f32 rounding of coordinates up to about 200.
        assert!(
            worst_center < 1e-3,
            "{name}: a centre of mass {worst_center} from ours"
        );
    }
}

#[test]
fn many_pyramids_is_box2ds_layout() {
    let world = scenes::many_pyramids();
    // 20 grounds, then 20 x 20 pyramids of 10 + 9 + ... + 1 = 55 boxes.
    assert_eq!(world.body_count(), 20 + 20 * 20 * 55);
    let bodies: Vec<_> = world.bodies().collect();
    assert_eq!(bodies.len(), world.body_count());
    let statics = bodies.iter().filter(|&&b| world.is_static(b)).count();
    assert_eq!(statics, 20);
    // Grounds 11 apart with tops at y = 0, 11, ..., 209; 220 wide.
    for (g, &ground) in bodies[..20].iter().enumerate() {
        let aabb = world.body_aabb(ground);
        assert!(
            (aabb.max.y - 11.0 * g as f32).abs() < 1e-4,
            "ground {g}: {aabb:?}"
        );
        assert!((aabb.min.x + 110.0).abs() < 1e-4 && (aabb.max.x - 110.0).abs() < 1e-4);
    }
    // Box2D's first pyramid: bottom boxes centred at x = -109 .. -100, y = 0.5; its top box
    // at x = -104.5, y = 9.5.
    let first: Vec<_> = bodies[20..75]
        .iter()
        .map(|&b| world.center_of_mass(b))
        .collect();
    for (k, c) in first[..10].iter().enumerate() {
        assert!((c.x - (-109.0 + k as f32)).abs() < 1e-4 && (c.y - 0.5).abs() < 1e-4);
    }
    assert!((first[54].x + 104.5).abs() < 1e-4 && (first[54].y - 9.5).abs() < 1e-4);
    // The last pyramid's top box: column 19 of row 19, x = -109 + 19 * 11 + 4.5.
    let top = world.center_of_mass(*bodies.last().expect("bodies"));
    assert!((top.x - 104.5).abs() < 1e-4 && (top.y - (19.0 * 11.0 + 9.5)).abs() < 1e-4);
    assert!(
        bodies
            .iter()
            .all(|&b| world.is_static(b) || (world.mass(b) - 1.0).abs() < 1e-6)
    );
}

#[test]
fn smash_compounds_washer_and_junkyard_are_box2ds_layouts() {
    let smash = scenes::smash();
    assert_eq!(smash.gravity(), wgpu_sat::glam::Vec2::ZERO);
    // The striker, then 120 x 80 bricks.
    assert_eq!(smash.body_count(), 1 + 120 * 80);
    let bodies: Vec<_> = smash.bodies().collect();
    let striker = bodies[0];
    assert!((smash.mass(striker) - 8.0 * 64.0).abs() < 1e-3);
    assert_eq!(
        smash.linear_velocity(striker),
        wgpu_sat::glam::Vec2::new(40.0, 0.0)
    );
    // Bricks 0.4 wide, touching: the wall spans x in [29.8, 77.8], y in [-16.2, 15.8].
    let wall = bodies[1..]
        .iter()
        .map(|&b| smash.body_aabb(b))
        .reduce(|a, b| a.union(&b))
        .expect("bricks");
    assert!((wall.min.x - 29.8).abs() < 1e-3 && (wall.max.x - 77.8).abs() < 1e-3);
    assert!((wall.min.y + 16.2).abs() < 1e-3 && (wall.max.y - 15.8).abs() < 1e-3);
    assert!(smash.sleeping(), "Box2D's smash sleeps");

    let compounds = scenes::compounds();
    assert_eq!(compounds.body_count(), 1 + 20 * 150);
    // The container's 81 + 100 + 100 boxes and the catching slab, then two triangles a body.
    assert_eq!(compounds.colliders().len(), 282 + 2 * 3000);
    let bodies: Vec<_> = compounds.bodies().collect();
    assert!(compounds.is_static(bodies[0]));
    // Each body: two triangles of area 1 (half of (1.5, 1) x (1, 2)), density 1; the first
    // at x = -19 + 0.25, y = 5 + 1.15 / 2.
    assert!(
        bodies[1..]
            .iter()
            .all(|&b| (compounds.mass(b) - 2.0).abs() < 1e-5 && compounds.friction(b) == 0.5)
    );
    let first = compounds.transform(bodies[1]).translation();
    assert!((first.x + 18.75).abs() < 1e-5 && (first.y - 5.575).abs() < 1e-5);
    assert!(compounds.sleeping(), "Box2D's compounds sleeps");

    let washer = scenes::washer();
    assert_eq!(washer.body_count(), 1 + 90 * 90);
    let drum = washer.bodies().next().expect("the drum");
    assert!(washer.is_kinematic(drum));
    // 36 arcs and 4 paddles, symmetric under a quarter turn: the drum turns about (0, 10).
    assert_eq!(washer.body_pieces(drum).len(), 40);
    assert!(
        washer
            .center_of_mass(drum)
            .distance(wgpu_sat::glam::Vec2::new(0.0, 10.0))
            < 1e-3
    );
    assert!((washer.angular_velocity(drum) - 25f32.to_radians()).abs() < 1e-6);
    let reach = washer.body_aabb(drum);
    assert!((reach.max.x - 18.0).abs() < 0.05 && (reach.min.y - (10.0 - 18.0)).abs() < 0.05);

    let junkyard = scenes::junkyard();
    assert_eq!(junkyard.body_count(), scenes::JUNKYARD_BODIES);
    let bodies: Vec<_> = junkyard.bodies().collect();
    let pusher = *bodies.last().expect("the pusher");
    assert!(junkyard.is_kinematic(pusher));
    let reach = junkyard.body_aabb(pusher);
    assert!(reach.min.x == -2.0 && reach.max.x == 2.0 && reach.min.y == 0.0 && reach.max.y == 8.0);
    // Box2D's pentagon: corners at angles k·π(√5 − 1) on a circle of radius 0.25, which in
    // angle order are 0°, 85.0°, 170.0°, 222.5°, 307.5°: the area is the sum of the five
    // triangles from the centre, r²/2 · sin(gap) each.
    let golden = (std::f32::consts::PI * (5f32.sqrt() - 1.0)).to_degrees();
    let mut angles: Vec<f32> = (0..5).map(|k| (golden * k as f32) % 360.0).collect();
    angles.sort_by(f32::total_cmp);
    let area: f32 = (0..5)
        .map(|i| {
            let gap = (angles[(i + 1) % 5] - angles[i]).rem_euclid(360.0);
            0.5 * 0.25f32.powi(2) * gap.to_radians().sin()
        })
        .sum();
    assert!((junkyard.mass(bodies[1]) - area).abs() < 1e-5);
}
