// wgpu-sat exclusive prefix sums of u32 counts, tile by tile: reduce-then-scan, one
// dispatch per level and stage. The twin of src/broad_phase/scan.rs, function for function
// (the reasons are there): scan_reduce sums each tile into the level above; once that level
// is scanned, scan_tiles scans each tile from its base. Integer sums wrap alike on both
// sides, so the results are equal to the bit whatever the order of the additions.

struct ScanParams {
    len: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// The counts of this level, scanned in place by scan_tiles.
@group(0) @binding(0) var<storage, read_write> scan_data: array<u32>;
// One per tile: written by scan_reduce, read (scanned by the level above) by scan_tiles.
@group(0) @binding(1) var<storage, read_write> scan_sums: array<u32>;
@group(0) @binding(2) var<uniform> scan_params: ScanParams;

const SCAN_TILE: u32 = 256u;

var<workgroup> scan_tile: array<u32, 256>;

// Count `i` of this level, 0 past its end (so a short last tile sums and scans as a full one).
fn count_at(i: u32) -> u32 {
    if i < scan_params.len {
        return scan_data[i];
    }
    return 0u;
}

// Sum of tile wg.x of scan_data into scan_sums[wg.x]: a tree over the workgroup.
@compute @workgroup_size(256)
fn scan_reduce(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = wg.x * SCAN_TILE + lane;
    let x = count_at(i);
    scan_tile[lane] = x;
    workgroupBarrier();
    for (var stride = SCAN_TILE / 2u; stride > 0u; stride = stride / 2u) {
        if lane < stride {
            scan_tile[lane] = scan_tile[lane] + scan_tile[lane + stride];
        }
        workgroupBarrier();
    }
    if lane == 0u {
        scan_sums[wg.x] = scan_tile[0];
    }
}

// Tile wg.x of scan_data replaced by its exclusive prefix sums from scan_sums[wg.x]: an
// inclusive Hillis-Steele scan over the workgroup, less each invocation's own count.
@compute @workgroup_size(256)
fn scan_tiles(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = wg.x * SCAN_TILE + lane;
    let x = count_at(i);
    scan_tile[lane] = x;
    workgroupBarrier();
    for (var offset = 1u; offset < SCAN_TILE; offset = offset * 2u) {
        var v = scan_tile[lane];
        if lane >= offset {
            v = v + scan_tile[lane - offset];
        }
        workgroupBarrier();
        scan_tile[lane] = v;
        workgroupBarrier();
    }
    if i < scan_params.len {
        scan_data[i] = scan_sums[wg.x] + scan_tile[lane] - x;
    }
}
