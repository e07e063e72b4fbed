// wgpu-sat scatter of changed colliders: the collision pipeline (src/gpu/collision/mod.rs)
// keeps every collider's pose, shape id and box on the device from call to call, and
// uploads only the colliders whose pose, box or shape changed, 48 bytes each; one
// invocation per update writes them where they belong. The twin is `scatter_colliders` in
// src/gpu/scatter.rs.

struct ColliderUpdate {
    index: u32,
    shape: u32,
    _pad: vec2<u32>,
    // Pose: translation, then (cos, sin) of the angle (Pose in layout.wgsl).
    pose: vec4<f32>,
    // Box: min, then max.
    aabb: vec4<f32>,
}

struct ScatterParams {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> updates: array<ColliderUpdate>;
// The narrow phase's poses (`array<Pose>`, 16 bytes each).
@group(0) @binding(1) var<storage, read_write> poses: array<vec4<f32>>;
// The narrow phase's indices: a shape id per collider first.
@group(0) @binding(2) var<storage, read_write> shape_ids: array<u32>;
// The broad phase's boxes.
@group(0) @binding(3) var<storage, read_write> boxes: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> scatter_params: ScatterParams;

@compute @workgroup_size(64)
fn scatter_colliders(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= scatter_params.count {
        return;
    }
    let update = updates[k];
    poses[update.index] = update.pose;
    shape_ids[update.index] = update.shape;
    boxes[update.index] = update.aabb;
}
