//! Time of impact: when two moving convex shapes first touch during a step, for continuous
//! collision of fast bodies (a bullet that would pass through a thin wall between two
//! discrete steps).
//!
//! Each body's motion over the step is a [`Sweep`]: its centre of rotation moves on a
//! straight line and its angle changes linearly, parametrised by the fraction `t` of the step
//! in `[0, 1]`. [`time_of_impact`] returns the first `t` at which the shapes come within a
//! small tolerance of each other, never a `t` after they first overlap.
//!
//! ```text
//! time_of_impact(A, sweep_a, B, sweep_b):
//!     shift both sweeps by A's start centre (small coordinates, small rounding)
//!     d      = B's centre displacement - A's centre displacement     (world frame)
//!     margin = |Δangle_A|·rA + |Δangle_B|·rB     rX = sweep_radius: farthest point of X
//!                                                from its centre of rotation
//!     tol    = toi_tolerance(A, B) ; target = tol / 2
//!     start  = shape_distance(A, B) at t = 0      (signed distance, unit normal A -> B)
//!
//!     1. swept_sat: in A's frame at t = 0, over the axes
//!            A's face normals, B's face normals, the normal of d, start.normal
//!        project A and B at t = 0; over the step B's interval slides by (n·d)·t and both
//!        widen by margin·t; solve "the gap on this axis <= target" (two linear
//!        inequalities in t) and intersect:  window = [enter, exit] within [0, 1]
//!        empty window -> None
//!
//!     2. advance (conservative advancement) from t = enter:
//!        repeat at most MAX_TOI_ITERATIONS times:
//!            (D, n) = shape_distance at t          (exact; negative when overlapping)
//!            if D <= tol: return Some(t, n, D)
//!            approach = margin - n·d                (bound on how fast D can fall, per unit t)
//!            if approach <= 0: return None          (B recedes along n faster than rotation
//!                                                    can bring any point closer)
//!            L(δ) = lower_separation along the fixed axis n, δ further on: concave in δ;
//!                   L(0) = the separation along n from the supports (= D, up to rounding)
//!            if L(exit - t) > target: return None   (above target over the whole rest)
//!            step = max((L(0) - target) / approach, (the Lipschitz step)
//!                       bisection of L = target)    (the second-order step)
//!            t += step; if t > exit: return None
//!        cap reached: return Some(last t evaluated, n, D), with D > tol
//! ```
//!
//! Why each choice:
//! - **Swept SAT first.** Between two pure translations the face normals of both polygons
//!   are every edge normal of their Minkowski difference, so the window is exact: `enter` is
//!   the touching time (less `target`), and the advancement stops at its first evaluation.
//!   Most pairs of a broad phase that will not meet are rejected here without iterating.
//!   Any axis is *valid* for rejecting (the SAT is conservative on every axis); the extra
//!   axes (normal of `d`, the closest direction at `t = 0`) only make the window tighter,
//!   for circles (which have no faces) and rotating shapes.
//! - **Rotation margin that grows with `t`.** A point at distance `r` from its centre of
//!   rotation, turning by `Δangle·t`, moves at most `|Δangle|·t·r` (the arc) from where
//!   translation alone puts it. Widening each interval by `|Δangle|·r·t` (instead of a fixed
//!   `|Δangle|·r`) is still conservative and keeps `t = 0` exact.
//! - **Advancement bound along the current normal.** With `n` the closest-point direction at
//!   `t`, the separation along the fixed axis `n` equals the distance `D` at `t`, and over
//!   any later time it falls at most at `margin - n·d` per unit `t` (the centres' relative
//!   motion projected on `n`, plus each shape's rotation). The distance is never below that
//!   separation, so stepping by `(L(0) - target) / approach` cannot pass a time at which the
//!   distance is below `target`: every `t` before the result is overlap-free. The step uses
//!   `L(0)`, the separation along `n` computed from the shapes' supports, rather than `D`:
//!   it is a lower bound on the distance for any axis, so the safety of the step does not
//!   rest on how accurately `n` was computed. Projecting the
//!   translation on `n` (rather than `|d|`) makes pure translation converge in a step or two
//!   and lets a receding pair be dismissed at once.
//! - **A second-order step for rotation.** The Lipschitz step assumes every point moves
//!   straight at `n` at full speed `|ω|·r`; near contact the touching points usually move
//!   mostly sideways, and the steps shrink geometrically (32 steps were not enough for 7%
//!   of the hits of random sweeps turning up to 1.5 turns per step). A point at offset `q`
//!   from its centre, turning by `δ`, projects on `n` to `a cos δ + b sin δ <= a + b δ +
//!   |q| δ²/2` (`a = n·q`, `b = n·perp(q)`, second derivative at most `|q|`). Taking the
//!   maximum over the points gives a lower bound `L` on the separation along `n` that is
//!   concave in time, so `{L > target}` is an interval starting now: its end, found by
//!   bisection, is a safe step as well, and much longer when the points move sideways.
//!   With it, 17 in 20,000 such random pairs reach the cap, and none when the turns stay
//!   within a radian per step.
//! - **Target and tolerance.** The advancement aims at `target = tol / 2` and accepts any
//!   distance up to `tol`: aiming at exactly 0 would put half of the answers in overlap by
//!   rounding, and the gap between the two absorbs the rounding of the distance so that
//!   the CPU and the GPU stop at the same iteration. See [`TOI_RELATIVE_TOLERANCE`].
//!
//! Frames and signs: sweeps are in the world frame. The swept SAT works in A's local frame
//! at `t = 0` (a fixed frame: A moves in it); distances are computed in A's local frame at
//! each `t`; the reported normal is a world-frame unit vector from A to B, and a separation
//! is negative when the shapes overlap.
//!
//! `shaders/toi.wgsl` repeats every function of this folder under the same name, operation
//! for operation, so that the CPU and the GPU
//! ([`GpuTimeOfImpact`](crate::gpu::GpuTimeOfImpact)) round alike.
//!
//! The folder, in the order of the algorithm:
//!
//! ```text
//! mod.rs        the tolerances and the iteration cap, TimeOfImpact, toi_tolerance,
//!               time_of_impact (the outline above), the pair's relative motion
//! sweep.rs      Sweep: a body's motion over the step, its pose at t, the shift to small
//!               coordinates
//! swept_sat.rs  step 1: the window of times the swept separating-axis test leaves
//! advance.rs    step 2: conservative advancement through the window, its concave bound
//! batch.rs      SweptCollider, validate_sweeps, time_of_impact_pairs: the batch the GPU
//!               runs too
//! ```

mod advance;
mod batch;
mod sweep;
mod swept_sat;

pub use batch::{SweptCollider, time_of_impact_pairs, validate_sweeps};
pub use sweep::Sweep;

// The GPU's host reduces the start angle before the upload, as the CPU does here.
#[cfg(feature = "gpu")]
pub(crate) use sweep::reduced_start_angle;

use glam::Vec2;

use crate::collision::distance::shape_distance;
use crate::shapes::shape::Shape;
use crate::shapes::transform::length_and_direction;
use advance::advance;
use swept_sat::swept_sat;

/// The distance tolerance of [`time_of_impact`], as a fraction of the smaller shape's
/// radius ([`Shape::bounding_radius`]). The result's shapes are at most this far apart; the
/// advancement aims at half of it.
///
/// Relative to the smaller shape because that is the size of the features that must not
/// tunnel: a thousandth of it is invisible, and still thousands of f32 rounding steps of
/// the coordinates of a unit-sized shape, so the iteration stops on geometry, not on
/// rounding noise. Box2D
/// accepts 1.25 mm for metre-sized bodies, about the same figure. Rounding grows with the
/// coordinates, though, so the tolerance is never below [`TOI_ROUNDING_TOLERANCE`] times
/// the size of the whole motion (see [`toi_tolerance`]).
pub const TOI_RELATIVE_TOLERANCE: f32 = 1e-3;

/// The floor of the tolerance, as a fraction of the motion's length scale (both sweep
/// radii, the distance between the start centres and each centre's displacement): 64 f32
/// epsilons, well above the rounding of a distance computed from such coordinates, so that
/// rounding alone can never make the conservative steps overshoot into overlap.
pub const TOI_ROUNDING_TOLERANCE: f32 = 64.0 * f32::EPSILON;

/// The most conservative-advancement steps [`time_of_impact`] takes. Translation needs one
/// or two; fast spins whose rotation bound is loose need more. When the cap is reached, the
/// last time evaluated is returned: it is still overlap-free, with a separation above the
/// tolerance.
pub const MAX_TOI_ITERATIONS: u32 = 32;

/// When and how two sweeping shapes first touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeOfImpact {
    /// Fraction of the step in [0, 1] at which the shapes first touch (a conservative lower bound: they do not overlap at any earlier time).
    pub t: f32,
    /// Unit normal from A to B at t, world frame.
    pub normal: Vec2,
    /// Distance between the shapes at t: >= 0 and at most the tolerance; negative only when they already overlap at t = 0 (then t = 0).
    ///
    /// Above the tolerance ([`toi_tolerance`]) only when the advancement reached
    /// [`MAX_TOI_ITERATIONS`]: `t` is then a safe time short of the contact.
    pub separation: f32,
}

/// The distance tolerance [`time_of_impact`] uses for these two sweeps:
/// `max(TOI_RELATIVE_TOLERANCE · min(a.radius(), b.radius()), TOI_ROUNDING_TOLERANCE · scale)`
/// with `scale` the sum of both sweep radii, the distance between the start centres, the
/// lengths of both centres' displacements and of both sweeps' `local_center`. A result's
/// separation is at most this (unless the iteration cap was reached).
pub fn toi_tolerance(a: &Shape, sweep_a: &Sweep, b: &Shape, sweep_b: &Sweep) -> f32 {
    let sa = sweep_a.shifted(sweep_a.c0);
    let sb = sweep_b.shifted(sweep_a.c0);
    let ra = sweep_radius(a, sa.local_center);
    let rb = sweep_radius(b, sb.local_center);
    tolerance(a, b, ra, rb, &sa, &sb)
}

/// When shape A moving along `sweep_a` and shape B along `sweep_b` first touch, or `None`
/// when they stay apart over the whole sweep. The normal points from A to B.
///
/// The result's `t` is conservative: the shapes overlap at no earlier time, and at `t`
/// they are at most [`toi_tolerance`] apart (aiming at half of it). A result at `t = 0`
/// means the shapes start within the tolerance of each other, or overlapping (negative
/// separation); shapes that start overlapping or touching are reported at `t = 0`
/// whichever way they move, so a continuous-collision pass typically leaves those to the
/// discrete narrow phase and acts on `t > 0`.
///
/// `None` as well for a sweep that is not finite ([`Sweep::is_finite`]; the batch
/// functions return an error naming the collider instead), and for finite sweeps whose
/// motion does not fit in f32 (centres or turns near `f32::MAX`): every result has a finite
/// unit normal and a finite separation.
///
/// ```
/// use wgpu_sat::{glam::Vec2, time_of_impact, Polygon, Shape, Sweep, Transform};
///
/// // A thin wall at x = 0, and a small box at x = -2 moving 5 units to the right in one
/// // step: at the end of the step it is past the wall, but it hits it on the way.
/// let wall = Shape::from(Polygon::rectangle(0.1, 2.0));
/// let bullet = Shape::from(Polygon::rectangle(0.05, 0.05));
/// let wall_sweep = Sweep::fixed(&Transform::IDENTITY);
/// let bullet_sweep = Sweep {
///     local_center: Vec2::ZERO,
///     c0: Vec2::new(-2.0, 0.0),
///     c1: Vec2::new(3.0, 0.0),
///     a0: 0.0,
///     a1: 0.0,
/// };
/// let hit = time_of_impact(&wall, &wall_sweep, &bullet, &bullet_sweep).expect("it hits");
/// // The gap is 2 - 0.05 - 0.1 = 1.85 units, covered at 5 units per step.
/// assert!(hit.t <= 1.85 / 5.0 && hit.t > 1.85 / 5.0 - 1e-4);
/// assert_eq!(hit.normal, Vec2::NEG_X); // from the wall to the bullet, on its left
/// assert!(hit.separation >= 0.0 && hit.separation < 1e-4);
/// ```
pub fn time_of_impact(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
) -> Option<TimeOfImpact> {
    // A sweep with a NaN or an infinity has no motion to follow.
    if !(sweep_a.is_finite() && sweep_b.is_finite()) {
        return None;
    }
    // Everything relative to A's start centre: a translation changes no distance or
    // normal, and keeps the numbers (and their rounding) small far from the origin.
    let origin = sweep_a.c0;
    let sa = sweep_a.shifted(origin);
    let sb = sweep_b.shifted(origin);
    let ra = sweep_radius(a, sa.local_center);
    let rb = sweep_radius(b, sb.local_center);
    let motion = relative_motion(&sa, ra, &sb, rb);
    let tol = tolerance(a, b, ra, rb, &sa, &sb);
    // Finite sweeps whose motion does not fit in f32 (centres or turns near f32::MAX, so
    // that a displacement, a rotation margin or the tolerance overflows) cannot be swept:
    // every bound below would be an infinity, every distance a NaN.
    let fits = [sa.c1, sb.c0, sb.c1, motion.d]
        .iter()
        .all(|v| v.is_finite())
        && [sa.a1, sb.a1, motion.margin, tol]
            .iter()
            .all(|x| x.is_finite());
    if !fits {
        return None;
    }
    let target_distance = 0.5 * tol;
    let xa = sa.transform_at(0.0);
    let xb = sb.transform_at(0.0);
    let start = shape_distance(a, &xa, b, &xb);
    let window = swept_sat(a, &xa, b, &xb, &motion, start.normal, target_distance);
    if window.enter > window.exit {
        return None;
    }
    let hit = advance(a, &sa, b, &sb, &motion, &window, tol, target_distance)?;
    // Shapes whose own coordinates come near f32::MAX can still overflow in a distance
    // although the motion fits; such a result has no normal to report.
    (hit.normal.is_finite() && hit.separation.is_finite()).then_some(hit)
}

/// The relative motion of a pair over the whole step.
#[derive(Clone, Copy, Debug)]
struct Motion {
    /// B's centre displacement minus A's, world frame.
    d: Vec2,
    /// The most any point of either shape strays, per unit `t`, from where the translation
    /// of its centre alone puts it: `|Δangle_A|·rA + |Δangle_B|·rB`.
    margin: f32,
    /// The sweep radii: the farthest point of each shape from its centre of rotation.
    ra: f32,
    rb: f32,
}

/// The largest distance from the centre of rotation to any point of the shape.
fn sweep_radius(shape: &Shape, local_center: Vec2) -> f32 {
    match shape {
        // Lengths scaled before squaring: a point 1e20 from the centre is 1e20 away, not inf.
        Shape::Circle(c) => length_and_direction(c.center() - local_center).0 + c.radius(),
        _ => {
            let core = shape.rounded();
            let mut r = 0.0;
            for &v in core.vertices() {
                let d = length_and_direction(v - local_center).0;
                r = if d > r { d } else { r };
            }
            // + 0 for a sharp polygon: the same bits as toi.wgsl's polygon sweep.
            r + core.radius
        }
    }
}

/// The relative displacement and the rotation margin of the shifted sweeps.
fn relative_motion(sa: &Sweep, ra: f32, sb: &Sweep, rb: f32) -> Motion {
    Motion {
        d: (sb.c1 - sb.c0) - (sa.c1 - sa.c0),
        margin: (sa.a1 - sa.a0).abs() * ra + (sb.a1 - sb.a0).abs() * rb,
        ra,
        rb,
    }
}

/// See [`toi_tolerance`]; `sa`, `sb`: the sweeps shifted by A's start centre.
fn tolerance(a: &Shape, b: &Shape, ra: f32, rb: f32, sa: &Sweep, sb: &Sweep) -> f32 {
    let relative = TOI_RELATIVE_TOLERANCE * a.bounding_radius().min(b.bounding_radius());
    // Each body's own displacement, not only the relative one: two bodies moving together
    // far in one step have a small relative displacement, but their poses at `t` are
    // rounded to their distance from the start.
    // And each sweep's lever, its centre of rotation in the shape's frame: the pose at `t`
    // is rebuilt as c(t) - R(t)·local_center, rounded to the size of `local_center` (a
    // centre of rotation 3e38 from a shape's vertices leaves no precision in the pose).
    let (sa_moved, sb_moved) = (sa.c1 - sa.c0, sb.c1 - sb.c0);
    let scale = ra
        + rb
        + length_and_direction(sb.c0).0
        + length_and_direction(sa_moved).0
        + length_and_direction(sb_moved).0
        + length_and_direction(sa.local_center).0
        + length_and_direction(sb.local_center).0;
    let rounding_floor = TOI_ROUNDING_TOLERANCE * scale;
    if rounding_floor > relative {
        rounding_floor
    } else {
        relative
    }
}
