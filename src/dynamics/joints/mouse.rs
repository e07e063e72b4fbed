//! The mouse joint: a point of B pulled towards a target in the world (a cursor) through
//! a spring, with at most a max force. A is the ground and takes nothing.
//!
//! ```text
//! C = c_b + r_b - target                   through the spring (5 Hz, 0.7 by default)
//! impulse = -mass_scale K^-1 (v_b at r_b + bias_rate C) - impulse_scale * accumulated,
//!     the accumulated impulse no longer than max force * h
//! ```

use glam::Vec2;

use super::impulse_bound::{clamp_drive, drive_bound};
use super::parts::{Ends, Prepared, solve_k, spring_softness};
use super::{JointConstraint, JointModel, JointStep, Spring};
use crate::dynamics::state::cross_sv;
use crate::shapes::transform::rotate;

/// The mouse joint's per-step data. The pull acts on B alone, from a fixed point: A's
/// masses and motion take no part, and the offset is from the target instead of A's
/// centre.
#[inline]
pub(super) fn prepare(p: &mut Prepared, center_b: Vec2, target: Vec2, spring: Spring, h: f32) {
    p.inv_mass[0] = 0.0;
    p.inv_inertia[0] = 0.0;
    p.anchors[0] = Vec2::ZERO;
    p.delta_center = center_b - target;
    p.spring = spring_softness(spring, h);
}

/// One pass of a mouse joint (the spring's, the same in the solve and the relax pass).
#[inline]
pub(super) fn solve(joint: &mut JointConstraint, ends: &mut Ends<'_>, step: &JointStep) {
    let JointModel::Mouse { max_force, .. } = joint.model else {
        return;
    };
    let p = joint.prepared;
    let rb = rotate(ends.b.delta_rotation, p.anchors[1]);
    let r = [Vec2::ZERO, rb];
    let cdot = ends.b.linear_velocity + cross_sv(ends.b.angular_velocity, rb);
    let separation = ends.b.delta_position + p.delta_center + rb;
    let s = p.spring;
    let Some(solved) = solve_k(&p, r, cdot + s.bias_rate * separation) else {
        return;
    };
    let old = joint.linear_impulse;
    let impulse = -s.mass_scale * solved - s.impulse_scale * old;
    joint.linear_impulse = clamp_drive(old + impulse, drive_bound(step.h, max_force));
    ends.apply_linear(&p, r, joint.linear_impulse - old);
}
