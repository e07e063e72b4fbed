//! Capsules: two centres and a radius, every point within the radius of the segment
//! between the centres (a stadium). In the narrow phase a capsule is a 2-vertex core grown
//! by its radius (see `rounded.rs`).

use glam::Vec2;

use crate::collision::rounded::{Rounded, closest_on_segment};
use crate::shapes::aabb::Aabb;
use crate::shapes::polygon::ShapeError;
use crate::shapes::segment::check_ends;
use crate::shapes::transform::Transform;

/// A capsule: the points within `radius` of the segment from `a` to `b` (local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::CapsuleData",
        into = "crate::shapes::shape_serde::CapsuleData"
    )
)]
pub struct Capsule {
    a: Vec2,
    b: Vec2,
    radius: f32,
}

impl Capsule {
    /// A capsule about the segment from `a` to `b`. Errors: a non-finite centre
    /// ([`ShapeError::NotFinite`], index 0 or 1), equal centres ([`ShapeError::ZeroLength`]:
    /// use a [`Circle`](crate::Circle)), a radius that is not finite and positive
    /// ([`ShapeError::InvalidDimension`]).
    ///
    /// ```
    /// use wgpu_sat::{Capsule, glam::Vec2};
    /// let c = Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)?;
    /// assert_eq!(c.radius(), 0.5);
    /// assert!(Capsule::new(Vec2::ZERO, Vec2::ZERO, 0.5).is_err());
    /// assert!(Capsule::new(Vec2::ZERO, Vec2::X, f32::NAN).is_err());
    /// # Ok::<(), wgpu_sat::ShapeError>(())
    /// ```
    pub fn new(a: Vec2, b: Vec2, radius: f32) -> Result<Capsule, ShapeError> {
        check_ends(a, b)?;
        if !(radius.is_finite() && radius > 0.0) {
            return Err(ShapeError::InvalidDimension {
                name: "radius",
                value: radius,
            });
        }
        Ok(Capsule { a, b, radius })
    }

    /// The first centre, local frame.
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// The second centre, local frame.
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The core segment grown by the radius.
    pub(crate) fn rounded(&self) -> Rounded {
        Rounded::segment(self.a, self.b, self.radius)
    }

    /// The area: `2 r L + π r²` for centres `L` apart.
    pub fn area(&self) -> f32 {
        self.rounded().mass((0.0, Vec2::ZERO, 0.0)).0
    }

    /// The world-frame bounding box of the capsule placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        let (p, q) = (
            transform.transform_point(self.a),
            transform.transform_point(self.b),
        );
        let r = Vec2::splat(self.radius);
        Aabb::new(p.min(q) - r, p.max(q) + r)
    }

    /// Whether the world point lies in the capsule placed by `transform` (the boundary
    /// counts as inside).
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        let local = transform.inverse_transform_point(point);
        closest_on_segment(local, self.a, self.b).distance_squared(local)
            <= self.radius * self.radius
    }
}
