//! Step 1 of [`time_of_impact`](super::time_of_impact): the swept separating-axis test.
//! In A's frame at `t = 0`, each axis projects both shapes; over the step B's interval
//! slides by `(n·d)·t` and both widen by the rotation margin times `t`, so "the gap on this
//! axis is at most the target" is two linear inequalities in `t`. Their solutions,
//! intersected over the axes, are the [`Window`] that the advancement (step 2,
//! `advance.rs`) searches; an empty window is a miss.
//!
//! ```text
//! window = [0, 1]
//! for n in A's face normals, B's face normals, perp(d), the closest direction at t = 0:
//!     (a_low, a_high), (b_low, b_high) = the projections on n at t = 0
//!     keep t with  b_low - a_high - target + (n·d - margin)·t <= 0
//!     keep t with  a_low - b_high - target - (n·d + margin)·t <= 0
//! ```
//!
//! Why these axes: see the module notes of `mod.rs` ("Swept SAT first").

use glam::Vec2;

use super::Motion;
use crate::shapes::shape::Shape;
use crate::shapes::transform::{Transform, inv_mul_transforms, length_and_direction};

/// The times at which the swept intervals are within `target` on every axis seen so far;
/// empty when `enter > exit`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    /// The first time at which the shapes may be within the target.
    pub(super) enter: f32,
    /// The last such time.
    pub(super) exit: f32,
}

/// Keeps the times of `window` at which `a + b·t <= 0`.
fn clip_window(window: Window, a: f32, b: f32) -> Window {
    let mut w = window;
    if b < 0.0 {
        let t = -a / b;
        if t > w.enter {
            w.enter = t;
        }
    } else if b > 0.0 {
        let t = -a / b;
        if t < w.exit {
            w.exit = t;
        }
    } else if a > 0.0 {
        w.exit = -1.0;
    }
    w
}

/// The projection interval `(low, high)` of a shape placed by `x` onto the unit axis `n`.
fn project(shape: &Shape, x: &Transform, n: Vec2) -> (f32, f32) {
    match shape {
        Shape::Circle(c) => {
            let p = n.dot(x.transform_point(c.center()));
            (p - c.radius(), p + c.radius())
        }
        _ => {
            let core = shape.rounded();
            let mut low = f32::MAX;
            let mut high = -f32::MAX;
            for &v in core.vertices() {
                let p = n.dot(x.transform_point(v));
                low = if p < low { p } else { low };
                high = if p > high { p } else { high };
            }
            (low - core.radius, high + core.radius)
        }
    }
}

/// Narrows `window` by one axis `n` (unit, A's frame at `t = 0`). At time `t`, B's interval
/// has slid by `(n·d)·t` relative to A's, and each has widened by its rotation: the gap on
/// this side, `b_low - a_high + (n·d - margin)·t`, and on the other,
/// `a_low - b_high - (n·d + margin)·t`, must both be at most `target` for the shapes to come
/// within `target` of each other.
#[allow(clippy::too_many_arguments)]
fn separate_on_axis(
    window: Window,
    a: &Shape,
    b: &Shape,
    relative: &Transform,
    n: Vec2,
    d: Vec2,
    margin: f32,
    target_distance: f32,
) -> Window {
    let (a_low, a_high) = project(a, &Transform::IDENTITY, n);
    let (b_low, b_high) = project(b, relative, n);
    let v = n.dot(d);
    let w = clip_window(window, (b_low - a_high) - target_distance, v - margin);
    clip_window(w, (a_low - b_high) - target_distance, -(v + margin))
}

/// Step 1: the window of times in `[0, 1]` at which the shapes can be within `target` of
/// each other, by the swept separating-axis test in A's frame at `t = 0` (`xa`, `xb`: the
/// poses at `t = 0`; `start_normal`: the world closest direction at `t = 0`).
pub(super) fn swept_sat(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    motion: &Motion,
    start_normal: Vec2,
    target_distance: f32,
) -> Window {
    let relative = inv_mul_transforms(xa, xb);
    let d = xa.inverse_rotate(motion.d);
    let m = motion.margin;
    let mut w = Window {
        enter: 0.0,
        exit: 1.0,
    };
    if let Shape::Polygon(p) = a {
        for &n in p.normals() {
            w = separate_on_axis(w, a, b, &relative, n, d, m, target_distance);
        }
    }
    if let Shape::Polygon(p) = b {
        for &n in p.normals() {
            w = separate_on_axis(
                w,
                a,
                b,
                &relative,
                relative.rotate(n),
                d,
                m,
                target_distance,
            );
        }
    }
    // The normal of the motion: rejects pairs that pass side by side (the sides of a
    // circle's swept capsule).
    let (d_length, d_direction) = length_and_direction(d);
    if d_length > 0.0 {
        let side = d_direction.perp();
        w = separate_on_axis(w, a, b, &relative, side, d, m, target_distance);
    }
    // The closest direction at the start: a circle's only natural axis.
    let closest = xa.inverse_rotate(start_normal);
    separate_on_axis(w, a, b, &relative, closest, d, m, target_distance)
}
