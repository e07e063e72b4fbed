//! Contact recycling: a pair whose relative pose has barely changed since its manifold was
//! computed keeps that manifold, re-anchored to the current poses, instead of going to the
//! narrow phase again.
//!
//! ```text
//! when the narrow phase computes a manifold for colliders (a, b):
//!     keep B's pose in A's frame, and the normal and points in A's frame
//! next steps, for the same pair:
//!     d = B's pose in A's frame now, against the kept one (translation, angle)
//!     |d.translation| <= RECYCLE_TRANSLATION and |d.angle| <= RECYCLE_ANGLE:
//!         normal, points = the kept ones carried by A's current pose
//!         each point: B's side of it moved by d_p (B's translation and turn in A's frame)
//!             depth -= normal · d_p, point += d_p / 2       (halfway between the surfaces)
//!     otherwise: the narrow phase computes it afresh (and it is kept anew)
//! ```
//!
//! The comparison is always with the pose at which the manifold was computed, never with
//! last step's, so the error cannot build up over steps: it is bounded by the thresholds (a
//! point's depth by `RECYCLE_TRANSLATION`'s rounding of the normal's direction plus
//! `RECYCLE_ANGLE` times the point's distance from B's frame). Bodies at rest, the bulk of a
//! settled pile or pyramid, keep their manifolds; anything that moves is collided afresh. The
//! decision depends only on the contacts and poses, so every narrow phase (CPU, parallel,
//! GPU) gives the same step.

use glam::Vec2;

use crate::manifold::{Contact, ContactPoint};
use crate::narrow_phase::Collider;
use crate::transform::{Transform, inv_mul_transforms};

/// The farthest B may have moved in A's frame, world units, for a manifold to be kept: a
/// tenth of the solver's 0.005 slop, so a kept point's depth is off by at most that much
/// along the normal before the correction below, and by rounding after it.
pub const RECYCLE_TRANSLATION: f32 = 5.0e-4;

/// The most B may have turned in A's frame, radians, for a manifold to be kept: a point one
/// unit from B's frame (the pieces this crate is tuned for are about one unit) moves 5e-4,
/// a tenth of the slop.
pub const RECYCLE_ANGLE: f32 = 5.0e-4;

/// A manifold as the narrow phase computed it, in A's frame, with the pose it was computed
/// at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeptManifold {
    /// B's collider pose in A's collider frame when the manifold was computed.
    relative: Transform,
    /// The normal in A's frame.
    normal: Vec2,
    /// The depth of the manifold and of each point then.
    depth: f32,
    points: [ContactPoint; 2],
    /// Points in use (u32, not usize: with it the whole record is 64 bytes, and the pair
    /// set moves one per pair).
    count: u32,
}

const _: () = assert!(std::mem::size_of::<KeptManifold>() == 64);

impl KeptManifold {
    /// Keeps `contact`, computed for the colliders' current poses.
    pub fn keep(contact: &Contact, colliders: &[Collider]) -> KeptManifold {
        let a = &colliders[contact.a as usize].transform;
        let b = &colliders[contact.b as usize].transform;
        let m = &contact.manifold;
        let mut points = [ContactPoint {
            point: Vec2::ZERO,
            depth: 0.0,
            id: 0,
        }; 2];
        for (kept, p) in points.iter_mut().zip(m.points()) {
            *kept = ContactPoint {
                point: a.inverse_transform_point(p.point),
                ..*p
            };
        }
        KeptManifold {
            relative: inv_mul_transforms(a, b),
            normal: a.inverse_rotate(m.normal),
            depth: m.depth,
            points,
            count: m.points().len() as u32,
        }
    }

    /// Writes the kept manifold carried to the colliders' current poses into `out` (as the
    /// contact of `a` and `b`), if B has moved and turned little enough in A's frame since
    /// it was computed; otherwise leaves `out` alone and returns false.
    pub fn recycle_into(&self, a: u32, b: u32, colliders: &[Collider], out: &mut Contact) -> bool {
        let ta = &colliders[a as usize].transform;
        let tb = &colliders[b as usize].transform;
        let now = inv_mul_transforms(ta, tb);
        let moved = now.translation() - self.relative.translation();
        // The angle between the two rotations, from their cross product: exact enough for
        // the small angles compared here.
        let turned = self.relative.rotation().perp_dot(now.rotation());
        if moved.length_squared() > RECYCLE_TRANSLATION * RECYCLE_TRANSLATION
            || turned.abs() > RECYCLE_ANGLE
            || self.relative.rotation().dot(now.rotation()) <= 0.0
        {
            return false;
        }
        // Each point follows B's side of it: the piece of B that was at the point (A's frame)
        // when the manifold was computed has moved by `d` since, with B's translation and
        // its turn about B's origin (to first order: the angle is at most RECYCLE_ANGLE, so
        // the rest is under 1e-7 of the lever); moving along the normal (away from A) by s
        // opens the point by s, and the point, halfway between the surfaces, moves by half
        // of `d`. (With the translation alone, a turn left each point's depth off by the
        // angle times its lever.)
        let origin = self.relative.translation();
        let mut deepest = [f32::NEG_INFINITY; 2];
        out.a = a;
        out.b = b;
        out.manifold
            .rewrite(ta.rotate(self.normal), self.count as usize, |k| {
                let kept = &self.points[k];
                let d = moved + turned * (kept.point - origin).perp();
                let depth = kept.depth - self.normal.dot(d);
                deepest = [larger(deepest[0], kept.depth), larger(deepest[1], depth)];
                ContactPoint {
                    point: ta.transform_point(kept.point + 0.5 * d),
                    depth,
                    id: kept.id,
                }
            });
        // The manifold's depth moves with its deepest point.
        out.manifold.depth = self.depth + (deepest[1] - deepest[0]);
        true
    }
}

/// The larger of two depths, by a plain comparison: the depths are finite (the narrow phase
/// keeps only finite manifolds), so `f32::max`'s NaN rules would be work for nothing.
#[inline]
fn larger(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}
