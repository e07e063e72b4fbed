// wgpu-sat: the GPU world's slider joints, the twin of src/dynamics/joints/slide.rs (the
// slider's geometry, its spring and limits), prismatic.rs and wheel.rs. Compiled after
// joints.wgsl (Joint, Ends, the impulse bounds and parts), with its conventions.

// The slider's geometry now (Slide, slide.rs).
struct Slide {
    axis: vec2<f32>,
    perp: vec2<f32>,
    d: vec2<f32>,
    a1: f32,
    a2: f32,
    s1: f32,
    s2: f32,
    translation: f32,
    axial_mass: f32,
}

// slide (slide.rs): the axis turned with A, its normal, B's anchor from A's, the levers.
fn slide(e: Ends, j: Joint, r: Anchors) -> Slide {
    let axis = rotate_kept(e.a.delta_rotation, j.axis);
    let perp = vec2<f32>(-axis.y, axis.x);
    let d = separation(e, j, r);
    let from_a = keep2(d + r.ra);
    let a1 = cross(from_a, axis);
    let a2 = cross(r.rb, axis);
    return Slide(axis, perp, d, a1, a2, cross(from_a, perp), cross(r.rb, perp), dot_kept(axis, d), mass_along(j, a1, a2));
}

// Slide::axial_speed: B's speed along the axis relative to A.
fn axial_speed(sl: Slide, e: Ends) -> f32 {
    let along = dot_kept(sl.axis, keep2(e.b.linear_velocity - e.a.linear_velocity));
    return keep(keep(along + keep(sl.a2 * e.b.angular_velocity)) - keep(sl.a1 * e.a.angular_velocity));
}

// Slide::apply: impulses along the axis and its normal and an angular one to B, their
// opposites to A.
fn slide_apply(sl: Slide, e: ptr<function, Ends>, j: Joint, axial: f32, normal: f32, angular: f32) {
    let impulse = keep2(keep2(axial * sl.axis) + keep2(normal * sl.perp));
    let la = keep(keep(keep(axial * sl.a1) + keep(normal * sl.s1)) + angular);
    let lb = keep(keep(keep(axial * sl.a2) + keep(normal * sl.s2)) + angular);
    (*e).a.linear_velocity = keep2((*e).a.linear_velocity - keep2(j.inv_mass.x * impulse));
    (*e).a.angular_velocity = keep((*e).a.angular_velocity - keep(j.inv_inertia.x * la));
    (*e).b.linear_velocity = keep2((*e).b.linear_velocity + keep2(j.inv_mass.y * impulse));
    (*e).b.angular_velocity = keep((*e).b.angular_velocity + keep(j.inv_inertia.y * lb));
}

// slide_spring (slide.rs): the translation towards 0.
fn slide_spring(j: ptr<function, Joint>, e: ptr<function, Ends>, r: Anchors) {
    let sl = slide(*e, *j, r);
    let cdot = axial_speed(sl, *e);
    let bias = keep((*j).spring_bias_rate * sl.translation);
    let s = vec3<f32>(bias, (*j).spring_mass_scale, (*j).spring_impulse_scale);
    var accumulated = (*j).spring_impulse;
    let applied = accumulate(&accumulated, axial_impulse(sl.axial_mass, cdot, s, accumulated));
    (*j).spring_impulse = accumulated;
    slide_apply(sl, e, *j, applied, 0.0, 0.0);
}

// slide_limits (slide.rs): one slide for both sides, the speed read again between them.
fn slide_limits(j: ptr<function, Joint>, e: ptr<function, Ends>, r: Anchors, use_bias: bool) {
    let sl = slide(*e, *j, r);
    let s = one_sided(keep(sl.translation - (*j).lower), use_bias);
    var lower = (*j).lower_impulse;
    let applied = clamp_positive(&lower, axial_impulse(sl.axial_mass, axial_speed(sl, *e), s, lower));
    (*j).lower_impulse = lower;
    slide_apply(sl, e, *j, applied, 0.0, 0.0);
    let t = one_sided(keep((*j).upper - sl.translation), use_bias);
    var upper = (*j).upper_impulse;
    let pushed = clamp_positive(&upper, axial_impulse(sl.axial_mass, -axial_speed(sl, *e), t, upper));
    (*j).upper_impulse = upper;
    slide_apply(sl, e, *j, -pushed, 0.0, 0.0);
}

// wheel::warm_start: the axial parts along the axis, the normal one, the motor's as the
// angular one.
fn wheel_warm_start(j: Joint, e: ptr<function, Ends>) {
    let r = anchors(*e, j);
    let sl = slide(*e, j, r);
    let axial = keep(keep(j.spring_impulse + j.lower_impulse) - j.upper_impulse);
    slide_apply(sl, e, j, axial, j.linear_impulse.x, j.motor_impulse);
}

// wheel::solve: the motor on the spin, the suspension's spring and limits, then the anchor
// held on the axis.
fn wheel_solve(j: ptr<function, Joint>, e: ptr<function, Ends>, use_bias: bool) {
    let r = anchors(*e, *j);
    let flags = (*j).flags;
    if (flags & MOTOR) != 0u {
        angular_motor(j, e);
    }
    if (flags & SPRUNG) != 0u {
        slide_spring(j, e, r);
    }
    if (flags & LOWER) != 0u {
        slide_limits(j, e, r, use_bias);
    }
    let joint = *j;
    let sl = slide(*e, joint, r);
    let relative = keep2((*e).b.linear_velocity - (*e).a.linear_velocity);
    let wa = (*e).a.angular_velocity;
    let wb = (*e).b.angular_velocity;
    let cdot = keep(keep(dot_kept(sl.perp, relative) + keep(sl.s2 * wb)) - keep(sl.s1 * wa));
    let mass = mass_along(joint, sl.s1, sl.s2);
    let s = rigid(dot_kept(sl.perp, sl.d), use_bias);
    var accumulated = joint.linear_impulse.x;
    let applied = accumulate(&accumulated, axial_impulse(mass, cdot, s, accumulated));
    (*j).linear_impulse.x = accumulated;
    slide_apply(sl, e, joint, 0.0, applied, 0.0);
}

// prismatic::warm_start: the axial parts along the axis, the normal and angular ones.
fn prismatic_warm_start(j: Joint, e: ptr<function, Ends>) {
    let r = anchors(*e, j);
    let sl = slide(*e, j, r);
    let axial = keep(keep(j.spring_impulse + j.lower_impulse) - j.upper_impulse);
    slide_apply(sl, e, j, keep(axial + j.motor_impulse), j.linear_impulse.x, j.linear_impulse.y);
}

// prismatic::solve: the spring, the motor, the limits, then the normal and angle block.
fn prismatic_solve(j: ptr<function, Joint>, e: ptr<function, Ends>, use_bias: bool) {
    let r = anchors(*e, *j);
    let flags = (*j).flags;
    if (flags & SPRUNG) != 0u {
        slide_spring(j, e, r);
    }
    if (flags & MOTOR) != 0u {
        let sl = slide(*e, *j, r);
        let cdot = keep(axial_speed(sl, *e) - (*j).motor_speed);
        let old = (*j).motor_impulse;
        let bound = (*j).motor_max;
        (*j).motor_impulse = clamp_scalar(keep(old - keep(sl.axial_mass * cdot)), -bound, bound);
        slide_apply(sl, e, *j, (*j).motor_impulse - old, 0.0, 0.0);
    }
    if (flags & LOWER) != 0u {
        slide_limits(j, e, r, use_bias);
    }
    let joint = *j;
    let sl = slide(*e, joint, r);
    let relative = keep2((*e).b.linear_velocity - (*e).a.linear_velocity);
    let wa = (*e).a.angular_velocity;
    let wb = (*e).b.angular_velocity;
    let cdot = vec2<f32>(
        keep(keep(dot_kept(sl.perp, relative) + keep(sl.s2 * wb)) - keep(sl.s1 * wa)),
        keep(wb - wa),
    );
    let s = scales(use_bias);
    let c = vec2<f32>(dot_kept(sl.perp, sl.d), joint_angle(*e, joint));
    let ma = joint.inv_mass.x;
    let mb = joint.inv_mass.y;
    let ia = joint.inv_inertia.x;
    let ib = joint.inv_inertia.y;
    let k11 = keep(keep(keep(ma + mb) + keep(keep(ia * sl.s1) * sl.s1)) + keep(keep(ib * sl.s2) * sl.s2));
    let k12 = keep(keep(ia * sl.s1) + keep(ib * sl.s2));
    // A body pair that cannot turn still slides: a unit angular mass keeps K whole.
    let turn = keep(ia + ib);
    let k22 = select(turn, 1.0, turn == 0.0);
    let solved = solve22(vec3<f32>(k11, k12, k22), keep2(cdot + keep2(s.x * c)));
    if !solved.ok {
        return;
    }
    let impulse = keep2(keep2(-s.y * solved.value) - keep2(s.z * joint.linear_impulse));
    var accumulated = joint.linear_impulse;
    let applied = accumulate_vec(&accumulated, impulse);
    (*j).linear_impulse = accumulated;
    slide_apply(sl, e, joint, 0.0, applied.x, applied.y);
}
