//! Forces and impulses a game applies to a body.
//!
//! ```text
//! apply_force(body, f, p):  force += f, torque += (p - centre of mass) x f
//!                           (both held until the next step, which integrates them into
//!                           the velocity every substep and then clears them, as Box2D does)
//! apply_linear_impulse(body, j, p):  v += j / m, w += (p - centre of mass) x j / I  (at once)
//! ```
//!
//! Points and vectors are in the world frame. Every call checks its values (a stale
//! handle, or a value that is not finite, is an error naming it, and nothing changes) and
//! wakes the body. A static or kinematic body is not moved by forces, as in Box2D: a force
//! or an impulse on one is accepted (once checked) and does nothing, so that a game can
//! push whatever is under the cursor without asking what it is.
//!
//! Limits (the table of `limits.rs`): the accumulated force may give the body at most
//! [`MAX_ACCELERATION`] (force over mass, each component; and likewise torque over rotational
//! inertia), beyond which f32 would overflow in the solver; an impulse must leave a velocity
//! the body may be given (at most [`MAX_LINEAR_SPEED_LIMIT`] long, a spin of at most
//! [`MAX_ANGULAR_SPEED`]), which the snapshot reader reads back. The step then clamps the
//! speed as it clamps every speed.
//!
//! [`MAX_ACCELERATION`]: crate::world::MAX_ACCELERATION
//! [`MAX_LINEAR_SPEED_LIMIT`]: crate::world::MAX_LINEAR_SPEED_LIMIT
//! [`MAX_ANGULAR_SPEED`]: crate::world::MAX_ANGULAR_SPEED

use glam::Vec2;

use super::World;
use super::limits::{
    MAX_ACCELERATION, angular_speed_ok, check, check_vec, linear_speed_ok, worst_component,
};
use crate::error::Error;
use crate::world::handle::BodyId;

const FORCE_RULE: &str = "finite, and give at most MAX_ACCELERATION (1e12) per second \
                          squared: force / mass";
const TORQUE_RULE: &str = "finite, and give at most MAX_ACCELERATION (1e12) radians per \
                           second squared: torque / rotational inertia";

const IMPULSE_RULE: &str = "small enough to leave the velocity finite and at most \
                            MAX_LINEAR_SPEED_LIMIT (1e6) long: impulse / mass";
const ANGULAR_IMPULSE_RULE: &str = "small enough to leave the spin at most \
                                    MAX_ANGULAR_SPEED (1e8): impulse / rotational inertia";

impl World {
    /// Applies `force` at the world point `point` until the next step: the force acts on
    /// the centre of mass, and `(point - centre of mass) x force` turns the body. Wakes the
    /// body. Forces add up until the step, which clears them: apply a steady force before
    /// every step. Nothing happens to a static or kinematic body. A stale handle, a
    /// non-finite force or point, or a force past [`MAX_ACCELERATION`] is an error naming it.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut world = World::new(Vec2::new(0.0, -10.0));
    /// let balloon = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))?;
    /// let lift = -world.mass(balloon) * world.gravity();
    /// let mut narrow = CpuNarrowPhase::new();
    /// for _ in 0..60 {
    ///     let center = world.center_of_mass(balloon);
    ///     world.apply_force(balloon, lift, center)?;
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// assert!(world.linear_velocity(balloon).length() < 1e-4);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn apply_force(&mut self, body: BodyId, force: Vec2, point: Vec2) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_vec("force", force)?;
        check_vec("point", point)?;
        let torque = (point - self.bodies.centers[slot]).perp_dot(force);
        self.add_force(slot, force, torque)
    }

    /// Applies `force` at the centre of mass until the next step (no torque); see
    /// [`World::apply_force`].
    pub fn apply_force_to_center(&mut self, body: BodyId, force: Vec2) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_vec("force", force)?;
        self.add_force(slot, force, 0.0)
    }

    /// Applies `torque` (counter-clockwise) until the next step; see [`World::apply_force`].
    pub fn apply_torque(&mut self, body: BodyId, torque: f32) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check("torque", torque, torque.is_finite(), "finite")?;
        self.add_force(slot, Vec2::ZERO, torque)
    }

    /// Applies `impulse` at the world point `point` at once: the velocity changes by
    /// `impulse / mass`, the spin by `(point - centre of mass) x impulse / inertia` (none
    /// for a body of fixed rotation). Wakes the body. Nothing happens to a static or
    /// kinematic body. A stale handle, a non-finite impulse or point, or an impulse that
    /// would leave the velocity longer than
    /// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) or the spin faster
    /// than [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED) is an error naming it, and
    /// nothing changes.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World};
    /// let mut world = World::new(Vec2::ZERO);
    /// let puck = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))?;
    /// world.apply_linear_impulse(puck, Vec2::new(2.0, 0.0), world.center_of_mass(puck))?;
    /// // A unit square of density 1 has mass 1.
    /// assert_eq!(world.linear_velocity(puck), Vec2::new(2.0, 0.0));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn apply_linear_impulse(
        &mut self,
        body: BodyId,
        impulse: Vec2,
        point: Vec2,
    ) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_vec("impulse", impulse)?;
        check_vec("point", point)?;
        let angular = (point - self.bodies.centers[slot]).perp_dot(impulse);
        self.add_impulse(slot, impulse, angular)
    }

    /// Applies `impulse` at the centre of mass at once (no spin); see
    /// [`World::apply_linear_impulse`].
    pub fn apply_linear_impulse_to_center(
        &mut self,
        body: BodyId,
        impulse: Vec2,
    ) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_vec("impulse", impulse)?;
        self.add_impulse(slot, impulse, 0.0)
    }

    /// Applies an angular impulse (counter-clockwise) at once: the spin changes by
    /// `impulse / inertia`; see [`World::apply_linear_impulse`].
    pub fn apply_angular_impulse(&mut self, body: BodyId, impulse: f32) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check("angular_impulse", impulse, impulse.is_finite(), "finite")?;
        self.add_impulse(slot, Vec2::ZERO, impulse)
    }

    /// Adds a checked force and torque to the body in `slot`, within the limits.
    fn add_force(&mut self, slot: usize, force: Vec2, torque: f32) -> Result<(), Error> {
        let body = &self.bodies.records[slot];
        if !body.is_dynamic() {
            return Ok(());
        }
        let held = &self.bodies.forces[slot];
        let (force, torque) = (held.force + force, held.torque + torque);
        for value in [force.x, force.y] {
            let ok = (value * body.inv_mass).abs() <= MAX_ACCELERATION;
            check("force", value, ok, FORCE_RULE)?;
        }
        let ok = (torque * body.inv_inertia).abs() <= MAX_ACCELERATION;
        check("torque", torque, ok, TORQUE_RULE)?;
        let held = &mut self.bodies.forces[slot];
        (held.force, held.torque) = (force, torque);
        self.bodies.custom_forces = true;
        self.wake_slot(slot);
        Ok(())
    }

    /// Adds a checked linear impulse and angular impulse to the body in `slot`'s velocity.
    fn add_impulse(&mut self, slot: usize, impulse: Vec2, angular: f32) -> Result<(), Error> {
        let body = &self.bodies.records[slot];
        if !body.is_dynamic() {
            return Ok(());
        }
        let state = &self.bodies.states[slot];
        let v = state.linear_velocity + body.inv_mass * impulse;
        // The solver's inverse inertia: 0 for a fixed rotation.
        let w = state.angular_velocity + self.bodies.materials[slot].inv_inertia * angular;
        // The velocity it leaves must be one the body may be given (`set_velocity`'s range).
        let rule = IMPULSE_RULE;
        check(
            "impulse",
            worst_component(impulse),
            linear_speed_ok(v),
            rule,
        )?;
        let rule = ANGULAR_IMPULSE_RULE;
        check("angular_impulse", angular, angular_speed_ok(w), rule)?;
        self.wake_slot(slot);
        let state = &mut self.bodies.states[slot];
        (state.linear_velocity, state.angular_velocity) = (v, w);
        Ok(())
    }

    /// Clears the forces and torques the step has applied, and finds whether any body's
    /// forces still differ from the defaults (its gravity scale or damping).
    pub(super) fn clear_forces(&mut self) {
        let mut custom = false;
        for held in &mut self.bodies.forces {
            (held.force, held.torque) = (Vec2::ZERO, 0.0);
            custom |= !held.is_plain();
        }
        self.bodies.custom_forces = custom;
    }
}
