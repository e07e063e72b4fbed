//! Contact, hit and sensor events, and collision filters, as a user of the world meets them.

#[cfg(all(feature = "gpu", feature = "scenes"))]
use crate::common;

#[cfg(feature = "scenes")]
use std::collections::BTreeSet;

#[cfg(all(feature = "gpu", feature = "scenes"))]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::error::WorldError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, ColliderId, CpuNarrowPhase, Error, Events, Filter, Polygon, World,
    world::StaleReason,
};
#[cfg(feature = "scenes")]
use wgpu_sat::{NarrowPhase, ParallelCpuNarrowPhase, scenes};

const DT: f32 = 1.0 / 60.0;

/// A wide static ground (the first body) with its top at y = 0, and its handle.
fn ground() -> (World, BodyId) {
    let mut world = World::default();
    let ground = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(20.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
    (world, ground)
}

/// The collider of a body of one piece.
fn collider(world: &World, body: BodyId) -> ColliderId {
    let mut colliders = world.body_colliders(body);
    assert_eq!(colliders.len(), 1, "{body} is of one piece");
    colliders.next().unwrap()
}

fn unit_box(at: Vec2) -> BodyDef {
    BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), at)
}

type Pair = (ColliderId, ColliderId);

fn pairs_of(events: &Events<'_>) -> (Vec<Pair>, Vec<Pair>) {
    let begin = events
        .contact_begin
        .iter()
        .map(|e| (e.colliders[0], e.colliders[1]));
    let end = events
        .contact_end
        .iter()
        .map(|e| (e.colliders[0], e.colliders[1]));
    (begin.collect(), end.collect())
}

#[test]
fn a_landing_box_begins_once_hits_once_and_ends_when_thrown_off() {
    let (mut world, ground) = ground();
    // Dropped from 2 units above the ground: it lands at sqrt(2 g h) = 6.3 units per second.
    let crate_ = world.add_body(&unit_box(Vec2::new(0.0, 2.5))).unwrap();
    let touching = (collider(&world, ground), collider(&world, crate_));
    world.set_hit_event_threshold(Some(1.0)).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let (mut begins, mut hits) = (Vec::new(), Vec::new());
    for step in 0..120 {
        world.step(DT, &mut narrow).unwrap();
        let events = world.events();
        assert!(
            events.contact_end.is_empty(),
            "step {step}: an end while resting"
        );
        begins.extend(events.contact_begin.iter().map(|e| (step, *e)));
        hits.extend(events.contact_hit.iter().map(|e| (step, *e)));
    }
    assert_eq!(begins.len(), 1, "{begins:?}");
    let (landed, begin) = begins[0];
    assert_eq!(begin.bodies, [ground, crate_]);
    assert_eq!(begin.colliders, [touching.0, touching.1]);
    // The normal points from the ground (the first body) up into the box.
    assert!(
        (begin.manifold.normal - Vec2::Y).length() < 1e-3,
        "{begin:?}"
    );
    assert_eq!(begin.manifold.points().len(), 2);
    for p in begin.manifold.points() {
        assert!(p.point.y.abs() < 0.1 && p.point.x.abs() < 0.51, "{p:?}");
    }
    // One hit, on the step it landed or the next, at about the free-fall speed.
    assert_eq!(hits.len(), 1, "{hits:?}");
    let (hit_step, hit) = hits[0];
    assert!(
        (landed..=landed + 1).contains(&hit_step),
        "hit {hit_step}, began {landed}"
    );
    let fall_speed = (2.0f32 * 10.0 * 2.0).sqrt();
    assert!(
        (hit.speed - fall_speed).abs() < 0.1 * fall_speed,
        "hit at {} units per second, fell at {fall_speed}",
        hit.speed
    );
    assert!((hit.normal - Vec2::Y).length() < 1e-3 && hit.point.y.abs() < 0.1);
    assert_eq!(hit.bodies, [ground, crate_]);

    // Thrown up: the contact ends once, on the step it leaves the speculative distance.
    world
        .set_velocity(crate_, Vec2::new(0.0, 8.0), 0.0)
        .unwrap();
    let mut ends = 0;
    for _ in 0..10 {
        world.step(DT, &mut narrow).unwrap();
        let (begin, end) = pairs_of(&world.events());
        assert!(begin.is_empty());
        ends += end.len();
        assert!(end.iter().all(|&p| p == touching));
    }
    assert_eq!(ends, 1);
}

#[test]
fn no_hit_below_the_threshold_and_none_when_off() {
    for threshold in [Some(10.0), None] {
        let (mut world, _) = ground();
        world.add_body(&unit_box(Vec2::new(0.0, 2.5))).unwrap();
        world.set_hit_event_threshold(threshold).unwrap();
        let mut narrow = CpuNarrowPhase::new();
        for _ in 0..90 {
            world.step(DT, &mut narrow).unwrap();
            assert!(world.events().contact_hit.is_empty(), "{threshold:?}");
        }
    }
    let mut world = World::default();
    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        let e = world.set_hit_event_threshold(Some(bad)).unwrap_err();
        assert!(e.to_string().contains("hit_event_threshold"), "{e}");
    }
}

/// The touching pairs rebuilt from begin and end events alone must be the contact list's
/// pairs after every step: nothing begins twice, nothing ends that did not begin, nothing
/// is missed (including pairs that leave the broad phase's set, and fast bodies).
#[cfg(feature = "scenes")]
fn events_track_contacts(world: &mut World, narrow: &mut dyn NarrowPhase, steps: usize) -> usize {
    let mut touching = BTreeSet::new();
    let mut changes = 0;
    for step in 0..steps {
        world.step(DT, narrow).unwrap();
        let (begin, end) = pairs_of(&world.events());
        for p in &end {
            assert!(
                touching.remove(p),
                "step {step}: {p:?} ended but had not begun"
            );
        }
        for p in &begin {
            assert!(touching.insert(*p), "step {step}: {p:?} began twice");
        }
        changes += begin.len() + end.len();
        let contacts: BTreeSet<Pair> = world
            .collider_contacts()
            .iter()
            .map(|c| {
                let name = |slot: u32| world.collider_id(slot as usize).expect("a live slot");
                (name(c.a), name(c.b))
            })
            .collect();
        assert_eq!(touching, contacts, "step {step}");
    }
    changes
}

#[cfg(feature = "scenes")]
#[test]
fn begin_and_end_events_track_the_contact_list_through_a_falling_pile() {
    let mut world = scenes::mixed(400, 3);
    // Some fast bodies, which leave their fat boxes far behind in a step.
    let bodies: Vec<BodyId> = world.bodies().collect();
    for &body in bodies.iter().skip(1).step_by(37) {
        if !world.is_static(body) {
            world
                .set_velocity(body, Vec2::new(30.0, -40.0), 5.0)
                .unwrap();
        }
    }
    let changes = events_track_contacts(&mut world, &mut CpuNarrowPhase::new(), 300);
    assert!(changes > 1000, "only {changes} begin and end events");
}

#[test]
fn a_filter_change_ends_contacts_at_the_next_step_and_the_box_falls_through() {
    let (mut world, ground) = ground();
    let crate_ = world.add_body(&unit_box(Vec2::new(0.0, 0.5))).unwrap();
    let touching = (collider(&world, ground), collider(&world, crate_));
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..30 {
        world.step(DT, &mut narrow).unwrap();
    }
    assert_eq!(world.contacts().len(), 1);
    const GHOST: u64 = 1 << 5;
    // A ghost touches nothing in the default category.
    let ghost = Filter {
        category_bits: GHOST,
        mask_bits: GHOST,
        group_index: 0,
    };
    world.set_filter(crate_, ghost).unwrap();
    assert_eq!(world.collider_filter(touching.1), Some(ghost));
    let stats = world.step(DT, &mut narrow).unwrap();
    assert_eq!(pairs_of(&world.events()).1, vec![touching], "one end event");
    assert_eq!(
        stats.persistent_pairs, 0,
        "the refused pair left the broad phase"
    );
    assert_eq!(world.contacts().len(), 0);
    for _ in 0..30 {
        world.step(DT, &mut narrow).unwrap();
    }
    assert!(
        world.center_of_mass(crate_).y < -0.5,
        "it fell into the ground"
    );
    // Back to the default: it touches the ground again at once (it is inside it now).
    world.set_filter(crate_, Filter::default()).unwrap();
    world.step(DT, &mut narrow).unwrap();
    assert_eq!(pairs_of(&world.events()).0, vec![touching]);
}

#[test]
fn groups_and_masks_keep_pairs_out_of_the_broad_phase() {
    // Three boxes stacked in one spot, overlapping; the ground under them. The bodies in
    // contact by their place in that list: 0 the ground, 1 to 3 the boxes.
    let stack = |filters: [Filter; 3]| {
        let (mut world, ground) = ground();
        let mut ids = vec![ground];
        for (k, filter) in filters.into_iter().enumerate() {
            ids.push(
                world
                    .add_body(&BodyDef {
                        filter,
                        ..unit_box(Vec2::new(0.1 * k as f32, 0.5))
                    })
                    .unwrap(),
            );
        }
        let stats = world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
        let place = |body: BodyId| ids.iter().position(|&b| b == body).unwrap();
        (
            stats.persistent_pairs,
            world
                .contacts()
                .map(|c| (place(c.bodies[0]), place(c.bodies[1])))
                .collect::<Vec<_>>(),
        )
    };
    let open = Filter::default();
    let (pairs, contacts) = stack([open; 3]);
    assert_eq!(pairs, 6);
    assert_eq!(contacts.len(), 6);
    // A negative group: its members never touch each other, only the ground.
    let never = Filter {
        group_index: -1,
        ..open
    };
    let (pairs, contacts) = stack([never, never, open]);
    assert_eq!(pairs, 5, "the pair in the group is no persistent pair");
    assert!(!contacts.contains(&(1, 2)), "{contacts:?}");
    // A positive group touches even when the masks refuse.
    let always = Filter {
        mask_bits: 0,
        group_index: 2,
        ..open
    };
    let (pairs, contacts) = stack([always, always, open]);
    assert_eq!(
        contacts,
        vec![(0, 3), (1, 2)],
        "the group's masks refuse all else"
    );
    assert_eq!(pairs, 2);
}

#[test]
fn bad_filters_and_handles_are_errors_naming_them() {
    let (mut world, ground) = ground();
    let nowhere = Filter {
        category_bits: 0,
        ..Filter::default()
    };
    let e = world
        .add_body(&BodyDef {
            filter: nowhere,
            ..unit_box(Vec2::ZERO)
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::World(WorldError::InvalidFilter { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("category_bits"), "{e}");
    assert_eq!(world.body_count(), 1, "a rejected body was added");
    assert!(matches!(
        world.set_filter(ground, nowhere),
        Err(Error::World(WorldError::InvalidFilter { .. }))
    ));
    // Handles this world never made: a clone keeps the world's number, so the clone's next
    // body and collider are named as if by this world, in slots it never handed out.
    let mut clone = world.clone();
    let never = clone.add_body(&unit_box(Vec2::ZERO)).unwrap();
    let never_collider = collider(&clone, never);
    let e = world.set_filter(never, Filter::default()).unwrap_err();
    assert!(
        matches!(e, Error::World(WorldError::StaleBody { body, reason: StaleReason::NeverMade }) if body == never),
        "{e:?}"
    );
    assert!(e.to_string().contains(&never.to_string()), "{e}");
    let e = world
        .set_collider_filter(never_collider, Filter::default())
        .unwrap_err();
    assert!(
        matches!(e, Error::World(WorldError::StaleCollider { collider, reason: StaleReason::NeverMade })
            if collider == never_collider),
        "{e:?}"
    );
    assert!(e.to_string().contains(&never_collider.to_string()), "{e}");
    assert_eq!(world.collider_filter(never_collider), None);
}

/// A static sensor strip across the fall of a box.
fn sensor_strip(world: &mut World, y: f32) -> BodyId {
    world
        .add_body(&BodyDef {
            is_sensor: true,
            ..BodyDef::fixed(Polygon::rectangle(3.0, 0.25), Vec2::new(0.0, y))
        })
        .unwrap()
}

#[test]
fn a_sensor_sees_a_box_pass_and_never_touches_it() {
    let mut world = World::default();
    let falling = world.add_body(&unit_box(Vec2::new(0.0, 5.0))).unwrap();
    let mut free = world.clone();
    let strip = sensor_strip(&mut world, 0.0);
    let sensor_collider = collider(&world, strip);
    let mut narrow = CpuNarrowPhase::new();
    let (mut entered, mut left) = (Vec::new(), Vec::new());
    for step in 0..90 {
        world.step(DT, &mut narrow).unwrap();
        free.step(DT, &mut narrow).unwrap();
        // Not pushed at all: the same bits as with no sensor.
        assert_eq!(
            world.transform(falling),
            free.transform(falling),
            "step {step}"
        );
        assert_eq!(world.contacts().len(), 0);
        let events = world.events();
        entered.extend(events.sensor_begin.iter().map(|e| (step, *e)));
        left.extend(events.sensor_end.iter().map(|e| (step, *e)));
    }
    assert_eq!(entered.len(), 1, "{entered:?}");
    assert_eq!(left.len(), 1, "{left:?}");
    let (t0, e) = entered[0];
    let (t1, l) = left[0];
    assert_eq!((e.sensor, e.sensor_body), (sensor_collider, strip));
    assert_eq!(
        (e.visitor, e.visitor_body),
        (collider(&world, falling), falling)
    );
    assert_eq!(e, l);
    // A step's events are of the poses it started from (the last step's end), as its
    // contacts are. It entered in the first step that started with its bottom below the
    // strip's top (y = 0.25), and left in the first that started with its top below the
    // strip's bottom (y = -0.25). Free fall from y = 5, to within the substeps' rounding.
    let start_y = |step: usize| {
        let t = step as f32 * DT;
        5.0 - 0.5 * 10.0 * t * t
    };
    let near = 0.05;
    let bottom = |step| start_y(step) - 0.5;
    let top = |step| start_y(step) + 0.5;
    assert!(
        bottom(t0) < 0.25 + near && bottom(t0 - 1) > 0.25 - near,
        "entered at step {t0}"
    );
    assert!(
        top(t1) < -0.25 + near && top(t1 - 1) > -0.25 - near,
        "left at step {t1}"
    );
}

#[test]
fn a_sensor_sees_a_sleeping_body_and_does_not_wake_it() {
    let (mut world, _) = ground();
    let crate_ = world.add_body(&unit_box(Vec2::new(0.0, 0.5))).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut narrow).unwrap();
    }
    assert!(!world.is_awake(crate_), "the box should sleep by now");
    let strip = sensor_strip(&mut world, 0.5);
    world.step(DT, &mut narrow).unwrap();
    let events = world.events();
    assert_eq!(events.sensor_begin.len(), 1, "{events:?}");
    assert_eq!(events.sensor_begin[0].visitor_body, crate_);
    assert_eq!(events.sensor_begin[0].sensor_body, strip);
    for _ in 0..30 {
        world.step(DT, &mut narrow).unwrap();
        assert!(world.events().sensor_end.is_empty());
    }
    assert!(
        !world.is_awake(crate_),
        "a sensor does not wake what it sees"
    );
}

#[test]
fn a_dynamic_sensor_falls_through_the_ground_and_sees_it() {
    let (mut world, ground) = ground();
    let probe = world
        .add_body(&BodyDef {
            is_sensor: true,
            ..unit_box(Vec2::new(0.0, 1.0))
        })
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let (mut began, mut ended) = (0, 0);
    for _ in 0..90 {
        world.step(DT, &mut narrow).unwrap();
        let events = world.events();
        for e in events.sensor_begin.iter().chain(events.sensor_end) {
            assert_eq!((e.sensor_body, e.visitor_body), (probe, ground));
        }
        began += events.sensor_begin.len();
        ended += events.sensor_end.len();
    }
    assert_eq!((began, ended), (1, 1));
    assert!(
        world.center_of_mass(probe).y < -1.0,
        "it passed through the ground"
    );
}

/// Events of one step from the same world state on each narrow phase: the same pairs
/// begin, end and hit, with manifolds and speeds within rounding.
#[cfg(feature = "scenes")]
fn same_events(a: &World, b: &World) {
    let (ea, eb) = (a.events(), b.events());
    assert_eq!(pairs_of(&ea), pairs_of(&eb));
    assert_eq!(ea.sensor_begin, eb.sensor_begin);
    assert_eq!(ea.sensor_end, eb.sensor_end);
    for (x, y) in ea.contact_begin.iter().zip(eb.contact_begin) {
        assert!((x.manifold.normal - y.manifold.normal).length() < 1e-4);
        assert_eq!(x.manifold.points().len(), y.manifold.points().len());
    }
    assert_eq!(ea.contact_hit.len(), eb.contact_hit.len());
    for (x, y) in ea.contact_hit.iter().zip(eb.contact_hit) {
        assert_eq!(x.colliders, y.colliders);
        assert!(
            (x.speed - y.speed).abs() < 1e-3 * x.speed.max(1.0),
            "{x:?} {y:?}"
        );
    }
}

#[cfg(feature = "scenes")]
#[test]
fn every_narrow_phase_gives_the_same_events() {
    let mut world = scenes::mixed(300, 5);
    world.set_hit_event_threshold(Some(1.0)).unwrap();
    // Two sensor bands across the falling pile, for enough sensor events at the steps
    // compared.
    sensor_strip(&mut world, 4.0);
    sensor_strip(&mut world, 7.0);
    let mut cpu = CpuNarrowPhase::new();
    let mut parallel = ParallelCpuNarrowPhase::new();
    #[cfg(feature = "gpu")]
    let gpu = common::gpu();
    #[cfg(feature = "gpu")]
    let mut gpu = gpu.map(|(device, queue)| GpuNarrowPhase::new(&device, &queue).unwrap());
    let eighth = world.bodies().nth(7).unwrap();
    let mut seen = [0; 3];
    for round in 0..12 {
        for _ in 0..9 {
            world.step(DT, &mut cpu).unwrap();
        }
        let mut on_cpu = world.clone();
        on_cpu.step(DT, &mut cpu).unwrap();
        let events = on_cpu.events();
        seen[0] += events.contact_begin.len() + events.contact_end.len();
        seen[1] += events.contact_hit.len();
        seen[2] += events.sensor_begin.len() + events.sensor_end.len();
        let mut on_parallel = world.clone();
        on_parallel.step(DT, &mut parallel).unwrap();
        assert_eq!(
            on_cpu.transform(eighth),
            on_parallel.transform(eighth),
            "round {round}"
        );
        same_events(&on_cpu, &on_parallel);
        #[cfg(feature = "gpu")]
        if let Some(gpu) = gpu.as_mut() {
            let mut on_gpu = world.clone();
            on_gpu.step(DT, gpu).unwrap();
            same_events(&on_cpu, &on_gpu);
        }
        world = on_cpu;
    }
    eprintln!("events compared (contact begin and end, hits, sensor): {seen:?}");
    assert!(
        seen.iter().all(|&n| n > 10),
        "too few events to compare: {seen:?}"
    );
}

/// A 0.1-unit box at 300 units per second towards a thin static wall at x = 0, set up with
/// `wall` (a solid wall, a sensor, or a filter the box refuses): the world, the wall and
/// the box.
fn fast_box_at_a_wall(wall: BodyDef, box_filter: Filter) -> (World, BodyId, BodyId) {
    let mut world = World::new(Vec2::ZERO);
    let wall = world.add_body(&wall).unwrap();
    let shot = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(300.0, 0.0),
            filter: box_filter,
            ..BodyDef::dynamic(Polygon::rectangle(0.05, 0.05), Vec2::new(-3.0, 0.0))
        })
        .unwrap();
    world.set_hit_event_threshold(Some(1.0)).unwrap();
    (world, wall, shot)
}

#[test]
fn the_continuous_stage_reports_its_impacts_and_respects_sensors_and_filters() {
    let solid = BodyDef::fixed(Polygon::rectangle(0.1, 2.0), Vec2::ZERO);
    let mut narrow = CpuNarrowPhase::new();
    let (mut world, wall, shot) = fast_box_at_a_wall(solid.clone(), Filter::default());
    let mut hits = Vec::new();
    for _ in 0..10 {
        world.step(DT, &mut narrow).unwrap();
        hits.extend_from_slice(world.events().contact_hit);
    }
    assert!(world.center_of_mass(shot).x < 0.0, "the wall stopped it");
    assert_eq!(hits.len(), 1, "{hits:?}");
    let hit = hits[0];
    assert_eq!(hit.bodies, [wall, shot]);
    // From the wall (the first body) to the box, which came from the left.
    assert!((hit.normal + Vec2::X).length() < 1e-3, "{hit:?}");
    assert!((hit.speed - 300.0).abs() < 1.0, "{hit:?}");
    assert!((hit.point.x + 0.1).abs() < 0.01, "{hit:?}");

    let sensor = BodyDef {
        is_sensor: true,
        ..solid.clone()
    };
    let refusing = Filter {
        mask_bits: !wgpu_sat::world::DEFAULT_CATEGORY,
        ..Filter::default()
    };
    for (wall, filter, what) in [
        (sensor, Filter::default(), "a sensor wall"),
        (solid, refusing, "a wall its filter refuses"),
    ] {
        let (mut world, _, shot) = fast_box_at_a_wall(wall, filter);
        for _ in 0..10 {
            world.step(DT, &mut narrow).unwrap();
            assert!(world.events().contact_hit.is_empty(), "{what}");
        }
        assert!(world.center_of_mass(shot).x > 10.0, "{what} stopped it");
    }
}

#[test]
fn a_sensor_the_user_moves_sees_sleeping_boxes_in_turn_and_wakes_none() {
    let (mut world, _) = ground();
    let boxes: Vec<BodyId> = (0..3)
        .map(|k| {
            world
                .add_body(&unit_box(Vec2::new(-4.0 + 4.0 * k as f32, 0.5)))
                .unwrap()
        })
        .collect();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..90 {
        world.step(DT, &mut narrow).unwrap();
    }
    assert!(boxes.iter().all(|&b| !world.is_awake(b)), "the boxes sleep");
    // A sensor the user drives: its velocity set before every step, across the boxes'
    // tops (gravity still pulls it down a little within each step: it sinks about 0.3
    // over the crossing, and stays clear of the ground).
    let scanner = world
        .add_body(&BodyDef {
            is_sensor: true,
            ..BodyDef::dynamic(Polygon::rectangle(0.3, 0.3), Vec2::new(-8.0, 0.9))
        })
        .unwrap();
    let mut seen = Vec::new();
    let mut left = Vec::new();
    for _ in 0..120 {
        world
            .set_velocity(scanner, Vec2::new(8.0, 0.0), 0.0)
            .unwrap();
        world.step(DT, &mut narrow).unwrap();
        let events = world.events();
        for e in events.sensor_begin {
            assert_eq!(e.sensor_body, scanner);
            seen.push(e.visitor_body);
        }
        left.extend(events.sensor_end.iter().map(|e| e.visitor_body));
    }
    let end = world.center_of_mass(scanner);
    assert!(
        end.x > 6.0 && end.y > 0.4,
        "it crossed above the ground: {end}"
    );
    assert_eq!(seen, boxes, "each box entered once, in the order passed");
    assert_eq!(left, boxes, "and left once");
    assert!(
        boxes.iter().all(|&b| !world.is_awake(b)),
        "a sensor wakes nothing"
    );
}
