// wgpu-sat: one contact as the GPU world's solver takes it (ContactInputGpu in
// src/gpu/contact_input.rs, 72 bytes where its constraint is 176): made on the device by the
// collision stage's merge (recycle.wgsl) or sent by the host, then put in its constraint,
// with its warm start, by unpack_contacts (contacts.wgsl). Compiled into both modules,
// which share it.
struct ContactInput {
    bodies: vec2<u32>,
    // The colliders in touch: the colouring's key (colouring.wgsl reads it as words).
    key: vec2<u32>,
    // The mixed material (ColliderSurface::mix).
    friction: f32,
    restitution: f32,
    tangent_speed: f32,
    count: u32,
    // From A to B, world frame.
    normal: vec2<f32>,
    // Per point: world frame; penetration. A one-point manifold repeats its point.
    points: array<vec2<f32>, 2>,
    depths: vec2<f32>,
    // Per point its feature id, what the next step's warm starts are matched by; 0 past
    // the count (the host's ContactImpulses::ids).
    ids: vec2<u32>,
}

// A contact's warm start (WarmStartGpu): per point (zero past the count) the last step's
// impulses where the same feature id touched, matched on the host or on the device
// (match_warm_starts in recycle.wgsl).
struct WarmStart {
    normal_impulses: vec2<f32>,
    tangent_impulses: vec2<f32>,
}

// A contact of the last step as the next step's match of warm starts reads it
// (LastContactGpu in src/gpu/contact_input.rs): written by store_impulses (contacts.wgsl),
// read by match_warm_starts (recycle.wgsl).
struct LastContact {
    key: vec2<u32>,
    ids: vec2<u32>,
    // Per point: the normal and the tangent impulse the step ended with.
    impulses: array<vec2<f32>, 2>,
    count: u32,
    _pad: u32,
}
