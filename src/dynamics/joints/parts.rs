//! What the joint kinds share: the per-step data `prepare` leaves ([`Prepared`]), the two
//! bodies' states as a joint reads and writes them ([`Ends`]), the coefficients of a
//! part's impulse (a spring's, a rigid part's, a one-sided limit's), the pin's 2x2 solve,
//! and the motor on the relative spin.
//!
//! ```text
//! impulse of a part = -mass_scale * m * (cdot + bias) - impulse_scale * accumulated
//!     spring:          (bias rate * C, mass scale, impulse scale) of its own hertz
//!     rigid, solve:    the joint softness (twice the contact hertz), bias rate * C
//!     rigid, relax:    (0, 1, 0): plain velocity
//!     one-sided limit: a gap C > 0 closes within the substep, no more: (C / h, 1, 0)
//! ```

use glam::Vec2;

use super::impulse_bound::{accumulate_vec, drive_bound};
use super::{JointConstraint, JointStep, Spring, relative_angle, unwind};
use crate::dynamics::state::{BodyState, Softness, cross, cross_sv};
use crate::shapes::transform::rotate;

/// The solver's per-step data of a joint, from `prepare`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Prepared {
    /// Anchors from each body's centre of mass, world frame, at the step's start.
    pub(super) anchors: [Vec2; 2],
    /// `c_b - c_a` at the step's start.
    pub(super) delta_center: Vec2,
    /// The joint angle at the step's start, in [-π, π].
    pub(super) delta_angle: f32,
    pub(super) inv_mass: [f32; 2],
    pub(super) inv_inertia: [f32; 2],
    /// The effective mass of the relative rotation. (Those along an axis are taken from
    /// the substep's geometry, not the step's start: a joint pulled far out of place
    /// within a step would otherwise push with a mass many times too large, and diverge.)
    pub(super) angular_mass: f32,
    /// The joint's spring (the angle's, the length's, the mouse's pull).
    pub(super) spring: Softness,
    /// The weld's anchor spring.
    pub(super) linear_spring: Softness,
    /// The prismatic and wheel joints' axis, world frame at the step's start.
    pub(super) axis: Vec2,
    /// Whether both bodies stand still this step (static, asleep): nothing to solve.
    pub(super) idle: bool,
}

impl Prepared {
    /// The effective mass of an impulse along a line whose levers (`r × direction`) on A
    /// and B are `la` and `lb`.
    #[inline]
    pub(super) fn mass_along(&self, la: f32, lb: f32) -> f32 {
        let [ma, mb] = self.inv_mass;
        let [ia, ib] = self.inv_inertia;
        inverse_or_zero(ma + mb + ia * la * la + ib * lb * lb)
    }
}

/// The two bodies' states of a joint, to read and write.
pub(super) struct Ends<'a> {
    pub(super) a: &'a mut BodyState,
    pub(super) b: &'a mut BodyState,
}

impl Ends<'_> {
    /// Applies `impulse` to B at `rb` and its opposite to A at `ra`.
    #[inline]
    pub(super) fn apply_linear(&mut self, p: &Prepared, [ra, rb]: [Vec2; 2], impulse: Vec2) {
        self.a.linear_velocity -= p.inv_mass[0] * impulse;
        self.a.angular_velocity -= p.inv_inertia[0] * cross(ra, impulse);
        self.b.linear_velocity += p.inv_mass[1] * impulse;
        self.b.angular_velocity += p.inv_inertia[1] * cross(rb, impulse);
    }

    /// Applies the angular `impulse` to B and its opposite to A.
    #[inline]
    pub(super) fn apply_angular(&mut self, p: &Prepared, impulse: f32) {
        self.a.angular_velocity -= p.inv_inertia[0] * impulse;
        self.b.angular_velocity += p.inv_inertia[1] * impulse;
    }

    /// The anchors now (turned by each body's rotation since the step began).
    #[inline]
    pub(super) fn anchors(&self, p: &Prepared) -> [Vec2; 2] {
        [
            rotate(self.a.delta_rotation, p.anchors[0]),
            rotate(self.b.delta_rotation, p.anchors[1]),
        ]
    }

    /// B's anchor minus A's now, world frame.
    #[inline]
    pub(super) fn separation(&self, p: &Prepared, [ra, rb]: [Vec2; 2]) -> Vec2 {
        self.b.delta_position - self.a.delta_position + p.delta_center + rb - ra
    }

    /// The velocity of B's anchor relative to A's.
    #[inline]
    pub(super) fn relative_velocity(&self, [ra, rb]: [Vec2; 2]) -> Vec2 {
        self.b.linear_velocity + cross_sv(self.b.angular_velocity, rb)
            - self.a.linear_velocity
            - cross_sv(self.a.angular_velocity, ra)
    }

    /// The joint angle now.
    #[inline]
    pub(super) fn angle(&self, p: &Prepared) -> f32 {
        unwind(p.delta_angle + relative_angle(self.a.delta_rotation, self.b.delta_rotation))
    }
}

/// A spring's coefficients over substep `h` (as `Softness::new`); a spring of 0 hertz
/// applies no force (its damping ratio alone would divide 0 by 0). Worked in f64: any
/// finite hertz and damping ratio are accepted, and at 1e25 hertz the f32 products
/// overflow (found by `examples/fuzz`, world target); the coefficients themselves stay
/// within f32 (a rigid spring's mass scale tends to 1, its bias rate to 1 / h).
pub(super) fn spring_softness(spring: Spring, h: f32) -> Softness {
    if spring.hertz > 0.0 {
        let omega = std::f64::consts::TAU * f64::from(spring.hertz);
        let a1 = 2.0 * f64::from(spring.damping_ratio) + f64::from(h) * omega;
        let a2 = f64::from(h) * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: (omega / a1) as f32,
            mass_scale: (a2 * a3) as f32,
            impulse_scale: a3 as f32,
        }
    } else {
        Softness {
            bias_rate: 0.0,
            mass_scale: 0.0,
            impulse_scale: 1.0,
        }
    }
}

#[inline]
pub(super) fn inverse_or_zero(k: f32) -> f32 {
    if k > 0.0 { 1.0 / k } else { 0.0 }
}

/// The coefficients `(bias rate, mass scale, impulse scale)` of a part's impulse
/// `-mass_scale * m * (cdot + bias_rate * C) - impulse_scale * accumulated`: a spring's in
/// both passes; a rigid part (`None`) the joint softness in the solve pass, and in the relax
/// pass none (plain velocity).
#[inline]
pub(super) fn scales(
    step: &JointStep,
    spring: Option<&Softness>,
    use_bias: bool,
) -> (f32, f32, f32) {
    match spring {
        Some(s) => (s.bias_rate, s.mass_scale, s.impulse_scale),
        None if use_bias => (
            step.soft.bias_rate,
            step.soft.mass_scale,
            step.soft.impulse_scale,
        ),
        None => (0.0, 1.0, 0.0),
    }
}

/// As [`scales`] for a rigid part whose error is `c`, with the bias itself.
#[inline]
pub(super) fn rigid(step: &JointStep, c: f32, use_bias: bool) -> (f32, f32, f32) {
    let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
    (rate * c, mass_scale, impulse_scale)
}

/// As [`rigid`] for a one-sided limit whose gap is `c` (positive: not reached): a gap may
/// close within the substep and no more (speculative), an overlap is pushed out softly.
#[inline]
pub(super) fn one_sided(step: &JointStep, c: f32, use_bias: bool) -> (f32, f32, f32) {
    if c > 0.0 {
        (c / step.h, 1.0, 0.0)
    } else {
        rigid(step, c, use_bias)
    }
}

/// The warm start of a joint whose impulses are a point's and an angular one (revolute,
/// weld, mouse): the point impulse at the anchors, and every angular part's sum. The
/// mouse's A anchor is zero and so are A's masses: its impulse lands on B alone.
#[inline]
pub(super) fn warm_start_pin(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    ends.apply_linear(p, r, joint.linear_impulse);
    let axial =
        joint.spring_impulse + joint.motor_impulse + joint.lower_impulse - joint.upper_impulse;
    ends.apply_angular(p, axial);
}

/// `K^-1 rhs` for the point constraint's effective mass `K` (2x2) at anchors `ra`, `rb`;
/// `None` when `K` is singular (neither body moves).
#[inline]
pub(super) fn solve_k(p: &Prepared, [ra, rb]: [Vec2; 2], rhs: Vec2) -> Option<Vec2> {
    let [ma, mb] = p.inv_mass;
    let [ia, ib] = p.inv_inertia;
    // K = (ma + mb) I + ia [ra]x^T [ra]x + ib [rb]x^T [rb]x, symmetric.
    let k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
    let k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    let k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
    solve22([k11, k12, k22], rhs)
}

/// `K^-1 rhs` for the symmetric `K = [[k11, k12], [k12, k22]]`; `None` when singular.
#[inline]
pub(super) fn solve22([k11, k12, k22]: [f32; 3], rhs: Vec2) -> Option<Vec2> {
    let det = k11 * k22 - k12 * k12;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    Some(Vec2::new(k22 * rhs.x - k12 * rhs.y, k11 * rhs.y - k12 * rhs.x) / det)
}

/// A motor on the relative spin (`[speed, max torque]`): the accumulated impulse within
/// `max torque * h`.
#[inline]
pub(super) fn angular_motor(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    [speed, max_torque]: [f32; 2],
) {
    let p = joint.prepared;
    let cdot = ends.b.angular_velocity - ends.a.angular_velocity - speed;
    let max = drive_bound(step.h, max_torque);
    let old = joint.motor_impulse;
    joint.motor_impulse = (old - p.angular_mass * cdot).clamp(-max, max);
    ends.apply_angular(&p, joint.motor_impulse - old);
}

/// A pin: B's anchor held on A's, `rhs` the relative velocity plus the bias; the impulse
/// is `-mass_scale K^-1 rhs - impulse_scale * accumulated`.
#[inline]
pub(super) fn solve_point(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    r: [Vec2; 2],
    rhs: Vec2,
    [mass_scale, impulse_scale]: [f32; 2],
) {
    // Borrowed, not copied: the per-step data is read, the point impulse written apart.
    let p = &joint.prepared;
    let Some(solved) = solve_k(p, r, rhs) else {
        return;
    };
    let impulse = -mass_scale * solved - impulse_scale * joint.linear_impulse;
    let applied = accumulate_vec(&mut joint.linear_impulse, impulse);
    ends.apply_linear(p, r, applied);
}
