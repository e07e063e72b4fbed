//! The collision stage in one call: colliders in, the contacts of every pair that overlaps
//! (or comes within the speculative distance) out. The CPU twin of the GPU collision
//! pipeline (`gpu/collision/`), stage for stage:
//!
//! ```text
//! find_contacts(shapes, colliders, margin):
//!     check the margin and the colliders (shape index, finite pose), the first bad named
//!     collider_boxes: each collider's box, grown by half the margin on every side: two
//!                     colliders within the margin have boxes that overlap
//!     the broad phase: the pairs of overlapping or touching boxes, ascending
//!     the narrow phase: per pair, collide_shapes_speculative within the margin
//!     the contacts of the pairs that have a manifold, in pair order
//! ```
//!
//! Unlike the world's stage, it keeps nothing from call to call (no fat boxes, no kept
//! manifolds): its output depends on the colliders alone, which is what lets the GPU's
//! answer be checked against it call by call.

use crate::broad_phase::BroadPhase;
use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::{
    Collider, CpuNarrowPhase, NarrowPhase, check_colliders, check_speculative_distance,
};
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::shape::Shape;

/// The contacts of every pair of `colliders` whose shapes overlap or lie less than `margin`
/// apart (a speculative contact, negative depths), in ascending pair order, each `[a, b]`
/// with `a < b` and the normal from `a` to `b`: a broad phase over the colliders' boxes,
/// then the narrow phase over its pairs. `shapes` is the table [`Collider::shape`] indexes.
///
/// Errors, naming the item: a margin out of range
/// ([`BatchError::InvalidSpeculativeDistance`](crate::error::BatchError::InvalidSpeculativeDistance)),
/// a shape index out of range or a non-finite pose (the first such collider).
///
/// ```
/// use wgpu_sat::{collision::find_contacts, glam::Vec2, Collider, Polygon, Shape, Transform};
/// let shapes = [Shape::from(Polygon::rectangle(0.5, 0.5))];
/// let at = |x: f32| Collider { shape: 0, transform: Transform::new(Vec2::new(x, 0.0), 0.0) };
/// // 0 and 1 overlap; 2 is 0.05 from 1, within the 0.1 margin; 3 is far.
/// let colliders = [at(0.0), at(0.9), at(1.95), at(9.0)];
/// let contacts = find_contacts(&shapes, &colliders, 0.1)?;
/// let pairs: Vec<_> = contacts.iter().map(|c| [c.a, c.b]).collect();
/// assert_eq!(pairs, [[0, 1], [1, 2]]);
/// assert!(contacts[1].manifold.depth < 0.0);
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub fn find_contacts(
    shapes: &[Shape],
    colliders: &[Collider],
    margin: f32,
) -> Result<Vec<Contact>, Error> {
    check_speculative_distance(margin)?;
    check_colliders(shapes.len(), colliders)?;
    let mut boxes = Vec::new();
    collider_boxes(shapes, colliders, margin, &mut boxes);
    let pairs = BroadPhase::new().find_pairs(&boxes).to_vec();
    let mut narrow = CpuNarrowPhase::new();
    narrow.set_shape_table(shapes)?;
    narrow.set_speculative_distance(margin)?;
    narrow.collide_pairs(colliders, &pairs)
}

/// Each collider's box in the world frame, grown by half of `margin` on every side, into
/// `out` (replaced): two shapes less than `margin` apart have boxes that overlap, since
/// their gap along either axis is at most their distance. Colliders checked
/// ([`check_colliders`]) before.
pub(crate) fn collider_boxes(
    shapes: &[Shape],
    colliders: &[Collider],
    margin: f32,
    out: &mut Vec<Aabb>,
) {
    out.clear();
    out.extend(colliders.iter().map(|c| {
        shapes[c.shape as usize]
            .aabb(&c.transform)
            .expanded(0.5 * margin)
    }));
}
