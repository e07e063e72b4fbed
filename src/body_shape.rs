//! What a body is made of: one convex shape, or several convex pieces that move as one
//! (a concave outline split by [`decompose`](crate::decompose), or any compound).
//!
//! Every piece is given in the body's local frame, so all pieces of a body share the body's
//! transform; the narrow phase sees each piece as its own collider and the world reports
//! and solves their contacts per body. Mass properties add up over the pieces:
//!
//! ```text
//! mass    M = sum m_i                       (m_i = density * area_i)
//! centre  C = sum m_i c_i / M               (c_i = piece centroid, local frame)
//! inertia I = sum (I_i + m_i |c_i - C|^2)   (I_i about the piece's centroid; parallel axes)
//! ```

use glam::Vec2;

use crate::aabb::Aabb;
use crate::circle::Circle;
use crate::polygon::{Polygon, ShapeError};
use crate::shape::Shape;
use crate::transform::Transform;

/// The convex pieces of one body, in its local frame (at least one).
#[derive(Clone, Debug, PartialEq)]
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

    /// Mass properties at `density`: the pieces' masses, centroids and inertias combined
    /// with the parallel axis theorem.
    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties {
        let parts: Vec<(f32, Vec2, f32)> = self
            .pieces
            .iter()
            .map(|piece| match piece {
                Shape::Polygon(p) => (density * p.area(), p.centroid(), density * p.polar_moment()),
                Shape::Circle(c) => {
                    let mass = density * c.area();
                    (mass, c.center(), 0.5 * mass * c.radius() * c.radius())
                }
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

    /// The largest distance from the local point `center` to any point of the body: how far
    /// a point of it can be from its centre of rotation.
    pub(crate) fn max_extent(&self, center: Vec2) -> f32 {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Shape::Polygon(p) => p
                    .vertices()
                    .iter()
                    .map(|v| v.distance(center))
                    .fold(0.0, f32::max),
                Shape::Circle(c) => c.center().distance(center) + c.radius(),
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
            })
            .fold(f32::INFINITY, f32::min)
    }
}
