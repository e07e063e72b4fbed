//! The step is deterministic: the same world, stepped on one thread and on two (the parallel
//! CPU narrow phase and the solver's coloured passes), and with the single-threaded narrow
//! phase, ends bit for bit the same. Contacts come back in pair order whatever the threads
//! did, and the solver's colours fix the order of its work, so nothing may depend on
//! scheduling. The world has a kinematic paddle turning through the pile, and bodies with
//! damping, a gravity scale and forces applied every step, so that those stages are held to
//! the same account.

mod common;

use std::marker::PhantomData;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, Collider, Contact, CpuNarrowPhase, Error, NarrowPhase, ParallelCpuNarrowPhase,
    Polygon, Shape, World, scenes,
};

/// The mixed scene with a kinematic paddle turning near its floor, and some bodies damped
/// or lighter under gravity.
fn stirred_world() -> World {
    let mut world = scenes::mixed(1500, 9);
    let bodies: Vec<_> = world.bodies().filter(|&b| !world.is_static(b)).collect();
    for (k, &body) in bodies.iter().enumerate() {
        if k.is_multiple_of(5) {
            world.set_linear_damping(body, 0.5).unwrap();
            world.set_angular_damping(body, 1.0).unwrap();
        }
        if k.is_multiple_of(11) {
            world.set_gravity_scale(body, 0.5).unwrap();
        }
    }
    world
        .add_body(&BodyDef {
            angular_velocity: 1.5,
            ..BodyDef::kinematic(Polygon::rectangle(4.0, 0.2), Vec2::new(0.0, 2.0))
        })
        .unwrap();
    world
}

/// Forces and impulses on every seventh dynamic body, different each step.
fn push(world: &mut World, step: usize) {
    let bodies: Vec<_> = world
        .bodies()
        .filter(|&b| !world.is_static(b) && !world.is_kinematic(b))
        .collect();
    for (k, &body) in bodies.iter().enumerate().skip(step % 7).step_by(7) {
        let c = world.center_of_mass(body);
        let f = Vec2::from_angle(0.1 * (k + step) as f32) * 5.0;
        world.apply_force(body, f, c + Vec2::new(0.2, 0.1)).unwrap();
        if (k + step).is_multiple_of(30) {
            world.apply_linear_impulse(body, 0.5 * f, c).unwrap();
        }
    }
}

fn run(threads: Option<usize>, steps: usize) -> u64 {
    let mut world = stirred_world();
    let mut step_all = |narrow: &mut dyn NarrowPhase| {
        for k in 0..steps {
            push(&mut world, k);
            world.step(1.0 / 60.0, narrow).unwrap();
        }
    };
    match threads {
        None => step_all(&mut CpuNarrowPhase::new()),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| step_all(&mut ParallelCpuNarrowPhase::new())),
    }
    world.state_hash()
}

#[test]
fn one_thread_two_threads_and_the_serial_narrow_phase_give_the_same_world() {
    let steps = 240;
    let serial = run(None, steps);
    let one = run(Some(1), steps);
    let two = run(Some(2), steps);
    println!(
        "state after {steps} steps: serial {serial:016x}, 1 thread {one:016x}, 2 threads {two:016x}"
    );
    assert_eq!(one, serial);
    assert_eq!(two, serial);
    // The hash sees the motion: a world stepped once more differs.
    assert_ne!(run(None, steps + 1), serial);
}

/// The parallel CPU narrow phase, but not `Send` (it keeps the default `as_send`): a step
/// called from outside the pool must keep its call on the calling thread, and sends the
/// stretches before and after it to the pool instead of the whole step.
struct Pinned(ParallelCpuNarrowPhase, PhantomData<*const ()>);

impl NarrowPhase for Pinned {
    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.0.set_shape_table(shapes)
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        self.0.collide_pairs_into(colliders, pairs, out)
    }

    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        self.0.set_speculative_distance(margin)
    }
}

#[test]
fn a_narrow_phase_kept_on_the_calling_thread_gives_the_same_world() {
    let steps = 240;
    // Stepped from the test's own thread, outside any pool: on rayon's global pool, as an
    // application steps.
    let mut world = stirred_world();
    let mut narrow = Pinned(ParallelCpuNarrowPhase::new(), PhantomData);
    for k in 0..steps {
        push(&mut world, k);
        world.step(1.0 / 60.0, &mut narrow).unwrap();
    }
    assert!(narrow.as_send().is_none());
    assert_eq!(world.state_hash(), run(Some(2), steps));
}
