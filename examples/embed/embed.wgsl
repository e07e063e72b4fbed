// The embed example's shader. The host prepends `wgpu_sat::gpu::LAYOUT_WGSL` (WGSL has no
// include), which declares `Shape` and `Pose`: this file reads the narrow phase's own buffers
// and never sees a copy of them.

struct View {
    // World point at the centre of the target.
    center: vec2<f32>,
    // World units to clip space: clip = (world - center) * scale.
    scale: vec2<f32>,
    // x: 1 when the target is sRGB (it encodes on write, so output linear colour).
    misc: vec4<f32>,
}

@group(0) @binding(0) var<uniform> view: View;
// The four buffers of the GpuNarrowPhase, bound read-only in the vertex stage.
@group(0) @binding(1) var<storage, read> shapes: array<Shape>;
@group(0) @binding(2) var<storage, read> poses: array<Pose>;
// Words [0, collider count) are the colliders' shape ids; the pairs after them go unread.
@group(0) @binding(3) var<storage, read> collider_shapes: array<u32>;
// Per collider, how many contacts it is in, written by `GpuNarrowPhase::record` this frame.
@group(0) @binding(4) var<storage, read> touching: array<u32>;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) color: vec3<f32>,
    // Distance to the line of each edge, positive inside. Affine in the point, so the
    // interpolated value is exact in every fan triangle: the outline needs no extra geometry.
    @location(1) edges_low: vec4<f32>,
    @location(2) edges_high: vec4<f32>,
}

// Slots past `count` repeat vertex 0 and normal 0, so edges 'past the end' just repeat edge
// 0 and change no minimum.
fn edge_distance(s: u32, i: u32, p: vec2<f32>) -> f32 {
    return dot(shapes[s].normals[i], shapes[s].vertices[i] - p);
}

// One instance per collider, 18 vertices: a fan of 6 triangles (0, t + 1, t + 2) over the 8
// padded slots. Past `count` a slot is vertex 0 again, so surplus triangles have no area.
@vertex
fn vs_main(
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) collider: u32,
) -> VertexOut {
    let s = collider_shapes[collider];
    let pose = poses[collider];
    let corner = vertex % 3u;
    let slot = select(vertex / 3u + corner, 0u, corner == 0u);
    let local = shapes[s].vertices[slot];
    let r = pose.rotation;
    let world = vec2<f32>(r.x * local.x - r.y * local.y, r.y * local.x + r.x * local.y)
        + pose.translation;

    var out: VertexOut;
    out.clip = vec4<f32>((world - view.center) * view.scale, 0.0, 1.0);
    // Constant indices: llvmpipe spills dynamically indexed locals to memory.
    out.edges_low = vec4<f32>(
        edge_distance(s, 0u, local),
        edge_distance(s, 1u, local),
        edge_distance(s, 2u, local),
        edge_distance(s, 3u, local),
    );
    out.edges_high = vec4<f32>(
        edge_distance(s, 4u, local),
        edge_distance(s, 5u, local),
        edge_distance(s, 6u, local),
        edge_distance(s, 7u, local),
    );
    // The colour comes straight from the GPU's contact count: no readback involved.
    let hits = touching[collider];
    let calm = vec3<f32>(0.32, 0.44, 0.60);
    let warm = vec3<f32>(1.00, 0.58, 0.12);
    let hot = vec3<f32>(0.95, 0.16, 0.10);
    out.color = select(calm, mix(warm, hot, min(f32(hits) - 1.0, 2.0) / 2.0), hits > 0u);
    return out;
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

// World distances to pixels through their screen-space gradient.
fn in_pixels(d: vec4<f32>) -> vec4<f32> {
    let dx = dpdx(d);
    let dy = dpdy(d);
    return d / max(sqrt(dx * dx + dy * dy), vec4<f32>(1e-6));
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let m = min(in_pixels(in.edges_low), in_pixels(in.edges_high));
    let d = min(min(m.x, m.y), min(m.z, m.w));
    // A bright rim about one pixel wide, so overlapping polygons stay distinguishable.
    let rim = 1.0 - smoothstep(0.5, 1.5, d);
    var c = mix(in.color, mix(in.color, vec3<f32>(1.0), 0.55), rim);
    if view.misc.x > 0.5 {
        c = srgb_to_linear(c);
    }
    // Slightly translucent fills: where polygons overlap, both show.
    return vec4<f32>(c, mix(0.78, 1.0, rim));
}
