//! Continuous collision in the world: fast bodies and bullets do not tunnel through thin
//! obstacles, and without the continuous stage they would (so the tests can fail).

use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, Circle, CpuNarrowPhase, Polygon, World};

const DT: f32 = 1.0 / 60.0;

/// A 0.2-thick static wall whose left face is at x = -0.1, and a dynamic body of `shape` at
/// x = -3 flying right at `speed` (no gravity). Returns the world and the body's handle.
fn wall_and_shot(shape: impl Into<wgpu_sat::BodyShape>, speed: f32, spin: f32) -> (World, BodyId) {
    let mut world = World::new(Vec2::ZERO);
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.1, 2.0), Vec2::ZERO))
        .unwrap();
    let mut def = BodyDef::dynamic(shape, Vec2::new(-3.0, 0.0));
    def.linear_velocity = Vec2::new(speed, 0.0);
    def.angular_velocity = spin;
    let body = world.add_body(&def).unwrap();
    (world, body)
}

/// Steps one second and returns the largest x the body's box reached on its far side (the
/// right edge of its AABB), and its final x velocity.
fn fly(world: &mut World, body: BodyId) -> (f32, f32) {
    let mut narrow = CpuNarrowPhase::new();
    let mut farthest = f32::NEG_INFINITY;
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        farthest = farthest.max(world.body_aabb(body).max.x);
    }
    (farthest, world.linear_velocity(body).x)
}

#[test]
fn a_small_box_at_300_units_per_second_stops_at_a_thin_wall() {
    // The case: a 0.1-unit box covers 5 units per step, 17 times the 0.3 it would
    // need to overlap the wall on some step.
    let (mut world, body) = wall_and_shot(Polygon::rectangle(0.05, 0.05), 300.0, 0.0);
    let (farthest, vx) = fly(&mut world, body);
    // It may sink into the wall by the solver's slop, never more than a tenth of the wall.
    assert!(farthest < -0.1 + 0.02, "the box reached x = {farthest}");
    assert!(
        vx.abs() < 1.0,
        "the box still moves at {vx} units per second"
    );
    let c = world.center_of_mass(body);
    assert!(
        (c.x - (-0.15)).abs() < 0.02,
        "the box rests against the wall's face, centre at {c}"
    );

    // The same shot without the continuous stage passes straight through: the test above
    // depends on it.
    let (mut world, body) = wall_and_shot(Polygon::rectangle(0.05, 0.05), 300.0, 0.0);
    world.set_continuous(false);
    let (_, vx) = fly(&mut world, body);
    let c = world.center_of_mass(body);
    assert!(
        c.x > 10.0 && vx > 299.0,
        "without sweeping the box should tunnel: centre {c}"
    );
}

#[test]
fn a_fast_circle_and_a_fast_spinning_rod_stop_at_the_wall() {
    let ball = Circle::new(0.05).unwrap();
    let (mut world, body) = wall_and_shot(ball, 250.0, 0.0);
    let (farthest, _) = fly(&mut world, body);
    assert!(farthest < -0.1 + 0.02, "the ball reached x = {farthest}");

    // A rod spinning at 40 rad/s turns 0.67 rad per step while covering 4 units: the sweep
    // must account for the rotation too.
    let rod = Polygon::rectangle(0.3, 0.03);
    let (mut world, body) = wall_and_shot(rod, 240.0, 40.0);
    let (farthest, _) = fly(&mut world, body);
    assert!(farthest < -0.1 + 0.02, "the rod reached x = {farthest}");
}

#[test]
fn a_bullet_hits_a_thin_dynamic_plank_that_a_plain_fast_body_passes() {
    // A dynamic plank, held in place by nothing but its own inertia (no gravity).
    let build = |bullet: bool| {
        let mut world = World::new(Vec2::ZERO);
        let plank = world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.1, 1.0), Vec2::ZERO))
            .unwrap();
        let mut def = BodyDef::dynamic(Polygon::rectangle(0.05, 0.05), Vec2::new(-3.0, 0.0));
        def.linear_velocity = Vec2::new(300.0, 0.0);
        def.is_bullet = bullet;
        let shot = world.add_body(&def).unwrap();
        (world, plank, shot)
    };
    let mut narrow = CpuNarrowPhase::new();

    let (mut world, plank, shot) = build(true);
    for _ in 0..30 {
        world.step(DT, &mut narrow).unwrap();
    }
    // The plank (mass 0.4) took the shot's momentum (mass 0.01 at 300): it moves right, and
    // the shot is on its left side.
    assert!(
        world.linear_velocity(plank).x > 1.0,
        "the plank did not move"
    );
    assert!(
        world.center_of_mass(shot).x < world.center_of_mass(plank).x,
        "the bullet passed the plank"
    );

    // Fast non-bullets are swept against static bodies only, so this one passes through.
    let (mut world, plank, shot) = build(false);
    for _ in 0..30 {
        world.step(DT, &mut narrow).unwrap();
    }
    assert!(
        world.center_of_mass(shot).x > world.center_of_mass(plank).x + 5.0,
        "expected the plain fast body to pass the dynamic plank"
    );
}

#[test]
fn slow_bodies_are_not_swept_and_the_stats_say_what_was() {
    let (mut world, _) = wall_and_shot(Polygon::rectangle(0.5, 0.5), 1.0, 0.0);
    let stats = world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    assert_eq!((stats.swept_bodies, stats.impacts), (0, 0));

    let (mut world, _) = wall_and_shot(Polygon::rectangle(0.05, 0.05), 300.0, 0.0);
    let stats = world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    // 5 units in the first step: from x = -3 the box reaches the wall.
    assert_eq!((stats.swept_bodies, stats.impacts), (1, 1));
}
