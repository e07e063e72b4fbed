// wgpu-sat: one contact as the GPU world's solver takes it (ContactInputGpu in
// src/gpu/world/layout.rs, 64 bytes where its constraint is 176): made on the device by the
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
}
