// wgpu-sat persistent pairs on the GPU: the set of pairs whose fat boxes overlap and whose
// filters accept each other stays on the device from update to update, and only its
// changes come back. The twin of src/broad_phase/persistent.rs, function for function (the
// reasons are there): after the sweep's pairs (sort_sweep.wgsl) over the fat boxes,
// keep_flags, the scan of the flags (scan.wgsl), compact_pairs into the new set; then
// change_flags of the new set against the old, scan, compact_pairs (the begun pairs), and
// of the old set against the new, scan, compact_pairs (the ended pairs). scatter_fat
// writes the fat boxes that changed where they belong, before the sweep.
//
// For the GPU world, fatten grows the fat boxes on the device itself, from the boxes the
// collision stage placed there (place.wgsl): the twin of fatten in
// src/broad_phase/pair_set/mod.rs, over the colliders it placed; scatter_fat then writes
// only what the host alone knows (a removed collider's box). hash_fat sums a hash of every
// fat box (box_hash.wgsl), which the host holds to its own fat boxes' (gpu/broad_phase/
// persistent/boxes.rs). Compiled after box_hash.wgsl.
//
// One invocation per pair or box. No atomics but hash_fat's, whose sum of u32 is the same
// in any order: the lists are the twin's to the element.

struct PairSetParams {
    // Items this dispatch takes: found pairs (keep_flags, compact_pairs), a set's pairs
    // (change_flags), fat box updates (scatter_fat).
    len: u32,
    // change_flags: pairs in the old set (the host knows them from the last update).
    old_count: u32,
    // change_flags: where the new set's size is: kept[found], the found pairs' scanned
    // flags past the last.
    found: u32,
    // change_flags: 0 checks the new set against the old, 1 the old against the new.
    side: u32,
    // keep_flags: the kept-apart body pairs in `apart`.
    apart: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// A collider's filter (PairFilterGpu in src/gpu/layout.rs): 64-bit category and mask as
// (low, high) words, the group, the body (colliders of one body never pair), and the
// body's type and the sensor flag (`kind`: PAIR_DYNAMIC, PAIR_KINEMATIC, PAIR_SENSOR).
struct PairFilter {
    category: vec2<u32>,
    mask: vec2<u32>,
    group: i32,
    body: u32,
    kind: u32,
    _pad0: u32,
}

// PairFilter::kind's bits (PAIR_DYNAMIC, PAIR_KINEMATIC, PAIR_SENSOR in src/gpu/layout.rs);
// a body neither dynamic nor kinematic is static.
const PAIR_DYNAMIC: u32 = 1u;
const PAIR_KINEMATIC: u32 = 2u;
const PAIR_SENSOR: u32 = 4u;

// A fat box written by scatter_fat: the collider, then the box (min, max).
struct FatUpdate {
    index: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    aabb: vec4<f32>,
}

// Pairs read: the found pairs, or a set's.
@group(0) @binding(0) var<storage, read> items: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> filters: array<PairFilter>;
// Per item a flag; scanned in place: where the flagged items go, and flags[len] their count.
@group(0) @binding(2) var<storage, read_write> flags: array<u32>;
@group(0) @binding(3) var<storage, read_write> compacted: array<vec2<u32>>;
// change_flags: the set searched.
@group(0) @binding(4) var<storage, read> other: array<vec2<u32>>;
// change_flags: the found pairs' scanned keep flags (for the new set's size).
@group(0) @binding(5) var<storage, read> kept: array<u32>;
@group(0) @binding(6) var<uniform> pair_set_params: PairSetParams;
@group(0) @binding(7) var<storage, read> fat_updates: array<FatUpdate>;
// The broad phase's boxes: the fat boxes, as the sweep reads them.
@group(0) @binding(8) var<storage, read_write> fat_boxes: array<vec4<f32>>;
// keep_flags: the body pairs that never pair (a joint keeps them apart), ascending.
@group(0) @binding(9) var<storage, read> apart: array<vec2<u32>>;
// fatten: the boxes the collision stage placed (min, max; grown by half the speculative
// distance, the world's broad-phase boxes), and per collider its body's slot or UNPLACED.
@group(0) @binding(10) var<storage, read> placed_boxes: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read> placed_owners: array<u32>;
// hash_fat: the sum of the fat boxes' hashes, zeroed by the host before the dispatch.
@group(0) @binding(12) var<storage, read_write> fat_hash: array<atomic<u32>>;

// FAT_MARGIN (src/broad_phase/pair_set/mod.rs): how far a fat box reaches past the tight one.
const FAT_MARGIN: f32 = 0.1;
// place.wgsl's UNPLACED: a removed collider, whose fat box the host sends.
const UNPLACED: u32 = 0xffffffffu;

// A collider's filter of its record, for should_collide (filter.wgsl).
fn filter_of(a: PairFilter) -> CollisionFilter {
    return CollisionFilter(a.category, a.mask, a.group);
}

// filter::types_pair: one body dynamic, or a sensor among the two and a kinematic body.
fn types_pair(a: u32, b: u32, sensor: bool) -> bool {
    let either = a | b;
    return (either & PAIR_DYNAMIC) != 0u || (sensor && (either & PAIR_KINEMATIC) != 0u);
}

fn keep_pair(a: PairFilter, b: PairFilter) -> bool {
    let sensors = (a.kind & b.kind & PAIR_SENSOR) != 0u;
    let sensor = ((a.kind | b.kind) & PAIR_SENSOR) != 0u;
    let bodies = vec2<u32>(min(a.body, b.body), max(a.body, b.body));
    return a.body != b.body && types_pair(a.kind, b.kind, sensor) && !sensors
        && should_collide(filter_of(a), filter_of(b)) && !apart_holds(bodies);
}

// holds() over the kept-apart body pairs: the same lower-bound search, written twice since
// a WGSL function cannot take a storage array as an argument (without a language extension
// not every adapter has).
fn apart_holds(pair: vec2<u32>) -> bool {
    var low = 0u;
    var high = pair_set_params.apart;
    while low < high {
        let mid = (low + high) / 2u;
        if pair_below(apart[mid], pair) {
            low = mid + 1u;
        } else {
            high = mid;
        }
    }
    return low < pair_set_params.apart && all(apart[low] == pair);
}

@compute @workgroup_size(256)
fn scatter_fat(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < pair_set_params.len {
        let update = fat_updates[k];
        fat_boxes[update.index] = update.aabb;
    }
}

// Aabb::contains: `inner` lies within `outer` (closed boxes; false with a NaN).
fn contains(outer: vec4<f32>, inner: vec4<f32>) -> bool {
    return outer.x <= inner.x && outer.y <= inner.y && inner.z <= outer.z && inner.w <= outer.w;
}

// Aabb::expanded: the box grown by `margin` on every side.
fn expanded(b: vec4<f32>, margin: f32) -> vec4<f32> {
    return vec4<f32>(b.xy - vec2<f32>(margin), b.zw + vec2<f32>(margin));
}

// fatten over the placed colliders (len: the colliders; old_count: those the device's fat
// boxes held before, so that a new collider's box, whatever the buffer held there, is
// grown): a collider whose fat box no longer holds its placed box gets that box grown by
// FAT_MARGIN. An unplaced one keeps what the host sent.
@compute @workgroup_size(256)
fn fatten(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if c >= pair_set_params.len || placed_owners[c] == UNPLACED {
        return;
    }
    let tight = placed_boxes[c];
    if c >= pair_set_params.old_count || !contains(fat_boxes[c], tight) {
        fat_boxes[c] = expanded(tight, FAT_MARGIN);
    }
}

// The workgroup's share of hash_fat's sum, added to fat_hash[0] once.
var<workgroup> group_hash: atomic<u32>;

// The wrapping sum of box_hash (box_hash.wgsl) over the len fat boxes, into fat_hash[0].
@compute @workgroup_size(256)
fn hash_fat(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&group_hash, 0u);
    }
    workgroupBarrier();
    if id.x < pair_set_params.len {
        atomicAdd(&group_hash, box_hash(id.x, bitcast<vec4<u32>>(fat_boxes[id.x])));
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&fat_hash[0], atomicLoad(&group_hash));
    }
}

@compute @workgroup_size(256)
fn keep_flags(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let len = pair_set_params.len;
    if k == len {
        flags[len] = 0u;
    }
    if k < len {
        let pair = items[k];
        flags[k] = select(0u, 1u, keep_pair(filters[pair.x], filters[pair.y]));
    }
}

@compute @workgroup_size(256)
fn compact_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < pair_set_params.len && flags[k + 1u] > flags[k] {
        compacted[flags[k]] = items[k];
    }
}

// Whether pair p comes before q: by first collider, then second.
fn pair_below(p: vec2<u32>, q: vec2<u32>) -> bool {
    return p.x < q.x || (p.x == q.x && p.y < q.y);
}

// Whether the first `count` pairs of `other` (ascending) hold `pair`: a lower bound.
fn holds(count: u32, pair: vec2<u32>) -> bool {
    var low = 0u;
    var high = count;
    while low < high {
        let mid = (low + high) / 2u;
        if pair_below(other[mid], pair) {
            low = mid + 1u;
        } else {
            high = mid;
        }
    }
    return low < count && all(other[low] == pair);
}

@compute @workgroup_size(256)
fn change_flags(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let len = pair_set_params.len;
    let new_count = kept[pair_set_params.found];
    // Side 0: the items are the new set (len is the found pairs, a bound on its size);
    // side 1: the old set.
    var count = new_count;
    var other_count = pair_set_params.old_count;
    if pair_set_params.side == 1u {
        count = pair_set_params.old_count;
        other_count = new_count;
    }
    if k == len {
        flags[len] = 0u;
    }
    if k < len {
        flags[k] = select(0u, 1u, k < count && !holds(other_count, items[k]));
    }
}
