//! `scenes::level`: it builds, its movers follow their script when driven, what falls on its
//! chain terrain stays above it, and `push_body_at` pushes the dynamic body under a point by
//! `PUSH_SPEED` (impulse over mass) and nothing else.

use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes::{BELT_SPEED, LevelDriver, PUSH_SPEED, level, level_terrain, push_body_at};
use wgpu_sat::world::{BodyType, Material};
use wgpu_sat::{BodyId, CpuNarrowPhase, Shape, World};

const DT: f32 = 1.0 / 60.0;

/// Runs `steps` driven steps from time 0 on the CPU narrow phase.
fn run(world: &mut World, driver: &LevelDriver, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for k in 0..steps {
        driver.drive(world, k as f32 * DT, DT).unwrap();
        world.step(DT, &mut narrow).unwrap();
    }
}

fn dynamic_bodies(world: &World) -> Vec<BodyId> {
    world
        .bodies()
        .filter(|&b| world.body_type(b) == Some(BodyType::Dynamic))
        .collect()
}

#[test]
fn the_level_builds_with_its_movers_belt_and_bodies() {
    let (world, driver) = level(1);
    assert_eq!(world.body_type(driver.platform), Some(BodyType::Kinematic));
    assert_eq!(world.body_type(driver.paddle), Some(BodyType::Kinematic));
    assert_eq!(world.body_type(driver.belt), Some(BodyType::Static));
    assert_eq!(world.body_type(driver.terrain), Some(BodyType::Static));
    // 96 game shapes and 2 crates; the terrain is one chain of many segments.
    assert_eq!(dynamic_bodies(&world).len(), 98);
    assert_eq!(world.body_count(), 102);
    assert!(world.body_colliders(driver.terrain).len() > 80);
    // Capsules, rounded boxes, circles and sharp boxes all among them.
    let kinds = |test: &dyn Fn(&Shape) -> bool| {
        dynamic_bodies(&world)
            .iter()
            .filter(|&&b| world.body_pieces(b).any(test))
            .count()
    };
    assert_eq!(kinds(&|s| matches!(s, Shape::Capsule(_))), 24);
    assert_eq!(kinds(&|s| matches!(s, Shape::Circle(_))), 24);
    assert_eq!(
        kinds(&|s| matches!(s, Shape::Polygon(p) if p.radius() > 0.0)),
        24
    );
    assert_eq!(
        kinds(&|s| matches!(s, Shape::Polygon(p) if p.radius() == 0.0)),
        26
    );
    // The same seed gives the same level, another seed another one.
    let again = level(1).0;
    let other = level(2).0;
    let poses = |w: &World| -> Vec<Vec2> { w.bodies().map(|b| w.center_of_mass(b)).collect() };
    assert_eq!(poses(&world), poses(&again));
    assert_ne!(poses(&world), poses(&other));
}

#[test]
fn the_terrain_has_pits_below_its_hills() {
    // The wide pit's floor, the narrow one's, and the flat stretch under the belt.
    assert!((level_terrain(-5.0) + 4.5).abs() < 1e-6);
    assert!((level_terrain(17.0) + 3.0).abs() < 1e-6);
    assert_eq!(level_terrain(-28.0), 0.0);
    let hills: Vec<f32> = (0..40)
        .map(|k| level_terrain(0.5 + 0.35 * k as f32))
        .collect();
    assert!(hills.iter().all(|&h| h > -1.5 && h < 1.5));
    assert!(hills.iter().any(|&h| h > 0.8) && hills.iter().any(|&h| h < -0.8));
}

#[test]
fn the_platform_and_paddle_follow_their_script_when_driven() {
    let start = LevelDriver::platform_position(0.0);
    for steps in [45, 100, 155] {
        let (mut world, driver) = level(1);
        assert!((world.center_of_mass(driver.platform) - start).length() < 1e-6);
        run(&mut world, &driver, steps);
        let time = steps as f32 * DT;
        let platform = world.center_of_mass(driver.platform);
        let expected = LevelDriver::platform_position(time);
        assert!(
            (platform - expected).length() < 1e-3,
            "{steps} steps: platform at {platform}, script {expected}"
        );
        let angle = world.transform(driver.paddle).angle();
        let script = LevelDriver::paddle_angle(time);
        // Equal angles, up to a whole turn across ±π.
        let turn = angle - script;
        assert!(
            turn.sin().abs() < 1e-3 && turn.cos() > 0.0,
            "{steps} steps: paddle at {angle}, script {script}"
        );
        // The paddle turns about a fixed pivot.
        let pivot = world.center_of_mass(driver.paddle);
        assert!((pivot - LevelDriver::paddle_pivot()).length() < 1e-3);
    }
    // The script moves them: the platform goes right, then back; the paddle turns.
    assert!(LevelDriver::platform_position(1.25).x > start.x + 2.0);
    assert!(LevelDriver::platform_position(3.75).x < start.x - 2.0);
    assert!(LevelDriver::paddle_angle(1.0) < -1.0);
}

#[test]
fn bodies_dropped_on_the_terrain_stay_above_it() {
    let (mut world, driver) = level(3);
    run(&mut world, &driver, 300);
    let bodies = dynamic_bodies(&world);
    for &b in &bodies {
        let c = world.center_of_mass(b);
        let ground = level_terrain(c.x);
        // A centre is at least a body's half thickness (0.125 or more) above the ground it
        // rests on; 0.05 under it would mean the body went through the chain.
        assert!(
            c.y > ground - 0.05,
            "{b:?} at {c}, ground at {ground}: fell through"
        );
        assert!(c.x > -32.0 && c.x < 28.0, "{b:?} at {c}: left the level");
    }
    // Settled, but for what the movers keep stirring: two thirds of the
    // bodies (about four fifths with this seed) have come to rest.
    let slow = bodies
        .iter()
        .filter(|&&b| world.linear_velocity(b).length() < 0.2)
        .count();
    assert!(
        slow * 3 >= bodies.len() * 2,
        "{slow} of {} bodies at rest",
        bodies.len()
    );
}

#[test]
fn a_push_changes_the_velocity_of_the_body_under_the_point_by_impulse_over_mass() {
    let (mut world, driver) = level(1);
    run(&mut world, &driver, 240);
    let bodies = dynamic_bodies(&world);
    // The lightest and the heaviest body both gain PUSH_SPEED upwards.
    let by_mass = |a: &&BodyId, b: &&BodyId| world.mass(**a).total_cmp(&world.mass(**b));
    let light = *bodies.iter().min_by(by_mass).unwrap();
    let heavy = *bodies.iter().max_by(by_mass).unwrap();
    assert!(world.mass(heavy) > 10.0 * world.mass(light));
    for body in [light, heavy] {
        let point = world.center_of_mass(body);
        let before = world.linear_velocity(body);
        let spin = world.angular_velocity(body);
        assert_eq!(push_body_at(&mut world, point).unwrap(), Some(body));
        let impulse = world.mass(body) * PUSH_SPEED;
        let change = world.linear_velocity(body) - before;
        let expected = Vec2::new(0.0, impulse / world.mass(body));
        assert!((change - expected).length() < 1e-4, "{body:?}: {change}");
        // At the centre of mass: no spin.
        assert!((world.angular_velocity(body) - spin).abs() < 1e-4);
    }
    // Off the centre, the same push also spins the body.
    let point = world.center_of_mass(heavy) + Vec2::new(0.5, 0.0);
    let spin = world.angular_velocity(heavy);
    assert_eq!(push_body_at(&mut world, point).unwrap(), Some(heavy));
    assert!(world.angular_velocity(heavy) - spin > 0.1);
}

#[test]
fn a_push_over_empty_space_or_a_static_or_kinematic_body_does_nothing() {
    let (mut world, driver) = level(1);
    run(&mut world, &driver, 60);
    let velocities = |w: &World| -> Vec<(Vec2, f32)> {
        w.bodies()
            .map(|b| (w.linear_velocity(b), w.angular_velocity(b)))
            .collect()
    };
    let before = velocities(&world);
    let belt = world.body_aabb(driver.belt).center();
    let pit = Vec2::new(-5.0, -3.0);
    let sky = Vec2::new(0.0, 40.0);
    let platform = world.center_of_mass(driver.platform);
    let paddle = world.center_of_mass(driver.paddle);
    for point in [sky, pit, belt, platform, paddle] {
        assert_eq!(push_body_at(&mut world, point).unwrap(), None, "at {point}");
    }
    assert_eq!(velocities(&world), before);
}

/// The bodies resting on the belt's top face, away from its ends, after `steps` steps.
fn belt_riders(world: &mut World, driver: &LevelDriver, steps: usize) -> Vec<f32> {
    run(world, driver, steps);
    let top = world.body_aabb(driver.belt);
    dynamic_bodies(world)
        .into_iter()
        .filter(|&b| {
            let bounds = world.body_aabb(b);
            let x = bounds.center().x;
            x > top.min.x + 1.0 && x < top.max.x - 1.0 && (bounds.min.y - top.max.y).abs() < 0.05
        })
        .map(|b| world.linear_velocity(b).x)
        .collect()
}

/// The belt carries what lands on it towards the hills: most bodies resting on its top face
/// move right (one may be knocked back by its neighbours), none faster than the belt (friction drives the contact towards the belt's
/// speed and no further; bodies crowd and roll, so slower), while on the same level with the
/// belt's surface stopped they drift neither way. The belt itself stays put.
#[test]
fn the_belt_carries_what_lies_on_it_towards_the_hills() {
    let (mut world, driver) = level(7);
    let mut stopped = world.clone();
    let belt_collider = stopped
        .body(driver.belt)
        .unwrap()
        .colliders()
        .next()
        .unwrap();
    let material = stopped.material(belt_collider).unwrap();
    assert_eq!(material.tangent_speed, BELT_SPEED);
    stopped
        .set_material(
            belt_collider,
            Material {
                tangent_speed: 0.0,
                ..material
            },
        )
        .unwrap();
    let belt_at = world.transform(driver.belt).translation();

    let moving = belt_riders(&mut world, &driver, 240);
    assert_eq!(world.transform(driver.belt).translation(), belt_at);
    assert!(moving.len() >= 3, "{} bodies ride the belt", moving.len());
    let mean = moving.iter().sum::<f32>() / moving.len() as f32;
    assert!(
        mean > 0.3 * BELT_SPEED
            && moving.iter().all(|&v| v < 1.05 * BELT_SPEED)
            && 3 * moving.iter().filter(|&&v| v > 0.1).count() >= 2 * moving.len(),
        "rider speeds {moving:?}"
    );

    let still = belt_riders(&mut stopped, &driver, 240);
    assert!(
        still.len() >= 3,
        "{} bodies rest on the stopped belt",
        still.len()
    );
    // Settling and rolling bodies still move a little, either way.
    let drift = still.iter().sum::<f32>() / still.len() as f32;
    assert!(
        drift.abs() < 0.05 * BELT_SPEED,
        "speeds on the stopped belt {still:?}"
    );
}
