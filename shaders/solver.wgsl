// wgpu-sat: the GPU world's solver, the twin of src/dynamics/solver/ (stages.rs for the body
// passes, state.rs and forces.rs for the clamps and the forces); its contact passes are in
// contacts.wgsl, its joint passes in joints.wgsl. Compiled after layout.wgsl,
// transform.wgsl (keep(), rotate(), length_and_direction()), bodies.wgsl (BodyState,
// BodyPose, BodyInfo) and contact_input.wgsl (the
// contacts' inputs, which the collision stage's merge makes too). One invocation per body,
// or per constraint of one colour; the host dispatches the stages in the order
// StagePlan::build lays them out:
//
//   clamp_bodies; prepare_contacts; per substep: integrate_velocities, warm start (per
//   colour: its joints, then its contacts), solve (the same), integrate_positions (the last
//   substep sets the poses), relax (the same); restitution (per colour); store_impulses;
//   settle_bodies; write_transforms
//
// Why the same bits as the host: within a colour no two constraints share a moving body, so
// each body's velocity is read and written by one invocation at a time and the colours fix
// the order of the sums; each expression is the Rust's, operation for operation, with every
// product and partial sum that feeds another passed through keep() (transform.wgsl: lavapipe
// re-associates sums and fuses a product into the sum it feeds otherwise). The host packs a
// colour's contacts four to a SIMD group, and a group skips restitution when none of its
// lanes bounces: a lane's zero impulse added or not can turn a -0 velocity into +0, so the
// restitution pass looks at its group's lanes as the host does. fast_max/fast_min are SSE's
// maxps/minps (the host's f32x4), not WGSL's max/min, whose choice between -0 and +0 is open.

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

// One contact constraint: ConstraintGpu. unpack_contacts writes the inputs, prepare_contacts
// the rest.
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
    // Bodies: 0 and the body count. A colour pass: its colour in `first` (its range is the
    // device's, in `colour_ranges`); the overflow's, its chunk's first place in its range in
    // `count`.
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
// Per colour (the overflow's last), as the colouring wrote it (colouring.wgsl's `ranges`):
// its contacts' first place and count in `order`, its joints' in `joint_order`.
@group(0) @binding(11) var<storage, read> colour_ranges: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> contact_inputs: array<ContactInput>;
@group(0) @binding(14) var<storage, read> warm_starts: array<WarmStart>;
@group(0) @binding(7) var<uniform> params: SolverParams;
// What the store stage keeps of the constraints (store_group), in contact order: per
// contact, per point the accumulated (normal, tangent) impulses held to MAX_IMPULSE (the
// next step's warm start); then, from params.count on, per contact, per point (approach
// speed, largest normal impulse of one pass) for hit events, read back only when they are
// asked for.
@group(0) @binding(10) var<storage, read_write> stored: array<Stored>;
// Each contact as the next step's match of warm starts reads it (store_impulses).
@group(0) @binding(15) var<storage, read_write> last: array<LastContact>;

// Two values per point of a contact: one record of `stored` (StoredGpu).
struct Stored {
    per_point: array<vec2<f32>, 2>,
}

const CUSTOM_FORCES: u32 = 1u;
const OVERFLOW: u32 = 2u;
// The overflow's constraints one dispatch solves, from params.count on (OVERFLOW_CHUNK in
// layout.rs: lavapipe stops an invocation's loops after 65,535 iterations).
const OVERFLOW_CHUNK: u32 = 64u;
const LAST_SUBSTEP: u32 = 4u;
const KINEMATIC: u32 = 1u;
// The host's SIMD width: a colour's contacts are solved four to a group.
const LANES: u32 = 4u;
// MAX_LINEAR_SPEED_LIMIT, MAX_ANGULAR_SPEED (state.rs), MAX_PUSH_SPEED (solver/mod.rs),
// RESTITUTION_THRESHOLD (state.rs); the layout test holds each to its Rust value.
const MAX_LINEAR_SPEED_LIMIT: f32 = 1e6;
const MAX_ANGULAR_SPEED: f32 = 1e8;
const MAX_PUSH_SPEED: f32 = 3.0;
const RESTITUTION_THRESHOLD: f32 = 1.0;
// MAX_IMPULSE (state.rs): the bound of every accumulated impulse.
const MAX_IMPULSE: f32 = 1e25;

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
