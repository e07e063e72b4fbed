//! The CPU reference narrow phase for circles: circle against polygon by the Separating Axis
//! Theorem, circle against circle directly. Same manifold conventions as [`collide`]
//! (`crate::collide`): unit normal from A to B, depth of the minimum translation vector,
//! points halfway between the two surfaces, in the world frame.
//!
//! ```text
//! collide_polygon_circle(P, xfP, C, xfC):
//!     centre = C's centre in P's local frame, shifted so that P's first vertex is the origin
//!     (face, sF) = find_face_separation(P, centre, r)    // max_i n_i · (centre - v_i) - r
//!     if sF >= 0: return none                             // touching is not overlapping
//!     k = find_nearest_vertex(P, centre)
//!     sV = vertex_axis_separation(P, k, centre, r)        // axis from vertex k to the centre
//!     if sV >= 0: return none
//!     the larger separation wins (the face keeps ties within the tolerance, as in collide):
//!         normal n = the face normal, or the unit axis from vertex k to the centre
//!     one point: centre - (r + s/2) n, depth -s
//!
//! collide_circles(A, xfA, B, xfB):
//!     d = B's centre - A's centre, in A's local frame;  s = |d| - rA - rB
//!     if s >= 0: return none
//!     n = d / |d| (A's local y axis when the centres coincide);  one point: cA + (rA + s/2) n
//! ```
//!
//! Why these axes: a circle and a convex polygon are separated, if at all, along a face
//! normal of the polygon or along the line from the polygon's nearest vertex to the centre
//! (when the centre lies in that vertex's Voronoi region), so the two families decide
//! overlap exactly. `shaders/sat_circle.wgsl` repeats each function under the same name.

use glam::Vec2;

use crate::circle::Circle;
use crate::manifold::{ContactPoint, Manifold, feature_id};
use crate::sat::RELATIVE_TIE_TOLERANCE;
use crate::shape::Polygon;
use crate::transform::{Transform, inv_mul_transforms};

/// The feature index a circle takes in a [`feature_id`]: a circle has one feature, itself.
pub const CIRCLE_FEATURE: usize = 0xff;

/// Contact of a polygon (A) and a circle (B), normal from the polygon to the circle.
pub fn collide_polygon_circle(
    polygon: &Polygon,
    polygon_transform: &Transform,
    circle: &Circle,
    circle_transform: &Transform,
) -> Option<Manifold> {
    let (manifold, _) = polygon_circle(polygon, polygon_transform, circle, circle_transform)?;
    Some(manifold)
}

/// Contact of a circle (A) and a polygon (B), normal from the circle to the polygon: the
/// polygon–circle manifold with the normal reversed and the flip bit set in the ids.
pub fn collide_circle_polygon(
    circle: &Circle,
    circle_transform: &Transform,
    polygon: &Polygon,
    polygon_transform: &Transform,
) -> Option<Manifold> {
    let (m, flipped_id) = polygon_circle(polygon, polygon_transform, circle, circle_transform)?;
    let mut point = m.points()[0];
    point.id = flipped_id;
    Some(Manifold::new(-m.normal, m.depth, &[point]))
}

/// The polygon–circle manifold and the id the point takes when the pair is given the other
/// way round.
fn polygon_circle(
    polygon: &Polygon,
    polygon_transform: &Transform,
    circle: &Circle,
    circle_transform: &Transform,
) -> Option<(Manifold, u32)> {
    let origin = polygon.vertices()[0];
    let relative = inv_mul_transforms(polygon_transform, circle_transform);
    let center = relative.transform_point(circle.center()) - origin;
    let radius = circle.radius();
    let tolerance = RELATIVE_TIE_TOLERANCE * polygon.radius().min(radius);

    let (vertices, normals, count) = polygon.raw();
    let (face, face_separation) =
        find_face_separation(vertices, normals, count, origin, center, radius);
    if face_separation >= 0.0 {
        return None;
    }
    let vertex = find_nearest_vertex(vertices, count, origin, center);
    let (axis, vertex_separation) =
        vertex_axis_separation(vertices, count, origin, vertex, center, radius);
    if vertex_separation >= 0.0 {
        return None;
    }
    // The face keeps near-ties, so a circle resting on a face does not switch to the vertex
    // axis on rounding noise; `end` 0 marks a face feature, 1 a vertex.
    let (normal, separation, feature, end) = if vertex_separation > face_separation + tolerance {
        (axis, vertex_separation, vertex, 1)
    } else {
        (normals[face], face_separation, face, 0)
    };
    let point = center - (radius + 0.5 * separation) * normal;
    let contact = ContactPoint {
        point: polygon_transform.transform_point(point + origin),
        depth: -separation,
        id: feature_id(false, feature, CIRCLE_FEATURE, end),
    };
    let manifold = Manifold::new(polygon_transform.rotate(normal), -separation, &[contact]);
    Some((manifold, feature_id(true, feature, CIRCLE_FEATURE, end)))
}

/// The polygon face along which the circle lies farthest out, and that separation:
/// `max_i n_i · (centre - v_i) - r`, everything relative to the polygon's first vertex.
fn find_face_separation(
    vertices: &[Vec2],
    normals: &[Vec2],
    count: usize,
    origin: Vec2,
    center: Vec2,
    radius: f32,
) -> (usize, f32) {
    let mut best_index = 0;
    let mut max_separation = f32::NEG_INFINITY;
    for i in 0..count {
        let s = normals[i].dot(center - (vertices[i] - origin)) - radius;
        if s > max_separation {
            max_separation = s;
            best_index = i;
        }
    }
    (best_index, max_separation)
}

/// The polygon vertex nearest the circle's centre (first on ties).
fn find_nearest_vertex(vertices: &[Vec2], count: usize, origin: Vec2, center: Vec2) -> usize {
    let mut best_index = 0;
    let mut best = f32::INFINITY;
    for (i, v) in vertices[..count].iter().enumerate() {
        let d = (center - (*v - origin)).length_squared();
        if d < best {
            best = d;
            best_index = i;
        }
    }
    best_index
}

/// The separation along the unit axis from vertex `vertex` to the circle's centre:
/// `axis · centre - r - max_j axis · v_j`. When the centre sits on the vertex the axis is
/// undefined; the faces decide alone (separation minus infinity).
fn vertex_axis_separation(
    vertices: &[Vec2],
    count: usize,
    origin: Vec2,
    vertex: usize,
    center: Vec2,
    radius: f32,
) -> (Vec2, f32) {
    let offset = center - (vertices[vertex] - origin);
    let length = offset.length();
    // Below this the direction is rounding noise; a face axis is at least as good there.
    if length <= f32::EPSILON * radius {
        return (Vec2::ZERO, f32::NEG_INFINITY);
    }
    let axis = offset / length;
    let mut highest = f32::NEG_INFINITY;
    for v in &vertices[..count] {
        let d = axis.dot(*v - origin);
        highest = if d > highest { d } else { highest };
    }
    (axis, axis.dot(center) - radius - highest)
}

/// Contact of two circles, normal from A to B.
pub fn collide_circles(
    a: &Circle,
    a_transform: &Transform,
    b: &Circle,
    b_transform: &Transform,
) -> Option<Manifold> {
    let relative = inv_mul_transforms(a_transform, b_transform);
    // B's centre relative to A's, in A's local frame.
    let d = relative.transform_point(b.center()) - a.center();
    let distance = d.length();
    let separation = distance - a.radius() - b.radius();
    if separation >= 0.0 {
        return None;
    }
    // Concentric circles have no preferred direction: A's local y axis is as good as any
    // and the same on every backend.
    let normal = if distance > 0.0 {
        d / distance
    } else {
        Vec2::Y
    };
    let point = a.center() + (a.radius() + 0.5 * separation) * normal;
    let contact = ContactPoint {
        point: a_transform.transform_point(point),
        depth: -separation,
        id: feature_id(false, CIRCLE_FEATURE, CIRCLE_FEATURE, 0),
    };
    Some(Manifold::new(
        a_transform.rotate(normal),
        -separation,
        &[contact],
    ))
}
