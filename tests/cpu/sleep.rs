//! Sleeping: islands of resting bodies stop, stay exactly still, keep their contacts, and
//! wake as a whole when an awake body touches them or the API asks.

use wgpu_sat::glam::Vec2;
#[cfg(feature = "scenes")]
use wgpu_sat::scenes;
use wgpu_sat::{BodyDef, BodyId, CpuNarrowPhase, Polygon, World, world::TIME_TO_SLEEP};

const DT: f32 = 1.0 / 60.0;

fn unit_box() -> Polygon {
    Polygon::rectangle(0.5, 0.5)
}

/// A static ground along y = 0 and, at each x of `stacks`, a stack of `height` unit boxes;
/// with the bodies' handles in the order added (the ground first, then each stack bottom up).
fn stacks(xs: &[f32], height: usize) -> (World, Vec<BodyId>) {
    let mut world = World::new(Vec2::new(0.0, -10.0));
    let ground = Polygon::rectangle(50.0, 0.5);
    let mut ids = vec![
        world
            .add_body(&BodyDef::fixed(ground, Vec2::new(0.0, -0.5)))
            .unwrap(),
    ];
    for &x in xs {
        for row in 0..height {
            let y = 0.5 + row as f32;
            ids.push(
                world
                    .add_body(&BodyDef::dynamic(unit_box(), Vec2::new(x, y)))
                    .unwrap(),
            );
        }
    }
    (world, ids)
}

/// Steps until no body is awake; the step count, or `None` after `limit` steps.
fn step_until_asleep(world: &mut World, limit: usize) -> Option<usize> {
    let mut narrow = CpuNarrowPhase::new();
    (1..=limit).find(|_| world.step(DT, &mut narrow).unwrap().awake_bodies == 0)
}

#[test]
fn a_resting_stack_falls_asleep_and_stays_exactly_still() {
    let (mut world, ids) = stacks(&[0.0], 3);
    assert!(world.sleeping(), "sleeping is on by default");
    let steps = step_until_asleep(&mut world, 600).expect("a resting stack falls asleep");
    // It must rest for TIME_TO_SLEEP first; settling takes some steps more.
    assert!(
        steps as f32 * DT >= TIME_TO_SLEEP,
        "asleep after {steps} steps"
    );
    assert!(steps < 240, "asleep only after {steps} steps");
    for &body in &ids[1..4] {
        assert!(!world.is_awake(body));
        assert!(world.body(body).is_ok_and(|b| !b.is_awake()));
        assert_eq!(world.linear_velocity(body), Vec2::ZERO);
        assert_eq!(world.angular_velocity(body), 0.0);
    }
    assert!(!world.is_awake(ids[0]), "a static body is never awake");
    // Masses read as before: sleeping only zeroes the solver's copy.
    assert_eq!(world.mass(ids[1]), 1.0);

    let poses: Vec<_> = ids[0..4].iter().map(|&b| world.transform(b)).collect();
    // The step that put it to sleep computed its contacts where the bodies began that step;
    // from the next one on they are those of the resting poses, and stay so.
    let mut narrow = CpuNarrowPhase::new();
    world.step(DT, &mut narrow).unwrap();
    let contacts = world.collider_contacts().to_vec();
    let impulses: Vec<f32> = world.contact_impulses().collect();
    assert_eq!(contacts.len(), 3, "the stack keeps its three contacts");
    assert!(impulses.iter().any(|&i| i > 0.0));
    for _ in 0..200 {
        let stats = world.step(DT, &mut narrow).unwrap();
        assert_eq!(stats.awake_bodies, 0);
    }
    for (&body, pose) in ids.iter().zip(&poses) {
        assert_eq!(
            world.transform(body),
            *pose,
            "body {body} moved in its sleep"
        );
    }
    assert_eq!(world.collider_contacts(), &contacts[..]);
    assert_eq!(world.contact_impulses().collect::<Vec<_>>(), impulses);

    // The same stack with sleeping off never sleeps.
    let (mut awake, _) = stacks(&[0.0], 3);
    awake.set_sleeping(false);
    assert!(!awake.sleeping());
    assert_eq!(step_until_asleep(&mut awake, 300), None);
}

#[test]
fn a_falling_box_wakes_the_island_it_hits_and_no_other() {
    let (mut world, ids) = stacks(&[-10.0, 10.0], 3);
    step_until_asleep(&mut world, 600).expect("both stacks fall asleep");
    let far_stack: Vec<_> = ids[4..7].iter().map(|&b| world.transform(b)).collect();
    // Static bodies do not join islands: each stack is its own.
    let falling = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(0.0, -5.0),
            ..BodyDef::dynamic(unit_box(), Vec2::new(-10.0, 4.0))
        })
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut woke_at = None;
    for step in 0..30 {
        world.step(DT, &mut narrow).unwrap();
        if woke_at.is_none() && world.is_awake(ids[3]) {
            woke_at = Some(step);
        }
    }
    let woke_at = woke_at.expect("the hit stack wakes");
    assert!(
        ids[1..3].iter().all(|&b| world.is_awake(b)),
        "the whole island wakes, not only the box hit (woke at step {woke_at})"
    );
    assert!(world.is_awake(falling));
    for (k, &body) in ids[4..7].iter().enumerate() {
        assert!(!world.is_awake(body), "the far stack stays asleep");
        assert_eq!(world.transform(body), far_stack[k]);
    }
    // The woken stack carries the new box and sleeps again, all four together.
    step_until_asleep(&mut world, 600).expect("the island falls asleep again");
    assert!(world.transform(falling).translation().y > 3.0);
}

#[test]
fn the_api_wakes_islands_and_sleeping_off_wakes_every_body() {
    let (mut world, ids) = stacks(&[-10.0, 10.0], 2);
    step_until_asleep(&mut world, 600).expect("asleep");

    // wake: the body's whole island, no other.
    world.wake(ids[1]).unwrap();
    assert!(world.is_awake(ids[1]) && world.is_awake(ids[2]));
    assert!(!world.is_awake(ids[3]) && !world.is_awake(ids[4]));
    world.wake(ids[0]).unwrap(); // static: nothing, and no panic
    assert!(!world.is_awake(ids[0]));

    // set_velocity wakes the body it moves, and the body moves.
    let before = world.transform(ids[4]).translation();
    world
        .set_velocity(ids[4], Vec2::new(3.0, 0.0), 0.0)
        .unwrap();
    assert!(world.is_awake(ids[4]) && world.is_awake(ids[3]));
    world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    assert!(world.transform(ids[4]).translation().x > before.x);

    step_until_asleep(&mut world, 900).expect("asleep again");
    world.set_sleeping(false);
    assert!(
        ids[1..5].iter().all(|&b| world.is_awake(b)),
        "sleeping off wakes every body"
    );

    // set_gravity wakes every body: it rested under the old gravity only.
    world.set_sleeping(true);
    step_until_asleep(&mut world, 900).expect("asleep again");
    world.set_gravity(Vec2::new(4.0, -10.0)).unwrap();
    assert!(ids[1..5].iter().all(|&b| world.is_awake(b)));
}

#[cfg(feature = "scenes")]
#[test]
fn a_settled_pile_sleeps_and_every_narrow_phase_steps_it_the_same() {
    let mut cpu_world = scenes::mixed(400, 9);
    let mut parallel_world = cpu_world.clone();
    let mut cpu = CpuNarrowPhase::new();
    let mut parallel = wgpu_sat::ParallelCpuNarrowPhase::new();
    let mut least_awake = usize::MAX;
    for _ in 0..900 {
        let a = cpu_world.step(DT, &mut cpu).unwrap();
        let b = parallel_world.step(DT, &mut parallel).unwrap();
        assert_eq!(a.awake_bodies, b.awake_bodies);
        least_awake = least_awake.min(a.awake_bodies);
    }
    let bodies: Vec<BodyId> = cpu_world.bodies().collect();
    assert_eq!(bodies, parallel_world.bodies().collect::<Vec<_>>());
    assert_eq!(bodies.len(), 400 + 3);
    for body in bodies {
        assert_eq!(cpu_world.transform(body), parallel_world.transform(body));
        assert_eq!(cpu_world.is_awake(body), parallel_world.is_awake(body));
    }
    assert!(
        least_awake < 400 / 2,
        "most of a settled pile sleeps: {least_awake} of 400 awake"
    );
}
