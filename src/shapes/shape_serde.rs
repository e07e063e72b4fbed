//! The serialized forms of the shapes (the `serde` feature): plain mirrors of their
//! defining values, read back through the shapes' own constructors.
//!
//! ```text
//! Polygon      { vertices: [[x, y], ...], radius }   -> Polygon::new, with_radius
//! Circle       { center: [x, y], radius }            -> Circle::with_center
//! Capsule      { a, b, radius }                      -> Capsule::new
//! Segment      { a, b }                              -> Segment::new
//! ChainSegment { ghost_a, a, b, ghost_b }            -> ChainSegment::new
//! BodyShape    { pieces: [Shape, ...] }              -> BodyShape::compound
//! ```
//!
//! A shape's fields hold invariants its constructor checked (a convex counter-clockwise
//! polygon with unit normals, a finite positive radius, ...); deriving `Deserialize` on
//! the fields themselves would let a saved file build a shape that never passed those
//! checks. So each shape reads its mirror and converts it (`#[serde(try_from)]`): bad input
//! is refused with the constructor's own [`ShapeError`] message. Only the defining values
//! are written (a polygon's normals, centroid and bounds are recomputed), so a file stays
//! small and cannot disagree with itself.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::shapes::body_shape::BodyShape;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::{Polygon, ShapeError};
use crate::shapes::segment::{ChainSegment, Segment};
use crate::shapes::shape::Shape;

/// A mirror struct `$data` of `$shape`'s defining values, read from a shape `$s` by the
/// expressions given, and turned back into a shape by `$build` (its constructor, on the
/// mirror `$d`).
macro_rules! mirror {
    (
        $(#[$doc:meta])*
        $data:ident => $shape:ty, |$s:ident| { $($field:ident: $ty:ty = $read:expr),* $(,)? },
        |$d:ident| $build:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Serialize, Deserialize)]
        pub(crate) struct $data {
            $($field: $ty),*
        }

        impl From<$shape> for $data {
            fn from($s: $shape) -> Self {
                $data { $($field: $read),* }
            }
        }

        impl TryFrom<$data> for $shape {
            type Error = ShapeError;
            fn try_from($d: $data) -> Result<Self, ShapeError> {
                $build
            }
        }
    };
}

mirror! {
    /// [`Polygon`]: its core vertices, counter-clockwise, and its rounding radius.
    PolygonData => Polygon, |p| {
        vertices: Vec<Vec2> = p.vertices().to_vec(),
        radius: f32 = p.radius(),
    },
    |d| Polygon::new(&d.vertices)?.with_radius(d.radius)
}

mirror! {
    /// [`Circle`].
    CircleData => Circle, |c| { center: Vec2 = c.center(), radius: f32 = c.radius() },
    |d| Circle::with_center(d.center, d.radius)
}

mirror! {
    /// [`Capsule`].
    CapsuleData => Capsule, |c| { a: Vec2 = c.a(), b: Vec2 = c.b(), radius: f32 = c.radius() },
    |d| Capsule::new(d.a, d.b, d.radius)
}

mirror! {
    /// [`Segment`].
    SegmentData => Segment, |s| { a: Vec2 = s.a(), b: Vec2 = s.b() },
    |d| Segment::new(d.a, d.b)
}

mirror! {
    /// [`ChainSegment`].
    ChainSegmentData => ChainSegment, |c| {
        ghost_a: Vec2 = c.ghost_a(),
        a: Vec2 = c.segment().a(),
        b: Vec2 = c.segment().b(),
        ghost_b: Vec2 = c.ghost_b(),
    },
    |d| ChainSegment::new(d.ghost_a, d.a, d.b, d.ghost_b)
}

mirror! {
    /// [`BodyShape`]: its pieces (at least one).
    BodyShapeData => BodyShape, |s| { pieces: Vec<Shape> = s.pieces().to_vec() },
    |d| BodyShape::compound(d.pieces)
}
