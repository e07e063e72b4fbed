// wgpu-sat narrow phase for pairs with a capsule, a segment, a rounded polygon or a chain
// link: the twin of src/collision/sat_rounded.rs.
//
// Compiled after layout.wgsl, transform.wgsl, sat.wgsl and sat_circle.wgsl, whose structs
// and helpers it uses (a LocalPolygon is the Rust side's LocalCore, a Manifold its
// LocalManifold). Every shape is seen as a core of 1 to 8 vertices grown by a radius: a
// circle is its centre (count 1) grown by `rounding`, a sharp polygon its vertices grown by
// 0 (layout.wgsl). The kernel sends a pair here when either shape is not sharp
// (`collide_shapes_speculative` below, as the Rust function of that name routes it):
//     two chain links: nothing (level geometry never meets itself)
//     a chain link and anything else: collide_chain_segment, link first (the kernel turns
//         a pair given the other way round, and flips the result back with flip_rounded)
//     otherwise: collide_rounded
//
//   collide_rounded: B's core in A's local frame shifted to A's first vertex; the SAT over
//     both cores' faces minus the radii; the closest features when the cores are apart (or
//     neither has area); else clip the incident edge and move each point halfway between
//     the grown surfaces.
//
// The functions below have twins of the same name in src/collision/sat_rounded.rs doing the same
// operations in the same order (the clipping is sat.wgsl's clip_incident_edge, as the Rust
// side shares src/collision/sat.rs's), so both sides round alike; change both together. Where the
// Rust side loops over a core's `count` vertices, this file runs over all eight slots (the
// padding argument at the top of sat.wgsl: slots past `count` repeat slot 0), reusing
// sat.wgsl's unrolled searches, which keep the cores in registers. A chain link's slots 2 and 3 hold its ghost vertices, not
// padding: `rounded_core` puts slot 0 back there before any search.
//
// Polygon and circle pairs never enter this file, but its code alone cost them: on lavapipe
// a batch of 100,000 polygon pairs took about 1.25 times the kernel time with this branch
// present than without, although no lane took it. So a table of sharp polygons and circles
// runs collide_pairs built with SHARP_ONLY (sat_pass.wgsl), in which this file is dead
// code; docs/performance.md has the figures.

// SegmentDistance in src/collision/sat_rounded.rs: the fractions along each segment (0 at the first
// end) and the closest points.
struct SegmentDistance {
    fraction1: f32,
    fraction2: f32,
    point1: vec2<f32>,
    point2: vec2<f32>,
}

// The shape as a core: a chain link's ghost slots (2, 3) back to padding (slot 0), as
// `ChainSegment::segment().rounded()` holds them on the CPU.
fn rounded_core(s: Shape) -> Shape {
    var core = s;
    if (s.kind == KIND_CHAIN) {
        core.vertices[2] = s.vertices[0];
        core.vertices[3] = s.vertices[0];
    }
    return core;
}

// Rounded::scale: the core's bounding radius plus the rounding radius; a circle's radius
// (its `radius` and `rounding` both hold it).
fn rounded_scale(s: Shape) -> f32 {
    return select(s.radius + s.rounding, s.rounding, s.count == 1u);
}

// The pair's narrow phase by the kinds of its shapes, as collide_shapes_speculative in
// src/collision/collide_shapes.rs routes it; two sharp shapes (polygons and circles) take collide_within.
fn collide_shapes_speculative(a: Shape, a_transform: Pose, b: Shape, b_transform: Pose, margin: f32) -> Manifold {
    if (a.kind == KIND_SHARP && b.kind == KIND_SHARP) {
        return collide_within(a, a_transform, b, b_transform, margin);
    }
    let chain_a = a.kind == KIND_CHAIN;
    let chain_b = b.kind == KIND_CHAIN;
    if (chain_a && chain_b) {
        var none: Manifold;
        none.count = 0u;
        return none;
    }
    if (chain_a || chain_b) {
        // The link first; one call site, so that the kernel holds one copy of the chain path.
        var link = a;
        var link_transform = a_transform;
        var other = b;
        var other_transform = b_transform;
        if (chain_b) {
            link = b;
            link_transform = b_transform;
            other = a;
            other_transform = a_transform;
        }
        let m = collide_chain_segment(link, link_transform, other, other_transform, margin);
        if (chain_b) {
            return flip_rounded(m);
        }
        return m;
    }
    return collide_rounded(a, a_transform, b, b_transform, margin);
}

// The contact of two rounded cores with speculative distance `margin`; count 0 when apart
// by `margin` or more, or when the contact lies beyond f32's range.
fn collide_rounded(a: Shape, a_transform: Pose, b: Shape, b_transform: Pose, margin: f32) -> Manifold {
    let origin = a.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    var poly_a = make_core_a(a, origin);
    var poly_b = make_core_b(b, relative, origin);
    let tolerance = RELATIVE_TIE_TOLERANCE * min(rounded_scale(a), rounded_scale(b));
    let local = collide_cores(&poly_a, &poly_b, a.rounding, b.rounding, tolerance, margin);
    return to_world(local, a_transform, origin);
}

// The pair given the other way round: the normal reversed, each point's id naming B's
// vertex first.
fn flip_rounded(m: Manifold) -> Manifold {
    var flipped = m;
    flipped.normal = -m.normal;
    let id0 = m.points[0].id;
    flipped.points[0].id = vertex_pair_id((id0 >> 8u) & 0xffu, (id0 >> 16u) & 0xffu);
    if (m.count > 1u) {
        let id1 = m.points[1].id;
        flipped.points[1].id = vertex_pair_id((id1 >> 8u) & 0xffu, (id1 >> 16u) & 0xffu);
    }
    return flipped;
}

// The contact of a chain link (A: a segment of radius 0 whose ghost vertices sit in slots
// 2 and 3) with a rounded core B.
fn collide_chain_segment(link: Shape, a_transform: Pose, b: Shape, b_transform: Pose, margin: f32) -> Manifold {
    let origin = link.vertices[0];
    let relative = inv_mul_transforms(a_transform, b_transform);
    var poly_a = make_core_a(link, origin);
    var poly_b = make_core_b(b, relative, origin);
    let tolerance = RELATIVE_TIE_TOLERANCE * min(rounded_scale(link), rounded_scale(b));
    let local = chain_manifold(&poly_a, &poly_b, link.vertices[2] - origin, link.vertices[3] - origin, b.rounding, tolerance, margin);
    return to_world(local, a_transform, origin);
}

// A local manifold mapped to the world by A's transform, an unused second slot marked
// NO_POINT; count 0 when anything in it is not finite.
fn to_world(local: Manifold, transform: Pose, origin: vec2<f32>) -> Manifold {
    if (local.count == 0u) {
        return local;
    }
    var m = local;
    m.normal = rotate(transform.rotation, local.normal);
    m.points[0].point = transform_point(transform, keep2(local.points[0].point) + origin);
    if (local.count > 1u) {
        m.points[1].point = transform_point(transform, keep2(local.points[1].point) + origin);
    } else {
        m.points[1] = ContactPointOut(vec2<f32>(0.0), 0.0, NO_POINT);
    }
    return finite(m);
}

// A's core relative to its first vertex.
fn make_core_a(a: Shape, origin: vec2<f32>) -> LocalPolygon {
    return make_local_a(rounded_core(a), origin);
}

// B's core in A's frame (`relative` maps B's frame into A's), relative to A's first vertex.
fn make_core_b(b: Shape, relative: Pose, origin: vec2<f32>) -> LocalPolygon {
    let core = rounded_core(b);
    var p = make_local_b(core, relative, origin);
    rotate_normals(&p, core, relative);
    return p;
}

// The index after `i` on a core of `count` vertices (0 for a point).
fn next_index(i: u32, count: u32) -> u32 {
    return select(0u, i + 1u, i + 1u < count);
}

// The edge normal of poly1 along which poly2 lies farthest out, and that separation (first
// on ties); -f32::MAX for a point, which has no faces. sat.wgsl's search over the eight
// slots is the Rust loop over `count` (see the top of this file).
fn find_max_separation_rounded(poly1: ptr<function, LocalPolygon>, poly2: ptr<function, LocalPolygon>) -> Separation {
    if ((*poly1).count == 1u) {
        return Separation(0u, -3.40282347e38);
    }
    return find_max_separation(poly1, poly2);
}

// The edge of poly whose normal is most anti-parallel to `normal` (first on ties; 0 for a
// point, whose zero normals all tie).
fn find_incident_edge_rounded(poly: ptr<function, LocalPolygon>, normal: vec2<f32>) -> u32 {
    return find_incident_edge(poly, normal);
}

// Clamps to [0, 1] with the Rust twin's comparisons.
fn unit_clamp(x: f32) -> f32 {
    let low = select(0.0, x, x > 0.0);
    return select(1.0, low, low < 1.0);
}

// The closest points of the segments p1 q1 and p2 q2 (either may be a point): the
// unclamped solution of the 2x2 normal equations, clamped, then re-solved along the
// clamped side; parallel segments take s = 0 first.
fn segment_distance(p1: vec2<f32>, q1: vec2<f32>, p2: vec2<f32>, q2: vec2<f32>) -> SegmentDistance {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let dd1 = dot2(d1, d1);
    let dd2 = dot2(d2, d2);
    let rd1 = dot2(r, d1);
    let rd2 = dot2(r, d2);
    var s = 0.0;
    var t = 0.0;
    if (dd1 == 0.0) {
        if (dd2 > 0.0) {
            t = unit_clamp(rd2 / dd2);
        }
    } else if (dd2 == 0.0) {
        s = unit_clamp(-rd1 / dd1);
    } else {
        let d12 = dot2(d1, d2);
        let denominator = dd1 * dd2 - d12 * d12;
        if (denominator != 0.0) {
            s = unit_clamp((d12 * rd2 - rd1 * dd2) / denominator);
        }
        t = (d12 * s + rd2) / dd2;
        if (t < 0.0) {
            t = 0.0;
            s = unit_clamp(-rd1 / dd1);
        } else if (t > 1.0) {
            t = 1.0;
            s = unit_clamp((d12 - rd1) / dd1);
        }
    }
    return SegmentDistance(s, t, p1 + s * d1, p2 + t * d2);
}

// The SAT over both cores' faces, then the closest features or the clipped faces, in A's
// shifted frame.
fn collide_cores(poly_a: ptr<function, LocalPolygon>, poly_b: ptr<function, LocalPolygon>, radius_a: f32, radius_b: f32, tolerance: f32, margin: f32) -> Manifold {
    var none: Manifold;
    none.count = 0u;
    let radius = radius_a + radius_b;
    let sa = find_max_separation_rounded(poly_a, poly_b);
    if (sa.separation - radius >= margin) {
        return none;
    }
    let sb = find_max_separation_rounded(poly_b, poly_a);
    if (sb.separation - radius >= margin) {
        return none;
    }
    // One call site for both orders, the cores picked by pointer.
    let flip = sb.separation > sa.separation + tolerance;
    if (flip) {
        return reference_manifold(poly_b, poly_a, sb.index, sb.separation, true, radius_b, radius_a, tolerance, margin);
    }
    return reference_manifold(poly_a, poly_b, sa.index, sa.separation, false, radius_a, radius_b, tolerance, margin);
}

// The manifold from poly1's reference face edge1: the closest features when the cores are
// apart (or the SAT is incomplete), else the clipped faces. `flip` when poly1 is B.
fn reference_manifold(
    poly1: ptr<function, LocalPolygon>,
    poly2: ptr<function, LocalPolygon>,
    edge1: u32,
    separation: f32,
    flip: bool,
    radius1: f32,
    radius2: f32,
    tolerance: f32,
    margin: f32,
) -> Manifold {
    let i11 = edge1;
    let i12 = next_index(i11, (*poly1).count);
    let normal = normal_at(poly1, i11);
    let i21 = find_incident_edge_rounded(poly2, normal);
    let i22 = next_index(i21, (*poly2).count);
    let v11 = vertex_at(poly1, i11);
    let v12 = vertex_at(poly1, i12);
    let v21 = vertex_at(poly2, i21);
    let v22 = vertex_at(poly2, i22);
    let complete = (*poly1).count >= 3u || (*poly2).count >= 3u;
    if (separation > tolerance || !complete) {
        let closest = segment_distance(v11, v12, v21, v22);
        let at_vertex1 = closest.fraction1 == 0.0 || closest.fraction1 == 1.0;
        let at_vertex2 = closest.fraction2 == 0.0 || closest.fraction2 == 1.0;
        let ld = length_and_direction(closest.point2 - closest.point1);
        let distance = ld.length;
        let axis = ld.direction;
        if (at_vertex1 && at_vertex2 && distance > tolerance) {
            var m: Manifold;
            m.count = 0u;
            let vertex_separation = distance - keep(radius1 + radius2);
            if (vertex_separation >= margin) {
                return m;
            }
            let vertex1 = select(i12, i11, closest.fraction1 == 0.0);
            let vertex2 = select(i22, i21, closest.fraction2 == 0.0);
            // Halfway between the two grown surfaces on the axis between the vertices.
            let surface1 = closest.point1 + radius1 * axis;
            let surface2 = closest.point2 - radius2 * axis;
            let point = ContactPointOut(0.5 * (keep2(surface1) + keep2(surface2)), -vertex_separation, pair_id(flip, vertex1, vertex2));
            m.normal = select(axis, -axis, flip);
            m.depth = -vertex_separation;
            m.points[0] = point;
            m.points[1] = point;
            m.count = 1u;
            return m;
        }
    }
    return clip_rounded(poly1, poly2, i11, i12, i21, i22, separation, flip, radius1, radius2, margin);
}

// The feature id of a point at vertex1 of the reference core and vertex2 of the incident
// one, named as (A's vertex, B's vertex).
fn pair_id(flip: bool, vertex1: u32, vertex2: u32) -> u32 {
    return select(vertex_pair_id(vertex1, vertex2), vertex_pair_id(vertex2, vertex1), flip);
}

// Clips the incident edge i21 i22 of poly2 to the side planes of poly1's reference edge
// i11 i12 and keeps the points less than `margin` apart once the radii are taken off, each
// halfway between the grown surfaces; a point incident core gives one point.
fn clip_rounded(
    poly1: ptr<function, LocalPolygon>,
    poly2: ptr<function, LocalPolygon>,
    i11: u32,
    i12: u32,
    i21: u32,
    i22: u32,
    separation: f32,
    flip: bool,
    radius1: f32,
    radius2: f32,
    margin: f32,
) -> Manifold {
    var m: Manifold;
    m.count = 0u;
    let v11 = vertex_at(poly1, i11);
    let v12 = vertex_at(poly1, i12);
    let v21 = vertex_at(poly2, i21);
    let v22 = vertex_at(poly2, i22);
    let normal = normal_at(poly1, i11);
    let radius = radius1 + radius2;
    // The reference edge runs along the normal turned a quarter counter-clockwise.
    let tangent = vec2<f32>(-normal.y, normal.x);
    let clipped = clip_incident_edge(v11, v12, v21, v22, tangent);
    let v_lower = clipped.lower;
    let v_upper = clipped.upper;
    let separation_lower = keep(dot2(normal, v_lower - v11)) - radius;
    let separation_upper = keep(dot2(normal, v_upper - v11)) - radius;
    // Halfway between the reference surface (the face moved out by radius1) and the
    // incident surface (the point moved in by radius2).
    let shift = radius1 - radius2;
    let lower = ContactPointOut(v_lower + (0.5 * (shift - keep(keep(separation_lower) + radius))) * normal, -separation_lower, pair_id(flip, i11, i22));
    let upper = ContactPointOut(v_upper + (0.5 * (shift - keep(keep(separation_upper) + radius))) * normal, -separation_upper, pair_id(flip, i12, i21));
    let keep_lower = lower.depth > -margin;
    let keep_upper = upper.depth > -margin && (*poly2).count > 1u;
    if (keep_lower && keep_upper) {
        m.points[0] = lower;
        m.points[1] = upper;
        m.count = 2u;
    } else if (keep_lower) {
        m.points[0] = lower;
        m.points[1] = lower;
        m.count = 1u;
    } else if (keep_upper) {
        m.points[0] = upper;
        m.points[1] = upper;
        m.count = 1u;
    } else {
        // Overlap on this axis, yet both clipped ends lie above the face: the deepest
        // incident vertex is beyond a side plane of a short reference edge.
        let separation21 = keep(dot2(normal, v21 - v11)) - radius;
        let separation22 = keep(dot2(normal, v22 - v11)) - radius;
        var v = v21;
        var s = separation21;
        var id = upper.id;
        if (separation22 <= separation21) {
            v = v22;
            s = separation22;
            id = lower.id;
        }
        if (s >= margin) {
            return m;
        }
        let deepest = ContactPointOut(v + (0.5 * (shift - keep(keep(s) + radius))) * normal, -s, id);
        m.points[0] = deepest;
        m.points[1] = deepest;
        m.count = 1u;
    }
    m.normal = select(normal, -normal, flip);
    m.depth = radius - separation;
    return m;
}

// The manifold of a chain link (A, a 2-vertex core of radius 0, its ghost vertices in the
// same frame) and B: one-sided, and the link's face normal where B's normal would lean
// past a straight or hollow joint (see src/collision/sat_rounded.rs's header).
fn chain_manifold(
    poly_a: ptr<function, LocalPolygon>,
    poly_b: ptr<function, LocalPolygon>,
    ghost_a: vec2<f32>,
    ghost_b: vec2<f32>,
    radius_b: f32,
    tolerance: f32,
    margin: f32,
) -> Manifold {
    var none: Manifold;
    none.count = 0u;
    let v1 = (*poly_a).vertices[0];
    let v2 = (*poly_a).vertices[1];
    let face = (*poly_a).normals[0];
    // One-sided: B's centre (the mean of its core's `count` vertices, summed in order)
    // behind the link's line meets nothing.
    let count_b = (*poly_b).count;
    var sum = vec2<f32>(0.0) + (*poly_b).vertices[0];
    if (count_b > 1u) {
        sum += (*poly_b).vertices[1];
    }
    if (count_b > 2u) {
        sum += (*poly_b).vertices[2];
    }
    if (count_b > 3u) {
        sum += (*poly_b).vertices[3];
    }
    if (count_b > 4u) {
        sum += (*poly_b).vertices[4];
    }
    if (count_b > 5u) {
        sum += (*poly_b).vertices[5];
    }
    if (count_b > 6u) {
        sum += (*poly_b).vertices[6];
    }
    if (count_b > 7u) {
        sum += (*poly_b).vertices[7];
    }
    let center = sum / f32(count_b);
    if (dot2(face, center - v1) < 0.0) {
        return none;
    }
    let m = collide_cores(poly_a, poly_b, 0.0, radius_b, tolerance, margin);
    if (m.count == 0u) {
        return m;
    }
    // Which end the normal leans towards, and that end's neighbour edge, pointing along the
    // chain. A free end (ghost on its vertex) keeps every normal.
    let tangent = v2 - v1;
    let lean = dot_side(m.normal, tangent);
    let neighbour = select(ghost_b - v2, v1 - ghost_a, lean < 0);
    let free = select(all(ghost_b == v2), all(ghost_a == v1), lean < 0);
    // Values within rounding of 0 count as 0 (dot_side), as on the Rust side.
    let along = dot_side(m.normal, neighbour);
    let admissible = lean == 0 || free || select(along <= 0, along >= 0, lean < 0);
    if (admissible) {
        return m;
    }
    // A corner that turns towards the solid side is convex: the neighbour gives the contact.
    // Past a tolerance: a driver may fuse a product into the difference, and a straight
    // corner's turn is then a rounding error either side of 0.
    if (corner_is_convex(tangent, neighbour, lean < 0)) {
        return none;
    }
    // Straight or hollow corner: the link's face normal.
    let lowest = face_separation(face, v1, poly_b);
    if (lowest - radius_b >= margin) {
        return none;
    }
    return clip_rounded_face(poly_a, poly_b, lowest, radius_b, margin);
}

// CORNER_TOLERANCE in src/collision/sat_rounded.rs (a test compares them): how small,
// relative to the sizes of its products, a corner test's dot or cross product counts as 0.
const CORNER_TOLERANCE: f32 = 1e-5;

// The side of 0 that u · v lies on (-1 or 1), or 0 within CORNER_TOLERANCE of the sum of its
// products' sizes, where rounding (fused or not) decides the sign.
fn dot_side(u: vec2<f32>, v: vec2<f32>) -> i32 {
    let d = dot2(u, v);
    let size = abs(u.x * v.x) + abs(u.y * v.y);
    if (abs(d) <= CORNER_TOLERANCE * size) {
        return 0;
    }
    return select(1, -1, d < 0.0);
}

// Whether the corner between the link's tangent and the neighbour edge (before the link
// when `before`) turns towards the solid side by more than CORNER_TOLERANCE, against the
// sum of the cross product's two products' sizes, which bounds its rounding.
fn corner_is_convex(tangent: vec2<f32>, neighbour: vec2<f32>, before: bool) -> bool {
    let turn = select(
        tangent.x * neighbour.y - tangent.y * neighbour.x,
        neighbour.x * tangent.y - neighbour.y * tangent.x,
        before,
    );
    let size = abs(tangent.x * neighbour.y) + abs(tangent.y * neighbour.x);
    return turn > CORNER_TOLERANCE * size;
}

// B's lowest vertex along the link's face normal, relative to the link's first vertex.
fn face_separation(face: vec2<f32>, v1: vec2<f32>, poly_b: ptr<function, LocalPolygon>) -> f32 {
    return lowest_projection(face, poly_b) - keep(dot2(face, v1));
}

// The link's face (edge 0) as the reference face, at separation `separation`.
fn clip_rounded_face(poly_a: ptr<function, LocalPolygon>, poly_b: ptr<function, LocalPolygon>, separation: f32, radius_b: f32, margin: f32) -> Manifold {
    let i21 = find_incident_edge_rounded(poly_b, (*poly_a).normals[0]);
    let i22 = next_index(i21, (*poly_b).count);
    return clip_rounded(poly_a, poly_b, 0u, 1u, i21, i22, separation, false, 0.0, radius_b, margin);
}
