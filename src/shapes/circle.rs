//! Circles: the second shape beside [`Polygon`](crate::Polygon).
//!
//! A [`Circle`] is a centre in its local frame and a radius. It has no edges and no normals,
//! so the Separating Axis Theorem needs an axis from the other shape's geometry: against a
//! polygon, the polygon's edge normals plus the axis from the polygon's nearest vertex to the
//! circle's centre; against another circle, the line through the centres (see
//! `sat_circle.rs`).

use glam::Vec2;

use crate::shapes::aabb::Aabb;
use crate::shapes::polygon::ShapeError;
use crate::shapes::transform::Transform;

/// A circle of `radius` about `center`, both in the local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::CircleData",
        into = "crate::shapes::shape_serde::CircleData"
    )
)]
pub struct Circle {
    center: Vec2,
    radius: f32,
}

impl Circle {
    /// A circle centred on the local origin. The radius must be finite and positive.
    pub fn new(radius: f32) -> Result<Circle, ShapeError> {
        Circle::with_center(Vec2::ZERO, radius)
    }

    /// A circle about a local point other than the origin, for a piece of a compound body.
    pub fn with_center(center: Vec2, radius: f32) -> Result<Circle, ShapeError> {
        if !center.is_finite() {
            return Err(ShapeError::NotFinite {
                index: 0,
                x: center.x,
                y: center.y,
            });
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(ShapeError::InvalidDimension {
                name: "radius",
                value: radius,
            });
        }
        Ok(Circle { center, radius })
    }

    /// The centre in the local frame.
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The circle's area.
    pub fn area(&self) -> f32 {
        std::f32::consts::PI * self.radius * self.radius
    }

    /// The world-frame bounding box of the circle placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        let c = transform.transform_point(self.center);
        Aabb::new(c - Vec2::splat(self.radius), c + Vec2::splat(self.radius))
    }

    /// Whether the world point lies in the circle placed by `transform` (the boundary
    /// counts as inside).
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        transform
            .transform_point(self.center)
            .distance_squared(point)
            <= self.radius * self.radius
    }
}
