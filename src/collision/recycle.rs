//! Contact recycling: a pair whose relative pose has barely changed since its manifold was
//! computed keeps that manifold, re-anchored to the current poses, instead of going to the
//! narrow phase again.
//!
//! ```text
//! when the narrow phase computes a manifold for colliders (a, b):
//!     keep B's pose in A's frame, and the normal and points in A's frame
//! next steps, for the same pair:
//!     (t, θ) = how far B has moved and turned in A's frame since
//!     each kept point p: d_p = t + θ (p - B's origin)⊥   (where B's side of p has gone)
//!     |θ| <= RECYCLE_ANGLE and every |d_p| <= RECYCLE_TRANSLATION:
//!         normal, points = the kept ones carried by A's current pose
//!         each point: depth -= normal · d_p, point += d_p / 2   (halfway between the surfaces)
//!     otherwise: the narrow phase computes it afresh (and it is kept anew)
//! ```
//!
//! The comparison is always with the pose at which the manifold was computed, never with
//! last step's, so the error cannot build up over steps: it is bounded by the thresholds. A
//! point's depth follows B's side of it exactly to first order; what stays off is where the
//! point lies on A's side (a clipped end sits on A's side plane, not on B) and the normal
//! when B's face is the reference, by at most the angle. It is the points' move that is
//! bounded, not that of B's origin: a piece of a concave body lies in its body's frame,
//! maybe far from the origin, and a turn within `RECYCLE_ANGLE` there moves its points by
//! the angle times that lever (4e-3 at 8 units, eight times `RECYCLE_TRANSLATION`). Bodies
//! at rest, the bulk of a settled pile or pyramid, keep their manifolds; anything that moves
//! is collided afresh. The decision depends only on the contacts and poses, so every narrow
//! phase (CPU, parallel, GPU) gives the same step.

use glam::Vec2;

use crate::collision::manifold::{Contact, ContactPoint};
use crate::collision::narrow_phase::Collider;
use crate::shapes::transform::{Transform, inv_mul_transforms};

/// The farthest B's side of a contact point may have moved in A's frame, world units, for a
/// manifold to be kept: a tenth of the solver's 0.005 slop, so a kept point's depth is off
/// by at most that much before the correction below (which follows the move to first order),
/// and a point clipped by A's side plane lies at most that far from where a fresh manifold
/// would put it along the face. (Box2D v3 recycles too, up to a move of ten slops.)
pub const RECYCLE_TRANSLATION: f32 = 5.0e-4;

/// The most B may have turned in A's frame, radians, for a manifold to be kept: the normal,
/// carried with A, is then off by at most this where B's face is the reference (the
/// points' move is bounded by [`RECYCLE_TRANSLATION`]); a point one unit from B's frame
/// (the pieces this crate is tuned for are about one unit) moves 5e-4 with such a turn, a
/// tenth of the slop.
pub const RECYCLE_ANGLE: f32 = 5.0e-4;

/// A manifold as the narrow phase computed it, in A's frame, with the pose it was computed
/// at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeptManifold {
    /// B's collider pose in A's collider frame when the manifold was computed.
    pub(crate) relative: Transform,
    /// The normal in A's frame.
    pub(crate) normal: Vec2,
    /// The depth of the manifold and of each point then.
    pub(crate) depth: f32,
    pub(crate) points: [ContactPoint; 2],
    /// Points in use (u32, not usize: with it the whole record is 64 bytes, and the pair
    /// set moves one per pair).
    pub(crate) count: u32,
}

const _: () = assert!(std::mem::size_of::<KeptManifold>() == 64);

impl KeptManifold {
    /// Keeps `contact`, computed for the colliders' current poses.
    pub fn keep(contact: &Contact, colliders: &[Collider]) -> KeptManifold {
        let a = &colliders[contact.a as usize].transform;
        let b = &colliders[contact.b as usize].transform;
        let m = &contact.manifold;
        // A one-point manifold repeats its point in the second slot, so that the recycling
        // test can look at both slots without asking how many there are.
        let points = [m.points()[0], m.points()[m.points().len() - 1]].map(|p| ContactPoint {
            point: a.inverse_transform_point(p.point),
            ..p
        });
        KeptManifold {
            relative: inv_mul_transforms(a, b),
            normal: a.inverse_rotate(m.normal),
            depth: m.depth,
            points,
            count: m.points().len() as u32,
        }
    }

    /// How far B's side of each kept point has moved in A's frame since the manifold was
    /// computed (`carried[k]`, see below), when B has turned little enough and each point
    /// moved little enough for the manifold to be kept; else `None`. The test of
    /// [`recycle_into`](Self::recycle_into), and the twin of `carried_points` in
    /// `shaders/recycle.wgsl`, where the GPU world decides which pairs are fresh.
    #[inline]
    pub(crate) fn carried_points(&self, ta: &Transform, tb: &Transform) -> Option<[Vec2; 2]> {
        let now = inv_mul_transforms(ta, tb);
        let moved = now.translation() - self.relative.translation();
        // The angle between the two rotations, from their cross product: exact enough for
        // the small angles compared here.
        let turned = self.relative.rotation().perp_dot(now.rotation());
        if turned.abs() > RECYCLE_ANGLE || self.relative.rotation().dot(now.rotation()) <= 0.0 {
            return None;
        }
        // Each point follows B's side of it: the piece of B that was at the point (A's frame)
        // when the manifold was computed has moved by `carried[k]` since, with B's
        // translation and its turn about B's origin (to first order: the angle is at most
        // RECYCLE_ANGLE, so the rest is under 1e-7 of the lever); moving along the normal
        // (away from A) by s opens the point by s, and the point, halfway between the
        // surfaces, moves by half of it (`recycle_into`). (With the translation alone, a
        // turn left each point's depth off by the angle times its lever.) A one-point
        // manifold's second slot repeats its point (see `keep`).
        let origin = self.relative.translation();
        // Both slots written out: `[_; 2]::map` was left a call of its own here.
        let carry = |kept: &ContactPoint| moved + turned * (kept.point - origin).perp();
        let carried = [carry(&self.points[0]), carry(&self.points[1])];
        let farthest = larger(carried[0].length_squared(), carried[1].length_squared());
        if farthest > RECYCLE_TRANSLATION * RECYCLE_TRANSLATION {
            return None;
        }
        Some(carried)
    }

    /// Writes the kept manifold carried to the colliders' current poses into `out` (as the
    /// contact of `a` and `b`), if B has turned little enough in A's frame since it was
    /// computed and B's side of each contact point has moved little enough; otherwise
    /// leaves `out` alone and returns false.
    pub fn recycle_into(&self, a: u32, b: u32, colliders: &[Collider], out: &mut Contact) -> bool {
        let ta = &colliders[a as usize].transform;
        let tb = &colliders[b as usize].transform;
        let Some(carried) = self.carried_points(ta, tb) else {
            return false;
        };
        let mut deepest = [f32::NEG_INFINITY; 2];
        out.a = a;
        out.b = b;
        out.manifold
            .rewrite(ta.rotate(self.normal), self.count as usize, |k| {
                let kept = &self.points[k];
                let d = carried[k];
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

/// The larger of two depths or squared lengths, by a plain comparison: they are finite (the
/// narrow phase keeps only finite manifolds, and poses are finite), so `f32::max`'s NaN
/// rules would be work for nothing.
#[inline]
fn larger(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::manifold::Manifold;

    /// A kept contact at the world origin between A (at the origin) and a B whose frame
    /// origin lies 8 units above the point, as a piece of a long concave body's would.
    fn long_lever() -> (KeptManifold, Contact) {
        let colliders = [
            Collider::default(),
            Collider {
                shape: 0,
                transform: Transform::new(Vec2::new(0.0, 8.0), 0.0),
            },
        ];
        let point = ContactPoint {
            point: Vec2::ZERO,
            depth: 1e-3,
            id: 7,
        };
        let contact = Contact {
            a: 0,
            b: 1,
            manifold: Manifold::new(Vec2::Y, 1e-3, &[point]),
        };
        (KeptManifold::keep(&contact, &colliders), contact)
    }

    /// B's collider `turned` about its origin and then moved by `shift`.
    fn b_at(turned: f32, shift: Vec2) -> [Collider; 2] {
        [
            Collider::default(),
            Collider {
                shape: 0,
                transform: Transform::new(Vec2::new(0.0, 8.0) + shift, turned),
            },
        ]
    }

    #[test]
    fn a_turn_within_the_angle_that_moves_a_far_point_too_far_is_not_recycled() {
        let (kept, contact) = long_lever();
        let mut out = contact;
        // 4e-4 rad is within RECYCLE_ANGLE, and B's origin does not move; but the point,
        // 8 units from it, moves 3.2e-3 (sideways), beyond RECYCLE_TRANSLATION.
        assert!(!kept.recycle_into(0, 1, &b_at(4e-4, Vec2::ZERO), &mut out));
        assert_eq!(out, contact, "a refused recycling leaves the output alone");
    }

    #[test]
    fn a_turn_about_the_point_itself_is_recycled_with_the_depth_kept() {
        let (kept, contact) = long_lever();
        let mut out = contact;
        // The same turn, with B shifted back so that its side of the point stays put.
        let turned = 4e-4f32;
        let back = Vec2::new(-8.0 * turned.sin(), -8.0 * (1.0 - turned.cos()));
        assert!(kept.recycle_into(0, 1, &b_at(turned, back), &mut out));
        let p = out.manifold.points()[0];
        assert!((p.depth - 1e-3).abs() < 1e-6, "depth {}", p.depth);
        assert!(p.point.length() < 1e-6, "point {}", p.point);
        assert_eq!(p.id, 7);
    }

    #[test]
    fn a_small_move_away_is_recycled_and_opens_the_contact_by_as_much() {
        let (kept, contact) = long_lever();
        let mut out = contact;
        let away = 4e-4;
        assert!(kept.recycle_into(0, 1, &b_at(0.0, Vec2::new(0.0, away)), &mut out));
        let p = out.manifold.points()[0];
        assert!((p.depth - (1e-3 - away)).abs() < 1e-6, "depth {}", p.depth);
        assert!((out.manifold.depth - (1e-3 - away)).abs() < 1e-6);
        // The point, halfway between the surfaces, follows half the move.
        assert!((p.point - Vec2::new(0.0, 0.5 * away)).length() < 1e-6);
        // Twice as far is beyond RECYCLE_TRANSLATION.
        let far = b_at(0.0, Vec2::new(0.0, 2.0 * RECYCLE_TRANSLATION));
        assert!(!kept.recycle_into(0, 1, &far, &mut out));
    }
}
