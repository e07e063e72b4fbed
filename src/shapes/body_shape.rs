//! What a body is made of: one convex shape, or several convex pieces that move as one
//! (a concave outline split by [`decompose`](crate::decompose), or any compound).
//!
//! Every piece is given in the body's local frame, so all pieces of a body share the body's
//! transform; the narrow phase sees each piece as its own collider and the world reports
//! and solves their contacts per body. Mass properties add up over the pieces:
//!
//! ```text
//! mass    M = sum m_i                       (m_i = density_i * area_i: a density per piece)
//! centre  C = sum m_i c_i / M               (c_i = piece centroid, local frame)
//! inertia I = sum (I_i + m_i |c_i - C|^2)   (I_i about the piece's centroid; parallel axes)
//! ```

use glam::Vec2;

use crate::shapes::aabb::Aabb;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::{Polygon, ShapeError};
use crate::shapes::segment::{ChainSegment, Segment};
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// The convex pieces of one body, in its local frame (at least one).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::BodyShapeData",
        into = "crate::shapes::shape_serde::BodyShapeData"
    )
)]
pub struct BodyShape {
    pieces: Vec<Shape>,
}

impl From<Shape> for BodyShape {
    fn from(shape: Shape) -> BodyShape {
        BodyShape {
            pieces: vec![shape],
        }
    }
}

impl From<Polygon> for BodyShape {
    fn from(polygon: Polygon) -> BodyShape {
        BodyShape::from(Shape::Polygon(polygon))
    }
}

impl From<Capsule> for BodyShape {
    fn from(capsule: Capsule) -> BodyShape {
        BodyShape::from(Shape::Capsule(capsule))
    }
}

impl From<Segment> for BodyShape {
    fn from(segment: Segment) -> BodyShape {
        BodyShape::from(Shape::Segment(segment))
    }
}

impl From<Circle> for BodyShape {
    fn from(circle: Circle) -> BodyShape {
        BodyShape::from(Shape::Circle(circle))
    }
}

/// Mass, centre of mass (local frame) and rotational inertia about the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassProperties {
    pub mass: f32,
    pub center: Vec2,
    pub inertia: f32,
}

impl BodyShape {
    /// A body of several convex pieces, each in the body's local frame. Pieces may overlap
    /// (their mass then counts twice) but never collide with each other. Errors when
    /// `pieces` is empty.
    pub fn compound(pieces: Vec<Shape>) -> Result<BodyShape, ShapeError> {
        if pieces.is_empty() {
            return Err(ShapeError::NoPieces);
        }
        Ok(BodyShape { pieces })
    }

    /// A concave (or convex) polygon outline, split into convex pieces of at most
    /// [`MAX_POLYGON_VERTICES`](crate::MAX_POLYGON_VERTICES) vertices by
    /// [`decompose`](crate::decompose). A self-intersecting outline is an error that names
    /// two crossing edges.
    pub fn concave(outline: &[Vec2]) -> Result<BodyShape, ShapeError> {
        let pieces = crate::decompose(outline)?;
        BodyShape::compound(pieces.into_iter().map(Shape::Polygon).collect())
    }

    /// A chain: one-sided segments through `points` in order ([`ChainSegment`]s), each
    /// knowing its neighbours' far vertices as ghost vertices, so that a body sliding
    /// along the chain does not catch on the vertices between links. The free side is on
    /// the right of the direction of travel along the points (as the outward normals of a
    /// counter-clockwise polygon): ground drawn from right to left is hit from above, a
    /// counter-clockwise `closed` loop is a solid island and a clockwise one a container.
    /// `closed` joins the last point to the first.
    ///
    /// A chain has no area: it belongs on a static body. Errors: fewer than 2 points (3
    /// when closed), a non-finite point, or two consecutive points that coincide (the last
    /// and the first, when closed), each naming the point.
    ///
    /// ```
    /// use wgpu_sat::{BodyShape, glam::Vec2};
    /// let ground = [Vec2::new(10.0, 0.0), Vec2::new(0.0, 0.0), Vec2::new(-10.0, 1.0)];
    /// let chain = BodyShape::chain(&ground, false)?;
    /// assert_eq!(chain.pieces().len(), 2);
    /// assert!(BodyShape::chain(&ground[..1], false).is_err());
    /// # Ok::<(), wgpu_sat::ShapeError>(())
    /// ```
    pub fn chain(points: &[Vec2], closed: bool) -> Result<BodyShape, ShapeError> {
        let count = points.len();
        if count < 2 || (closed && count < 3) {
            return Err(ShapeError::TooFewChainPoints { count });
        }
        crate::shapes::polygon::check_finite(points)?;
        let links = if closed { count } else { count - 1 };
        let at = |i: usize| points[i % count];
        let mut pieces = Vec::with_capacity(links);
        for i in 0..links {
            let (a, b) = (at(i), at(i + 1));
            if crate::shapes::segment::check_ends(a, b).is_err() {
                return Err(ShapeError::RepeatedPoint {
                    first: i,
                    second: (i + 1) % count,
                });
            }
            // An open chain's first and last links have a free end: the ghost is the end.
            let ghost_a = if closed || i > 0 {
                at(i + count - 1)
            } else {
                a
            };
            let ghost_b = if closed || i + 1 < links {
                at(i + 2)
            } else {
                b
            };
            pieces.push(Shape::ChainSegment(ChainSegment::new(
                ghost_a, a, b, ghost_b,
            )?));
        }
        BodyShape::compound(pieces)
    }

    /// The convex pieces, in the body's local frame.
    pub fn pieces(&self) -> &[Shape] {
        &self.pieces
    }

    /// The world-frame bounding box of all pieces placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        self.pieces
            .iter()
            .map(|p| p.aabb(transform))
            .reduce(|a, b| a.union(&b))
            .unwrap_or_default()
    }

    /// Whether any piece placed by `transform` holds the world point.
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        self.pieces
            .iter()
            .any(|p| p.contains_point(transform, point))
    }

    /// The total area of the pieces.
    pub fn area(&self) -> f32 {
        self.pieces.iter().map(Shape::area).sum()
    }

    /// The largest distance from the local point `center` to any point of the body: how far
    /// a point of it can be from its centre of rotation.
    pub(crate) fn max_extent(&self, center: Vec2) -> f32 {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Shape::Circle(c) => c.center().distance(center) + c.radius(),
                _ => {
                    let core = piece.rounded();
                    let reach = core
                        .vertices()
                        .iter()
                        .map(|v| v.distance(center))
                        .fold(0.0, f32::max);
                    reach + core.radius
                }
            })
            .fold(0.0, f32::max)
    }

    /// The thickness scale of the thinnest piece: a circle's radius, or the smallest
    /// distance from a polygon's centroid to an edge. A body that moves more than a fraction
    /// of this in one step can pass through a thin obstacle between two steps.
    pub(crate) fn min_extent(&self) -> f32 {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Shape::Polygon(p) => p.inner_radius(),
                Shape::Circle(c) => c.radius(),
                Shape::Capsule(c) => c.radius(),
                Shape::Segment(_) | Shape::ChainSegment(_) => 0.0,
            })
            .fold(f32::INFINITY, f32::min)
    }
}

/// Mass properties of pieces each of its own density (the formula in the module header): a
/// body whose pieces are of different materials.
pub(crate) fn combined_mass<'a>(pieces: impl Iterator<Item = (&'a Shape, f32)>) -> MassProperties {
    let parts: Vec<(f32, Vec2, f32)> = pieces
        .map(|(piece, density)| match piece {
            Shape::Circle(c) => {
                let mass = density * c.area();
                (mass, c.center(), 0.5 * mass * c.radius() * c.radius())
            }
            _ => (
                density * piece.area(),
                piece.centroid(),
                density * piece.polar_moment(),
            ),
        })
        .collect();
    let mass: f32 = parts.iter().map(|&(m, _, _)| m).sum();
    let center = parts.iter().map(|&(m, c, _)| m * c).sum::<Vec2>() / mass;
    let inertia = parts
        .iter()
        .map(|&(m, c, i)| i + m * c.distance_squared(center))
        .sum();
    MassProperties {
        mass,
        center,
        inertia,
    }
}
