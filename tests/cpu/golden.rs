//! The golden hash: a fixed scene stepped 600 times ends in a state whose
//! [`World::state_hash`] is the constant [`GOLDEN`] below, computed once when this test was
//! written (on x86_64 Linux) and committed. Any machine that runs the tests checks the
//! cross-platform promise with it: the step uses only IEEE 754 operations, correctly
//! rounded everywhere (`+ - * /` and `sqrt`), the crate's own sine, cosine and angles
//! (`wgpu_sat::math`) instead of the platform's math library, and Rust never contracts a
//! multiply and an add into a fused multiply-add on its own. If this test fails on one
//! machine and passes on another, something on the step's path broke the promise; if a
//! change to the crate moves the physics on purpose, the constant is updated in the same
//! commit, with the reason.
//!
//! The scene exercises every stage a desync could hide in: a pile of circles, polygons
//! and concave bodies; two ragdolls (revolute joints with limits, friction and springs); a
//! kinematic paddle turning through the pile; a static sensor; damping, gravity scales,
//! forces and impulses; and bodies removed and added mid-run, so that slots and generations
//! are reused. The same hash is asserted on one and two threads (the parallel narrow phase
//! and the solver's threaded passes), and with the `gpu` feature and an adapter, through
//! the GPU narrow phase (which gives the CPU's bits on lavapipe, the adapter CI runs; see
//! docs/reliability.md, "Determinism").

use crate::common;

use common::stirred::{push, stir};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, CpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, Polygon, World, scenes,
};

/// `World::state_hash` of the scene after [`STEPS`] steps (see the module notes). Last
/// moved when the continuous stage began sweeping a piece whose core starts in touch as
/// its centroid probe (a spinning capsule passed a thin wall): 7 sweeps of the run hit
/// that way.
const GOLDEN: u64 = 0xa358_66bf_8c1e_cf67;
/// Sensor begin and end events over the run, from the same run.
const GOLDEN_SENSOR_EVENTS: [usize; 2] = [461, 392];

const STEPS: usize = 600;
const DT: f32 = 1.0 / 60.0;
/// The step at which some bodies are removed, and the one at which new ones are added
/// (taking their slots, under new generations).
const REMOVE_AT: usize = 200;
const ADD_AT: usize = 260;

/// The scene: `scenes::mixed(1000, 7)`, stirred as tests/cpu/determinism.rs stirs its pile,
/// with two ragdolls dropped on top and a sensor in the middle of the pile.
fn golden_world() -> World {
    let mut world = scenes::mixed(1000, 7);
    stir(&mut world);
    world
        .add_body(&BodyDef {
            is_sensor: true,
            ..BodyDef::fixed(Polygon::rectangle(3.0, 1.5), Vec2::new(4.0, 6.0))
        })
        .unwrap();
    let top = world
        .bodies()
        .map(|b| world.body_aabb(b).max.y)
        .fold(f32::MIN, f32::max);
    for (group, x) in [(1, -3.0), (2, 3.0)] {
        scenes::human(
            &mut world,
            Vec2::new(x, top + 2.0),
            1.5,
            0.05,
            if group == 1 { 5.0 } else { 0.0 },
            0.5,
            group,
        )
        .unwrap();
    }
    world
}

/// What happens before step `step`: the stirring forces, and the removals and additions.
fn drive(world: &mut World, step: usize) {
    push(world, step);
    if step == REMOVE_AT {
        let bodies: Vec<BodyId> = world
            .bodies()
            .filter(|&b| !world.is_static(b) && !world.is_kinematic(b))
            .collect();
        for &body in bodies.iter().step_by(40) {
            world.remove_body(body).unwrap();
        }
    }
    if step == ADD_AT {
        for k in 0..30 {
            let x = -6.0 + 0.4 * k as f32;
            world
                .add_body(&BodyDef::dynamic(
                    Polygon::rectangle(0.15, 0.15),
                    Vec2::new(x, 30.0),
                ))
                .unwrap();
        }
    }
}

/// The scene stepped [`STEPS`] times through `narrow`: its state hash, and the sensor
/// begin and end events counted over the run.
fn run(narrow: &mut dyn NarrowPhase) -> (u64, [usize; 2]) {
    let mut world = golden_world();
    let mut sensor_events = [0; 2];
    for step in 0..STEPS {
        drive(&mut world, step);
        world.step(DT, narrow).unwrap();
        let events = world.events();
        sensor_events[0] += events.sensor_begin.len();
        sensor_events[1] += events.sensor_end.len();
    }
    (world.state_hash(), sensor_events)
}

/// [`run`] with the parallel CPU narrow phase, on a pool of `threads` threads (the solver
/// runs its passes on the same pool).
fn run_on_threads(threads: usize) -> (u64, [usize; 2]) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| run(&mut ParallelCpuNarrowPhase::new()))
}

#[test]
fn the_fixed_scene_ends_in_the_golden_state_on_every_thread_count() {
    let serial = run(&mut CpuNarrowPhase::new());
    println!(
        "after {STEPS} steps: state hash {:#018x}, sensor events {:?}",
        serial.0, serial.1
    );
    assert_eq!(
        serial,
        (GOLDEN, GOLDEN_SENSOR_EVENTS),
        "the golden scene's end state moved: the step no longer gives the same bits as on \
         the machine that computed the constant (see the module notes)"
    );
    // The sensor saw something: the counts are a check, not zeros.
    assert!(serial.1[0] > 0, "{:?}", serial.1);
    for threads in [1, 2] {
        assert_eq!(run_on_threads(threads), serial, "{threads} threads");
    }
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_narrow_phase_reaches_the_golden_state_on_this_adapter() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = wgpu_sat::GpuNarrowPhase::new(&device, &queue).unwrap();
    assert_eq!(run(&mut gpu), (GOLDEN, GOLDEN_SENSOR_EVENTS));
}
