// wgpu-sat stable radix sort of (key, value) items by key, eight bits a pass. The twin of
// src/broad_phase/radix_sort.rs, function for function (the reasons are there): per pass,
// radix_count counts each tile's digits into digit-major counts, the counts are scanned
// (scan.wgsl), and radix_scatter writes each tile's items of each digit in tile order from
// their start. No atomics decide a place: equal keys keep their order, on every adapter.

struct RadixParams {
    len: u32,
    shift: u32,
    tiles: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> radix_in: array<vec2<u32>>;
// counts[digit * tiles + tile]; radix_scatter reads them scanned: each run's start.
@group(0) @binding(1) var<storage, read_write> radix_counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> radix_out: array<vec2<u32>>;
@group(0) @binding(3) var<uniform> radix_params: RadixParams;

const RADIX_TILE: u32 = 256u;
const RADIX_DIGITS: u32 = 256u;

// The tile's digits (RADIX_DIGITS past the end: no digit).
var<workgroup> tile_digits: array<u32, 256>;
// radix_count: the tile's count of each digit. radix_scatter: per chunk of RADIX_CHUNK items,
// the count of each digit (chunk * RADIX_DIGITS + digit), then the count in earlier chunks.
// Workgroup atomics only count: a sum is the same whatever order the adds ran in.
var<workgroup> chunk_counts: array<atomic<u32>, 2048>;

// Items per chunk of a tile (RADIX_TILE / RADIX_CHUNK chunks).
const RADIX_CHUNK: u32 = 32u;

fn digit(key: u32, shift: u32) -> u32 {
    return (key >> shift) & (RADIX_DIGITS - 1u);
}

// The tile's count of each digit, counted in workgroup memory; invocation `lane` writes
// digit `lane`'s.
@compute @workgroup_size(256)
fn radix_count(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    atomicStore(&chunk_counts[lane], 0u);
    workgroupBarrier();
    let i = wg.x * RADIX_TILE + lane;
    if i < radix_params.len {
        atomicAdd(&chunk_counts[digit(radix_in[i].x, radix_params.shift)], 1u);
    }
    workgroupBarrier();
    radix_counts[lane * radix_params.tiles + wg.x] = atomicLoad(&chunk_counts[lane]);
}

// Each item written at its digit's start for this tile plus the items of its digit before
// it in the tile: those in earlier chunks (counted per chunk, summed per digit) and those
// before it in its own chunk (at most RADIX_CHUNK - 1 compared). So the tile's order is
// kept within a digit, and no two items meet in one place.
@compute @workgroup_size(256)
fn radix_scatter(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let chunks = RADIX_TILE / RADIX_CHUNK;
    for (var c = 0u; c < chunks; c = c + 1u) {
        atomicStore(&chunk_counts[c * RADIX_DIGITS + lane], 0u);
    }
    let i = wg.x * RADIX_TILE + lane;
    var d = RADIX_DIGITS;
    var item = vec2<u32>(0u, 0u);
    if i < radix_params.len {
        item = radix_in[i];
        d = digit(item.x, radix_params.shift);
    }
    tile_digits[lane] = d;
    workgroupBarrier();
    let chunk = lane / RADIX_CHUNK;
    if d < RADIX_DIGITS {
        atomicAdd(&chunk_counts[chunk * RADIX_DIGITS + d], 1u);
    }
    var rank = 0u;
    for (var k = chunk * RADIX_CHUNK; k < lane; k = k + 1u) {
        rank = rank + select(0u, 1u, tile_digits[k] == d);
    }
    workgroupBarrier();
    // Invocation `lane` turns digit `lane`'s chunk counts into counts before each chunk.
    var before = 0u;
    for (var c = 0u; c < chunks; c = c + 1u) {
        let count = atomicLoad(&chunk_counts[c * RADIX_DIGITS + lane]);
        atomicStore(&chunk_counts[c * RADIX_DIGITS + lane], before);
        before = before + count;
    }
    workgroupBarrier();
    if d < RADIX_DIGITS {
        let start = radix_counts[d * radix_params.tiles + wg.x];
        let earlier = atomicLoad(&chunk_counts[chunk * RADIX_DIGITS + d]);
        radix_out[start + earlier + rank] = item;
    }
}
