// wgpu-sat colliders placed from their bodies' transforms on the device: the GPU world
// (src/gpu/world/) keeps every body's transform in a buffer its solver writes, and a
// collider's pose is its body's transform (shapes are in the body's frame). So the
// collision stage need not be sent the poses and boxes of the colliders that moved:
// place_poses gives each collider its body's transform, and place_boxes each its box from
// its pose, grown by half the speculative distance. The twins: World::update_colliders
// (src/world/step.rs: the pose, then Shape::aabb) and GpuCollision::send_boxes
// (src/gpu/collision/mod.rs: Aabb::expanded by half the margin); aabb and expanded here do
// their operations in their order. Two kernels, each binding at most four storage buffers
// (the downlevel limit). Compiled as layout.wgsl + transform.wgsl + this file.

struct PlaceParams {
    // Colliders.
    count: u32,
    // Always 0: keep()'s flag (transform.wgsl), which the compiler cannot know.
    never: u32,
    // Half the speculative distance, as the host computes it (0.5 * margin).
    half_margin: f32,
    _pad: u32,
}

// A collider whose pose the host sends (a removed collider keeps its last pose).
const UNPLACED: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read> shapes: array<Shape>;
// The narrow phase's indices: a shape id per collider first.
@group(0) @binding(1) var<storage, read> shape_ids: array<u32>;
// Per collider its body's slot, or UNPLACED.
@group(0) @binding(2) var<storage, read> owners: array<u32>;
// The GPU world's body transforms (BodyTransformGpu: origin, then (cos, sin)).
@group(0) @binding(3) var<storage, read> transforms: array<vec4<f32>>;
// The narrow phase's poses (`array<Pose>`): written by place_poses, read by place_boxes.
@group(0) @binding(4) var<storage, read_write> poses: array<vec4<f32>>;
// The broad phase's boxes (min, max).
@group(0) @binding(5) var<storage, read_write> boxes: array<vec4<f32>>;
@group(0) @binding(6) var<uniform> place_params: PlaceParams;

// Shape::aabb: the box of the core's transformed vertices (a circle's one vertex is its
// centre), grown by the rounding (a circle's radius, a capsule's; 0 when sharp). min and
// max are exact, so starting from the first vertex is starting from infinities. The table
// is indexed in place: a dynamic index into a copied array is not portable.
fn aabb(s: u32, t: Pose) -> vec4<f32> {
    let first = keep2(rotate_kept(t.rotation, shapes[s].vertices[0])) + t.translation;
    var low = first;
    var high = first;
    for (var i = 1u; i < shapes[s].count; i = i + 1u) {
        let p = keep2(rotate_kept(t.rotation, shapes[s].vertices[i])) + t.translation;
        low = min(low, p);
        high = max(high, p);
    }
    let r = vec2<f32>(shapes[s].rounding);
    return vec4<f32>(keep2(low - r), keep2(high + r));
}

// Aabb::expanded.
fn expanded(b: vec4<f32>, margin: f32) -> vec4<f32> {
    return vec4<f32>(b.xy - vec2<f32>(margin), b.zw + vec2<f32>(margin));
}

// Each placed collider's pose: its body's transform, as it is.
@compute @workgroup_size(64)
fn place_poses(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if c >= place_params.count {
        return;
    }
    let body = owners[c];
    if body != UNPLACED {
        poses[c] = transforms[body];
    }
}

// Every collider's box from its pose (the host sent an unplaced one's pose, and computes
// its box the same way).
@compute @workgroup_size(64)
fn place_boxes(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = place_params.never != 0u;
    let c = id.x;
    if c >= place_params.count {
        return;
    }
    let t = poses[c];
    boxes[c] = expanded(aabb(shape_ids[c], Pose(t.xy, t.zw)), place_params.half_margin);
}
