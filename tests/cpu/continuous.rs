//! Continuous collision in the world: fast bodies and bullets do not tunnel through thin
//! obstacles, and without the continuous stage they would (so the tests can fail).

use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::Capsule;
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

/// A field of `count` small static boxes above and below the shot's line (y = 0), none in
/// its way: obstacles the continuous stage must look past.
fn add_static_field(world: &mut World, count: usize) {
    for k in 0..count {
        let x = -20.0 + (k / 2) as f32 * 0.4;
        let y = if k % 2 == 0 { 3.0 } else { -3.0 };
        world
            .add_body(&BodyDef::fixed(
                Polygon::rectangle(0.1, 0.1),
                Vec2::new(x, y),
            ))
            .unwrap();
    }
}

/// Steps `steps` times and returns the body's centre.
fn fly_for(world: &mut World, body: BodyId, steps: usize) -> Vec2 {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
    world.center_of_mass(body)
}

#[test]
fn a_thin_wall_among_many_statics_stops_the_shot_wherever_it_is_listed() {
    // The wall in the middle of 400 other static colliders (the stage finds the statics
    // near a sweep through a tree, not by a scan of the list).
    let mut world = World::new(Vec2::ZERO);
    add_static_field(&mut world, 200);
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.02, 2.0), Vec2::ZERO))
        .unwrap();
    add_static_field(&mut world, 200);
    let mut def = BodyDef::dynamic(Polygon::rectangle(0.05, 0.05), Vec2::new(-3.0, 0.0));
    def.linear_velocity = Vec2::new(300.0, 0.0);
    let shot = world.add_body(&def).unwrap();
    let c = fly_for(&mut world, shot, 30);
    assert!(c.x < -0.02, "the shot passed the wall: centre {c}");

    // The wall as one tile of a static compound of 401 tiles (as rain's floors are).
    let tiles = (0..401)
        .map(|k| {
            let center = if k == 200 {
                Vec2::ZERO
            } else {
                Vec2::new(
                    -20.0 + (k / 2) as f32 * 0.4,
                    if k % 2 == 0 { 3.0 } else { -3.0 },
                )
            };
            let half = if k == 200 {
                Vec2::new(0.02, 2.0)
            } else {
                Vec2::splat(0.1)
            };
            let corners = [
                center - half,
                center + Vec2::new(half.x, -half.y),
                center + half,
                center + Vec2::new(-half.x, half.y),
            ];
            wgpu_sat::Shape::Polygon(Polygon::new(&corners).unwrap())
        })
        .collect();
    let mut world = World::new(Vec2::ZERO);
    world
        .add_body(&BodyDef::fixed(
            wgpu_sat::BodyShape::compound(tiles).unwrap(),
            Vec2::ZERO,
        ))
        .unwrap();
    let shot = world.add_body(&def).unwrap();
    let c = fly_for(&mut world, shot, 30);
    assert!(
        c.x < -0.02,
        "the shot passed the compound's wall tile: centre {c}"
    );
}

#[test]
fn a_wall_added_or_moved_between_steps_is_an_obstacle_at_once() {
    // The shot flies from x = -30 at 300 units per second: it reaches x = 0 at step 6.
    let shot_def = || {
        let mut def = BodyDef::dynamic(Polygon::rectangle(0.05, 0.05), Vec2::new(-30.0, 0.0));
        def.linear_velocity = Vec2::new(300.0, 0.0);
        def
    };

    // Added after the stage has built its tree over the other statics.
    let mut world = World::new(Vec2::ZERO);
    add_static_field(&mut world, 100);
    let shot = world.add_body(&shot_def()).unwrap();
    fly_for(&mut world, shot, 2);
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.02, 2.0), Vec2::ZERO))
        .unwrap();
    let c = fly_for(&mut world, shot, 20);
    assert!(c.x < -0.02, "the shot passed the added wall: centre {c}");

    // Teleported into the shot's way from far off.
    let mut world = World::new(Vec2::ZERO);
    let wall = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(0.02, 2.0),
            Vec2::new(0.0, 50.0),
        ))
        .unwrap();
    add_static_field(&mut world, 100);
    let shot = world.add_body(&shot_def()).unwrap();
    fly_for(&mut world, shot, 2);
    world.set_transform(wall, Vec2::ZERO, 0.0).unwrap();
    let c = fly_for(&mut world, shot, 20);
    assert!(c.x < -0.02, "the shot passed the moved wall: centre {c}");

    // Moved out of the way, it no longer stops anything.
    let mut world = World::new(Vec2::ZERO);
    let wall = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.02, 2.0), Vec2::ZERO))
        .unwrap();
    let shot = world.add_body(&shot_def()).unwrap();
    fly_for(&mut world, shot, 2);
    world
        .set_transform(wall, Vec2::new(0.0, 50.0), 0.0)
        .unwrap();
    let c = fly_for(&mut world, shot, 20);
    assert!(
        c.x > 50.0,
        "the shot stopped at the wall's old place: centre {c}"
    );
}

/// A spinning capsule that hits a thin wall off its centre: the impact's impulse stops the
/// contact point, but the spin carries the centre on into the wall, deeper than the
/// core's inset, so that the next sweep's core starts in touch too. The piece's centroid
/// probe (a small circle about its centroid) still meets the wall, and stops it there.
#[test]
fn a_spinning_capsule_left_deep_in_a_thin_wall_does_not_pass_it() {
    let mut world = World::new(Vec2::ZERO);
    world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(0.05, 12.0),
            Vec2::new(20.0, 0.0),
        ))
        .unwrap();
    let capsule = Capsule::new(Vec2::new(-0.2, 0.0), Vec2::new(0.2, 0.0), 0.08).unwrap();
    let mut def = BodyDef::dynamic(capsule, Vec2::new(0.0, -2.3));
    let speed: f32 = 248.0;
    def.linear_velocity = Vec2::new(speed, speed * 0.4 * (14.0f32 * 0.7).sin());
    def.angular_velocity = 6.0;
    let body = world.add_body(&def).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut farthest = f32::NEG_INFINITY;
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
        farthest = farthest.max(world.center_of_mass(body).x);
    }
    // The wall's far face is at x = 20.05: the centre must stay on the near side.
    assert!(
        farthest < 20.0,
        "the capsule's centre reached x = {farthest}"
    );
}
