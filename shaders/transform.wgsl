// wgpu-sat rigid-transform helpers, the twin of src/shapes/transform.rs: each function does the
// same operations in the same order as its Rust namesake, so that the CPU and the GPU
// round alike. Shared by the narrow-phase module (sat.wgsl) and the time-of-impact module
// (toi.wgsl): the library compiles each as layout.wgsl + transform.wgsl + the kernel file.
//
// A Pose (layout.wgsl) maps local to world: world = rotate(rotation, local) + translation,
// with rotation = (cos angle, sin angle).

// Vulkan drivers may re-associate float sums that SPIR-V does not mark NoContraction, and
// naga marks none: lavapipe computes (a - b) + c as (a + c) - b, one rounding apart from
// the Rust twin. A sum passed through keep() is a leaf to such rewrites: a select on a
// flag the compiler cannot know, false at run time (each entry point sets it from a
// uniform, see sat_pass.wgsl), so the value is used as rounded. An entry point that does
// not set it leaves the flag a constant false, and keep() folds away (docs/reliability.md,
// "GPU and CPU bits").
var<private> keep_flag: bool;

fn keep(x: f32) -> f32 {
    return select(x, 0.0, keep_flag);
}

fn keep2(v: vec2<f32>) -> vec2<f32> {
    return select(v, vec2<f32>(0.0), keep_flag);
}

// q * v for a rotation q = (cos, sin).
fn rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

// q⁻¹ * v for a rotation q = (cos, sin).
fn inverse_rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x + q.y * v.y, -q.y * v.x + q.x * v.y);
}

fn transform_point(t: Pose, p: vec2<f32>) -> vec2<f32> {
    return keep2(rotate(t.rotation, p)) + t.translation;
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

// dot2 and rotate (transform.wgsl) with each product a leaf: a driver may fuse a product
// into the sum it feeds (lavapipe did, in the solver's contact passes).
fn dot_kept(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return keep(a.x * b.x) + keep(a.y * b.y);
}

fn rotate_kept(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(
        keep(q.x * v.x) - keep(q.y * v.y),
        keep(q.y * v.x) + keep(q.x * v.y),
    );
}

// inverse_rotate and inv_mul_transforms with each product a leaf, as rotate_kept (the
// recycling pass, recycle.wgsl, keeps manifolds to the host's bits with them).
fn inv_mul_kept(a: Pose, b: Pose) -> Pose {
    let qa = a.rotation;
    let qb = b.rotation;
    let rotation = vec2<f32>(
        keep(qa.x * qb.x) + keep(qa.y * qb.y),
        keep(qa.x * qb.y) - keep(qa.y * qb.x),
    );
    return Pose(inverse_rotate_kept(qa, b.translation - a.translation), rotation);
}

fn inverse_rotate_kept(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(keep(q.x * v.x) + keep(q.y * v.y), keep(-q.y * v.x) + keep(q.x * v.y));
}

// transform_point with each product a leaf (the time-of-impact kernel's, toi.wgsl).
fn transform_point_kept(t: Pose, p: vec2<f32>) -> vec2<f32> {
    return keep2(rotate_kept(t.rotation, p)) + t.translation;
}

// Whether x is neither an infinity nor a NaN, read from the exponent bits: WGSL lets an
// implementation assume that no float is infinite or NaN, so a comparison such as
// `abs(x) <= F32_MAX` may be folded to true; an integer test of the bits cannot be.
fn is_finite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

fn is_finite_vec2(v: vec2<f32>) -> bool {
    return is_finite_f32(v.x) && is_finite_f32(v.y);
}

// |v| and v / |v| (length_and_direction's tuple).
struct LengthDirection {
    length: f32,
    direction: vec2<f32>,
}

// |v| and the unit vector v / |v| without the underflow of squaring tiny components (below
// about 1e-19 the plain length loses its precision among the subnormals) or the overflow
// of squaring huge ones (above about 1e19 it is infinite): v is first divided by the power
// of two at or below its larger component, which is exact, so at ordinary sizes this is
// the plain length to the bit. Branch-free, so no lane of a SIMD group waits on it.
fn length_and_direction(v: vec2<f32>) -> LengthDirection {
    let largest = max(abs(v.x), abs(v.y));
    // The exponent bits alone; a subnormal (or zero) largest component takes the smallest
    // normal power, which still scales a subnormal exactly.
    let scale = max(bitcast<f32>(bitcast<u32>(largest) & 0x7f800000u), 1.17549435e-38);
    let w = v / scale;
    let length = sqrt(dot_kept(w, w));
    return LengthDirection(length * scale, w / length);
}
