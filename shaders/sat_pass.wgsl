// wgpu-sat narrow-phase pass: the bindings and the two entry points of GpuNarrowPhase
// (src/gpu/sat_pass.rs, its host side).
//
// Compiled last, after layout.wgsl, transform.wgsl, sat.wgsl, sat_circle.wgsl and
// sat_rounded.wgsl, which hold the pair tests as functions with no binding of their own, so
// that another kernel (the time of impact's, toi.wgsl) can take them with its own bindings:
//
//   collide_pairs:   one invocation per pair: collide_shapes_speculative, flip a pair the
//                    host swapped back, append the manifold of an overlapping pair
//   count_touching:  one invocation per contact record: count its two colliders
//
// SHARP_ONLY: the host builds collide_pairs twice, and dispatches the one with SHARP_ONLY
// set when its shape table holds only sharp polygons and circles. Set, the router and the
// rounded path are dead code that the driver's compiler removes: a polygon-only batch then
// pays nothing for the shapes it does not have (on lavapipe the rounded branch, although
// no lane took it, made such a batch slower; docs/performance.md has the figures).

// Whether every shape of the table is a sharp polygon or a circle (KIND_SHARP).
override SHARP_ONLY: bool = false;

// Set for the collision pipeline (src/gpu/collision/mod.rs), whose pairs the broad phase wrote
// on the GPU, ascending and unmarked: the kernel itself puts the polygon of a circle–polygon
// pair first (the host's batch path marks such pairs SWAPPED when it uploads them).
override ORIENT_ON_DEVICE: bool = false;

// Set in the first word of a pair the host wrote polygon first (SWAPPED in
// src/gpu/layout.rs): the pair was given circle first.
const SWAPPED: u32 = 0x80000000u;

struct Params {
    pair_count: u32,
    // Word offset of the first pair in `indices`; words before it are collider shape ids.
    pair_offset: u32,
    contact_capacity: u32,
    // NarrowPhase::set_speculative_distance: pairs apart by less get a manifold too.
    speculative_distance: f32,
}

// The contact buffer as the kernel writes it: the same bytes as `ContactList` in
// layout.wgsl, with an atomic count for appending.
struct Contacts {
    count: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    records: array<ContactOut>,
}

@group(0) @binding(0) var<storage, read> shapes: array<Shape>;
@group(0) @binding(1) var<storage, read> poses: array<Pose>;
// [shape index of collider 0 .. n) followed by the pairs as (a, b) words.
@group(0) @binding(2) var<storage, read> indices: array<u32>;
@group(0) @binding(3) var<storage, read_write> contacts: Contacts;
@group(0) @binding(4) var<uniform> params: Params;
// Per collider: how many contacts it is in (the `count_touching` pass).
@group(0) @binding(5) var<storage, read_write> touching: array<atomic<u32>>;
// Per contact record, its pair's two colliders (the `contact_ends` pass: the collision
// pipeline's host holds no pairs to name a record's pair by).
@group(0) @binding(6) var<storage, read_write> ends: array<vec2<u32>>;

// An invocation's place in a dispatch of rows of 64-wide workgroups: its row, then its
// column.
fn invocation_index(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.y * groups.x * 64u + id.x;
}

@compute @workgroup_size(64)
fn collide_pairs(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    // Rows of workgroups when the collision pipeline's pairs outnumber one row's reach
    // (pair_args in sort_sweep.wgsl); the batch path dispatches one row.
    let pair = invocation_index(id, groups);
    if (pair >= params.pair_count) {
        return;
    }
    // False: no batch has 2^32 - 1 pairs; see keep() in transform.wgsl.
    keep_flag = params.pair_count == 0xffffffffu;
    // A circle–polygon pair comes polygon first, marked SWAPPED by the host: tested in the
    // polygon's frame (as collide_circle_polygon does on the CPU) and flipped back. Pairs
    // with a capsule, a segment, a rounded polygon or a chain link branch off to
    // sat_rounded.wgsl inside collide_shapes_speculative.
    let word = indices[params.pair_offset + 2u * pair];
    var swapped = (word & SWAPPED) != 0u;
    var a = word & ~SWAPPED;
    var b = indices[params.pair_offset + 2u * pair + 1u];
    if (ORIENT_ON_DEVICE && circle_before_polygon(shapes[indices[a]], shapes[indices[b]])) {
        swapped = true;
        let first = a;
        a = b;
        b = first;
    }
    let shape_a = shapes[indices[a]];
    let shape_b = shapes[indices[b]];
    var m: Manifold;
    if (SHARP_ONLY) {
        m = collide_within(shape_a, poses[a], shape_b, poses[b], params.speculative_distance);
    } else {
        m = collide_shapes_speculative(shape_a, poses[a], shape_b, poses[b], params.speculative_distance);
    }
    if (m.count == 0u) {
        return;
    }
    if (swapped) {
        m = flip_manifold(m);
    }
    // Compaction: overlapping pairs append; the host restores pair order by `pair`.
    let slot = atomicAdd(&contacts.count, 1u);
    if (slot < params.contact_capacity) {
        contacts.records[slot] = ContactOut(m.normal, m.depth, pair, m.points);
    }
}

// The second pass of `GpuNarrowPhase::record`: one invocation per contact record counts the
// record's two colliders in `touching` (cleared by the host before the pass). A pass of its
// own, so that each pass binds at most 4 storage buffers (the downlevel limit).
@compute @workgroup_size(64)
fn count_touching(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= min(atomicLoad(&contacts.count), params.contact_capacity)) {
        return;
    }
    let pair = contacts.records[k].pair;
    atomicAdd(&touching[indices[params.pair_offset + 2u * pair] & ~SWAPPED], 1u);
    atomicAdd(&touching[indices[params.pair_offset + 2u * pair + 1u]], 1u);
}

// The collision pipeline's last pass: one invocation per contact record writes its pair's
// two colliders, as the pair was given (first, second), for the host to read back with the
// records. A pass of its own, binding four storage buffers as count_touching does.
@compute @workgroup_size(64)
fn contact_ends(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = invocation_index(id, groups);
    if (k >= min(atomicLoad(&contacts.count), params.contact_capacity)) {
        return;
    }
    let pair = contacts.records[k].pair;
    let a = indices[params.pair_offset + 2u * pair] & ~SWAPPED;
    ends[k] = vec2<u32>(a, indices[params.pair_offset + 2u * pair + 1u]);
}
