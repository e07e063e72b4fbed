//! The wheel joint: B's anchor slides along an axis fixed in A (the suspension) and B turns
//! freely; the translation is sprung and limited, the relative spin driven.
//!
//! ```text
//! perp . d = 0                                     rigid: the anchor stays on the axis
//! spring:  translation -> 0 (the suspension's hertz)
//! limits:  lower <= translation <= upper, each one-sided
//! motor:   relative spin -> speed, accumulated within max torque * h
//! order per pass: motor, spring, limits, then the normal
//! ```

use glam::Vec2;

use super::impulse_bound::accumulate;
use super::parts::{Ends, Prepared, angular_motor, rigid, spring_softness};
use super::slide::{slide, slide_limits, slide_spring};
use super::{JointConstraint, JointModel, JointStep, Spring};
use crate::shapes::transform::rotate;

/// The wheel joint's per-step data: the axis in the world frame at the step's start and
/// the suspension's coefficients over the substep `h`. (No angle: B turns freely.)
#[inline]
pub(super) fn prepare(
    p: &mut Prepared,
    rotation_a: Vec2,
    local_axis: Vec2,
    spring: Option<Spring>,
    h: f32,
) {
    p.axis = rotate(rotation_a, local_axis);
    if let Some(s) = spring {
        p.spring = spring_softness(s, h);
    }
}

/// The wheel joint's warm start: the axial parts (spring, limits) along the axis, the
/// normal impulse along its normal, and the motor's as the angular one.
#[inline]
pub(super) fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    let s = slide(ends, p, r);
    let axial = joint.spring_impulse + joint.lower_impulse - joint.upper_impulse;
    let (axial, angular) = (axial, joint.motor_impulse);
    s.apply(ends, p, axial, joint.linear_impulse.x, angular);
}

/// One solve (`use_bias`) or relax pass of a wheel joint.
#[inline]
pub(super) fn solve(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    use_bias: bool,
) {
    let JointModel::Wheel {
        limits,
        motor,
        spring,
        ..
    } = joint.model
    else {
        return;
    };
    let p = joint.prepared;
    let r = ends.anchors(&p);
    if let Some(motor) = motor {
        angular_motor(joint, ends, step, motor);
    }
    if spring.is_some() {
        slide_spring(joint, ends, r);
    }
    if let Some(limits) = limits {
        slide_limits(joint, ends, step, r, limits, use_bias);
    }
    let s = slide(ends, &p, r);
    let cdot = s.perp.dot(ends.b.linear_velocity - ends.a.linear_velocity)
        + s.s2 * ends.b.angular_velocity
        - s.s1 * ends.a.angular_velocity;
    let mass = p.mass_along(s.s1, s.s2);
    let (bias, mass_scale, impulse_scale) = rigid(step, s.perp.dot(s.d), use_bias);
    let impulse = -mass_scale * mass * (cdot + bias) - impulse_scale * joint.linear_impulse.x;
    let applied = accumulate(&mut joint.linear_impulse.x, impulse);
    s.apply(ends, &p, 0.0, applied, 0.0);
}
