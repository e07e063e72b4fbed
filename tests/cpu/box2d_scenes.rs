//! The Box2D comparison builds the same worlds in Box2D (`benches/common/box2d/`): for
//! every scene of the comparison, Box2D holds as many bodies and shapes as ours, the same
//! total mass, each dynamic body's centre of mass where ours is, and as many joints. The
//! scenes have the layouts of Box2D's benchmark scenes, and the joint scenes do in both
//! engines what their joints say (the nets hold, the motors turn at their speed).

#[path = "../../benches/common/box2d/mod.rs"]
mod box2d;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{CpuNarrowPhase, World, scenes};

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
        assert_eq!(
            counters.joint_count as usize,
            ours.joint_count(),
            "{name}: joints"
        );
        assert_eq!(theirs.joints.len(), ours.joint_count(), "{name}: joint ids");

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
        // (Rain starts with its floors alone: no mass on either side.)
        let relative = (their_mass - our_mass).abs() / our_mass.max(1.0);
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

/// One step of each engine at the comparison's 60 Hz and 4 substeps.
fn step_once(world: &mut World, narrow: &mut CpuNarrowPhase, theirs: &mut box2d::Box2dScene) {
    world.step(box2d::DT, narrow).expect("a step");
    let done = theirs.world.step(box2d::DT, box2d::SUBSTEPS as i32);
    drop(
        done.expect("a Box2D step")
            .into_result()
            .expect("no events"),
    );
}

/// Steps ours and Box2D's copy of `world` (one worker) `steps` times at the comparison's
/// 60 Hz and 4 substeps.
fn step_both(world: &mut World, steps: usize) -> box2d::Box2dScene {
    let mut theirs = box2d::box2d_world(world, 1).expect("Box2D accepts the scene");
    world.set_substeps(box2d::SUBSTEPS).expect("4 substeps");
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        step_once(world, &mut narrow, &mut theirs);
    }
    theirs
}

/// Steps ours and Box2D's copy of `world` 30 times and checks that `body` (the
/// `index`th) turns at `speed` within `tolerance` (relative) in both.
fn assert_turns_at(
    world: &mut World,
    body: wgpu_sat::BodyId,
    index: usize,
    speed: f32,
    tolerance: f32,
) {
    let theirs = step_both(world, 30);
    let mut their_world = theirs.world;
    let spin = their_world
        .body(theirs.bodies[index])
        .expect("a live body")
        .angular_velocity()
        .expect("a spin");
    for (who, w) in [("ours", world.angular_velocity(body)), ("Box2D", spin)] {
        assert!(
            (w - speed).abs() < tolerance * speed,
            "{who}: turns at {w} rad/s, its motor at {speed}"
        );
    }
}

#[test]
fn joint_grid_is_box2ds_layout_and_its_net_holds_in_both_engines() {
    let mut world = scenes::joint_grid();
    let n = scenes::JOINT_GRID_SIDE;
    assert_eq!(world.body_count(), n * n);
    // Each body but the top row's pinned to the one above, each but the first column's to
    // the one on its left.
    assert_eq!(world.joint_count(), 2 * n * (n - 1));
    assert!(!world.sleeping(), "Box2D's joint_grid does not sleep");
    let bodies: Vec<_> = world.bodies().collect();
    let statics: Vec<usize> = (0..bodies.len())
        .filter(|&k| world.is_static(bodies[k]))
        .collect();
    // Column k, row i is body k * n + i: the top row's seven middle columns.
    assert_eq!(statics, (47..=53).map(|k| k * n).collect::<Vec<_>>());
    let area = std::f32::consts::PI * 0.4 * 0.4;
    let dynamic = bodies[1];
    assert!((world.mass(dynamic) - area).abs() < 1e-5);
    assert_eq!(
        world.transform(bodies[3 * n + 7]).translation(),
        Vec2::new(3.0, -7.0)
    );
    // The circles never touch each other: a step makes no contact.
    let theirs = step_both(&mut world, 20);
    assert_eq!(world.contacts().len(), 0);
    // Twenty steps into the fall the pins still hold, in both engines: each joint's two
    // anchors within a tenth, the same stretch in both.
    let worst_ours = world
        .joints()
        .map(|j| {
            let frame = world.joint_frame(j).expect("a live joint");
            let [a, b] = world.joint_bodies(j).expect("a live joint");
            let pa = world.transform(a).transform_point(frame.local_anchors[0]);
            let pb = world.transform(b).transform_point(frame.local_anchors[1]);
            pa.distance(pb)
        })
        .fold(0.0f32, f32::max);
    let mut their_world = theirs.world;
    let worst_theirs = theirs
        .joints
        .iter()
        .map(|&j| {
            let joint = their_world.joint(j).expect("a live joint");
            joint.linear_separation().expect("a separation")
        })
        .fold(0.0f32, f32::max);
    // (Both soft joints stretch about 0.07 at the top, where a hundred rows hang.)
    assert!(worst_ours < 0.1, "ours: a pin {worst_ours} apart");
    assert!(worst_theirs < 0.1, "Box2D: a pin {worst_theirs} apart");
    assert!(
        (worst_ours - worst_theirs).abs() < 0.25 * worst_theirs,
        "the worst stretch {worst_ours} here, {worst_theirs} in Box2D"
    );
    // And the net has sagged about as far in both: its lowest corner's drop.
    let corner = bodies[n - 1];
    let ours_y = world.transform(corner).translation().y;
    let their_y = their_world
        .body(theirs.bodies[n - 1])
        .expect("a live body")
        .position()
        .expect("a position")
        .y as f32;
    assert!(ours_y < -(n as f32 - 1.0) - 0.1, "the net falls: {ours_y}");
    assert!(
        (ours_y - their_y).abs() < 0.25,
        "the corner at {ours_y} here, {their_y} in Box2D"
    );
}

#[test]
fn tumbler_is_box2ds_layout_and_its_drum_turns_at_motor_speed_in_both_engines() {
    let mut world = scenes::tumbler();
    assert_eq!(world.body_count(), scenes::TUMBLER_BODIES);
    assert_eq!(world.joint_count(), 1);
    let bodies: Vec<_> = world.bodies().collect();
    let (ground, drum) = (bodies[0], bodies[1]);
    assert!(world.is_static(ground));
    // Four walls of density 50: two 1 x 20 and two 20 x 1.
    assert!((world.mass(drum) - 50.0 * 4.0 * 20.0).abs() < 1e-2);
    assert!(world.center_of_mass(drum).distance(Vec2::new(0.0, 10.0)) < 1e-4);
    assert!((world.mass(bodies[2]) - 0.0625).abs() < 1e-6);
    assert_eq!(
        world.transform(bodies[2]).translation(),
        Vec2::new(-9.0, 1.0)
    );
    // The motor's torque (1e8) dwarfs the boxes' pull: the drum turns at its speed.
    assert_turns_at(&mut world, drum, 1, scenes::TUMBLER_SPEED, 0.02);
}

#[test]
fn spinner_is_box2ds_layout_and_its_paddle_turns_at_motor_speed_in_both_engines() {
    let mut world = scenes::spinner();
    assert_eq!(world.body_count(), scenes::SPINNER_BODIES);
    assert_eq!(world.joint_count(), 1);
    let bodies: Vec<_> = world.bodies().collect();
    // The loop: 360 links, static; the paddle: 0.8 by 40 rounded by 0.2.
    assert_eq!(world.body_pieces(bodies[0]).len(), 360);
    assert!(world.is_static(bodies[0]));
    let paddle = bodies[1];
    assert!(world.center_of_mass(paddle).distance(Vec2::new(0.0, 12.0)) < 1e-4);
    let rounded = 0.8 * 40.0 + 0.4 * (0.8 + 40.0) + std::f32::consts::PI * 0.04;
    assert!((world.mass(paddle) - rounded).abs() < 1e-2);
    // 92 a row from x = -23: the 93rd body starts the second row.
    assert_eq!(
        world.transform(bodies[2]).translation(),
        Vec2::new(-23.0, 2.0)
    );
    assert_eq!(
        world.transform(bodies[2 + 92]).translation(),
        Vec2::new(-23.0, 2.5)
    );
    assert!(
        bodies[2..]
            .iter()
            .all(|&b| world.friction(b) == 0.1 && world.restitution(b) == 0.1)
    );
    // An unbounded motor: the paddle turns at its speed whatever it sweeps.
    assert_turns_at(&mut world, paddle, 1, scenes::SPINNER_SPEED, 0.01);
    // Nothing leaves the loop: every body still within 40 of its centre.
    let centre = Vec2::new(0.0, 32.0);
    let worst = bodies[2..]
        .iter()
        .map(|&b| world.center_of_mass(b).distance(centre))
        .fold(0.0f32, f32::max);
    assert!(worst < 40.0, "a body {worst} from the loop's centre");
}

#[test]
fn rain_drops_and_replaces_the_same_ragdolls_in_both_engines() {
    let mut world = scenes::rain();
    // Five floors of 501 tiles, one static body.
    assert_eq!(world.body_count(), 1);
    assert_eq!(world.colliders().len(), 5 * 501);
    let mut theirs = box2d::box2d_world(&world, 1).expect("Box2D accepts the floors");
    let mut ours_hook = box2d::OurHook::new(&world, Some(box2d::Hook::Rain));
    let mut their_hook = box2d::TheirHook::new(Some(box2d::Hook::Rain));
    world.set_substeps(box2d::SUBSTEPS).expect("4 substeps");
    let mut narrow = CpuNarrowPhase::new();
    // The first group's forearm joints in Box2D: their angle starts at minus the rest
    // angle (the frame mirrors ours: the forearm is added bent by a quarter π at rest).
    ours_hook.before_step(&mut world, 0).expect("our rain");
    their_hook
        .before_step(&mut theirs, 0)
        .expect("Box2D's rain");
    let ragdoll = scenes::BONES;
    assert_eq!(
        world.body_count(),
        1 + scenes::RAIN_ROWS * scenes::RAIN_GROUP_SIZE * ragdoll
    );
    let counters = theirs.world.counters().expect("a live world");
    assert_eq!(counters.body_count as usize, world.body_count());
    assert_eq!(counters.joint_count as usize, world.joint_count());
    let forearm = world
        .joints()
        .nth(7)
        .expect("the first ragdoll's left forearm joint");
    let frame = world.joint_frame(forearm).expect("a live joint");
    let quarter = 0.25 * std::f32::consts::PI;
    assert!((frame.reference_angle - quarter).abs() < 1e-6);
    let (their_bodies, their_joints) = their_hook.rain_group(0, 0).expect("the first group");
    let (their_hip, their_forearm) = (their_bodies[0], their_joints[7]);
    let joint = theirs.world.joint(their_forearm).expect("a live joint");
    let angle = joint
        .into_revolute()
        .expect("a revolute joint")
        .angle()
        .expect("an angle");
    assert!((angle + quarter).abs() < 1e-4, "Box2D's forearm at {angle}");
    // Steps 1..=40 in both: five more columns drop (k = 8, ..., 40), and the ragdolls of
    // the first fall alike.
    let hip = world.bodies().nth(1).expect("the first ragdoll's hip");
    for k in 1..=40 {
        ours_hook.before_step(&mut world, k).expect("our rain");
        their_hook
            .before_step(&mut theirs, k)
            .expect("Box2D's rain");
        step_once(&mut world, &mut narrow, &mut theirs);
    }
    let groups = 6 * scenes::RAIN_ROWS;
    assert_eq!(
        world.body_count(),
        1 + groups * scenes::RAIN_GROUP_SIZE * ragdoll
    );
    let counters = theirs.world.counters().expect("a live world");
    assert_eq!(counters.body_count as usize, world.body_count());
    assert_eq!(counters.joint_count as usize, world.joint_count());
    // 40 steps of free fall from 40.95: about 2.2 down, alike in both.
    let ours_y = world.center_of_mass(hip).y;
    let their_y = theirs
        .world
        .body(their_hip)
        .expect("a live body")
        .world_center_of_mass()
        .expect("a centre")
        .y as f32;
    assert!(
        (38.0..40.0).contains(&ours_y),
        "the first hip fell to {ours_y}"
    );
    assert!(
        (ours_y - their_y).abs() < 0.05,
        "the first hip at {ours_y} here, {their_y} in Box2D"
    );
    // Past the fortieth column the oldest is replaced: the counts stay.
    for k in 41..=8 * 41 {
        ours_hook.before_step(&mut world, k).expect("our rain");
        their_hook
            .before_step(&mut theirs, k)
            .expect("Box2D's rain");
    }
    let full = 1 + scenes::RAIN_COLUMNS * scenes::RAIN_ROWS * scenes::RAIN_GROUP_SIZE * ragdoll;
    assert_eq!(world.body_count(), full);
    assert_eq!(world.joint_count(), (full - 1) / ragdoll * (ragdoll - 1));
    let counters = theirs.world.counters().expect("a live world");
    assert_eq!(counters.body_count as usize, full);
    assert_eq!(counters.joint_count as usize, world.joint_count());
    assert!(!world.contains(hip), "the first column was replaced");
}
