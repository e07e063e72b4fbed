//! What the narrow phase reports: contact manifolds and the contacts of a batch.

use glam::Vec2;

/// One point of a contact manifold, in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// World-frame point halfway between the two surfaces.
    pub point: Vec2,
    /// Penetration at this point along the manifold normal; positive means overlapping.
    pub depth: f32,
    /// Feature id: stays the same while the same pair of features touch, so a solver can
    /// match points across steps and warm-start.
    ///
    /// Between two polygons ([`vertex_pair_id`]) it names the vertex of A and the vertex of
    /// B at the end of the clipped edges the point comes from, whichever polygon holds the
    /// reference face: two faces resting flat on each other trade the reference role on
    /// rounding noise, and the point keeps its id (and its warm start) through the trade.
    /// With a circle ([`feature_id`]): bit 24 set when the pair was given circle first,
    /// bits 16..24 the polygon's face or vertex (0xff for a circle A), bits 8..16 0xff (the
    /// circle), bits 0..8 1 for a vertex feature, 0 for a face.
    pub id: u32,
}

/// Builds the [`ContactPoint::id`] of a contact with a circle. `flip` is true when the pair
/// was given circle first (the polygon, which holds the reference feature, is B).
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

/// Builds the [`ContactPoint::id`] of a contact point between two polygons: the vertex of A
/// and the vertex of B that bound the point's clipped edges (slots, 0..8). The same for
/// either choice of reference face.
#[inline]
pub const fn vertex_pair_id(vertex_a: usize, vertex_b: usize) -> u32 {
    ((vertex_a as u32) << 16) | ((vertex_b as u32) << 8)
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
        // Both slots picked, not a slice copied over a filled array: that copy went through
        // the stack, and reading it back in wide loads from the narrow stores that had just
        // made it stalled the narrow phase (a fifth of `collide_within`'s time).
        Manifold {
            normal,
            depth,
            points: [points[0], points[point_count - 1]],
            point_count,
        }
    }

    /// A manifold from its normal, depth and `count` points (1 or 2) of `points`, laid out as
    /// [`Manifold::new`] lays them out (an unused second slot repeats the first). For the
    /// narrow phase, which has both points in registers: passed by value, they are not
    /// copied through a slice on the stack.
    #[inline]
    pub(crate) fn from_pair(
        normal: Vec2,
        depth: f32,
        [first, second]: [ContactPoint; 2],
        count: usize,
    ) -> Manifold {
        let point_count = count.clamp(1, 2);
        Manifold {
            normal,
            depth,
            points: [first, if point_count == 2 { second } else { first }],
            point_count,
        }
    }

    /// Rewrites this manifold's normal and points in place with `count` points (1 or 2),
    /// point `k` being `point(k)`, as [`Manifold::new`] would lay them out (an unused second
    /// slot repeats the first point); the depth is the caller's to set. For the recycling
    /// pass, which rewrites nearly every contact of a settled scene every step: a manifold
    /// built on the stack and copied in was read back in wide loads from the narrow stores
    /// that had just built it, a stall that took a third of the pass.
    #[inline]
    pub(crate) fn rewrite(
        &mut self,
        normal: Vec2,
        count: usize,
        mut point: impl FnMut(usize) -> ContactPoint,
    ) {
        self.normal = normal;
        self.point_count = count.clamp(1, 2);
        for k in 0..self.point_count {
            self.points[k] = point(k);
        }
        if self.point_count == 1 {
            self.points[1] = self.points[0];
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
