//! The shapes and their frame: convex [`Polygon`]s (at most [`MAX_POLYGON_VERTICES`]
//! vertices, counter-clockwise, in their local frame), [`Circle`]s, [`Capsule`]s,
//! [`Segment`]s and [`ChainSegment`]s, the [`Shape`] that is one of them, a world body's
//! [`BodyShape`] (one shape, a chain, or the convex pieces [`decompose`] cuts a concave
//! outline into), the rigid [`Transform`] from a shape's frame to the world's, and the
//! [`Aabb`] the broad phase sorts.
//!
//! Every constructor checks what it is given and returns a [`ShapeError`] naming the bad
//! point or value, so a shape that exists is one the narrow phases can take: finite,
//! convex, counter-clockwise, with no repeated point.

pub(crate) mod aabb;
pub(crate) mod body_shape;
pub(crate) mod capsule;
pub(crate) mod circle;
pub(crate) mod decompose;
pub(crate) mod polygon;
pub(crate) mod segment;
pub(crate) mod shape;
#[cfg(feature = "serde")]
pub(crate) mod shape_serde;
pub(crate) mod transform;

pub use aabb::Aabb;
pub use body_shape::BodyShape;
pub use capsule::Capsule;
pub use circle::Circle;
pub use decompose::decompose;
pub use polygon::{MAX_POLYGON_VERTICES, Polygon, ShapeError};
pub use segment::{ChainSegment, Segment};
pub use shape::Shape;
pub use transform::Transform;
