//! Helpers shared by the tests of bodies a game moves (`bodies_kinematic.rs`,
//! `bodies_forces.rs`, `bodies_teleport.rs`): stepping, grounds and stacks of unit boxes,
//! and what the last step's contacts and events say of two bodies.
#![allow(dead_code)]

use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, CpuNarrowPhase, Polygon, World};

/// The time step of every test: 60 Hz.
pub const DT: f32 = 1.0 / 60.0;

/// Steps `world` `steps` times with the CPU narrow phase.
pub fn step(world: &mut World, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
}

/// A static slab `2 * half_width` wide whose top is y = 0, centred on x.
pub fn ground(world: &mut World, x: f32, half_width: f32) -> BodyId {
    let slab = Polygon::rectangle(half_width, 0.5);
    world
        .add_body(&BodyDef::fixed(slab, Vec2::new(x, -0.5)))
        .unwrap()
}

/// A dynamic unit box centred at `at`.
pub fn unit_box(world: &mut World, at: Vec2) -> BodyId {
    let square = Polygon::rectangle(0.5, 0.5);
    world.add_body(&BodyDef::dynamic(square, at)).unwrap()
}

/// `height` unit boxes stacked on y = 0 at `x`, bottom up.
pub fn stack(world: &mut World, x: f32, height: usize) -> Vec<BodyId> {
    (0..height)
        .map(|row| unit_box(world, Vec2::new(x, 0.5 + row as f32)))
        .collect()
}

/// Whether the last step has a contact between `a` and `b`.
pub fn in_contact(world: &World, a: BodyId, b: BodyId) -> bool {
    world
        .contacts()
        .any(|c| c.bodies.contains(&a) && c.bodies.contains(&b))
}

/// Whether the last step's events began (`true`) or ended (`false`) a contact of `a`
/// and `b`.
pub fn changed(world: &World, a: BodyId, b: BodyId, began: bool) -> bool {
    let events = world.events();
    let both = |bodies: &[BodyId; 2]| bodies.contains(&a) && bodies.contains(&b);
    if began {
        events.contact_begin.iter().any(|e| both(&e.bodies))
    } else {
        events.contact_end.iter().any(|e| both(&e.bodies))
    }
}
