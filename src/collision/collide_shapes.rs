//! Every pair of shapes to its test: two sharp polygons to the polygon SAT (`sat.rs`), a
//! circle with a sharp polygon or a circle to `sat_circle.rs`, and every pair with a rounded
//! polygon, a capsule, a segment or a chain link to the rounded-core SAT (`sat_rounded.rs`).
//! The kernel (`shaders/sat_rounded.wgsl`) routes a pair the same way.
//!
//! ```text
//! collide_shapes_speculative(A, B, margin):
//!     both sharp polygons          -> collide_within          (sat.rs)
//!     sharp polygon and circle     -> polygon_circle_within / circle_polygon_within
//!     two circles                  -> circles_within          (sat_circle.rs)
//!     two chain links              -> none: level geometry never meets itself
//!     one chain link               -> collide_chain_segment, link first, flipped back
//!     anything else                -> collide_rounded         (sat_rounded.rs)
//! ```

use crate::collision::manifold::Manifold;
use crate::collision::sat::collide_within;
use crate::collision::sat_circle::{circle_polygon_within, circles_within, polygon_circle_within};
use crate::collision::sat_rounded::{collide_chain_segment, collide_rounded, flip_rounded};
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// [`collide`](crate::collide) for any two shapes: polygons, circles, or one of each (see `sat_circle.rs`).
/// Same conventions: `None` when separated or touching (or beyond f32's range), normal
/// from A to B, every manifold finite.
///
/// ```
/// use wgpu_sat::{collide_shapes, glam::Vec2, Circle, Polygon, Shape, Transform};
/// let ground = Shape::from(Polygon::rectangle(5.0, 0.5));
/// let ball = Shape::from(Circle::new(0.5)?);
/// let m = collide_shapes(&ground, &Transform::IDENTITY,
///                        &ball, &Transform::new(Vec2::new(0.0, 0.9), 0.0)).unwrap();
/// assert!((m.normal - Vec2::Y).length() < 1e-6);
/// assert!((m.depth - 0.1).abs() < 1e-5);
/// # Ok::<(), wgpu_sat::ShapeError>(())
/// ```
pub fn collide_shapes(
    a: &Shape,
    a_transform: &Transform,
    b: &Shape,
    b_transform: &Transform,
) -> Option<Manifold> {
    collide_shapes_speculative(a, a_transform, b, b_transform, 0.0)
}

/// [`collide_shapes`] with a speculative distance, as [`World`](crate::World) asks for it:
/// shapes apart by less than `margin` (0 or more, finite) also get a manifold, and a point
/// of it that is `g` apart has `depth = -g`. A solver lets such a contact close its gap but
/// not pass it, so a body resting on another keeps its contact (and its warm start) from
/// step to step instead of losing it each time it is pushed out to the surface. With
/// `margin` 0 this is [`collide_shapes`]: touching is not overlapping.
///
/// ```
/// use wgpu_sat::{collision::collide_shapes_speculative, glam::Vec2, Polygon, Shape, Transform};
/// let ground = Shape::from(Polygon::rectangle(5.0, 0.5));
/// let crate_ = Shape::from(Polygon::rectangle(0.5, 0.5));
/// let above = Transform::new(Vec2::new(0.0, 1.01), 0.0); // 0.01 above the ground
/// let m = collide_shapes_speculative(&ground, &Transform::IDENTITY, &crate_, &above, 0.02)
///     .unwrap();
/// assert!((m.depth + 0.01).abs() < 1e-5 && m.points().len() == 2);
/// assert!(collide_shapes_speculative(&ground, &Transform::IDENTITY, &crate_, &above, 0.005)
///     .is_none());
/// # Ok::<(), wgpu_sat::ShapeError>(())
/// ```
pub fn collide_shapes_speculative(
    a: &Shape,
    a_transform: &Transform,
    b: &Shape,
    b_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let sharp = |s: &Shape| s.as_polygon().is_some_and(|p| p.radius() == 0.0);
    match (a, b) {
        (Shape::Polygon(pa), Shape::Polygon(pb)) if sharp(a) && sharp(b) => {
            collide_within(pa, a_transform, pb, b_transform, margin)
        }
        (Shape::Polygon(pa), Shape::Circle(cb)) if sharp(a) => {
            polygon_circle_within(pa, a_transform, cb, b_transform, margin)
        }
        (Shape::Circle(ca), Shape::Polygon(pb)) if sharp(b) => {
            circle_polygon_within(ca, a_transform, pb, b_transform, margin)
        }
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            circles_within(ca, a_transform, cb, b_transform, margin)
        }
        // Two chain links are level geometry: they never meet.
        (Shape::ChainSegment(_), Shape::ChainSegment(_)) => None,
        (Shape::ChainSegment(link), _) => {
            collide_chain_segment(link, a_transform, &b.rounded(), b_transform, margin)
        }
        (_, Shape::ChainSegment(link)) => {
            collide_chain_segment(link, b_transform, &a.rounded(), a_transform, margin)
                .map(flip_rounded)
        }
        _ => collide_rounded(&a.rounded(), a_transform, &b.rounded(), b_transform, margin),
    }
}
