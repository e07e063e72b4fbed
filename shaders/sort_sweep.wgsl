// wgpu-sat sort-based sweep and prune in y bands: the broad phase on the GPU. The twin of
// src/broad_phase/sort_sweep.rs, function for function (the reasons are there): box_keys,
// the radix sort of the boxes by left edge (radix_sort.wgsl), band_spans, the scan of the
// spans (scan.wgsl), band_entries, the radix sort of the entries by band, gather_boxes,
// sweep_count, the scan of the counts, sweep_write, then pair_keys and one radix sort by
// (first box, second box) when both fit 32 bits, else two (by second box, then first), and
// gather_pairs; for the collision pipeline (src/gpu/collision/mod.rs), which keeps the pairs on
// the device, pair_args then writes the narrow phase's indirect dispatch from their count.
// One invocation per box, entry or pair, no atomics: the pairs come out in the same order
// on every adapter.
//
// The GPU world's collision stage, whose pairs the world's pair set on the device already
// holds, sweeps nothing: set_fresh flags the set's pairs the host's recycling pass sent to
// the narrow phase (a bit each), the scan of the flags, set_compact keeps them in the
// set's (ascending) order, and pair_args dispatches the narrow phase over them;
// hash_boxes (the one atomic: a sum of u32, the same in any order) sums a hash of every
// box for the host to hold to its own boxes'. Compiled with box_hash.wgsl after it.
//
// Each kernel binds at most four of the storage buffers below (the downlevel limit per
// stage), through a bind group layout of its own (src/gpu/broad_phase/passes.rs).

struct SweepParams {
    // Boxes, entries, or pairs for pair_keys and gather_pairs.
    len: u32,
    // pair_keys: the key: 0 the first box, 1 the second, 2 both (first << bits | second).
    side: u32,
    // pair_keys: 1 when item k names pair k (the first sort's input).
    first: u32,
    // pair_keys: bits of a box index.
    bits: u32,
    // The y bands (Bands in src/broad_phase/sweep.rs): band(y) = (y - origin) * inv_height
    // truncated, within 0..band_count.
    origin: f32,
    inv_height: f32,
    band_count: u32,
    // band_entries: how many entries there are (the host's count of the spans).
    entry_count: u32,
    // Room for pairs in `found` and `pairs_out`: sweep_write writes no pair past it, and
    // pair_keys, gather_pairs and pair_args take the first min(total, capacity) pairs. The
    // batch face reads the total back and sets it to the total; the collision pipeline
    // keeps the total on the GPU and sets it to the room it reserved (it reads the total
    // back with the contacts, and runs again with more room when it was short).
    capacity: u32,
    // pair_args: the most workgroups a dispatch has in one dimension (the device's limit):
    // past that many rows' worth, the narrow phase's dispatch takes more rows.
    row_groups: u32,
    _pad1: u32,
    _pad2: u32,
}

// What pair_args writes for the narrow phase's indirect dispatch (PairDispatchGpu in
// src/gpu/layout.rs): its workgroups, the pairs it takes, and the sweep's total.
struct PairDispatch {
    workgroups: vec3<u32>,
    pairs: u32,
    total: u32,
    // entry_total's: the band entries the boxes span, as scanned on the device.
    entries: u32,
    // The GPU world's recycling pass's hash of the fresh pairs (recycle.wgsl), copied in.
    fresh_hash: u32,
    // Then the hash of the manifolds merged on the device (recycle.wgsl), copied in.
    merge_hash: u32,
    // Then the hash of their warm starts matched on the device (recycle.wgsl), copied in.
    warm_hash: u32,
    // (48 bytes: rounded up to the vec3's 16-byte alignment.)
}

// Boxes as (min.x, min.y, max.x, max.y), world frame, all finite (checked on the host).
@group(0) @binding(0) var<storage, read> boxes: array<vec4<f32>>;
// (key, index) items: boxes in x order, then the (band, box) entries in band order.
@group(0) @binding(1) var<storage, read_write> items: array<vec2<u32>>;
// The boxes of the entries, in their order.
@group(0) @binding(2) var<storage, read_write> sorted: array<vec4<f32>>;
// Per box its band span, per entry its pair count; scanned: where its entries or pairs
// start, and counts[len] the total.
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
// The pairs in walk order, and in their final order.
@group(0) @binding(4) var<storage, read_write> found: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> pairs_out: array<vec2<u32>>;
@group(0) @binding(6) var<uniform> sweep_params: SweepParams;
// band_entries' output: (band, box), in x order.
@group(0) @binding(7) var<storage, read_write> entries: array<vec2<u32>>;
// pair_args' output: an indirect dispatch of the narrow phase over the pairs.
@group(0) @binding(8) var<storage, read_write> pair_dispatch: PairDispatch;
// hash_boxes' sum, zeroed by the host before the dispatch.
@group(0) @binding(9) var<storage, read_write> boxes_hash: array<atomic<u32>>;
// set_fresh: a bit per pair of the set, 32 to a word, the low bit first.
@group(0) @binding(10) var<storage, read> fresh_bits: array<u32>;

// Invocations per workgroup of the narrow phase's collide_pairs (sat_pass.wgsl).
const NARROW_WORKGROUP: u32 = 64u;

// The float's bits made to order as unsigned integers as the floats order.
fn sortable(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    if (bits & 0x80000000u) != 0u {
        return ~bits;
    }
    return bits | 0x80000000u;
}

// The band of height y: as Bands::band, truncated within 0..band_count (clamped as a float
// first, so the conversion never leaves u32).
fn band(y: f32) -> u32 {
    let last = sweep_params.band_count - 1u;
    let x = max((y - sweep_params.origin) * sweep_params.inv_height, 0.0);
    return u32(min(x, f32(last)));
}

// Whether the later box b (in x order, in the band of a's entry, starting at or left of a's
// right edge) overlaps a, and band `here` is the one that reports them: the one holding the
// higher of their bottoms.
fn pairs_here(a: vec4<f32>, b: vec4<f32>, here: u32) -> bool {
    return a.x <= b.z && a.y <= b.w && b.y <= a.w && band(max(a.y, b.y)) == here;
}

@compute @workgroup_size(256)
fn box_keys(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if p < sweep_params.len {
        items[p] = vec2<u32>(sortable(boxes[p].x), p);
    }
}

@compute @workgroup_size(256)
fn band_spans(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    let len = sweep_params.len;
    if p == len {
        counts[len] = 0u;
    }
    if p < len {
        let b = boxes[items[p].y];
        counts[p] = band(b.w) - band(b.y) + 1u;
    }
}

@compute @workgroup_size(256)
fn band_entries(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if p >= sweep_params.len {
        return;
    }
    let i = items[p].y;
    let b = boxes[i];
    let high = band(b.w);
    var at = counts[p];
    for (var k = band(b.y); k <= high; k = k + 1u) {
        // Never past the host's count (which the same arithmetic gave).
        if at < sweep_params.entry_count {
            entries[at] = vec2<u32>(k, i);
        }
        at = at + 1u;
    }
}

// One invocation, between band_entries and the sort by band (the spans' scan still in
// counts): the entries the boxes span, for the host to hold against the count it sized
// the sweep for. They differ only when the boxes are not the host's (placed on the device,
// shaders/place.wgsl, by an adapter that rounds otherwise); pair_args leaves the word be.
@compute @workgroup_size(256)
fn entry_total(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x == 0u {
        pair_dispatch.entries = counts[sweep_params.len];
    }
}

@compute @workgroup_size(256)
fn gather_boxes(@builtin(global_invocation_id) id: vec3<u32>) {
    let e = id.x;
    if e < sweep_params.len {
        sorted[e] = boxes[items[e].y];
    }
}

@compute @workgroup_size(256)
fn sweep_count(@builtin(global_invocation_id) id: vec3<u32>) {
    let e = id.x;
    let len = sweep_params.len;
    if e == len {
        counts[len] = 0u;
    }
    if e >= len {
        return;
    }
    let a = sorted[e];
    let here = items[e].x;
    var count = 0u;
    for (var q = e + 1u; q < len; q = q + 1u) {
        let b = sorted[q];
        if items[q].x != here || b.x > a.z {
            break;
        }
        count = count + select(0u, 1u, pairs_here(a, b, here));
    }
    counts[e] = count;
}

@compute @workgroup_size(256)
fn sweep_write(@builtin(global_invocation_id) id: vec3<u32>) {
    let e = id.x;
    let len = sweep_params.len;
    if e >= len {
        return;
    }
    let a = sorted[e];
    let here = items[e].x;
    let i = items[e].y;
    var at = counts[e];
    for (var q = e + 1u; q < len; q = q + 1u) {
        let b = sorted[q];
        let entry = items[q];
        if entry.x != here || b.x > a.z {
            break;
        }
        if pairs_here(a, b, here) {
            let j = entry.y;
            if at < sweep_params.capacity {
                found[at] = vec2<u32>(min(i, j), max(i, j));
            }
            at = at + 1u;
        }
    }
}

// How many pairs `found` holds: the sweep's total (the last scanned count), within the room.
fn found_pairs() -> u32 {
    return min(counts[sweep_params.entry_count], sweep_params.capacity);
}

@compute @workgroup_size(256)
fn pair_keys(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sweep_params.len {
        return;
    }
    var pair = k;
    if sweep_params.first == 0u {
        pair = items[k].y;
    }
    // Past the pairs (the room beyond the total): the largest key, so they sort last and
    // stay after the pairs of the same key (the sort is stable).
    if pair >= found_pairs() {
        items[k] = vec2<u32>(0xffffffffu, pair);
        return;
    }
    let ends = found[pair];
    var key = ends.x << sweep_params.bits | ends.y;
    if sweep_params.side < 2u {
        key = ends[sweep_params.side];
    }
    items[k] = vec2<u32>(key, pair);
}

@compute @workgroup_size(256)
fn gather_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < sweep_params.len {
        pairs_out[k] = found[items[k].y];
    }
}

// One invocation: the narrow phase's indirect dispatch over the pairs found.
@compute @workgroup_size(256)
fn pair_args(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x != 0u {
        return;
    }
    let pairs = found_pairs();
    let groups = (pairs + NARROW_WORKGROUP - 1u) / NARROW_WORKGROUP;
    let row = sweep_params.row_groups;
    // One row while it reaches; else full rows (the last one's invocations past the pairs
    // return at once).
    let rows = (groups + row - 1u) / row;
    pair_dispatch.workgroups = vec3<u32>(select(row, groups, rows <= 1u), max(rows, 1u), 1u);
    pair_dispatch.pairs = pairs;
    pair_dispatch.total = counts[sweep_params.entry_count];
}

// The pairs of a given set (in `found`, ascending) that the host marked fresh: the flags
// (counts[k] for pair k; counts[len] = 0 for the scan's total).
@compute @workgroup_size(256)
fn set_fresh(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let len = sweep_params.len;
    if k == len {
        counts[len] = 0u;
    }
    if k < len {
        counts[k] = (fresh_bits[k / 32u] >> (k % 32u)) & 1u;
    }
}

// After the scan of set_fresh's flags: each flagged pair at its place in `pairs_out`,
// the set's order kept.
@compute @workgroup_size(256)
fn set_compact(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < sweep_params.len && counts[k + 1u] != counts[k] {
        pairs_out[counts[k]] = found[k];
    }
}

// The workgroup's share of hash_boxes' sum, added to boxes_hash[0] once.
var<workgroup> group_sum: atomic<u32>;

// The wrapping sum of box_hash over the len boxes, into boxes_hash[0].
@compute @workgroup_size(256)
fn hash_boxes(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&group_sum, 0u);
    }
    workgroupBarrier();
    if id.x < sweep_params.len {
        atomicAdd(&group_sum, box_hash(id.x, bitcast<vec4<u32>>(boxes[id.x])));
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&boxes_hash[0], atomicLoad(&group_sum));
    }
}
