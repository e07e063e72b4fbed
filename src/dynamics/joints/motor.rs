//! The motor joint: B's centre of mass and angle driven towards a target pose relative to
//! A (`World::set_motor_target`), each closing a share of its gap per substep, with at
//! most a max force and a max torque.
//!
//! ```text
//! angle:  relative spin -> -MOTOR_CORRECTION / h * angle, within max torque * h
//! point:  relative velocity of the anchors -> -MOTOR_CORRECTION / h * separation,
//!         K 2x2, the accumulated impulse no longer than max force * h
//! ```
//!
//! The drive's target speed is the same in the solve and the relax pass: the relax pass
//! would otherwise stop what the solve pass started.

use glam::Vec2;

use super::impulse_bound::{clamp_drive, drive_bound};
use super::parts::{Ends, Prepared, solve_k};
use super::{JointConstraint, JointModel, JointStep, relative_angle, unwind};

/// The share of its gap the motor joint closes per substep (Box2D's default correction
/// factor).
const MOTOR_CORRECTION: f32 = 0.3;

/// The motor joint's per-step data: the angle from its target.
#[inline]
pub(super) fn prepare(p: &mut Prepared, [rotation_a, rotation_b]: [Vec2; 2], reference_angle: f32) {
    let angle = relative_angle(rotation_a, rotation_b) - reference_angle;
    p.delta_angle = unwind(angle);
}

/// The motor joint's warm start: the point impulse and the angular one.
#[inline]
pub(super) fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    ends.apply_linear(p, r, joint.linear_impulse);
    ends.apply_angular(p, joint.motor_impulse);
}

/// One pass of a motor joint (the same in the solve and the relax pass).
#[inline]
pub(super) fn solve(joint: &mut JointConstraint, ends: &mut Ends<'_>, step: &JointStep) {
    let JointModel::Motor {
        max_force,
        max_torque,
        ..
    } = joint.model
    else {
        return;
    };
    let p = joint.prepared;
    // The drive's target speed is its gap's share per substep, in both passes:
    // the relax pass would otherwise stop what the solve pass started.
    let rate = MOTOR_CORRECTION / step.h;
    let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
    let max = drive_bound(step.h, max_torque);
    let old = joint.motor_impulse;
    let impulse = -p.angular_mass * (cdot + rate * ends.angle(&p));
    joint.motor_impulse = (old + impulse).clamp(-max, max);
    ends.apply_angular(&p, joint.motor_impulse - old);

    let r = ends.anchors(&p);
    let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
    let Some(solved) = solve_k(&p, r, rhs) else {
        return;
    };
    let old = joint.linear_impulse;
    joint.linear_impulse = clamp_drive(old - solved, drive_bound(step.h, max_force));
    ends.apply_linear(&p, r, joint.linear_impulse - old);
}
