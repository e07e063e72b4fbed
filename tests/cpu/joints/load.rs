//! Joints under load: a hanging 100-link chain, a 1:100 mass ratio, and a ragdoll dropped
//! on the ground.

use super::*;

/// The largest distance between a link's upper end and the end of what it hangs from.
fn widest_gap(world: &World, top: Vec2, links: &[BodyId]) -> f32 {
    let mut above = top;
    let mut widest = 0.0_f32;
    for &link in links {
        let t = world.transform(link);
        widest = widest.max(t.transform_point(Vec2::new(0.0, LINK)).distance(above));
        above = t.transform_point(Vec2::new(0.0, -LINK));
    }
    widest
}

#[test]
fn a_hundred_link_chain_hangs_with_little_stretch_and_falls_asleep() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 60.0);
    let links = hanging_chain(&mut world, top, 100, 1.0);
    let nominal = 100.0 * 2.0 * LINK;
    let mut narrow = CpuNarrowPhase::new();
    let mut worst_stretch = 0.0_f32;
    let mut asleep_after = None;
    for k in 0..3000 {
        world.step(DT, &mut narrow).unwrap();
        let bottom = world
            .transform(links[99])
            .transform_point(Vec2::new(0.0, -LINK));
        worst_stretch = worst_stretch.max(bottom.distance(top) - nominal);
        if asleep_after.is_none() && links.iter().all(|&l| !world.is_awake(l)) {
            asleep_after = Some(k);
        }
    }
    let gap = widest_gap(&world, top, &links);
    let bottom = world
        .transform(links[99])
        .transform_point(Vec2::new(0.0, -LINK));
    let stretch = bottom.distance(top) - nominal;
    println!(
        "100-link chain: worst stretch {worst_stretch:.4} of {nominal}, at rest {stretch:.4}, \
         widest pin gap at rest {gap:.4}, asleep after {asleep_after:?} steps"
    );
    // The soft step's joints hold a load with a spring at twice the contact hertz: the top
    // pins, which carry the whole chain, give a little (about 0.014 at 4 substeps), and the
    // chain's lengthwise bounce, started by gravity, dies out over some 30 s.
    assert!(worst_stretch < 0.03 * nominal, "stretched {worst_stretch}");
    assert!(stretch < 0.02 * nominal, "stretched {stretch} at rest");
    assert!(gap < 0.02, "a pin opened by {gap}");
    let asleep = asleep_after.expect("the chain never fell asleep");
    assert!(asleep < 2400, "asleep after {asleep} steps");
}

#[test]
fn a_light_body_holds_a_hundred_times_heavier_one() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 10.0);
    let anchor = pivot(&mut world, top);
    let light = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.06, LINK),
            top - Vec2::new(0.0, LINK),
        ))
        .unwrap();
    let heavy_centre = top - Vec2::new(0.0, 2.0 * LINK + 0.5);
    let heavy = world
        .add_body(&BodyDef {
            density: 100.0 * 0.06 * LINK / (0.5 * 0.5),
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), heavy_centre)
        })
        .unwrap();
    let ratio = world.mass(heavy) / world.mass(light);
    assert!((ratio - 100.0).abs() < 1.0, "mass ratio {ratio}");
    world
        .add_joint(&JointDef::revolute(anchor, light, top))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(
            light,
            heavy,
            top - Vec2::new(0.0, 2.0 * LINK),
        ))
        .unwrap();
    // Swing it, so that the pins carry a changing load.
    world.set_velocity(heavy, Vec2::new(2.0, 0.0), 0.0).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut widest = 0.0_f32;
    for _ in 0..600 {
        world.step(DT, &mut narrow).unwrap();
        let l = world.transform(light);
        let h = world.transform(heavy);
        let upper = l.transform_point(Vec2::new(0.0, LINK)).distance(top);
        let lower = l
            .transform_point(Vec2::new(0.0, -LINK))
            .distance(h.transform_point(Vec2::new(0.0, 0.5)));
        widest = widest.max(upper).max(lower);
    }
    let speed = world.linear_velocity(heavy).length();
    println!("1:100 pair: widest pin gap {widest:.4}, heavy speed {speed:.3}");
    assert!(widest < 0.05, "a pin opened by {widest}");
    // Swinging without friction: energy neither gained (speed bounded by the start's
    // energy, about 2 units per second) nor the pair flung apart.
    assert!(speed.is_finite() && speed < 2.5, "speed {speed}");
}

/// A ragdoll standing with its feet at `feet`: torso, head, two upper and lower arms and
/// legs, pinned with limited revolute joints. Returns each joint's bodies and its anchor in
/// each body's local frame.
fn ragdoll(world: &mut World, feet: Vec2) -> Vec<([BodyId; 2], [Vec2; 2])> {
    use wgpu_sat::Capsule;
    let capsule = |world: &mut World, a: Vec2, b: Vec2, r: f32| {
        let centre = 0.5 * (a + b);
        world
            .add_body(&BodyDef::dynamic(
                Capsule::new(a - centre, b - centre, r).unwrap(),
                feet + centre,
            ))
            .unwrap()
    };
    let torso = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.2, 0.35),
            feet + Vec2::new(0.0, 1.25),
        ))
        .unwrap();
    let head = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.15).unwrap(),
            feet + Vec2::new(0.0, 1.8),
        ))
        .unwrap();
    let mut parts = vec![(torso, head, Vec2::new(0.0, 1.62), 0.5)];
    for side in [-1.0_f32, 1.0] {
        let x = 0.12 * side;
        let thigh = capsule(world, Vec2::new(x, 0.9), Vec2::new(x, 0.5), 0.08);
        let shin = capsule(world, Vec2::new(x, 0.48), Vec2::new(x, 0.08), 0.07);
        let upper = capsule(
            world,
            Vec2::new(0.3 * side, 1.5),
            Vec2::new(0.3 * side, 1.15),
            0.06,
        );
        let lower = capsule(
            world,
            Vec2::new(0.3 * side, 1.12),
            Vec2::new(0.3 * side, 0.8),
            0.05,
        );
        parts.push((torso, thigh, Vec2::new(x, 0.92), 1.0));
        parts.push((thigh, shin, Vec2::new(x, 0.49), 1.2));
        parts.push((torso, upper, Vec2::new(0.3 * side, 1.52), 2.5));
        parts.push((upper, lower, Vec2::new(0.3 * side, 1.13), 1.5));
    }
    parts
        .into_iter()
        .map(|(a, b, at, range)| {
            let at = feet + at;
            world
                .add_joint(&JointDef::revolute(a, b, at).with_limits(-range, range))
                .unwrap();
            let local = [a, b].map(|body| world.transform(body).inverse_transform_point(at));
            ([a, b], local)
        })
        .collect()
}

#[test]
fn a_ragdoll_dropped_on_the_ground_stays_whole() {
    let mut world = World::new(Vec2::new(0.0, -G));
    world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(20.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
    let joints = ragdoll(&mut world, Vec2::new(0.0, 4.0));
    // Tumbling: a kick and a spin.
    let torso = joints[0].0[0];
    world.set_velocity(torso, Vec2::new(3.0, 2.0), 4.0).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut widest = 0.0_f32;
    let mut lowest = f32::INFINITY;
    let mut at_rest = 0.0_f32;
    for k in 0..300 {
        world.step(DT, &mut narrow).unwrap();
        for ([a, b], [la, lb]) in &joints {
            let gap = world
                .transform(*a)
                .transform_point(*la)
                .distance(world.transform(*b).transform_point(*lb));
            widest = widest.max(gap);
            if k == 299 {
                at_rest = at_rest.max(gap);
            }
        }
        for body in world.bodies().filter(|&b| !world.is_static(b)) {
            lowest = lowest.min(world.body_aabb(body).min.y);
        }
    }
    println!(
        "ragdoll: widest pin gap {widest:.4} (the step it lands), {at_rest:.4} at rest, \
         lowest point {lowest:.4}"
    );
    // The landing (some 9 units per second, head or limb first) opens a soft pin for a
    // step or two, by less than the neck's length; then the pins close.
    assert!(widest < 0.2, "a joint opened by {widest}");
    assert!(at_rest < 0.01, "a joint stays open by {at_rest}");
    assert!(lowest > -0.05, "sank to {lowest}");
    let still = world
        .bodies()
        .all(|b| world.linear_velocity(b).length() < 0.5);
    assert!(still, "still moving after 5 s");
}
