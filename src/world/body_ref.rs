//! [`BodyRef`]: one body read through an index known to be valid.
//!
//! [`World::body`] checks the index once and hands out a [`BodyRef`]; its accessors then
//! cannot fail. The world's own per-body accessors (`World::transform(index)`, ...) panic on
//! an index out of range, as slice indexing does; this is their `get`-style twin.

use std::ops::Range;

use glam::Vec2;

use super::World;
use crate::aabb::Aabb;
use crate::shape::Shape;
use crate::transform::Transform;

/// A body of a [`World`], borrowed: what [`World::body`] returns for an index in range.
#[derive(Clone, Copy, Debug)]
pub struct BodyRef<'w> {
    world: &'w World,
    index: usize,
}

impl<'w> BodyRef<'w> {
    /// Only [`World::body`] makes one, after checking `index`.
    pub(crate) fn new(world: &'w World, index: usize) -> Self {
        BodyRef { world, index }
    }

    /// The body's index in its world.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The pose of the body's local frame: [`World::transform`].
    pub fn transform(&self) -> Transform {
        self.world.transform(self.index)
    }

    /// World position of the centre of mass: [`World::center_of_mass`].
    pub fn center_of_mass(&self) -> Vec2 {
        self.world.center_of_mass(self.index)
    }

    /// Velocity of the centre of mass: [`World::linear_velocity`].
    pub fn linear_velocity(&self) -> Vec2 {
        self.world.linear_velocity(self.index)
    }

    /// Radians per second, counter-clockwise: [`World::angular_velocity`].
    pub fn angular_velocity(&self) -> f32 {
        self.world.angular_velocity(self.index)
    }

    /// Mass, infinite for a static body: [`World::mass`].
    pub fn mass(&self) -> f32 {
        self.world.mass(self.index)
    }

    /// Rotational inertia about the centre of mass: [`World::rotational_inertia`].
    pub fn rotational_inertia(&self) -> f32 {
        self.world.rotational_inertia(self.index)
    }

    /// Whether the body is static: [`World::is_static`].
    pub fn is_static(&self) -> bool {
        self.world.is_static(self.index)
    }

    /// Whether the body is a bullet: [`World::is_bullet`].
    pub fn is_bullet(&self) -> bool {
        self.world.is_bullet(self.index)
    }

    /// Whether the body is simulated: false while it sleeps, and always for a static body
    /// (see [`World::is_awake`]).
    pub fn is_awake(&self) -> bool {
        self.world.is_awake(self.index)
    }

    /// The bounding box of all its pieces: [`World::body_aabb`].
    pub fn aabb(&self) -> Aabb {
        self.world.body_aabb(self.index)
    }

    /// Its convex pieces in its local frame: [`World::body_pieces`].
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = &'w Shape> + 'w {
        self.world.body_pieces(self.index)
    }

    /// Its colliders, indices into [`World::colliders`]: [`World::body_colliders`].
    pub fn colliders(&self) -> Range<usize> {
        self.world.body_colliders(self.index)
    }
}
