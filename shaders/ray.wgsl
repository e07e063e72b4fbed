// wgpu-sat ray casts: one invocation per (ray, collider) pair of a batch, for many rays at
// once (a sensor sweep, the lidars of many agents). The library compiles this file after
// layout.wgsl (Shape, Pose, the KIND_* constants) and transform.wgsl (rotate,
// inverse_rotate, dot2).
//
// Every function below has a twin of the same name in src/query/ray.rs (core_distance and
// closest_on_segment: src/collision/rounded.rs) that does the same operations in the same order, so
// that the CPU and the GPU round alike; change both together. In short (src/query/ray.rs has the
// reasons):
//
//   cast_ray(shape, pose, origin, translation):
//       p, d = origin and translation in the shape's frame
//       sharp polygon: clip [0, 1] by each edge's half-plane (Cyrus-Beck); the entry is
//                where the last entering edge was crossed, its normal the hit normal
//       circle:  the entry half a chord before the point of closest approach
//       rounded core (capsule, segment, rounded polygon, chain link): the earliest entry
//                over each edge moved out by the radius and each vertex's circle
//       a ray that starts inside or on the boundary does not hit
//   back to the world frame: normal rotated; the host computes the point
//
// Shapes (ShapeGpu in src/gpu/layout.rs): a sharp polygon (kind KIND_SHARP) has count 3 to
// 8 vertices; a circle (KIND_SHARP) has count 1, its centre in vertex slot 0 and its radius
// in `radius`; every other kind is a core of count 2 to 8 vertices grown by `rounding`. A
// chain link (KIND_CHAIN) is cast as its plain segment, from either side, as on the CPU:
// its ghost vertices (slots 2 and 3) lie past its count and no loop here reads them.

// The fraction of a pair that does not hit (NO_RAY_HIT in src/gpu/layout.rs).
const NO_RAY_HIT: f32 = -1.0;

// One (ray, collider) pair, with the ray inline and the collider's shape index, so that the
// pass binds four storage buffers (the downlevel limit): RayPairGpu in src/gpu/layout.rs.
struct RayPair {
    origin: vec2<f32>,
    translation: vec2<f32>,
    collider: u32,
    shape: u32,
}

// The result of one pair: the world-frame normal and the fraction, or NO_RAY_HIT.
struct RayHitOut {
    normal: vec2<f32>,
    fraction: f32,
    _pad: u32,
}

struct RayParams {
    pair_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// A hit in the shape's frame (`hit` false: a miss).
struct LocalHit {
    hit: bool,
    fraction: f32,
    normal: vec2<f32>,
}

@group(0) @binding(0) var<storage, read> shapes: array<Shape>;
@group(0) @binding(1) var<storage, read> poses: array<Pose>;
@group(0) @binding(2) var<storage, read> ray_pairs: array<RayPair>;
@group(0) @binding(3) var<storage, read_write> results: array<RayHitOut>;
@group(0) @binding(4) var<uniform> params: RayParams;

fn miss() -> LocalHit {
    return LocalHit(false, 0.0, vec2<f32>(0.0, 0.0));
}

fn cast_ray_polygon(shape: Shape, p: vec2<f32>, d: vec2<f32>) -> LocalHit {
    var lower = 0.0;
    var upper = 1.0;
    var entered = false;
    var normal = vec2<f32>(0.0, 0.0);
    for (var i = 0u; i < shape.count; i++) {
        let v = shape.vertices[i];
        let n = shape.normals[i];
        // Inside the edge's half-plane where n · (x - v) <= 0.
        let numerator = dot2(n, v - p);
        let denominator = dot2(n, d);
        if denominator == 0.0 {
            // Parallel: outside this edge's line means outside throughout.
            if numerator < 0.0 {
                return miss();
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator < 0.0 {
            // Entering; strictly later than the last entry (a start on the boundary
            // does not enter).
            if t > lower {
                lower = t;
                entered = true;
                normal = n;
            }
        } else if t < upper {
            upper = t;
        }
        if upper < lower {
            return miss();
        }
    }
    if !entered {
        return miss();
    }
    return LocalHit(true, lower, normal);
}

// The circle of radius r about `center` (Circle in src/query/ray.rs: a circle shape, or a rounded
// core's vertex).
fn cast_ray_circle(center: vec2<f32>, r: f32, p: vec2<f32>, d: vec2<f32>) -> LocalHit {
    let s = p - center;
    if dot2(s, s) <= r * r {
        return miss();
    }
    let length = sqrt(dot2(d, d));
    if !(length > 0.0 && is_finite_f32(length)) {
        return miss();
    }
    let u = d / length;
    let closest = -dot2(s, u);
    let offset = s + closest * u;
    let half_chord_squared = r * r - dot2(offset, offset);
    if half_chord_squared < 0.0 {
        return miss();
    }
    let distance = closest - sqrt(half_chord_squared);
    if distance < 0.0 || distance > length {
        return miss();
    }
    let outward = s + distance * u;
    let outward_length = sqrt(dot2(outward, outward));
    if outward_length <= 0.0 {
        return miss();
    }
    return LocalHit(true, distance / length, outward / outward_length);
}

// The point of the segment s0 s1 nearest p (s0 when the segment is a point).
fn closest_on_segment(p: vec2<f32>, s0: vec2<f32>, s1: vec2<f32>) -> vec2<f32> {
    let e = s1 - s0;
    let ee = dot2(e, e);
    if ee <= 0.0 {
        return s0;
    }
    // f32::clamp's comparisons.
    var u = dot2(p - s0, e) / ee;
    if u < 0.0 {
        u = 0.0;
    }
    if u > 1.0 {
        u = 1.0;
    }
    return s0 + u * e;
}

// Rounded::core_distance: the distance from the local point p to the core (0 inside a core
// of 3 or more vertices).
fn core_distance(shape: Shape, p: vec2<f32>) -> f32 {
    if shape.count == 1u {
        let e = p - shape.vertices[0];
        return sqrt(dot2(e, e));
    }
    var inside = shape.count >= 3u;
    for (var i = 0u; i < shape.count; i++) {
        if !(dot2(shape.normals[i], p - shape.vertices[i]) <= 0.0) {
            inside = false;
        }
    }
    if inside {
        return 0.0;
    }
    var best = bitcast<f32>(0x7f800000u);
    for (var i = 0u; i < shape.count; i++) {
        let next = (i + 1u) % shape.count;
        let e = closest_on_segment(p, shape.vertices[i], shape.vertices[next]) - p;
        best = min(best, sqrt(dot2(e, e)));
    }
    return best;
}

// The earliest entry into a rounded core: each edge moved out by the radius along its
// normal, met from its outer side between its ends, and each vertex's circle. A segment
// (radius 0) is hit from either side: its two edges are the segment walked both ways.
fn cast_ray_rounded(shape: Shape, p: vec2<f32>, d: vec2<f32>) -> LocalHit {
    let r = shape.rounding;
    if r > 0.0 && core_distance(shape, p) <= r {
        return miss();
    }
    var best = miss();
    let edges = select(shape.count, 0u, shape.count == 1u);
    for (var i = 0u; i < edges; i++) {
        let n = shape.normals[i];
        let q0 = shape.vertices[i] + r * n;
        let q1 = shape.vertices[(i + 1u) % shape.count] + r * n;
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
        if along >= 0.0 && along <= dot2(q1 - q0, q1 - q0) && (!best.hit || t < best.fraction) {
            best = LocalHit(true, t, n);
        }
    }
    if r > 0.0 {
        for (var i = 0u; i < shape.count; i++) {
            let hit = cast_ray_circle(shape.vertices[i], r, p, d);
            if hit.hit && (!best.hit || hit.fraction < best.fraction) {
                best = hit;
            }
        }
    }
    return best;
}

fn cast_ray(shape: Shape, pose: Pose, origin: vec2<f32>, translation: vec2<f32>) -> LocalHit {
    if !(is_finite_vec2(origin) && is_finite_vec2(translation))
        || (translation.x == 0.0 && translation.y == 0.0) {
        return miss();
    }
    // The shape's frame: inverse_transform_point and inverse_rotate of src/shapes/transform.rs.
    let p = inverse_rotate(pose.rotation, origin - pose.translation);
    let d = inverse_rotate(pose.rotation, translation);
    var local: LocalHit;
    if shape.kind != KIND_SHARP {
        local = cast_ray_rounded(shape, p, d);
    } else if shape.count == 1u {
        local = cast_ray_circle(shape.vertices[0], shape.radius, p, d);
    } else {
        local = cast_ray_polygon(shape, p, d);
    }
    if !local.hit {
        return local;
    }
    return LocalHit(true, local.fraction, rotate(pose.rotation, local.normal));
}

@compute @workgroup_size(64)
fn cast_ray_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= params.pair_count {
        return;
    }
    let pair = ray_pairs[index];
    let hit = cast_ray(shapes[pair.shape], poses[pair.collider], pair.origin, pair.translation);
    if hit.hit {
        results[index] = RayHitOut(hit.normal, hit.fraction, 0u);
    } else {
        results[index] = RayHitOut(vec2<f32>(0.0, 0.0), NO_RAY_HIT, 0u);
    }
}
