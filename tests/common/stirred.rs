//! A pile held to account by every stage of the step: some bodies damped or lighter under
//! gravity, a kinematic paddle turning near the floor, and forces and impulses that change
//! every step. The determinism tests step it on several thread counts and narrow phases.

use wgpu_sat::glam::Vec2;
use wgpu_sat::math::from_angle;
use wgpu_sat::{BodyDef, Polygon, World};

/// Damps every fifth dynamic body, halves the gravity of every eleventh, and adds a
/// kinematic paddle turning at 1.5 rad/s at (0, 2).
pub fn stir(world: &mut World) {
    let bodies: Vec<_> = world.bodies().filter(|&b| !world.is_static(b)).collect();
    for (k, &body) in bodies.iter().enumerate() {
        if k.is_multiple_of(5) {
            world.set_linear_damping(body, 0.5).unwrap();
            world.set_angular_damping(body, 1.0).unwrap();
        }
        if k.is_multiple_of(11) {
            world.set_gravity_scale(body, 0.5).unwrap();
        }
    }
    world
        .add_body(&BodyDef {
            angular_velocity: 1.5,
            ..BodyDef::kinematic(Polygon::rectangle(4.0, 0.2), Vec2::new(0.0, 2.0))
        })
        .unwrap();
}

/// Forces and impulses on every seventh dynamic body, different each step. Their
/// directions turn through the crate's own trigonometry, so that the inputs are the same
/// bits on every machine too.
pub fn push(world: &mut World, step: usize) {
    let bodies: Vec<_> = world
        .bodies()
        .filter(|&b| !world.is_static(b) && !world.is_kinematic(b))
        .collect();
    for (k, &body) in bodies.iter().enumerate().skip(step % 7).step_by(7) {
        let c = world.center_of_mass(body);
        let f = from_angle(0.1 * (k + step) as f32) * 5.0;
        world.apply_force(body, f, c + Vec2::new(0.2, 0.1)).unwrap();
        if (k + step).is_multiple_of(30) {
            world.apply_linear_impulse(body, 0.5 * f, c).unwrap();
        }
    }
}
