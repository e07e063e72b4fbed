// wgpu-sat narrow phase: one Separating Axis Theorem test per candidate pair.
//
// Every function below has a twin of the same name in src/collision/sat.rs (or src/shapes/transform.rs)
// that does the same operations in the same order, so the CPU reference and this kernel
// round alike; change both together. A sum that feeds another sum goes through keep()
// (transform.wgsl), or the driver may re-associate the two and round otherwise. The
// library compiles this file after layout.wgsl, which holds the shared structs (each with
// a #[repr(C)] mirror in src/gpu/layout.rs), and before sat_circle.wgsl, the twin of
// src/collision/sat_circle.rs.
//
// This file and the two after it (sat_circle.wgsl, sat_rounded.wgsl) bind nothing: the
// bindings and the entry points are in sat_pass.wgsl, compiled last, so that the
// time-of-impact kernel (toi.wgsl) can measure distances with these same functions.
//
// Shapes: a polygon has `count` 3 to 8; a circle has `count` 1, its centre in every vertex
// slot (layout.wgsl). Pairs with a circle run through the same functions, with the few
// extra steps listed at the top of sat_circle.wgsl: a branch of their own would cost every
// polygon pair its price, since the lanes of a SIMD group run every branch any of them
// takes.
//
// Frames: shapes are in their local frames; poses map local to world. The test runs in A's
// local frame shifted to A's first vertex, and only the results go back to world.
// Sign convention: a separation is negative when the polygons overlap along that axis.
//
// Padding: the host fills the slots of a shape past its vertex count with copies of vertex
// 0 and normal 0 (see Polygon::raw). A minimum or a first strict maximum over a list is
// unchanged by repeating its first entry, so this kernel works on all MAX_POLYGON_VERTICES
// slots and still agrees bit for bit with the Rust loops over the vertices a polygon has.
//
// Registers: the per-slot work is written out with constant indices (the `consider_*`
// steps, `lowest_projection`), and a slot chosen at run time is read through a select
// chain (`vertex_at`, `normal_at`) or carried along from the search that chose it. One
// dynamic index into a function-scope array, or a loop the compiler cannot unroll, puts
// the whole array in memory; on Mesa's lavapipe that made this kernel five times slower
// (57 ms against 11 ms for 200,000 pairs). Lanes of a SIMD group run in lockstep, so
// shorter loops for smaller polygons would save nothing. The same rules hold in
// sat_circle.wgsl.

// Same value and meaning as RELATIVE_TIE_TOLERANCE in src/collision/sat.rs (a test compares them).
const RELATIVE_TIE_TOLERANCE: f32 = 5e-4;
// Same as f32::EPSILON in Rust: the shortest incident span worth interpolating on.
const F32_EPSILON: f32 = 1.1920929e-7;

struct LocalPolygon {
    vertices: array<vec2<f32>, 8>,
    normals: array<vec2<f32>, 8>,
    count: u32,
}

struct Separation {
    index: u32,
    separation: f32,
}

struct Manifold {
    normal: vec2<f32>,
    depth: f32,
    // 0 when the polygons do not overlap.
    count: u32,
    points: array<ContactPointOut, 2>,
}

fn feature_id(flip: bool, reference_edge: u32, incident_edge: u32, end: u32) -> u32 {
    return (select(0u, 1u, flip) << 24u) | (reference_edge << 16u) | (incident_edge << 8u) | end;
}

fn vertex_pair_id(vertex_a: u32, vertex_b: u32) -> u32 {
    return (vertex_a << 16u) | (vertex_b << 8u);
}

fn make_local_a(a: Shape, origin: vec2<f32>) -> LocalPolygon {
    var p: LocalPolygon;
    p.count = a.count;
    p.vertices[0] = a.vertices[0] - origin;
    p.vertices[1] = a.vertices[1] - origin;
    p.vertices[2] = a.vertices[2] - origin;
    p.vertices[3] = a.vertices[3] - origin;
    p.vertices[4] = a.vertices[4] - origin;
    p.vertices[5] = a.vertices[5] - origin;
    p.vertices[6] = a.vertices[6] - origin;
    p.vertices[7] = a.vertices[7] - origin;
    p.normals = a.normals;
    return p;
}

fn make_local_b(b: Shape, relative: Pose, origin: vec2<f32>) -> LocalPolygon {
    var p: LocalPolygon;
    p.count = b.count;
    let shift = keep2(relative.translation) - origin;
    let q = relative.rotation;
    p.vertices[0] = keep2(rotate(q, b.vertices[0])) + shift;
    p.vertices[1] = keep2(rotate(q, b.vertices[1])) + shift;
    p.vertices[2] = keep2(rotate(q, b.vertices[2])) + shift;
    p.vertices[3] = keep2(rotate(q, b.vertices[3])) + shift;
    p.vertices[4] = keep2(rotate(q, b.vertices[4])) + shift;
    p.vertices[5] = keep2(rotate(q, b.vertices[5])) + shift;
    p.vertices[6] = keep2(rotate(q, b.vertices[6])) + shift;
    p.vertices[7] = keep2(rotate(q, b.vertices[7])) + shift;
    return p;
}

fn rotate_normals(poly: ptr<function, LocalPolygon>, b: Shape, relative: Pose) {
    let q = relative.rotation;
    (*poly).normals[0] = rotate(q, b.normals[0]);
    (*poly).normals[1] = rotate(q, b.normals[1]);
    (*poly).normals[2] = rotate(q, b.normals[2]);
    (*poly).normals[3] = rotate(q, b.normals[3]);
    (*poly).normals[4] = rotate(q, b.normals[4]);
    (*poly).normals[5] = rotate(q, b.normals[5]);
    (*poly).normals[6] = rotate(q, b.normals[6]);
    (*poly).normals[7] = rotate(q, b.normals[7]);
}

// min over the slots of n · v. min is exact, so the grouping does not change the value.
fn lowest_projection(n: vec2<f32>, p: ptr<function, LocalPolygon>) -> f32 {
    let a = min(dot2(n, (*p).vertices[0]), dot2(n, (*p).vertices[1]));
    let b = min(dot2(n, (*p).vertices[2]), dot2(n, (*p).vertices[3]));
    let c = min(dot2(n, (*p).vertices[4]), dot2(n, (*p).vertices[5]));
    let d = min(dot2(n, (*p).vertices[6]), dot2(n, (*p).vertices[7]));
    return min(min(a, b), min(c, d));
}

fn consider_axis(poly1: ptr<function, LocalPolygon>, poly2: ptr<function, LocalPolygon>, i: u32, best: Separation) -> Separation {
    let n = (*poly1).normals[i];
    let si = lowest_projection(n, poly2) - keep(dot2(n, (*poly1).vertices[i]));
    if (si > best.separation) {
        return Separation(i, si);
    }
    return best;
}

// Like its Rust twin, this does not stop at the first separating axis: the lanes of a
// SIMD group run in lockstep, so an early exit saves nothing here, and its data-dependent
// branch kept the loop from being unrolled. The verdict is the same: an axis with a
// separation >= the margin makes the maximum >= the margin, and the pair is rejected
// either way. Unlike its twin, it runs over all eight slots (see the top of this file).
fn find_max_separation(poly1: ptr<function, LocalPolygon>, poly2: ptr<function, LocalPolygon>) -> Separation {
    var best = Separation(0u, -3.40282347e38);
    best = consider_axis(poly1, poly2, 0u, best);
    best = consider_axis(poly1, poly2, 1u, best);
    best = consider_axis(poly1, poly2, 2u, best);
    best = consider_axis(poly1, poly2, 3u, best);
    best = consider_axis(poly1, poly2, 4u, best);
    best = consider_axis(poly1, poly2, 5u, best);
    best = consider_axis(poly1, poly2, 6u, best);
    best = consider_axis(poly1, poly2, 7u, best);
    return best;
}

fn consider_incident(poly2: ptr<function, LocalPolygon>, normal: vec2<f32>, j: u32, best: Separation) -> Separation {
    let d = dot2(normal, (*poly2).normals[j]);
    if (d < best.separation) {
        return Separation(j, d);
    }
    return best;
}

fn find_incident_edge(poly2: ptr<function, LocalPolygon>, normal: vec2<f32>) -> u32 {
    var best = Separation(0u, 3.40282347e38);
    best = consider_incident(poly2, normal, 0u, best);
    best = consider_incident(poly2, normal, 1u, best);
    best = consider_incident(poly2, normal, 2u, best);
    best = consider_incident(poly2, normal, 3u, best);
    best = consider_incident(poly2, normal, 4u, best);
    best = consider_incident(poly2, normal, 5u, best);
    best = consider_incident(poly2, normal, 6u, best);
    best = consider_incident(poly2, normal, 7u, best);
    return best.index;
}

// Slot `index` of a local polygon, read with constant indices only: one dynamic index into
// a function-scope array makes shader compilers keep the whole array in memory instead of
// registers, and every other access then pays for it.
fn vertex_at(poly: ptr<function, LocalPolygon>, index: u32) -> vec2<f32> {
    let v = &(*poly).vertices;
    let low = select(select((*v)[0], (*v)[1], index == 1u), select((*v)[2], (*v)[3], index == 3u), index >= 2u);
    let high = select(select((*v)[4], (*v)[5], index == 5u), select((*v)[6], (*v)[7], index == 7u), index >= 6u);
    return select(low, high, index >= 4u);
}

fn normal_at(poly: ptr<function, LocalPolygon>, index: u32) -> vec2<f32> {
    let n = &(*poly).normals;
    let low = select(select((*n)[0], (*n)[1], index == 1u), select((*n)[2], (*n)[3], index == 3u), index >= 2u);
    let high = select(select((*n)[4], (*n)[5], index == 5u), select((*n)[6], (*n)[7], index == 7u), index >= 6u);
    return select(low, high, index >= 4u);
}

// clip_incident_edge's tuple: the incident edge clipped to the reference edge's side
// planes, its lower end (towards v11) and upper end.
struct ClippedEdge {
    lower: vec2<f32>,
    upper: vec2<f32>,
}

// The incident edge v21 v22 clipped to the side planes of the reference edge v11 v12, whose
// direction is `tangent`: clip_polygons and sat_rounded.wgsl's clip_rounded both clip with
// it, as their Rust twins share clip_incident_edge in src/collision/sat.rs.
fn clip_incident_edge(v11: vec2<f32>, v12: vec2<f32>, v21: vec2<f32>, v22: vec2<f32>, tangent: vec2<f32>) -> ClippedEdge {
    // Positions along the tangent, from v11; v22 is the incident edge's lower end.
    let lower1 = 0.0;
    let upper1 = dot2(tangent, v12 - v11);
    let upper2 = dot2(tangent, v21 - v11);
    let lower2 = dot2(tangent, v22 - v11);
    let span = upper2 - lower2;
    var v_lower = v22;
    if (lower2 < lower1 && span > F32_EPSILON) {
        v_lower = v22 + ((lower1 - lower2) / span) * (v21 - v22);
    }
    var v_upper = v21;
    if (upper2 > upper1 && span > F32_EPSILON) {
        v_upper = v22 + ((upper1 - lower2) / span) * (v21 - v22);
    }
    return ClippedEdge(v_lower, v_upper);
}

// `circle_b`: poly2 is a circle (its centre in every slot) of radius `radius_b`, and poly1
// a polygon or (`circle_a`) a circle of radius `radius_a`; then `circle_manifold` finishes
// the contact from the reference face found here. Circles come only without `flip` (see
// collide_polygons), so that call folds away in the flipped instance.
fn clip_polygons(
    poly1: ptr<function, LocalPolygon>,
    poly2: ptr<function, LocalPolygon>,
    edge1: u32,
    separation: f32,
    flip: bool,
    circle_a: bool,
    circle_b: bool,
    radius_a: f32,
    radius_b: f32,
    margin: f32,
) -> Manifold {
    var m: Manifold;
    m.count = 0u;
    let i11 = edge1;
    let i12 = select(0u, edge1 + 1u, edge1 + 1u < (*poly1).count);
    let v11 = vertex_at(poly1, i11);
    let v12 = vertex_at(poly1, i12);
    let normal = normal_at(poly1, i11);
    // The reference edge runs along the normal turned a quarter counter-clockwise.
    let tangent = vec2<f32>(-normal.y, normal.x);

    let i21 = find_incident_edge(poly2, normal);
    let i22 = select(0u, i21 + 1u, i21 + 1u < (*poly2).count);
    let v21 = vertex_at(poly2, i21);
    let v22 = vertex_at(poly2, i22);
    if (circle_b && !flip) {
        return circle_manifold(v11, v12, i11, i12, normal, v21, separation, circle_a, radius_a, radius_b, margin);
    }

    let clipped = clip_incident_edge(v11, v12, v21, v22, tangent);
    let v_lower = clipped.lower;
    let v_upper = clipped.upper;
    let separation_lower = dot2(normal, v_lower - v11);
    let separation_upper = dot2(normal, v_upper - v11);

    // Each point named by the vertex of A and of B at its end of the clipped edges (the
    // lower end towards v11 and v22, the upper towards v12 and v21), whichever polygon
    // holds the reference face.
    let lower_id = select(vertex_pair_id(i11, i22), vertex_pair_id(i22, i11), flip);
    let upper_id = select(vertex_pair_id(i12, i21), vertex_pair_id(i21, i12), flip);
    // Each point halfway between the incident surface and the reference face.
    let lower = ContactPointOut(v_lower - (0.5 * separation_lower) * normal, -separation_lower, lower_id);
    let upper = ContactPointOut(v_upper - (0.5 * separation_upper) * normal, -separation_upper, upper_id);

    // Keep the points less than the margin above the face, lower first: [lower, upper],
    // [lower], [upper] or none.
    let keep_lower = lower.depth > -margin;
    let keep_upper = upper.depth > -margin;
    m.points[0] = upper;
    m.points[1] = ContactPointOut(vec2<f32>(0.0), 0.0, NO_POINT);
    if (keep_lower) {
        m.points[0] = lower;
        if (keep_upper) {
            m.points[1] = upper;
        }
    }
    m.count = select(0u, 1u, keep_lower) + select(0u, 1u, keep_upper);
    if (m.count == 0u) {
        // Overlap on this axis, yet both clipped ends lie above the face: report the deepest
        // incident vertex (beyond a side plane of a short reference edge) instead.
        let separation21 = dot2(normal, v21 - v11);
        let separation22 = dot2(normal, v22 - v11);
        var v = v21;
        var s = separation21;
        var id = upper_id;
        if (separation22 <= separation21) {
            v = v22;
            s = separation22;
            id = lower_id;
        }
        if (s >= margin) {
            return m;
        }
        m.points[0] = ContactPointOut(v - (0.5 * s) * normal, -s, id);
        m.count = 1u;
    }
    m.normal = select(normal, -normal, flip);
    m.depth = -separation;
    return m;
}

// `a` is a circle (count 1) only when `b` is one too: the host writes the polygon of a
// circle–polygon pair first (see collide_pairs). A circle has no faces to test (its axes
// are the polygon's faces, or come from a vertex or A's centre in `circle_manifold`); seen
// from A's faces, a circle B is its centre (every slot of poly_b) grown by its radius.
fn collide_polygons(a: Shape, b: Shape, relative: Pose, origin: vec2<f32>, tolerance: f32, margin: f32) -> Manifold {
    var none: Manifold;
    none.count = 0u;
    let circle_a = a.count == 1u;
    let circle_b = b.count == 1u;
    let radius_a = select(0.0, a.radius, circle_a);
    let radius_b = select(0.0, b.radius, circle_b);
    var poly_a = make_local_a(a, origin);
    var poly_b = make_local_b(b, relative, origin);
    let sa = find_max_separation(&poly_a, &poly_b);
    let separation_a = select(sa.separation - radius_b, -3.40282347e38, circle_a);
    if (separation_a >= margin) {
        return none;
    }
    rotate_normals(&poly_b, b, relative);
    let sb = find_max_separation(&poly_b, &poly_a);
    let separation_b = select(sb.separation, -3.40282347e38, circle_b);
    if (separation_b >= margin) {
        return none;
    }
    if (separation_b > separation_a + tolerance) {
        return clip_polygons(&poly_b, &poly_a, sb.index, separation_b, true, false, false, 0.0, 0.0, margin);
    }
    return clip_polygons(&poly_a, &poly_b, sa.index, separation_a, false, circle_a, circle_b, radius_a, radius_b, margin);
}

// collide_within in src/collision/sat.rs (collide_shapes_speculative's polygon case; its circle cases
// ride along as described in sat_circle.wgsl), for two polygons, a polygon and a circle (in
// that order) or two circles (count 1 marks a circle); `margin` the speculative distance.
fn collide_within(a: Shape, a_transform: Pose, b: Shape, b_transform: Pose, margin: f32) -> Manifold {
    let origin = a.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    let tolerance = RELATIVE_TIE_TOLERANCE * min(a.radius, b.radius);
    var m = collide_polygons(a, b, relative, origin, tolerance, margin);
    m.normal = rotate(a_transform.rotation, m.normal);
    m.points[0].point = transform_point(a_transform, keep2(m.points[0].point) + origin);
    m.points[1].point = transform_point(a_transform, keep2(m.points[1].point) + origin);
    return finite(m);
}

// Manifold::finite in src/collision/manifold.rs: no contact (count 0) when anything the manifold
// reports is not finite, i.e. the contact lies beyond f32's range (shapes and poses near
// f32::MAX), rather than infinities and NaNs a solver would spread through its bodies.
// Once per pair after the search, outside the hot loops. The second point counts only
// when there is one, as on the CPU, where a one-point manifold holds no second point.
fn finite(m: Manifold) -> Manifold {
    let first = is_finite_vec2(m.points[0].point) && is_finite_f32(m.points[0].depth);
    let second = m.count < 2u
        || (is_finite_vec2(m.points[1].point) && is_finite_f32(m.points[1].depth));
    var checked = m;
    if (!(is_finite_vec2(m.normal) && is_finite_f32(m.depth) && first && second)) {
        checked.count = 0u;
    }
    return checked;
}
