//! What the narrow phase reports: contact manifolds and the contacts of a batch.

use glam::Vec2;

/// One point of a contact manifold, in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// World-frame point halfway between the two surfaces.
    pub point: Vec2,
    /// Penetration at this point along the manifold normal; positive means overlapping.
    pub depth: f32,
    /// Feature id: stays the same while the same pair of features (reference edge, incident
    /// edge and end of it) touch, so a solver can match points across steps and warm-start.
    /// Layout (see [`feature_id`]): bit 24 set when B's edge is the reference face,
    /// bits 16..24 the reference edge, bits 8..16 the incident edge, bits 0..8 which end of
    /// the incident edge (0 its first vertex, 1 its second) the point comes from.
    pub id: u32,
}

/// Builds a [`ContactPoint::id`]. `flip` is true when polygon B holds the reference face.
#[inline]
pub const fn feature_id(
    flip: bool,
    reference_edge: usize,
    incident_edge: usize,
    end: usize,
) -> u32 {
    ((flip as u32) << 24)
        | ((reference_edge as u32) << 16)
        | ((incident_edge as u32) << 8)
        | end as u32
}

/// The contact between two overlapping convex polygons A and B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Manifold {
    /// Unit normal in the world frame, pointing from A to B.
    pub normal: Vec2,
    /// Length of the minimum translation vector: moving B by `normal * depth` (or A by
    /// `-normal * depth`) separates the two. Always positive.
    pub depth: f32,
    points: [ContactPoint; 2],
    point_count: usize,
}

impl Manifold {
    /// A manifold from its normal, depth and 1 or 2 points (extra points are ignored).
    ///
    /// # Panics
    /// If `points` is empty: a manifold always has a point.
    pub fn new(normal: Vec2, depth: f32, points: &[ContactPoint]) -> Manifold {
        assert!(!points.is_empty(), "a manifold needs at least one point");
        let point_count = points.len().min(2);
        let mut stored = [points[0]; 2];
        stored[..point_count].copy_from_slice(&points[..point_count]);
        Manifold {
            normal,
            depth,
            points: stored,
            point_count,
        }
    }

    /// The 1 or 2 contact points.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.point_count]
    }

    /// The manifold if everything in it is finite, else `None`: what the narrow phase
    /// reports for a pair whose contact lies beyond f32's range (shapes and poses near
    /// `f32::MAX`, where the world-frame point or the depth overflows), rather than a
    /// contact of infinities and NaNs that a solver would spread through its bodies.
    pub(crate) fn finite(self) -> Option<Manifold> {
        let points_finite = self
            .points()
            .iter()
            .all(|p| p.point.is_finite() && p.depth.is_finite());
        (self.normal.is_finite() && self.depth.is_finite() && points_finite).then_some(self)
    }
}

/// A manifold between two colliders of a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Index of collider A in the batch's collider slice.
    pub a: u32,
    /// Index of collider B.
    pub b: u32,
    /// The manifold, its normal pointing from A to B.
    pub manifold: Manifold,
}
