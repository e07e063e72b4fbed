//! One body read and set through the world: its pose, pieces, colliders, mass, material,
//! velocity and sleep.

use std::ops::Range;

use glam::Vec2;

use super::World;
use super::body_ref::BodyRef;
use super::limits::{check, check_vec};
use super::step::body_transform;
use crate::aabb::Aabb;
use crate::error::Error;
use crate::shape::Shape;
use crate::transform::Transform;

impl World {
    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The pose of body `body`'s local frame (the frame its shape was given in).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn transform(&self, body: usize) -> Transform {
        body_transform(&self.bodies[body], self.centers[body], self.rotations[body])
    }

    /// The body's convex pieces, in its local frame, in the order of the
    /// [`BodyShape::pieces`] it was made from (as the shape table holds them).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_pieces(&self, body: usize) -> impl ExactSizeIterator<Item = &Shape> + '_ {
        self.colliders[self.bodies[body].colliders()]
            .iter()
            .map(|c| &self.shapes[c.shape as usize])
    }

    /// The body's colliders: indices into [`World::colliders`], one per piece, in the order
    /// of [`BodyShape::pieces`].
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_colliders(&self, body: usize) -> Range<usize> {
        self.bodies[body].colliders()
    }

    /// The body a collider belongs to.
    ///
    /// # Panics
    /// If `collider` is not below the number of [`World::colliders`];
    /// [`World::collider_owner`] returns `None` instead.
    pub fn collider_body(&self, collider: usize) -> usize {
        self.collider_bodies[collider] as usize
    }

    /// The body a collider belongs to, or `None` when there is no such collider.
    pub fn collider_owner(&self, collider: usize) -> Option<usize> {
        self.collider_bodies.get(collider).map(|&b| b as usize)
    }

    /// Body `body`, or `None` when it is not below [`World::body_count`]: the `get`-style
    /// form of the per-body accessors, which panic on an index out of range.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World};
    /// let mut world = World::default();
    /// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::Y))?;
    /// assert_eq!(world.body(crate_).map(|b| b.transform().translation()), Some(Vec2::Y));
    /// assert!(world.body(crate_ + 1).is_none());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn body(&self, body: usize) -> Option<BodyRef<'_>> {
        (body < self.bodies.len()).then(|| BodyRef::new(self, body))
    }

    /// The body's bounding box as of the end of the last step (all its pieces).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_aabb(&self, body: usize) -> Aabb {
        self.aabbs[self.bodies[body].colliders()]
            .iter()
            .copied()
            .reduce(|a, b| a.union(&b))
            .unwrap_or_default()
    }

    /// Whether the body is static.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_static(&self, body: usize) -> bool {
        self.bodies[body].is_static
    }

    /// Whether the body is a bullet (see [`BodyDef::is_bullet`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_bullet(&self, body: usize) -> bool {
        self.bodies[body].is_bullet
    }

    /// World position of the body's centre of mass.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn center_of_mass(&self, body: usize) -> Vec2 {
        self.centers[body]
    }

    /// The body's mass (density times area, summed over its pieces); infinite for a
    /// static body.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn mass(&self, body: usize) -> f32 {
        1.0 / self.bodies[body].inv_mass
    }

    /// The body's rotational inertia about its centre of mass; infinite for a static body.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn rotational_inertia(&self, body: usize) -> f32 {
        1.0 / self.bodies[body].inv_inertia
    }

    /// The body's friction coefficient ([`BodyDef::friction`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn friction(&self, body: usize) -> f32 {
        self.materials[body].friction
    }

    /// The body's restitution ([`BodyDef::restitution`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn restitution(&self, body: usize) -> f32 {
        self.materials[body].restitution
    }

    /// Velocity of the body's centre of mass.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn linear_velocity(&self, body: usize) -> Vec2 {
        self.states[body].linear_velocity
    }

    /// Angular velocity, radians per second.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn angular_velocity(&self, body: usize) -> f32 {
        self.states[body].angular_velocity
    }

    /// Sets a dynamic body's velocity (a static body stays at rest); the next step clamps
    /// it like every speed (see [`World::max_linear_speed`]). A body index out of range or a
    /// non-finite value is an error naming it.
    pub fn set_velocity(&mut self, body: usize, linear: Vec2, angular: f32) -> Result<(), Error> {
        if body >= self.bodies.len() {
            return Err(Error::BodyIndexOutOfRange {
                body,
                body_count: self.bodies.len(),
            });
        }
        check_vec("linear_velocity", linear)?;
        check("angular_velocity", angular, angular.is_finite(), "finite")?;
        if !self.bodies[body].is_static {
            self.sleep.wake(body, &self.bodies, &mut self.states);
            self.states[body].linear_velocity = linear;
            self.states[body].angular_velocity = angular;
        }
        Ok(())
    }

    /// Whether the body is simulated: false while it sleeps (see [`World::set_sleeping`]),
    /// and always for a static body, which never moves.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_awake(&self, body: usize) -> bool {
        !self.bodies[body].is_static && !self.sleep.is_asleep(body)
    }

    /// Wakes the body and the island it sleeps with, and restarts its rest timer, so it
    /// sleeps again only after resting [`TIME_TO_SLEEP`] more. Nothing for a static body.
    ///
    /// [`TIME_TO_SLEEP`]: crate::TIME_TO_SLEEP
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`].
    pub fn wake(&mut self, body: usize) {
        if !self.bodies[body].is_static {
            self.sleep.wake(body, &self.bodies, &mut self.states);
        }
    }
}
