//! How a body moves besides its contacts: damping, gravity scale and fixed rotation, set
//! in [`BodyDef`](crate::BodyDef) and changed here. Each setter checks its value (an error
//! names it, and nothing changes) and wakes the body, whose motion is no longer the one it
//! rested under. The solver applies them once per substep (`solver/forces.rs`).

use super::World;
use super::limits::{check_damping, check_gravity_scale};
use crate::dynamics::forces::BodyForces;
use crate::error::Error;
use crate::world::handle::BodyId;

impl World {
    /// Sets the body's linear damping ([`BodyDef::linear_damping`](crate::BodyDef::linear_damping)):
    /// per substep `h` the solver scales its velocity by `1 / (1 + h * damping)`, as Box2D
    /// does, before adding that substep's forces; with no force acting, its speed decays as
    /// `(1 + h * damping)^-n` after `n` substeps, close to `exp(-damping * t)`. Finite and 0
    /// or more, else an error naming it; a stale handle is an error. It has no effect on a
    /// static or kinematic body (which no force moves).
    pub fn set_linear_damping(&mut self, body: BodyId, damping: f32) -> Result<(), Error> {
        check_damping("linear_damping", damping)?;
        self.set_forces(body, |f| f.linear_damping = damping)
    }

    /// Sets the body's angular damping, as [`World::set_linear_damping`] does the linear.
    pub fn set_angular_damping(&mut self, body: BodyId, damping: f32) -> Result<(), Error> {
        check_damping("angular_damping", damping)?;
        self.set_forces(body, |f| f.angular_damping = damping)
    }

    /// Sets the body's gravity scale ([`BodyDef::gravity_scale`](crate::BodyDef::gravity_scale)):
    /// finite and at most [`MAX_GRAVITY_SCALE`](crate::world::MAX_GRAVITY_SCALE) in magnitude, else an error naming it. No
    /// effect on a static or kinematic body.
    pub fn set_gravity_scale(&mut self, body: BodyId, scale: f32) -> Result<(), Error> {
        check_gravity_scale(scale)?;
        self.set_forces(body, |f| f.gravity_scale = scale)
    }

    /// Changes a live body's forces record with `change` (a checked value), and wakes it;
    /// a stale handle is an error naming it. The handle is checked after the value, as
    /// every setter here checks them, so either error may come first for a stale handle
    /// with a bad value.
    fn set_forces(
        &mut self,
        body: BodyId,
        change: impl FnOnce(&mut BodyForces),
    ) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        change(&mut self.bodies.forces[slot]);
        self.bodies.custom_forces = true;
        self.wake_slot(slot);
        Ok(())
    }

    /// Sets whether the body turns ([`BodyDef::fixed_rotation`](crate::BodyDef::fixed_rotation)):
    /// fixed, its spin is 0 from now on and stays 0 whatever touches or pushes it. A stale
    /// handle is an error.
    pub fn set_fixed_rotation(&mut self, body: BodyId, fixed: bool) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        self.bodies.records[slot].fixed_rotation = fixed;
        self.refresh_inertia(slot);
        if fixed {
            self.bodies.states[slot].angular_velocity = 0.0;
        }
        self.wake_slot(slot);
        Ok(())
    }

    /// The solver's inverse inertia of the body in `slot` from its record: its own, or 0
    /// when its rotation is fixed (0 for a static or kinematic body already).
    pub(super) fn refresh_inertia(&mut self, slot: usize) {
        let body = &self.bodies.records[slot];
        self.bodies.materials[slot].inv_inertia = if body.fixed_rotation {
            0.0
        } else {
            body.inv_inertia
        };
    }

    /// The body's linear damping. Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn linear_damping(&self, body: BodyId) -> f32 {
        self.bodies.forces[self.live(body)].linear_damping
    }

    /// The body's angular damping. Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn angular_damping(&self, body: BodyId) -> f32 {
        self.bodies.forces[self.live(body)].angular_damping
    }

    /// The body's gravity scale. Panics on a removed or foreign handle, naming it.
    #[track_caller]
    pub fn gravity_scale(&self, body: BodyId) -> f32 {
        self.bodies.forces[self.live(body)].gravity_scale
    }

    /// Whether the body's rotation is fixed. Panics on a removed or foreign handle, naming
    /// it.
    #[track_caller]
    pub fn fixed_rotation(&self, body: BodyId) -> bool {
        self.bodies.records[self.live(body)].fixed_rotation
    }
}
