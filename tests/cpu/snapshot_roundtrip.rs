//! Every world the API can build and step reads its own snapshot back (issues 36 and 37):
//! random worlds with bodies of every kind and joints of every kind, hostile values in every
//! field and option, removals under live joints, the runtime setters with junk, stepped; at
//! random points (right after an add among them) the snapshot is read back and both worlds
//! step on to the same state hash. The generator and the checks are the fuzz harness's
//! `roundtrip` target (`examples/fuzz/roundtrip.rs`); here proptest draws its bytes, from a
//! fixed seed, and shrinks a failure to a short input.

// `roundtrip.rs` names its sibling `crate::hostile`: `main.rs` declares that one at the
// crate root, as the fuzz example does.
#[path = "../../examples/fuzz/inputs.rs"]
mod inputs;
#[path = "../../examples/fuzz/roundtrip.rs"]
mod roundtrip;

use std::cell::RefCell;
use wgpu_sat::error::{JointError, WorldError};

use arbitrary::Unstructured;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use roundtrip::{JOINT_KINDS, Tally};

/// Worlds per run: each is up to 53 calls with up to ten steps a call.
const WORLDS: u32 = 2000;

#[test]
fn every_world_reads_its_own_snapshot_back_and_steps_on_the_same() {
    let config = Config {
        cases: WORLDS,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let tally = RefCell::new(Tally::default());
    let result = runner.run(&vec(any::<u8>(), 64..4096), |bytes| {
        let input = roundtrip::generate(&mut Unstructured::new(&bytes))
            .map_err(|e| TestCaseError::reject(e.to_string()))?;
        let t =
            roundtrip::check(&input).map_err(|e| TestCaseError::fail(format!("{e}\n{input:?}")))?;
        tally.borrow_mut().add(&t);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let t = tally.into_inner();
    println!("{t:#?}");
    // The generator reaches what the issues name, or the test proves nothing.
    assert!(t.worlds >= u64::from(WORLDS) * 9 / 10, "{t:?}");
    assert!(t.round_trips >= t.worlds, "{t:?}");
    assert!(t.round_trips_before_a_step >= 100, "{t:?}");
    for (kind, count) in JOINT_KINDS.iter().zip(t.joints) {
        assert!(
            count >= 50,
            "only {count} {kind} joints were accepted: {t:?}"
        );
    }
    assert!(t.joints_refused >= 200, "{t:?}");
    assert!(t.removed_under_joints >= 50, "{t:?}");
    assert!(
        t.setters_refused >= 100 && t.setters >= 2 * t.setters_refused,
        "{t:?}"
    );
    assert!(t.bodies_refused >= 100, "{t:?}");
}

// The cases the issues and the property test found, one by one. Each failed before its
// fix (checked): the world stepped on, and its own snapshot was refused, or read back to
// another state hash, or a body went NaN.

use wgpu_sat::glam::Vec2;
use wgpu_sat::world::{
    BodyType, MAX_ACCELERATION, MAX_ANGULAR_SPEED, MAX_IMPULSE, MAX_LINEAR_SPEED_LIMIT, Material,
};
use wgpu_sat::{BodyDef, BodyId, CpuNarrowPhase, Error, JointDef, Polygon, World};

const DT: f32 = 1.0 / 60.0;

/// The world's own snapshot reads back to the same state, and both step on alike.
fn reads_back(world: &World) {
    let bytes = world.snapshot();
    let mut copy =
        World::from_snapshot(&bytes).unwrap_or_else(|e| panic!("own snapshot refused: {e}"));
    assert_eq!(copy.state_hash(), world.state_hash(), "as read");
    let mut original = world.clone();
    let mut narrow = CpuNarrowPhase::new();
    for k in 0..3 {
        original.step(DT, &mut narrow).unwrap();
        copy.step(DT, &mut narrow).unwrap();
        assert_eq!(
            copy.state_hash(),
            original.state_hash(),
            "after {} steps",
            k + 1
        );
    }
}

fn run(world: &mut World, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
        for body in world.bodies() {
            let (v, w) = (world.linear_velocity(body), world.angular_velocity(body));
            assert!(
                world.transform(body).is_finite() && v.is_finite() && w.is_finite(),
                "{body:?} is not finite: {:?} {v} {w}",
                world.transform(body)
            );
        }
    }
}

fn ground_and_box(world: &mut World) -> [BodyId; 2] {
    let ground = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))
        .unwrap();
    let body = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 2.0),
        ))
        .unwrap();
    [ground, body]
}

/// Issue 36: a motor of max torque 1e30 driving a heavy body faster than the step lets it
/// spin (a quarter turn per substep) never reaches its speed, and its impulse grew every
/// substep, past 1e18 within a step, which the reader refused.
#[test]
fn a_motor_that_never_reaches_its_speed_keeps_its_impulse_within_max_impulse() {
    let mut world = World::new(Vec2::ZERO);
    let [ground, body] = ground_and_box(&mut world);
    let piece = world.body_colliders(body).next().unwrap();
    let heavy = Material {
        density: 1e20,
        ..world.material(piece).unwrap()
    };
    world.set_material(piece, heavy).unwrap();
    let at = world.center_of_mass(body);
    let motor = world
        .add_joint(&JointDef::revolute(ground, body, at).with_motor(1e4, 1e30))
        .unwrap();
    run(&mut world, 60);
    let torque = world.joint_torque(motor).unwrap();
    // The motor pushes with all it may: MAX_IMPULSE over the substep (1/240 s).
    let held = MAX_IMPULSE * 240.0;
    assert!(
        torque.abs() > 0.99 * held && torque.abs() <= 1.001 * held,
        "{torque}"
    );
    reads_back(&world);
}

/// Issue 36: limits far past any length, and a motor speed of 1e30, were accepted. Now each
/// is refused by name, with its range, and the world is unchanged.
#[test]
fn joint_options_out_of_the_table_are_refused_by_name() {
    let mut world = World::default();
    let [ground, body] = ground_and_box(&mut world);
    let before = world.snapshot();
    let (p, q) = (Vec2::ZERO, Vec2::new(0.0, 2.0));
    let cases = [
        (
            JointDef::distance(ground, body, p, q).with_limits(1e30, 1e30),
            "lower limit",
            1e30,
            "MAX_JOINT_LENGTH (4e12)",
        ),
        (
            JointDef::prismatic(ground, body, q, Vec2::X).with_limits(-1e30, 9.6),
            "lower limit",
            -1e30,
            "MAX_JOINT_LENGTH (4e12)",
        ),
        (
            JointDef::wheel(ground, body, q, Vec2::Y).with_motor(1e30, 10.0),
            "motor speed",
            1e30,
            "MAX_ANGULAR_SPEED (1e8)",
        ),
        (
            // A prismatic motor drives a speed along its axis: the linear bound.
            JointDef::prismatic(ground, body, q, Vec2::X).with_motor(2e6, 10.0),
            "motor speed",
            2e6,
            "MAX_LINEAR_SPEED_LIMIT (1e6)",
        ),
        (
            JointDef::revolute(ground, body, q).with_motor(1.0, -1.0),
            "motor max_torque",
            -1.0,
            "0 or more",
        ),
    ];
    for (def, name, bad, range) in cases {
        match world.add_joint(&def) {
            Err(e @ Error::Joint(JointError::InvalidJoint { field, value, .. })) => {
                assert_eq!((field, value), (name, bad), "{e}");
                assert!(e.to_string().contains(range), "{e}");
            }
            other => panic!("{def:?} gave {other:?}"),
        }
        assert!(
            world.snapshot() == before,
            "a refused joint changed the world"
        );
    }
    // Within the table, the same options are taken.
    let wheel = world
        .add_joint(&JointDef::wheel(ground, body, q, Vec2::Y).with_motor(2e6, 10.0))
        .unwrap();
    assert!(matches!(
        world.set_motor_speed(wheel, 1e30),
        Err(Error::Joint(JointError::InvalidJoint {
            field: "motor speed",
            ..
        }))
    ));
    world.set_motor_speed(wheel, -MAX_ANGULAR_SPEED).unwrap();
    run(&mut world, 30);
    reads_back(&world);
}

/// Issue 37: a body spawned at 1e30 units (or radians) per second was accepted, and a
/// snapshot taken before the step that clamps it was refused.
#[test]
fn a_body_is_given_no_speed_past_the_table() {
    let mut world = World::default();
    let shape = Polygon::rectangle(0.5, 0.5);
    let cases = [
        (Vec2::new(1e30, 0.0), 0.0, "linear_velocity", 1e30),
        (Vec2::new(3.0, -8e5), 0.0, "linear_velocity", -8e5),
        (Vec2::ZERO, 1e30, "angular_velocity", 1e30),
    ];
    for (linear, angular, name, bad) in cases {
        for def in [
            BodyDef::kinematic(shape, Vec2::ZERO),
            BodyDef::dynamic(shape, Vec2::ZERO),
        ] {
            let def = BodyDef {
                linear_velocity: linear,
                angular_velocity: angular,
                ..def
            };
            // (3, -8e5) is within each component's bound and within the length: accepted.
            match (world.add_body(&def), name, bad) {
                (Ok(_), "linear_velocity", -8e5) => {}
                (Err(Error::World(WorldError::InvalidBody { field, value, .. })), _, _) => {
                    assert_eq!((field, value), (name, bad));
                }
                (other, _, _) => panic!("{linear} {angular}: {other:?}"),
            }
        }
    }
    // At the very edge of the table, snapshotted before any step.
    let edge = BodyDef {
        linear_velocity: Vec2::new(0.6, 0.8) * MAX_LINEAR_SPEED_LIMIT,
        angular_velocity: -MAX_ANGULAR_SPEED,
        ..BodyDef::kinematic(shape, Vec2::new(3.0, 0.0))
    };
    let body = world.add_body(&edge).unwrap();
    reads_back(&world);
    // An impulse that would leave the body faster is refused, naming it.
    let puck = world
        .add_body(&BodyDef::dynamic(shape, Vec2::new(-3.0, 0.0)))
        .unwrap();
    let center = world.center_of_mass(puck);
    assert!(matches!(
        world.apply_linear_impulse(puck, Vec2::new(1e30, 0.0), center),
        Err(Error::World(WorldError::InvalidBody {
            field: "impulse",
            ..
        }))
    ));
    assert!(matches!(
        world.set_velocity(body, Vec2::ZERO, 1e30),
        Err(Error::World(WorldError::InvalidBody {
            field: "angular_velocity",
            ..
        }))
    ));
    run(&mut world, 2);
    reads_back(&world);
}

/// A body of 1e23 at rest on the ground keeps a contact impulse far past 1e18, the bound
/// the reader had for impulses.
#[test]
fn a_heavy_body_resting_on_the_ground_reads_back() {
    let mut world = World::default();
    let [_, body] = ground_and_box(&mut world);
    let heavy = world.body_colliders(body).next().unwrap();
    let material = Material {
        density: 1e23,
        ..world.material(heavy).unwrap()
    };
    world.set_material(heavy, material).unwrap();
    run(&mut world, 60);
    let most = world.contact_impulses().fold(0.0, f32::max);
    assert!(most > 1e18 && most <= MAX_IMPULSE, "{most}");
    reads_back(&world);
}

/// Inputs of the fuzz target `roundtrip` that broke the promise after the first fixes, each
/// failing with `MAX_IMPULSE` at 1e29 and no guard on a substep's motion (checked), and each
/// replayable with `cargo run --example fuzz -- --replay roundtrip:SEED:INDEX`:
/// - 2:41212: a rigid distance joint anchored 1.9e11 from a body of 9e23 warm-started a
///   moment (lever times impulse) past f32, and the body went NaN;
/// - 3:3879: a wheel joint held a body inside a kinematic one that a contact pushed it out
///   of; the two impulses grew step after step, and once the joint broke the contact's warm
///   start alone threw the body past f32;
/// - 1:84289: a body thrown to 4.5e20 within one substep, past the reader's bound on
///   positions (1e18).
///
/// The bytes are the driver's (`examples/fuzz/inputs.rs`) and the worlds the generator's at
/// this commit: a change to the generator makes them other worlds, as for every replay.
#[test]
fn the_worlds_the_fuzz_target_found_read_back() {
    for (seed, index) in [(2, 41212), (3, 3879), (1, 84289)] {
        let mut bytes = Vec::new();
        inputs::input_bytes(seed, "roundtrip", index, &mut bytes);
        let input = roundtrip::generate(&mut Unstructured::new(&bytes))
            .unwrap_or_else(|e| panic!("roundtrip:{seed}:{index} makes no input: {e}"));
        if let Err(e) = roundtrip::check(&input) {
            panic!("roundtrip:{seed}:{index}: {e}");
        }
    }
}

/// Found by the roundtrip target: a conveyor speed of 5.6e15 on a kinematic body threw
/// what touched it 5e13 units in one step. Tangent speeds are held to the linear bound.
#[test]
fn a_tangent_speed_past_the_table_is_refused() {
    let mut world = World::default();
    let [ground, _] = ground_and_box(&mut world);
    let belt = world.body_colliders(ground).next().unwrap();
    let material = Material {
        tangent_speed: 5.6e15,
        ..world.material(belt).unwrap()
    };
    assert!(matches!(
        world.set_material(belt, material),
        Err(Error::World(WorldError::InvalidMaterial {
            field: "tangent_speed",
            ..
        }))
    ));
}

/// Found by the roundtrip target: a kinematic body's piece may hold any density (none is
/// used); made dynamic, its mass counts it as 1, and now it holds 1, which the reader
/// accepts of a dynamic body. A force held for the next step is kept within what a lighter
/// mass may take.
#[test]
fn a_body_made_dynamic_or_lighter_holds_what_the_reader_reads() {
    let mut world = World::default();
    let body = world
        .add_body(&BodyDef {
            density: -1.4,
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0))
        })
        .unwrap();
    world.set_body_type(body, BodyType::Dynamic).unwrap();
    let piece = world.body_colliders(body).next().unwrap();
    assert_eq!(world.material(piece).unwrap().density, 1.0);
    reads_back(&world);

    // A torque at the bound for its mass, then a density 1,000 times lower.
    let torque = MAX_ACCELERATION * world.rotational_inertia(body) * 0.999;
    world.apply_torque(body, torque).unwrap();
    let material = Material {
        density: 1e-3,
        ..world.material(piece).unwrap()
    };
    world.set_material(piece, material).unwrap();
    reads_back(&world);
}

/// Found by the roundtrip target: a velocity of -0 was written as none and read back as
/// +0, another state hash; and a subnormal prismatic axis was kept off unit length.
#[test]
fn negative_zero_speeds_and_tiny_axes_read_back_bit_for_bit() {
    let mut world = World::default();
    let [ground, body] = ground_and_box(&mut world);
    world
        .set_velocity(body, Vec2::new(-0.0, 0.0), -0.0)
        .unwrap();
    reads_back(&world);
    let tiny = Vec2::new(1e-40, -3e-41);
    world
        .add_joint(&JointDef::prismatic(
            ground,
            body,
            Vec2::new(0.0, 2.0),
            tiny,
        ))
        .unwrap();
    reads_back(&world);
}
