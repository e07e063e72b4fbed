//! How a joint's accumulated impulse is held within its bounds as it accumulates: a limit's
//! to [0, MAX_IMPULSE], every other part's to ±MAX_IMPULSE, a motor's or drive's to its
//! max force over the substep (and MAX_IMPULSE). Within the bound the impulse applies as it
//! came, the same bits as an unclamped sum; past it, only what the accumulated impulse moved
//! applies, so the bodies take exactly the warm start the joint keeps.
//!
//! ```text
//! new = accumulated + impulse
//! |new| <= bound: accumulated = new, apply impulse       (one comparison, nearly always)
//! else:           accumulated = clamp(new), apply clamp(new) - old accumulated
//! ```

use glam::Vec2;

use crate::dynamics::state::{MAX_IMPULSE, clamp_length};

/// Adds `impulse` to the non-negative `accumulated` (a limit's: it pushes, never pulls),
/// held to at most `MAX_IMPULSE`, returning the part that applied.
pub(super) fn clamp_positive(accumulated: &mut f32, impulse: f32) -> f32 {
    // `max(0.0)` as before the bound came: `clamp` would keep a -0 that `max` may make +0,
    // and so change the bits of every limit that rests at zero.
    #[allow(clippy::manual_clamp)]
    let new = (*accumulated + impulse).max(0.0).min(MAX_IMPULSE);
    let applied = new - *accumulated;
    *accumulated = new;
    applied
}

/// Adds `impulse` to `accumulated`, held within ±`MAX_IMPULSE`, returning the part that
/// applied (what the bodies take: the accumulated impulse is their warm start, so what was
/// clamped off is never applied). Within the bound, as nearly always, the impulse applies as
/// it came: the same bits as an unclamped sum, for one comparison.
#[inline(always)]
pub(super) fn accumulate(accumulated: &mut f32, impulse: f32) -> f32 {
    let new = *accumulated + impulse;
    if new.abs() <= MAX_IMPULSE {
        *accumulated = new;
        impulse
    } else {
        accumulate_held(accumulated, new)
    }
}

/// [`accumulate`] for a point impulse, each component held within ±`MAX_IMPULSE`.
#[inline(always)]
pub(super) fn accumulate_vec(accumulated: &mut Vec2, impulse: Vec2) -> Vec2 {
    let new = *accumulated + impulse;
    // One comparison for both components (NaN fails it, as past the bound).
    if new.abs().max_element() <= MAX_IMPULSE {
        *accumulated = new;
        impulse
    } else {
        Vec2::new(
            accumulate(&mut accumulated.x, impulse.x),
            accumulate(&mut accumulated.y, impulse.y),
        )
    }
}

/// The rare path of [`accumulate`]: the sum `new` past the bound (or not a number) is held
/// to it, and the part that applies is what the accumulated impulse moved.
#[cold]
#[inline(never)]
fn accumulate_held(accumulated: &mut f32, new: f32) -> f32 {
    let held = new.clamp(-MAX_IMPULSE, MAX_IMPULSE);
    let applied = held - *accumulated;
    *accumulated = held;
    applied
}

/// `v` no longer than `max` (a drive's bound): as glam clamps it while its square is finite,
/// by its direction where the square overflows (glam's would collapse it to zero).
pub(super) fn clamp_drive(v: Vec2, max: f32) -> Vec2 {
    if v.length_squared().is_finite() {
        v.clamp_length_max(max)
    } else {
        clamp_length(v, max)
    }
}

/// A motor's or drive's bound on its accumulated impulse: its max force (or torque) over
/// the substep, and never past `MAX_IMPULSE` (an unbounded drive's is infinite).
pub(super) fn drive_bound(h: f32, max_force: f32) -> f32 {
    (h * max_force).min(MAX_IMPULSE)
}
