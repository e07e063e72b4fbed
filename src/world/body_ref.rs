//! [`BodyRef`]: one body read through a handle known to be live.
//!
//! [`World::body`] checks the handle once and hands out a [`BodyRef`]; its accessors then
//! cannot fail. (The world's own plain readers, `World::transform(id)` and the rest, read a
//! stale handle as NaN; this is their checked twin.) The borrow of the world keeps the body
//! from being removed while a `BodyRef` lives.

use glam::Vec2;

use super::World;
use crate::shapes::aabb::Aabb;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;
use crate::world::handle::{BodyId, ColliderId};

/// A body of a [`World`], borrowed: what [`World::body`] returns for a live handle.
#[derive(Clone, Copy, Debug)]
pub struct BodyRef<'w> {
    world: &'w World,
    id: BodyId,
    slot: usize,
}

impl<'w> BodyRef<'w> {
    /// Only [`World::body`] makes one, after checking `id` (live, in slot `slot`).
    pub(crate) fn new(world: &'w World, id: BodyId, slot: usize) -> Self {
        BodyRef { world, id, slot }
    }

    /// The body's handle.
    pub fn id(&self) -> BodyId {
        self.id
    }

    /// The body's [`BodyDef::user_data`](crate::BodyDef::user_data).
    pub fn user_data(&self) -> u64 {
        self.world.names.user_data[self.slot]
    }

    /// The pose of the body's local frame: [`World::transform`].
    pub fn transform(&self) -> Transform {
        self.world.transform(self.id)
    }

    /// World position of the centre of mass: [`World::center_of_mass`].
    pub fn center_of_mass(&self) -> Vec2 {
        self.world.center_of_mass(self.id)
    }

    /// Velocity of the centre of mass: [`World::linear_velocity`].
    pub fn linear_velocity(&self) -> Vec2 {
        self.world.linear_velocity(self.id)
    }

    /// Radians per second, counter-clockwise: [`World::angular_velocity`].
    pub fn angular_velocity(&self) -> f32 {
        self.world.angular_velocity(self.id)
    }

    /// Mass, infinite for a static or kinematic body: [`World::mass`].
    pub fn mass(&self) -> f32 {
        self.world.mass(self.id)
    }

    /// Rotational inertia about the centre of mass: [`World::rotational_inertia`].
    pub fn rotational_inertia(&self) -> f32 {
        self.world.rotational_inertia(self.id)
    }

    /// Whether the body is static: [`World::is_static`].
    pub fn is_static(&self) -> bool {
        self.world.is_static(self.id)
    }

    /// Whether the body is kinematic: [`World::is_kinematic`].
    pub fn is_kinematic(&self) -> bool {
        self.world.is_kinematic(self.id)
    }

    /// Whether the body is a bullet: [`World::is_bullet`].
    pub fn is_bullet(&self) -> bool {
        self.world.is_bullet(self.id)
    }

    /// Whether the body is simulated: false while it sleeps, and always for a static body
    /// (see [`World::is_awake`]).
    pub fn is_awake(&self) -> bool {
        self.world.is_awake(self.id)
    }

    /// The bounding box of all its pieces: [`World::body_aabb`].
    pub fn aabb(&self) -> Aabb {
        self.world.body_aabb(self.id)
    }

    /// Its convex pieces in its local frame: [`World::body_pieces`].
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = &'w Shape> + 'w {
        self.world.body_pieces(self.id)
    }

    /// Its colliders: [`World::body_colliders`].
    pub fn colliders(&self) -> impl ExactSizeIterator<Item = ColliderId> + 'w {
        self.world.body_colliders(self.id)
    }
}
