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

use crate::body_shape::BodyShape;
use crate::capsule::Capsule;
use crate::circle::Circle;
use crate::polygon::{Polygon, ShapeError};
use crate::segment::{ChainSegment, Segment};
use crate::shape::Shape;

/// [`Polygon`]: its core vertices, counter-clockwise, and its rounding radius.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct PolygonData {
    vertices: Vec<Vec2>,
    radius: f32,
}

impl From<Polygon> for PolygonData {
    fn from(p: Polygon) -> Self {
        PolygonData {
            vertices: p.vertices().to_vec(),
            radius: p.radius(),
        }
    }
}

impl TryFrom<PolygonData> for Polygon {
    type Error = ShapeError;
    fn try_from(d: PolygonData) -> Result<Self, ShapeError> {
        Polygon::new(&d.vertices)?.with_radius(d.radius)
    }
}

/// [`Circle`].
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct CircleData {
    center: Vec2,
    radius: f32,
}

impl From<Circle> for CircleData {
    fn from(c: Circle) -> Self {
        CircleData {
            center: c.center(),
            radius: c.radius(),
        }
    }
}

impl TryFrom<CircleData> for Circle {
    type Error = ShapeError;
    fn try_from(d: CircleData) -> Result<Self, ShapeError> {
        Circle::with_center(d.center, d.radius)
    }
}

/// [`Capsule`].
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct CapsuleData {
    a: Vec2,
    b: Vec2,
    radius: f32,
}

impl From<Capsule> for CapsuleData {
    fn from(c: Capsule) -> Self {
        CapsuleData {
            a: c.a(),
            b: c.b(),
            radius: c.radius(),
        }
    }
}

impl TryFrom<CapsuleData> for Capsule {
    type Error = ShapeError;
    fn try_from(d: CapsuleData) -> Result<Self, ShapeError> {
        Capsule::new(d.a, d.b, d.radius)
    }
}

/// [`Segment`].
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct SegmentData {
    a: Vec2,
    b: Vec2,
}

impl From<Segment> for SegmentData {
    fn from(s: Segment) -> Self {
        SegmentData { a: s.a(), b: s.b() }
    }
}

impl TryFrom<SegmentData> for Segment {
    type Error = ShapeError;
    fn try_from(d: SegmentData) -> Result<Self, ShapeError> {
        Segment::new(d.a, d.b)
    }
}

/// [`ChainSegment`].
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct ChainSegmentData {
    ghost_a: Vec2,
    a: Vec2,
    b: Vec2,
    ghost_b: Vec2,
}

impl From<ChainSegment> for ChainSegmentData {
    fn from(c: ChainSegment) -> Self {
        ChainSegmentData {
            ghost_a: c.ghost_a(),
            a: c.segment().a(),
            b: c.segment().b(),
            ghost_b: c.ghost_b(),
        }
    }
}

impl TryFrom<ChainSegmentData> for ChainSegment {
    type Error = ShapeError;
    fn try_from(d: ChainSegmentData) -> Result<Self, ShapeError> {
        ChainSegment::new(d.ghost_a, d.a, d.b, d.ghost_b)
    }
}

/// [`BodyShape`]: its pieces (at least one).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct BodyShapeData {
    pieces: Vec<Shape>,
}

impl From<BodyShape> for BodyShapeData {
    fn from(s: BodyShape) -> Self {
        BodyShapeData {
            pieces: s.pieces().to_vec(),
        }
    }
}

impl TryFrom<BodyShapeData> for BodyShape {
    type Error = ShapeError;
    fn try_from(d: BodyShapeData) -> Result<Self, ShapeError> {
        BodyShape::compound(d.pieces)
    }
}
