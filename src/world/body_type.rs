//! A body's type ([`BodyType`]: static, kinematic or dynamic), read and changed.
//!
//! ```text
//! set_body_type(body, type):
//!     wake the body (a sleeping island wakes whole) and the bodies its contacts touch
//!     mass: dynamic -> from its shape and density (checked against MASS_RANGE; a piece's
//!         density a dynamic body may not have becomes 1), else none
//!     static: velocity 0, its colliders join the obstacles of the continuous stage
//!     every collider's pairs are tested again at the next step: pairs no longer allowed
//!         (two bodies neither dynamic) leave with end events, newly allowed ones join
//! ```

use glam::Vec2;

use super::World;
use super::limits::{check_mass, density_ok};
use crate::error::Error;
use crate::world::handle::BodyId;

// Defined beside the collision filter, whose rule it takes part in (which bodies' colliders
// may pair at all): the broad phase's persistent pairs ask it too.
pub use crate::broad_phase::filter::BodyType;

impl World {
    /// The body's type: always `Some` (the `Option` is kept for callers written when a
    /// stale handle read as `None`). Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn body_type(&self, body: BodyId) -> Option<BodyType> {
        Some(self.bodies.records[self.live(body)].body_type())
    }

    /// Changes the body's type. Made dynamic, it takes its mass from its pieces and their
    /// densities ([`World::material`]; a density that was not finite and positive, which
    /// only a static or kinematic body's piece may have, becomes 1);
    /// made static, it stops (velocity 0); made kinematic, it keeps its velocity and moves
    /// by it. A bullet that stops being dynamic is a bullet no more. Its pairs that the new
    /// type no longer allows (see [`BodyDef::body_type`](crate::BodyDef::body_type))
    /// leave at the next step, with end events for those that touched, and newly allowed
    /// ones join. The body wakes, and so do the bodies it touched (they may lose their
    /// support). A stale handle, or a dynamic body whose mass would fall outside
    /// [`MASS_RANGE`](crate::world::MASS_RANGE), is an error naming it, and nothing changes.
    pub fn set_body_type(&mut self, body: BodyId, body_type: BodyType) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        if self.body_type(body) == Some(body_type) {
            return Ok(());
        }
        let dynamic_mass = match body_type {
            BodyType::Dynamic => {
                let (mass, max_extent) = self.body_mass(slot);
                check_mass(&mass)?;
                Some((mass, max_extent))
            }
            BodyType::Static | BodyType::Kinematic => None,
        };
        let (inv_mass, inv_inertia) = dynamic_mass.as_ref().map_or((0.0, 0.0), |(mass, _)| {
            (1.0 / mass.mass, 1.0 / mass.inertia)
        });
        // Awake first: sleeping's counts and labels are of the old type.
        self.wake_touching(slot);
        let was_dynamic = self.bodies.records[slot].is_dynamic();
        let was_static = self.bodies.records[slot].is_static;
        let record = &mut self.bodies.records[slot];
        record.is_static = body_type == BodyType::Static;
        record.is_kinematic = body_type == BodyType::Kinematic;
        record.is_bullet &= body_type == BodyType::Dynamic;
        (record.inv_mass, record.inv_inertia) = (inv_mass, inv_inertia);
        let dynamic = record.is_dynamic();
        self.sleep.remove_body(slot, was_dynamic);
        self.sleep.add_body(slot, dynamic);
        self.refresh_inertia(slot);
        let state = &mut self.bodies.states[slot];
        state.inv_mass = inv_mass;
        if body_type == BodyType::Static {
            (state.linear_velocity, state.angular_velocity) = (Vec2::ZERO, 0.0);
        }
        if let Some((mass, max_extent)) = dynamic_mass {
            // A static or kinematic body's pieces may hold any density (it is never used);
            // a dynamic body's weigh with 1 in its place, and now hold 1, so that the world
            // holds only what a dynamic body may (the snapshot reader checks it).
            let colliders: Vec<usize> = self.bodies.records[slot]
                .colliders(&self.colliders.next)
                .collect();
            for c in colliders {
                if !density_ok(self.colliders.densities[c]) {
                    self.colliders.densities[c] = 1.0;
                }
            }
            // Its pieces' densities may have changed since its centre was placed.
            self.set_mass(slot, &mass, max_extent);
        }
        if !dynamic {
            // Held forces would act if it became dynamic again before the next step.
            let forces = &mut self.bodies.forces[slot];
            (forces.force, forces.torque) = (Vec2::ZERO, 0.0);
        }
        if was_static || body_type == BodyType::Static {
            self.colliders.static_revision += 1;
        }
        if was_static {
            let owner = &self.names.collider_bodies;
            self.colliders
                .statics
                .retain(|&c| owner[c as usize] as usize != slot);
        }
        let colliders: Vec<usize> = self.bodies.records[slot]
            .colliders(&self.colliders.next)
            .collect();
        for c in colliders {
            if body_type == BodyType::Static && !self.colliders.sensors[c] {
                self.colliders.statics.push(c as u32);
            }
            self.contacts.pairs.invalidate(c);
        }
        Ok(())
    }
}
