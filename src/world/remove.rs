//! Removing a body.
//!
//! ```text
//! remove_body(id):
//!     check id (stale or foreign: an error naming it, nothing changes)
//!     its joints are removed (their other bodies wake)
//!     the body leaves sleeping's counts
//!     per collider: the pair set drops it at the next update (PairSet::remove), its box is
//!         empty (no broad phase, query tree or continuous sweep sees it), it is no obstacle
//!     the slot becomes vacant (a static body without colliders) and the handles stale
//! next step: the pair set drops the collider's pairs; those that touched end with
//!     contact-end and sensor-end events naming the removed body's handle, and the other
//!     body of each wakes with its island (it may have rested on the removed one); then
//!     the slots are free for new bodies (not before: a pair's data or an event must never
//!     meet a new body in an old one's slot)
//! ```
//!
//! The work is the body's own: its colliders now, and at the next step its pairs (the pair
//! set queries its tree once per removed collider instead of sweeping the world) and one
//! pass over the sleep labels when something is to wake. A removed static body's
//! colliders also leave the list of obstacles, a scan of the static colliders.

use glam::Vec2;

use super::World;
use crate::dynamics::body::Body;
use crate::dynamics::forces::BodyForces;
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::world::handle::BodyId;

impl World {
    /// Removes a body and its colliders. Its contacts end in the next step's events
    /// ([`Events::contact_end`](crate::Events::contact_end), and
    /// [`Events::sensor_end`](crate::Events::sensor_end) for a sensor or a body inside one),
    /// which name it by the handle it had; the bodies it touched wake then. From now on `body` is
    /// stale: every call refuses it with an error naming it, even once a new body takes its
    /// slot. A stale or foreign handle is an error naming it, and changes nothing.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, error::WorldError, BodyDef, CpuNarrowPhase, Error, Polygon, World};
    /// let mut world = World::default();
    /// world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
    /// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 1.0)))?;
    /// let mut narrow = CpuNarrowPhase::new();
    /// for _ in 0..30 {
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// world.remove_body(crate_)?;
    /// world.step(1.0 / 60.0, &mut narrow)?;
    /// assert!(world.events().contact_end.iter().any(|e| e.bodies.contains(&crate_)));
    /// assert!(matches!(world.remove_body(crate_), Err(Error::World(WorldError::StaleBody { .. }))));
    /// assert_eq!(world.body_count(), 1);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn remove_body(&mut self, body: BodyId) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        self.remove_body_joints(slot);
        let record = self.bodies.records[slot].clone();
        self.sleep.remove_body(slot, record.is_dynamic());
        let mut next = record.first_collider;
        for _ in 0..record.collider_count {
            // The list is walked by hand: each collider's work needs the world mutably.
            let c = next as usize;
            next = self.colliders.next[c];
            self.shapes.release(self.colliders.records[c].shape);
            self.contacts.pairs.remove(c);
            self.colliders.aabbs[c] = Aabb::EMPTY;
            self.colliders.slots.remove(c as u32);
        }
        if record.is_static {
            self.colliders.static_revision += 1;
            // The removed colliders still name their body's slot (their ends are to come).
            let owner = &self.names.collider_bodies;
            self.colliders
                .statics
                .retain(|&c| owner[c as usize] as usize != slot);
        }
        self.bodies.records[slot] = Body::vacant();
        self.bodies.forces[slot] = BodyForces::default();
        let state = &mut self.bodies.states[slot];
        state.linear_velocity = Vec2::ZERO;
        state.angular_velocity = 0.0;
        state.inv_mass = 0.0;
        self.bodies.slots.remove(slot as u32);
        self.revision += 1;
        Ok(())
    }

    /// Frees the slots of the bodies removed before this step's pair update, which has
    /// dropped their pairs and recorded their ends.
    pub(super) fn release_removed(&mut self) {
        self.bodies.slots.release_removed();
        self.colliders.slots.release_removed();
    }
}
