//! A world with joints steps to the same bits on one and two threads.

use super::*;

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
