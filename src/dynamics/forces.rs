//! What moves a body besides its contacts and the world's gravity: its gravity scale, the
//! force and torque applied to it since the last step, and its damping. Integrated into
//! the velocity once per substep `h`, as Box2D v3 integrates them:
//!
//! ```text
//! v = h * (inv_mass * force + gravity_scale * gravity) + v / (1 + h * linear_damping)
//! w = h * inv_inertia * torque                         + w / (1 + h * angular_damping)
//! ```
//!
//! The damping is the implicit (backward Euler) solution of `dv/dt = -damping * v`: stable
//! for any damping, and it never reverses a velocity. A world whose bodies all have the
//! defaults (no force, no damping, gravity scale 1) skips this and adds gravity alone.

use glam::Vec2;

use crate::dynamics::state::{BodyMaterial, BodyState};

/// Per body: the force and torque applied since the last step (cleared after it), and
/// the body's gravity scale and damping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyForces {
    /// World frame, through the centre of mass (a force at another point adds its torque).
    pub force: Vec2,
    /// Counter-clockwise.
    pub torque: f32,
    /// Multiplies the world's gravity for this body.
    pub gravity_scale: f32,
    /// Per second; 0 or more.
    pub linear_damping: f32,
    pub angular_damping: f32,
}

impl Default for BodyForces {
    fn default() -> Self {
        BodyForces {
            force: Vec2::ZERO,
            torque: 0.0,
            gravity_scale: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
        }
    }
}

impl BodyForces {
    /// Whether the body moves under gravity alone, as the plain integration assumes.
    pub fn is_plain(&self) -> bool {
        *self == BodyForces::default()
    }
}

/// One substep's velocity change of a moving body (`state`, of `material`) under `forces`
/// and `gravity` (the formula in the module header).
#[inline]
pub(crate) fn integrate_forces(
    state: &mut BodyState,
    material: &BodyMaterial,
    forces: &BodyForces,
    gravity: Vec2,
    h: f32,
) {
    let dv = h * (state.inv_mass * forces.force + forces.gravity_scale * gravity);
    let dw = h * material.inv_inertia * forces.torque;
    let linear = 1.0 / (1.0 + h * forces.linear_damping);
    let angular = 1.0 / (1.0 + h * forces.angular_damping);
    state.linear_velocity = dv + state.linear_velocity * linear;
    state.angular_velocity = dw + state.angular_velocity * angular;
}
