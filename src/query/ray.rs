//! Ray casts against one shape: where a segment `origin + t * translation`, `t` in [0, 1],
//! first enters a polygon or a circle.
//!
//! ```text
//! cast_ray(shape, transform, origin, translation):
//!     p, d = origin and translation in the shape's frame
//!     polygon: clip [0, 1] by each edge's half-plane n · x <= n · v (Cyrus-Beck):
//!              n · d < 0 (the ray enters across the edge): lower = max(lower, t_edge)
//!              n · d > 0 (it leaves):                      upper = min(upper, t_edge)
//!              n · d = 0 and p outside the edge:           miss
//!              hit when lower <= upper and some edge raised lower; normal = that edge's
//!     circle:  the nearer root of |p + t d - c| = r, found from the point of closest
//!              approach (no cancellation when the ray is long and the circle small)
//!     back to the world frame: point = origin + t * translation, normal rotated
//! ```
//!
//! A ray that starts inside a shape, or on its boundary, does not hit it: the cast finds
//! where a ray enters a shape, and one that starts in it never enters (Box2D's rule too, so
//! a ray from inside a pile finds the next body rather than the one it starts in). A ray
//! with a non-finite component, or no length, hits nothing.
//!
//! `shaders/ray.wgsl` is the twin of this file for batches of rays on the GPU
//! ([`GpuRayCast`](crate::gpu::GpuRayCast)): the same functions, named alike, doing the same
//! operations in the same order (products and sums written out, not `dot` or `length`).

use glam::Vec2;

use crate::collision::narrow_phase::{Collider, check_colliders};
use crate::collision::rounded::Rounded;
use crate::error::BatchError;
use crate::error::Error;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// A ray of a batch: from `origin` along `translation` (world frame; its length is the
/// reach).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where it starts.
    pub origin: Vec2,
    /// Where it goes from there: it ends at `origin + translation`.
    pub translation: Vec2,
}

/// Where a ray first enters a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// How far along the ray, from 0 (its origin) to 1 (origin + translation).
    pub fraction: f32,
    /// The point hit, world frame: `origin + fraction * translation`.
    pub point: Vec2,
    /// The shape's outward unit normal there, world frame (facing the ray).
    pub normal: Vec2,
}

/// Where the ray from `origin` along `translation` (world frame; its length is the ray's
/// reach) first enters `shape` placed by `transform`, or `None` if it does not within its
/// reach. A ray that starts inside the shape or on its boundary does not hit it (see the
/// module header).
///
/// ```
/// # use wgpu_sat::{glam::Vec2, cast_ray, Polygon, Shape, Transform};
/// let square = Shape::from(Polygon::rectangle(1.0, 1.0));
/// let at = Transform::new(Vec2::new(5.0, 0.0), 0.0);
/// let hit = cast_ray(&square, &at, Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
/// assert_eq!(hit.fraction, 0.4);
/// assert_eq!(hit.point, Vec2::new(4.0, 0.0));
/// assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
/// assert!(cast_ray(&square, &at, Vec2::ZERO, Vec2::new(3.0, 0.0)).is_none(), "too short");
/// ```
pub fn cast_ray(
    shape: &Shape,
    transform: &Transform,
    origin: Vec2,
    translation: Vec2,
) -> Option<RayHit> {
    if !(origin.is_finite() && translation.is_finite()) || translation == Vec2::ZERO {
        return None;
    }
    // The shape's frame: a polygon's planes and a circle's centre are given there.
    let p = transform.inverse_transform_point(origin);
    let d = transform.inverse_rotate(translation);
    let (fraction, local_normal) = match shape {
        Shape::Polygon(polygon) if polygon.radius() == 0.0 => cast_ray_polygon(polygon, p, d),
        Shape::Circle(circle) => cast_ray_circle(circle, p, d),
        _ => cast_ray_rounded(&shape.rounded(), p, d),
    }?;
    Some(RayHit {
        fraction,
        point: origin + fraction * translation,
        normal: transform.rotate(local_normal),
    })
}

/// The entering fraction and edge normal of the ray `p + t d`, `t` in [0, 1], against
/// `polygon`, all in the polygon's frame.
pub(crate) fn cast_ray_polygon(polygon: &Polygon, p: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let (mut lower, mut upper) = (0.0f32, 1.0f32);
    let mut entered = None;
    for (&v, &n) in polygon.vertices().iter().zip(polygon.normals()) {
        // Inside the edge's half-plane where n · (x - v) <= 0. At p, `numerator` is how
        // far inside (negative: outside); along d the distance falls by `denominator` per
        // unit of t, so the ray meets the edge's line at t = numerator / denominator.
        let numerator = dot2(n, v - p);
        let denominator = dot2(n, d);
        if denominator == 0.0 {
            // Parallel: never crosses this line, so outside it means outside throughout.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator < 0.0 {
            // Entering across this edge. Strictly later than the last entry: a ray that
            // starts on the boundary (t = 0) does not enter.
            if t > lower {
                lower = t;
                entered = Some(n);
            }
        } else if t < upper {
            upper = t;
        }
        if upper < lower {
            return None;
        }
    }
    entered.map(|n| (lower, n))
}

/// The entering fraction and outward normal of the ray `p + t d`, `t` in [0, 1], against a
/// rounded core (a capsule, a segment, a rounded polygon), in its frame. The boundary is
/// made of each edge moved out by the radius along its normal and an arc about each vertex,
/// so the first entry is the earliest over those pieces: an edge met from its outer side
/// between its ends, or a vertex's circle. A segment (radius 0) is hit from either side. A
/// ray that starts inside (or on) the shape does not enter it.
pub(crate) fn cast_ray_rounded(core: &Rounded, p: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let r = core.radius;
    if r > 0.0 && core.core_distance(p) <= r {
        return None;
    }
    let mut best: Option<(f32, Vec2)> = None;
    let mut consider = |hit: Option<(f32, Vec2)>| {
        if let Some((t, n)) = hit
            && best.is_none_or(|(b, _)| t < b)
        {
            best = Some((t, n));
        }
    };
    let edges = if core.count == 1 { 0 } else { core.count };
    for i in 0..edges {
        let n = core.normals[i];
        let (q0, q1) = (
            core.vertices[i] + r * n,
            core.vertices[(i + 1) % core.count] + r * n,
        );
        let denominator = dot2(n, d);
        if denominator >= 0.0 {
            continue;
        }
        let t = dot2(n, q0 - p) / denominator;
        if !(t > 0.0 && t <= 1.0) {
            continue;
        }
        let x = p + t * d;
        let along = dot2(x - q0, q1 - q0);
        if along >= 0.0 && along <= dot2(q1 - q0, q1 - q0) {
            consider(Some((t, n)));
        }
    }
    if r > 0.0 {
        for &v in core.vertices() {
            if let Ok(circle) = Circle::with_center(v, r) {
                consider(cast_ray_circle(&circle, p, d));
            }
        }
    }
    best
}

/// The entering fraction and outward normal of the ray `p + t d`, `t` in [0, 1], against
/// `circle`, in the circle's frame.
pub(crate) fn cast_ray_circle(circle: &Circle, p: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let s = p - circle.center();
    let r = circle.radius();
    if dot2(s, s) <= r * r {
        // Starts inside or on the circle: no entry.
        return None;
    }
    let length = dot2(d, d).sqrt();
    if !(length > 0.0 && length.is_finite()) {
        return None;
    }
    let u = d / length;
    // The point of closest approach is at distance `closest` along the ray; `offset` is
    // the ray's distance from the centre there. The entry lies half a chord before it.
    let closest = -dot2(s, u);
    let offset = s + closest * u;
    let half_chord_squared = r * r - dot2(offset, offset);
    if half_chord_squared < 0.0 {
        return None;
    }
    let distance = closest - half_chord_squared.sqrt();
    if distance < 0.0 || distance > length {
        return None;
    }
    let outward = s + distance * u;
    let outward_length = dot2(outward, outward).sqrt();
    if outward_length <= 0.0 {
        return None;
    }
    Some((distance / length, outward / outward_length))
}

/// `a · b` written out, as `shaders/ray.wgsl` writes it.
fn dot2(a: Vec2, b: Vec2) -> f32 {
    a.x * b.x + a.y * b.y
}

/// Checks a ray batch as [`cast_ray_pairs`] and [`GpuRayCast`](crate::gpu::GpuRayCast) take it:
/// every pair names a ray and a collider that exist, every collider a shape of the table,
/// every ray and pose is finite. The error names the first bad item.
pub fn validate_rays(
    shape_count: usize,
    colliders: &[Collider],
    rays: &[Ray],
    pairs: &[[u32; 2]],
) -> Result<(), Error> {
    check_colliders(shape_count, colliders)?;
    for (index, ray) in rays.iter().enumerate() {
        if !(ray.origin.is_finite() && ray.translation.is_finite()) {
            return Err(Error::Batch(BatchError::NonFiniteRay { ray: index }));
        }
    }
    for (index, &[ray, collider]) in pairs.iter().enumerate() {
        if ray as usize >= rays.len() || collider as usize >= colliders.len() {
            return Err(Error::Batch(BatchError::RayPairIndexOutOfRange {
                pair: index,
                ray,
                collider,
                ray_count: rays.len(),
                collider_count: colliders.len(),
            }));
        }
    }
    Ok(())
}

/// Casts each `(ray, collider)` pair of `pairs` (indices into `rays` and `colliders`;
/// colliders index `shapes`): the CPU twin of [`GpuRayCast::cast_ray_pairs`], with the same
/// answers up to rounding. One result per pair, in order; `None` for a miss. Bad input is an
/// error naming the item (see [`validate_rays`]).
///
/// [`GpuRayCast::cast_ray_pairs`]: crate::gpu::GpuRayCast::cast_ray_pairs
pub fn cast_ray_pairs(
    shapes: &[Shape],
    colliders: &[Collider],
    rays: &[Ray],
    pairs: &[[u32; 2]],
) -> Result<Vec<Option<RayHit>>, Error> {
    validate_rays(shapes.len(), colliders, rays, pairs)?;
    Ok(pairs
        .iter()
        .map(|&[r, c]| {
            let (ray, collider) = (&rays[r as usize], &colliders[c as usize]);
            let shape = &shapes[collider.shape as usize];
            cast_ray(shape, &collider.transform, ray.origin, ray.translation)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Shape {
        Shape::from(Polygon::rectangle(1.0, 1.0))
    }

    #[test]
    fn a_rotated_square_is_hit_on_its_corner_side_with_the_face_normal() {
        // A square turned by 45 degrees at the origin: its corner points at -x, at x = -√2.
        let t = Transform::new(Vec2::ZERO, std::f32::consts::FRAC_PI_4);
        let hit = cast_ray(&square(), &t, Vec2::new(-3.0, 0.1), Vec2::new(6.0, 0.0)).unwrap();
        let expected_x = -(2.0f32.sqrt()) + 0.1;
        assert!((hit.point.x - expected_x).abs() < 1e-5, "{hit:?}");
        assert!((hit.fraction - (hit.point.x + 3.0) / 6.0).abs() < 1e-6);
        // The face above the corner (normal (-1, 1)/√2) is the one crossed at y = 0.1.
        let n = Vec2::new(-1.0, 1.0).normalize();
        assert!((hit.normal - n).length() < 1e-5, "{hit:?}");
    }

    #[test]
    fn rays_from_inside_or_on_the_boundary_or_parallel_outside_miss() {
        let t = Transform::default();
        assert!(cast_ray(&square(), &t, Vec2::ZERO, Vec2::new(5.0, 0.0)).is_none());
        assert!(cast_ray(&square(), &t, Vec2::new(-1.0, 0.0), Vec2::new(5.0, 0.0)).is_none());
        // Along the top edge's line, just outside.
        let above = Vec2::new(-3.0, 1.0 + 1e-4);
        assert!(cast_ray(&square(), &t, above, Vec2::new(6.0, 0.0)).is_none());
        // Bad rays miss rather than panic.
        for (o, d) in [
            (Vec2::new(f32::NAN, 0.0), Vec2::X),
            (Vec2::new(-3.0, 0.0), Vec2::new(f32::INFINITY, 0.0)),
            (Vec2::new(-3.0, 0.0), Vec2::ZERO),
        ] {
            assert!(cast_ray(&square(), &t, o, d).is_none());
        }
    }

    #[test]
    fn a_small_far_circle_is_hit_where_the_chord_begins() {
        let circle = Shape::from(Circle::new(0.5).unwrap());
        let t = Transform::new(Vec2::new(1000.0, 0.3), 0.0);
        let hit = cast_ray(&circle, &t, Vec2::ZERO, Vec2::new(2000.0, 0.0)).unwrap();
        // x where y = 0 meets the circle: 1000 - sqrt(0.25 - 0.09) = 999.6.
        assert!((hit.point.x - 999.6).abs() < 1e-3, "{hit:?}");
        assert!(
            (hit.normal - Vec2::new(-0.4, -0.3) / 0.5).length() < 1e-3,
            "{hit:?}"
        );
        assert!(cast_ray(&circle, &t, Vec2::new(1000.0, 0.3), Vec2::X).is_none());
    }
}
