//! The window example's joints, without a window: a mouse drag (`scenes::MouseDrag`) pulls
//! the grabbed body after its target and lets go.

use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes::{DRAG_FORCE_PER_MASS, MouseDrag, pyramid};
use wgpu_sat::{BodyDef, CpuNarrowPhase, Polygon, World};

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
    run(&mut world, 120);
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
