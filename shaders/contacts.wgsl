// wgpu-sat: the GPU world's contact passes, the twin of src/dynamics/solver/mod.rs
// (fill_lane, lever, store_group) and contact_simd.rs (WideContact's prepare, warm start,
// solve, relax and restitution, one lane per invocation). Compiled after solver.wgsl (the
// structs, bindings and clamps); see its header for why the bits are the host's.

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

// Each contact's inputs into its constraint record, the rest zero (as the host's record
// starts: `ConstraintGpu::zeroed`, then the inputs).
@compute @workgroup_size(64)
fn unpack_contacts(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= params.count {
        return;
    }
    let input = contact_inputs[k];
    let warm = warm_starts[k];
    var c: Constraint;
    c.bodies = input.bodies;
    c.normal = input.normal;
    c.friction = input.friction;
    c.restitution = input.restitution;
    c.tangent_speed = input.tangent_speed;
    c.count = input.count;
    // A point past the count stays zero, as the host's record does (the input repeats its
    // point there; the warm start is zero there).
    for (var p = 0u; p < input.count; p++) {
        c.points[p].point = input.points[p];
        c.points[p].depth = input.depths[p];
        c.points[p].normal_impulse = warm.normal_impulses[p];
        c.points[p].tangent_impulse = warm.tangent_impulses[p];
    }
    constraints[k] = c;
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
    let range = colour_ranges[params.first];
    let first = range.x;
    let end = first + range.y;
    if (params.flags & OVERFLOW) != 0u {
        // One constraint per group, one after another: they may share bodies. A chunk a
        // dispatch, the chunks in order.
        if id == 0u {
            let stop = min(end, first + params.count + OVERFLOW_CHUNK);
            for (var at = first + params.count; at < stop; at++) {
                run_contact(stage, at, vec2<u32>(at, at + 1u));
            }
        }
        return;
    }
    if id >= range.y {
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

// The Store stage (store_group, and WideContact::impulses' bound): one invocation per
// contact; the host keeps those of the contacts a colour solved.
@compute @workgroup_size(64)
fn store_impulses(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let k = id.x;
    if k >= params.count {
        return;
    }
    let c = constraints[k];
    var impulses: Stored;
    var hits: Stored;
    for (var p = 0u; p < 2u; p++) {
        let q = c.points[p];
        let normal = fast_min(q.normal_impulse, MAX_IMPULSE);
        let tangent = fast_min(fast_max(q.tangent_impulse, -MAX_IMPULSE), MAX_IMPULSE);
        impulses.per_point[p] = vec2<f32>(normal, tangent);
        hits.per_point[p] = vec2<f32>(-q.relative_velocity, q.max_normal_impulse);
    }
    stored[k] = impulses;
    stored[params.count + k] = hits;
    // The next step's match reads the contact's key, feature ids and impulses: those of a
    // contact in no colour are its warm start as unpacked, and the hold above leaves a
    // held impulse as it is, as the host's record keeps the match's.
    let input = contact_inputs[k];
    var next: LastContact;
    next.key = input.key;
    next.ids = input.ids;
    next.impulses = impulses.per_point;
    next.count = input.count;
    last[k] = next;
}
