//! Joints in the soft step: revolute and distance joints against closed forms (a
//! pendulum's period), under load (a hanging 100-link chain, a 1:100 mass ratio), the same
//! bits on one and two threads, and the house rules: bad input is an error naming it,
//! removing a body removes its joints, a stale handle is refused, joined bodies do not
//! collide unless asked to.

mod common;

use common::state_hash;
use wgpu_sat::glam::Vec2;
use wgpu_sat::world::StaleReason;
use wgpu_sat::{
    BodyDef, BodyId, Circle, CpuNarrowPhase, Error, JointDef, JointId, NarrowPhase,
    ParallelCpuNarrowPhase, Polygon, World, scenes,
};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

fn run(world: &mut World, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
}

fn pivot(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.1, 0.1), at))
        .unwrap()
}

/// The period of `bob`'s swing through x = `x0`: the mean time between upward crossings
/// over `steps` steps, each crossing placed by linear interpolation.
fn measured_period(world: &mut World, bob: BodyId, x0: f32, steps: usize) -> f32 {
    let mut narrow = CpuNarrowPhase::new();
    let mut crossings = Vec::new();
    let mut last = world.center_of_mass(bob).x - x0;
    for k in 1..=steps {
        world.step(DT, &mut narrow).unwrap();
        let x = world.center_of_mass(bob).x - x0;
        if last < 0.0 && x >= 0.0 {
            crossings.push((k as f32 - x / (x - last)) * DT);
        }
        last = x;
    }
    assert!(crossings.len() >= 4, "too few swings: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32
}

#[test]
fn a_revolute_pendulum_swings_with_the_physical_pendulums_period() {
    let mut world = World::new(Vec2::new(0.0, -G));
    world.set_sleeping(false);
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    // A disc of radius r whose centre hangs L below the pin, let go 0.05 rad from rest.
    let (r, length, amplitude) = (0.1_f32, 1.0_f32, 0.05_f32);
    let start = top + length * Vec2::new(amplitude.sin(), -amplitude.cos());
    let bob = world
        .add_body(&BodyDef::dynamic(Circle::new(r).unwrap(), start))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, bob, top))
        .unwrap();
    // Small angles: T = 2π sqrt(I_pin / (m g L)), I_pin = m r²/2 + m L².
    let expected = std::f32::consts::TAU * ((0.5 * r * r + length * length) / (G * length)).sqrt();
    let period = measured_period(&mut world, bob, 0.0, 600);
    println!("revolute pendulum: period {period:.4} s, small-angle formula {expected:.4} s");
    assert!(
        (period - expected).abs() < 0.02 * expected,
        "period {period} vs {expected}"
    );
}

#[test]
fn a_distance_pendulum_swings_with_the_simple_pendulums_period() {
    let mut world = World::new(Vec2::new(0.0, -G));
    world.set_sleeping(false);
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    let (length, amplitude) = (2.0_f32, 0.05_f32);
    let start = top + length * Vec2::new(amplitude.sin(), -amplitude.cos());
    let bob = world
        .add_body(&BodyDef::dynamic(Circle::new(0.1).unwrap(), start))
        .unwrap();
    // The rod ends at the disc's centre, so its spin takes no part: T = 2π sqrt(L / g).
    world
        .add_joint(&JointDef::distance(ground, bob, top, start))
        .unwrap();
    let expected = std::f32::consts::TAU * (length / G).sqrt();
    let period = measured_period(&mut world, bob, 0.0, 900);
    println!("distance pendulum: period {period:.4} s, formula {expected:.4} s");
    assert!(
        (period - expected).abs() < 0.02 * expected,
        "period {period} vs {expected}"
    );
    let rod = world.center_of_mass(bob).distance(top);
    assert!(
        (rod - length).abs() < 0.01 * length,
        "rod stretched to {rod}"
    );
}

/// Half the length of a chain link.
const LINK: f32 = 0.25;

/// A chain of `links` boxes hanging straight down from a static pivot at `top`, pinned end
/// to end. Returns the links, top first.
fn hanging_chain(world: &mut World, top: Vec2, links: usize, density: f32) -> Vec<BodyId> {
    let anchor = pivot(world, top);
    let mut above = anchor;
    let mut bodies = Vec::new();
    for k in 0..links {
        let centre = top - Vec2::new(0.0, LINK * (2 * k + 1) as f32);
        let link = world
            .add_body(&BodyDef {
                density,
                ..BodyDef::dynamic(Polygon::rectangle(0.06, LINK), centre)
            })
            .unwrap();
        let pin = centre + Vec2::new(0.0, LINK);
        world
            .add_joint(&JointDef::revolute(above, link, pin))
            .unwrap();
        bodies.push(link);
        above = link;
    }
    bodies
}

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
    let mut world = World::new(Vec2::new(0.0, -G));
    world.set_sleeping(false);
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

/// A pyramid with chains swinging into it and a distance pendulum: the joints and the
/// contacts share bodies.
fn jointed_world() -> World {
    let mut world = scenes::pyramid(8);
    for k in 0..3 {
        let top = Vec2::new(-6.0 + 6.0 * k as f32, 14.0);
        let links = hanging_chain(&mut world, top, 12, 1.0);
        world
            .set_velocity(*links.last().unwrap(), Vec2::new(4.0, 0.0), 0.0)
            .unwrap();
    }
    let anchor = pivot(&mut world, Vec2::new(8.0, 12.0));
    let bob = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.4).unwrap(),
            Vec2::new(3.0, 12.0),
        ))
        .unwrap();
    world
        .add_joint(&JointDef::distance(
            anchor,
            bob,
            Vec2::new(8.0, 12.0),
            Vec2::new(3.0, 12.0),
        ))
        .unwrap();
    world
}

fn jointed_hash(threads: usize, steps: usize) -> u64 {
    let mut world = jointed_world();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            let mut narrow = ParallelCpuNarrowPhase::new();
            for _ in 0..steps {
                world.step(DT, &mut narrow as &mut dyn NarrowPhase).unwrap();
            }
        });
    state_hash(&world)
}

#[test]
fn a_world_with_joints_steps_to_the_same_bits_on_one_and_two_threads() {
    let steps = 180;
    let one = jointed_hash(1, steps);
    let two = jointed_hash(2, steps);
    println!("jointed world after {steps} steps: 1 thread {one:016x}, 2 threads {two:016x}");
    assert_eq!(one, two);
    assert_ne!(jointed_hash(1, steps + 1), one, "the hash sees the motion");
}

fn two_boxes(world: &mut World) -> [BodyId; 2] {
    let a = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))
        .unwrap();
    let b = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.8, 0.0),
        ))
        .unwrap();
    [a, b]
}

#[test]
fn bad_joint_definitions_are_errors_naming_the_input() {
    let mut world = World::default();
    let [a, b] = two_boxes(&mut world);
    let pin = JointDef::revolute(a, b, Vec2::new(0.4, 0.0));
    let invalid = |world: &mut World, def: JointDef| match world.add_joint(&def) {
        Err(Error::InvalidJoint { field, .. }) => field,
        other => panic!("{def:?} gave {other:?}"),
    };
    assert!(matches!(
        world.add_joint(&JointDef::revolute(a, a, Vec2::ZERO)),
        Err(Error::JointToItself { body }) if body == a
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
    let message = world
        .add_joint(&pin.with_spring(-1.0, 0.5))
        .unwrap_err()
        .to_string();
    assert!(message.contains("spring hertz"), "{message}");
    assert_eq!(world.joint_count(), 0, "a refused joint is not added");

    world.remove_body(b).unwrap();
    assert!(matches!(
        world.add_joint(&pin),
        Err(Error::StaleBody { body, .. }) if body == b
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
            Err(Error::StaleJoint { joint, reason: StaleReason::Removed }) if joint == gone
        ));
        assert_eq!(world.joint_bodies(gone), None);
    }
    run(&mut world, 10);

    world.remove_joint(ac).unwrap();
    assert!(matches!(
        world.remove_joint(ac),
        Err(Error::StaleJoint { .. })
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
        Err(Error::StaleJoint {
            reason: StaleReason::OtherWorld,
            ..
        })
    ));
}

/// Contacts between `a` and `b` after a step.
fn contacts_between(world: &World, a: BodyId, b: BodyId) -> usize {
    world
        .contacts()
        .filter(|c| c.bodies.contains(&a) && c.bodies.contains(&b))
        .count()
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
