//! The rounded narrow phase: every pair with a capsule, a segment, a rounded polygon or a
//! chain link, each seen as a core of 1 to 8 vertices grown by a radius (`rounded.rs`,
//! Box2D v3's model). Same manifold conventions as [`collide`](crate::collide): normal
//! from A to B, depth of the minimum translation vector, points halfway between the two
//! surfaces, feature ids naming a vertex of each core ([`vertex_pair_id`]).
//!
//! ```text
//! collide_rounded(A, xfA, B, xfB), speculative distance m, r = rA + rB:
//!     B's core in A's local frame, shifted so that A's first vertex is the origin
//!     (edgeA, sA) = find_max_separation_rounded(A, B)  // face normals only; none for 1 vertex
//!     if sA - r >= m: return none
//!     (edgeB, sB) = find_max_separation_rounded(B, A)
//!     if sB - r >= m: return none
//!     reference face: B's edgeB if sB > sA + tolerance (flip), else A's edgeA; incident
//!     edge: the other core's edge most opposed to the reference normal (its one vertex
//!     twice for a point); s = the reference's separation
//!     if s > tolerance, or neither core has area (two segments, or a point and a segment:
//!     their face normals miss the axis along the segments, so s may be 0 while apart):
//!         closest points of the reference and the incident edge (segment_distance)
//!         both at vertices and farther apart than the tolerance: the rounded normal
//!         between those vertices, one point, separation = distance - r
//!     otherwise clip_rounded: clip the incident edge to the reference edge's side planes,
//!     keep the points less than m + r above the face (a point's one vertex once), each
//!     moved halfway between the two grown surfaces, separation = height - r
//! ```
//!
//! A chain link ([`ChainSegment`]) is a segment of radius 0 that is one-sided and knows
//! its ghost vertices (`collide_chain_segment`): no contact when the other core's centre
//! lies behind it; otherwise the manifold above, unless its normal leans past an end into
//! the neighbour's region (measured against the ghost: `dot(normal, neighbour edge)`).
//! There, at a corner that turns towards the free side, the neighbour gives the contact
//! and this link none; at a straight or a hollow corner the link gives its face normal
//! instead, so a box sliding across the joint of two collinear links never meets the
//! sideways normal of the joint's vertex. These corner tests count a product within
//! rounding of 0 as 0 ([`CORNER_TOLERANCE`]), so that a GPU that rounds it to the other
//! side of 0 decides alike.
//!
//! The tolerance is [`RELATIVE_TIE_TOLERANCE`] times the smaller of the two length scales
//! (core bounding radius plus rounding radius), as for polygons. `shaders/sat_rounded.wgsl`
//! holds every function here under the same name, operation for operation.

use glam::Vec2;

use crate::collision::manifold::{ContactPoint, Manifold, vertex_pair_id};
use crate::collision::rounded::Rounded;
use crate::collision::sat::{RELATIVE_TIE_TOLERANCE, clip_incident_edge};
use crate::shapes::polygon::MAX_POLYGON_VERTICES;
use crate::shapes::segment::ChainSegment;
use crate::shapes::transform::{Transform, inv_mul_transforms, rotate};

/// A core in A's shifted local frame. Slots past `count` repeat slot 0.
#[derive(Clone, Copy)]
struct LocalCore {
    vertices: [Vec2; MAX_POLYGON_VERTICES],
    normals: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
}

/// A manifold in A's shifted local frame; `count` 0 when there is no contact.
#[derive(Clone, Copy)]
struct LocalManifold {
    normal: Vec2,
    depth: f32,
    points: [ContactPoint; 2],
    count: usize,
}

const NO_CONTACT: LocalManifold = LocalManifold {
    normal: Vec2::ZERO,
    depth: 0.0,
    points: [ContactPoint {
        point: Vec2::ZERO,
        depth: 0.0,
        id: 0,
    }; 2],
    count: 0,
};

/// The closest points of two segments: fractions along each (0 at the first end) and the
/// points.
#[derive(Clone, Copy, Debug)]
struct SegmentDistance {
    fraction1: f32,
    fraction2: f32,
    point1: Vec2,
    point2: Vec2,
}

/// The contact of two rounded cores (capsules, segments, rounded polygons, circles against
/// any of those), with speculative distance `margin`. `None` when apart by `margin` or
/// more, or when the contact lies beyond f32's range.
pub(crate) fn collide_rounded(
    a: &Rounded,
    a_transform: &Transform,
    b: &Rounded,
    b_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let origin = a.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    let poly_a = make_core_a(a, origin);
    let poly_b = make_core_b(b, &relative, origin);
    let tolerance = RELATIVE_TIE_TOLERANCE * a.scale.min(b.scale);
    let local = collide_cores(&poly_a, &poly_b, a.radius, b.radius, tolerance, margin);
    to_world(&local, a_transform, origin)
}

/// The manifold of the pair given the other way round: the normal reversed, each point's
/// id naming B's vertex first (as [`vertex_pair_id`] names A's).
pub(crate) fn flip_rounded(m: Manifold) -> Manifold {
    let mut flipped = m;
    flipped.rewrite(-m.normal, m.points().len(), |k| {
        let p = m.points()[k];
        let (first, second) = ((p.id >> 16) & 0xff, (p.id >> 8) & 0xff);
        ContactPoint {
            id: vertex_pair_id(second as usize, first as usize),
            ..p
        }
    });
    flipped
}

/// The contact of a chain link (A) with a rounded core B; see the module header.
pub(crate) fn collide_chain_segment(
    link: &ChainSegment,
    a_transform: &Transform,
    b: &Rounded,
    b_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let a = link.segment().rounded();
    let origin = a.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    let poly_a = make_core_a(&a, origin);
    let poly_b = make_core_b(b, &relative, origin);
    let tolerance = RELATIVE_TIE_TOLERANCE * a.scale.min(b.scale);
    let local = chain_manifold(
        &poly_a,
        &poly_b,
        link.ghost_a() - origin,
        link.ghost_b() - origin,
        b.radius,
        tolerance,
        margin,
    );
    to_world(&local, a_transform, origin)
}

/// A local manifold mapped to the world by A's transform; `None` when it has no point or
/// anything in it is not finite.
fn to_world(local: &LocalManifold, transform: &Transform, origin: Vec2) -> Option<Manifold> {
    if local.count == 0 {
        return None;
    }
    let world = |p: ContactPoint| ContactPoint {
        point: transform.transform_point(p.point + origin),
        ..p
    };
    let [first, second] = local.points;
    Manifold::from_pair(
        transform.rotate(local.normal),
        local.depth,
        [world(first), world(second)],
        local.count,
    )
    .finite()
}

/// A's core relative to its first vertex.
fn make_core_a(a: &Rounded, origin: Vec2) -> LocalCore {
    LocalCore {
        vertices: a.vertices.map(|v| v - origin),
        normals: a.normals,
        count: a.count,
    }
}

/// B's core in A's frame (`relative` maps B's frame into A's), relative to A's first
/// vertex.
fn make_core_b(b: &Rounded, relative: &Transform, origin: Vec2) -> LocalCore {
    let q = relative.rotation();
    let shift = relative.translation() - origin;
    LocalCore {
        vertices: b.vertices.map(|v| rotate(q, v) + shift),
        normals: b.normals.map(|n| rotate(q, n)),
        count: b.count,
    }
}

/// The index after `i` on a core of `count` vertices (0 for a point).
fn next_index(i: usize, count: usize) -> usize {
    if i + 1 < count { i + 1 } else { 0 }
}

/// The edge normal of `poly1` along which `poly2` lies farthest out, and that separation
/// (`max_i min_j n1_i · (v2_j - v1_i)`, first on ties); `-f32::MAX` for a point, which has
/// no faces.
fn find_max_separation_rounded(poly1: &LocalCore, poly2: &LocalCore) -> (usize, f32) {
    if poly1.count == 1 {
        return (0, -f32::MAX);
    }
    let mut best_index = 0;
    let mut max_separation = -f32::MAX;
    for i in 0..poly1.count {
        let n = poly1.normals[i];
        let mut lowest = f32::MAX;
        for j in 0..poly2.count {
            let d = n.dot(poly2.vertices[j]);
            // A plain comparison, as WGSL's min() compiles.
            lowest = if d < lowest { d } else { lowest };
        }
        let si = lowest - n.dot(poly1.vertices[i]);
        if si > max_separation {
            max_separation = si;
            best_index = i;
        }
    }
    (best_index, max_separation)
}

/// The edge of `poly` whose normal is most anti-parallel to `normal` (first on ties; 0 for
/// a point).
fn find_incident_edge_rounded(poly: &LocalCore, normal: Vec2) -> usize {
    let mut index = 0;
    let mut min_dot = f32::MAX;
    for j in 0..poly.count {
        let d = normal.dot(poly.normals[j]);
        if d < min_dot {
            min_dot = d;
            index = j;
        }
    }
    index
}

/// Clamps to [0, 1] as WGSL's `clamp` does on finite input.
fn unit_clamp(x: f32) -> f32 {
    let low = if x > 0.0 { x } else { 0.0 };
    if low < 1.0 { low } else { 1.0 }
}

/// The closest points of the segments `p1 q1` and `p2 q2` (either may be a point): the
/// minimum of `|p1 + s d1 - p2 - t d2|` over s, t in [0, 1], by the unclamped solution of
/// the 2×2 normal equations, clamped to the square and then re-solved along the clamped
/// side. Parallel segments take `s = 0` first.
fn segment_distance(p1: Vec2, q1: Vec2, p2: Vec2, q2: Vec2) -> SegmentDistance {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let dd1 = d1.dot(d1);
    let dd2 = d2.dot(d2);
    let rd1 = r.dot(d1);
    let rd2 = r.dot(d2);
    let mut s = 0.0;
    let mut t = 0.0;
    if dd1 == 0.0 {
        if dd2 > 0.0 {
            t = unit_clamp(rd2 / dd2);
        }
    } else if dd2 == 0.0 {
        s = unit_clamp(-rd1 / dd1);
    } else {
        let d12 = d1.dot(d2);
        let denominator = dd1 * dd2 - d12 * d12;
        if denominator != 0.0 {
            s = unit_clamp((d12 * rd2 - rd1 * dd2) / denominator);
        }
        t = (d12 * s + rd2) / dd2;
        if t < 0.0 {
            t = 0.0;
            s = unit_clamp(-rd1 / dd1);
        } else if t > 1.0 {
            t = 1.0;
            s = unit_clamp((d12 - rd1) / dd1);
        }
    }
    SegmentDistance {
        fraction1: s,
        fraction2: t,
        point1: p1 + s * d1,
        point2: p2 + t * d2,
    }
}

/// The SAT over both cores' faces, then the closest features or the clipped faces (see the
/// module header), in A's shifted frame.
fn collide_cores(
    poly_a: &LocalCore,
    poly_b: &LocalCore,
    radius_a: f32,
    radius_b: f32,
    tolerance: f32,
    margin: f32,
) -> LocalManifold {
    let radius = radius_a + radius_b;
    let (edge_a, separation_a) = find_max_separation_rounded(poly_a, poly_b);
    if separation_a - radius >= margin {
        return NO_CONTACT;
    }
    let (edge_b, separation_b) = find_max_separation_rounded(poly_b, poly_a);
    if separation_b - radius >= margin {
        return NO_CONTACT;
    }
    if separation_b > separation_a + tolerance {
        reference_manifold(
            poly_b,
            poly_a,
            edge_b,
            separation_b,
            true,
            radius_b,
            radius_a,
            tolerance,
            margin,
        )
    } else {
        reference_manifold(
            poly_a,
            poly_b,
            edge_a,
            separation_a,
            false,
            radius_a,
            radius_b,
            tolerance,
            margin,
        )
    }
}

/// The manifold from `poly1`'s reference face `edge1` (separation `separation`): the
/// closest features when the cores are apart (or the SAT is incomplete), else the clipped
/// faces. `flip` when `poly1` is B; `radius1`, `radius2` the radii of `poly1`, `poly2`.
#[allow(clippy::too_many_arguments)]
fn reference_manifold(
    poly1: &LocalCore,
    poly2: &LocalCore,
    edge1: usize,
    separation: f32,
    flip: bool,
    radius1: f32,
    radius2: f32,
    tolerance: f32,
    margin: f32,
) -> LocalManifold {
    let i11 = edge1;
    let i12 = next_index(i11, poly1.count);
    let normal = poly1.normals[i11];
    let i21 = find_incident_edge_rounded(poly2, normal);
    let i22 = next_index(i21, poly2.count);
    let v11 = poly1.vertices[i11];
    let v12 = poly1.vertices[i12];
    let v21 = poly2.vertices[i21];
    let v22 = poly2.vertices[i22];
    let complete = poly1.count >= 3 || poly2.count >= 3;
    if separation > tolerance || !complete {
        let closest = segment_distance(v11, v12, v21, v22);
        let at_vertex1 = closest.fraction1 == 0.0 || closest.fraction1 == 1.0;
        let at_vertex2 = closest.fraction2 == 0.0 || closest.fraction2 == 1.0;
        let (distance, axis) =
            crate::shapes::transform::length_and_direction(closest.point2 - closest.point1);
        if at_vertex1 && at_vertex2 && distance > tolerance {
            let separation = distance - (radius1 + radius2);
            if separation >= margin {
                return NO_CONTACT;
            }
            let vertex1 = if closest.fraction1 == 0.0 { i11 } else { i12 };
            let vertex2 = if closest.fraction2 == 0.0 { i21 } else { i22 };
            // Halfway between the two grown surfaces on the axis between the vertices.
            let surface1 = closest.point1 + radius1 * axis;
            let surface2 = closest.point2 - radius2 * axis;
            let point = ContactPoint {
                point: 0.5 * (surface1 + surface2),
                depth: -separation,
                id: pair_id(flip, vertex1, vertex2),
            };
            return LocalManifold {
                normal: if flip { -axis } else { axis },
                depth: -separation,
                points: [point, point],
                count: 1,
            };
        }
    }
    clip_rounded(
        poly1, poly2, i11, i12, i21, i22, separation, flip, radius1, radius2, margin,
    )
}

/// The feature id of a point at vertex `vertex1` of the reference core and `vertex2` of the
/// incident one, named as (A's vertex, B's vertex).
fn pair_id(flip: bool, vertex1: usize, vertex2: usize) -> u32 {
    if flip {
        vertex_pair_id(vertex2, vertex1)
    } else {
        vertex_pair_id(vertex1, vertex2)
    }
}

/// Clips the incident edge `i21 i22` of `poly2` to the side planes of `poly1`'s reference
/// edge `i11 i12` and keeps the points less than `margin` apart once the radii are taken
/// off, each halfway between the grown surfaces. A point incident core (one vertex) gives
/// one point.
#[allow(clippy::too_many_arguments)]
fn clip_rounded(
    poly1: &LocalCore,
    poly2: &LocalCore,
    i11: usize,
    i12: usize,
    i21: usize,
    i22: usize,
    separation: f32,
    flip: bool,
    radius1: f32,
    radius2: f32,
    margin: f32,
) -> LocalManifold {
    let v11 = poly1.vertices[i11];
    let v12 = poly1.vertices[i12];
    let v21 = poly2.vertices[i21];
    let v22 = poly2.vertices[i22];
    let normal = poly1.normals[i11];
    let radius = radius1 + radius2;
    // The reference edge runs along the normal turned a quarter counter-clockwise.
    let tangent = Vec2::new(-normal.y, normal.x);
    let (v_lower, v_upper) = clip_incident_edge(v11, v12, v21, v22, tangent);
    let separation_lower = normal.dot(v_lower - v11) - radius;
    let separation_upper = normal.dot(v_upper - v11) - radius;
    // Halfway between the reference surface (the face moved out by radius1) and the
    // incident surface (the point moved in by radius2): p + (radius1 - radius2 - h) / 2 n
    // for a point p at height h = separation + radius.
    let shift = radius1 - radius2;
    let lower = ContactPoint {
        point: v_lower + (0.5 * (shift - (separation_lower + radius))) * normal,
        depth: -separation_lower,
        id: pair_id(flip, i11, i22),
    };
    let upper = ContactPoint {
        point: v_upper + (0.5 * (shift - (separation_upper + radius))) * normal,
        depth: -separation_upper,
        id: pair_id(flip, i12, i21),
    };
    let keep_lower = lower.depth > -margin;
    let keep_upper = upper.depth > -margin && poly2.count > 1;
    let (points, count) = match (keep_lower, keep_upper) {
        (true, true) => ([lower, upper], 2),
        (true, false) => ([lower, lower], 1),
        (false, true) => ([upper, upper], 1),
        (false, false) => {
            // Overlap on this axis, yet both clipped ends lie above the face: the deepest
            // incident vertex is beyond a side plane of a short reference edge.
            let separation21 = normal.dot(v21 - v11) - radius;
            let separation22 = normal.dot(v22 - v11) - radius;
            let (v, s, id) = if separation22 <= separation21 {
                (v22, separation22, lower.id)
            } else {
                (v21, separation21, upper.id)
            };
            if s >= margin {
                return NO_CONTACT;
            }
            let deepest = ContactPoint {
                point: v + (0.5 * (shift - (s + radius))) * normal,
                depth: -s,
                id,
            };
            ([deepest, deepest], 1)
        }
    };
    LocalManifold {
        normal: if flip { -normal } else { normal },
        depth: radius - separation,
        points,
        count,
    }
}

/// The manifold of a chain link (A, a 2-vertex core of radius 0 in `poly_a`, with its ghost
/// vertices in the same frame) and B; see the module header.
fn chain_manifold(
    poly_a: &LocalCore,
    poly_b: &LocalCore,
    ghost_a: Vec2,
    ghost_b: Vec2,
    radius_b: f32,
    tolerance: f32,
    margin: f32,
) -> LocalManifold {
    let v1 = poly_a.vertices[0];
    let v2 = poly_a.vertices[1];
    let face = poly_a.normals[0];
    // One-sided: B's centre (the mean of its core's vertices) behind the link's line
    // meets nothing.
    let mut sum = Vec2::ZERO;
    for v in &poly_b.vertices[..poly_b.count] {
        sum += *v;
    }
    let center = sum / poly_b.count as f32;
    if face.dot(center - v1) < 0.0 {
        return NO_CONTACT;
    }
    let m = collide_cores(poly_a, poly_b, 0.0, radius_b, tolerance, margin);
    if m.count == 0 {
        return m;
    }
    // Which end the normal leans towards, and that end's neighbour edge, pointing along
    // the chain. A free end (ghost on its vertex) keeps every normal.
    let tangent = v2 - v1;
    let lean = dot_side(m.normal, tangent);
    let (neighbour, free) = if lean < 0 {
        (v1 - ghost_a, ghost_a == v1)
    } else {
        (ghost_b - v2, ghost_b == v2)
    };
    // Within the end's vertex region: the normal leans no further than the neighbour's
    // normal, i.e. it points forward (towards v1) of the previous edge, or back of the
    // next one. Each test counts a value within rounding of 0 as 0 (`dot_side`): B's face
    // lying flat on the neighbour gives a normal whose lean past it is a rounding error,
    // which a GPU rounds to the other side.
    let along = dot_side(m.normal, neighbour);
    let admissible = lean == 0 || free || if lean < 0 { along >= 0 } else { along <= 0 };
    if admissible {
        return m;
    }
    // A corner that turns towards the solid side (left) is convex: the neighbour owns the
    // normals past its own, and gives the contact. Convex only past `corner_is_convex`'s
    // tolerance: a straight corner's turn is 0 here but not on a GPU that fuses a product
    // into the difference, where it dropped the contacts at every straight joint.
    if corner_is_convex(tangent, neighbour, lean < 0) {
        return NO_CONTACT;
    }
    // Straight or hollow corner: the link's face normal.
    let lowest = face_separation(face, v1, poly_b);
    if lowest - radius_b >= margin {
        return NO_CONTACT;
    }
    clip_rounded_face(poly_a, poly_b, lowest, radius_b, margin)
}

/// How small, relative to the sizes of its two products, a chain link's dot or cross
/// product counts as 0 in `chain_manifold`'s corner tests (the normal's lean along the
/// link and past the neighbour edge, the corner's turn): 1e-5, the sine of a turn of 1e-5
/// radians, far below any corner that matters to a body, and about 80 times what rounding makes of a
/// product that should be 0 (each of its two products is within half an ulp, 6e-8
/// relative, and a GPU may fuse one into the sum and round it not at all). Without it an
/// NVIDIA H200 dropped the contacts at straight joints, whose turn it rounded above 0.
pub const CORNER_TOLERANCE: f32 = 1e-5;

/// The side of 0 that `u · v` lies on (-1 or 1), or 0 when it is within
/// [`CORNER_TOLERANCE`] of the sum of its products' sizes, where rounding decides the sign.
fn dot_side(u: Vec2, v: Vec2) -> i32 {
    let d = u.dot(v);
    let size = (u.x * v.x).abs() + (u.y * v.y).abs();
    if d.abs() <= CORNER_TOLERANCE * size {
        0
    } else if d < 0.0 {
        -1
    } else {
        1
    }
}

/// Whether the corner between the link's `tangent` and the `neighbour` edge (pointing along
/// the chain; before the link when `before`) turns towards the solid side by more than
/// [`CORNER_TOLERANCE`]: `turn > tolerance * (|t.x n.y| + |t.y n.x|)`, the cross product
/// against the sum of its products' sizes, which bounds its rounding.
fn corner_is_convex(tangent: Vec2, neighbour: Vec2, before: bool) -> bool {
    let turn = if before {
        neighbour.perp_dot(tangent)
    } else {
        tangent.perp_dot(neighbour)
    };
    let size = (tangent.x * neighbour.y).abs() + (tangent.y * neighbour.x).abs();
    turn > CORNER_TOLERANCE * size
}

/// B's lowest vertex along the face normal of the link, relative to the link's first
/// vertex: `min_j face · v2_j - face · v1`.
fn face_separation(face: Vec2, v1: Vec2, poly_b: &LocalCore) -> f32 {
    let mut lowest = f32::MAX;
    for j in 0..poly_b.count {
        let d = face.dot(poly_b.vertices[j]);
        lowest = if d < lowest { d } else { lowest };
    }
    lowest - face.dot(v1)
}

/// The link's face (edge 0) as the reference face, at separation `separation`.
fn clip_rounded_face(
    poly_a: &LocalCore,
    poly_b: &LocalCore,
    separation: f32,
    radius_b: f32,
    margin: f32,
) -> LocalManifold {
    let i21 = find_incident_edge_rounded(poly_b, poly_a.normals[0]);
    let i22 = next_index(i21, poly_b.count);
    clip_rounded(
        poly_a, poly_b, 0, 1, i21, i22, separation, false, 0.0, radius_b, margin,
    )
}
