// wgpu-sat GPU data layouts, for the narrow-phase kernel and for hosts that read its
// buffers in their own shaders (prepend this file to yours; WGSL has no include).
//
// Every struct has a #[repr(C)] mirror in src/gpu/layout.rs with a compile-time size check.
// The buffers of a GpuNarrowPhase, bound read-only by a host:
//   shapes_buffer()          array<Shape>     the shape table, as set by set_shape_table
//   poses_buffer()           array<Pose>      one per collider, this step's poses
//   collider_shapes_buffer() array<u32>      words [0, collider count): each collider's
//                                             shape index (pairs follow; ignore them)
//   contacts_buffer()        ContactList      the overlapping pairs, in no particular order
//   touching_buffer()        array<u32>       per collider, how many contacts it is in
//                                             (filled by `record`)
// Frames and signs: shapes are in their local frames, poses map local to world
// (world = rotation * local + translation, rotation = (cos, sin)); contact normals point
// from the pair's first collider to its second, in the world frame; depths are positive.

const MAX_POLYGON_VERTICES: u32 = 8u;
// The id of an unused second contact point (NO_POINT in src/gpu/layout.rs).
const NO_POINT: u32 = 0xffffffffu;

// A shape of the table. A convex polygon: `count` 3 to 8, counter-clockwise, slots past
// `count` repeat vertex 0 and normal 0, `radius` its centroid-to-vertex length. A circle:
// `count` 1, its centre (local frame) in every vertex slot, zero normals, its radius in
// `radius` and `rounding`. Capsules, segments and rounded polygons (kind 1) and chain links
// (kind 2): a core of 2 to 8 vertices grown by `rounding`, `radius` the core's length
// scale; a chain link holds its ghost vertices in vertex slots 2 and 3.
struct Shape {
    vertices: array<vec2<f32>, 8>,
    normals: array<vec2<f32>, 8>,
    count: u32,
    radius: f32,
    // The rounding radius of the rounded path (a circle's radius; 0 when sharp).
    rounding: f32,
    // KIND_SHARP, KIND_ROUNDED or KIND_CHAIN (src/gpu/layout.rs).
    kind: u32,
}

// Shape::kind (KIND_SHARP, KIND_ROUNDED, KIND_CHAIN in src/gpu/layout.rs): which narrow
// phase, and which ray cast, a shape takes.
const KIND_SHARP: u32 = 0u;
const KIND_ROUNDED: u32 = 1u;
const KIND_CHAIN: u32 = 2u;

// A rigid transform; rotation = (cos, sin).
struct Pose {
    translation: vec2<f32>,
    rotation: vec2<f32>,
}

struct ContactPointOut {
    point: vec2<f32>,
    depth: f32,
    id: u32,
}

// One overlapping pair: `pair` indexes the pairs given to prepare / collide_pairs.
struct ContactOut {
    normal: vec2<f32>,
    depth: f32,
    pair: u32,
    points: array<ContactPointOut, 2>,
}

// The contact buffer: `count` records (never more than the pairs).
struct ContactList {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    records: array<ContactOut>,
}
