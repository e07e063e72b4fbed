//! Joints in the soft step: revolute and distance joints against closed forms (a
//! pendulum's period), under load (a hanging 100-link chain, a 1:100 mass ratio), the same
//! bits on one and two threads, and the house rules: bad input is an error naming it,
//! removing a body removes its joints, a stale handle is refused, joined bodies do not
//! collide unless asked to.
//!
//! The shared helpers and scene pieces are here; the tests are in one file per topic.

mod forces;
mod kinds;
mod load;
mod pendulum;
mod revolute;
mod rules;
mod targets;
mod threads;

use wgpu_sat::error::{JointError, WorldError};
use wgpu_sat::glam::Vec2;
use wgpu_sat::world::StaleReason;
use wgpu_sat::{
    BodyDef, BodyId, Circle, CpuNarrowPhase, Error, JointDef, JointId, NarrowPhase,
    ParallelCpuNarrowPhase, Polygon, World, scenes,
};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

fn run(world: &mut World, steps: usize) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(DT, &mut narrow).unwrap();
    }
}

/// A world under gravity `G` whose bodies never sleep.
fn awake_world() -> World {
    let mut world = World::new(Vec2::new(0.0, -G));
    world.set_sleeping(false);
    world
}

/// A static pivot at `top` and a disc (radius 0.3) hanging 1 below it, unjoined.
fn hanging_bob(world: &mut World, top: Vec2) -> (BodyId, BodyId) {
    let ground = pivot(world, top);
    let bob = world
        .add_body(&BodyDef::dynamic(
            Circle::new(0.3).unwrap(),
            top - Vec2::new(0.0, 1.0),
        ))
        .unwrap();
    (ground, bob)
}

fn pivot(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.1, 0.1), at))
        .unwrap()
}

/// Half the length of a chain link.
const LINK: f32 = 0.25;

/// A chain of `links` boxes hanging straight down from a static pivot at `top`, pinned end
/// to end. Returns the links, top first.
fn hanging_chain(world: &mut World, top: Vec2, links: usize, density: f32) -> Vec<BodyId> {
    let anchor = pivot(world, top);
    let mut above = anchor;
    let mut bodies = Vec::new();
    for k in 0..links {
        let centre = top - Vec2::new(0.0, LINK * (2 * k + 1) as f32);
        let link = world
            .add_body(&BodyDef {
                density,
                ..BodyDef::dynamic(Polygon::rectangle(0.06, LINK), centre)
            })
            .unwrap();
        let pin = centre + Vec2::new(0.0, LINK);
        world
            .add_joint(&JointDef::revolute(above, link, pin))
            .unwrap();
        bodies.push(link);
        above = link;
    }
    bodies
}

fn two_boxes(world: &mut World) -> [BodyId; 2] {
    let a = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))
        .unwrap();
    let b = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.8, 0.0),
        ))
        .unwrap();
    [a, b]
}

/// Contacts between `a` and `b` after a step.
fn contacts_between(world: &World, a: BodyId, b: BodyId) -> usize {
    world
        .contacts()
        .filter(|c| c.bodies.contains(&a) && c.bodies.contains(&b))
        .count()
}

/// A static pivot at `at` and a dynamic arm `2 half` long reaching right from it.
fn arm(world: &mut World, at: Vec2, half: f32) -> (BodyId, BodyId) {
    let ground = pivot(world, at);
    let arm = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(half, 0.05),
            at + Vec2::new(half, 0.0),
        ))
        .unwrap();
    (ground, arm)
}

/// A disc on a pin through its centre (no gravity torque), driven by a motor.
fn motor_wheel(speed: f32, max_torque: f32) -> (World, BodyId) {
    let mut world = awake_world();
    let centre = Vec2::new(0.0, 3.0);
    let ground = pivot(&mut world, centre + Vec2::new(0.0, 2.0));
    let wheel = world
        .add_body(&BodyDef::dynamic(Circle::new(0.5).unwrap(), centre))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, wheel, centre).with_motor(speed, max_torque))
        .unwrap();
    (world, wheel)
}
