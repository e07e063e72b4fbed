//! The shape enum: what a shape table holds and what a body is built from. A convex
//! [`Polygon`] (sharp or rounded), a [`Circle`], a [`Capsule`], a [`Segment`], or one link
//! of a chain ([`ChainSegment`]).
//!
//! Each shape lives in its own file (`polygon.rs`, `circle.rs`, `capsule.rs`,
//! `segment.rs`); this one only dispatches between them, so none depends on another. Every
//! shape is also a core of 1 to 8 vertices grown by a radius (`rounded.rs`), the form the
//! rounded narrow phase takes.

use glam::Vec2;

use crate::collision::rounded::Rounded;
use crate::shapes::aabb::Aabb;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::shapes::segment::{ChainSegment, Segment};
use crate::shapes::transform::Transform;

/// Any convex shape the narrow phase takes. This is what a shape table holds
/// ([`NarrowPhase::set_shape_table`](crate::NarrowPhase::set_shape_table)) and what a body
/// is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Shape {
    /// A convex polygon, sharp or rounded ([`Polygon::with_radius`]).
    Polygon(Polygon),
    /// A circle.
    Circle(Circle),
    /// A capsule: two centres and a radius.
    Capsule(Capsule),
    /// A segment, of no area (for static or moved bodies).
    Segment(Segment),
    /// One link of a chain ([`BodyShape::chain`](crate::BodyShape::chain)): a one-sided
    /// segment with ghost vertices, of no area.
    ChainSegment(ChainSegment),
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

impl From<Capsule> for Shape {
    fn from(capsule: Capsule) -> Shape {
        Shape::Capsule(capsule)
    }
}

impl From<Segment> for Shape {
    fn from(segment: Segment) -> Shape {
        Shape::Segment(segment)
    }
}

impl From<ChainSegment> for Shape {
    fn from(link: ChainSegment) -> Shape {
        Shape::ChainSegment(link)
    }
}

impl Shape {
    /// The world-frame bounding box of the shape placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        match self {
            Shape::Polygon(p) => p.aabb(transform),
            Shape::Circle(c) => c.aabb(transform),
            Shape::Capsule(c) => c.aabb(transform),
            Shape::Segment(s) => s.aabb(transform),
            Shape::ChainSegment(s) => s.segment().aabb(transform),
        }
    }

    /// Whether the world point lies in the shape placed by `transform`. Never for a segment
    /// or a chain link, which have no inside.
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        match self {
            Shape::Polygon(p) => p.contains_point(transform, point),
            Shape::Circle(c) => c.contains_point(transform, point),
            Shape::Capsule(c) => c.contains_point(transform, point),
            Shape::Segment(_) | Shape::ChainSegment(_) => false,
        }
    }

    /// The area centroid in the local frame (a segment's midpoint).
    pub fn centroid(&self) -> Vec2 {
        match self {
            Shape::Polygon(p) => p.centroid(),
            Shape::Circle(c) => c.center(),
            Shape::Capsule(c) => 0.5 * (c.a() + c.b()),
            Shape::Segment(s) => 0.5 * (s.a() + s.b()),
            Shape::ChainSegment(s) => 0.5 * (s.segment().a() + s.segment().b()),
        }
    }

    /// The area (0 for a segment or a chain link).
    pub fn area(&self) -> f32 {
        match self {
            Shape::Polygon(p) => p.area(),
            Shape::Circle(c) => c.area(),
            Shape::Capsule(c) => c.area(),
            Shape::Segment(_) | Shape::ChainSegment(_) => 0.0,
        }
    }

    /// The polar moment of area about the centroid (`∫ r² dA`, the rotational inertia at
    /// unit density); 0 for a segment or a chain link.
    pub fn polar_moment(&self) -> f32 {
        match self {
            Shape::Polygon(p) => p.polar_moment(),
            Shape::Circle(c) => 0.5 * c.area() * c.radius() * c.radius(),
            Shape::Capsule(c) => c.rounded().mass((0.0, Vec2::ZERO, 0.0)).2,
            Shape::Segment(_) | Shape::ChainSegment(_) => 0.0,
        }
    }

    /// The length scale: a polygon's centroid-to-vertex radius (of its core), a circle's
    /// radius, half a segment's length, and half a capsule's length plus its radius.
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Shape::Polygon(p) => p.bounding_radius(),
            Shape::Circle(c) => c.radius(),
            _ => self.rounded().scale,
        }
    }

    /// Whether a contact normal turns as the other shape slides along this one (a circle, a
    /// capsule or a rounded polygon): the world then collides the pair afresh every step
    /// instead of recycling its manifold.
    pub(crate) fn is_curved(&self) -> bool {
        match self {
            Shape::Polygon(p) => p.radius() > 0.0,
            Shape::Circle(_) | Shape::Capsule(_) => true,
            Shape::Segment(_) | Shape::ChainSegment(_) => false,
        }
    }

    /// The shape as a core and a radius (see `rounded.rs`); a chain link as its segment.
    pub(crate) fn rounded(&self) -> Rounded {
        match self {
            Shape::Polygon(p) => p.rounded(),
            Shape::Circle(c) => Rounded::point(c.center(), c.radius()),
            Shape::Capsule(c) => c.rounded(),
            Shape::Segment(s) => s.rounded(),
            Shape::ChainSegment(s) => s.segment().rounded(),
        }
    }

    /// The polygon, if this is one.
    pub fn as_polygon(&self) -> Option<&Polygon> {
        match self {
            Shape::Polygon(p) => Some(p),
            _ => None,
        }
    }

    /// The circle, if this is one.
    pub fn as_circle(&self) -> Option<&Circle> {
        match self {
            Shape::Circle(c) => Some(c),
            _ => None,
        }
    }
}
