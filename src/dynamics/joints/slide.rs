//! The slider's geometry, shared by the prismatic and the wheel joint: the axis fixed in
//! A and turned with it, its normal, B's anchor from A's, and the levers of an impulse
//! along each; with the slider's limits and spring on the translation along the axis.
//!
//! ```text
//! axis = delta_rotation_a * axis0     perp = left_perp(axis)     d = separation now
//! translation = axis . d              levers: a1 = (d + r_a) x axis, a2 = r_b x axis
//!                                             s1 = (d + r_a) x perp, s2 = r_b x perp
//! ```

use glam::Vec2;

use super::impulse_bound::{accumulate, clamp_positive};
use super::parts::{Ends, Prepared, one_sided};
use super::{JointConstraint, JointStep};
use crate::dynamics::state::cross;
use crate::shapes::transform::rotate;

/// A slider's geometry now (prismatic and wheel joints): the axis turned with A, its
/// normal, B's anchor from A's, and the levers of an impulse along each.
pub(super) struct Slide {
    pub(super) axis: Vec2,
    pub(super) perp: Vec2,
    pub(super) d: Vec2,
    /// Levers along the axis (A, B) and along its normal.
    pub(super) a1: f32,
    pub(super) a2: f32,
    pub(super) s1: f32,
    pub(super) s2: f32,
    /// B's anchor along the axis from A's.
    pub(super) translation: f32,
    /// The effective mass along the axis.
    pub(super) axial_mass: f32,
}

#[inline]
pub(super) fn slide(ends: &Ends<'_>, p: &Prepared, r @ [ra, rb]: [Vec2; 2]) -> Slide {
    let axis = rotate(ends.a.delta_rotation, p.axis);
    let perp = axis.perp();
    let d = ends.separation(p, r);
    let (a1, a2) = (cross(d + ra, axis), cross(rb, axis));
    Slide {
        axis,
        perp,
        d,
        a1,
        a2,
        s1: cross(d + ra, perp),
        s2: cross(rb, perp),
        translation: axis.dot(d),
        axial_mass: p.mass_along(a1, a2),
    }
}

impl Slide {
    /// B's speed along the axis relative to A.
    #[inline]
    pub(super) fn axial_speed(&self, ends: &Ends<'_>) -> f32 {
        self.axis
            .dot(ends.b.linear_velocity - ends.a.linear_velocity)
            + self.a2 * ends.b.angular_velocity
            - self.a1 * ends.a.angular_velocity
    }

    /// Applies impulses along the axis and its normal and an angular one to B, and their
    /// opposites to A.
    #[inline]
    pub(super) fn apply(
        &self,
        ends: &mut Ends<'_>,
        p: &Prepared,
        axial: f32,
        normal: f32,
        angular: f32,
    ) {
        let impulse = axial * self.axis + normal * self.perp;
        let la = axial * self.a1 + normal * self.s1 + angular;
        let lb = axial * self.a2 + normal * self.s2 + angular;
        ends.a.linear_velocity -= p.inv_mass[0] * impulse;
        ends.a.angular_velocity -= p.inv_inertia[0] * la;
        ends.b.linear_velocity += p.inv_mass[1] * impulse;
        ends.b.angular_velocity += p.inv_inertia[1] * lb;
    }
}

/// A slider's translation held within `[lower, upper]` (one-sided each, as the distance
/// joint's limits).
#[inline]
pub(super) fn slide_limits(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    r: [Vec2; 2],
    [lower, upper]: [f32; 2],
    use_bias: bool,
) {
    let p = joint.prepared;
    let s = slide(ends, &p, r);
    let (bias, mass_scale, impulse_scale) = one_sided(step, s.translation - lower, use_bias);
    let impulse = -mass_scale * s.axial_mass * (s.axial_speed(ends) + bias)
        - impulse_scale * joint.lower_impulse;
    let applied = clamp_positive(&mut joint.lower_impulse, impulse);
    s.apply(ends, &p, applied, 0.0, 0.0);

    let (bias, mass_scale, impulse_scale) = one_sided(step, upper - s.translation, use_bias);
    let impulse = -mass_scale * s.axial_mass * (-s.axial_speed(ends) + bias)
        - impulse_scale * joint.upper_impulse;
    let applied = clamp_positive(&mut joint.upper_impulse, impulse);
    s.apply(ends, &p, -applied, 0.0, 0.0);
}

/// A slider's spring on its translation (towards 0).
#[inline]
pub(super) fn slide_spring(joint: &mut JointConstraint, ends: &mut Ends<'_>, r: [Vec2; 2]) {
    let p = joint.prepared;
    let s = slide(ends, &p, r);
    let sp = p.spring;
    let cdot = s.axial_speed(ends);
    let impulse = -sp.mass_scale * s.axial_mass * (cdot + sp.bias_rate * s.translation)
        - sp.impulse_scale * joint.spring_impulse;
    let applied = accumulate(&mut joint.spring_impulse, impulse);
    s.apply(ends, &p, applied, 0.0, 0.0);
}
