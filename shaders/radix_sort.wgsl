// wgpu-sat stable radix sort of (key, value) items by key, eight bits a pass. The twin of
// src/broad_phase/radix_sort.rs, function for function (the reasons are there): per pass,
// radix_count counts each tile's digits into digit-major counts, the counts are scanned
// (scan.wgsl), and radix_scatter writes each tile's items of each digit in tile order from
// their start. No atomics: equal keys keep their order, on every adapter.

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

// The tile's digits (RADIX_DIGITS past the end: no digit) and items.
var<workgroup> tile_digits: array<u32, 256>;
var<workgroup> tile_items: array<vec2<u32>, 256>;

fn digit(key: u32, shift: u32) -> u32 {
    return (key >> shift) & (RADIX_DIGITS - 1u);
}

// Invocation `lane` counts the tile's items whose digit is `lane`.
@compute @workgroup_size(256)
fn radix_count(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = wg.x * RADIX_TILE + lane;
    var d = RADIX_DIGITS;
    if i < radix_params.len {
        d = digit(radix_in[i].x, radix_params.shift);
    }
    tile_digits[lane] = d;
    workgroupBarrier();
    var count = 0u;
    for (var k = 0u; k < RADIX_TILE; k = k + 1u) {
        count = count + select(0u, 1u, tile_digits[k] == lane);
    }
    radix_counts[lane * radix_params.tiles + wg.x] = count;
}

// Invocation `lane` writes the tile's items whose digit is `lane`, in tile order, from
// that digit's start for this tile.
@compute @workgroup_size(256)
fn radix_scatter(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = wg.x * RADIX_TILE + lane;
    var d = RADIX_DIGITS;
    var item = vec2<u32>(0u, 0u);
    if i < radix_params.len {
        item = radix_in[i];
        d = digit(item.x, radix_params.shift);
    }
    tile_digits[lane] = d;
    tile_items[lane] = item;
    workgroupBarrier();
    var at = radix_counts[lane * radix_params.tiles + wg.x];
    for (var k = 0u; k < RADIX_TILE; k = k + 1u) {
        if tile_digits[k] == lane {
            radix_out[at] = tile_items[k];
            at = at + 1u;
        }
    }
}
