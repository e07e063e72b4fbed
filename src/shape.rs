//! The shape enum: a convex [`Polygon`] or a [`Circle`], what a shape table holds.
//!
//! Each shape lives in its own file (`polygon.rs`, `circle.rs`); this one only dispatches
//! between them, so neither of the two depends on the other.

use glam::Vec2;

use crate::aabb::Aabb;
use crate::circle::Circle;
use crate::polygon::Polygon;
use crate::transform::Transform;

/// Any convex shape the narrow phase takes: a polygon or a circle. This is what a shape
/// table holds ([`NarrowPhase::set_shape_table`](crate::NarrowPhase::set_shape_table)) and
/// what a body is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A convex polygon.
    Polygon(Polygon),
    /// A circle.
    Circle(Circle),
}

impl From<Polygon> for Shape {
    fn from(polygon: Polygon) -> Shape {
        Shape::Polygon(polygon)
    }
}

impl From<Circle> for Shape {
    fn from(circle: Circle) -> Shape {
        Shape::Circle(circle)
    }
}

impl Shape {
    /// The world-frame bounding box of the shape placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        match self {
            Shape::Polygon(p) => p.aabb(transform),
            Shape::Circle(c) => c.aabb(transform),
        }
    }

    /// Whether the world point lies in the shape placed by `transform`.
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        match self {
            Shape::Polygon(p) => p.contains_point(transform, point),
            Shape::Circle(c) => c.contains_point(transform, point),
        }
    }

    /// The area centroid in the local frame.
    pub fn centroid(&self) -> Vec2 {
        match self {
            Shape::Polygon(p) => p.centroid(),
            Shape::Circle(c) => c.center(),
        }
    }

    /// The area.
    pub fn area(&self) -> f32 {
        match self {
            Shape::Polygon(p) => p.area(),
            Shape::Circle(c) => c.area(),
        }
    }

    /// The length scale: the polygon's centroid-to-vertex radius, or the circle's radius.
    pub fn radius(&self) -> f32 {
        match self {
            Shape::Polygon(p) => p.radius(),
            Shape::Circle(c) => c.radius(),
        }
    }

    /// The polygon, if this is one.
    pub fn as_polygon(&self) -> Option<&Polygon> {
        match self {
            Shape::Polygon(p) => Some(p),
            Shape::Circle(_) => None,
        }
    }

    /// The circle, if this is one.
    pub fn as_circle(&self) -> Option<&Circle> {
        match self {
            Shape::Circle(c) => Some(c),
            Shape::Polygon(_) => None,
        }
    }
}
