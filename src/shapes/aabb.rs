//! Axis-aligned bounding boxes, the broad phase's currency.

use glam::Vec2;

/// An axis-aligned box in the world frame, `min <= max` componentwise.
///
/// Boxes are closed: two boxes that only touch (`a.max.x == b.min.x`) overlap, so the
/// broad phase never misses a pair the narrow phase might call touching.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Aabb {
    /// Lower-left corner.
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
}

impl Aabb {
    /// A box that holds no point and overlaps nothing (min above max, at infinity): a
    /// removed collider's, which every broad-phase and query test passes over. It holds
    /// only itself.
    pub(crate) const EMPTY: Aabb = Aabb {
        min: Vec2::splat(f32::INFINITY),
        max: Vec2::splat(f32::NEG_INFINITY),
    };

    /// A box from its corners.
    pub fn new(min: Vec2, max: Vec2) -> Aabb {
        Aabb { min, max }
    }

    /// The smallest box holding every point; `None` for no points.
    pub fn from_points(points: impl IntoIterator<Item = Vec2>) -> Option<Aabb> {
        let mut points = points.into_iter();
        let first = points.next()?;
        Some(points.fold(Aabb::new(first, first), |b, p| {
            Aabb::new(b.min.min(p), b.max.max(p))
        }))
    }

    /// Whether the two closed boxes share at least one point (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }

    /// Whether the closed box holds all of `other` (a box holds itself). False when either
    /// has a NaN coordinate.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && other.max.x <= self.max.x
            && other.max.y <= self.max.y
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// Whether the closed box holds the point.
    pub fn contains_point(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: f32) -> Aabb {
        Aabb::new(
            self.min - Vec2::splat(margin),
            self.max + Vec2::splat(margin),
        )
    }

    /// Centre point.
    pub fn center(&self) -> Vec2 {
        0.5 * (self.min + self.max)
    }

    /// Width and height.
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }
}
