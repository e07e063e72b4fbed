// wgpu-sat: the GPU world's joint passes, the twin of src/dynamics/joints/ (parts.rs,
// impulse_bound.rs, revolute.rs, distance.rs, weld.rs, motor.rs, mouse.rs; the sliders,
// prismatic and wheel, are in slide.wgsl). Compiled after solver.wgsl (BodyState, keep(),
// the clamps) and soft_f64.wgsl (the joint angle). One invocation per joint of one colour
// (the overflow's in one invocation, in order). The joints are prepared on the host, which
// uploads what prepare left (JointGpu), or here (joint_prepare.wgsl); the host reads back
// the accumulated impulses.
//
// As in solver.wgsl, each expression is the Rust's, operation for operation, with every
// product and partial sum that feeds another kept; a coefficient that is a constant in one
// pass (the relax pass's plain velocity: bias 0, mass scale 1) is kept too, so that the
// compiler cannot fold 0 * c to a zero of the other sign.

// One joint: JointGpu in src/gpu/world/layout.rs.
struct Joint {
    bodies: vec2<u32>,
    // REVOLUTE, DISTANCE, WELD, PRISMATIC, WHEEL, MOTOR_JOINT or MOUSE.
    kind: u32,
    // IDLE, MOTOR, RIGID, SPRUNG, LOWER, UPPER, LINEAR_SPRING.
    flags: u32,
    // Anchors from each body's centre of mass, world frame, at the step's start.
    anchor_a: vec2<f32>,
    anchor_b: vec2<f32>,
    // c_b - c_a at the step's start.
    delta_center: vec2<f32>,
    inv_mass: vec2<f32>,
    inv_inertia: vec2<f32>,
    angular_mass: f32,
    length: f32,
    // The spring over the substep (the angle's or the length's): bias rate, mass scale,
    // impulse scale.
    spring_bias_rate: f32,
    spring_mass_scale: f32,
    spring_impulse_scale: f32,
    // The revolute motor's speed and its bound over the substep.
    motor_speed: f32,
    motor_max: f32,
    // The limits: the revolute joint's angle, the distance joint's length.
    lower: f32,
    upper: f32,
    // The revolute joint's angle at the step's start, in [-pi, pi].
    delta_angle: f32,
    // Accumulated: the point impulse (revolute) or the axial one in x (distance).
    linear_impulse: vec2<f32>,
    spring_impulse: f32,
    motor_impulse: f32,
    lower_impulse: f32,
    upper_impulse: f32,
    // The weld's anchor spring: bias rate, mass scale, impulse scale.
    linear_bias_rate: f32,
    linear_mass_scale: f32,
    linear_impulse_scale: f32,
    // The motor and mouse joints' bound on the point impulse over the substep.
    force_max: f32,
    // The prismatic joint's axis, world frame at the step's start.
    axis: vec2<f32>,
}

// A joint's accumulated impulses: JointImpulsesGpu, what the host reads back of it.
struct JointImpulses {
    linear_impulse: vec2<f32>,
    spring_impulse: f32,
    motor_impulse: f32,
    lower_impulse: f32,
    upper_impulse: f32,
}

@group(0) @binding(8) var<storage, read_write> joints: array<Joint>;
@group(0) @binding(9) var<storage, read> joint_order: array<u32>;
@group(0) @binding(13) var<storage, read_write> joint_impulses: array<JointImpulses>;

const REVOLUTE: u32 = 0u;
const DISTANCE: u32 = 1u;
const WELD: u32 = 2u;
const PRISMATIC: u32 = 3u;
const WHEEL: u32 = 4u;
const MOTOR_JOINT: u32 = 5u;
const MOUSE: u32 = 6u;
// MOTOR_CORRECTION (motor.rs): the share of its gap the motor joint closes per substep.
const MOTOR_CORRECTION: f32 = 0.3;
const IDLE: u32 = 1u;
const MOTOR: u32 = 2u;
const RIGID: u32 = 4u;
const SPRUNG: u32 = 8u;
const LOWER: u32 = 16u;
const UPPER: u32 = 32u;
const LINEAR_SPRING: u32 = 64u;

// A joint's two bodies, to read and write (Ends, parts.rs).
struct Ends {
    a: BodyState,
    b: BodyState,
}

// The anchors now, A's then B's.
struct Anchors {
    ra: vec2<f32>,
    rb: vec2<f32>,
}

// a × b (cross, state.rs).
fn cross(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return keep(keep(a.x * b.y) - keep(a.y * b.x));
}

// Ends::anchors: turned by each body's rotation since the step began.
fn anchors(e: Ends, j: Joint) -> Anchors {
    return Anchors(
        rotate_kept(e.a.delta_rotation, j.anchor_a),
        rotate_kept(e.b.delta_rotation, j.anchor_b),
    );
}

// Ends::separation: B's anchor minus A's now.
fn separation(e: Ends, j: Joint, r: Anchors) -> vec2<f32> {
    let moved = keep2(e.b.delta_position - e.a.delta_position);
    return keep2(keep2(keep2(moved + j.delta_center) + r.rb) - r.ra);
}

// Ends::relative_velocity: B's anchor's velocity relative to A's (cross_sv: w × r).
fn anchor_velocity(e: Ends, r: Anchors) -> vec2<f32> {
    let wb = e.b.angular_velocity;
    let wa = e.a.angular_velocity;
    let spin_b = vec2<f32>(keep(-wb * r.rb.y), keep(wb * r.rb.x));
    let spin_a = vec2<f32>(keep(-wa * r.ra.y), keep(wa * r.ra.x));
    return keep2(keep2(keep2(e.b.linear_velocity + spin_b) - e.a.linear_velocity) - spin_a);
}

// Ends::apply_linear: `impulse` to B at rb, its opposite to A at ra.
fn apply_linear(e: ptr<function, Ends>, j: Joint, r: Anchors, impulse: vec2<f32>) {
    let p = keep2(impulse);
    (*e).a.linear_velocity = keep2((*e).a.linear_velocity - keep2(j.inv_mass.x * p));
    (*e).a.angular_velocity = keep((*e).a.angular_velocity - keep(j.inv_inertia.x * cross(r.ra, p)));
    (*e).b.linear_velocity = keep2((*e).b.linear_velocity + keep2(j.inv_mass.y * p));
    (*e).b.angular_velocity = keep((*e).b.angular_velocity + keep(j.inv_inertia.y * cross(r.rb, p)));
}

// Ends::apply_angular: the angular `impulse` to B, its opposite to A.
fn apply_angular(e: ptr<function, Ends>, j: Joint, impulse: f32) {
    let p = keep(impulse);
    (*e).a.angular_velocity = keep((*e).a.angular_velocity - keep(j.inv_inertia.x * p));
    (*e).b.angular_velocity = keep((*e).b.angular_velocity + keep(j.inv_inertia.y * p));
}

// accumulate (impulse_bound.rs): within ±MAX_IMPULSE the impulse applies as it came.
fn accumulate(accumulated: ptr<function, f32>, impulse: f32) -> f32 {
    let sum = keep(*accumulated + impulse);
    if abs(sum) <= MAX_IMPULSE {
        *accumulated = sum;
        return impulse;
    }
    let held = clamp_scalar(sum, -MAX_IMPULSE, MAX_IMPULSE);
    let applied = held - *accumulated;
    *accumulated = held;
    return applied;
}

// accumulate_vec (impulse_bound.rs), for a point impulse.
fn accumulate_vec(accumulated: ptr<function, vec2<f32>>, impulse: vec2<f32>) -> vec2<f32> {
    let sum = keep2(*accumulated + impulse);
    if max(abs(sum.x), abs(sum.y)) <= MAX_IMPULSE {
        *accumulated = sum;
        return impulse;
    }
    var x = (*accumulated).x;
    var y = (*accumulated).y;
    let applied = vec2<f32>(accumulate(&x, impulse.x), accumulate(&y, impulse.y));
    *accumulated = vec2<f32>(x, y);
    return applied;
}

// clamp_positive (impulse_bound.rs): a limit's impulse pushes, within MAX_IMPULSE. Its sum is
// never -0 (it starts at +0), so max(0) and this select agree.
fn clamp_positive(accumulated: ptr<function, f32>, impulse: f32) -> f32 {
    let sum = keep(*accumulated + impulse);
    let pushed = select(0.0, sum, sum > 0.0);
    let held = select(MAX_IMPULSE, pushed, pushed < MAX_IMPULSE);
    let applied = held - *accumulated;
    *accumulated = held;
    return applied;
}

fn inverse_or_zero(k: f32) -> f32 {
    return select(0.0, 1.0 / k, k > 0.0);
}

// Prepared::mass_along: the effective mass along a line whose levers are la and lb.
fn mass_along(j: Joint, la: f32, lb: f32) -> f32 {
    let ends = keep(j.inv_mass.x + j.inv_mass.y);
    let k = keep(keep(ends + keep(keep(j.inv_inertia.x * la) * la)) + keep(keep(j.inv_inertia.y * lb) * lb));
    return inverse_or_zero(k);
}

// The coefficients (bias rate, mass scale, impulse scale) of a rigid part (scales, parts.rs):
// the joint softness in the solve pass, plain velocity in the relax pass.
fn scales(use_bias: bool) -> vec3<f32> {
    if use_bias {
        return vec3<f32>(params.joint_bias_rate, params.joint_mass_scale, params.joint_impulse_scale);
    }
    return vec3<f32>(keep(0.0), keep(1.0), keep(0.0));
}

// rigid (parts.rs): scales with the bias rate times the error c.
fn rigid(c: f32, use_bias: bool) -> vec3<f32> {
    let s = scales(use_bias);
    return vec3<f32>(s.x * c, s.y, s.z);
}

// one_sided (parts.rs): a gap c > 0 closes within the substep, no more.
fn one_sided(c: f32, use_bias: bool) -> vec3<f32> {
    if c > 0.0 {
        return vec3<f32>(c / params.h, keep(1.0), keep(0.0));
    }
    return rigid(c, use_bias);
}

// solve_k (parts.rs): K^-1 rhs for the pin's 2x2 effective mass; `ok` false when singular.
struct Solved {
    ok: bool,
    value: vec2<f32>,
}

fn solve_k(j: Joint, r: Anchors, rhs: vec2<f32>) -> Solved {
    let ma = j.inv_mass.x;
    let mb = j.inv_mass.y;
    let ia = j.inv_inertia.x;
    let ib = j.inv_inertia.y;
    let ra = r.ra;
    let rb = r.rb;
    let k11 = keep(keep(keep(ma + mb) + keep(keep(ra.y * ra.y) * ia)) + keep(keep(rb.y * rb.y) * ib));
    let k12 = keep(keep(keep(-ra.y * ra.x) * ia) - keep(keep(rb.y * rb.x) * ib));
    let k22 = keep(keep(keep(ma + mb) + keep(keep(ra.x * ra.x) * ia)) + keep(keep(rb.x * rb.x) * ib));
    return solve22(vec3<f32>(k11, k12, k22), rhs);
}

// solve22 (parts.rs): the symmetric [[k11, k12], [k12, k22]] solved for rhs.
fn solve22(k: vec3<f32>, rhs: vec2<f32>) -> Solved {
    let det = keep(keep(k.x * k.z) - keep(k.y * k.y));
    if det == 0.0 || !is_finite_f32(det) {
        return Solved(false, vec2<f32>(0.0));
    }
    let x = keep(keep(k.z * rhs.x) - keep(k.y * rhs.y));
    let y = keep(keep(k.x * rhs.y) - keep(k.y * rhs.x));
    return Solved(true, vec2<f32>(x, y) / det);
}

// warm_start_pin (parts.rs): the point impulse at the anchors, the angular parts' sum.
fn warm_start_pin(j: Joint, e: ptr<function, Ends>) {
    let r = anchors(*e, j);
    apply_linear(e, j, r, j.linear_impulse);
    let axial = keep(keep(keep(j.spring_impulse + j.motor_impulse) + j.lower_impulse) - j.upper_impulse);
    apply_angular(e, j, axial);
}

// angular_motor (parts.rs): the relative spin driven to the motor's speed.
fn angular_motor(j: ptr<function, Joint>, e: ptr<function, Ends>) {
    let cdot = keep(keep((*e).b.angular_velocity - (*e).a.angular_velocity) - (*j).motor_speed);
    let old = (*j).motor_impulse;
    let bound = (*j).motor_max;
    (*j).motor_impulse = clamp_scalar(keep(old - keep((*j).angular_mass * cdot)), -bound, bound);
    apply_angular(e, *j, (*j).motor_impulse - old);
}

// Ends::angle: the joint angle now.
fn joint_angle(e: Ends, j: Joint) -> f32 {
    return unwind(keep(j.delta_angle + relative_angle(e.a.delta_rotation, e.b.delta_rotation)));
}

// revolute::solve: the spring, the motor, the limits, then the point.
fn revolute_solve(j: ptr<function, Joint>, e: ptr<function, Ends>, use_bias: bool) {
    let flags = (*j).flags;
    // The angle moves only when positions are integrated: one reading serves the spring and
    // the limits.
    var angle = 0.0;
    if (flags & (SPRUNG | LOWER)) != 0u {
        angle = joint_angle(*e, *j);
    }
    let am = (*j).angular_mass;
    if (flags & SPRUNG) != 0u {
        let cdot = keep((*e).b.angular_velocity - (*e).a.angular_velocity);
        let bias = keep((*j).spring_bias_rate * angle);
        let s = vec3<f32>(bias, (*j).spring_mass_scale, (*j).spring_impulse_scale);
        var accumulated = (*j).spring_impulse;
        let applied = accumulate(&accumulated, axial_impulse(am, cdot, s, accumulated));
        (*j).spring_impulse = accumulated;
        apply_angular(e, *j, applied);
    }
    if (flags & MOTOR) != 0u {
        angular_motor(j, e);
    }
    if (flags & LOWER) != 0u {
        let s = one_sided(keep(angle - (*j).lower), use_bias);
        let cdot = keep((*e).b.angular_velocity - (*e).a.angular_velocity);
        var lower = (*j).lower_impulse;
        let applied = clamp_positive(&lower, axial_impulse(am, cdot, s, lower));
        (*j).lower_impulse = lower;
        apply_angular(e, *j, applied);

        let t = one_sided(keep((*j).upper - angle), use_bias);
        let back = keep((*e).a.angular_velocity - (*e).b.angular_velocity);
        var upper = (*j).upper_impulse;
        let pushed = clamp_positive(&upper, axial_impulse(am, back, t, upper));
        (*j).upper_impulse = upper;
        apply_angular(e, *j, -pushed);
    }
    let joint = *j;
    let r = anchors(*e, joint);
    let s = scales(use_bias);
    solve_point(j, e, r, keep2(anchor_velocity(*e, r) + keep2(s.x * separation(*e, joint, r))), s);
}

// normalize_or_zero (glam): times the reciprocal of the length, or zero.
fn normalize_or_zero(v: vec2<f32>) -> vec2<f32> {
    let rcp = 1.0 / sqrt(dot_kept(v, v));
    if is_finite_f32(rcp) && rcp > 0.0 {
        return v * rcp;
    }
    return vec2<f32>(0.0);
}

// distance::warm_start: the axial parts' sum along the anchors' line now.
fn distance_warm_start(j: Joint, e: ptr<function, Ends>) {
    let r = anchors(*e, j);
    let axis = normalize_or_zero(separation(*e, j, r));
    let axial = keep(keep(keep(j.linear_impulse.x + j.spring_impulse) + j.lower_impulse) - j.upper_impulse);
    apply_linear(e, j, r, axial * axis);
}

// The impulse of an axial part: -mass_scale * mass * (speed + bias) - impulse_scale * acc.
fn axial_impulse(mass: f32, speed: f32, s: vec3<f32>, accumulated: f32) -> f32 {
    return keep(keep(keep(-s.y * mass) * keep(speed + s.x)) - keep(s.z * accumulated));
}

// distance::solve: rigid, or the spring and the limits.
fn distance_solve(j: ptr<function, Joint>, e: ptr<function, Ends>, use_bias: bool) {
    let joint = *j;
    let r = anchors(*e, joint);
    let d = separation(*e, joint, r);
    let current = sqrt(dot_kept(d, d));
    let axis = normalize_or_zero(d);
    let mass = mass_along(joint, cross(r.ra, axis), cross(r.rb, axis));
    if (joint.flags & RIGID) != 0u {
        let s = rigid(keep(current - joint.length), use_bias);
        let speed = dot_kept(axis, anchor_velocity(*e, r));
        let impulse = axial_impulse(mass, speed, s, (*j).linear_impulse.x);
        var accumulated = (*j).linear_impulse.x;
        let applied = accumulate(&accumulated, impulse);
        (*j).linear_impulse.x = accumulated;
        apply_linear(e, joint, r, applied * axis);
        return;
    }
    if (joint.flags & SPRUNG) != 0u {
        let bias = keep(joint.spring_bias_rate * keep(current - joint.length));
        let s = vec3<f32>(bias, joint.spring_mass_scale, joint.spring_impulse_scale);
        let speed = dot_kept(axis, anchor_velocity(*e, r));
        var accumulated = (*j).spring_impulse;
        let applied = accumulate(&accumulated, axial_impulse(mass, speed, s, accumulated));
        (*j).spring_impulse = accumulated;
        apply_linear(e, joint, r, applied * axis);
    }
    if (joint.flags & LOWER) != 0u {
        let s = one_sided(keep(current - joint.lower), use_bias);
        let speed = dot_kept(axis, anchor_velocity(*e, r));
        var accumulated = (*j).lower_impulse;
        let applied = clamp_positive(&accumulated, axial_impulse(mass, speed, s, accumulated));
        (*j).lower_impulse = accumulated;
        apply_linear(e, joint, r, applied * axis);
    }
    if (joint.flags & UPPER) != 0u {
        let s = one_sided(keep(joint.upper - current), use_bias);
        let speed = -dot_kept(axis, anchor_velocity(*e, r));
        var accumulated = (*j).upper_impulse;
        let applied = clamp_positive(&accumulated, axial_impulse(mass, speed, s, accumulated));
        (*j).upper_impulse = accumulated;
        apply_linear(e, joint, r, -applied * axis);
    }
}

// weld::solve: the angle (rigid, or its spring), then the point (rigid, or the anchor spring).
fn weld_solve(j: ptr<function, Joint>, e: ptr<function, Ends>, use_bias: bool) {
    var s = scales(use_bias);
    if ((*j).flags & SPRUNG) != 0u {
        s = vec3<f32>((*j).spring_bias_rate, (*j).spring_mass_scale, (*j).spring_impulse_scale);
    }
    let c = joint_angle(*e, *j);
    let cdot = keep((*e).b.angular_velocity - (*e).a.angular_velocity);
    let bias = vec3<f32>(keep(s.x * c), s.y, s.z);
    var accumulated = (*j).spring_impulse;
    let applied = accumulate(&accumulated, axial_impulse((*j).angular_mass, cdot, bias, accumulated));
    (*j).spring_impulse = accumulated;
    apply_angular(e, *j, applied);
    let joint = *j;
    let r = anchors(*e, joint);
    var t = scales(use_bias);
    if (joint.flags & LINEAR_SPRING) != 0u {
        t = vec3<f32>(joint.linear_bias_rate, joint.linear_mass_scale, joint.linear_impulse_scale);
    }
    solve_point(j, e, r, keep2(anchor_velocity(*e, r) + keep2(t.x * separation(*e, joint, r))), t);
}

// solve_point (parts.rs): the pin's impulse, -mass_scale K^-1 rhs - impulse_scale * acc.
fn solve_point(j: ptr<function, Joint>, e: ptr<function, Ends>, r: Anchors, rhs: vec2<f32>, s: vec3<f32>) {
    let joint = *j;
    let solved = solve_k(joint, r, rhs);
    if !solved.ok {
        return;
    }
    let impulse = keep2(keep2(-s.y * solved.value) - keep2(s.z * joint.linear_impulse));
    var accumulated = joint.linear_impulse;
    let applied = accumulate_vec(&accumulated, impulse);
    (*j).linear_impulse = accumulated;
    apply_linear(e, joint, r, applied);
}

// clamp_drive (impulse_bound.rs): v no longer than `bound`, as glam's clamp_length_max while
// its square is finite, by its direction where the square overflows.
fn clamp_drive(v: vec2<f32>, bound: f32) -> vec2<f32> {
    let length_sq = dot_kept(v, v);
    if is_finite_f32(length_sq) {
        if length_sq > bound * bound {
            return bound * (v / sqrt(length_sq));
        }
        return v;
    }
    return clamp_length(v, bound);
}

// motor::solve (the same in both passes): the angle, then the point, each closing
// MOTOR_CORRECTION of its gap per substep within its bound.
fn motor_solve(j: ptr<function, Joint>, e: ptr<function, Ends>) {
    let rate = MOTOR_CORRECTION / params.h;
    let cdot = keep((*e).b.angular_velocity - (*e).a.angular_velocity);
    let old = (*j).motor_impulse;
    let impulse = keep(-(*j).angular_mass * keep(cdot + keep(rate * joint_angle(*e, *j))));
    (*j).motor_impulse = clamp_scalar(keep(old + impulse), -(*j).motor_max, (*j).motor_max);
    apply_angular(e, *j, (*j).motor_impulse - old);
    let joint = *j;
    let r = anchors(*e, joint);
    let rhs = keep2(anchor_velocity(*e, r) + keep2(rate * separation(*e, joint, r)));
    let solved = solve_k(joint, r, rhs);
    if !solved.ok {
        return;
    }
    let held = joint.linear_impulse;
    (*j).linear_impulse = clamp_drive(keep2(held - solved.value), joint.force_max);
    apply_linear(e, joint, r, keep2((*j).linear_impulse - held));
}

// mouse::solve (the same in both passes): B's anchor pulled towards the target through the
// spring; A takes nothing (its anchor and masses are zero).
fn mouse_solve(j: ptr<function, Joint>, e: ptr<function, Ends>) {
    let joint = *j;
    let rb = rotate_kept((*e).b.delta_rotation, joint.anchor_b);
    let r = Anchors(vec2<f32>(0.0), rb);
    let wb = (*e).b.angular_velocity;
    let cdot = keep2((*e).b.linear_velocity + vec2<f32>(keep(-wb * rb.y), keep(wb * rb.x)));
    let separation = keep2(keep2((*e).b.delta_position + joint.delta_center) + rb);
    let rhs = keep2(cdot + keep2(joint.spring_bias_rate * separation));
    let solved = solve_k(joint, r, rhs);
    if !solved.ok {
        return;
    }
    let held = joint.linear_impulse;
    let impulse = keep2(keep2(-joint.spring_mass_scale * solved.value) - keep2(joint.spring_impulse_scale * held));
    (*j).linear_impulse = clamp_drive(keep2(held + impulse), joint.force_max);
    apply_linear(e, joint, r, keep2((*j).linear_impulse - held));
}

// clamp_speed_and_turn (state.rs), as settle_bodies does it.
fn clamp_speed_and_turn(s: ptr<function, BodyState>) {
    let v = (*s).linear_velocity;
    if dot_kept(v, v) > params.max_speed * params.max_speed {
        (*s).linear_velocity = clamp_length(v, params.max_speed);
    }
    if abs((*s).angular_velocity) > params.max_turn {
        (*s).angular_velocity = clamp_scalar((*s).angular_velocity, -params.max_turn, params.max_turn);
    }
}

// run_joints's body (joints/mod.rs) for one joint: the pass, the speed clamps, and the velocities of
// the bodies that move written back.
fn run_joint(stage: u32, slot: u32) {
    var j = joints[slot];
    if (j.flags & IDLE) != 0u {
        return;
    }
    var e = Ends(states[j.bodies.x], states[j.bodies.y]);
    switch stage {
        case WARM_START: {
            switch j.kind {
                case DISTANCE: {
                    distance_warm_start(j, &e);
                }
                case PRISMATIC: {
                    prismatic_warm_start(j, &e);
                }
                case WHEEL: {
                    wheel_warm_start(j, &e);
                }
                case MOTOR_JOINT: {
                    // motor::warm_start: the point impulse and the angular one.
                    let r = anchors(e, j);
                    apply_linear(&e, j, r, j.linear_impulse);
                    apply_angular(&e, j, j.motor_impulse);
                }
                default: {
                    // Revolute, weld, mouse.
                    warm_start_pin(j, &e);
                }
            }
        }
        default: {
            let use_bias = stage == SOLVE;
            switch j.kind {
                case REVOLUTE: {
                    revolute_solve(&j, &e, use_bias);
                }
                case DISTANCE: {
                    distance_solve(&j, &e, use_bias);
                }
                case WELD: {
                    weld_solve(&j, &e, use_bias);
                }
                case PRISMATIC: {
                    prismatic_solve(&j, &e, use_bias);
                }
                case WHEEL: {
                    wheel_solve(&j, &e, use_bias);
                }
                case MOTOR_JOINT: {
                    motor_solve(&j, &e);
                }
                default: {
                    mouse_solve(&j, &e);
                }
            }
        }
    }
    // Whole variables, not &e.a: naga 30's SPIR-V writer fails on a pointer to a member.
    var a = e.a;
    var b = e.b;
    clamp_speed_and_turn(&a);
    clamp_speed_and_turn(&b);
    if a.inv_mass > 0.0 {
        states[j.bodies.x] = a;
    }
    if b.inv_mass > 0.0 {
        states[j.bodies.y] = b;
    }
    joints[slot] = j;
}

fn run_joints(stage: u32, id: u32) {
    keep_flag = params.never != 0u;
    let range = colour_ranges[params.first];
    let first = range.z;
    let end = first + range.w;
    if (params.flags & OVERFLOW) != 0u {
        if id == 0u {
            let stop = min(end, first + params.count + OVERFLOW_CHUNK);
            for (var at = first + params.count; at < stop; at++) {
                run_joint(stage, joint_order[at]);
            }
        }
        return;
    }
    if id < range.w {
        run_joint(stage, joint_order[first + id]);
    }
}

@compute @workgroup_size(64)
fn joint_warm_start(@builtin(global_invocation_id) id: vec3<u32>) {
    run_joints(WARM_START, id.x);
}

@compute @workgroup_size(64)
fn joint_solve(@builtin(global_invocation_id) id: vec3<u32>) {
    run_joints(SOLVE, id.x);
}

@compute @workgroup_size(64)
fn joint_relax(@builtin(global_invocation_id) id: vec3<u32>) {
    run_joints(RELAX, id.x);
}

// Each joint's impulses, for the readback (24 bytes where the joint is 144). One invocation
// per joint slot; the host keeps those of the joints a colour solved.
@compute @workgroup_size(64)
fn store_joints(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if slot >= params.count {
        return;
    }
    let j = joints[slot];
    joint_impulses[slot] = JointImpulses(
        j.linear_impulse,
        j.spring_impulse,
        j.motor_impulse,
        j.lower_impulse,
        j.upper_impulse,
    );
}
