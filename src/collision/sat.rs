//! The CPU reference narrow phase: the Separating Axis Theorem with a clipped contact
//! manifold, for two convex polygons.
//!
//! ```text
//! collide(A, xfA, B, xfB), speculative distance m (0 for `collide`):
//!     express B in A's local frame, shifted so that A's first vertex is the origin
//!     (small coordinates keep the rounding small and equal on CPU and GPU)
//!     (edgeA, sA) = find_max_separation(A, B)     // max over A's normals of B's lowest side
//!     if sA >= m: return none                      // m = 0: touching is not overlapping
//!     (edgeB, sB) = find_max_separation(B, A)
//!     if sB >= m: return none
//!     if sB > sA + tolerance: reference = B's edgeB  (flip), else A's edgeA
//!     clip_polygons: clip the incident edge (the other polygon's edge most anti-parallel to
//!     the reference normal) to the side planes of the reference edge; keep the clipped
//!     points less than m above the reference face: 1 or 2 contact points, each named by
//!     the vertex of A and of B at its end (the same name whichever face is the reference)
//!     map normal and points back to the world frame
//! ```
//!
//! With m > 0 (the world's speculative contacts) a pair up to m apart gets a manifold whose
//! depths are negative: minus the gap.
//!
//! `separation` is negative when overlapping: the depth of the minimum translation vector is
//! `-max(sA, sB)`, the smallest projection overlap over both polygons' edge normals.
//! `shaders/sat.wgsl` repeats every function here under the same name, operation for
//! operation, so that both sides round alike.

use glam::Vec2;

use crate::collision::manifold::{ContactPoint, Manifold, vertex_pair_id};
use crate::shapes::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::shapes::transform::{Transform, inv_mul_transforms};

/// Relative tolerance for preferring A's reference face over B's, as a fraction of the
/// smaller polygon's radius. When B's best axis beats A's by less than this, A keeps the
/// reference face, so a resting contact does not flip faces between frames on rounding
/// noise (Box2D uses 0.1 × its 5 mm linear slop, 5e-4 for metre-sized bodies; this is the
/// same figure made scale-free). The reported depth may then exceed the true minimum by up
/// to this much, but still separates the pair when applied along the reported normal.
pub const RELATIVE_TIE_TOLERANCE: f32 = 5e-4;

/// A polygon in A's shifted local frame, split by coordinate: slot k's vertex is
/// `(x[k], y[k])` and its outward normal `(nx[k], ny[k])`. Split so that the searches below
/// run over four slots at once: each slot is a lane of the same arithmetic.
#[derive(Clone, Copy)]
struct LocalPolygon {
    x: [f32; MAX_POLYGON_VERTICES],
    y: [f32; MAX_POLYGON_VERTICES],
    nx: [f32; MAX_POLYGON_VERTICES],
    ny: [f32; MAX_POLYGON_VERTICES],
    count: usize,
}

impl LocalPolygon {
    fn vertex(&self, i: usize) -> Vec2 {
        Vec2::new(self.x[i], self.y[i])
    }

    fn normal(&self, i: usize) -> Vec2 {
        Vec2::new(self.nx[i], self.ny[i])
    }
}

/// Slots in a group of lanes: four f32, one SSE2 or NEON register.
const LANES: usize = 4;

/// The `group`th four slots of a coordinate.
#[inline(always)]
fn lanes(coordinate: &[f32; MAX_POLYGON_VERTICES], group: usize) -> [f32; LANES] {
    std::array::from_fn(|l| coordinate[group * LANES + l])
}

/// Lane by lane `a · x + b · y` for the point or vector `(a, b)`, rounded as `Vec2::dot`
/// rounds each: the two products, then their sum.
#[inline(always)]
fn dot_lanes(a: f32, b: f32, x: [f32; LANES], y: [f32; LANES]) -> [f32; LANES] {
    std::array::from_fn(|l| a * x[l] + b * y[l])
}

/// A manifold in A's shifted local frame.
struct LocalManifold {
    normal: Vec2,
    depth: f32,
    /// `count` points (1 or 2); an unused second slot repeats the first.
    points: [ContactPoint; 2],
    count: usize,
}

/// Tests two placed polygons for overlap and returns their contact manifold, or `None` when
/// they are separated or only touch. The normal points from A to B.
///
/// Also `None` when the contact cannot be held in f32: shapes or poses so close to
/// `f32::MAX` that a point or the depth of the manifold overflows. Every manifold returned
/// is finite.
///
/// ```
/// use wgpu_sat::{collide, glam::Vec2, Polygon, Transform};
/// let square = Polygon::rectangle(0.5, 0.5);
/// let m = collide(&square, &Transform::IDENTITY,
///                 &square, &Transform::new(Vec2::new(0.75, 0.0), 0.0)).unwrap();
/// assert_eq!(m.normal, Vec2::X);
/// assert!((m.depth - 0.25).abs() < 1e-6);
/// assert_eq!(m.points().len(), 2);
/// ```
pub fn collide(
    a: &Polygon,
    a_transform: &Transform,
    b: &Polygon,
    b_transform: &Transform,
) -> Option<Manifold> {
    collide_within(a, a_transform, b, b_transform, 0.0)
}

/// [`collide`] with a speculative distance `margin` (0 or more): also a pair apart by less
/// than `margin` along its best axis gets a manifold, whose points lie within `margin` of
/// the reference face. Such a point's `depth` is negative: minus the gap.
pub(crate) fn collide_within(
    a: &Polygon,
    a_transform: &Transform,
    b: &Polygon,
    b_transform: &Transform,
    margin: f32,
) -> Option<Manifold> {
    let origin = a.vertices()[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    let tolerance = RELATIVE_TIE_TOLERANCE * a.bounding_radius().min(b.bounding_radius());
    let local = collide_polygons(a, b, &relative, origin, tolerance, margin)?;

    let to_world = |p: ContactPoint| ContactPoint {
        point: a_transform.transform_point(p.point + origin),
        ..p
    };
    let [first, second] = local.points;
    Manifold::from_pair(
        a_transform.rotate(local.normal),
        local.depth,
        [to_world(first), to_world(second)],
        local.count,
    )
    .finite()
}

// The searches below run over the slots a polygon has, four at a time. The WGSL twin runs
// over all MAX_POLYGON_VERTICES slots instead, for the reasons at the top of sat.wgsl; the
// unused slots repeat vertex 0 and normal 0 (see `Polygon::raw`), which changes no minimum
// and no first maximum, so both give the same answer.

/// A's vertices relative to its first vertex, and its normals.
fn make_local_a(a: &Polygon, origin: Vec2) -> LocalPolygon {
    let (vertices, normals, count) = a.raw();
    LocalPolygon {
        x: vertices.map(|v| v.x - origin.x),
        y: vertices.map(|v| v.y - origin.y),
        nx: normals.map(|n| n.x),
        ny: normals.map(|n| n.y),
        count,
    }
}

/// B's vertices in A's frame (`relative` maps B's frame into A's), relative to A's first
/// vertex: `relative.rotate(v) + shift`, coordinate by coordinate. Its normals follow in
/// `rotate_normals`, only if they are needed.
fn make_local_b(b: &Polygon, relative: &Transform, origin: Vec2) -> LocalPolygon {
    let (vertices, _, count) = b.raw();
    let q = relative.rotation();
    let shift = relative.translation() - origin;
    LocalPolygon {
        x: vertices.map(|v| (q.x * v.x - q.y * v.y) + shift.x),
        y: vertices.map(|v| (q.y * v.x + q.x * v.y) + shift.y),
        nx: [0.0; MAX_POLYGON_VERTICES],
        ny: [0.0; MAX_POLYGON_VERTICES],
        count,
    }
}

/// B's normals in A's frame: `relative.rotate(n)`, coordinate by coordinate.
fn rotate_normals(poly: &mut LocalPolygon, b: &Polygon, relative: &Transform) {
    let (_, normals, _) = b.raw();
    let q = relative.rotation();
    poly.nx = normals.map(|n| q.x * n.x - q.y * n.y);
    poly.ny = normals.map(|n| q.y * n.x + q.x * n.y);
}

/// The SAT decision and the manifold, in A's shifted frame.
fn collide_polygons(
    a: &Polygon,
    b: &Polygon,
    relative: &Transform,
    origin: Vec2,
    tolerance: f32,
    margin: f32,
) -> Option<LocalManifold> {
    let poly_a = make_local_a(a, origin);
    let mut poly_b = make_local_b(b, relative, origin);
    let (edge_a, separation_a) = find_max_separation(&poly_a, &poly_b);
    if separation_a >= margin {
        return None;
    }
    // Only now, with A's axes all within the margin, are B's normals needed.
    rotate_normals(&mut poly_b, b, relative);
    let (edge_b, separation_b) = find_max_separation(&poly_b, &poly_a);
    if separation_b >= margin {
        return None;
    }
    if separation_b > separation_a + tolerance {
        clip_polygons(&poly_b, &poly_a, edge_b, separation_b, true, margin)
    } else {
        clip_polygons(&poly_a, &poly_b, edge_a, separation_a, false, margin)
    }
}

/// The edge normal of `poly1` along which `poly2` lies farthest out, and that separation:
/// `max_i min_j n1_i · (v2_j - v1_i)` (the first such normal on ties). It is a margin or
/// more exactly when one of the normals proves the pair apart by that much.
///
/// Four normals at a time: each lane keeps its own running minimum over B's vertices, in
/// vertex order, with the comparison WGSL's `min` compiles to, so the lanes give the bits
/// of a normal-by-normal loop. Every normal is tested, none skipped after one that
/// separates: the lanes cost little, and the caller's verdict is the same.
fn find_max_separation(poly1: &LocalPolygon, poly2: &LocalPolygon) -> (usize, f32) {
    let mut separations = [f32::NEG_INFINITY; MAX_POLYGON_VERTICES];
    for group in 0..poly1.count.div_ceil(LANES) {
        let (nx, ny) = (lanes(&poly1.nx, group), lanes(&poly1.ny, group));
        let mut lowest = [f32::INFINITY; LANES];
        for j in 0..poly2.count {
            let d = dot_lanes(poly2.x[j], poly2.y[j], nx, ny);
            // A plain comparison (not f32::min and its NaN rules), as WGSL's min() compiles.
            lowest = std::array::from_fn(|l| if d[l] < lowest[l] { d[l] } else { lowest[l] });
        }
        let (x1, y1) = (lanes(&poly1.x, group), lanes(&poly1.y, group));
        for l in 0..LANES {
            separations[group * LANES + l] = lowest[l] - (nx[l] * x1[l] + ny[l] * y1[l]);
        }
    }
    let mut best_index = 0;
    let mut max_separation = f32::NEG_INFINITY;
    for (i, &si) in separations[..poly1.count].iter().enumerate() {
        if si > max_separation {
            max_separation = si;
            best_index = i;
        }
    }
    (best_index, max_separation)
}

/// The edge of `poly2` whose normal is most anti-parallel to `normal` (first on ties).
fn find_incident_edge(poly2: &LocalPolygon, normal: Vec2) -> usize {
    let mut index = 0;
    let mut min_dot = f32::INFINITY;
    for group in 0..poly2.count.div_ceil(LANES) {
        let nx = lanes(&poly2.nx, group);
        let ny = lanes(&poly2.ny, group);
        let d = dot_lanes(normal.x, normal.y, nx, ny);
        for (l, &dl) in d.iter().enumerate().take(poly2.count - group * LANES) {
            if dl < min_dot {
                min_dot = dl;
                index = group * LANES + l;
            }
        }
    }
    index
}

/// The incident edge `v21 v22` clipped to the side planes of the reference edge `v11 v12`
/// (`tangent` runs along it): its lower end (towards v11 and v22), its upper end.
#[inline(always)]
pub(crate) fn clip_incident_edge(
    v11: Vec2,
    v12: Vec2,
    v21: Vec2,
    v22: Vec2,
    tangent: Vec2,
) -> (Vec2, Vec2) {
    // Positions along the tangent, from v11. The incident edge runs against the reference
    // edge, so its second vertex v22 is the lower end.
    let lower1 = 0.0;
    let upper1 = tangent.dot(v12 - v11);
    let upper2 = tangent.dot(v21 - v11);
    let lower2 = tangent.dot(v22 - v11);
    let span = upper2 - lower2;
    let v_lower = if lower2 < lower1 && span > f32::EPSILON {
        v22 + ((lower1 - lower2) / span) * (v21 - v22)
    } else {
        v22
    };
    let v_upper = if upper2 > upper1 && span > f32::EPSILON {
        v22 + ((upper1 - lower2) / span) * (v21 - v22)
    } else {
        v21
    };
    (v_lower, v_upper)
}

/// Clips the incident edge of `poly2` against the side planes of `poly1`'s edge `edge1`
/// (the reference face) and keeps the clipped points that lie below the face.
///
/// Frames: everything is in A's shifted frame. When `flip`, `poly1` is B and the A-to-B
/// normal is minus B's face normal.
fn clip_polygons(
    poly1: &LocalPolygon,
    poly2: &LocalPolygon,
    edge1: usize,
    separation: f32,
    flip: bool,
    margin: f32,
) -> Option<LocalManifold> {
    let i11 = edge1;
    let i12 = if edge1 + 1 < poly1.count {
        edge1 + 1
    } else {
        0
    };
    let v11 = poly1.vertex(i11);
    let v12 = poly1.vertex(i12);
    let normal = poly1.normal(i11);
    // The reference edge runs along the normal rotated a quarter turn counter-clockwise
    // (outward normals of a CCW polygon point to the right of its edges).
    let tangent = Vec2::new(-normal.y, normal.x);

    let i21 = find_incident_edge(poly2, normal);
    let i22 = if i21 + 1 < poly2.count { i21 + 1 } else { 0 };
    let v21 = poly2.vertex(i21);
    let v22 = poly2.vertex(i22);

    let (v_lower, v_upper) = clip_incident_edge(v11, v12, v21, v22, tangent);
    let separation_lower = normal.dot(v_lower - v11);
    let separation_upper = normal.dot(v_upper - v11);

    // Each point is named by the vertex of each polygon at its end of the clipped edges:
    // the lower end lies towards v11 and v22, the upper towards v12 and v21. Named as (A's
    // vertex, B's vertex), a point keeps its id when the other polygon takes the reference
    // role (see ContactPoint::id).
    let id = |poly1_vertex, poly2_vertex| {
        if flip {
            vertex_pair_id(poly2_vertex, poly1_vertex)
        } else {
            vertex_pair_id(poly1_vertex, poly2_vertex)
        }
    };
    // Report each point halfway between the incident surface and the reference face.
    let lower = ContactPoint {
        point: v_lower - (0.5 * separation_lower) * normal,
        depth: -separation_lower,
        id: id(i11, i22),
    };
    let upper = ContactPoint {
        point: v_upper - (0.5 * separation_upper) * normal,
        depth: -separation_upper,
        id: id(i12, i21),
    };

    // Keep the points less than the margin above the face (with margin 0, overlapping),
    // lower first: [lower, upper], [lower], [upper] or none. Picked, not pushed into an
    // array at a running index: that array lived on the stack, and reading it back whole
    // from the narrow stores that filled it stalled (a sixth of this function's time).
    let keep_lower = lower.depth > -margin;
    let keep_upper = upper.depth > -margin;
    let (points, count) = match (keep_lower, keep_upper) {
        (true, true) => ([lower, upper], 2),
        (true, false) => ([lower, lower], 1),
        (false, true) => ([upper, upper], 1),
        (false, false) => {
            // The SAT found overlap on this axis, yet both clipped ends lie above the face:
            // the deepest incident vertex is beyond a side plane of a short reference edge.
            // Report that vertex rather than drop an overlapping pair.
            let separation21 = normal.dot(v21 - v11);
            let separation22 = normal.dot(v22 - v11);
            let (v, s, point_id) = if separation22 <= separation21 {
                (v22, separation22, lower.id)
            } else {
                (v21, separation21, upper.id)
            };
            if s >= margin {
                return None;
            }
            let deepest = ContactPoint {
                point: v - (0.5 * s) * normal,
                depth: -s,
                id: point_id,
            };
            ([deepest, deepest], 1)
        }
    };
    Some(LocalManifold {
        normal: if flip { -normal } else { normal },
        depth: -separation,
        points,
        count,
    })
}
