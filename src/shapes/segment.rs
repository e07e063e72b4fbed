//! Segments, and the pieces of a chain: lines of no area, for static (or moved) level
//! geometry. In the narrow phase a segment is a 2-vertex core of radius 0 (see
//! `rounded.rs`).
//!
//! A [`ChainSegment`] is one link of a chain ([`BodyShape::chain`](crate::BodyShape::chain)):
//! a one-sided segment that also knows the far vertices of its neighbours, its ghost
//! vertices. Its solid side is on the left of the direction from `a` to `b`, its free side
//! (the normal) on the right, as for the counter-clockwise edges of a polygon. The ghosts
//! decide which contact normals the segment may give at its ends: at an end where the chain
//! turns or runs straight on, a normal that leans past the neighbour's normal belongs to
//! the neighbour, and this segment gives its face normal there or nothing (see
//! `sat_rounded.rs`). A ghost equal to its end marks a free end (an open chain's first or
//! last point), rounded like a capsule's.

use glam::Vec2;

use crate::collision::rounded::Rounded;
use crate::shapes::aabb::Aabb;
use crate::shapes::polygon::ShapeError;
use crate::shapes::transform::Transform;

/// A line segment from `a` to `b` (local frame), with no area.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::SegmentData",
        into = "crate::shapes::shape_serde::SegmentData"
    )
)]
pub struct Segment {
    a: Vec2,
    b: Vec2,
}

/// Errors when the ends are not finite or coincide (closer than a few f32 steps of their
/// magnitude, where no direction can be taken between them).
pub(crate) fn check_ends(a: Vec2, b: Vec2) -> Result<(), ShapeError> {
    for (index, p) in [a, b].into_iter().enumerate() {
        if !p.is_finite() {
            return Err(ShapeError::NotFinite {
                index,
                x: p.x,
                y: p.y,
            });
        }
    }
    let length = a.as_dvec2().distance(b.as_dvec2());
    let magnitude = f64::from(a.abs().max_element().max(b.abs().max_element()));
    if length <= 4.0 * f64::from(f32::EPSILON) * magnitude || length == 0.0 {
        return Err(ShapeError::ZeroLength { x: a.x, y: a.y });
    }
    Ok(())
}

impl Segment {
    /// The segment from `a` to `b`. Errors: a non-finite end ([`ShapeError::NotFinite`],
    /// index 0 or 1), or ends that coincide ([`ShapeError::ZeroLength`]).
    ///
    /// ```
    /// use wgpu_sat::{Segment, glam::Vec2};
    /// let s = Segment::new(Vec2::ZERO, Vec2::X)?;
    /// assert_eq!(s.b(), Vec2::X);
    /// assert!(Segment::new(Vec2::X, Vec2::X).is_err());
    /// # Ok::<(), wgpu_sat::ShapeError>(())
    /// ```
    pub fn new(a: Vec2, b: Vec2) -> Result<Segment, ShapeError> {
        check_ends(a, b)?;
        Ok(Segment { a, b })
    }

    /// The first end, local frame.
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// The second end, local frame.
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The core segment, radius 0.
    pub(crate) fn rounded(&self) -> Rounded {
        Rounded::segment(self.a, self.b, 0.0)
    }

    /// The world-frame bounding box of the segment placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        let (p, q) = (
            transform.transform_point(self.a),
            transform.transform_point(self.b),
        );
        Aabb::new(p.min(q), p.max(q))
    }
}

/// One link of a chain: a one-sided segment from `a` to `b` with the ghost vertices
/// `ghost_a` (the previous link's start) and `ghost_b` (the next link's end). See the
/// module documentation for the sides and the ghosts.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::ChainSegmentData",
        into = "crate::shapes::shape_serde::ChainSegmentData"
    )
)]
pub struct ChainSegment {
    ghost_a: Vec2,
    segment: Segment,
    ghost_b: Vec2,
}

impl ChainSegment {
    /// A chain link from `a` to `b`, after `ghost_a` and before `ghost_b`; pass `a` as
    /// `ghost_a` (or `b` as `ghost_b`) for a free end. Errors as [`Segment::new`], and for a
    /// non-finite ghost ([`ShapeError::NotFinite`], index 2 for `ghost_a`, 3 for `ghost_b`).
    pub fn new(ghost_a: Vec2, a: Vec2, b: Vec2, ghost_b: Vec2) -> Result<ChainSegment, ShapeError> {
        let segment = Segment::new(a, b)?;
        for (index, p) in [(2, ghost_a), (3, ghost_b)] {
            if !p.is_finite() {
                return Err(ShapeError::NotFinite {
                    index,
                    x: p.x,
                    y: p.y,
                });
            }
        }
        Ok(ChainSegment {
            ghost_a,
            segment,
            ghost_b,
        })
    }

    /// The segment itself.
    pub fn segment(&self) -> &Segment {
        &self.segment
    }

    /// The ghost vertex before `a` (equal to `a` at a free end).
    pub fn ghost_a(&self) -> Vec2 {
        self.ghost_a
    }

    /// The ghost vertex after `b` (equal to `b` at a free end).
    pub fn ghost_b(&self) -> Vec2 {
        self.ghost_b
    }
}
