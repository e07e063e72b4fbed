//! The weld joint: B held at its pose relative to A, rigidly or through springs.
//!
//! ```text
//! angle   = (q_b - q_a) - reference_angle = 0      rigid, or the angular spring
//! C_point = (c_b + r_b) - (c_a + r_a) = 0          rigid, or the linear spring (K 2x2)
//! order per pass: the angle, then the point
//! ```
//!
//! A spring of 0 hertz is rigid (Box2D's convention for the weld's springs).

use glam::Vec2;

use super::impulse_bound::accumulate;
use super::parts::{Ends, Prepared, scales, solve_point, spring_softness};
use super::{JointConstraint, JointModel, JointStep, Spring, relative_angle, unwind};

/// The weld's per-step data: the angle since it was added, and each spring's
/// coefficients over the substep `h`.
#[inline]
pub(super) fn prepare(
    p: &mut Prepared,
    [rotation_a, rotation_b]: [Vec2; 2],
    reference_angle: f32,
    [linear, angular]: [Option<Spring>; 2],
    h: f32,
) {
    let angle = relative_angle(rotation_a, rotation_b) - reference_angle;
    p.delta_angle = unwind(angle);
    if let Some(s) = linear {
        p.linear_spring = spring_softness(s, h);
    }
    if let Some(s) = angular {
        p.spring = spring_softness(s, h);
    }
}

/// One solve (`use_bias`) or relax pass of a weld joint.
#[inline]
pub(super) fn solve(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    use_bias: bool,
) {
    let JointModel::Weld {
        linear, angular, ..
    } = joint.model
    else {
        return;
    };
    let p = joint.prepared;
    let spring = angular.map(|_| &p.spring);
    let (rate, mass_scale, impulse_scale) = scales(step, spring, use_bias);
    let c = ends.angle(&p);
    let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
    let impulse =
        -mass_scale * p.angular_mass * (cdot + rate * c) - impulse_scale * joint.spring_impulse;
    let applied = accumulate(&mut joint.spring_impulse, impulse);
    ends.apply_angular(&p, applied);

    let r = ends.anchors(&p);
    let spring = linear.map(|_| &p.linear_spring);
    let (rate, mass_scale, impulse_scale) = scales(step, spring, use_bias);
    let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
    solve_point(joint, ends, r, rhs, [mass_scale, impulse_scale]);
}
