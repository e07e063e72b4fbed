// wgpu-sat sort-based sweep and prune: the broad phase on the GPU. The twin of
// src/broad_phase/sort_sweep.rs, function for function (the reasons are there): box_keys,
// the radix sort of the boxes by left edge (radix_sort.wgsl), gather_boxes, sweep_count,
// the scan of the counts (scan.wgsl), sweep_write, then pair_keys and two radix sorts to
// order the pairs by first box, then second, and gather_pairs. One invocation per box or
// per pair, no atomics: the pairs come out in the same order on every adapter.
//
// Each kernel binds at most four of the storage buffers below (the downlevel limit per
// stage), through a bind group layout of its own (src/gpu/broad_phase.rs).

struct SweepParams {
    // Boxes, or pairs for pair_keys and gather_pairs.
    len: u32,
    // pair_keys: which box of each pair is the key (0 first, 1 second).
    side: u32,
    // pair_keys: 1 when item k names pair k (the first sort's input).
    first: u32,
    _pad: u32,
}

// Boxes as (min.x, min.y, max.x, max.y), world frame, all finite (checked on the host).
@group(0) @binding(0) var<storage, read> boxes: array<vec4<f32>>;
// (key, box or pair index) items, sorted by radix_sort.wgsl between the kernels here.
@group(0) @binding(1) var<storage, read_write> items: array<vec2<u32>>;
// The boxes in left-edge order.
@group(0) @binding(2) var<storage, read_write> sorted: array<vec4<f32>>;
// Per sorted box its pair count, then (scanned) where its pairs start; counts[len] is the
// total once scanned.
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
// The pairs in walk order, and in their final order.
@group(0) @binding(4) var<storage, read_write> found: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> pairs_out: array<vec2<u32>>;
@group(0) @binding(6) var<uniform> sweep_params: SweepParams;

// The float's bits made to order as unsigned integers as the floats order.
fn sortable(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    if (bits & 0x80000000u) != 0u {
        return ~bits;
    }
    return bits | 0x80000000u;
}

// Whether the later box b (in left-edge order, starting at or left of a's right edge)
// overlaps a: the rest of the closed-box test.
fn overlaps_later(a: vec4<f32>, b: vec4<f32>) -> bool {
    return a.x <= b.z && a.y <= b.w && b.y <= a.w;
}

@compute @workgroup_size(256)
fn box_keys(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if p < sweep_params.len {
        items[p] = vec2<u32>(sortable(boxes[p].x), p);
    }
}

@compute @workgroup_size(256)
fn gather_boxes(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if p < sweep_params.len {
        sorted[p] = boxes[items[p].y];
    }
}

@compute @workgroup_size(256)
fn sweep_count(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    let len = sweep_params.len;
    if p == len {
        counts[len] = 0u;
    }
    if p >= len {
        return;
    }
    let a = sorted[p];
    var count = 0u;
    for (var q = p + 1u; q < len; q = q + 1u) {
        let b = sorted[q];
        if b.x > a.z {
            break;
        }
        count = count + select(0u, 1u, overlaps_later(a, b));
    }
    counts[p] = count;
}

@compute @workgroup_size(256)
fn sweep_write(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    let len = sweep_params.len;
    if p >= len {
        return;
    }
    let a = sorted[p];
    let i = items[p].y;
    var at = counts[p];
    for (var q = p + 1u; q < len; q = q + 1u) {
        let b = sorted[q];
        if b.x > a.z {
            break;
        }
        if overlaps_later(a, b) {
            let j = items[q].y;
            found[at] = vec2<u32>(min(i, j), max(i, j));
            at = at + 1u;
        }
    }
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
    items[k] = vec2<u32>(found[pair][sweep_params.side], pair);
}

@compute @workgroup_size(256)
fn gather_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < sweep_params.len {
        pairs_out[k] = found[items[k].y];
    }
}
