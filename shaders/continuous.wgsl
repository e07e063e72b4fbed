// wgpu-sat: the GPU world's continuous stage, the twin of solve_continuous and the functions
// it calls in src/dynamics/continuous.rs (swept_body, earliest_hit, piece_hit,
// stop_at_impact) and of apply_impact in src/dynamics/state.rs. Compiled after layout.wgsl,
// transform.wgsl, bodies.wgsl (the solver's body records), box_hash.wgsl, u64.wgsl,
// soft_f64.wgsl (atan2_wide: math::to_angle), sin_cos.wgsl (from_angle), the narrow
// phase's pair tests (sat.wgsl, sat_circle.wgsl, sat_rounded.wgsl:
// collide_shapes_speculative) and toi.wgsl (time_of_impact), in the solver's submit:
// record_start before the solver's passes, the rest after them.
//
//   record_start     (per body) the pose the step starts from
//   sweep_bodies     (per body) a dynamic body that moved more than FAST_FRACTION of its
//                    thinnest piece is swept: its sweep and the box of the whole sweep (its
//                    start angle is earliest_hits' to take)
//   list_swept       (per body) the swept bodies whose sweep's box meets an obstacle's
//                    listed, and the workgroups over them: the next two run over the list
//                    alone (dispatched indirectly)
//   earliest_hits    (per swept body) over the static list in order, each obstacle whose
//                    box meets the sweep's, each piece the filter lets touch it: the
//                    earliest time of impact (a piece touching at the start swept as its
//                    core, one whose core touches too as its probe); a later one replaces
//                    it only when strictly earlier, as the host's scan does, so ties go to
//                    the first in the host's order
//   stop_at_impacts  (per swept body hit before the step's end) the pose at the hit,
//                    pushed along the normal; the manifold there (its middle, normal,
//                    restitution)
//   apply_impacts    (per body with a manifold) one rigid impulse through its middle
//   hash_moved       (per body moved) its pose and velocity into a sum the host checks
//
// What the device does not do: a world with a bullet is swept on the host alone (a bullet
// also hits dynamic bodies, and its impulse on them makes the host's impacts an ordered
// sequence), and so are the hit events (the host's). The obstacles are static, so an
// impact changes no other body: apply_impacts writes only its own, and checks that the
// obstacle's velocity would keep its bits, as it does on the host (poison otherwise).
//
// Every product and partial sum that feeds another sum is kept (keep()), as in toi.wgsl.

// ContinuousBodyGpu (src/gpu/world/continuous/layout.rs): what the host keeps of a body for
// the stage (and the sleep's wake).
struct ContinuousBody {
    local_center: vec2<f32>,
    max_extent: f32,
    min_extent: f32,
    // The body's first collider and how many it has; the next are the colliders' `next`.
    first_collider: u32,
    flags: u32,
    collider_count: u32,
    // Body::inv_mass: the state's again when the body wakes (sleep.wgsl's wake_islands).
    inv_mass: f32,
}

// ContinuousColliderGpu: a collider as a swept piece.
struct ContinuousCollider {
    shape: u32,
    next: u32,
    flags: u32,
    group: i32,
    // Filter::category_bits and mask_bits, (low, high) words.
    category: vec2<u32>,
    mask: vec2<u32>,
    restitution: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// StaticObstacleGpu: the static list's collider at that position, with its pose, angle
// (Transform::angle), box, filter, restitution and body.
struct StaticObstacle {
    translation: vec2<f32>,
    rotation: vec2<f32>,
    box_min: vec2<f32>,
    box_max: vec2<f32>,
    category: vec2<u32>,
    mask: vec2<u32>,
    angle: f32,
    shape: u32,
    body: u32,
    group: i32,
    restitution: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// SweptBodyGpu: the stage's record of a body, written by its kernels.
struct SweptBody {
    c0: vec2<f32>,
    q0: vec2<f32>,
    c1: vec2<f32>,
    local_center: vec2<f32>,
    box_min: vec2<f32>,
    box_max: vec2<f32>,
    // The hit's normal (piece to obstacle), then the manifold's at the new pose.
    normal: vec2<f32>,
    middle: vec2<f32>,
    a0: f32,
    turned: f32,
    t: f32,
    push: f32,
    first_collider: u32,
    piece_shape: u32,
    obstacle: u32,
    state: u32,
    piece_restitution: f32,
    owner: u32,
    restitution: f32,
    collider_count: u32,
    // The body at this position of the step's list of swept bodies (list_swept), or
    // NOT_LISTED: the list the time-of-impact kernels run over.
    listed: u32,
}

// ContinuousParamsGpu.
struct ContinuousParams {
    bodies: u32,
    statics: u32,
    // Shapes in the table; their cores follow them, then their probes.
    shapes: u32,
    // Never set: keep()'s flag.
    never: u32,
}

// ContinuousBody::flags (SWEPT_KINEMATIC, 4, in sleep.wgsl).
const SWEPT_DYNAMIC: u32 = 1u;
const SWEPT_BULLET: u32 = 2u;
// ContinuousCollider::flags.
const PIECE_SENSOR: u32 = 1u;
// SweptBody::state, in the order the kernels advance it.
const NOT_SWEPT: u32 = 0u;
const SWEPT: u32 = 1u;
const HIT: u32 = 2u;
const MOVED: u32 = 3u;
const IMPACT: u32 = 4u;
// An impact that would have changed its obstacle's velocity bits: hash_moved poisons the sum.
const POISONED: u32 = 5u;
// SweptBody::listed past the list's end.
const NOT_LISTED: u32 = 0xffffffffu;
// FAST_FRACTION, IMPACT_OVERLAP (0.5 LINEAR_SLOP) and RESTITUTION_THRESHOLD of the host.
const FAST_FRACTION: f32 = 0.5;
const IMPACT_OVERLAP: f32 = 0.0025;
const RESTITUTION_THRESHOLD: f32 = 1.0;

@group(0) @binding(0) var<storage, read_write> sweeps: array<SweptBody>;
@group(0) @binding(1) var<storage, read> bodies: array<ContinuousBody>;
@group(0) @binding(2) var<storage, read_write> poses: array<BodyPose>;
@group(0) @binding(3) var<storage, read> turned: array<f32>;
@group(0) @binding(4) var<storage, read> pieces: array<ContinuousCollider>;
@group(0) @binding(5) var<storage, read> obstacles: array<StaticObstacle>;
@group(0) @binding(6) var<storage, read> shapes: array<Shape>;
@group(0) @binding(7) var<storage, read_write> states: array<BodyState>;
@group(0) @binding(8) var<storage, read> infos: array<BodyInfo>;
// [sum of the moved bodies' hashes, their count, poison, spare, then sleep.wgsl's: the step
// is sleepy, the hash of the timers and labels, the hash of the bodies woken, their count]
@group(0) @binding(9) var<storage, read_write> hashes: array<atomic<u32>, 8>;
@group(0) @binding(10) var<uniform> params: ContinuousParams;
// The swept bodies' list: its dispatch's workgroups (x, y, z), then its length. Cleared
// (x and the length) before the submit.
@group(0) @binding(15) var<storage, read_write> swept_args: array<atomic<u32>, 4>;

@compute @workgroup_size(64)
fn record_start(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.bodies {
        return;
    }
    sweeps[i].c0 = poses[i].center;
    sweeps[i].q0 = poses[i].rotation;
}

// swept_body: the sweep of body i, if it is to be swept.
@compute @workgroup_size(64)
fn sweep_bodies(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.bodies {
        return;
    }
    // The list is made anew after this pass: no position holds a body yet.
    sweeps[i].listed = NOT_LISTED;
    var s = sweeps[i];
    s.state = NOT_SWEPT;
    let body = bodies[i];
    let c1 = poses[i].center;
    let turn = turned[i];
    let d = s.c0 - c1;
    let travel = keep(sqrt(dot_kept(d, d))) + keep(abs(turn) * body.max_extent);
    let bullet = (body.flags & SWEPT_BULLET) != 0u;
    let dynamic = (body.flags & SWEPT_DYNAMIC) != 0u;
    if !dynamic || travel == 0.0 || !(bullet || travel > FAST_FRACTION * body.min_extent) {
        sweeps[i].state = NOT_SWEPT;
        return;
    }
    s.c1 = c1;
    s.turned = turn;
    s.local_center = body.local_center;
    s.first_collider = body.first_collider;
    s.collider_count = body.collider_count;
    let reach = vec2<f32>(body.max_extent);
    s.box_min = min(s.c0, c1) - reach;
    s.box_max = max(s.c0, c1) + reach;
    s.t = 1.0;
    s.state = SWEPT;
    sweeps[i] = s;
}

// The swept bodies whose sweep's box meets an obstacle's listed (in no particular order:
// each is then swept on its own), and the workgroups of a dispatch over them. A step sweeps
// few bodies of many near an obstacle, and the time of impact makes earliest_hits and
// stop_at_impacts large kernels whose every invocation costs, even one that returns at once
// (on lavapipe 2 us each: 10 ms of 5,000 bodies). A body left out has no candidate there,
// so no hit: it stays SWEPT, as earliest_hits would leave it.
@compute @workgroup_size(64)
fn list_swept(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i == 0u {
        atomicStore(&swept_args[1], 1u);
        atomicStore(&swept_args[2], 1u);
    }
    if i >= params.bodies || sweeps[i].state != SWEPT {
        return;
    }
    let box_min = sweeps[i].box_min;
    let box_max = sweeps[i].box_max;
    var near = false;
    for (var p = 0u; p < params.statics && !near; p++) {
        near = boxes_overlap(obstacles[p].box_min, obstacles[p].box_max, box_min, box_max);
    }
    if !near {
        return;
    }
    let k = atomicAdd(&swept_args[3], 1u);
    sweeps[k].listed = i;
    atomicMax(&swept_args[0], k / 64u + 1u);
}

// The body at position k of the swept list, or NOT_LISTED (past its end).
fn listed_body(k: u32) -> u32 {
    if k >= params.bodies {
        return NOT_LISTED;
    }
    return sweeps[k].listed;
}

// Filter::should_collide (filter.wgsl) between a swept piece and an obstacle.
fn piece_meets(a: ContinuousCollider, b: StaticObstacle) -> bool {
    let fa = CollisionFilter(a.category, a.mask, a.group);
    return should_collide(fa, CollisionFilter(b.category, b.mask, b.group));
}

// piece_hit's result: the time of impact and how far to push the body along its normal.
struct PieceHit {
    toi: TimeOfImpact,
    push: f32,
}

// piece_hit: when piece `shape` (a table index) on `sweep` meets the still obstacle; a
// piece in touch at the start swept as its core (the table's entry `params.shapes` on;
// count 0 where the piece has none), and one whose core touches too as its probe (the
// entry `2 * params.shapes` on; count 0: none).
fn piece_hit(shape: u32, sweep: Sweep, obstacle: Shape, obstacle_sweep: Sweep) -> PieceHit {
    let hit = time_of_impact(shapes[shape], sweep, obstacle, obstacle_sweep);
    var out = PieceHit(hit, 0.0);
    if !hit.hit {
        return out;
    }
    if hit.t > 0.0 {
        out.push = max(hit.separation, 0.0) + IMPACT_OVERLAP;
        return out;
    }
    let core = shapes[params.shapes + shape];
    out.toi.hit = false;
    if core.count == 0u {
        return out;
    }
    let core_hit = time_of_impact(core, sweep, obstacle, obstacle_sweep);
    if !core_hit.hit {
        return out;
    }
    if core_hit.t > 0.0 {
        return PieceHit(core_hit, max(core_hit.separation, 0.0));
    }
    let probe = shapes[2u * params.shapes + shape];
    if probe.count == 0u {
        return out;
    }
    let probe_hit = time_of_impact(probe, sweep, obstacle, obstacle_sweep);
    if probe_hit.hit && probe_hit.t > 0.0 {
        out = PieceHit(probe_hit, max(probe_hit.separation, 0.0));
    }
    return out;
}

fn boxes_overlap(a_min: vec2<f32>, a_max: vec2<f32>, b_min: vec2<f32>, b_max: vec2<f32>) -> bool {
    return a_min.x <= b_max.x && b_min.x <= a_max.x && a_min.y <= b_max.y && b_min.y <= a_max.y;
}

// earliest_hit over the static obstacles (no bullet reaches the device), for each listed
// body. Only the fields of the hit are written: another invocation reads this record's
// `listed`.
@compute @workgroup_size(64)
fn earliest_hits(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = listed_body(id.x);
    if i == NOT_LISTED {
        return;
    }
    var s = sweeps[i];
    // math::to_angle of the start rotation (here, not in sweep_bodies: a body listed is near
    // an obstacle, and the software f64 atan2 is the costliest step of a sweep).
    s.a0 = atan2_wide(s.q0.y, s.q0.x);
    let sweep = Sweep(s.local_center, s.c0, s.c1, s.a0, s.a0 + s.turned);
    var found = false;
    for (var p = 0u; p < params.statics; p++) {
        let o = obstacles[p];
        if !boxes_overlap(o.box_min, o.box_max, s.box_min, s.box_max) {
            continue;
        }
        let fixed = Sweep(vec2<f32>(0.0), o.translation, o.translation, o.angle, o.angle);
        let obstacle = shapes[o.shape];
        // The body's colliders in the host's order (Body::colliders: a count through `next`).
        var piece = s.first_collider;
        for (var n = 0u; n < s.collider_count; n++) {
            let c = pieces[piece];
            piece = c.next;
            if (c.flags & PIECE_SENSOR) != 0u || !piece_meets(c, o) {
                continue;
            }
            let h = piece_hit(c.shape, sweep, obstacle, fixed);
            if h.toi.hit && (!found || h.toi.t < s.t) {
                found = true;
                s.t = h.toi.t;
                s.normal = h.toi.normal;
                s.push = h.push;
                s.piece_shape = c.shape;
                s.piece_restitution = c.restitution;
                s.obstacle = p;
            }
        }
    }
    if found && s.t < 1.0 {
        sweeps[i].a0 = s.a0;
        sweeps[i].t = s.t;
        sweeps[i].normal = s.normal;
        sweeps[i].push = s.push;
        sweeps[i].piece_shape = s.piece_shape;
        sweeps[i].piece_restitution = s.piece_restitution;
        sweeps[i].obstacle = s.obstacle;
        sweeps[i].state = HIT;
    }
}

// stop_at_impact's first half, for each listed body that hit: the body at its pose at the
// hit, pushed along the normal, and the manifold there (the record's fields written one
// by one, as earliest_hits writes them).
@compute @workgroup_size(64)
fn stop_at_impacts(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = listed_body(id.x);
    if i == NOT_LISTED || sweeps[i].state != HIT {
        return;
    }
    let s = sweeps[i];
    let t = s.t;
    // c0.lerp(c1, t) (glam: c0 (1 - t) + c1 t), then the push.
    let lerp = keep2(keep2(s.c0 * (1.0 - t)) + keep2(s.c1 * t));
    let center = lerp + keep2(s.push * s.normal);
    let q = from_angle(s.a0 + keep(s.turned * t));
    poses[i] = BodyPose(center, q);
    let origin = center - keep2(rotate_kept(q, s.local_center));
    let pose = Pose(origin, length_and_direction(q).direction);
    let o = obstacles[s.obstacle];
    let obstacle = Pose(o.translation, o.rotation);
    let m = collide_shapes(shapes[s.piece_shape], pose, shapes[o.shape], obstacle);
    if m.count == 0u {
        sweeps[i].state = MOVED;
        return;
    }
    // The points' sum from zero, as Iterator::sum adds them.
    var sum = keep2(vec2<f32>(0.0)) + m.points[0].point;
    if m.count > 1u {
        sum = keep2(sum) + m.points[1].point;
    }
    sweeps[i].middle = sum / f32(m.count);
    sweeps[i].normal = m.normal;
    sweeps[i].owner = o.body;
    sweeps[i].restitution = max(s.piece_restitution, o.restitution);
    sweeps[i].state = IMPACT;
}

// collide_shapes (margin 0) as the host's narrow phases route it: a circle against a sharp
// polygon is tested polygon first and flipped back (sat_circle.wgsl's circle_before_polygon,
// which the narrow phase's pass takes too).
fn collide_shapes(a: Shape, xa: Pose, b: Shape, xb: Pose) -> Manifold {
    if circle_before_polygon(a, b) {
        return flip_manifold(collide_shapes_speculative(b, xb, a, xa, 0.0));
    }
    return collide_shapes_speculative(a, xa, b, xb, 0.0);
}

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return keep(a.x * b.y) - keep(a.y * b.x);
}

fn cross_sv(w: f32, r: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-w * r.y, w * r.x);
}

// apply_impact between body i and its obstacle's body: the impulse that stops the
// approach along the manifold's normal (or bounces it), applied to body i; the obstacle's
// (static, inverse mass zero) would keep its bits, else the body is marked POISONED.
@compute @workgroup_size(64)
fn apply_impacts(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.bodies || sweeps[i].state != IMPACT {
        return;
    }
    let s = sweeps[i];
    let owner = s.owner;
    var a = states[i];
    let b = states[owner];
    let normal = s.normal;
    let ra = s.middle - poses[i].center;
    let rb = s.middle - poses[owner].center;
    // relative_velocity: b's point velocity minus a's, left to right.
    var v = keep2(b.linear_velocity + keep2(cross_sv(b.angular_velocity, rb)));
    v = keep2(v - a.linear_velocity);
    v = v - keep2(cross_sv(a.angular_velocity, ra));
    let vn = dot_kept(normal, v);
    if vn >= 0.0 {
        return;
    }
    // BodyState::inv_inertia: the body's own while it moves.
    let inertia_a = select(0.0, infos[i].inv_inertia, a.inv_mass > 0.0);
    let inertia_b = select(0.0, infos[owner].inv_inertia, b.inv_mass > 0.0);
    let rna = cross2(ra, normal);
    let rnb = cross2(rb, normal);
    var k = keep(a.inv_mass + b.inv_mass);
    k = keep(k + keep(inertia_a * rna * rna));
    k = k + keep(inertia_b * rnb * rnb);
    if k <= 0.0 {
        return;
    }
    let e = select(0.0, s.restitution, vn < -RESTITUTION_THRESHOLD);
    let impulse = (-(1.0 + e) * vn) / k;
    let p = impulse * normal;
    a.linear_velocity = a.linear_velocity - keep2(a.inv_mass * p);
    a.angular_velocity = a.angular_velocity - keep(inertia_a * cross2(ra, p));
    states[i] = a;
    let b_linear = b.linear_velocity + keep2(b.inv_mass * p);
    let b_angular = b.angular_velocity + keep(inertia_b * cross2(rb, p));
    let same = all(bitcast<vec2<u32>>(b_linear) == bitcast<vec2<u32>>(b.linear_velocity))
        && bitcast<u32>(b_angular) == bitcast<u32>(b.angular_velocity);
    if !same {
        sweeps[i].state = POISONED;
    }
}

// What hash_moved sums for body i, moved by the stage (moved_hash in
// src/gpu/world/continuous/layout.rs): its pose, then its velocity and inverse mass.
fn moved_hash(i: u32, pose: BodyPose, state: BodyState) -> u32 {
    let velocity = vec4<f32>(state.linear_velocity, state.angular_velocity, state.inv_mass);
    return box_hash(2u * i, bitcast<vec4<u32>>(vec4<f32>(pose.center, pose.rotation)))
        + box_hash(2u * i + 1u, bitcast<vec4<u32>>(velocity));
}

// The moved bodies' poses and velocities, summed, and their count.
@compute @workgroup_size(64)
fn hash_moved(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.bodies || sweeps[i].state < MOVED {
        return;
    }
    atomicAdd(&hashes[0], moved_hash(i, poses[i], states[i]));
    atomicAdd(&hashes[1], 1u);
    if sweeps[i].state == POISONED {
        atomicOr(&hashes[2], 1u);
    }
}
