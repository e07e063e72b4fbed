// wgpu-sat: the GPU world's joints prepared on the device, the twin of prepare_joints and
// each kind's prepare (src/dynamics/joints/: mod.rs, revolute.rs, weld.rs, prismatic.rs,
// wheel.rs, motor.rs, mouse.rs): each joint from its definition (JointDef, kept here and
// sent when it changes), its bodies' poses and states at the step's start, and the
// impulses the device's last step left, which are the host's. hash_joints sums a hash of
// the prepared joints, which the host holds to its own prepare's after the step (a step
// whose sums differ is solved again with the host's joints). Compiled after joints.wgsl
// (Joint, its flags, inverse_or_zero), soft_f64.wgsl (relative_angle, unwind),
// transform.wgsl (rotate_kept) and box_hash.wgsl.

@group(0) @binding(16) var<storage, read> joint_defs: array<JointDef>;
// [0]: the prepared joints' hash (zeroed by the host).
@group(0) @binding(17) var<storage, read_write> joint_hash: array<atomic<u32>>;

// What a joint is prepared from besides its bodies and its last impulses: JointDefGpu in
// src/gpu/world/layout.rs, sent when it changes.
struct JointDef {
    bodies: vec2<u32>,
    kind: u32,
    // The static bits of Joint::flags (all but IDLE), and DEF_*.
    flags: u32,
    // Each anchor from its body's centre of mass, body frame.
    arm_a: vec2<f32>,
    arm_b: vec2<f32>,
    // Each body's own inverse inertia.
    inertia: vec2<f32>,
    // The prismatic and wheel joints' axis, A's frame.
    local_axis: vec2<f32>,
    // The mouse joint's target, world frame.
    mouse_target: vec2<f32>,
    reference_angle: f32,
    // Joint's fields of the same names, as the host prepared them.
    length: f32,
    spring_bias_rate: f32,
    spring_mass_scale: f32,
    spring_impulse_scale: f32,
    motor_speed: f32,
    motor_max: f32,
    lower: f32,
    upper: f32,
    linear_bias_rate: f32,
    linear_mass_scale: f32,
    linear_impulse_scale: f32,
    force_max: f32,
    _pad: u32,
}

// JointDef::flags' own bits (DEF_* in layout.rs).
const DEF_KINEMATIC_A: u32 = 65536u;
const DEF_KINEMATIC_B: u32 = 131072u;
const DEF_ANGLE: u32 = 262144u;
const DEF_NONE: u32 = 524288u;

// prepare_joints (src/dynamics/joints/mod.rs) and each kind's prepare, one joint slot: its
// anchors, centres, masses and idle flag from its bodies' poses and states at the step's
// start, the joint angle and the axis where the kind reads them, the rest from its
// definition; the impulses stay those the last step left here (the host's: they came back
// from here). A slot with nothing to prepare is zeros, marked idle (joint_gpu).
@compute @workgroup_size(64)
fn prepare_joints(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let slot = id.x;
    if slot >= params.count {
        return;
    }
    let d = joint_defs[slot];
    var j: Joint;
    j.flags = IDLE;
    if (d.flags & DEF_NONE) != 0u {
        joints[slot] = j;
        return;
    }
    let last = joints[slot];
    let pa = poses[d.bodies.x];
    let pb = poses[d.bodies.y];
    let mass = vec2<f32>(states[d.bodies.x].inv_mass, states[d.bodies.y].inv_mass);
    j.bodies = d.bodies;
    j.kind = d.kind;
    j.anchor_a = rotate_kept(pa.rotation, d.arm_a);
    j.anchor_b = rotate_kept(pb.rotation, d.arm_b);
    j.delta_center = pb.center - pa.center;
    j.inv_mass = mass;
    // BodyState::inv_inertia: the body's own while it moves.
    j.inv_inertia = select(vec2<f32>(0.0), d.inertia, mass > vec2<f32>(0.0));
    j.angular_mass = inverse_or_zero(keep(j.inv_inertia.x + j.inv_inertia.y));
    // A kinematic body moves with an inverse mass of 0: only two bodies at rest leave a
    // joint idle.
    let kinematic = (d.flags & (DEF_KINEMATIC_A | DEF_KINEMATIC_B)) != 0u;
    let idle = !(mass.x > 0.0) && !(mass.y > 0.0) && !kinematic;
    j.flags = (d.flags & (MOTOR | RIGID | SPRUNG | LOWER | UPPER | LINEAR_SPRING))
        | select(0u, IDLE, idle);
    if (d.flags & DEF_ANGLE) != 0u {
        let angle = keep(relative_angle(pa.rotation, pb.rotation) - d.reference_angle);
        j.delta_angle = unwind(angle);
    }
    if d.kind == PRISMATIC || d.kind == WHEEL {
        j.axis = rotate_kept(pa.rotation, d.local_axis);
    }
    if d.kind == MOUSE {
        // Its A side is the world at the target (mouse::prepare, after the masses).
        j.inv_mass.x = 0.0;
        j.inv_inertia.x = 0.0;
        j.anchor_a = vec2<f32>(0.0);
        j.delta_center = pb.center - d.mouse_target;
    }
    j.length = d.length;
    j.spring_bias_rate = d.spring_bias_rate;
    j.spring_mass_scale = d.spring_mass_scale;
    j.spring_impulse_scale = d.spring_impulse_scale;
    j.motor_speed = d.motor_speed;
    j.motor_max = d.motor_max;
    j.lower = d.lower;
    j.upper = d.upper;
    j.linear_bias_rate = d.linear_bias_rate;
    j.linear_mass_scale = d.linear_mass_scale;
    j.linear_impulse_scale = d.linear_impulse_scale;
    j.force_max = d.force_max;
    j.linear_impulse = last.linear_impulse;
    j.spring_impulse = last.spring_impulse;
    j.motor_impulse = last.motor_impulse;
    j.lower_impulse = last.lower_impulse;
    j.upper_impulse = last.upper_impulse;
    joints[slot] = j;
}

// The hash of joint slot k's record (prepared_hash in src/gpu/world/layout.rs): box_hash
// folded over its 36 words.
fn prepared_hash(k: u32, j: Joint) -> u32 {
    let w = array<vec4<u32>, 9>(
        vec4<u32>(j.bodies, j.kind, j.flags),
        bitcast<vec4<u32>>(vec4<f32>(j.anchor_a, j.anchor_b)),
        bitcast<vec4<u32>>(vec4<f32>(j.delta_center, j.inv_mass)),
        bitcast<vec4<u32>>(vec4<f32>(j.inv_inertia, j.angular_mass, j.length)),
        bitcast<vec4<u32>>(
            vec4<f32>(j.spring_bias_rate, j.spring_mass_scale, j.spring_impulse_scale, j.motor_speed),
        ),
        bitcast<vec4<u32>>(vec4<f32>(j.motor_max, j.lower, j.upper, j.delta_angle)),
        bitcast<vec4<u32>>(vec4<f32>(j.linear_impulse, j.spring_impulse, j.motor_impulse)),
        bitcast<vec4<u32>>(
            vec4<f32>(j.lower_impulse, j.upper_impulse, j.linear_bias_rate, j.linear_mass_scale),
        ),
        bitcast<vec4<u32>>(vec4<f32>(j.linear_impulse_scale, j.force_max, j.axis)),
    );
    var h = k;
    for (var g = 0u; g < 9u; g++) {
        h = box_hash(h, w[g]);
    }
    return h;
}

// The workgroup's share of the prepared joints' hash, added to joint_hash[0] once.
var<workgroup> group_joint_hash: atomic<u32>;

// A hash of every prepared joint summed, for the host to hold to its own prepare's: a
// step whose sums differ is solved again with the host's joints.
@compute @workgroup_size(64)
fn hash_joints(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&group_joint_hash, 0u);
    }
    workgroupBarrier();
    if id.x < params.count {
        atomicAdd(&group_joint_hash, prepared_hash(id.x, joints[id.x]));
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&joint_hash[0], atomicLoad(&group_joint_hash));
    }
}
