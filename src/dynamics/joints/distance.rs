//! The distance joint: the anchors' distance held at a length (rigid), or free within
//! limits (a rope: min 0), or pulled towards the length by a spring and held within the
//! limits.
//!
//! ```text
//! d = separation of the anchors now, current = |d|, axis = d / |d|
//! rigid:   current - length = 0 (one axial row), and nothing else
//! spring:  current -> length (its own hertz)
//! limits:  min <= current <= max, each one-sided
//! ```

use super::impulse_bound::{accumulate, clamp_positive};
use super::parts::{Ends, Prepared, one_sided, rigid, spring_softness};
use super::{JointConstraint, JointModel, JointStep, Spring};
use crate::dynamics::state::cross;

/// The distance joint's per-step data: the spring's coefficients over the substep `h`.
#[inline]
pub(super) fn prepare(p: &mut Prepared, spring: Option<Spring>, h: f32) {
    if let Some(s) = spring {
        p.spring = spring_softness(s, h);
    }
}

/// The distance joint's warm start: its axial parts' sum along the anchors' line now.
#[inline]
pub(super) fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    let axis = ends.separation(p, r).normalize_or_zero();
    let axial =
        joint.linear_impulse.x + joint.spring_impulse + joint.lower_impulse - joint.upper_impulse;
    ends.apply_linear(p, r, axial * axis);
}

/// One solve (`use_bias`) or relax pass of a distance joint.
#[inline]
pub(super) fn solve(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    use_bias: bool,
) {
    let JointModel::Distance {
        length,
        rigid: is_rigid,
        limits: [min, max],
        spring,
    } = joint.model
    else {
        return;
    };
    let p = joint.prepared;
    let r = ends.anchors(&p);
    let d = ends.separation(&p, r);
    let (current, axis) = (d.length(), d.normalize_or_zero());
    let axial_speed = |ends: &Ends<'_>| axis.dot(ends.relative_velocity(r));
    let mass = p.mass_along(cross(r[0], axis), cross(r[1], axis));
    if is_rigid {
        let (bias, mass_scale, impulse_scale) = rigid(step, current - length, use_bias);
        let impulse = -mass_scale * mass * (axial_speed(ends) + bias)
            - impulse_scale * joint.linear_impulse.x;
        let applied = accumulate(&mut joint.linear_impulse.x, impulse);
        ends.apply_linear(&p, r, applied * axis);
        return;
    }
    if spring.is_some_and(|s| s.hertz > 0.0) {
        let s = p.spring;
        let impulse = -s.mass_scale * mass * (axial_speed(ends) + s.bias_rate * (current - length))
            - s.impulse_scale * joint.spring_impulse;
        let applied = accumulate(&mut joint.spring_impulse, impulse);
        ends.apply_linear(&p, r, applied * axis);
    }
    if let Some(min) = min {
        let (bias, mass_scale, impulse_scale) = one_sided(step, current - min, use_bias);
        let impulse =
            -mass_scale * mass * (axial_speed(ends) + bias) - impulse_scale * joint.lower_impulse;
        let applied = clamp_positive(&mut joint.lower_impulse, impulse);
        ends.apply_linear(&p, r, applied * axis);
    }
    if let Some(max) = max {
        let (bias, mass_scale, impulse_scale) = one_sided(step, max - current, use_bias);
        let impulse =
            -mass_scale * mass * (-axial_speed(ends) + bias) - impulse_scale * joint.upper_impulse;
        let applied = clamp_positive(&mut joint.upper_impulse, impulse);
        ends.apply_linear(&p, r, -applied * axis);
    }
}
