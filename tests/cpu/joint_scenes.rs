//! The window example's joints, without a window: a mouse drag (`scenes::MouseDrag`) pulls
//! the grabbed body after its target and lets go; in `scenes::joints`, the bridge holds its
//! load, the chain swings below its peg in one piece, the car drives over the hills upright
//! (and backs up, and brakes), and the ragdolls land whole.

use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes::{Bone, DRAG_FORCE_PER_MASS, MouseDrag, joints, pyramid};
use wgpu_sat::{BodyDef, CpuNarrowPhase, JointId, Polygon, World};

const DT: f32 = 1.0 / 60.0;

fn run(world: &mut World, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
}

#[test]
fn a_drag_pulls_the_body_after_its_target_and_release_removes_the_joint() {
    let mut world = World::default();
    let ground = world
        .add_body(&BodyDef::fixed(
            Polygon::rectangle(100.0, 0.5),
            Vec2::new(0.0, -0.5),
        ))
        .unwrap();
    let crate_ = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 0.5),
        ))
        .unwrap();
    run(&mut world, 30);

    // Over empty space, and over the static ground, nothing is grabbed, nothing joined.
    assert_eq!(
        MouseDrag::grab(&mut world, Vec2::new(5.0, 5.0)).unwrap(),
        None
    );
    assert_eq!(
        MouseDrag::grab(&mut world, Vec2::new(5.0, -0.25)).unwrap(),
        None
    );
    assert_eq!(world.joint_count(), 0);

    // Grab the crate off its centre, at its top right quarter.
    let grabbed = Vec2::new(0.25, 0.75);
    let mut drag = MouseDrag::grab(&mut world, grabbed).unwrap().unwrap();
    assert_eq!(drag.body(), crate_);
    assert_eq!(world.joint_bodies(drag.joint()), Some([ground, crate_]));
    assert_eq!(world.joint_count(), 1);

    // The target moves up and to the right by 3 units each; the grabbed point follows to
    // within a few centimetres once the spring (5 Hz) has settled.
    let target = Vec2::new(3.25, 3.75);
    drag.move_to(&mut world, target).unwrap();
    run(&mut world, 120);
    let [pull_target, point] = world.joint_anchors(drag.joint()).unwrap();
    assert_eq!(pull_target, target);
    assert!(
        point.distance(target) < 0.05,
        "the grabbed point {point} trails the target {target}"
    );
    // Moved sideways, the body follows; released, the joint is gone and the body falls
    // back to the ground, keeping the throw's velocity at first.
    drag.move_to(&mut world, Vec2::new(-2.0, 3.75)).unwrap();
    run(&mut world, 10);
    let moving = world.linear_velocity(crate_);
    assert!(moving.x < -1.0, "the body is not following: {moving}");
    let joint = drag.joint();
    drag.release(&mut world);
    assert_eq!(world.joint_count(), 0);
    assert_eq!(world.joint_anchors(joint), None);
    // Thrown spinning (some 35 rad/s), the crate tumbles for a few seconds; how far it goes
    // is chaotic: colouring joints with the contacts left it tumbling at 2 s (at x = -16),
    // at rest by 4 s (at x = -19).
    run(&mut world, 300);
    let rest = world.center_of_mass(crate_);
    assert!(rest.x < -1.0 && (rest.y - 0.5).abs() < 0.05, "at {rest}");
}

#[test]
fn the_drag_is_bounded_by_the_bodys_weight() {
    // A bottom box of a pyramid pulled towards a target 50 units away: the spring alone
    // would pull with hundreds of times its weight; the joint pulls with its cap,
    // DRAG_FORCE_PER_MASS × the box's mass, and no more.
    let mut world = pyramid(6);
    run(&mut world, 60);
    let bottom = Vec2::new(0.5, 0.5);
    let mut drag = MouseDrag::grab(&mut world, bottom).unwrap().unwrap();
    drag.move_to(&mut world, bottom + Vec2::new(50.0, 0.0))
        .unwrap();
    run(&mut world, 1);
    let force = world.joint_force(drag.joint()).unwrap();
    let limit = DRAG_FORCE_PER_MASS * world.mass(drag.body());
    assert!(force.length() > 0.5 * limit, "{force} against {limit}");
    assert!(force.length() <= 1.001 * limit, "{force} against {limit}");
}

/// The largest distance between a joint's two anchors, over `joints`.
fn worst_gap(world: &World, joints: &[JointId]) -> f32 {
    joints
        .iter()
        .map(|&j| {
            let [a, b] = world.joint_anchors(j).unwrap();
            a.distance(b)
        })
        .fold(0.0, f32::max)
}

/// Steps the scene `steps` times, calling `check` after each step.
fn watch(world: &mut World, steps: usize, mut check: impl FnMut(&World)) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
        check(world);
    }
}

#[test]
fn the_bridge_holds_its_load() {
    let (mut world, scene) = joints();
    assert_eq!(scene.bridge_joints.len(), scene.bridge_planks.len() + 1);
    // Ten seconds: the loads land, roll to the middle and settle. The deck sags (it is
    // exactly as long as the gap, so only its joints' give lets it), but no plank drops
    // far below the line it was built on or rises above it, and no pin comes apart by
    // more than a few centimetres.
    let mut worst = (0.0f32, f32::MAX, f32::MIN);
    watch(&mut world, 600, |world| {
        worst.0 = worst.0.max(worst_gap(world, &scene.bridge_joints));
        for &plank in &scene.bridge_planks {
            let y = world.center_of_mass(plank).y;
            worst.1 = worst.1.min(y);
            worst.2 = worst.2.max(y);
        }
    });
    let (gap, lowest, highest) = worst;
    assert!(gap < 0.03, "a bridge pin opened by {gap}");
    assert!(
        lowest > scene.bridge_deck - 1.5,
        "the deck sank to {lowest}"
    );
    assert!(
        highest < scene.bridge_deck + 0.05,
        "a plank rose to {highest}"
    );
    // It did carry the loads: the deck sags, most in the middle.
    let middle = world.center_of_mass(scene.bridge_planks[scene.bridge_planks.len() / 2]);
    let end = world.center_of_mass(scene.bridge_planks[0]);
    assert!(middle.y < scene.bridge_deck - 0.5 && middle.y < end.y - 0.3);
}

#[test]
fn the_chain_hangs_below_its_peg_and_stays_connected() {
    let (mut world, scene) = joints();
    let peg = world.center_of_mass(scene.chain_peg);
    let reach = 0.5 * scene.chain_links.len() as f32 + 0.5;
    let mut gap = 0.0f32;
    let mut highest = f32::MIN;
    watch(&mut world, 600, |world| {
        gap = gap.max(worst_gap(world, &scene.chain_joints));
        for &link in &scene.chain_links {
            let at = world.center_of_mass(link);
            highest = highest.max(at.y);
            assert!(at.distance(peg) < reach, "a link got loose, at {at}");
        }
    });
    assert!(gap < 0.03, "a chain pin opened by {gap}");
    // Let go level with the peg, the chain swings below it and never above.
    assert!(highest < peg.y + 0.05, "a link rose to {highest}");
    let end = world.center_of_mass(*scene.chain_links.last().unwrap());
    assert!(end.y < peg.y - 1.0, "the chain's end is at {end}");
}

#[test]
fn the_car_drives_over_the_hills_upright_and_backs_up() {
    let (mut world, scene) = joints();
    let car = scene.car;
    let start = world.center_of_mass(car.chassis);
    // Five seconds with the motors running forward: over the first hill and on, at about
    // 4 units per second (its top speed) where the ground is level.
    let mut tilt = 0.0f32;
    watch(&mut world, 300, |world| {
        tilt = tilt.max(world.transform(car.chassis).angle().abs());
    });
    let after = world.center_of_mass(car.chassis);
    assert!(
        after.x - start.x > 12.0,
        "the car got from {start} to {after}"
    );
    assert!(tilt < 1.0, "the car tilted by {tilt} radians");
    // Each wheel still sits on its axle, within the suspension's travel.
    for (wheel, axle) in car.wheels.into_iter().zip(car.axles) {
        let [on_chassis, hub] = world.joint_anchors(axle).unwrap();
        assert!(on_chassis.distance(hub) < 0.3, "{wheel} is off its axle");
    }

    // Reversed, it backs up; braked, it stops where it stands (or nearly, on a slope).
    car.drive(&mut world, -1.0).unwrap();
    watch(&mut world, 120, |_| {});
    let back = world.center_of_mass(car.chassis);
    assert!(
        back.x < after.x - 3.0,
        "reversing took it from {after} to {back}"
    );
    car.drive(&mut world, 0.0).unwrap();
    watch(&mut world, 60, |_| {});
    let braked = world.center_of_mass(car.chassis);
    watch(&mut world, 60, |_| {});
    let still = world.center_of_mass(car.chassis);
    assert!(
        braked.distance(still) < 0.1,
        "braked, it rolled from {braked} to {still}"
    );
}

#[test]
fn the_ragdolls_land_on_the_ground_in_one_piece() {
    let (mut world, scene) = joints();
    assert_eq!(scene.ragdolls.len(), 3);
    let joints_before = world.joint_count();
    run(&mut world, 300);
    assert_eq!(world.joint_count(), joints_before);
    for ragdoll in &scene.ragdolls {
        for &part in &ragdoll.bodies {
            let at = world.center_of_mass(part);
            assert!(at.y > -0.01 && at.y < 3.0, "a ragdoll's part is at {at}");
        }
        // Its parts stay together: none farther than a body's height from the torso.
        let torso = world.center_of_mass(ragdoll.body(Bone::Torso));
        assert!(
            ragdoll
                .bodies
                .iter()
                .all(|&p| world.center_of_mass(p).distance(torso) < 2.0)
        );
    }
}
