// wgpu-sat narrow phase for pairs with a circle: the twin of src/collision/sat_circle.rs.
//
// Compiled after layout.wgsl and sat.wgsl, whose structs and helpers it uses. A circle is a
// Shape with `count` 1, its centre in every vertex slot, zero normals and its radius in
// `radius` (layout.wgsl). Circles have no kernel path of their own: a SIMD device runs a
// branch for every lane of a group once any lane takes it, so a separate circle test would
// cost every polygon pair its price (measured: 25 to 70 % more kernel time on lavapipe).
// Instead they ride the polygon path, which already computes what they need:
//   - the host writes a circle–polygon pair polygon first, marked SWAPPED (no per-lane test
//     in the kernel), and collide_pairs flips the result back (`flip_manifold`), as
//     collide_circle_polygon does on the CPU;
//   - find_max_separation of A's faces against a circle B (its centre in every slot) is the
//     face search of the CPU's find_face_separation; collide_polygons subtracts B's radius
//     and leaves out B's (zero) normals, and a circle A's;
//   - clip_polygons hands the reference face and the centre to `circle_manifold` below,
//     which finishes the contact: the face, or the axis from a vertex beyond the face's end
//     (or from circle A's centre) to B's centre.
// The functions below have twins of the same name in src/collision/sat_circle.rs doing the same
// operations in the same order, so that both sides round alike; change both together.
// Frames and signs as in sat.wgsl: A's local frame shifted to A's first vertex (a circle
// A's centre); a separation is negative when the shapes overlap along that axis.

// The feature index a circle takes in a feature id (CIRCLE_FEATURE in src/collision/sat_circle.rs).
const CIRCLE_FEATURE: u32 = 0xffu;

// find_vertex_region's answers: the centre faces the reference face, or lies beyond its
// first or its second vertex.
const REGION_FACE: u32 = 0u;
const REGION_FIRST: u32 = 1u;
const REGION_SECOND: u32 = 2u;

// The vertex axis: unit, from a vertex (or A's centre) to B's centre, and the separation on
// it; `found` false when the two points coincide to rounding (no direction).
struct AxisSeparation {
    axis: vec2<f32>,
    separation: f32,
    found: bool,
}

// Where the circle's centre lies against the reference face, from its height above the
// face's line, its position `along` the edge from the first vertex, and the edge's length
// along it. Sign tests along the edge, so that rounding moves the boundary only where the
// face normal and the vertex axis coincide.
fn find_vertex_region(height: f32, along: f32, edge_length: f32) -> u32 {
    if (height <= 0.0) {
        return REGION_FACE;
    }
    if (along < 0.0) {
        return REGION_FIRST;
    }
    if (along > edge_length) {
        return REGION_SECOND;
    }
    return REGION_FACE;
}

// The unit axis along `offset` (vertex or A's centre to B's centre) and the separation
// |offset| - rA - rB along it (rA is 0 for a polygon). The length is scaled before it is
// squared (length_and_direction), so that an offset below 1e-19 (tiny circles) still gives
// a unit axis and one above 1e19 a finite length; the plain length's bits in between.
fn vertex_axis_separation(offset: vec2<f32>, radius_a: f32, radius_b: f32) -> AxisSeparation {
    let ld = length_and_direction(offset);
    let length = ld.length;
    return AxisSeparation(ld.direction, keep(length - radius_a) - radius_b, length > F32_EPSILON * radius_b);
}

// The contact of a circle B (centre `center`, radius `radius_b`) with the reference face
// from v1 to v2 (slots i1, i2, outward `normal`, separation `face_separation`) of polygon
// A, or with circle A (`circle_a`: centre v1, radius `radius_a`). Everything in A's shifted
// frame; the normal points from A to B.
fn circle_manifold(v1: vec2<f32>, v2: vec2<f32>, i1: u32, i2: u32, normal: vec2<f32>, center: vec2<f32>, face_separation: f32, circle_a: bool, radius_a: f32, radius_b: f32, margin: f32) -> Manifold {
    // The edge runs along the normal turned a quarter counter-clockwise.
    let tangent = vec2<f32>(-normal.y, normal.x);
    let offset = center - v1;
    let region = find_vertex_region(dot2(normal, offset), dot2(tangent, offset), dot2(tangent, v2 - v1));
    let second = region == REGION_SECOND;
    let vertex = vertex_axis_separation(center - select(v1, v2, second), radius_a, radius_b);
    // Two circles always take the axis between their centres (A's local y axis when they
    // coincide); a polygon takes it beyond an end of its face, unless the centre sits on
    // the vertex. `end` 0 marks a face feature, 1 a vertex.
    var axis = normal;
    var separation = face_separation;
    var feature = i1;
    var end = 0u;
    if (circle_a) {
        axis = select(vec2<f32>(0.0, 1.0), vertex.axis, vertex.found);
        separation = vertex.separation;
        feature = CIRCLE_FEATURE;
    } else if (region != REGION_FACE && vertex.found) {
        axis = vertex.axis;
        separation = vertex.separation;
        feature = select(i1, i2, second);
        end = 1u;
    }
    var m: Manifold;
    m.count = 0u;
    if (separation >= margin) {
        return m;
    }
    // Halfway between B's deepest point and A's surface.
    let point = center - (radius_b + 0.5 * separation) * axis;
    m.normal = axis;
    m.depth = -separation;
    m.points[0] = ContactPointOut(point, -separation, feature_id(false, feature, CIRCLE_FEATURE, end));
    m.points[1] = ContactPointOut(vec2<f32>(0.0), 0.0, NO_POINT);
    m.count = 1u;
    return m;
}

// Whether a pair of these shapes is tested polygon first, flipped back after (flip_manifold):
// a circle against a sharp polygon, as collide_circle_polygon tests it on the CPU. The
// narrow phase's host marks such pairs itself (SwapRole in src/gpu/sat_pass.rs), unless
// its pass orients them (ORIENT_ON_DEVICE, here); the continuous stage's collide_shapes
// (continuous.wgsl) asks here.
fn circle_before_polygon(a: Shape, b: Shape) -> bool {
    return a.kind == KIND_SHARP && a.count == 1u && b.kind == KIND_SHARP && b.count > 1u;
}

// The manifold of the pair given the other way round (collide_circle_polygon on the CPU):
// the normal reversed, the flip bit set in the id.
fn flip_manifold(m: Manifold) -> Manifold {
    var flipped = m;
    flipped.normal = -m.normal;
    flipped.points[0].id = m.points[0].id | feature_id(true, 0u, 0u, 0u);
    return flipped;
}
