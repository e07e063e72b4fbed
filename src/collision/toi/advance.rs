//! Step 2 of [`time_of_impact`](super::time_of_impact): conservative advancement from the
//! window's start. At each time the exact distance and its normal `n` bound how fast the
//! separation along the fixed axis `n` can fall; the next time is the farthest that this
//! bound (linear, and a concave second-order one found by bisection) proves the shapes
//! stay above the target.
//!
//! ```text
//! t = window.enter
//! repeat MAX_TOI_ITERATIONS times:
//!     (D, n) = shape_distance at t;  D <= tol -> hit at t
//!     approach = margin - n·d;  approach <= 0 -> miss (B recedes faster than any turn)
//!     L(δ) = lower_separation along n, δ further on (concave in δ)
//!     L(exit - t) > target -> miss
//!     t += max((L(0) - target) / approach, the end of {L > target} by bisection)
//!     t > exit -> miss
//! the cap reached: the last t evaluated (still overlap-free)
//! ```
//!
//! Why the bounds are safe: see the module notes of `mod.rs` ("Advancement bound along the
//! current normal", "A second-order step for rotation").

use glam::Vec2;

use super::swept_sat::Window;
use super::{MAX_TOI_ITERATIONS, Motion, Sweep, TimeOfImpact};
use crate::collision::distance::shape_distance;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// Step 2: conservative advancement from `window.enter`, in world frame (see the module
/// documentation).
#[allow(clippy::too_many_arguments)]
pub(super) fn advance(
    a: &Shape,
    sa: &Sweep,
    b: &Shape,
    sb: &Sweep,
    motion: &Motion,
    window: &Window,
    tol: f32,
    target_distance: f32,
) -> Option<TimeOfImpact> {
    let mut t = window.enter;
    let mut last = TimeOfImpact {
        t,
        normal: Vec2::ZERO,
        separation: 0.0,
    };
    for _ in 0..MAX_TOI_ITERATIONS {
        let xa = sa.transform_at(t);
        let xb = sb.transform_at(t);
        let here = shape_distance(a, &xa, b, &xb);
        last = TimeOfImpact {
            t,
            normal: here.normal,
            separation: here.distance,
        };
        if here.distance <= tol {
            return Some(last);
        }
        let n = here.normal;
        let approach = motion.margin - n.dot(motion.d);
        if approach <= 0.0 {
            return None;
        }
        let bound = SeparationBound {
            n,
            centers: n.dot(sb.center_at(t) - sa.center_at(t)),
            speed: n.dot(motion.d),
            turn_a: sa.a1 - sa.a0,
            turn_b: sb.a1 - sb.a0,
            curvature: 0.5
                * (motion.ra * (sa.a1 - sa.a0) * (sa.a1 - sa.a0)
                    + motion.rb * (sb.a1 - sb.a0) * (sb.a1 - sb.a0)),
        };
        let separation = lower_separation(a, &xa, sa, b, &xb, sb, &bound, 0.0);
        let remaining = window.exit - t;
        if lower_separation(a, &xa, sa, b, &xb, sb, &bound, remaining) > target_distance {
            // The concave bound is above the target at both ends of the rest of the window,
            // so everywhere between.
            return None;
        }
        let mut low = 0.0;
        let mut high = remaining;
        for _ in 0..BISECTIONS {
            let middle = 0.5 * (low + high);
            if lower_separation(a, &xa, sa, b, &xb, sb, &bound, middle) > target_distance {
                low = middle;
            } else {
                high = middle;
            }
        }
        let linear = (separation - target_distance) / approach;
        t += if linear > low { linear } else { low };
        if t > window.exit {
            return None;
        }
    }
    Some(last)
}

/// Halvings of the rest of the window when finding where the concave separation bound
/// reaches the target: 2^-20 of a step is far below any tolerance.
const BISECTIONS: u32 = 20;

/// What [`lower_separation`] needs at one time `t` of the advancement.
#[derive(Clone, Copy, Debug)]
struct SeparationBound {
    /// The fixed axis: the world unit normal from A to B at `t`.
    n: Vec2,
    /// `n·(B's centre - A's centre)` at `t`.
    centers: f32,
    /// `n·d`: how fast the centres separate along `n`, per unit `t`.
    speed: f32,
    /// Each shape's whole rotation over the step.
    turn_a: f32,
    turn_b: f32,
    /// `(rA·turn_a² + rB·turn_b²) / 2`: the bound on the second derivative of the supports.
    curvature: f32,
}

/// The linear part of a shape's support along the world axis `n` once it has turned by a
/// further `angle`: `max over its points q of n·q + angle·(n·perp(q))`, with `q` the point's
/// world offset from the centre of rotation at the pose `x` (a circle adds its radius).
fn support_line(shape: &Shape, x: &Transform, local_center: Vec2, n: Vec2, angle: f32) -> f32 {
    match shape {
        Shape::Circle(c) => {
            let q = x.rotate(c.center() - local_center);
            n.dot(q) + angle * n.dot(Vec2::new(-q.y, q.x)) + c.radius()
        }
        _ => {
            let core = shape.rounded();
            let mut high = -f32::MAX;
            for &v in core.vertices() {
                let q = x.rotate(v - local_center);
                let s = n.dot(q) + angle * n.dot(Vec2::new(-q.y, q.x));
                high = if s > high { s } else { high };
            }
            high + core.radius
        }
    }
}

/// A lower bound on the separation along the fixed axis `bound.n` (so on the distance) a
/// further `delta` into the step, from the poses `xa`, `xb` at `t`: the centres' separation
/// `centers + speed·delta`, less each support. A point at offset `q` that turns by `δ`
/// projects to `a cos δ + b sin δ <= a + b δ + |q| δ²/2` (`a = n·q`, `b = n·perp(q)`, and
/// the second derivative is at most `|q|`), hence the supports' linear parts and the
/// `curvature` term. Concave in `delta`: a line, minus maxima of lines, minus a parabola.
#[allow(clippy::too_many_arguments)]
fn lower_separation(
    a: &Shape,
    xa: &Transform,
    sa: &Sweep,
    b: &Shape,
    xb: &Transform,
    sb: &Sweep,
    bound: &SeparationBound,
    delta: f32,
) -> f32 {
    let support_a = support_line(a, xa, sa.local_center, bound.n, bound.turn_a * delta);
    let support_b = support_line(b, xb, sb.local_center, -bound.n, bound.turn_b * delta);
    bound.centers + bound.speed * delta - support_a - support_b - bound.curvature * delta * delta
}
