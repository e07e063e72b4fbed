//! The revolute joint: a pin. B's anchor is held on A's, and B turns about it relative to
//! A, freely or within limits, driven by a motor, or pulled back by an angular spring.
//!
//! ```text
//! C_point = (c_b + r_b) - (c_a + r_a) = 0          (2 rows; K 2x2, solve_point)
//! angle   = (q_b - q_a) - reference_angle          B's angle relative to A, ccw positive
//! spring:  impulse on the relative spin towards angle 0 (its own hertz)
//! motor:   relative spin -> speed, accumulated within max torque * h
//! limits:  lower <= angle <= upper, each one-sided
//! order per pass: spring, motor, limits, then the point (the part that must hold wins)
//! ```
//!
//! Only the limits and the spring read the angle, so a plain pin or a motor skips the
//! arctangent (4.5 % of joint_grid's step on two threads).

use glam::Vec2;

use super::impulse_bound::{accumulate, clamp_positive};
use super::parts::{
    Ends, Prepared, angular_motor, one_sided, scales, solve_point, spring_softness,
};
use super::{JointConstraint, JointModel, JointStep, Spring, relative_angle, unwind};

/// The revolute joint's per-step data: the angle since it was added, where the limits or
/// the spring read it, and the spring's coefficients over the substep `h`.
#[inline]
pub(super) fn prepare(
    p: &mut Prepared,
    [rotation_a, rotation_b]: [Vec2; 2],
    reference_angle: f32,
    limits: Option<[f32; 2]>,
    spring: Option<Spring>,
    h: f32,
) {
    if limits.is_some() || spring.is_some() {
        let angle = relative_angle(rotation_a, rotation_b) - reference_angle;
        p.delta_angle = unwind(angle);
    }
    if let Some(s) = spring {
        p.spring = spring_softness(s, h);
    }
}

/// One solve (`use_bias`) or relax pass of a revolute joint.
#[inline]
pub(super) fn solve(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    use_bias: bool,
) {
    let JointModel::Revolute {
        limits,
        motor,
        spring,
        ..
    } = joint.model
    else {
        return;
    };
    let p = joint.prepared;
    // The angle moves only when positions are integrated, not within a solve: the
    // spring and the limits share one reading of it.
    let angle = if spring.is_some() || limits.is_some() {
        ends.angle(&p)
    } else {
        0.0
    };
    if spring.is_some() {
        let c = angle;
        let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
        let s = p.spring;
        let impulse = -s.mass_scale * p.angular_mass * (cdot + s.bias_rate * c)
            - s.impulse_scale * joint.spring_impulse;
        let applied = accumulate(&mut joint.spring_impulse, impulse);
        ends.apply_angular(&p, applied);
    }
    if let Some(motor) = motor {
        angular_motor(joint, ends, step, motor);
    }
    if let Some([lower, upper]) = limits {
        let (bias, mass_scale, impulse_scale) = one_sided(step, angle - lower, use_bias);
        let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
        let impulse =
            -mass_scale * p.angular_mass * (cdot + bias) - impulse_scale * joint.lower_impulse;
        let applied = clamp_positive(&mut joint.lower_impulse, impulse);
        ends.apply_angular(&p, applied);

        let (bias, mass_scale, impulse_scale) = one_sided(step, upper - angle, use_bias);
        let cdot = ends.a.angular_velocity - ends.b.angular_velocity;
        let impulse =
            -mass_scale * p.angular_mass * (cdot + bias) - impulse_scale * joint.upper_impulse;
        let applied = clamp_positive(&mut joint.upper_impulse, impulse);
        ends.apply_angular(&p, -applied);
    }
    let r = ends.anchors(&p);
    let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
    let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
    solve_point(joint, ends, r, rhs, [mass_scale, impulse_scale]);
}
