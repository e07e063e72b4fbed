//! The CPU reference narrow phase for circles: circle against polygon by the Separating Axis
//! Theorem, circle against circle directly. Same manifold conventions as [`collide`]
//! (`crate::collide`): unit normal from A to B, depth of the minimum translation vector,
//! one point halfway between the two surfaces, in the world frame; touching (separation
//! exactly 0) is not a contact.
//!
//! ```text
//! collide_polygon_circle(P, xfP, C, xfC):
//!     c = C's centre in P's local frame, shifted so that P's first vertex is the origin
//!     (f, s) = find_face_separation(P, c, r)   // max_i (n_i · c - n_i · v_i) - r
//!     if s >= m: return none                   // speculative distance m, 0 by default
//!     circle_manifold(face f from v_f to v_f+1, c, r):
//!         region = find_vertex_region(height of c above the face's line, position of c
//!                                     along the edge, the edge's length)
//!         beyond an end (and c off that vertex): (n, s) = vertex_axis_separation(c - v)
//!                                                 // n = (c - v) / |c - v|, s = |c - v| - r
//!         otherwise: (n, s) = (n_f, s)
//!         if s >= m: return none
//!         one point: c - (r + s/2) n, depth -s
//! collide_circle_polygon: the same in the polygon's frame, normal reversed, flip bit set
//!
//! collide_circles(A, xfA, B, xfB):
//!     c = B's centre in A's local frame, shifted so that A's centre is the origin
//!     circle_manifold with A's centre as the "vertex", always on the axis between the
//!     centres (A's local y axis when they coincide): s = |c| - rA - rB
//! ```
//!
//! Why this is exact: the nearest feature of a convex polygon to an outside point is the
//! face of largest separation or one of that face's two vertices (a vertex's Voronoi region
//! lies between the normals of the two faces that meet there, and those two faces separate
//! the point best). So the separation is `distance(centre, polygon) - r` outside, along the
//! face normal or the vertex-to-centre axis, and `-(r + distance to the nearest face)`
//! inside, along that face's normal: the minimum translation in every case.
//!
//! No tie tolerance between the face and the vertex, unlike [`collide`](crate::collide)'s
//! choice of reference face: the two normals coincide where the regions meet, so switching
//! there moves nothing, while a tolerance would keep the face normal some way into the
//! vertex's region, overstating the depth, jumping when the vertex takes over and putting
//! the contact point off the polygon.
//!
//! On the GPU (`shaders/sat.wgsl`, `shaders/sat_circle.wgsl`) circles run through the
//! polygon kernel rather than a branch of their own (on a SIMD device every lane would pay
//! for such a branch): a circle is stored as its centre in every vertex slot, so the
//! kernel's `find_max_separation` of A's faces against it is `find_face_separation` here,
//! `clip_polygons` hands the reference face to `circle_manifold`, and a circle–polygon
//! pair is uploaded polygon first and its result flipped (`flip_manifold`), as
//! `collide_circle_polygon` does. `find_vertex_region`, `vertex_axis_separation` and
//! `circle_manifold` are twins of the same name, operation for operation, and the
//! arithmetic above follows the kernel's, so both sides round alike.

use glam::Vec2;

use crate::collision::manifold::{ContactPoint, Manifold, feature_id};
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::shapes::transform::{Transform, inv_mul_transforms, length_and_direction};

/// The feature index a circle takes in a [`feature_id`]: a circle has one feature, itself.
pub const CIRCLE_FEATURE: usize = 0xff;

/// The flip bit of a [`feature_id`]: set when the pair's B holds the reference face.
const FLIP: u32 = feature_id(true, 0, 0, 0);

/// Where the circle's centre lies against the reference face ([`find_vertex_region`]).
#[derive(Clone, Copy, PartialEq)]
enum Region {
    /// Above the face, between its ends (or behind the face's line).
    Face,
    /// Beyond the face's first vertex.
    First,
    /// Beyond its second vertex.
    Second,
}

/// A contact of a circle B, in A's shifted local frame.
struct LocalContact {
    normal: Vec2,
    separation: f32,
    point: Vec2,
    id: u32,
}

/// Contact of a polygon (A) and a circle (B), normal from the polygon to the circle.
/// `None` when apart or touching, or (as for [`collide`](crate::collide)) when the contact
/// lies beyond f32's range.
///
/// ```
/// use wgpu_sat::{collision::collide_polygon_circle, glam::Vec2, Circle, Polygon, Transform};
/// let square = Polygon::rectangle(1.0, 1.0);
/// let ball = Circle::new(0.6)?;
/// // Beyond the corner (1, 1), 0.5 away along (0.6, 0.8): 0.1 deep along that axis.
/// let m = collide_polygon_circle(&square, &Transform::IDENTITY,
///                                &ball, &Transform::new(Vec2::new(1.3, 1.4), 0.0)).unwrap();
/// assert!((m.normal - Vec2::new(0.6, 0.8)).length() < 1e-6);
/// assert!((m.depth - 0.1).abs() < 1e-6);
/// # Ok::<(), wgpu_sat::ShapeError>(())
/// ```
pub fn collide_polygon_circle(
    polygon: &Polygon,
    polygon_transform: &Transform,
    circle: &Circle,
    circle_transform: &Transform,
) -> Option<Manifold> {
    polygon_circle_within(polygon, polygon_transform, circle, circle_transform, 0.0)
}

/// [`collide_polygon_circle`] with a speculative distance `margin` (see
/// [`collide_shapes_speculative`](crate::collision::collide_shapes_speculative)).
pub(crate) fn polygon_circle_within(
    polygon: &Polygon,
    polygon_transform: &Transform,
    circle: &Circle,
    circle_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let origin = polygon.vertices()[0];
    let relative = inv_mul_transforms(polygon_transform, circle_transform);
    let center = local_center(circle, &relative, origin);
    let radius = circle.radius();
    let (vertices, normals, count) = polygon.raw();
    let (face, separation) = find_face_separation(vertices, normals, count, origin, center, radius);
    if separation >= margin {
        return None;
    }
    let next = if face + 1 < count { face + 1 } else { 0 };
    let contact = circle_manifold(
        vertices[face] - origin,
        vertices[next] - origin,
        [face, next],
        normals[face],
        center,
        separation,
        None,
        radius,
        margin,
    )?;
    // None, as in `collide`, when the contact lies beyond f32's range.
    to_world(&contact, polygon_transform, origin).finite()
}

/// Contact of a circle (A) and a polygon (B), normal from the circle to the polygon: the
/// polygon–circle manifold (computed in the polygon's frame) with the normal reversed and
/// the flip bit set in the id.
pub fn collide_circle_polygon(
    circle: &Circle,
    circle_transform: &Transform,
    polygon: &Polygon,
    polygon_transform: &Transform,
) -> Option<Manifold> {
    circle_polygon_within(circle, circle_transform, polygon, polygon_transform, 0.0)
}

/// [`collide_circle_polygon`] with a speculative distance `margin`.
pub(crate) fn circle_polygon_within(
    circle: &Circle,
    circle_transform: &Transform,
    polygon: &Polygon,
    polygon_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let m = polygon_circle_within(polygon, polygon_transform, circle, circle_transform, margin)?;
    let mut point = m.points()[0];
    point.id |= FLIP;
    Some(Manifold::new(-m.normal, m.depth, &[point]))
}

/// Contact of two circles, normal from A to B; `None` when apart or touching, or when the
/// contact lies beyond f32's range.
pub fn collide_circles(
    a: &Circle,
    a_transform: &Transform,
    b: &Circle,
    b_transform: &Transform,
) -> Option<Manifold> {
    circles_within(a, a_transform, b, b_transform, 0.0)
}

/// [`collide_circles`] with a speculative distance `margin`.
pub(crate) fn circles_within(
    a: &Circle,
    a_transform: &Transform,
    b: &Circle,
    b_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    // A's frame shifted to A's centre, where A's centre is exactly zero.
    let origin = a.center();
    let relative = inv_mul_transforms(a_transform, b_transform);
    let center = local_center(b, &relative, origin);
    let zero = a.center() - origin;
    let contact = circle_manifold(
        zero,
        zero,
        [0, 0],
        Vec2::ZERO,
        center,
        f32::MIN,
        Some(a.radius()),
        b.radius(),
        margin,
    )?;
    to_world(&contact, a_transform, origin).finite()
}

/// A circle's centre in the other shape's local frame (`relative` maps the circle's frame
/// into it), shifted by `origin`: the arithmetic of `make_local_b` in `sat.rs`, which is
/// what the kernel runs on a circle's slots.
fn local_center(circle: &Circle, relative: &Transform, origin: Vec2) -> Vec2 {
    relative.rotate(circle.center()) + (relative.translation() - origin)
}

/// The polygon face along which the circle lies farthest out, and that separation:
/// `max_i (n_i · centre - n_i · v_i) - r`, relative to the polygon's first vertex. The
/// heights above the faces are compared before the radius is taken off (the kernel's
/// `find_max_separation` on the circle's centre), so both pick the same face.
fn find_face_separation(
    vertices: &[Vec2],
    normals: &[Vec2],
    count: usize,
    origin: Vec2,
    center: Vec2,
    radius: f32,
) -> (usize, f32) {
    let mut best_index = 0;
    let mut max_height = f32::NEG_INFINITY;
    for i in 0..count {
        let n = normals[i];
        let height = n.dot(center) - n.dot(vertices[i] - origin);
        if height > max_height {
            max_height = height;
            best_index = i;
        }
    }
    (best_index, max_height - radius)
}

/// Where the circle's centre lies against the reference face, from its `height` above the
/// face's line, its position `along` the edge from the first vertex, and the edge's length
/// along it.
///
/// Sign tests along the edge rather than a comparison of the face's and the vertex's
/// separations: where the regions meet the two separations agree to second order, so
/// rounding would decide a comparison over a band of positions in which the two normals
/// already differ by 1e-4 and more (and another device rounds differently); along the edge,
/// rounding moves the boundary by an ulp, where the normals coincide.
fn find_vertex_region(height: f32, along: f32, edge_length: f32) -> Region {
    if height <= 0.0 {
        Region::Face
    } else if along < 0.0 {
        Region::First
    } else if along > edge_length {
        Region::Second
    } else {
        Region::Face
    }
}

/// The unit axis along `offset` (from a polygon's vertex, or circle A's centre, to circle
/// B's centre), the separation along it, `|offset| - rA - rB` (rA is 0 for a polygon), and
/// whether the axis has a direction: `false` when the two points coincide to rounding.
/// One rounding of the length: a circle touching at an exactly representable distance
/// gives exactly 0.
fn vertex_axis_separation(offset: Vec2, radius_a: f32, radius_b: f32) -> (Vec2, f32, bool) {
    // Scaled, so that an offset below 1e-19 (tiny circles) still gives a unit axis; the
    // same bits as `offset.length()` and `offset / length` at ordinary sizes.
    let (length, axis) = length_and_direction(offset);
    (
        axis,
        length - radius_a - radius_b,
        length > f32::EPSILON * radius_b,
    )
}

/// The contact of circle B (`center`, `radius_b`) with the reference face from `v1` to `v2`
/// (slots `slots`, outward `normal`, separation `face_separation`) of polygon A, or, with
/// `circle_a` = A's radius, with circle A centred on `v1`. Everything in A's shifted frame;
/// the normal points from A to B. `None` when apart by `margin` or more (with margin 0,
/// separated or touching).
#[allow(clippy::too_many_arguments)]
fn circle_manifold(
    v1: Vec2,
    v2: Vec2,
    slots: [usize; 2],
    normal: Vec2,
    center: Vec2,
    face_separation: f32,
    circle_a: Option<f32>,
    radius_b: f32,
    margin: f32,
) -> Option<LocalContact> {
    // The edge runs along the normal turned a quarter counter-clockwise.
    let tangent = Vec2::new(-normal.y, normal.x);
    let offset = center - v1;
    let region = find_vertex_region(
        normal.dot(offset),
        tangent.dot(offset),
        tangent.dot(v2 - v1),
    );
    let second = region == Region::Second;
    let vertex = if second { v2 } else { v1 };
    let (axis, vertex_separation, found) =
        vertex_axis_separation(center - vertex, circle_a.unwrap_or(0.0), radius_b);
    // Two circles always take the axis between their centres (A's local y axis when they
    // coincide); a polygon takes the vertex's axis beyond an end of its face, unless the
    // centre sits on the vertex. `end` 0 marks a face feature, 1 a vertex.
    let (normal, separation, feature, end) = if circle_a.is_some() {
        let axis = if found { axis } else { Vec2::Y };
        (axis, vertex_separation, CIRCLE_FEATURE, 0)
    } else if region != Region::Face && found {
        (axis, vertex_separation, slots[usize::from(second)], 1)
    } else {
        (normal, face_separation, slots[0], 0)
    };
    if separation >= margin {
        return None;
    }
    Some(LocalContact {
        normal,
        separation,
        // Halfway between B's deepest point and A's surface.
        point: center - (radius_b + 0.5 * separation) * normal,
        id: feature_id(false, feature, CIRCLE_FEATURE, end),
    })
}

/// A contact in A's shifted frame, mapped to the world by A's transform.
fn to_world(contact: &LocalContact, transform: &Transform, origin: Vec2) -> Manifold {
    let point = ContactPoint {
        point: transform.transform_point(contact.point + origin),
        depth: -contact.separation,
        id: contact.id,
    };
    Manifold::new(
        transform.rotate(contact.normal),
        -contact.separation,
        &[point],
    )
}
