//! Sort-based sweep and prune, the broad phase as `shaders/sort_sweep.wgsl` runs it on the
//! GPU (Liu, Kim et al. 2010): this file is its twin, function for function, and the tests
//! hold both to [`BroadPhase`](crate::BroadPhase)'s pairs.
//!
//! ```text
//! sort_sweep(boxes):
//!     bands = Bands::fit(boxes)   (sweep.rs: y bands about two mean box heights tall)
//!     box_keys:       item p = (sortable(min.x of box p), p)
//!     radix_sort(items, 32 bits)                 (radix_sort.rs): boxes by left edge
//!     band_spans:     per box in x order, how many bands it spans -> counts; counts[n] = 0
//!     exclusive_scan(counts)                     (scan.rs): where its entries start
//!     band_entries:   one entry (band, box) per band it spans, in x order
//!     radix_sort(entries, band bits): by band, x order kept within a band
//!     gather_boxes:   sorted[e] = the box of entry e
//!     sweep_count:    per entry e: the later entries q of its band while sorted[q].min.x
//!                     <= its max.x that overlap it, in this band only if the band holds
//!                     the higher of the two bottoms (so once) -> counts[e]; counts[len] = 0
//!     exclusive_scan(counts): where e's pairs start; counts[len] is the total
//!     sweep_write:    the same walk, each pair (min, max of the two box indices) written
//!                     at e's start, in walk order, none past the room
//!     order_pairs:    pair_keys(a, b), radix_sort when both indices fit 32 bits, else
//!                     pair_keys(b), radix_sort, pair_keys(a), radix_sort: by a, then b
//!                     (the room past the pairs found keyed last)
//!     gather_pairs:   the pairs in that order
//!     pair_args:      the narrow phase's indirect dispatch over the first
//!                     found_pairs = min(total, room) of them, and the total
//! ```
//!
//! The room: the batch face reads the total back before it writes a pair, and makes the
//! room the total. The collision pipeline (`gpu/collision/`) keeps the total on the GPU:
//! it reserves room from the last call's total, sorts the whole room, and reads the total
//! back with the contacts; when the room was short, it runs again with more.
//!
//! One invocation per box, entry or pair, and no atomics: an entry's pairs land at its own
//! offsets, and every sort is stable, so the list is the same on every adapter and here:
//! ascending by first box, then second, as `BroadPhase::find_pairs` returns it. The walk
//! from an entry stops at the first later entry of its band that starts past its right
//! edge: every later one starts further right. The bands are `BroadPhase`'s: a sweep over
//! the whole scene would walk every box sharing an x interval, about the square root of
//! the box count per box in a square scene; a band holds the boxes near in y. The band of
//! a y is `(y - origin) * inv_height` truncated, a subtraction and a multiplication that
//! WGSL rounds as Rust does, so both sides cut the same bands and the host knows the entry
//! count without asking the GPU. Boxes are closed (touching boxes pair), as on the CPU.

use crate::broad_phase::radix_sort::{index_bits, radix_sort};
use crate::broad_phase::scan::exclusive_scan;
use crate::broad_phase::sweep::Bands;
use crate::error::{BatchError, Error};
use crate::shapes::aabb::Aabb;

/// `x`'s bits made to order as unsigned integers as the floats order (negative floats have
/// every bit flipped, the others their sign bit set): `-0.0` comes just before `0.0`, which
/// the sweep does not mind (it compares the floats themselves).
#[inline]
pub(crate) fn sortable(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// Item `p`: the sortable left edge of box `p`, and `p`.
pub(crate) fn box_keys(boxes: &[Aabb], items: &mut [[u32; 2]]) {
    for (p, (item, b)) in items.iter_mut().zip(boxes).enumerate() {
        *item = [sortable(b.min.x), p as u32];
    }
}

/// Per box in x order (`items`), how many bands it spans: `counts[p]`, and 0 in
/// `counts[len]` (the scan's total).
pub(crate) fn band_spans(boxes: &[Aabb], items: &[[u32; 2]], bands: &Bands, counts: &mut [u32]) {
    for (count, item) in counts.iter_mut().zip(items) {
        let b = &boxes[item[1] as usize];
        *count = (bands.band(b.max.y) - bands.band(b.min.y) + 1) as u32;
    }
    counts[items.len()] = 0;
}

/// The entries (band, box) of each box in x order, from `starts[p]` (the scanned spans),
/// one per band it spans, lowest band first.
pub(crate) fn band_entries(
    boxes: &[Aabb],
    items: &[[u32; 2]],
    bands: &Bands,
    starts: &[u32],
    entries: &mut [[u32; 2]],
) {
    for (item, &start) in items.iter().zip(starts) {
        let b = &boxes[item[1] as usize];
        let (low, high) = (bands.band(b.min.y), bands.band(b.max.y));
        for (at, band) in (start as usize..).zip(low..=high) {
            entries[at] = [band as u32, item[1]];
        }
    }
}

/// The boxes of `entries`, in their order.
pub(crate) fn gather_boxes(boxes: &[Aabb], entries: &[[u32; 2]], sorted: &mut [Aabb]) {
    for (s, entry) in sorted.iter_mut().zip(entries) {
        *s = boxes[entry[1] as usize];
    }
}

/// Whether the later box `b` (in x order, in the band of `a`'s entry, starting at or left
/// of `a`'s right edge) overlaps `a`, and this band, `band`, is the one that reports them:
/// the one holding the higher of their bottoms, which both span.
#[inline]
fn pairs_here(a: &Aabb, b: &Aabb, bands: &Bands, band: u32) -> bool {
    a.min.x <= b.max.x
        && a.min.y <= b.max.y
        && b.min.y <= a.max.y
        && bands.band(a.min.y.max(b.min.y)) as u32 == band
}

/// The later entries of entry `e`'s band that start at or left of its right edge, with their
/// boxes.
fn walk<'a>(
    sorted: &'a [Aabb],
    entries: &'a [[u32; 2]],
    e: usize,
) -> impl Iterator<Item = (&'a Aabb, &'a [u32; 2])> + 'a {
    let (a, band) = (&sorted[e], entries[e][0]);
    sorted[e + 1..]
        .iter()
        .zip(&entries[e + 1..])
        .take_while(move |(b, entry)| entry[0] == band && b.min.x <= a.max.x)
}

/// How many pairs entry `e` reports: `counts[e]` for every entry, and 0 in `counts[len]`
/// (the scan's total).
pub(crate) fn sweep_count(
    sorted: &[Aabb],
    entries: &[[u32; 2]],
    bands: &Bands,
    counts: &mut [u32],
) {
    for e in 0..sorted.len() {
        let (a, band) = (&sorted[e], entries[e][0]);
        let here = walk(sorted, entries, e).filter(|(b, _)| pairs_here(a, b, bands, band));
        counts[e] = here.count() as u32;
    }
    counts[sorted.len()] = 0;
}

/// Entry `e`'s pairs, written from `starts[e]` in walk order as (smaller, larger) box index;
/// none past the room (`pairs.len()`).
pub(crate) fn sweep_write(
    sorted: &[Aabb],
    entries: &[[u32; 2]],
    bands: &Bands,
    starts: &[u32],
    pairs: &mut [[u32; 2]],
) {
    for e in 0..sorted.len() {
        let (a, [band, i]) = (&sorted[e], entries[e]);
        let here = walk(sorted, entries, e).filter(|(b, _)| pairs_here(a, b, bands, band));
        for (at, (_, entry)) in (starts[e] as usize..).zip(here) {
            let j = entry[1];
            if let Some(pair) = pairs.get_mut(at) {
                *pair = [i.min(j), i.max(j)];
            }
        }
    }
}

/// Which key `pair_keys` gives a pair (the WGSL's `side`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairKey {
    /// Its first box.
    First = 0,
    /// Its second box.
    Second = 1,
    /// Both: the first box's index above the second's, `bits` bits each.
    Both = 2,
}

/// Item `k`'s key becomes `key` of the pair it names (`bits`: bits of a box index);
/// `first` names pair `k` itself (the first sort's input), else the pair it already held.
/// An item naming none of the `found` pairs (the room past them) gets the largest key: it
/// sorts after every pair, and the sort being stable, after those of an equal key too.
pub(crate) fn pair_keys(
    pairs: &[[u32; 2]],
    found: usize,
    items: &mut [[u32; 2]],
    key: PairKey,
    first: bool,
    bits: u32,
) {
    for (k, item) in items.iter_mut().enumerate() {
        let pair = if first { k as u32 } else { item[1] };
        if pair as usize >= found {
            *item = [u32::MAX, pair];
            continue;
        }
        let [a, b] = pairs[pair as usize];
        let key = match key {
            PairKey::First => a,
            PairKey::Second => b,
            PairKey::Both => a << bits | b,
        };
        *item = [key, pair];
    }
}

/// Whether pairs of boxes of `bits`-bit indices sort in one pass over both indices.
pub(crate) fn one_pair_sort(bits: u32) -> bool {
    2 * bits <= 32
}

/// The room of `pairs` as items naming them, the first `found` sorted by first box, then
/// second (`bits`: bits of a box index), the rest after them: one sort of both indices when
/// they fit a 32-bit key, else a sort by the second and a stable one by the first.
pub(crate) fn order_pairs(pairs: &[[u32; 2]], found: usize, bits: u32) -> Vec<[u32; 2]> {
    let mut order = vec![[0u32; 2]; pairs.len()];
    let mut spare = Vec::new();
    if one_pair_sort(bits) {
        pair_keys(pairs, found, &mut order, PairKey::Both, true, bits);
        radix_sort(&mut order, &mut spare, 2 * bits);
    } else {
        pair_keys(pairs, found, &mut order, PairKey::Second, true, bits);
        radix_sort(&mut order, &mut spare, bits);
        pair_keys(pairs, found, &mut order, PairKey::First, false, bits);
        radix_sort(&mut order, &mut spare, bits);
    }
    order
}

/// How many pairs the room holds: the sweep's `total`, within the `room`.
pub(crate) fn found_pairs(total: u32, room: u32) -> u32 {
    total.min(room)
}

/// Invocations per workgroup of the narrow phase's `collide_pairs` (`sat_pass.wgsl`), which
/// `pair_args` dispatches (the WGSL's `NARROW_WORKGROUP`).
pub(crate) const NARROW_WORKGROUP: u32 = 64;

/// What `pair_args` writes (the WGSL's `PairDispatch`; `PairDispatchGpu` is its Pod mirror).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PairDispatch {
    /// The narrow phase's workgroups, as an indirect dispatch reads them.
    pub(crate) workgroups: [u32; 3],
    /// The pairs it takes: those in the room.
    pub(crate) pairs: u32,
    /// The sweep's total, which tells the host whether the room was short.
    pub(crate) total: u32,
}

/// The narrow phase's indirect dispatch over the pairs found, in workgroups of `workgroup`
/// invocations: one row of them while it takes at most `row_groups` (the device's limit
/// per dimension), else as many full rows as they need.
pub(crate) fn pair_args(total: u32, room: u32, workgroup: u32, row_groups: u32) -> PairDispatch {
    let pairs = found_pairs(total, room);
    let groups = pairs.div_ceil(workgroup);
    let rows = groups.div_ceil(row_groups);
    let columns = if rows <= 1 { groups } else { row_groups };
    PairDispatch {
        workgroups: [columns, rows.max(1), 1],
        pairs,
        total,
    }
}

/// The most workgroups in one dimension of a dispatch that the twin assumes (wgpu's
/// default limit); the GPU gets its device's.
pub(crate) const ROW_GROUPS: u32 = 65_535;

/// The pairs in the order of `items`.
pub(crate) fn gather_pairs(pairs: &[[u32; 2]], items: &[[u32; 2]], out: &mut [[u32; 2]]) {
    for (o, item) in out.iter_mut().zip(items) {
        *o = pairs[item[1] as usize];
    }
}

/// Every pair of boxes that overlap or touch, ascending by first then second box: the
/// pairs of [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs), found by the stages
/// [`GpuBroadPhase`](crate::gpu::GpuBroadPhase) runs, one after the other on this thread.
/// It is the GPU broad phase's reference, and tells what the GPU will do with a batch (how
/// many band entries, how long each walk); for speed on the CPU use `BroadPhase`, which
/// sweeps its bands over the pool and keeps its x order from call to call.
///
/// Errors as the GPU broad phase does: [`BatchError::InvalidBox`] names the first box with a
/// NaN or infinite coordinate or a minimum above its maximum.
///
/// ```
/// use wgpu_sat::{broad_phase::sort_sweep, glam::Vec2, Aabb, BroadPhase};
/// let boxes = [
///     Aabb::new(Vec2::ZERO, Vec2::ONE),
///     Aabb::new(Vec2::ONE, Vec2::splat(2.0)), // touches the first at a corner
///     Aabb::new(Vec2::splat(5.0), Vec2::splat(6.0)),
/// ];
/// assert_eq!(sort_sweep(&boxes)?, [[0, 1]]);
/// assert_eq!(sort_sweep(&boxes)?, BroadPhase::new().find_pairs(&boxes));
/// assert!(sort_sweep(&[Aabb::new(Vec2::ONE, Vec2::ZERO)]).is_err());
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub fn sort_sweep(boxes: &[Aabb]) -> Result<Vec<[u32; 2]>, Error> {
    let (mut pairs, dispatch) = sort_sweep_in(boxes, None)?;
    pairs.truncate(dispatch.pairs as usize);
    Ok(pairs)
}

/// [`sort_sweep`] as the collision pipeline runs it, with room for `room` pairs (`None`: the
/// total, as the batch face makes it): the room, its first `min(total, room)` pairs in
/// order, and `pair_args`' dispatch over them (with the total).
pub(crate) fn sort_sweep_in(
    boxes: &[Aabb],
    room: Option<usize>,
) -> Result<(Vec<[u32; 2]>, PairDispatch), Error> {
    check_boxes(boxes)?;
    let n = boxes.len();
    let bands = Bands::fit(boxes);
    let mut items = vec![[0u32; 2]; n];
    let mut spare = Vec::new();
    box_keys(boxes, &mut items);
    radix_sort(&mut items, &mut spare, 32);
    let mut counts = vec![0u32; n + 1];
    band_spans(boxes, &items, &bands, &mut counts);
    exclusive_scan(&mut counts);
    let mut entries = vec![[0u32; 2]; counts[n] as usize];
    band_entries(boxes, &items, &bands, &counts, &mut entries);
    radix_sort(&mut entries, &mut spare, index_bits(bands.count));
    let len = entries.len();
    let mut sorted = vec![Aabb::default(); len];
    gather_boxes(boxes, &entries, &mut sorted);
    counts.resize(len + 1, 0);
    sweep_count(&sorted, &entries, &bands, &mut counts);
    exclusive_scan(&mut counts);
    let total = counts[len];
    let room = room.unwrap_or(total as usize);
    let mut found = vec![[0u32; 2]; room];
    sweep_write(&sorted, &entries, &bands, &counts, &mut found);
    let in_room = found_pairs(total, room as u32) as usize;
    let order = order_pairs(&found, in_room, index_bits(n));
    let mut pairs = vec![[0u32; 2]; room];
    gather_pairs(&found, &order, &mut pairs);
    Ok((
        pairs,
        pair_args(total, room as u32, NARROW_WORKGROUP, ROW_GROUPS),
    ))
}

/// The boxes the sort and sweep take: finite, each with its minimum at or below its maximum
/// on both axes (so that a box spans one band or more). Else [`BatchError::InvalidBox`]
/// naming the first other one.
pub(crate) fn check_boxes(boxes: &[Aabb]) -> Result<(), Error> {
    let valid = |b: &Aabb| {
        b.min.is_finite() && b.max.is_finite() && b.min.x <= b.max.x && b.min.y <= b.max.y
    };
    match boxes.iter().position(|b| !valid(b)) {
        Some(index) => Err(Error::Batch(BatchError::InvalidBox { index })),
        None => Ok(()),
    }
}

/// The collision stage over a pair set the caller holds (the GPU world's, on the device):
/// per pair `k` of the `len` pairs, 1 in `counts[k]` when bit `k` of `fresh` (32 to a word,
/// the low bit first) marks it fresh, and 0 in `counts[len]` for the scan's total. (The
/// reference the tests hold `over_set.rs`'s kernels to; the GPU world alone runs them.)
#[cfg(test)]
pub(crate) fn set_fresh(fresh: &[u32], len: usize, counts: &mut [u32]) {
    for (k, count) in counts[..len].iter_mut().enumerate() {
        *count = (fresh[k / 32] >> (k % 32)) & 1;
    }
    counts[len] = 0;
}

/// After the exclusive scan of [`set_fresh`]' flags: the flagged pairs into `out`, in the
/// set's order.
#[cfg(test)]
pub(crate) fn set_compact(set: &[[u32; 2]], counts: &[u32], out: &mut [[u32; 2]]) {
    for (k, pair) in set.iter().enumerate() {
        if counts[k + 1] != counts[k] {
            out[counts[k] as usize] = *pair;
        }
    }
}

/// The hash of box `i` that `hash_boxes` sums (`shaders/box_hash.wgsl`), from its bits
/// (min.x, min.y, max.x, max.y).
#[cfg(any(test, feature = "gpu"))]
pub(crate) fn box_hash(i: u32, b: [u32; 4]) -> u32 {
    let mut h = (i.wrapping_add(1)).wrapping_mul(0x9e37_79b1);
    h = mix_word(h, b[0], 0x85eb_ca6b);
    h = mix_word(h, b[1], 0xc2b2_ae35);
    h = mix_word(h, b[2], 0x27d4_eb2f);
    h = mix_word(h, b[3], 0x1656_67b1);
    h ^ (h >> 15)
}

/// One word into [`box_hash`]: xored in, multiplied, and the high half folded into the
/// low. Without the fold a word's top bit only ever flips the product's top bit, and two
/// top bits flipped together (a vector negated) left the hash as it was.
#[cfg(any(test, feature = "gpu"))]
fn mix_word(h: u32, w: u32, c: u32) -> u32 {
    let m = (h ^ w).wrapping_mul(c);
    m ^ (m >> 16)
}

/// The wrapping sum of every box's [`box_hash`] (`hash_boxes` in `shaders/sort_sweep.wgsl`,
/// `hash_fat` in `pair_set.wgsl`): what the GPU sums over boxes it computed itself, for the
/// host to hold to its own.
#[cfg(any(test, feature = "gpu"))]
pub(crate) fn hash_boxes(boxes: &[Aabb]) -> u32 {
    boxes.iter().enumerate().fold(0u32, |sum, (i, b)| {
        let bits = [b.min.x, b.min.y, b.max.x, b.max.y].map(f32::to_bits);
        sum.wrapping_add(box_hash(i as u32, bits))
    })
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::BroadPhase;

    /// The device's safety nets sum `box_hash` over records of vectors: a vector negated
    /// (its two sign bits flipped in one group of four words), any one bit flipped, or two
    /// words swapped must change a record's hash.
    #[test]
    fn box_hash_sees_a_negated_vector_a_flipped_bit_and_a_swap() {
        let b = [0.8f32, 0.05, -3.0, 7.5].map(f32::to_bits);
        let h = box_hash(9, b);
        let sign = 1u32 << 31;
        for (p, q) in [(0, 1), (1, 2), (2, 3), (0, 3)] {
            let mut n = b;
            (n[p], n[q]) = (n[p] ^ sign, n[q] ^ sign);
            assert_ne!(box_hash(9, n), h, "signs of words {p} and {q}");
            let mut swapped = b;
            swapped.swap(p, q);
            assert_ne!(box_hash(9, swapped), h, "words {p} and {q} swapped");
        }
        for word in 0..4 {
            for bit in 0..32 {
                let mut f = b;
                f[word] ^= 1 << bit;
                assert_ne!(box_hash(9, f), h, "word {word}, bit {bit}");
            }
        }
        assert_ne!(box_hash(8, b), h, "another index");
    }

    #[test]
    fn sortable_orders_as_the_floats() {
        let xs = [-1e30, -2.5, -1.0, -1e-30, -0.0, 0.0, 1e-30, 1.0, 2.5, 1e30];
        for w in xs.windows(2) {
            assert!(sortable(w[0]) < sortable(w[1]), "{} {}", w[0], w[1]);
        }
    }

    #[test]
    fn the_twin_finds_the_sweeps_pairs() {
        // A grid of unit boxes that touch their neighbours, some piled on one spot, a huge
        // one over tiny ones, and a few far from the origin.
        let mut boxes = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                let min = Vec2::new(i as f32, j as f32 * 0.9);
                boxes.push(Aabb::new(min, min + Vec2::ONE));
            }
        }
        for _ in 0..10 {
            boxes.push(Aabb::new(Vec2::splat(3.5), Vec2::splat(4.0)));
        }
        boxes.push(Aabb::new(Vec2::splat(-50.0), Vec2::splat(50.0)));
        for k in 0..5 {
            let min = Vec2::new(1e5 + k as f32 * 0.5, -1e5);
            boxes.push(Aabb::new(min, min + Vec2::splat(0.75)));
        }
        let expected = BroadPhase::new().find_pairs(&boxes).to_vec();
        assert!(expected.len() > 1_500);
        assert_eq!(sort_sweep(&boxes).unwrap(), expected);
        assert!(sort_sweep(&[]).unwrap().is_empty());
        assert!(sort_sweep(&boxes[..1]).unwrap().is_empty());
        // A bad box is named, as the GPU names it.
        let mut bad = boxes.clone();
        bad[7].max.y = f32::NAN;
        bad[9] = Aabb::new(Vec2::ONE, Vec2::ZERO);
        match sort_sweep(&bad) {
            Err(Error::Batch(BatchError::InvalidBox { index: 7 })) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_short_room_keeps_the_first_pairs_and_tells_the_total() {
        let boxes: Vec<Aabb> = (0..60)
            .map(|k| {
                let min = Vec2::new((k % 7) as f32 * 0.6, (k / 7) as f32 * 0.7);
                Aabb::new(min, min + Vec2::ONE)
            })
            .collect();
        let expected = sort_sweep(&boxes).unwrap();
        let total = expected.len();
        assert!(total > 100);
        // Room to spare: the pairs first, in order; the room past them holds no pair of
        // theirs that the caller could mistake for one (it reads `found_pairs` only).
        let (pairs, args) = sort_sweep_in(&boxes, Some(total + 37)).unwrap();
        assert_eq!((args.total as usize, args.pairs as usize), (total, total));
        assert_eq!(pairs.len(), total + 37);
        assert_eq!(&pairs[..total], &expected[..]);
        // Short: the sweep writes what fits in walk order, and those come out sorted; the
        // total says how much room the next call needs.
        let room = total / 3;
        let (pairs, args) = sort_sweep_in(&boxes, Some(room)).unwrap();
        assert_eq!((args.total as usize, args.pairs as usize), (total, room));
        assert!(pairs.windows(2).all(|w| w[0] < w[1]));
        assert!(pairs.iter().all(|p| expected.binary_search(p).is_ok()));
        assert_eq!(args.workgroups, [(room as u32).div_ceil(64), 1, 1]);
        assert_eq!(pair_args(0, 10, 64, ROW_GROUPS).workgroups, [0, 1, 1]);
        // Past one row's reach: full rows, enough of them for every pair.
        let wide = pair_args(1_000, 1_000, 64, 4);
        assert_eq!(wide.workgroups, [4, 4, 1]);
        assert!(wide.workgroups[0] * wide.workgroups[1] * 64 >= 1_000);
        assert_eq!(pair_args(256, 300, 64, 4).workgroups, [4, 1, 1]);
    }

    #[test]
    fn the_set_keeps_its_fresh_pairs_in_its_order() {
        // 40 pairs, so that the bits run into a second word: pairs 0, 2, 31, 32 and 39 fresh.
        let set: Vec<[u32; 2]> = (0..40).map(|k| [k, k + 1]).collect();
        let fresh = [1 | 1 << 2 | 1 << 31, 1 | 1 << 7];
        let mut counts = vec![9; set.len() + 1];
        set_fresh(&fresh, set.len(), &mut counts);
        let flagged: Vec<usize> = (0..set.len()).filter(|&k| counts[k] == 1).collect();
        assert_eq!(flagged, [0, 2, 31, 32, 39]);
        assert!(counts.iter().all(|&c| c <= 1) && counts[set.len()] == 0);
        crate::broad_phase::scan::exclusive_scan(&mut counts);
        let mut out = vec![[0, 0]; counts[set.len()] as usize];
        set_compact(&set, &counts, &mut out);
        assert_eq!(out, [[0, 1], [2, 3], [31, 32], [32, 33], [39, 40]]);
    }

    #[test]
    fn the_hash_changes_when_a_box_moves_by_a_bit_or_two_boxes_swap() {
        let at = |x: f32| Aabb::new(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 1.0));
        let boxes = [at(0.0), at(2.0), at(-3.5)];
        let hash = hash_boxes(&boxes);
        let mut nudged = boxes;
        nudged[1].max.y = f32::from_bits(nudged[1].max.y.to_bits() + 1);
        assert_ne!(hash_boxes(&nudged), hash);
        assert_ne!(hash_boxes(&[boxes[1], boxes[0], boxes[2]]), hash);
        assert_ne!(hash_boxes(&boxes[..2]), hash);
        assert_eq!(hash_boxes(&boxes), hash);
    }
}
