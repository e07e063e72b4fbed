//! The prismatic joint: B slides along an axis fixed in A and does not turn relative to A;
//! the translation along the axis is limited, driven or sprung.
//!
//! ```text
//! translation = axis . d                           (slide.rs: the slider's geometry)
//! spring:  translation -> 0 (its own hertz)
//! motor:   axial speed -> speed, accumulated within max force * h
//! limits:  lower <= translation <= upper, each one-sided
//! [perp . d, angle] = 0                            one 2x2 block: the normal to the axis
//!                                                  and the relative angle together
//! order per pass: spring, motor, limits, then the block
//! ```

use glam::Vec2;

use super::impulse_bound::{accumulate_vec, drive_bound};
use super::parts::{Ends, Prepared, scales, solve22, spring_softness};
use super::slide::{slide, slide_limits, slide_spring};
use super::{JointConstraint, JointModel, JointStep, Spring, relative_angle, unwind};
use crate::shapes::transform::rotate;

/// The prismatic joint's per-step data: the angle since it was added, the axis in the
/// world frame at the step's start, and the spring's coefficients over the substep `h`.
#[inline]
pub(super) fn prepare(
    p: &mut Prepared,
    [rotation_a, rotation_b]: [Vec2; 2],
    reference_angle: f32,
    local_axis: Vec2,
    spring: Option<Spring>,
    h: f32,
) {
    let angle = relative_angle(rotation_a, rotation_b) - reference_angle;
    p.delta_angle = unwind(angle);
    p.axis = rotate(rotation_a, local_axis);
    if let Some(s) = spring {
        p.spring = spring_softness(s, h);
    }
}

/// The prismatic joint's warm start: the axial parts (spring, limits, motor) along the
/// axis, the normal impulse along its normal and the angular one.
#[inline]
pub(super) fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    let s = slide(ends, p, r);
    let axial = joint.spring_impulse + joint.lower_impulse - joint.upper_impulse;
    let (axial, angular) = (axial + joint.motor_impulse, joint.linear_impulse.y);
    s.apply(ends, p, axial, joint.linear_impulse.x, angular);
}

/// One solve (`use_bias`) or relax pass of a prismatic joint.
#[inline]
pub(super) fn solve(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    use_bias: bool,
) {
    let JointModel::Prismatic {
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
    if spring.is_some() {
        slide_spring(joint, ends, r);
    }
    if let Some([speed, max_force]) = motor {
        let s = slide(ends, &p, r);
        let cdot = s.axial_speed(ends) - speed;
        let max = drive_bound(step.h, max_force);
        let old = joint.motor_impulse;
        joint.motor_impulse = (old - s.axial_mass * cdot).clamp(-max, max);
        s.apply(ends, &p, joint.motor_impulse - old, 0.0, 0.0);
    }
    if let Some(limits) = limits {
        slide_limits(joint, ends, step, r, limits, use_bias);
    }
    // The normal to the axis and the angle, as one 2x2 block.
    let s = slide(ends, &p, r);
    let cdot = Vec2::new(
        s.perp.dot(ends.b.linear_velocity - ends.a.linear_velocity)
            + s.s2 * ends.b.angular_velocity
            - s.s1 * ends.a.angular_velocity,
        ends.b.angular_velocity - ends.a.angular_velocity,
    );
    let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
    let c = Vec2::new(s.perp.dot(s.d), ends.angle(&p));
    let [ma, mb] = p.inv_mass;
    let [ia, ib] = p.inv_inertia;
    let k11 = ma + mb + ia * s.s1 * s.s1 + ib * s.s2 * s.s2;
    let k12 = ia * s.s1 + ib * s.s2;
    // A body pair that cannot turn still slides: a unit angular mass keeps K whole.
    let k22 = if ia + ib == 0.0 { 1.0 } else { ia + ib };
    let Some(solved) = solve22([k11, k12, k22], cdot + rate * c) else {
        return;
    };
    let impulse = -mass_scale * solved - impulse_scale * joint.linear_impulse;
    let applied = accumulate_vec(&mut joint.linear_impulse, impulse);
    s.apply(ends, &p, 0.0, applied.x, applied.y);
}
