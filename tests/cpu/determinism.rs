//! The step is deterministic: the same world, stepped on one thread and on two (the parallel
//! CPU narrow phase and the solver's coloured passes), and with the single-threaded narrow
//! phase, ends bit for bit the same. Contacts come back in pair order whatever the threads
//! did, and the solver's colours fix the order of its work, so nothing may depend on
//! scheduling. The world has a kinematic paddle turning through the pile, and bodies with
//! damping, a gravity scale and forces applied every step, so that those stages are held to
//! the same account.

use crate::common;

use std::marker::PhantomData;

use common::stirred::{push, stir};
use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, Error, NarrowPhase, ParallelCpuNarrowPhase, Shape, World,
    scenes,
};

/// The mixed scene with a kinematic paddle turning near its floor, and some bodies damped
/// or lighter under gravity.
fn stirred_world() -> World {
    let mut world = scenes::mixed(1500, 9);
    stir(&mut world);
    world
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
