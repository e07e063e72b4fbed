// wgpu-sat rigid-transform helpers, the twin of src/transform.rs: each function does the
// same operations in the same order as its Rust namesake, so that the CPU and the GPU
// round alike. Shared by the narrow-phase module (sat.wgsl) and the time-of-impact module
// (toi.wgsl): the library compiles each as layout.wgsl + transform.wgsl + the kernel file.
//
// A Pose (layout.wgsl) maps local to world: world = rotate(rotation, local) + translation,
// with rotation = (cos angle, sin angle).

// q * v for a rotation q = (cos, sin).
fn rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

// q⁻¹ * v for a rotation q = (cos, sin).
fn inverse_rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x + q.y * v.y, -q.y * v.x + q.x * v.y);
}

fn transform_point(t: Pose, p: vec2<f32>) -> vec2<f32> {
    return rotate(t.rotation, p) + t.translation;
}

// a⁻¹ · b: maps b's local frame into a's.
fn inv_mul_transforms(a: Pose, b: Pose) -> Pose {
    let qa = a.rotation;
    let qb = b.rotation;
    let rotation = vec2<f32>(qa.x * qb.x + qa.y * qb.y, qa.x * qb.y - qa.y * qb.x);
    return Pose(inverse_rotate(qa, b.translation - a.translation), rotation);
}

fn dot2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    // Written out (not dot()) so that the rounding matches glam's Vec2::dot.
    return a.x * b.x + a.y * b.y;
}
