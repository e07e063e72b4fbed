//! One body read and set through the world, named by its [`BodyId`]: its pose, pieces,
//! colliders, mass, material, velocity and sleep.
//!
//! Every call that can fail returns an error naming a stale or foreign handle. The plain
//! readers (`transform`, `center_of_mass`, ...) return the value itself and panic on such a
//! handle, with the error's message naming it, as indexing a slice out of bounds does
//! (rapier's `bodies[handle]`): a removed body has no pose to read, and a NaN or a default
//! in its place would travel on silently. [`World::body`] is their checked twin, and
//! [`World::contains`] says beforehand whether a handle is live.

use glam::Vec2;

use super::World;
use super::body_ref::BodyRef;
use super::limits::check_velocity;
use crate::dynamics::body::BodyColliders;
use crate::error::Error;
use crate::error::WorldError;
use crate::shapes::aabb::Aabb;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;
use crate::world::handle::{BodyId, ColliderId};

impl World {
    /// The slot of a live body of this world, or an error naming the handle.
    pub(super) fn body_slot(&self, body: BodyId) -> Result<usize, Error> {
        let fail = |reason| Err(Error::World(WorldError::StaleBody { body, reason }));
        if body.world() != self.number {
            return fail(crate::world::handle::StaleReason::OtherWorld);
        }
        match self
            .bodies
            .slots
            .check(body.index() as u32, body.generation())
        {
            Ok(()) => Ok(body.index()),
            Err(reason) => fail(reason),
        }
    }

    /// The slot of a live collider of this world, or an error naming the handle.
    pub(super) fn collider_slot(&self, collider: ColliderId) -> Result<usize, Error> {
        let fail = |reason| Err(Error::World(WorldError::StaleCollider { collider, reason }));
        if collider.world() != self.number {
            return fail(crate::world::handle::StaleReason::OtherWorld);
        }
        let slot = collider.index() as u32;
        match self.colliders.slots.check(slot, collider.generation()) {
            Ok(()) => Ok(collider.index()),
            Err(reason) => fail(reason),
        }
    }

    /// The slot of a live body, for the plain readers: a stale or foreign handle panics
    /// with the message of the error that names it (see the module notes).
    #[track_caller]
    pub(super) fn live(&self, body: BodyId) -> usize {
        match self.body_slot(body) {
            Ok(slot) => slot,
            Err(e) => panic!("{e}"),
        }
    }

    /// Number of bodies (live ones: removed bodies no longer count).
    pub fn body_count(&self) -> usize {
        self.bodies.slots.live_count()
    }

    /// The live bodies, in slot order (a body added after a removal may take the removed
    /// one's slot, so this is not the order they were added in). Stable between changes:
    /// stepping does not reorder it.
    pub fn bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        (0..self.bodies.slots.len())
            .filter(|&slot| self.bodies.slots.is_live(slot))
            .map(|slot| self.names.body_ids[slot])
    }

    /// Whether `body` names a live body of this world.
    pub fn contains(&self, body: BodyId) -> bool {
        self.body_slot(body).is_ok()
    }

    /// The body `body`, checked once: its accessors then cannot fail. An error names a
    /// removed or foreign handle.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, error::WorldError, BodyDef, Error, Polygon, World};
    /// let mut world = World::default();
    /// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::Y))?;
    /// assert_eq!(world.body(crate_)?.transform().translation(), Vec2::Y);
    /// world.remove_body(crate_)?;
    /// assert!(matches!(world.body(crate_), Err(Error::World(WorldError::StaleBody { .. }))));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn body(&self, body: BodyId) -> Result<BodyRef<'_>, Error> {
        let slot = self.body_slot(body)?;
        Ok(BodyRef::new(self, body, slot))
    }

    /// The pose of the body's local frame (the frame its shape was given in).
    ///
    /// # Panics
    /// On a removed or foreign handle, with a message naming it (see the module notes).
    #[track_caller]
    pub fn transform(&self, body: BodyId) -> Transform {
        self.bodies.transform(self.live(body))
    }

    /// The body's convex pieces, in its local frame, in the order of the
    /// [`BodyShape::pieces`](crate::BodyShape::pieces) it was made from (as the shape table
    /// holds them). Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn body_pieces(&self, body: BodyId) -> impl ExactSizeIterator<Item = &Shape> + '_ {
        self.collider_slots_of(body)
            .map(|c| &self.shapes.list[self.colliders.records[c].shape as usize])
    }

    /// The body's colliders, one per piece, in the order of
    /// [`BodyShape::pieces`](crate::BodyShape::pieces). Panics on a removed or foreign
    /// handle, naming it.
    #[track_caller]
    pub fn body_colliders(&self, body: BodyId) -> impl ExactSizeIterator<Item = ColliderId> + '_ {
        self.collider_slots_of(body)
            .map(|c| self.names.collider_ids[c])
    }

    /// The collider slots of a live body; panics on a stale handle, naming it.
    #[track_caller]
    pub(super) fn collider_slots_of(
        &self,
        body: BodyId,
    ) -> impl ExactSizeIterator<Item = usize> + '_ {
        let record = &self.bodies.records[self.live(body)];
        BodyColliders::new(
            &self.colliders.next,
            record.first_collider,
            record.collider_count,
        )
    }

    /// The body a collider belongs to; an error names a stale or foreign handle.
    pub fn collider_body(&self, collider: ColliderId) -> Result<BodyId, Error> {
        let slot = self.collider_slot(collider)?;
        Ok(self.names.body_ids[self.names.collider_bodies[slot] as usize])
    }

    /// The live collider in slot `slot` of [`World::colliders`] (and of the narrow phase's
    /// collider indices, as in [`World::collider_contacts`]), or `None` for a vacant slot or
    /// one past the end.
    pub fn collider_id(&self, slot: usize) -> Option<ColliderId> {
        self.colliders
            .slots
            .is_live(slot)
            .then(|| self.names.collider_ids[slot])
    }

    /// The body's bounding box as of the end of the last step (all its pieces). Panics on a
    /// removed or foreign handle, naming it.
    #[track_caller]
    pub fn body_aabb(&self, body: BodyId) -> Aabb {
        self.collider_slots_of(body)
            .map(|c| self.colliders.aabbs[c])
            .reduce(|a, b| a.union(&b))
            .unwrap_or(Aabb::EMPTY)
    }

    /// Whether the body is static. Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn is_static(&self, body: BodyId) -> bool {
        self.bodies.records[self.live(body)].is_static
    }

    /// Whether the body is kinematic (see [`BodyDef::body_type`](crate::BodyDef::body_type)).
    /// Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn is_kinematic(&self, body: BodyId) -> bool {
        self.bodies.records[self.live(body)].is_kinematic
    }

    /// Whether the body is a bullet (see [`BodyDef::is_bullet`](crate::BodyDef::is_bullet)).
    /// Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn is_bullet(&self, body: BodyId) -> bool {
        self.bodies.records[self.live(body)].is_bullet
    }

    /// The body's [`BodyDef::user_data`](crate::BodyDef::user_data): always `Some` (the
    /// `Option` is kept for callers written when a stale handle read as `None`). Panics on
    /// a removed or foreign handle, naming it.
    #[track_caller]
    pub fn user_data(&self, body: BodyId) -> Option<u64> {
        Some(self.names.user_data[self.live(body)])
    }

    /// World position of the body's centre of mass. Panics on a removed or foreign handle,
    /// naming it.
    #[track_caller]
    pub fn center_of_mass(&self, body: BodyId) -> Vec2 {
        self.bodies.centers[self.live(body)]
    }

    /// The body's mass (density times area, summed over its pieces, each of its own
    /// density: see [`World::material`]); infinite for a static or kinematic body. Panics
    /// on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn mass(&self, body: BodyId) -> f32 {
        1.0 / self.bodies.records[self.live(body)].inv_mass
    }

    /// The body's rotational inertia about its centre of mass; infinite for a static or
    /// kinematic body. Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn rotational_inertia(&self, body: BodyId) -> f32 {
        1.0 / self.bodies.records[self.live(body)].inv_inertia
    }

    /// The friction coefficient of the body's first piece: the body's own
    /// ([`BodyDef::friction`](crate::BodyDef::friction)) unless that piece was given its
    /// own material. Each piece's is [`World::material`]'s. Panics on a removed or foreign
    /// handle, naming it.
    #[track_caller]
    pub fn friction(&self, body: BodyId) -> f32 {
        self.collider_slots_of(body)
            .next()
            .map_or(f32::NAN, |c| self.colliders.surfaces[c].friction)
    }

    /// The restitution of the body's first piece, as [`World::friction`]. Panics on a
    /// removed or foreign handle, naming it.
    #[track_caller]
    pub fn restitution(&self, body: BodyId) -> f32 {
        self.collider_slots_of(body)
            .next()
            .map_or(f32::NAN, |c| self.colliders.surfaces[c].restitution)
    }

    /// Velocity of the body's centre of mass. Panics on a removed or foreign handle, naming
    /// it.
    #[track_caller]
    pub fn linear_velocity(&self, body: BodyId) -> Vec2 {
        self.bodies.states[self.live(body)].linear_velocity
    }

    /// Angular velocity, radians per second. Panics on a removed or foreign handle, naming
    /// it.
    #[track_caller]
    pub fn angular_velocity(&self, body: BodyId) -> f32 {
        self.bodies.states[self.live(body)].angular_velocity
    }

    /// Sets a dynamic or kinematic body's velocity (a static body stays at rest) and wakes
    /// it; the next step clamps it like every speed (see [`World::max_linear_speed`]). A
    /// kinematic body keeps it until it is set again. A body of fixed rotation keeps its
    /// spin 0 (`angular` is ignored). A stale handle, or a velocity outside the ranges
    /// [`World::add_body`] takes (at most
    /// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) long, a spin of at
    /// most [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED)), is an error naming it,
    /// and nothing changes.
    pub fn set_velocity(&mut self, body: BodyId, linear: Vec2, angular: f32) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_velocity(linear, angular)?;
        if !self.bodies.records[slot].is_static {
            self.sleep.wake(slot, &mut self.bodies);
            self.bodies.states[slot].linear_velocity = linear;
            self.bodies.states[slot].angular_velocity = if self.bodies.records[slot].fixed_rotation
            {
                0.0
            } else {
                angular
            };
        }
        Ok(())
    }

    /// Whether the body is simulated: false while it sleeps (see [`World::set_sleeping`]),
    /// always for a static body, which never moves. Panics on a removed or foreign handle,
    /// naming it. A kinematic
    /// body is always moved by its velocity; it counts as asleep once it has been at rest
    /// (velocity zero) for [`TIME_TO_SLEEP`], when it no longer keeps what it touches awake.
    ///
    /// [`TIME_TO_SLEEP`]: crate::world::TIME_TO_SLEEP
    #[track_caller]
    pub fn is_awake(&self, body: BodyId) -> bool {
        let slot = self.live(body);
        self.sleep.is_awake(slot, &self.bodies.records[slot])
    }

    /// Wakes the body and the island it sleeps with, and restarts its rest timer, so it
    /// sleeps again only after resting [`TIME_TO_SLEEP`] more. Nothing for a static body; an
    /// error names a stale handle.
    ///
    /// [`TIME_TO_SLEEP`]: crate::world::TIME_TO_SLEEP
    pub fn wake(&mut self, body: BodyId) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        self.wake_slot(slot);
        Ok(())
    }

    /// Wakes the body in `slot` (nothing for a static or vacant one).
    pub(super) fn wake_slot(&mut self, slot: usize) {
        if !self.bodies.records[slot].is_static {
            self.sleep.wake(slot, &mut self.bodies);
        }
    }
}
