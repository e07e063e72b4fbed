//! Exclusive prefix sums of `u32` counts, tile by tile, as `shaders/scan.wgsl` computes
//! them on the GPU: this file is its twin, function for function, and the reference the
//! tests hold it to.
//!
//! ```text
//! exclusive_scan(data):                       data[i] = sum of data[..i], in place
//!     one tile (len <= SCAN_TILE): scan_tiles(data, base 0)
//!     else:
//!         scan_reduce: sums[t] = sum of tile t of data        (one workgroup per tile)
//!         exclusive_scan(sums)                                 (the level above)
//!         scan_tiles: each tile scanned from its base sums[t]  (one workgroup per tile)
//! ```
//!
//! Reduce-then-scan, one dispatch per level and stage, rather than a single pass with
//! decoupled look-back: WGSL promises no forward progress between workgroups, so a
//! workgroup waiting on another's tile may wait forever (on lavapipe, whose few threads run
//! the workgroups, it would hang). Three levels cover 16.7 million counts. Sums wrap as
//! `u32` on both sides; the callers' totals stay far below that.

/// Counts per tile: one per invocation of a 256-wide workgroup.
pub(crate) const SCAN_TILE: usize = 256;

/// Sums of each tile of `data`: `sums[t]` is the sum of `data[t * SCAN_TILE..]`'s first
/// `SCAN_TILE` entries (fewer for the last tile).
pub(crate) fn scan_reduce(data: &[u32], sums: &mut [u32]) {
    for (sum, tile) in sums.iter_mut().zip(data.chunks(SCAN_TILE)) {
        *sum = tile.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    }
}

/// Each tile `t` of `data` replaced by its exclusive prefix sums, starting from `bases[t]`
/// (the exclusive prefix of the tile sums, from the level above).
pub(crate) fn scan_tiles(data: &mut [u32], bases: &[u32]) {
    for (tile, &base) in data.chunks_mut(SCAN_TILE).zip(bases) {
        let mut running = base;
        for x in tile {
            let count = *x;
            *x = running;
            running = running.wrapping_add(count);
        }
    }
}

/// The tiles of `len` counts.
pub(crate) fn scan_tile_count(len: usize) -> usize {
    len.div_ceil(SCAN_TILE)
}

/// `data` replaced by its exclusive prefix sums, through the levels the GPU runs.
pub(crate) fn exclusive_scan(data: &mut [u32]) {
    let tiles = scan_tile_count(data.len());
    if tiles <= 1 {
        scan_tiles(data, &[0]);
        return;
    }
    let mut sums = vec![0u32; tiles];
    scan_reduce(data, &mut sums);
    exclusive_scan(&mut sums);
    scan_tiles(data, &sums);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain running sum, written independently of the tiles.
    fn running(data: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(data.len());
        let mut sum = 0u32;
        for &x in data {
            out.push(sum);
            sum = sum.wrapping_add(x);
        }
        out
    }

    #[test]
    fn the_levels_give_the_running_sum() {
        // Lengths around each tile and level boundary, with counts that vary.
        for len in [0, 1, 255, 256, 257, 511, 65_535, 65_536, 65_537, 70_001] {
            let data: Vec<u32> = (0..len as u32).map(|i| (i * 7 + 3) % 11).collect();
            let mut scanned = data.clone();
            exclusive_scan(&mut scanned);
            assert_eq!(scanned, running(&data), "length {len}");
        }
    }
}
