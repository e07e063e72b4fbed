// wgpu-sat time of impact: one swept test per pair of moving shapes, for continuous
// collision of fast bodies. The library compiles this file after layout.wgsl (the Shape and
// Pose structs), transform.wgsl (keep() and the kept rotations, transform_point_kept,
// inv_mul_kept, dot_kept), u64.wgsl, soft_f64.wgsl and sin_cos.wgsl (from_angle, the
// host's bits), and the narrow phase's pair tests (sat.wgsl, sat_circle.wgsl,
// sat_rounded.wgsl: collide_rounded measures the distance of a rounded pair). It binds
// nothing: toi_pass.wgsl (GpuTimeOfImpact's batches) and continuous.wgsl (the GPU world's
// continuous stage) follow it with their bindings, each setting keep()'s flag.
//
// Every product and every partial sum that feeds another sum is kept (keep(), the kept
// rotations): a driver may fuse or re-associate them otherwise (docs/reliability.md), and
// with them kept the kernel gives the CPU's bits where the adapter rounds IEEE operations
// as the host does (lavapipe: tests/cpu/toi/gpu.rs).
//
// Every function below has a twin of the same name in src/collision/toi/ that does the same
// operations in the same order, so that the CPU and the GPU round alike; change both
// together. The algorithm, in short (src/collision/toi/mod.rs has the reasons for each choice):
//
//   time_of_impact(A, sweep_a, B, sweep_b):
//       shift both sweeps by A's start centre (small coordinates)
//       d      = B's centre displacement - A's                    (world frame)
//       margin = |Δangle_A|·rA + |Δangle_B|·rB     rX = sweep_radius (farthest point from
//                                                  the centre of rotation)
//       tol    = toi_tolerance ; target = tol / 2
//       1. swept_sat, in A's frame at t = 0, over A's and B's face normals, the normal of d
//          and the closest direction at t = 0: B's projection slides by (n·d)·t, both widen
//          by margin·t (the arc a rotating point can travel); "gap <= target" on every axis
//          gives a window [enter, exit] within [0, 1]; empty -> no hit
//       2. advance from enter, at most MAX_TOI_ITERATIONS times:
//              (D, n) = shape_distance at t (signed, world normal A -> B)
//              D <= tol        -> hit at t
//              approach = margin - n·d;  approach <= 0 -> no hit (receding along n)
//              L(δ) = lower_separation along the fixed axis n (concave in δ)
//              L(exit - t) > target -> no hit
//              t += max((D - target) / approach, bisection of L = target);  t > exit -> no hit
//          cap reached -> hit at the last t evaluated (safe, separation above tol)
//
// Conservative: the separation along the fixed axis n falls at most `approach` per unit t,
// and stays above the concave bound L; the distance is never below that separation, so no
// step passes a time of overlap.
// Frames and signs: sweeps are world frame; the swept SAT works in A's frame at t = 0, the
// distances in A's frame at t; the output normal is a world unit vector from A to B; a
// negative separation means overlap (reported only at t = 0).
//
// Shapes (ShapeGpu in src/gpu/layout.rs): a polygon has count 3 to 8 vertices, grown by
// `rounding` when it is a rounded one; a circle has count 1, its centre in vertex 0 and its
// radius in `radius`; a capsule, a segment or a chain link has count 2 and is grown by
// `rounding` (0 for the last two). The projections and supports add `rounding` (0 for a
// sharp polygon, so its numbers are unchanged); only polygons (count 3 or more) lend their
// faces to the swept SAT; a pair with a shape that is not a sharp polygon or a circle takes
// its distance from collide_rounded, a chain link as its plain segment (its ghost vertices
// lie past its count, and rounded_core puts slot 0 back over them), all as src/collision/toi/ and
// src/collision/distance.rs do. The loops run over the vertices a shape has, as on the CPU: the
// batches are small (fast bodies only), so simplicity wins over the narrow phase's
// fixed-slot unrolling.

// Same values as TOI_RELATIVE_TOLERANCE, TOI_ROUNDING_TOLERANCE (64 f32 epsilons) and
// MAX_TOI_ITERATIONS in src/collision/toi/mod.rs (a test compares them).
const TOI_RELATIVE_TOLERANCE: f32 = 1e-3;
const TOI_ROUNDING_TOLERANCE: f32 = 7.6293945e-6;
const MAX_TOI_ITERATIONS: u32 = 32u;
// The t of a pair that does not hit (NO_HIT in src/gpu/layout.rs).
const NO_HIT: f32 = -1.0;
const F32_MAX: f32 = 3.40282347e38;
// The bits of f32::INFINITY: the start of a search for the smallest square (WGSL has no
// infinite literal).
const INFINITY_BITS: u32 = 0x7f800000u;
// std::f32::consts::PI.
const PI: f32 = 3.14159265;

// A body's motion over the step (Sweep in src/collision/toi/sweep.rs).
struct Sweep {
    local_center: vec2<f32>,
    c0: vec2<f32>,
    c1: vec2<f32>,
    a0: f32,
    a1: f32,
}

struct TimeOfImpact {
    hit: bool,
    t: f32,
    normal: vec2<f32>,
    separation: f32,
}

struct Motion {
    d: vec2<f32>,
    margin: f32,
    ra: f32,
    rb: f32,
}

struct Window {
    enter: f32,
    exit: f32,
}

struct Distance {
    distance: f32,
    normal: vec2<f32>,
}

struct SegmentPoint {
    point: vec2<f32>,
    interior: bool,
}

struct Closest {
    squared: f32,
    delta: vec2<f32>,
    interior: bool,
    face: vec2<f32>,
}

struct Interval {
    low: f32,
    high: f32,
}

fn is_circle(s: Shape) -> bool {
    return s.count == 1u;
}

fn center_at(s: Sweep, t: f32) -> vec2<f32> {
    return s.c0 + keep2((s.c1 - s.c0) * t);
}

// The rotation from sin_cos.wgsl, the host's bits at any angle (WGSL's own sin and cos
// are specified only within [-pi, pi], and not to the last bit there).
fn transform_at(s: Sweep, t: f32) -> Pose {
    let angle = s.a0 + keep((s.a1 - s.a0) * t);
    let center = center_at(s, t);
    let q = from_angle(angle);
    return Pose(center - rotate_kept(q, s.local_center), q);
}

// The same motion with both centres moved by -origin, and the start angle brought into
// (-pi, pi] when it lies outside, the turn a1 - a0 kept: far from zero a0 + (a1 - a0)·t has
// no precision left, so the pose would jump instead of turning (see Sweep::shifted).
fn shifted(s: Sweep, origin: vec2<f32>) -> Sweep {
    var a0 = s.a0;
    var a1 = s.a1;
    if (abs(s.a0) > PI) {
        let turn = s.a1 - s.a0;
        let start = atan2(sin(s.a0), cos(s.a0));
        a0 = start;
        a1 = start + turn;
    }
    return Sweep(s.local_center, s.c0 - origin, s.c1 - origin, a0, a1);
}

// Sweep::is_finite.
fn sweep_is_finite(s: Sweep) -> bool {
    return is_finite_vec2(s.local_center) && is_finite_vec2(s.c0) && is_finite_vec2(s.c1)
        && is_finite_f32(s.a0) && is_finite_f32(s.a1);
}

fn sweep_radius(s: Shape, local_center: vec2<f32>) -> f32 {
    if (is_circle(s)) {
        // Lengths scaled before squaring: a point 1e20 from the centre is 1e20 away, not inf.
        return length_and_direction(s.vertices[0] - local_center).length + s.radius;
    }
    var v = s.vertices;
    var r = 0.0;
    for (var k = 0u; k < s.count; k++) {
        let d = length_and_direction(v[k] - local_center).length;
        r = select(r, d, d > r);
    }
    // + 0 for a sharp polygon: the same bits as without it.
    return r + s.rounding;
}

// Shape::bounding_radius, the length scale of the tolerance: a polygon's core radius (its
// rounding not included), a circle's radius, half a segment's or a chain link's length, half
// a capsule's length plus its radius (`radius` holds the half length of the last three).
fn bounding_radius(s: Shape) -> f32 {
    return select(s.radius, s.radius + s.rounding, s.count == 2u);
}

fn relative_motion(sa: Sweep, ra: f32, sb: Sweep, rb: f32) -> Motion {
    let margin = keep(abs(sa.a1 - sa.a0) * ra) + keep(abs(sb.a1 - sb.a0) * rb);
    return Motion((sb.c1 - sb.c0) - (sa.c1 - sa.c0), margin, ra, rb);
}

// sa, sb: the sweeps shifted by A's start centre. The floor counts each body's own
// displacement, not only the relative one: two bodies moving far together have a small
// relative displacement, but their poses at t are rounded to their distance from the start.
fn tolerance(a: Shape, b: Shape, ra: f32, rb: f32, sa: Sweep, sb: Sweep) -> f32 {
    let relative = TOI_RELATIVE_TOLERANCE * min(bounding_radius(a), bounding_radius(b));
    // Each partial sum kept: a driver may otherwise add the terms in another order.
    var scale = keep(ra + rb);
    scale = keep(scale + length_and_direction(sb.c0).length);
    scale = keep(scale + length_and_direction(sa.c1 - sa.c0).length);
    scale = keep(scale + length_and_direction(sb.c1 - sb.c0).length);
    scale = keep(scale + length_and_direction(sa.local_center).length);
    scale = scale + length_and_direction(sb.local_center).length;
    let rounding_floor = TOI_ROUNDING_TOLERANCE * scale;
    return select(relative, rounding_floor, rounding_floor > relative);
}

// Keeps the times of the window at which a + b·t <= 0.
fn clip_window(window: Window, a: f32, b: f32) -> Window {
    var w = window;
    if (b < 0.0) {
        let t = -a / b;
        if (t > w.enter) {
            w.enter = t;
        }
    } else if (b > 0.0) {
        let t = -a / b;
        if (t < w.exit) {
            w.exit = t;
        }
    } else if (a > 0.0) {
        w.exit = -1.0;
    }
    return w;
}

fn project(s: Shape, x: Pose, n: vec2<f32>) -> Interval {
    if (is_circle(s)) {
        let p = dot_kept(n, transform_point_kept(x, s.vertices[0]));
        return Interval(p - s.radius, p + s.radius);
    }
    var v = s.vertices;
    var low = F32_MAX;
    var high = -F32_MAX;
    for (var k = 0u; k < s.count; k++) {
        let p = dot_kept(n, transform_point_kept(x, v[k]));
        low = select(low, p, p < low);
        high = select(high, p, p > high);
    }
    return Interval(low - s.rounding, high + s.rounding);
}

fn separate_on_axis(
    window: Window,
    a: Shape,
    b: Shape,
    relative: Pose,
    n: vec2<f32>,
    d: vec2<f32>,
    margin: f32,
    target_distance: f32,
) -> Window {
    let ia = project(a, Pose(vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0)), n);
    let ib = project(b, relative, n);
    let v = dot_kept(n, d);
    let w = clip_window(window, keep(ib.low - ia.high) - target_distance, v - margin);
    return clip_window(w, keep(ia.low - ib.high) - target_distance, -(v + margin));
}

fn swept_sat(a: Shape, xa: Pose, b: Shape, xb: Pose, motion: Motion, start_normal: vec2<f32>, target_distance: f32) -> Window {
    let relative = inv_mul_kept(xa, xb);
    let d = inverse_rotate_kept(xa.rotation, motion.d);
    let m = motion.margin;
    var w = Window(0.0, 1.0);
    // A polygon's faces (a rounded one's too); a capsule's or a segment's two opposite
    // normals are no face axis on the CPU either.
    if (a.count >= 3u) {
        var na = a.normals;
        for (var i = 0u; i < a.count; i++) {
            w = separate_on_axis(w, a, b, relative, na[i], d, m, target_distance);
        }
    }
    if (b.count >= 3u) {
        var nb = b.normals;
        for (var j = 0u; j < b.count; j++) {
            w = separate_on_axis(w, a, b, relative, rotate_kept(relative.rotation, nb[j]), d, m, target_distance);
        }
    }
    // The normal of the motion: rejects pairs that pass side by side.
    let d_ld = length_and_direction(d);
    if (d_ld.length > 0.0) {
        let side = vec2<f32>(-d_ld.direction.y, d_ld.direction.x);
        w = separate_on_axis(w, a, b, relative, side, d, m, target_distance);
    }
    // The closest direction at the start: a circle's only natural axis.
    let closest = inverse_rotate_kept(xa.rotation, start_normal);
    return separate_on_axis(w, a, b, relative, closest, d, m, target_distance);
}

fn advance(a: Shape, sa: Sweep, b: Shape, sb: Sweep, motion: Motion, window: Window, tol: f32, target_distance: f32) -> TimeOfImpact {
    var t = window.enter;
    var last = TimeOfImpact(true, t, vec2<f32>(0.0, 0.0), 0.0);
    for (var iteration = 0u; iteration < MAX_TOI_ITERATIONS; iteration++) {
        let xa = transform_at(sa, t);
        let xb = transform_at(sb, t);
        let here = shape_distance(a, xa, b, xb);
        last = TimeOfImpact(true, t, here.normal, here.distance);
        if (here.distance <= tol) {
            return last;
        }
        let n = here.normal;
        let approach = motion.margin - dot_kept(n, motion.d);
        if (approach <= 0.0) {
            last.hit = false;
            return last;
        }
        let bound = SeparationBound(
            n,
            dot_kept(n, center_at(sb, t) - center_at(sa, t)),
            dot_kept(n, motion.d),
            sa.a1 - sa.a0,
            sb.a1 - sb.a0,
            0.5 * (keep(motion.ra * (sa.a1 - sa.a0) * (sa.a1 - sa.a0))
                + keep(motion.rb * (sb.a1 - sb.a0) * (sb.a1 - sb.a0))),
        );
        let separation = lower_separation(a, xa, sa, b, xb, sb, bound, 0.0);
        let remaining = window.exit - t;
        if (lower_separation(a, xa, sa, b, xb, sb, bound, remaining) > target_distance) {
            // The concave bound is above the target at both ends of the window's rest.
            last.hit = false;
            return last;
        }
        var low = 0.0;
        var high = remaining;
        for (var k = 0u; k < BISECTIONS; k++) {
            let middle = 0.5 * (low + high);
            if (lower_separation(a, xa, sa, b, xb, sb, bound, middle) > target_distance) {
                low = middle;
            } else {
                high = middle;
            }
        }
        let linear = (separation - target_distance) / approach;
        t += select(low, linear, linear > low);
        if (t > window.exit) {
            last.hit = false;
            return last;
        }
    }
    return last;
}

// Halvings of the window's rest when bisecting the concave separation bound.
const BISECTIONS: u32 = 20u;

struct SeparationBound {
    n: vec2<f32>,
    centers: f32,
    speed: f32,
    turn_a: f32,
    turn_b: f32,
    curvature: f32,
}

// max over the shape's points q (world offsets from the centre of rotation at pose x) of
// n·q + angle·(n·perp(q)); a circle adds its radius.
fn support_line(s: Shape, x: Pose, local_center: vec2<f32>, n: vec2<f32>, angle: f32) -> f32 {
    if (is_circle(s)) {
        let q = rotate_kept(x.rotation, s.vertices[0] - local_center);
        return keep(dot_kept(n, q) + keep(angle * dot_kept(n, vec2<f32>(-q.y, q.x)))) + s.radius;
    }
    var v = s.vertices;
    var high = -F32_MAX;
    for (var k = 0u; k < s.count; k++) {
        let q = rotate_kept(x.rotation, v[k] - local_center);
        let p = dot_kept(n, q) + keep(angle * dot_kept(n, vec2<f32>(-q.y, q.x)));
        high = select(high, p, p > high);
    }
    return high + s.rounding;
}

// A concave lower bound on the separation along the fixed axis bound.n, `delta` further into
// the step (a point turning by δ projects to a cos δ + b sin δ <= a + b δ + |q| δ²/2).
fn lower_separation(a: Shape, xa: Pose, sa: Sweep, b: Shape, xb: Pose, sb: Sweep, bound: SeparationBound, delta: f32) -> f32 {
    let support_a = support_line(a, xa, sa.local_center, bound.n, bound.turn_a * delta);
    let support_b = support_line(b, xb, sb.local_center, -bound.n, bound.turn_b * delta);
    // Left to right, each partial sum kept, as the host adds them.
    var s = keep(bound.centers + keep(bound.speed * delta));
    s = keep(s - support_a);
    s = keep(s - support_b);
    return s - keep(bound.curvature * delta * delta);
}

fn time_of_impact(a: Shape, sweep_a: Sweep, b: Shape, sweep_b: Sweep) -> TimeOfImpact {
    let none = TimeOfImpact(false, NO_HIT, vec2<f32>(0.0, 0.0), 0.0);
    // A sweep with a NaN or an infinity has no motion to follow (the host rejects them
    // first; kept so that the kernel never follows one).
    if (!(sweep_is_finite(sweep_a) && sweep_is_finite(sweep_b))) {
        return none;
    }
    let origin = sweep_a.c0;
    let sa = shifted(sweep_a, origin);
    let sb = shifted(sweep_b, origin);
    let ra = sweep_radius(a, sa.local_center);
    let rb = sweep_radius(b, sb.local_center);
    let motion = relative_motion(sa, ra, sb, rb);
    let tol = tolerance(a, b, ra, rb, sa, sb);
    // Finite sweeps whose motion does not fit in f32 (centres or turns near f32::MAX)
    // cannot be swept: every bound below would be an infinity, every distance a NaN.
    let fits = is_finite_vec2(sa.c1) && is_finite_vec2(sb.c0) && is_finite_vec2(sb.c1)
        && is_finite_vec2(motion.d) && is_finite_f32(sa.a1) && is_finite_f32(sb.a1)
        && is_finite_f32(motion.margin) && is_finite_f32(tol);
    if (!fits) {
        return none;
    }
    let target_distance = 0.5 * tol;
    let xa = transform_at(sa, 0.0);
    let xb = transform_at(sb, 0.0);
    let start = shape_distance(a, xa, b, xb);
    let window = swept_sat(a, xa, b, xb, motion, start.normal, target_distance);
    if (window.enter > window.exit) {
        return none;
    }
    let hit = advance(a, sa, b, sb, motion, window, tol, target_distance);
    // Shapes whose own coordinates come near f32::MAX can still overflow in a distance
    // although the motion fits; such a result has no normal to report.
    if (!(is_finite_vec2(hit.normal) && is_finite_f32(hit.separation))) {
        return none;
    }
    return hit;
}

fn shape_distance(a: Shape, xa: Pose, b: Shape, xb: Pose) -> Distance {
    if (a.kind != KIND_SHARP || b.kind != KIND_SHARP) {
        return rounded_distance(a, xa, b, xb);
    }
    if (!is_circle(a) && !is_circle(b)) {
        let r = polygon_distance(a, b, inv_mul_kept(xa, xb));
        return Distance(r.distance, rotate_kept(xa.rotation, r.normal));
    }
    if (!is_circle(a)) {
        let relative = inv_mul_kept(xa, xb);
        let r = polygon_circle_distance(a, transform_point_kept(relative, b.vertices[0]), b.radius);
        return Distance(r.distance, rotate_kept(xa.rotation, r.normal));
    }
    if (!is_circle(b)) {
        // In B's frame, from the polygon to the circle: reverse the normal.
        let relative = inv_mul_kept(xb, xa);
        let r = polygon_circle_distance(b, transform_point_kept(relative, a.vertices[0]), a.radius);
        return Distance(r.distance, -rotate_kept(xb.rotation, r.normal));
    }
    let r = circle_distance(a, b, inv_mul_kept(xa, xb));
    return Distance(r.distance, rotate_kept(xa.rotation, r.normal));
}

// The distance of a pair with a capsule, a segment, a rounded polygon or a chain link: the
// rounded narrow phase's manifold with no limit on the gap, whose depth is minus the
// distance when apart and the depth of the minimum translation when overlapping. A chain
// link counts as its plain segment (collide_rounded takes its core, not its ghosts).
fn rounded_distance(a: Shape, xa: Pose, b: Shape, xb: Pose) -> Distance {
    let m = collide_rounded(a, xa, b, xb, F32_MAX);
    if (m.count == 0u) {
        // Beyond f32's range: as far as can be told.
        return Distance(F32_MAX, vec2<f32>(0.0, 1.0));
    }
    return Distance(-m.depth, m.normal);
}

fn closest_on_segment(p: vec2<f32>, s0: vec2<f32>, s1: vec2<f32>) -> SegmentPoint {
    let e = s1 - s0;
    let u = dot_kept(p - s0, e) / dot_kept(e, e);
    if (u <= 0.0) {
        return SegmentPoint(s0, false);
    }
    if (u >= 1.0) {
        return SegmentPoint(s1, false);
    }
    return SegmentPoint(s0 + keep2(u * e), true);
}

fn consider_closest(best: Closest, delta: vec2<f32>, interior: bool, face: vec2<f32>) -> Closest {
    let squared = dot_kept(delta, delta);
    // `best` starts at an infinite square; a candidate whose square overflows still
    // replaces it, so that a pair 1e20 apart keeps a real direction.
    if (squared < best.squared || !is_finite_f32(best.squared)) {
        return Closest(squared, delta, interior, face);
    }
    return best;
}

fn polygon_distance(a: Shape, b: Shape, relative: Pose) -> Distance {
    var va = a.vertices;
    var na = a.normals;
    var vb = b.vertices;
    var nb = b.normals;
    let ca = a.count;
    let cb = b.count;
    var separation = -F32_MAX;
    var face_normal = na[0];
    for (var i = 0u; i < ca; i++) {
        var lowest = F32_MAX;
        for (var k = 0u; k < cb; k++) {
            let s = dot_kept(na[i], transform_point_kept(relative, vb[k]) - va[i]);
            lowest = select(lowest, s, s < lowest);
        }
        if (lowest > separation) {
            separation = lowest;
            face_normal = na[i];
        }
    }
    for (var j = 0u; j < cb; j++) {
        let n = rotate_kept(relative.rotation, nb[j]);
        let w = transform_point_kept(relative, vb[j]);
        var lowest = F32_MAX;
        for (var k = 0u; k < ca; k++) {
            let s = dot_kept(n, va[k] - w);
            lowest = select(lowest, s, s < lowest);
        }
        if (lowest > separation) {
            separation = lowest;
            face_normal = -n;
        }
    }
    if (separation < 0.0) {
        return Distance(separation, face_normal);
    }
    var best = Closest(bitcast<f32>(INFINITY_BITS), vec2<f32>(0.0, 0.0), false, vec2<f32>(0.0, 0.0));
    // B's vertices against A's edges.
    for (var i = 0u; i < ca; i++) {
        let next = select(0u, i + 1u, i + 1u < ca);
        for (var k = 0u; k < cb; k++) {
            let w = transform_point_kept(relative, vb[k]);
            let q = closest_on_segment(w, va[i], va[next]);
            best = consider_closest(best, w - q.point, q.interior, na[i]);
        }
    }
    // A's vertices against B's edges; B's outward normal points from B to A.
    for (var j = 0u; j < cb; j++) {
        let next = select(0u, j + 1u, j + 1u < cb);
        let w0 = transform_point_kept(relative, vb[j]);
        let w1 = transform_point_kept(relative, vb[next]);
        let n = rotate_kept(relative.rotation, nb[j]);
        for (var k = 0u; k < ca; k++) {
            let q = closest_on_segment(va[k], w0, w1);
            best = consider_closest(best, q.point - va[k], q.interior, -n);
        }
    }
    // From the vector itself, not from `squared`: squares of gaps below 1e-19 are
    // subnormal or zero, and their root would make a normal far from unit length.
    let closest = length_and_direction(best.delta);
    let dist = closest.length;
    var normal = face_normal;
    if (best.interior) {
        normal = best.face;
    } else if (dist > 0.0) {
        normal = closest.direction;
    }
    return Distance(dist, normal);
}

fn polygon_circle_distance(p: Shape, center: vec2<f32>, radius: f32) -> Distance {
    var v = p.vertices;
    var n = p.normals;
    let count = p.count;
    var separation = -F32_MAX;
    var face = 0u;
    for (var i = 0u; i < count; i++) {
        let s = dot_kept(n[i], center - v[i]);
        if (s > separation) {
            separation = s;
            face = i;
        }
    }
    if (separation <= 0.0) {
        return Distance(separation - radius, n[face]);
    }
    var best = Closest(bitcast<f32>(INFINITY_BITS), vec2<f32>(0.0, 0.0), false, vec2<f32>(0.0, 0.0));
    for (var i = 0u; i < count; i++) {
        let next = select(0u, i + 1u, i + 1u < count);
        let q = closest_on_segment(center, v[i], v[next]);
        best = consider_closest(best, center - q.point, q.interior, n[i]);
    }
    // Length and direction from the vector, as in polygon_distance.
    let closest = length_and_direction(best.delta);
    let dist = closest.length;
    var normal = closest.direction;
    if (best.interior) {
        normal = best.face;
    }
    return Distance(dist - radius, normal);
}

fn circle_distance(a: Shape, b: Shape, relative: Pose) -> Distance {
    let d = transform_point_kept(relative, b.vertices[0]) - a.vertices[0];
    let ld = length_and_direction(d);
    let d_length = ld.length;
    var normal = vec2<f32>(0.0, 1.0);
    if (d_length > 0.0) {
        normal = ld.direction;
    }
    return Distance(keep(d_length - a.radius) - b.radius, normal);
}
