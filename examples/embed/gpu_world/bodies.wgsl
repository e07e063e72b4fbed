// The embed example's GPU-world shader: one instance per body slot, its pose read from the
// GPU world's transforms buffer (written by the device each step), its box from the host's
// own buffer (uploaded once).

struct View {
    // World point at the centre of the target.
    center: vec2<f32>,
    // World units to clip space: clip = (world - center) * scale.
    scale: vec2<f32>,
    // 1 when the target is sRGB (it encodes on write, so output linear colour).
    srgb_target: u32,
    // Scalars, not a vec3 (which would align to 16 bytes and make the struct 48).
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Mirrors `wgpu_sat::gpu::layout::BodyTransformGpu`: a point p of the body's frame is at
// rotate(rotation, p) + origin, rotation being (cos, sin).
struct BodyTransform {
    origin: vec2<f32>,
    rotation: vec2<f32>,
}

// Mirrors `BoxGpu`: a box centred on the body's origin, and its sRGB colour (RGBA8, red in
// the lowest byte).
struct Box {
    half_extents: vec2<f32>,
    color: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> view: View;
// `GpuWorld::transforms`, read-only: one per body slot.
@group(0) @binding(1) var<storage, read> transforms: array<BodyTransform>;
@group(0) @binding(2) var<storage, read> boxes: array<Box>;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) color: vec3<f32>,
    // The point in the box's frame, and the box's half extents: the fragment's distance to
    // the nearest edge, for an outline.
    @location(1) local: vec2<f32>,
    @location(2) @interpolate(flat) half_extents: vec2<f32>,
}

// The quad's corners, as two counter-clockwise triangles.
const CORNERS = array<vec2<f32>, 6>(
    vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
    vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
);

@vertex
fn vs_main(
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) body: u32,
) -> VertexOut {
    let pose = transforms[body];
    let half = boxes[body].half_extents;
    let local = CORNERS[vertex] * half;
    let r = pose.rotation;
    let world = vec2<f32>(r.x * local.x - r.y * local.y, r.y * local.x + r.x * local.y)
        + pose.origin;
    var out: VertexOut;
    out.clip = vec4<f32>((world - view.center) * view.scale, 0.0, 1.0);
    out.color = unpack4x8unorm(boxes[body].color).rgb;
    out.local = local;
    out.half_extents = half;
    return out;
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // Distance to the nearest edge in pixels, through each axis's screen-space gradient.
    let per_pixel = vec2<f32>(
        length(vec2<f32>(dpdx(in.local.x), dpdy(in.local.x))),
        length(vec2<f32>(dpdx(in.local.y), dpdy(in.local.y))),
    );
    let inside = (in.half_extents - abs(in.local)) / max(per_pixel, vec2<f32>(1e-6));
    let rim = 1.0 - smoothstep(0.5, 1.5, min(inside.x, inside.y));
    var c = mix(in.color, in.color * 0.45, rim);
    if view.srgb_target != 0u {
        c = srgb_to_linear(c);
    }
    return vec4<f32>(c, 1.0);
}
