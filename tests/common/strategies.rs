//! Proptest strategies shared by the property tests: convex polygons, circles and poses.

use proptest::prelude::*;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Circle, Polygon, Transform};

/// Convex polygons of 3 to 8 vertices, size 0.2 to 1.5: points at sorted angles on an
/// ellipse, or boxes.
pub fn polygon() -> impl Strategy<Value = Polygon> {
    (
        3usize..=8,
        prop::collection::vec(0.0f32..std::f32::consts::TAU, 8),
        0.2f32..1.5,
        0.2f32..1.5,
        prop::bool::weighted(0.25),
    )
        .prop_filter_map("degenerate outline", |(n, mut angles, sx, sy, boxy)| {
            if boxy {
                return Some(Polygon::rectangle(sx, sy));
            }
            angles.truncate(n);
            angles.sort_by(f32::total_cmp);
            let points: Vec<Vec2> = angles
                .iter()
                .map(|&a| Vec2::from_angle(a) * Vec2::new(sx, sy))
                .collect();
            Polygon::new(&points).ok()
        })
}

/// Circles of radius 0.05 to 1.5, about the local origin half the time and otherwise about
/// a point up to 0.5 away from it.
pub fn circle() -> impl Strategy<Value = Circle> {
    (0.05f32..1.5, prop::bool::ANY, -0.5f32..0.5, -0.5f32..0.5).prop_map(
        |(radius, centred, x, y)| {
            let center = if centred { Vec2::ZERO } else { Vec2::new(x, y) };
            Circle::with_center(center, radius).unwrap()
        },
    )
}

/// Poses within 2 units of the origin, at any angle.
pub fn transform() -> impl Strategy<Value = Transform> {
    (
        -2.0f32..2.0,
        -2.0f32..2.0,
        -std::f32::consts::PI..std::f32::consts::PI,
    )
        .prop_map(|(x, y, angle)| Transform::new(Vec2::new(x, y), angle))
}
