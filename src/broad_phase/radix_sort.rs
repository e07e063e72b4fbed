//! A stable least-significant-digit radix sort of `(key, value)` items by key, eight bits a
//! pass, as `shaders/radix_sort.wgsl` runs it on the GPU: this file is its twin, function
//! for function.
//!
//! ```text
//! radix_sort(items, bits):                    by the low `bits` bits of each key, stably
//!     per pass, shift = 0, 8, 16, ... below bits:
//!         radix_count:    per tile of RADIX_TILE items, how many have each digit
//!                         -> counts[digit * tiles + tile]           (digit-major)
//!         exclusive_scan(counts)  (scan.rs): where each (digit, tile) run starts
//!         radix_scatter:  per tile, each digit's items in tile order from its start
//!         the output is the next pass's input
//! ```
//!
//! Why no atomic decides a place: an `atomicAdd` per item into a global cursor would place
//! equal keys in whatever order the invocations ran, so the sort would be neither stable
//! nor the same from run to run. Here each item's place follows from counts in item order
//! (digit-major counts make one scan give every tile of every digit its start), so equal
//! keys keep their order, and every adapter and this twin agree to the item. On the GPU a
//! tile's counts are summed with workgroup atomics (a sum is the same in any order), and an
//! item's place among its digit's items of the tile is the count in the chunks of 32 before
//! its own plus the count before it in its chunk (at most 31 compared): the order is the
//! tile's, as here, where one walk advances a cursor per digit.

use crate::broad_phase::scan::exclusive_scan;

/// Items per tile, and invocations per workgroup: one per digit value.
pub(crate) const RADIX_TILE: usize = 256;
/// Bits per pass.
pub(crate) const RADIX_BITS: u32 = 8;
/// Digit values per pass.
pub(crate) const RADIX_DIGITS: usize = 1 << RADIX_BITS;

/// The digit of `key` at `shift`.
#[inline]
pub(crate) fn digit(key: u32, shift: u32) -> usize {
    ((key >> shift) as usize) & (RADIX_DIGITS - 1)
}

/// Tiles of `len` items.
pub(crate) fn radix_tile_count(len: usize) -> usize {
    len.div_ceil(RADIX_TILE)
}

/// Passes to sort by the low `bits` bits of the keys.
pub(crate) fn radix_passes(bits: u32) -> u32 {
    bits.div_ceil(RADIX_BITS)
}

/// Per tile of `items`, how many keys have each digit at `shift`: `counts[d * tiles + t]`
/// for digit `d` and tile `t` (`counts` holds `RADIX_DIGITS * tiles`).
pub(crate) fn radix_count(items: &[[u32; 2]], shift: u32, counts: &mut [u32]) {
    let tiles = radix_tile_count(items.len());
    counts.fill(0);
    for (t, tile) in items.chunks(RADIX_TILE).enumerate() {
        for item in tile {
            counts[digit(item[0], shift) * tiles + t] += 1;
        }
    }
}

/// Per tile, each digit's items in tile order, written from `starts[d * tiles + t]` (the
/// exclusive scan of `radix_count`'s counts): one walk over the tile advancing a cursor per
/// digit, which puts every item where the GPU's chunked ranks put it.
pub(crate) fn radix_scatter(items: &[[u32; 2]], shift: u32, starts: &[u32], out: &mut [[u32; 2]]) {
    let tiles = radix_tile_count(items.len());
    let mut cursors = [0u32; RADIX_DIGITS];
    for (t, tile) in items.chunks(RADIX_TILE).enumerate() {
        for (d, cursor) in cursors.iter_mut().enumerate() {
            *cursor = starts[d * tiles + t];
        }
        for item in tile {
            let cursor = &mut cursors[digit(item[0], shift)];
            out[*cursor as usize] = *item;
            *cursor += 1;
        }
    }
}

/// `items` sorted stably by the low `bits` bits of their keys, rounded up to whole digits
/// (`bits` at most 32; keys below `1 << bits` sort whole), through the passes the GPU runs;
/// `spare` is the other buffer of each pass.
pub(crate) fn radix_sort(items: &mut Vec<[u32; 2]>, spare: &mut Vec<[u32; 2]>, bits: u32) {
    let tiles = radix_tile_count(items.len());
    let mut counts = vec![0u32; RADIX_DIGITS * tiles];
    spare.resize(items.len(), [0; 2]);
    for pass in 0..radix_passes(bits) {
        let shift = pass * RADIX_BITS;
        radix_count(items, shift, &mut counts);
        exclusive_scan(&mut counts);
        radix_scatter(items, shift, &counts, spare);
        std::mem::swap(items, spare);
    }
}

/// Bits that hold every value below `len` (0 for 0 or 1 value).
pub(crate) fn index_bits(len: usize) -> u32 {
    usize::BITS - len.saturating_sub(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_by_the_low_bits() {
        // Keys with many repeats (stability shows), across several tiles, with bits above
        // the sorted digits (they must be ignored).
        for (len, bits) in [(0, 8), (1, 8), (300, 8), (1000, 12), (5000, 32), (2049, 17)] {
            let items: Vec<[u32; 2]> = (0..len as u32)
                .map(|i| [i.wrapping_mul(2_654_435_761) >> 7, i])
                .collect();
            let mut sorted = items.clone();
            radix_sort(&mut sorted, &mut Vec::new(), bits);
            let sorted_bits = radix_passes(bits) * RADIX_BITS;
            let mask = if sorted_bits == 32 {
                u32::MAX
            } else {
                (1 << sorted_bits) - 1
            };
            let mut expected = items.clone();
            // std's sort_by_key is stable: equal keys keep their input order.
            expected.sort_by_key(|item| item[0] & mask);
            assert_eq!(sorted, expected, "{len} items, {bits} bits");
        }
    }

    #[test]
    fn index_bits_hold_every_index() {
        assert_eq!(index_bits(0), 0);
        assert_eq!(index_bits(1), 0);
        assert_eq!(index_bits(2), 1);
        assert_eq!(index_bits(256), 8);
        assert_eq!(index_bits(257), 9);
    }
}
