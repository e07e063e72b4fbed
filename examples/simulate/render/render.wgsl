// The simulate example's shaders: every body in one instanced draw, pulled from storage
// buffers (its pose from its instance, or from a GPU world's transforms by body slot), and
// the contact overlay as a line list.

struct Camera {
    // World point at the centre of the target.
    center: vec2<f32>,
    // World units to clip space: clip = (world - center) * scale; y points up in both.
    scale: vec2<f32>,
    // Body drawn highlighted (being dragged), or 0xffffffff for none.
    selected: u32,
    // 1 when the target is an sRGB format, which encodes on write: output linear colour.
    // 0 for a non-sRGB target: output the sRGB-encoded colour ourselves.
    srgb_target: u32,
    // Where a collider's pose is: POSE_IN_INSTANCE or POSE_FROM_TRANSFORMS.
    pose_source: u32,
    _pad: u32,
};

// Mirrors `ShapeGpu`: one entry of the world's shape table, local frame, counter-clockwise.
// A circle has count 1, its centre in vertices[0] and its radius in `radius`.
struct Shape {
    vertices: array<vec2<f32>, 8>,
    count: u32,
    radius: f32,
};

// Mirrors `InstanceGpu`: 24 bytes per collider (one piece of a body), all scalars so that
// the stride stays 24. The pose (tx, ty, c, s) is unread with POSE_FROM_TRANSFORMS.
struct Instance {
    tx: f32,
    ty: f32,
    // The rotation as (cos, sin), as `Transform::rotation` gives it.
    c: f32,
    s: f32,
    // Index into `shapes`; the top bit marks a static body, the next a sleeping one.
    shape: u32,
    // The body this piece belongs to: its colour and the selection go by body.
    body: u32,
};

// Mirrors `wgpu_sat::gpu::layout::BodyTransformGpu`: a GPU world's pose of one body slot.
// A point p of the body's frame (where its pieces are given) is at rotate(rotation, p) +
// origin, rotation being (cos, sin).
struct BodyTransform {
    origin: vec2<f32>,
    rotation: vec2<f32>,
};

const STATIC_BIT: u32 = 0x80000000u;
const SLEEPING_BIT: u32 = 0x40000000u;
const POSE_IN_INSTANCE: u32 = 0u;
const POSE_FROM_TRANSFORMS: u32 = 1u;

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> shapes: array<Shape>;
@group(0) @binding(2) var<storage, read> instances: array<Instance>;
// `GpuWorld::transforms`, written by the device each step; a one-entry stand-in, unread,
// while the poses are in the instances.
@group(0) @binding(3) var<storage, read> transforms: array<BodyTransform>;

fn to_clip(world: vec2<f32>) -> vec4<f32> {
    return vec4<f32>((world - camera.center) * camera.scale, 0.0, 1.0);
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

// Colours below are picked in sRGB; convert only when the target will encode them again.
fn output(c: vec3<f32>) -> vec4<f32> {
    if camera.srgb_target != 0u {
        return vec4<f32>(srgb_to_linear(c), 1.0);
    }
    return vec4<f32>(c, 1.0);
}

// PCG hash: neighbouring body indices get unrelated colours.
fn hash(x: u32) -> u32 {
    let state = x * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn hsv(h: f32, s: f32, v: f32) -> vec3<f32> {
    let k = (vec3<f32>(5.0, 3.0, 1.0) + h * 6.0) % 6.0;
    return v - v * s * clamp(min(k, 4.0 - k), vec3<f32>(0.0), vec3<f32>(1.0));
}

struct PolygonOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) color: vec3<f32>,
    // Distance from the point to the line of each edge (0 to 3, then 4 to 7), positive
    // inside. A distance to a line is affine in the point, so interpolating the vertices'
    // values gives it exactly at every fragment, whichever fan triangle the fragment is in.
    // For a circle instead: edges_low.xy is the point relative to the centre in the
    // body's frame, edges_low.z the radius.
    @location(1) edges_low: vec4<f32>,
    @location(2) edges_high: vec4<f32>,
    @location(3) @interpolate(flat) is_circle: u32,
};

// No outline for edges a shape does not have.
const FAR: f32 = 1.0e6;

// Distance from `p` to the line of edge `i` (from vertex i to the next) of a shape, positive
// inside; FAR for an edge the shape does not have.
fn edge_distance(shape: u32, i: u32, last: u32, p: vec2<f32>) -> f32 {
    if i > last {
        return FAR;
    }
    let a = shapes[shape].vertices[i];
    let b = shapes[shape].vertices[select(i + 1u, 0u, i == last)];
    // Counter-clockwise winding: the outward normal is the edge turned clockwise.
    let e = b - a;
    let outward = vec2<f32>(e.y, -e.x) / length(e);
    return dot(outward, a - p);
}

// A polygon of n vertices is a fan of n - 2 triangles from vertex 0. Every instance runs
// 18 vertices (6 triangles, enough for 8 vertices); triangles past n - 2 repeat the last
// vertex and have no area, so the rasteriser drops them. A circle uses the first two
// triangles as the square around it and the fragment shader cuts the disc out of it.
@vertex
fn vs_polygon(
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) index: u32,
) -> PolygonOut {
    let instance = instances[index];
    let body = instance.body;
    let shape = instance.shape & ~(STATIC_BIT | SLEEPING_BIT);
    let count = shapes[shape].count;
    let triangle = vertex / 3u;
    let corner = vertex % 3u;
    var out: PolygonOut;
    var local: vec2<f32>;
    if count == 1u {
        // Square corners (-1,-1) (1,-1) (1,1) | (-1,-1) (1,1) (-1,1); later triangles
        // collapse onto the first corner.
        let r = shapes[shape].radius;
        var unit = vec2<f32>(-1.0, -1.0);
        if triangle == 0u && corner == 1u {
            unit = vec2<f32>(1.0, -1.0);
        } else if triangle < 2u && corner == 2u - triangle {
            unit = vec2<f32>(1.0, 1.0);
        } else if triangle == 1u && corner == 2u {
            unit = vec2<f32>(-1.0, 1.0);
        }
        local = shapes[shape].vertices[0] + r * unit;
        out.edges_low = vec4<f32>(r * unit, r, 0.0);
        out.edges_high = vec4<f32>(0.0);
        out.is_circle = 1u;
    } else {
        let last = count - 1u;
        var k = 0u;
        if corner != 0u {
            k = min(triangle + corner, last);
        }
        local = shapes[shape].vertices[k];
        // Unrolled with constant indices: llvmpipe spills a dynamically indexed local array
        // to memory, which made this loop cost seconds per frame for 3,000 bodies.
        out.edges_low = vec4<f32>(
            edge_distance(shape, 0u, last, local),
            edge_distance(shape, 1u, last, local),
            edge_distance(shape, 2u, last, local),
            edge_distance(shape, 3u, last, local),
        );
        out.edges_high = vec4<f32>(
            edge_distance(shape, 4u, last, local),
            edge_distance(shape, 5u, last, local),
            edge_distance(shape, 6u, last, local),
            edge_distance(shape, 7u, last, local),
        );
        out.is_circle = 0u;
    }
    var origin = vec2<f32>(instance.tx, instance.ty);
    var rotation = vec2<f32>(instance.c, instance.s);
    if camera.pose_source == POSE_FROM_TRANSFORMS {
        // The pieces are in the body's frame, which is what the transform places.
        let pose = transforms[body];
        origin = pose.origin;
        rotation = pose.rotation;
    }
    let world = vec2<f32>(
        rotation.x * local.x - rotation.y * local.y,
        rotation.y * local.x + rotation.x * local.y,
    ) + origin;
    out.clip = to_clip(world);

    var color: vec3<f32>;
    if (instance.shape & STATIC_BIT) != 0u {
        color = vec3<f32>(0.55, 0.56, 0.58);
    } else {
        let h = hash(body);
        let hue = f32(h & 0xffffu) / 65536.0;
        let value = 0.75 + 0.2 * f32((h >> 16u) & 0xffu) / 255.0;
        color = hsv(hue, 0.6, value);
    }
    if (instance.shape & SLEEPING_BIT) != 0u {
        // Asleep: the same hue, dimmed towards the background.
        color = mix(color, vec3<f32>(0.09, 0.10, 0.12), 0.55);
    }
    if body == camera.selected {
        color = mix(color, vec3<f32>(1.0), 0.6);
    }
    out.color = color;
    return out;
}

// Distances in world units to distances in pixels, through their screen-space gradient
// (exact for an affine value, unlike `fwidth`, which overestimates diagonals).
fn in_pixels(d: vec4<f32>) -> vec4<f32> {
    let dx = dpdx(d);
    let dy = dpdy(d);
    return d / max(sqrt(dx * dx + dy * dy), vec4<f32>(1e-6));
}

@fragment
fn fs_polygon(in: PolygonOut) -> @location(0) vec4<f32> {
    // Derivatives must be taken in uniform control flow: compute both readings, then pick.
    let m = min(in_pixels(in.edges_low), in_pixels(in.edges_high));
    let polygon = min(min(m.x, m.y), min(m.z, m.w));
    // For a circle: distance inside the rim, and from the spoke drawn from the centre along
    // the body's local x axis (it shows the circle roll), both in pixels. The offset is
    // affine in the screen position, so its gradient gives world units per pixel.
    let offset = in.edges_low.xy;
    let per_pixel = max(length(vec2<f32>(dpdx(offset.x), dpdy(offset.x))), 1e-6);
    let rim = (in.edges_low.z - length(offset)) / per_pixel;
    let spoke = select(abs(offset.y) / per_pixel, FAR, offset.x < 0.0);
    var d = polygon;
    if in.is_circle == 1u {
        if rim < 0.0 {
            discard;
        }
        d = min(rim, spoke);
    }
    let edge = 1.0 - smoothstep(0.25, 1.25, d);
    return output(mix(in.color, in.color * 0.35, edge));
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_line(@location(0) position: vec2<f32>, @location(1) color: vec4<f32>) -> LineOut {
    var out: LineOut;
    out.clip = to_clip(position);
    out.color = color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return output(in.color.rgb);
}
