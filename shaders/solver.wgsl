// wgpu-sat: the GPU world's solver, the twin of src/dynamics/solver/ (stages.rs for the body
// passes, contact_simd.rs for the contact passes, state.rs and forces.rs for the clamps and
// the forces). Compiled after layout.wgsl and transform.wgsl (keep(), rotate(),
// length_and_direction()). One invocation per body, or per contact constraint of one colour;
// the host dispatches the stages in the order StagePlan::build lays them out:
//
//   clamp_bodies; prepare_contacts; per substep: integrate_velocities, warm_start (per
//   colour), solve (per colour), integrate_positions (the last substep sets the poses),
//   relax (per colour); restitution (per colour); settle_bodies; write_transforms
//
// Why the same bits as the host: within a colour no two constraints share a moving body, so
// each body's velocity is read and written by one invocation at a time and the colours fix
// the order of the sums; each expression is the Rust's, operation for operation, with every
// partial sum that feeds another passed through keep() (transform.wgsl: lavapipe would
// re-associate it otherwise). The host packs a colour's contacts four to a SIMD group, and a
// group skips restitution when none of its lanes bounces: a lane's zero impulse added or not
// can turn a -0 velocity into +0, so the restitution pass looks at its group's lanes as the
// host does. fast_max/fast_min are SSE's maxps/minps (the host's f32x4), not WGSL's max/min,
// whose choice between -0 and +0 is open.

// A body's velocity state during a step: BodyState in src/dynamics/state.rs.
struct BodyState {
    linear_velocity: vec2<f32>,
    angular_velocity: f32,
    // Zero for a body that does not move (static, kinematic, asleep).
    inv_mass: f32,
    // Motion of the centre of mass since the step began, world frame.
    delta_position: vec2<f32>,
    // Rotation since the step began, (cos, sin).
    delta_rotation: vec2<f32>,
}

// A body's centre of mass (world frame) and rotation (cos, sin).
struct BodyPose {
    center: vec2<f32>,
    rotation: vec2<f32>,
}

// What the stages read of a body besides its state: BodyInfoGpu in src/gpu/world/layout.rs.
struct BodyInfo {
    // The centre of mass in the body's frame: the drawn origin is center - rotate(q, this).
    local_center: vec2<f32>,
    // The body's own inverse inertia (the solver's is zero while it does not move).
    inv_inertia: f32,
    // BodyMaterial::max_extent: the longest lever a contact acts on.
    lever_extent: f32,
    // Body::max_extent: the spin clamp's reach.
    body_extent: f32,
    // Bit 0: kinematic.
    flags: u32,
    gravity_scale: f32,
    torque: f32,
    force: vec2<f32>,
    linear_damping: f32,
    angular_damping: f32,
}

// What a host draws a body with: world = rotate(rotation, local) + origin.
struct BodyTransform {
    origin: vec2<f32>,
    rotation: vec2<f32>,
}

// One manifold point of a constraint: ConstraintPointGpu.
struct ConstraintPoint {
    // In: the contact point, world frame.
    point: vec2<f32>,
    // The point minus each centre of mass, world frame, at the step's start.
    anchor_a: vec2<f32>,
    anchor_b: vec2<f32>,
    // In: penetration, positive when overlapping.
    depth: f32,
    base_separation: f32,
    normal_mass: f32,
    tangent_mass: f32,
    // In: the warm start; out: the accumulated impulses.
    normal_impulse: f32,
    tangent_impulse: f32,
    max_normal_impulse: f32,
    // Normal velocity at the step's start, negative when approaching.
    relative_velocity: f32,
}

// One contact constraint: ConstraintGpu. The host writes the inputs, prepare_contacts the rest.
struct Constraint {
    bodies: vec2<u32>,
    // From A to B, world frame.
    normal: vec2<f32>,
    friction: f32,
    restitution: f32,
    tangent_speed: f32,
    // Points in the manifold, 1 or 2.
    count: u32,
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
    // Bit 0: A moves; bit 1: B moves (their velocities are written back).
    moving: u32,
    inv_mass_a: f32,
    inv_inertia_a: f32,
    inv_mass_b: f32,
    inv_inertia_b: f32,
    points: array<ConstraintPoint, 2>,
}

// One dispatch's uniform: SolverParamsGpu.
struct SolverParams {
    h: f32,
    inv_h: f32,
    gravity: vec2<f32>,
    max_speed: f32,
    // Radians per second: a quarter turn per substep.
    max_turn: f32,
    // Bodies: 0 and the body count. Constraints: the colour's range in `order`.
    first: u32,
    count: u32,
    soft: vec3<f32>,
    // Half the speculative distance: how far past its body a contact's lever may reach.
    half_speculative: f32,
    static_soft: vec3<f32>,
    // Bit 0: the world has custom forces; bit 1: the overflow (one invocation, in order);
    // bit 2: the last substep.
    flags: u32,
    // Always 0: keep()'s flag (transform.wgsl), which the compiler cannot know.
    never: u32,
    // The joints' rigid softness (joints.wgsl).
    joint_bias_rate: f32,
    joint_mass_scale: f32,
    joint_impulse_scale: f32,
}

@group(0) @binding(0) var<storage, read_write> states: array<BodyState>;
@group(0) @binding(1) var<storage, read_write> constraints: array<Constraint>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> poses: array<BodyPose>;
@group(0) @binding(4) var<storage, read> infos: array<BodyInfo>;
@group(0) @binding(5) var<storage, read_write> turned: array<f32>;
@group(0) @binding(6) var<storage, read_write> transforms: array<BodyTransform>;
@group(0) @binding(7) var<uniform> params: SolverParams;

const CUSTOM_FORCES: u32 = 1u;
const OVERFLOW: u32 = 2u;
const LAST_SUBSTEP: u32 = 4u;
const KINEMATIC: u32 = 1u;
// The host's SIMD width: a colour's contacts are solved four to a group.
const LANES: u32 = 4u;
// MAX_LINEAR_SPEED_LIMIT, MAX_ANGULAR_SPEED (state.rs), MAX_PUSH_SPEED (solver/mod.rs),
// RESTITUTION_THRESHOLD (state.rs).
const MAX_LINEAR_SPEED_LIMIT: f32 = 1e6;
const MAX_ANGULAR_SPEED: f32 = 1e8;
const MAX_PUSH_SPEED: f32 = 3.0;
const RESTITUTION_THRESHOLD: f32 = 1.0;

// dot2 and rotate (transform.wgsl) with each product a leaf: a driver may fuse a product
// into the sum it feeds (lavapipe did, in this module's contact passes).
fn dot_kept(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return keep(a.x * b.x) + keep(a.y * b.y);
}

fn rotate_kept(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(
        keep(q.x * v.x) - keep(q.y * v.y),
        keep(q.y * v.x) + keep(q.x * v.y),
    );
}

// SSE's maxps and minps: the second operand unless the first is strictly past it.
fn fast_max(a: f32, b: f32) -> f32 {
    return select(b, a, a > b);
}

fn fast_min(a: f32, b: f32) -> f32 {
    return select(b, a, a < b);
}

// f32::clamp: min if below, max if above.
fn clamp_scalar(x: f32, lo: f32, hi: f32) -> f32 {
    var y = x;
    if y < lo {
        y = lo;
    }
    if y > hi {
        y = hi;
    }
    return y;
}

// clamp_length (state.rs): v shortened to at most `limit` long.
fn clamp_length(v: vec2<f32>, limit: f32) -> vec2<f32> {
    let ld = length_and_direction(v);
    if ld.length <= limit {
        return v;
    }
    return ld.direction * limit;
}

// max_spin (state.rs).
fn max_spin(body_extent: f32, max_speed: f32, max_turn: f32) -> f32 {
    if body_extent > 0.0 {
        return min(max_turn, max_speed / body_extent);
    }
    return max_turn;
}

// clamp_velocity (state.rs): the speed held to max_speed, the spin to max_spin.
fn clamp_velocity(s: ptr<function, BodyState>, body_extent: f32) {
    let v = (*s).linear_velocity;
    if dot_kept(v, v) > params.max_speed * params.max_speed {
        (*s).linear_velocity = clamp_length(v, params.max_speed);
    }
    let spin = abs((*s).angular_velocity);
    if spin > params.max_turn || spin * body_extent > params.max_speed {
        let limit = max_spin(body_extent, params.max_speed, params.max_turn);
        (*s).angular_velocity = clamp_scalar((*s).angular_velocity, -limit, limit);
    }
}

// The Clamp stage: the motion since the step began reset, the speeds clamped.
@compute @workgroup_size(64)
fn clamp_bodies(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.count {
        return;
    }
    var s = states[i];
    s.delta_position = vec2<f32>(0.0);
    s.delta_rotation = vec2<f32>(1.0, 0.0);
    clamp_velocity(&s, infos[i].body_extent);
    states[i] = s;
}

// integrate_forces (forces.rs): one substep of force, gravity and damping.
fn integrate_forces(s: ptr<function, BodyState>, info: BodyInfo) {
    let h = params.h;
    let dv = h * keep2(keep2((*s).inv_mass * info.force) + keep2(info.gravity_scale * params.gravity));
    let dw = keep(h * info.inv_inertia) * info.torque;
    let linear = 1.0 / keep(1.0 + keep(h * info.linear_damping));
    let angular = 1.0 / keep(1.0 + keep(h * info.angular_damping));
    (*s).linear_velocity = dv + keep2((*s).linear_velocity * linear);
    (*s).angular_velocity = dw + keep((*s).angular_velocity * angular);
}

// The IntegrateVelocities stage: gravity (or the forces) and the clamps, moving bodies only.
@compute @workgroup_size(64)
fn integrate_velocities(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.count {
        return;
    }
    var s = states[i];
    if s.inv_mass > 0.0 {
        let info = infos[i];
        if (params.flags & CUSTOM_FORCES) == 0u {
            s.linear_velocity = s.linear_velocity + keep2(params.h * params.gravity);
        } else {
            integrate_forces(&s, info);
        }
        clamp_velocity(&s, info.body_extent);
        states[i] = s;
    }
}

// integrate_rotation (state.rs): q turned by the small angle `angle`, renormalised.
fn integrate_rotation(q: vec2<f32>, angle: f32) -> vec2<f32> {
    let q2 = vec2<f32>(q.x - keep(angle * q.y), q.y + keep(angle * q.x));
    let len = sqrt(dot_kept(q2, q2));
    if len > 0.0 {
        return q2 / len;
    }
    return vec2<f32>(1.0, 0.0);
}

// The IntegratePositions stage (and IntegrateLast on the last substep: the pose set from the
// motion since the step began, as set_pose does).
@compute @workgroup_size(64)
fn integrate_positions(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.count {
        return;
    }
    var s = states[i];
    if s.inv_mass == 0.0 && (infos[i].flags & KINEMATIC) == 0u {
        return;
    }
    let l = MAX_LINEAR_SPEED_LIMIT;
    let v = vec2<f32>(
        clamp_scalar(s.linear_velocity.x, -l, l),
        clamp_scalar(s.linear_velocity.y, -l, l),
    );
    let da = params.h * clamp_scalar(s.angular_velocity, -MAX_ANGULAR_SPEED, MAX_ANGULAR_SPEED);
    turned[i] = turned[i] + da;
    s.delta_position = s.delta_position + keep2(params.h * v);
    s.delta_rotation = integrate_rotation(s.delta_rotation, da);
    states[i] = s;
    if (params.flags & LAST_SUBSTEP) != 0u {
        var pose = poses[i];
        pose.center = pose.center + s.delta_position;
        // normalize_or(X): times the reciprocal of the length, as glam does.
        let r = rotate_kept(s.delta_rotation, pose.rotation);
        let rcp = 1.0 / sqrt(dot_kept(r, r));
        if is_finite_f32(rcp) && rcp > 0.0 {
            pose.rotation = r * rcp;
        } else {
            pose.rotation = vec2<f32>(1.0, 0.0);
        }
        poses[i] = pose;
    }
}

// The Settle stage: the speeds clamped over what relax and restitution added
// (clamp_speed_and_turn, state.rs).
@compute @workgroup_size(64)
fn settle_bodies(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.count {
        return;
    }
    var s = states[i];
    let v = s.linear_velocity;
    if dot_kept(v, v) > params.max_speed * params.max_speed {
        s.linear_velocity = clamp_length(v, params.max_speed);
    }
    if abs(s.angular_velocity) > params.max_turn {
        s.angular_velocity = clamp_scalar(s.angular_velocity, -params.max_turn, params.max_turn);
    }
    states[i] = s;
}

// Each body's drawing transform from its centre of mass and rotation (body_transform in
// src/dynamics/body_set.rs).
@compute @workgroup_size(64)
fn write_transforms(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let i = id.x;
    if i >= params.count {
        return;
    }
    let pose = poses[i];
    let origin = pose.center - rotate_kept(pose.rotation, infos[i].local_center);
    // Transform::from_rotation: the rotation renormalised through length_and_direction
    // (transform.wgsl's, with its products kept).
    let largest = max(abs(pose.rotation.x), abs(pose.rotation.y));
    let scale = max(bitcast<f32>(bitcast<u32>(largest) & 0x7f800000u), 1.17549435e-38);
    let w = pose.rotation / scale;
    transforms[i] = BodyTransform(origin, w / sqrt(dot_kept(w, w)));
}

// lever (solver/mod.rs): r held within the body's reach.
fn lever(r: vec2<f32>, extent: f32) -> vec2<f32> {
    let reach = extent + params.half_speculative;
    if dot_kept(r, r) > reach * reach {
        return r * (reach / sqrt(dot_kept(r, r)));
    }
    return r;
}

// The solver's inverse inertia of a body: its own while it moves (BodyState::inv_inertia).
fn solver_inertia(s: BodyState, info: BodyInfo) -> f32 {
    if s.inv_mass > 0.0 {
        return info.inv_inertia;
    }
    return 0.0;
}

// The Prepare stage, one constraint (fill_lane and WideContact::prepare): masses, softness,
// anchors, effective masses, separation and approach speed at the step's start. Every
// contact is prepared; those in no colour are never solved.
@compute @workgroup_size(64)
fn prepare_contacts(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let k = id.x;
    if k >= params.count {
        return;
    }
    var c = constraints[k];
    let ia = c.bodies.x;
    let ib = c.bodies.y;
    let sa = states[ia];
    let sb = states[ib];
    let info_a = infos[ia];
    let info_b = infos[ib];
    let center_a = poses[ia].center;
    let center_b = poses[ib].center;
    let ima = sa.inv_mass;
    let imb = sb.inv_mass;
    let iia = solver_inertia(sa, info_a);
    let iib = solver_inertia(sb, info_b);
    let nx = c.normal.x;
    let ny = c.normal.y;
    let vax = sa.linear_velocity.x;
    let vay = sa.linear_velocity.y;
    let wa = sa.angular_velocity;
    let vbx = sb.linear_velocity.x;
    let vby = sb.linear_velocity.y;
    let wb = sb.angular_velocity;
    // Against a body that does not move, only one side gives: the stiffer spring.
    var soft = params.soft;
    if ima == 0.0 || imb == 0.0 {
        soft = params.static_soft;
    }
    c.bias_rate = soft.x;
    c.mass_scale = soft.y;
    c.impulse_scale = soft.z;
    c.moving = select(0u, 1u, ima > 0.0) | select(0u, 2u, imb > 0.0);
    c.inv_mass_a = ima;
    c.inv_inertia_a = iia;
    c.inv_mass_b = imb;
    c.inv_inertia_b = iib;
    for (var p = 0u; p < 2u; p++) {
        var q = c.points[p];
        let present = p < c.count;
        var ra = vec2<f32>(0.0);
        var rb = vec2<f32>(0.0);
        var depth = 0.0;
        if present {
            ra = lever(q.point - center_a, info_a.lever_extent);
            rb = lever(q.point - center_b, info_b.lever_extent);
            depth = q.depth;
        } else {
            q.normal_impulse = 0.0;
            q.tangent_impulse = 0.0;
        }
        let rax = ra.x;
        let ray = ra.y;
        let rbx = rb.x;
        let rby = rb.y;
        // cross(r, n) and cross(r, t), with the tangent t = (-ny, nx).
        let rna = keep(rax * ny) - keep(ray * nx);
        let rnb = keep(rbx * ny) - keep(rby * nx);
        let rta = keep(rax * nx) - keep(ray * -ny);
        let rtb = keep(rbx * nx) - keep(rby * -ny);
        let k_normal = keep(keep(ima + imb) + keep(keep(iia * rna) * rna)) + keep(keep(iib * rnb) * rnb);
        let k_tangent = keep(keep(ima + imb) + keep(keep(iia * rta) * rta)) + keep(keep(iib * rtb) * rtb);
        // The velocity of B's point relative to A's: v + w x r on each side.
        let dvx = keep(keep(vbx + keep(-wb * rby)) - vax) - keep(-wa * ray);
        let dvy = keep(keep(vby + keep(wb * rbx)) - vay) - keep(wa * rax);
        let separation = -depth - keep(keep(nx * keep(rbx - rax)) + keep(ny * keep(rby - ray)));
        q.anchor_a = ra;
        q.anchor_b = rb;
        q.base_separation = select(0.0, separation, present);
        q.normal_mass = select(0.0, 1.0 / k_normal, present && k_normal > 0.0);
        q.tangent_mass = select(0.0, 1.0 / k_tangent, present && k_tangent > 0.0);
        q.max_normal_impulse = 0.0;
        q.relative_velocity = select(0.0, keep(nx * dvx) + keep(ny * dvy), present);
        c.points[p] = q;
    }
    constraints[k] = c;
}

// A lane's two bodies as the contact passes read them (WideBody, one lane).
struct Pair {
    a: BodyState,
    b: BodyState,
}

// relative_velocity (contact_simd.rs): B's point relative to A's along u, fixed anchors.
fn relative_velocity(pair: Pair, q: ConstraintPoint, u: vec2<f32>) -> f32 {
    let a = pair.a;
    let b = pair.b;
    let dvx = keep(b.linear_velocity.x - keep(b.angular_velocity * q.anchor_b.y))
        - keep(a.linear_velocity.x - keep(a.angular_velocity * q.anchor_a.y));
    let dvy = keep(b.linear_velocity.y + keep(b.angular_velocity * q.anchor_b.x))
        - keep(a.linear_velocity.y + keep(a.angular_velocity * q.anchor_a.x));
    return keep(keep(dvx * u.x) + keep(dvy * u.y));
}

// apply (contact_simd.rs): the impulse p to B at its anchor, its opposite to A at its anchor.
fn apply(c: Constraint, pair: ptr<function, Pair>, q: ConstraintPoint, impulse: vec2<f32>) {
    // A leaf: the impulse is itself a product, which a driver could re-associate with the
    // inverse masses below.
    let p = keep2(impulse);
    // Each velocity kept as rounded: the next point's impulse adds to it, and a driver
    // could otherwise sum the two impulses first.
    let a = (*pair).a;
    let b = (*pair).b;
    (*pair).a.linear_velocity = keep2(vec2<f32>(
        a.linear_velocity.x - keep(c.inv_mass_a * p.x),
        a.linear_velocity.y - keep(c.inv_mass_a * p.y),
    ));
    (*pair).a.angular_velocity = keep(
        a.angular_velocity
            - keep(c.inv_inertia_a * keep(keep(q.anchor_a.x * p.y) - keep(q.anchor_a.y * p.x))),
    );
    (*pair).b.linear_velocity = keep2(vec2<f32>(
        b.linear_velocity.x + keep(c.inv_mass_b * p.x),
        b.linear_velocity.y + keep(c.inv_mass_b * p.y),
    ));
    (*pair).b.angular_velocity = keep(
        b.angular_velocity
            + keep(c.inv_inertia_b * keep(keep(q.anchor_b.x * p.y) - keep(q.anchor_b.y * p.x))),
    );
}

fn gather(c: Constraint) -> Pair {
    return Pair(states[c.bodies.x], states[c.bodies.y]);
}

// The velocities of the bodies that move back (scatter, contact_simd.rs).
fn scatter(c: Constraint, pair: Pair) {
    if (c.moving & 1u) != 0u {
        states[c.bodies.x] = pair.a;
    }
    if (c.moving & 2u) != 0u {
        states[c.bodies.y] = pair.b;
    }
}

// The passes of a colour, one per contact of the colour's range of `order`; the overflow's in
// one invocation, one after another.
const WARM_START: u32 = 0u;
const SOLVE: u32 = 1u;
const RELAX: u32 = 2u;
const RESTITUTION: u32 = 3u;

fn warm_start_one(k: u32) {
    let c = constraints[k];
    var pair = gather(c);
    for (var p = 0u; p < 2u; p++) {
        let q = c.points[p];
        let px = keep(q.normal_impulse * c.normal.x) - keep(q.tangent_impulse * c.normal.y);
        let py = keep(q.normal_impulse * c.normal.y) + keep(q.tangent_impulse * c.normal.x);
        apply(c, &pair, q, vec2<f32>(px, py));
    }
    scatter(c, pair);
}

// WideContact::solve: normal impulses with the soft push (`use_bias`) or without, then (relax)
// friction.
fn solve_one(k: u32, use_bias: bool) {
    var c = constraints[k];
    var pair = gather(c);
    let nx = c.normal.x;
    let ny = c.normal.y;
    let a0 = pair.a;
    let b0 = pair.b;
    // Motion of B relative to A since the start of the step.
    let dx = b0.delta_position.x - a0.delta_position.x;
    let dy = b0.delta_position.y - a0.delta_position.y;
    for (var p = 0u; p < 2u; p++) {
        var q = c.points[p];
        let bq = b0.delta_rotation;
        let aq = a0.delta_rotation;
        let rbx = keep(keep(bq.x * q.anchor_b.x) - keep(bq.y * q.anchor_b.y));
        let rby = keep(keep(bq.y * q.anchor_b.x) + keep(bq.x * q.anchor_b.y));
        let rax = keep(keep(aq.x * q.anchor_a.x) - keep(aq.y * q.anchor_a.y));
        let ray = keep(keep(aq.y * q.anchor_a.x) + keep(aq.x * q.anchor_a.y));
        let s = keep(keep(nx * keep(keep(dx + rbx) - rax)) + keep(ny * keep(keep(dy + rby) - ray)))
            + q.base_separation;
        let open = s > 0.0;
        var bias = select(0.0, s * params.inv_h, open);
        var mass_scale = 1.0;
        var impulse_scale = 0.0;
        if use_bias {
            bias = select(fast_max(c.bias_rate * s, -MAX_PUSH_SPEED), s * params.inv_h, open);
            mass_scale = select(c.mass_scale, 1.0, open);
            impulse_scale = select(c.impulse_scale, 0.0, open);
        }
        let vn = relative_velocity(pair, q, c.normal);
        let impulse = keep(
            keep(keep(-q.normal_mass * mass_scale) * keep(vn + bias))
                - keep(impulse_scale * q.normal_impulse),
        );
        let total = fast_max(q.normal_impulse + impulse, 0.0);
        let applied = total - q.normal_impulse;
        q.normal_impulse = total;
        q.max_normal_impulse = fast_max(q.max_normal_impulse, applied);
        apply(c, &pair, q, vec2<f32>(applied * nx, applied * ny));
        c.points[p] = q;
    }
    if !use_bias {
        // solve_friction: each point's tangent impulse within friction times its normal one.
        let t = vec2<f32>(-ny, nx);
        for (var p = 0u; p < 2u; p++) {
            var q = c.points[p];
            let vt = keep(relative_velocity(pair, q, t) + c.tangent_speed);
            let limit = c.friction * q.normal_impulse;
            let total = fast_min(fast_max(q.tangent_impulse - keep(q.tangent_mass * vt), -limit), limit);
            let applied = total - q.tangent_impulse;
            q.tangent_impulse = total;
            apply(c, &pair, q, vec2<f32>(applied * t.x, applied * t.y));
            c.points[p] = q;
        }
    }
    constraints[k] = c;
    scatter(c, pair);
}

// Whether point p of constraint k bounces: restitution, approached fast, and was pushed.
fn bounces(k: u32, p: u32) -> bool {
    let q = constraints[k].points[p];
    return constraints[k].restitution > 0.0 && q.relative_velocity <= -RESTITUTION_THRESHOLD
        && q.max_normal_impulse > 0.0;
}

// WideContact::apply_restitution for one lane of the group whose lanes are `lanes` (positions
// in `order`, `at` this one's): the group passes over a point no lane bounces at.
fn restitution_one(at: u32, lanes: vec2<u32>) {
    let k = order[at];
    var bouncy = false;
    for (var l = lanes.x; l < lanes.y; l++) {
        bouncy = bouncy || constraints[order[l]].restitution > 0.0;
    }
    if !bouncy {
        return;
    }
    var c = constraints[k];
    var pair = gather(c);
    for (var p = 0u; p < 2u; p++) {
        var some = false;
        for (var l = lanes.x; l < lanes.y; l++) {
            some = some || bounces(order[l], p);
        }
        if !some {
            continue;
        }
        let q = c.points[p];
        let vn = relative_velocity(pair, q, c.normal);
        let impulse = keep(-q.normal_mass * keep(vn + c.restitution * q.relative_velocity));
        let total = fast_max(q.normal_impulse + impulse, 0.0);
        let applied = select(0.0, total - q.normal_impulse, bounces(k, p));
        c.points[p].normal_impulse = q.normal_impulse + applied;
        apply(c, &pair, q, vec2<f32>(applied * c.normal.x, applied * c.normal.y));
    }
    constraints[k] = c;
    scatter(c, pair);
}

fn run_contact(stage: u32, at: u32, lanes: vec2<u32>) {
    let k = order[at];
    switch stage {
        case WARM_START: {
            warm_start_one(k);
        }
        case SOLVE: {
            solve_one(k, true);
        }
        case RELAX: {
            solve_one(k, false);
        }
        default: {
            restitution_one(at, lanes);
        }
    }
}

fn run_colour(stage: u32, id: u32) {
    keep_flag = params.never != 0u;
    let first = params.first;
    let end = first + params.count;
    if (params.flags & OVERFLOW) != 0u {
        // One constraint per group, one after another: they may share bodies.
        if id == 0u {
            for (var at = first; at < end; at++) {
                run_contact(stage, at, vec2<u32>(at, at + 1u));
            }
        }
        return;
    }
    if id >= params.count {
        return;
    }
    let at = first + id;
    let group = first + (id / LANES) * LANES;
    run_contact(stage, at, vec2<u32>(group, min(group + LANES, end)));
}

@compute @workgroup_size(64)
fn warm_start(@builtin(global_invocation_id) id: vec3<u32>) {
    run_colour(WARM_START, id.x);
}

@compute @workgroup_size(64)
fn solve(@builtin(global_invocation_id) id: vec3<u32>) {
    run_colour(SOLVE, id.x);
}

@compute @workgroup_size(64)
fn relax(@builtin(global_invocation_id) id: vec3<u32>) {
    run_colour(RELAX, id.x);
}

@compute @workgroup_size(64)
fn restitution(@builtin(global_invocation_id) id: vec3<u32>) {
    run_colour(RESTITUTION, id.x);
}
