//! Removing bodies: handles that go stale and stay stale, ends for every begin, no pair that
//! names a removed body, supports that wake what they held, slots reused and memory flat.
//!
//! The long test adds and removes random bodies (polygons, circles, concave bodies, sensors,
//! static platforms, bullets) for 10,000 steps with each narrow phase, watching every event.
//! A counting global allocator watches the heap; the tests of this binary take turns, so
//! that the long one's heap is its own.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicIsize, Ordering};
use wgpu_sat::error::WorldError;

use rand::Rng;
#[cfg(feature = "gpu")]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, BodyShape, Circle, ColliderId, CpuNarrowPhase, Error, Filter, NarrowPhase,
    Polygon, World, world::StaleReason,
};

struct Counting;

/// Bytes allocated and not yet freed, over the whole process.
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests of this binary run one at a time, so that the heap the long one watches is its
/// own.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

const DT: f32 = 1.0 / 60.0;

/// A walled box 30 wide, open at the top.
fn container() -> World {
    let mut world = World::default();
    let walls = [
        (Vec2::new(15.0, -0.5), 16.0, 0.5),
        (Vec2::new(-0.5, 15.0), 0.5, 16.0),
        (Vec2::new(30.5, 15.0), 0.5, 16.0),
    ];
    for (at, hw, hh) in walls {
        world
            .add_body(&BodyDef::fixed(Polygon::rectangle(hw, hh), at))
            .unwrap();
    }
    world
}

/// A random body above the container: mostly dynamic polygons and circles, now and then a
/// concave body, a sensor, a bullet or a static platform.
fn random_body(rng: &mut impl Rng, user_data: u64) -> BodyDef {
    let at = Vec2::new(rng.random_range(2.0..28.0), rng.random_range(4.0..24.0));
    let shape: BodyShape = match rng.random_range(0..10) {
        0..=4 => {
            let scale = rng.random_range(0.3..0.9);
            common::random_polygon(rng, scale).into()
        }
        5..=7 => Circle::new(rng.random_range(0.2..0.6)).unwrap().into(),
        _ => BodyShape::concave(&[
            Vec2::new(-0.8, -0.4),
            Vec2::new(0.8, -0.4),
            Vec2::new(0.8, 0.5),
            Vec2::new(0.4, 0.5),
            Vec2::new(0.4, 0.0),
            Vec2::new(-0.4, 0.0),
            Vec2::new(-0.4, 0.5),
            Vec2::new(-0.8, 0.5),
        ])
        .unwrap(),
    };
    let kind = rng.random_range(0..40);
    let mut def = if kind < 2 {
        BodyDef::fixed(Polygon::rectangle(1.5, 0.2), at)
    } else {
        BodyDef::dynamic(shape, at)
    };
    def.user_data = user_data;
    def.is_sensor = kind == 2 || kind == 3;
    def.is_bullet = kind == 4;
    def.linear_velocity = Vec2::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..1.0));
    def.angle = rng.random_range(-3.0..3.0);
    if kind == 5 {
        // Ghosts: a category of their own that touches only its own kind.
        def.filter = Filter {
            category_bits: 2,
            mask_bits: 2,
            group_index: 0,
        };
    }
    def
}

/// What the test knows of a body it added.
struct Known {
    user_data: u64,
    colliders: Vec<ColliderId>,
}

/// The checks of one run: every begin has one end, no pair outlives its bodies by more than
/// the step after their removal, events carry the right user data, and stale handles stay
/// refused. Returns the peak count of collider slots the world could need (live colliders
/// plus those removed since the last step), to hold the slot count against.
struct Watch {
    /// The live bodies, and those removed since the last step (their ends are to come).
    known: HashMap<BodyId, Known>,
    /// The last bodies removed, with their colliders: stale handles to try (a bounded
    /// list, so that the test's own memory stays flat too).
    removed: std::collections::VecDeque<(BodyId, Vec<ColliderId>)>,
    /// Bodies and colliders removed since the last step: after it, no open pair names them.
    removed_bodies: Vec<BodyId>,
    removed_now: Vec<ColliderId>,
    open_contacts: HashSet<[ColliderId; 2]>,
    open_sensors: HashSet<[ColliderId; 2]>,
    live_colliders: usize,
    peak_slots_needed: usize,
    begins: usize,
    ends: usize,
}

impl Watch {
    fn new(world: &World) -> Watch {
        let mut watch = Watch {
            known: HashMap::new(),
            removed: std::collections::VecDeque::new(),
            removed_bodies: Vec::new(),
            removed_now: Vec::new(),
            open_contacts: HashSet::new(),
            open_sensors: HashSet::new(),
            live_colliders: 0,
            peak_slots_needed: 0,
            begins: 0,
            ends: 0,
        };
        for body in world.bodies() {
            watch.note_added(world, body);
        }
        watch
    }

    fn note_added(&mut self, world: &World, body: BodyId) {
        let colliders: Vec<ColliderId> = world.body_colliders(body).collect();
        self.live_colliders += colliders.len();
        self.note_slots();
        for &c in &colliders {
            assert_eq!(world.collider_body(c).unwrap(), body);
        }
        let user_data = world.user_data(body).unwrap();
        self.known.insert(
            body,
            Known {
                user_data,
                colliders,
            },
        );
    }

    fn note_slots(&mut self) {
        let needed = self.live_colliders + self.removed_now.len();
        self.peak_slots_needed = self.peak_slots_needed.max(needed);
    }

    fn remove(&mut self, world: &mut World, body: BodyId) {
        world.remove_body(body).unwrap();
        let known = &self.known[&body];
        self.live_colliders -= known.colliders.len();
        self.removed_now.extend(&known.colliders);
        self.removed_bodies.push(body);
        if self.removed.len() == 64 {
            self.removed.pop_front();
        }
        self.removed.push_back((body, known.colliders.clone()));
        self.note_slots();
    }

    fn user_data(&self, body: BodyId) -> u64 {
        self.known[&body].user_data
    }

    /// The checks after a step.
    fn stepped(&mut self, world: &World) {
        let events = world.events();
        let live = |b: BodyId| world.contains(b);
        for e in events.contact_begin {
            assert!(
                e.bodies.iter().all(|&b| live(b)),
                "a begin names a removed body: {e:?}"
            );
            assert_eq!(e.user_data, e.bodies.map(|b| self.user_data(b)));
            assert!(
                self.open_contacts.insert(e.colliders),
                "a second begin: {e:?}"
            );
            self.begins += 1;
        }
        for e in events.contact_end {
            assert_eq!(e.user_data, e.bodies.map(|b| self.user_data(b)));
            assert!(
                self.open_contacts.remove(&e.colliders),
                "an end without a begin: {e:?}"
            );
            self.ends += 1;
        }
        for e in events.contact_hit {
            assert!(
                e.bodies.iter().all(|&b| live(b)),
                "a hit names a removed body: {e:?}"
            );
        }
        for e in events.sensor_begin {
            assert!(live(e.sensor_body) && live(e.visitor_body), "{e:?}");
            assert_eq!(e.visitor_user_data, self.user_data(e.visitor_body));
            assert!(self.open_sensors.insert([e.sensor, e.visitor]), "{e:?}");
        }
        for e in events.sensor_end {
            assert!(self.open_sensors.remove(&[e.sensor, e.visitor]), "{e:?}");
        }
        // The step has ended every pair of the bodies removed before it (and none can begin
        // again: begins name live bodies only).
        for pair in self.open_contacts.iter().chain(&self.open_sensors) {
            assert!(
                !pair.iter().any(|c| self.removed_now.contains(c)),
                "pair {pair:?} outlived its body's removal"
            );
        }
        self.removed_now.clear();
        for body in self.removed_bodies.drain(..) {
            self.known.remove(&body);
        }
        self.note_slots();
        for c in world.contacts() {
            assert!(c.bodies.iter().all(|&b| live(b)), "contact {c:?}");
        }
        assert_eq!(world.bodies().count(), world.body_count());
    }

    /// A removed body's handle is refused everywhere, whoever holds its slot now.
    fn check_stale(&self, world: &mut World, (body, colliders): &(BodyId, Vec<ColliderId>)) {
        let body = *body;
        let stale = |e: Error| matches!(e, Error::World(WorldError::StaleBody { body: b, reason: StaleReason::Removed }) if b == body);
        assert!(!world.contains(body));
        assert!(stale(world.body(body).unwrap_err()));
        assert!(stale(world.remove_body(body).unwrap_err()));
        assert!(stale(world.set_velocity(body, Vec2::ONE, 0.0).unwrap_err()));
        assert!(stale(world.wake(body).unwrap_err()));
        // (The plain readers panic on it, naming it: tests/cpu/world_faults.rs checks each, after
        // a slot reuse. Not here: a panic's backtrace, resolved once, would count as heap
        // growth in this test's measure.)
        for &c in colliders {
            assert!(matches!(
                world.collider_body(c),
                Err(Error::World(WorldError::StaleCollider { collider, reason: StaleReason::Removed })) if collider == c
            ));
            assert_eq!(world.collider_filter(c), None);
        }
    }
}

/// Adds and removes random bodies for `steps` steps; returns the live heap bytes' peak over
/// the second and the last quarter of the run.
fn churn(narrow: &mut dyn NarrowPhase, steps: usize, seed: u64) -> (isize, isize) {
    let mut rng = common::rng(seed);
    let mut world = container();
    let mut watch = Watch::new(&world);
    let walls: Vec<BodyId> = world.bodies().collect();
    let mut next_user_data = 1000;
    let (mut early_peak, mut late_peak) = (0, 0);
    let mut reused = 0;
    let mut slots_seen = HashSet::new();
    for step in 0..steps {
        // About 80 bodies, changing all the time.
        let target = 60 + (step / 500 % 3) * 20;
        let adds = if world.body_count() < target {
            rng.random_range(0..4)
        } else {
            0
        };
        for _ in 0..adds {
            next_user_data += 1;
            let body = world
                .add_body(&random_body(&mut rng, next_user_data))
                .unwrap();
            reused += usize::from(!slots_seen.insert(body.index()));
            watch.note_added(&world, body);
        }
        let removals = rng.random_range(0..3);
        for _ in 0..removals {
            let candidates: Vec<BodyId> = world.bodies().filter(|b| !walls.contains(b)).collect();
            if let Some(&body) = candidates.get(rng.random_range(0..candidates.len().max(1))) {
                watch.remove(&mut world, body);
            }
        }
        if let Some(old) = watch
            .removed
            .get(rng.random_range(0..watch.removed.len().max(1)))
        {
            watch.check_stale(&mut world, old);
        }
        world.step(DT, narrow).unwrap();
        watch.stepped(&world);
        assert!(
            world.colliders().len() <= watch.peak_slots_needed,
            "step {step}: {} collider slots for at most {} live and just-removed colliders",
            world.colliders().len(),
            watch.peak_slots_needed
        );
        let heap = LIVE_BYTES.load(Ordering::Relaxed);
        if (steps / 4..steps / 2).contains(&step) {
            early_peak = early_peak.max(heap);
        } else if step >= 3 * steps / 4 {
            late_peak = late_peak.max(heap);
        }
    }
    assert!(
        watch.begins > 1000,
        "{} contacts began: the churn touched little",
        watch.begins
    );
    assert!(reused > 1000, "only {reused} bodies took a vacant slot");
    // Every body goes: every open pair ends in the next step.
    for body in world.bodies().collect::<Vec<_>>() {
        watch.remove(&mut world, body);
    }
    world.step(DT, narrow).unwrap();
    watch.stepped(&world);
    assert!(watch.open_contacts.is_empty(), "{:?}", watch.open_contacts);
    assert!(watch.open_sensors.is_empty(), "{:?}", watch.open_sensors);
    assert_eq!(watch.begins, watch.ends);
    assert_eq!(world.body_count(), 0);
    (early_peak, late_peak)
}

#[test]
fn ten_thousand_steps_of_adding_and_removing_keep_every_promise() {
    let _serial = serial();
    #[allow(unused_mut)] // Without the gpu feature, the CPU run is the only one.
    let mut runs: Vec<(&str, Option<Box<dyn NarrowPhase>>)> =
        vec![("CPU", Some(Box::new(CpuNarrowPhase::new())))];
    #[cfg(feature = "gpu")]
    runs.push((
        "GPU",
        common::gpu().map(|(device, queue)| {
            Box::new(GpuNarrowPhase::new(&device, &queue).unwrap()) as Box<dyn NarrowPhase>
        }),
    ));
    for (name, narrow) in runs {
        let Some(mut narrow) = narrow else {
            eprintln!("SKIPPED: the {name} run (no adapter)");
            continue;
        };
        let (early, late) = churn(narrow.as_mut(), 10_000, 7);
        eprintln!(
            "{name}: live heap peak {early} bytes in steps 2,500-5,000, {late} in 7,500-10,000"
        );
        // Flat: the last quarter's peak within 10 % (and 64 KiB) of the second quarter's.
        assert!(
            late <= early + early / 10 + 65_536,
            "{name}: the heap grew from a peak of {early} to {late} bytes"
        );
    }
}

#[test]
fn handles_name_one_body_in_one_world() {
    let _serial = serial();
    let mut world = container();
    let a = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(5.0, 5.0),
        ))
        .unwrap();
    world.remove_body(a).unwrap();
    world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    let b = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.5).unwrap(),
            Vec2::new(9.0, 5.0),
        ))
        .unwrap();
    assert_eq!(b.index(), a.index(), "the vacant slot is reused");
    assert_ne!(a, b);
    assert_eq!(b.generation(), a.generation() + 1);
    assert!(matches!(
        world.set_velocity(a, Vec2::X, 0.0),
        Err(Error::World(WorldError::StaleBody { body, reason: StaleReason::Removed })) if body == a
    ));
    assert_eq!(
        world.linear_velocity(b),
        Vec2::ZERO,
        "b was not touched through a"
    );
    let message = world.body(a).unwrap_err().to_string();
    assert!(
        message.contains(&a.to_string()) && message.contains("removed"),
        "{message}"
    );

    // Another world's handle, even one with the same slot and generation, is refused.
    let other = container();
    let foreign = other.bodies().next().unwrap();
    assert!(matches!(
        world.body(foreign),
        Err(Error::World(WorldError::StaleBody {
            reason: StaleReason::OtherWorld,
            ..
        }))
    ));
    // A clone is the same world: the same handles name the same bodies.
    let copy = world.clone();
    assert_eq!(copy.center_of_mass(b), world.center_of_mass(b));
    assert!(copy.body(a).is_err());
}

/// A ground (top at y = 0) and a stack of three unit boxes whose lowest rests at `base`,
/// stepped `steps` times: the stack must be asleep by then.
fn sleeping_stack(world: &mut World, base: f32, steps: usize) -> (Vec<BodyId>, CpuNarrowPhase) {
    let ground = BodyDef::fixed(Polygon::rectangle(20.0, 0.5), Vec2::new(0.0, -0.5));
    world.add_body(&ground).unwrap();
    let stack: Vec<BodyId> = (0..3)
        .map(|k| {
            let at = Vec2::new(0.0, base + 0.5 + k as f32);
            world
                .add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), at))
                .unwrap()
        })
        .collect();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
    assert!(
        stack.iter().all(|&b| !world.is_awake(b)),
        "the stack sleeps"
    );
    (stack, narrow)
}

#[test]
fn a_removed_support_wakes_what_it_held() {
    let _serial = serial();
    let mut world = World::default();
    let shelf = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(2.0, 0.25),
            Vec2::new(0.0, 5.0),
        ))
        .unwrap();
    let (stack, mut narrow) = sleeping_stack(&mut world, 5.25, 240);
    let heights: Vec<f32> = stack.iter().map(|&b| world.center_of_mass(b).y).collect();
    world.remove_body(shelf).unwrap();
    world.step(DT, &mut narrow).unwrap();
    let ended: HashSet<BodyId> = world
        .events()
        .contact_end
        .iter()
        .flat_map(|e| e.bodies)
        .collect();
    assert!(ended.contains(&shelf) && ended.contains(&stack[0]));
    for _ in 0..20 {
        world.step(DT, &mut narrow).unwrap();
    }
    for (k, &b) in stack.iter().enumerate() {
        assert!(world.is_awake(b), "box {k} woke");
        assert!(
            world.center_of_mass(b).y < heights[k] - 0.3,
            "box {k} fell: {} from {}",
            world.center_of_mass(b).y,
            heights[k]
        );
    }
}

#[test]
fn a_sleeping_stack_whose_middle_box_goes_closes_the_gap() {
    let _serial = serial();
    let mut world = World::default();
    let (stack, mut narrow) = sleeping_stack(&mut world, 0.0, 120);
    let top = world.center_of_mass(stack[2]).y;
    world.remove_body(stack[1]).unwrap();
    world.step(DT, &mut narrow).unwrap();
    assert!(
        world.is_awake(stack[2]),
        "the box the removed one held woke"
    );
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
    }
    let now = world.center_of_mass(stack[2]).y;
    assert!(
        (now - (top - 1.0)).abs() < 0.05,
        "the top box fell into the gap: {now} from {top}"
    );
}

#[test]
fn a_body_removed_inside_a_sensor_leaves_it() {
    let _serial = serial();
    let mut world = World::new(Vec2::ZERO);
    let gate = world
        .add_body(&BodyDef {
            is_sensor: true,
            ..BodyDef::fixed(Polygon::rectangle(2.0, 2.0), Vec2::ZERO)
        })
        .unwrap();
    let visitor = world
        .add_body(&BodyDef {
            user_data: 42,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        })
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut entered = 0;
    for _ in 0..2 {
        world.step(DT, &mut narrow).unwrap();
        entered += world.events().sensor_begin.len();
    }
    assert_eq!(entered, 1, "the visitor is inside the gate");
    world.remove_body(visitor).unwrap();
    world.step(DT, &mut narrow).unwrap();
    let left = world.events().sensor_end;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!((left[0].sensor_body, left[0].visitor_body), (gate, visitor));
    assert_eq!(left[0].visitor_user_data, 42);
}
