// wgpu-sat: a body's records as the GPU world's passes share them (the solver's,
// solver.wgsl, and the continuous stage's and sleep's, continuous.wgsl and sleep.wgsl, bind
// the same buffers), each the twin of its Rust mirror.

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
