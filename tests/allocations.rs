//! Once warm, the CPU hot paths allocate nothing: the broad phase, the narrow phases'
//! `collide_pairs_into`, and a whole `World::step`.
//!
//! A counting global allocator watches this test binary, which holds a single test so that
//! no other test allocates meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use wgpu_sat::{Aabb, BroadPhase, CpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, scenes};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn warm_hot_paths_do_not_allocate() {
    // Every thread of the pool started (a thread allocates as it starts): under load they
    // could start while a measured call runs.
    rayon::broadcast(|_| ());
    let batch = scenes::narrow_phase_batch(20_000, 2);
    let aabbs: Vec<Aabb> = batch
        .colliders
        .iter()
        .map(|c| batch.shapes[c.shape as usize].aabb(&c.transform))
        .collect();
    let mut broad = BroadPhase::new();
    broad.find_pairs(&aabbs);
    assert_eq!(
        allocations_during(|| {
            broad.find_pairs(&aabbs);
        }),
        0,
        "broad phase"
    );

    let mut contacts = Vec::new();
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&batch.shapes).unwrap();
    cpu.collide_pairs_into(&batch.colliders, &batch.pairs, &mut contacts)
        .unwrap();
    let found = contacts.len();
    assert!(found > 10_000);
    let n = allocations_during(|| {
        cpu.collide_pairs_into(&batch.colliders, &batch.pairs, &mut contacts)
            .unwrap()
    });
    assert_eq!(n, 0, "CPU narrow phase");
    assert_eq!(contacts.len(), found);

    let mut parallel = ParallelCpuNarrowPhase::new();
    parallel.set_shapes(&batch.shapes).unwrap();
    for _ in 0..3 {
        parallel
            .collide_pairs_into(&batch.colliders, &batch.pairs, &mut contacts)
            .unwrap();
    }
    let n = allocations_during(|| {
        parallel
            .collide_pairs_into(&batch.colliders, &batch.pairs, &mut contacts)
            .unwrap()
    });
    assert_eq!(n, 0, "parallel CPU narrow phase");
    assert_eq!(contacts.len(), found);

    // A settled pyramid: the contact count no longer changes, so no buffer needs to grow.
    // The solver spreads its passes over two threads. The steps run on a worker of the pool,
    // as a game loop inside rayon would: a step called from outside hands itself to the
    // pool as one job, and rayon's job queue allocates a block per 63 jobs sent in from
    // outside (one per 63 steps), which is rayon's and not the step's.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let mut world = scenes::pyramid(20);
        for _ in 0..240 {
            world.step(1.0 / 60.0, &mut cpu).unwrap();
        }
        let n = allocations_during(|| {
            for _ in 0..60 {
                world.step(1.0 / 60.0, &mut cpu).unwrap();
            }
        });
        assert_eq!(n, 0, "World::step allocated {n} times in 60 warm steps");
    });

    // The continuous stage too: a fast elastic disc in a closed box of thin walls is swept
    // and stopped at an impact again and again, starting in touch after each (the core
    // sweep). On the pool's worker, as above.
    pool.install(|| continuous_stage_does_not_allocate(&mut cpu));
}

fn continuous_stage_does_not_allocate(cpu: &mut CpuNarrowPhase) {
    let mut world = wgpu_sat::World::new(wgpu_sat::glam::Vec2::ZERO);
    for (half, at) in [
        ([0.1, 2.1], [-2.0, 0.0]),
        ([0.1, 2.1], [2.0, 0.0]),
        ([2.1, 0.1], [0.0, -2.0]),
        ([2.1, 0.1], [0.0, 2.0]),
    ] {
        world
            .add_body(&wgpu_sat::BodyDef::fixed(
                wgpu_sat::Polygon::rectangle(half[0], half[1]),
                at.into(),
            ))
            .unwrap();
    }
    // A disc: a box would turn a little at each impact (its face is never exactly flat to
    // the wall after rounding), and an elastic box that hits with a corner trades its
    // speed for spin and soon stops reaching the walls; a disc's contact does not depend on
    // its angle.
    let mut def = wgpu_sat::BodyDef::dynamic(
        wgpu_sat::Circle::new(0.05).unwrap(),
        wgpu_sat::glam::Vec2::ZERO,
    );
    def.linear_velocity = wgpu_sat::glam::Vec2::new(300.0, 0.0);
    def.restitution = 1.0;
    world.add_body(&def).unwrap();
    // Each impact also begins and ends a contact and is a hit: the event lists fill and
    // empty step after step, and reading them allocates nothing either.
    world.set_hit_event_threshold(Some(1.0)).unwrap();
    for _ in 0..30 {
        world.step(1.0 / 60.0, cpu).unwrap();
    }
    let (mut impacts, mut events) = (0, [0; 3]);
    let n = allocations_during(|| {
        for _ in 0..60 {
            impacts += world.step(1.0 / 60.0, cpu).unwrap().impacts;
            let e = world.events();
            events[0] += e.contact_begin.len();
            events[1] += e.contact_end.len();
            events[2] += e.contact_hit.len();
        }
    });
    assert!(
        impacts >= 5,
        "the body should keep hitting the walls: {impacts}"
    );
    assert!(
        events.iter().all(|&n| n >= 5),
        "begin, end and hit events on every impact: {events:?}"
    );
    assert_eq!(
        n, 0,
        "World::step with impacts allocated {n} times in 60 warm steps"
    );
}
