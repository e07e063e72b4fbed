//! [`Sweep`]: a body's motion over one step, the input of
//! [`time_of_impact`](super::time_of_impact). Every step of the algorithm evaluates its pose
//! at a fraction `t` of the step, after [`Sweep::shifted`] has moved it to small
//! coordinates (the first line of the outline in `mod.rs`), whose rounding is small.
//! `shaders/toi.wgsl` has the same functions (`transform_at`, `center_at`, `shifted`),
//! operation for operation.

use glam::Vec2;

use crate::shapes::transform::{Transform, rotate};

/// A body's motion over one step: its centre of rotation moves on a straight line from c0 to c1
/// and its angle changes linearly from a0 to a1 (radians; may exceed pi in total).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The centre of rotation in the body's local frame (usually its centre of mass).
    pub local_center: Vec2,
    /// World position of the centre of rotation at the start of the step (`t = 0`).
    pub c0: Vec2,
    /// World position of the centre of rotation at the end of the step (`t = 1`).
    pub c1: Vec2,
    /// Angle at the start of the step, radians, counter-clockwise.
    pub a0: f32,
    /// Angle at the end of the step. `a1 - a0` is the whole rotation over the step, which
    /// may be more than a half turn (it is not wrapped).
    pub a1: f32,
}

impl Sweep {
    /// A sweep that stays at `transform` (centre of rotation = local origin).
    ///
    /// The angle is recovered with [`Transform::angle`], so [`Sweep::transform_at`] gives
    /// back `transform` up to a rounding step of its rotation.
    pub fn fixed(transform: &Transform) -> Sweep {
        let c = transform.translation();
        let a = transform.angle();
        Sweep {
            local_center: Vec2::ZERO,
            c0: c,
            c1: c,
            a0: a,
            a1: a,
        }
    }

    /// The sweep of a body at `transform` moving for `dt` with a constant `velocity` (of its
    /// centre of rotation, world frame) and `angular_velocity` (radians per unit time) about
    /// `local_center`: `c1 = c0 + velocity·dt`, `a1 = a0 + angular_velocity·dt`.
    pub fn from_velocity(
        transform: &Transform,
        local_center: Vec2,
        velocity: Vec2,
        angular_velocity: f32,
        dt: f32,
    ) -> Sweep {
        let c0 = transform.transform_point(local_center);
        let a0 = transform.angle();
        Sweep {
            local_center,
            c0,
            c1: c0 + velocity * dt,
            a0,
            a1: a0 + angular_velocity * dt,
        }
    }

    /// Pose of the local frame at fraction `t` of the step (0 to 1): angle
    /// `a0 + (a1 - a0) t`, centre `lerp(c0, c1, t)`, origin `centre - R(angle) local_center`.
    pub fn transform_at(&self, t: f32) -> Transform {
        let angle = self.a0 + (self.a1 - self.a0) * t;
        let center = self.center_at(t);
        // Transform::new computes the same (sin, cos) again: identical values.
        let q = crate::math::from_angle(angle);
        Transform::new(center - rotate(q, self.local_center), angle)
    }

    /// World position of the centre of rotation at fraction `t`: `lerp(c0, c1, t)`.
    pub fn center_at(&self, t: f32) -> Vec2 {
        self.c0 + (self.c1 - self.c0) * t
    }

    /// Whether every field is finite. Batch calls reject sweeps that are not.
    pub fn is_finite(&self) -> bool {
        self.local_center.is_finite()
            && self.c0.is_finite()
            && self.c1.is_finite()
            && self.a0.is_finite()
            && self.a1.is_finite()
    }

    /// The same motion with both centres moved by `-origin`, and the start angle brought
    /// into `(-pi, pi]` when it lies outside, the turn `a1 - a0` kept.
    ///
    /// Why the angle: the pose at `t` takes the sine and cosine of `a0 + (a1 - a0) t`, and
    /// far from zero that sum has no precision left (the f32 angles near 2.7e7 are 2 radians
    /// apart), so the pose would jump about instead of turning, and the conservative bounds,
    /// which assume it turns, would step into overlap. `atan2` of `a0`'s own sine and cosine
    /// (which reduce the argument exactly) is the same orientation to a rounding step.
    pub(super) fn shifted(&self, origin: Vec2) -> Sweep {
        let (a0, a1) = reduced_start_angle(self.a0, self.a1);
        Sweep {
            c0: self.c0 - origin,
            c1: self.c1 - origin,
            a0,
            a1,
            ..*self
        }
    }
}

/// `(a0, a1)` with the start angle brought into `(-pi, pi]` when it lies outside, the turn
/// `a1 - a0` kept (see [`Sweep::shifted`] for why). The GPU's host applies it before the
/// upload (`SweepGpu::from`), since WGSL's `sin` and `cos` are specified only within
/// `[-pi, pi]` and a software adapter's are neither accurate nor a rotation far beyond it;
/// a sweep so reduced passes through here unchanged, so both sides start from one angle.
pub(crate) fn reduced_start_angle(a0: f32, a1: f32) -> (f32, f32) {
    if a0.abs() <= std::f32::consts::PI {
        (a0, a1)
    } else {
        let turn = a1 - a0;
        let start = crate::math::to_angle(crate::math::from_angle(a0));
        (start, start + turn)
    }
}
