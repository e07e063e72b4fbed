//! Joints in the soft step: revolute and distance joints against closed forms (a
//! pendulum's period), under load (a hanging 100-link chain, a 1:100 mass ratio), the same
//! bits on one and two threads, and the house rules: bad input is an error naming it,
//! removing a body removes its joints, a stale handle is refused, joined bodies do not
//! collide unless asked to.

use wgpu_sat::error::{JointError, WorldError};
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

/// A world under gravity `G` whose bodies never sleep.
fn awake_world() -> World {
    let mut world = World::new(Vec2::new(0.0, -G));
    world.set_sleeping(false);
    world
}

/// A static pivot at `top` and a disc (radius 0.3) hanging 1 below it, unjoined.
fn hanging_bob(world: &mut World, top: Vec2) -> (BodyId, BodyId) {
    let ground = pivot(world, top);
    let bob = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.3).unwrap(),
            top - Vec2::new(0.0, 1.0),
        ))
        .unwrap();
    (ground, bob)
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
    let mut world = awake_world();
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
    let mut world = awake_world();
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
    world.state_hash()
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

#[test]
fn joint_grid_steps_to_the_same_bits_on_one_and_two_threads() {
    // Box2D's joint grid: some 20,000 joints, a colour's joints split into blocks that the two
    // threads solve side by side (the small world above fits a colour in one block).
    let hash = |threads: usize| {
        let mut world = wgpu_sat::scenes::joint_grid();
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut narrow = ParallelCpuNarrowPhase::new();
                for _ in 0..20 {
                    world.step(DT, &mut narrow as &mut dyn NarrowPhase).unwrap();
                }
            });
        world.state_hash()
    };
    let (one, two) = (hash(1), hash(2));
    println!("joint_grid after 20 steps: 1 thread {one:016x}, 2 threads {two:016x}");
    assert_eq!(one, two);
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

/// A static pivot at `at` and a dynamic arm `2 half` long reaching right from it.
fn arm(world: &mut World, at: Vec2, half: f32) -> (BodyId, BodyId) {
    let ground = pivot(world, at);
    let arm = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(half, 0.05),
            at + Vec2::new(half, 0.0),
        ))
        .unwrap();
    (ground, arm)
}

#[test]
fn revolute_limits_hold_under_ten_times_the_arms_weight() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 5.0);
    let (ground, bar) = arm(&mut world, top, 1.0);
    let (lower, upper) = (-0.3_f32, 0.2_f32);
    world
        .add_joint(&JointDef::revolute(ground, bar, top).with_limits(lower, upper))
        .unwrap();
    let weight = world.mass(bar) * G;
    let mut narrow = CpuNarrowPhase::new();
    let mut lowest = 0.0_f32;
    for _ in 0..300 {
        // Ten times its weight, down at the tip.
        let tip = world.transform(bar).transform_point(Vec2::new(1.0, 0.0));
        world
            .apply_force(bar, Vec2::new(0.0, -10.0 * weight), tip)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        lowest = lowest.min(world.transform(bar).angle());
    }
    let rest = world.transform(bar).angle();
    let gap = world
        .transform(bar)
        .transform_point(Vec2::new(-1.0, 0.0))
        .distance(top);
    println!("limit {lower}: lowest angle {lowest:.4}, at rest {rest:.4}, pin gap {gap:.4}");
    assert!(lowest > lower - 0.02, "went to {lowest} past {lower}");
    assert!(
        (rest - lower).abs() < 0.01,
        "rests at {rest}, not on {lower}"
    );
    assert!(gap < 0.01, "the pin opened by {gap}");

    // Pushed up as hard, it stops at the upper limit.
    let mut highest = rest;
    for _ in 0..300 {
        let tip = world.transform(bar).transform_point(Vec2::new(1.0, 0.0));
        world
            .apply_force(bar, Vec2::new(0.0, 12.0 * weight), tip)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        highest = highest.max(world.transform(bar).angle());
    }
    println!("limit {upper}: highest angle {highest:.4}");
    assert!(highest < upper + 0.02, "went to {highest} past {upper}");
    assert!((world.transform(bar).angle() - upper).abs() < 0.01);
}

/// A disc on a pin through its centre (no gravity torque), driven by a motor.
fn motor_wheel(speed: f32, max_torque: f32) -> (World, BodyId) {
    let mut world = awake_world();
    let centre = Vec2::new(0.0, 3.0);
    let ground = pivot(&mut world, centre + Vec2::new(0.0, 2.0));
    let wheel = world
        .add_body(&BodyDef::dynamic(Circle::new(0.5).unwrap(), centre))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, wheel, centre).with_motor(speed, max_torque))
        .unwrap();
    (world, wheel)
}

#[test]
fn a_motor_reaches_its_speed_and_applies_no_more_than_its_torque() {
    // A strong motor: the set speed within a step or two, and held.
    let (mut world, wheel) = motor_wheel(3.0, 1000.0);
    run(&mut world, 30);
    let spin = world.angular_velocity(wheel);
    println!("strong motor: spin {spin:.5}");
    assert!((spin - 3.0).abs() < 1e-3 * 3.0, "spin {spin}");

    // A weak one: it accelerates the wheel at max_torque / inertia and no faster.
    let torque = 0.2;
    let (mut world, wheel) = motor_wheel(100.0, torque);
    let inertia = world.rotational_inertia(wheel);
    let seconds = 1.0;
    run(&mut world, 60);
    let spin = world.angular_velocity(wheel);
    let expected = torque * seconds / inertia;
    println!("weak motor: spin {spin:.4} after {seconds} s, torque / inertia * t = {expected:.4}");
    assert!((spin - expected).abs() < 0.01 * expected, "spin {spin}");
    // Reversed and still capped: slowing down at the same rate.
    let (mut world, wheel) = motor_wheel(-100.0, torque);
    run(&mut world, 60);
    let spin = world.angular_velocity(wheel);
    assert!((spin + expected).abs() < 0.01 * expected, "spin {spin}");
}

#[test]
fn a_revolute_spring_pulls_back_to_the_angle_it_was_made_at() {
    let mut world = World::new(Vec2::ZERO);
    world.set_sleeping(false);
    // A disc pinned at its centre: the spring's stiffness is the disc's own rotational
    // inertia times (2π hertz)², so it swings at the spring's hertz.
    let top = Vec2::new(0.0, 5.0);
    let ground = pivot(&mut world, top + Vec2::new(0.0, 2.0));
    let bar = world
        .add_body(&BodyDef::dynamic(Circle::new(0.5).unwrap(), top))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, bar, top).with_spring(1.0, 0.0))
        .unwrap();
    world.set_velocity(bar, Vec2::ZERO, 0.1).unwrap();
    // Undamped, 1 Hz: back through 0 after half a period, at the other side after 3/4.
    let mut narrow = CpuNarrowPhase::new();
    let mut angles = Vec::new();
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        angles.push(world.transform(bar).angle());
    }
    let amplitude = 0.1 / std::f32::consts::TAU;
    println!(
        "spring: at 1/4 period {:.4}, 1/2 {:.4}, 3/4 {:.4}, expected amplitude {amplitude:.4}",
        angles[14], angles[29], angles[44]
    );
    // The spring is integrated implicitly, which damps it a little even at a damping ratio
    // of 0 (some 6% of the amplitude over 3/4 of a period at 240 substeps a second).
    assert!((angles[14] - amplitude).abs() < 0.15 * amplitude);
    assert!(angles[29].abs() < 0.05 * amplitude);
    assert!((angles[44] + amplitude).abs() < 0.15 * amplitude);
}

#[test]
fn a_rope_is_slack_within_its_length_and_holds_at_it() {
    let mut world = awake_world();
    let top = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, top);
    let start = top + Vec2::new(0.5, -0.5);
    let ball = world
        .add_body(&BodyDef::dynamic(Circle::new(0.2).unwrap(), start))
        .unwrap();
    let length = 3.0;
    world
        .add_joint(&JointDef::distance(ground, ball, top, start).with_limits(0.0, length))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    // Free fall while the rope is slack: it takes 0.4 s to fall to 1.3 below the pivot.
    for _ in 0..24 {
        world.step(DT, &mut narrow).unwrap();
    }
    let fallen = start.y - world.center_of_mass(ball).y;
    let free = 0.5 * G * 0.4 * 0.4;
    println!("slack rope: fell {fallen:.4} in 0.4 s, free fall {free:.4}");
    assert!((fallen - free).abs() < 0.03 * free, "fell {fallen}");
    let mut longest = 0.0_f32;
    for _ in 0..300 {
        world.step(DT, &mut narrow).unwrap();
        longest = longest.max(world.center_of_mass(ball).distance(top));
    }
    println!("rope: longest {longest:.4} of {length}");
    assert!(longest < length + 0.03, "stretched to {longest}");
    assert!(longest > length - 0.01, "never went taut: {longest}");
}

#[test]
fn a_rigid_weld_holds_a_cantilever_and_a_soft_one_bends() {
    let sag = |springs: Option<(f32, f32)>| {
        let mut world = World::new(Vec2::new(0.0, -G));
        world.set_sleeping(false);
        let at = Vec2::new(0.0, 5.0);
        let (ground, bar) = arm(&mut world, at, 1.0);
        let mut weld = JointDef::weld(ground, bar, at);
        if let Some((linear, angular)) = springs {
            weld = weld.with_weld_springs(linear, angular, 1.0);
        }
        world.add_joint(&weld).unwrap();
        run(&mut world, 240);
        let t = world.transform(bar);
        (
            t.angle(),
            t.transform_point(Vec2::new(-1.0, 0.0)).distance(at),
        )
    };
    let (rigid_angle, rigid_gap) = sag(None);
    let (soft_angle, _) = sag(Some((0.0, 2.0)));
    println!(
        "weld: rigid angle {rigid_angle:.4} gap {rigid_gap:.4}, soft (2 Hz) angle {soft_angle:.4}"
    );
    assert!(rigid_angle.abs() < 0.02, "rigid weld sags to {rigid_angle}");
    assert!(rigid_gap < 0.01, "rigid weld opens by {rigid_gap}");
    // A 2 Hz angular spring under the arm's weight: k θ = -m g L cos θ, with the
    // spring's stiffness k = I ω², I the arm's own rotational inertia (about its centre,
    // m (2L)² / 12; L = 1). For a small θ: θ = -g / (ω² / 3).
    let omega = std::f32::consts::TAU * 2.0;
    let expected = -G / (omega * omega / 3.0);
    assert!(
        (soft_angle - expected).abs() < 0.15 * expected.abs(),
        "soft weld at {soft_angle}, expected about {expected}"
    );
}

#[test]
fn a_mouse_joint_drags_a_body_to_its_target_within_its_max_force() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let ground = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(10.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
    let crate_ = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 0.5),
        ))
        .unwrap();
    run(&mut world, 30);
    let grab = world.center_of_mass(crate_) + Vec2::new(0.0, 0.2);
    let weight = world.mass(crate_) * G;
    let mouse = world
        .add_joint(&JointDef::mouse(ground, crate_, grab).with_max_force(20.0 * weight))
        .unwrap();
    let target = Vec2::new(2.0, 3.0);
    world.set_joint_target(mouse, target).unwrap();
    run(&mut world, 180);
    let held = world.transform(crate_).transform_point(Vec2::new(0.0, 0.2));
    println!("mouse: held point {held:?}, target {target:?}");
    assert!(held.distance(target) < 0.1, "held at {held}");

    // Too weak to lift it: the crate stays on the ground.
    let weak = world
        .add_joint(&JointDef::mouse(ground, crate_, held).with_max_force(0.5 * weight))
        .unwrap();
    world.remove_joint(mouse).unwrap();
    world
        .set_joint_target(weak, target + Vec2::new(0.0, 3.0))
        .unwrap();
    run(&mut world, 180);
    let y = world.center_of_mass(crate_).y;
    println!("weak mouse: crate at height {y:.3}");
    assert!(y < 0.6, "half its weight lifted it to {y}");
    assert!(matches!(
        world.set_joint_target(weak, Vec2::NAN),
        Err(Error::Joint(JointError::InvalidJoint {
            field: "target",
            ..
        }))
    ));
}

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

#[test]
fn a_prismatic_body_stays_on_its_axis_and_keeps_its_angle() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, at);
    let slider = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.4, 0.2), at))
        .unwrap();
    let axis = Vec2::new(1.0, 1.0).normalize();
    // Pushed sideways and spun: the joint takes both out at once.
    world
        .set_velocity(slider, Vec2::new(1.0, -1.0), 2.0)
        .unwrap();
    world
        .add_joint(&JointDef::prismatic(ground, slider, at, axis * 3.0))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut worst_off = 0.0_f32;
    let mut worst_turn = 0.0_f32;
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        let d = world.center_of_mass(slider) - at;
        worst_off = worst_off.max(d.perp_dot(axis).abs());
        worst_turn = worst_turn.max(world.transform(slider).angle().abs());
    }
    // Gravity along the axis: g / sqrt(2) down it; 1 s of it.
    let along = (world.center_of_mass(slider) - at).dot(axis);
    let expected = -0.5 * G * std::f32::consts::FRAC_1_SQRT_2;
    println!(
        "prismatic: off the axis {worst_off:.5}, turned {worst_turn:.5}, slid {along:.4} (free {expected:.4})"
    );
    assert!(worst_off < 0.01, "left the axis by {worst_off}");
    assert!(worst_turn < 0.01, "turned by {worst_turn}");
    assert!(
        (along - expected).abs() < 0.02 * expected.abs(),
        "slid {along}"
    );
}

#[test]
fn prismatic_limits_and_motor_act_along_the_axis() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let ground = pivot(&mut world, at);
    let make = |world: &mut World, x: f32| {
        world
            .add_body(&BodyDef::dynamic(
                Polygon::rectangle(0.2, 0.2),
                at + Vec2::new(x, 0.0),
            ))
            .unwrap()
    };
    // A vertical slider that may drop 1 unit, and a horizontal one driven at 2 units per
    // second with force to spare.
    let limited = make(&mut world, 0.0);
    world
        .add_joint(&JointDef::prismatic(ground, limited, at, Vec2::Y).with_limits(-1.0, 0.5))
        .unwrap();
    let driven = make(&mut world, 3.0);
    world
        .add_joint(
            &JointDef::prismatic(ground, driven, at + Vec2::new(3.0, 0.0), Vec2::X)
                .with_motor(2.0, 1000.0),
        )
        .unwrap();
    run(&mut world, 120);
    let drop = world.center_of_mass(limited).y - at.y;
    let speed = world.linear_velocity(driven);
    println!("prismatic: dropped {drop:.4} to a limit of -1, driven at {speed:?}");
    assert!((drop + 1.0).abs() < 0.01, "dropped {drop}");
    assert!(
        (speed.x - 2.0).abs() < 1e-3 && speed.y.abs() < 1e-3,
        "speed {speed}"
    );
}

#[test]
fn a_wheel_rides_its_suspension_and_turns_by_its_motor() {
    let mut world = awake_world();
    let at = Vec2::new(0.0, 10.0);
    let chassis = pivot(&mut world, at + Vec2::new(0.0, 1.0));
    let wheel = world
        .add_body(&BodyDef::dynamic(Circle::new(0.4).unwrap(), at))
        .unwrap();
    let hertz = 4.0;
    world
        .add_joint(
            &JointDef::wheel(chassis, wheel, at, Vec2::Y)
                .with_spring(hertz, 1.0)
                .with_motor(5.0, 100.0),
        )
        .unwrap();
    run(&mut world, 180);
    // The suspension's stiffness is the wheel's mass times ω²: it sags g / ω².
    let omega = std::f32::consts::TAU * hertz;
    let sag = world.center_of_mass(wheel).y - at.y;
    let expected = -G / (omega * omega);
    let spin = world.angular_velocity(wheel);
    let side = world.center_of_mass(wheel).x - at.x;
    println!("wheel: sag {sag:.5} (g / w^2 = {expected:.5}), spin {spin:.4}, sideways {side:.5}");
    assert!((sag - expected).abs() < 0.05 * expected.abs(), "sag {sag}");
    assert!((spin - 5.0).abs() < 1e-3, "spin {spin}");
    assert!(side.abs() < 1e-3, "moved sideways {side}");
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

#[test]
fn a_motor_joint_drives_its_body_to_the_target_pose_within_its_force() {
    let mut world = awake_world();
    let base = pivot(&mut world, Vec2::new(0.0, 5.0));
    let platform = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.1),
            Vec2::new(3.0, 5.0),
        ))
        .unwrap();
    let weight = world.mass(platform) * G;
    let drive = world
        .add_joint(
            &JointDef::motor(base, platform)
                .with_max_force(5.0 * weight)
                .with_max_torque(10.0 * weight),
        )
        .unwrap();
    run(&mut world, 30);
    let held = world.center_of_mass(platform);
    println!("motor joint holds at {held:?}");
    assert!(
        held.distance(Vec2::new(3.0, 5.0)) < 0.01,
        "sagged to {held}"
    );

    world
        .set_motor_target(drive, Vec2::new(1.0, 2.0), 0.5)
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut strongest = 0.0_f32;
    for _ in 0..180 {
        world.step(DT, &mut narrow).unwrap();
        strongest = strongest.max(world.joint_force(drive).unwrap().length());
    }
    let at = world.center_of_mass(platform);
    let angle = world.transform(platform).angle();
    println!(
        "motor joint: at {at:?}, angle {angle:.4}, strongest force {strongest:.3} (cap {:.3})",
        5.0 * weight
    );
    assert!(at.distance(Vec2::new(1.0, 7.0)) < 0.01, "at {at}");
    assert!((angle - 0.5).abs() < 0.01, "angle {angle}");
    assert!(strongest <= 5.0 * weight * 1.0001, "force {strongest}");
    assert!(
        strongest > 2.0 * weight,
        "the drive never pushed: {strongest}"
    );
    assert!(world.set_motor_target(drive, Vec2::ZERO, 4.0).is_err());
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
