// wgpu-sat narrow phase: one Separating Axis Theorem test per candidate pair.
//
// Every function below has a twin of the same name in src/sat.rs (or src/transform.rs)
// that does the same operations in the same order, so the CPU reference and this kernel
// round alike; change both together. The storage structs have #[repr(C)] mirrors in
// src/gpu/layout.rs.
//
// Frames: shapes are in their local frames; poses map local to world. The test runs in A's
// local frame shifted to A's first vertex, and only the results go back to world.
// Sign convention: a separation is negative when the polygons overlap along that axis.
//
// Padding: the host fills the slots of a shape past its vertex count with copies of vertex
// 0 and normal 0 (see ShapeGpu in layout.rs). A minimum or a first strict maximum over a
// list is unchanged by repeating its first entry, so the loops below run over all
// MAX_POLYGON_VERTICES slots and still agree bit for bit with the Rust loops over `count`.
// Constant trip counts let the shader compiler unroll them and keep the arrays in
// registers; lanes of a SIMD group run in lockstep anyway, so shorter loops would not help.

const MAX_POLYGON_VERTICES: u32 = 8u;
// Same value and meaning as RELATIVE_TIE_TOLERANCE in src/sat.rs (a test compares them).
const RELATIVE_TIE_TOLERANCE: f32 = 5e-4;
// Same as f32::EPSILON in Rust: the shortest incident span worth interpolating on.
const F32_EPSILON: f32 = 1.1920929e-7;
// The id of an unused second contact point (NO_POINT in src/gpu/layout.rs).
const NO_POINT: u32 = 0xffffffffu;

struct Shape {
    vertices: array<vec2<f32>, 8>,
    normals: array<vec2<f32>, 8>,
    count: u32,
    radius: f32,
    _pad0: u32,
    _pad1: u32,
}

// A rigid transform; rotation = (cos, sin).
struct Pose {
    translation: vec2<f32>,
    rotation: vec2<f32>,
}

struct Params {
    pair_count: u32,
    // Word offset of the first pair in `indices`; words before it are collider shape ids.
    pair_offset: u32,
    contact_capacity: u32,
    _pad: u32,
}

struct ContactPointOut {
    point: vec2<f32>,
    depth: f32,
    id: u32,
}

struct ContactOut {
    normal: vec2<f32>,
    depth: f32,
    pair: u32,
    points: array<ContactPointOut, 2>,
}

struct Contacts {
    count: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    records: array<ContactOut>,
}

@group(0) @binding(0) var<storage, read> shapes: array<Shape>;
@group(0) @binding(1) var<storage, read> poses: array<Pose>;
// [shape index of collider 0 .. n) followed by the pairs as (a, b) words.
@group(0) @binding(2) var<storage, read> indices: array<u32>;
@group(0) @binding(3) var<storage, read_write> contacts: Contacts;
@group(0) @binding(4) var<uniform> params: Params;

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

fn rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

fn inverse_rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x + q.y * v.y, -q.y * v.x + q.x * v.y);
}

fn transform_point(t: Pose, p: vec2<f32>) -> vec2<f32> {
    return rotate(t.rotation, p) + t.translation;
}

// a⁻¹ · b: maps b's local frame into a's.
fn inv_mul_transforms(a: Pose, b: Pose) -> Pose {
    let qa = a.rotation;
    let qb = b.rotation;
    let rotation = vec2<f32>(qa.x * qb.x + qa.y * qb.y, qa.x * qb.y - qa.y * qb.x);
    return Pose(inverse_rotate(qa, b.translation - a.translation), rotation);
}

fn dot2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    // Written out (not dot()) so that the rounding matches glam's Vec2::dot.
    return a.x * b.x + a.y * b.y;
}

fn feature_id(flip: bool, reference_edge: u32, incident_edge: u32, end: u32) -> u32 {
    return (select(0u, 1u, flip) << 24u) | (reference_edge << 16u) | (incident_edge << 8u) | end;
}

fn make_local_a(a: Shape, origin: vec2<f32>) -> LocalPolygon {
    var p: LocalPolygon;
    p.count = a.count;
    for (var i = 0u; i < MAX_POLYGON_VERTICES; i++) {
        p.vertices[i] = a.vertices[i] - origin;
        p.normals[i] = a.normals[i];
    }
    return p;
}

fn make_local_b(b: Shape, relative: Pose, origin: vec2<f32>) -> LocalPolygon {
    var p: LocalPolygon;
    p.count = b.count;
    let shift = relative.translation - origin;
    for (var i = 0u; i < MAX_POLYGON_VERTICES; i++) {
        p.vertices[i] = rotate(relative.rotation, b.vertices[i]) + shift;
    }
    return p;
}

fn rotate_normals(poly: ptr<function, LocalPolygon>, b: Shape, relative: Pose) {
    for (var i = 0u; i < MAX_POLYGON_VERTICES; i++) {
        (*poly).normals[i] = rotate(relative.rotation, b.normals[i]);
    }
}

fn find_max_separation(poly1: ptr<function, LocalPolygon>, poly2: ptr<function, LocalPolygon>) -> Separation {
    var best_index = 0u;
    var max_separation = -3.40282347e38;
    for (var i = 0u; i < MAX_POLYGON_VERTICES; i++) {
        let n = (*poly1).normals[i];
        var lowest = 3.40282347e38;
        for (var j = 0u; j < MAX_POLYGON_VERTICES; j++) {
            lowest = min(lowest, dot2(n, (*poly2).vertices[j]));
        }
        let si = lowest - dot2(n, (*poly1).vertices[i]);
        if (si > max_separation) {
            max_separation = si;
            best_index = i;
        }
        if (si >= 0.0) {
            break;
        }
    }
    return Separation(best_index, max_separation);
}

fn find_incident_edge(poly2: ptr<function, LocalPolygon>, normal: vec2<f32>) -> u32 {
    var index = 0u;
    var min_dot = 3.40282347e38;
    for (var j = 0u; j < MAX_POLYGON_VERTICES; j++) {
        let d = dot2(normal, (*poly2).normals[j]);
        if (d < min_dot) {
            min_dot = d;
            index = j;
        }
    }
    return index;
}

fn clip_polygons(
    poly1: ptr<function, LocalPolygon>,
    poly2: ptr<function, LocalPolygon>,
    edge1: u32,
    separation: f32,
    flip: bool,
) -> Manifold {
    var m: Manifold;
    m.count = 0u;
    let i11 = edge1;
    let i12 = select(0u, edge1 + 1u, edge1 + 1u < (*poly1).count);
    let v11 = (*poly1).vertices[i11];
    let v12 = (*poly1).vertices[i12];
    let normal = (*poly1).normals[i11];
    // The reference edge runs along the normal turned a quarter counter-clockwise.
    let tangent = vec2<f32>(-normal.y, normal.x);

    let i21 = find_incident_edge(poly2, normal);
    let i22 = select(0u, i21 + 1u, i21 + 1u < (*poly2).count);
    let v21 = (*poly2).vertices[i21];
    let v22 = (*poly2).vertices[i22];

    // The incident edge runs against the reference edge: v22 is its lower end.
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
    let separation_lower = dot2(normal, v_lower - v11);
    let separation_upper = dot2(normal, v_upper - v11);

    // Each point halfway between the incident surface and the reference face.
    let lower = ContactPointOut(v_lower - (0.5 * separation_lower) * normal, -separation_lower, feature_id(flip, i11, i21, 1u));
    let upper = ContactPointOut(v_upper - (0.5 * separation_upper) * normal, -separation_upper, feature_id(flip, i11, i21, 0u));

    // Keep the points below the face, lower first: [lower, upper], [lower], [upper] or none.
    let keep_lower = lower.depth > 0.0;
    let keep_upper = upper.depth > 0.0;
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
        var end = 0u;
        if (separation22 <= separation21) {
            v = v22;
            s = separation22;
            end = 1u;
        }
        if (s >= 0.0) {
            return m;
        }
        m.points[0] = ContactPointOut(v - (0.5 * s) * normal, -s, feature_id(flip, i11, i21, end));
        m.count = 1u;
    }
    m.normal = select(normal, -normal, flip);
    m.depth = -separation;
    return m;
}

fn collide_polygons(a: Shape, b: Shape, relative: Pose, origin: vec2<f32>, tolerance: f32) -> Manifold {
    var none: Manifold;
    none.count = 0u;
    var poly_a = make_local_a(a, origin);
    var poly_b = make_local_b(b, relative, origin);
    let sa = find_max_separation(&poly_a, &poly_b);
    if (sa.separation >= 0.0) {
        return none;
    }
    rotate_normals(&poly_b, b, relative);
    let sb = find_max_separation(&poly_b, &poly_a);
    if (sb.separation >= 0.0) {
        return none;
    }
    if (sb.separation > sa.separation + tolerance) {
        return clip_polygons(&poly_b, &poly_a, sb.index, sb.separation, true);
    }
    return clip_polygons(&poly_a, &poly_b, sa.index, sa.separation, false);
}

fn collide(a: Shape, a_transform: Pose, b: Shape, b_transform: Pose) -> Manifold {
    let origin = a.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    let tolerance = RELATIVE_TIE_TOLERANCE * min(a.radius, b.radius);
    var m = collide_polygons(a, b, relative, origin, tolerance);
    m.normal = rotate(a_transform.rotation, m.normal);
    m.points[0].point = transform_point(a_transform, m.points[0].point + origin);
    m.points[1].point = transform_point(a_transform, m.points[1].point + origin);
    return m;
}

@compute @workgroup_size(64)
fn collide_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    let pair = id.x;
    if (pair >= params.pair_count) {
        return;
    }
    let a = indices[params.pair_offset + 2u * pair];
    let b = indices[params.pair_offset + 2u * pair + 1u];
    let m = collide(shapes[indices[a]], poses[a], shapes[indices[b]], poses[b]);
    if (m.count == 0u) {
        return;
    }
    // Compaction: overlapping pairs append; the host restores pair order by `pair`.
    let slot = atomicAdd(&contacts.count, 1u);
    if (slot < params.contact_capacity) {
        contacts.records[slot] = ContactOut(m.normal, m.depth, pair, m.points);
    }
}
