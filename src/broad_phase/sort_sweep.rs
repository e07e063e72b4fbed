//! Sort-based sweep and prune, the broad phase as `shaders/sort_sweep.wgsl` runs it on the
//! GPU (Liu, Kim et al. 2010): this file is its twin, function for function, and the tests
//! hold both to [`BroadPhase`](crate::BroadPhase)'s pairs.
//!
//! ```text
//! sort_sweep(boxes):
//!     box_keys:       item p = (sortable(min.x of box p), p)
//!     radix_sort(items, 32 bits)                       (radix_sort.rs): boxes by min.x
//!     gather_boxes:   sorted[p] = the box of item p
//!     sweep_count:    per sorted box p: the later boxes q while sorted[q].min.x <= its
//!                     max.x that overlap it -> counts[p]; counts[len] = 0
//!     exclusive_scan(counts)                           (scan.rs): where p's pairs start;
//!                     counts[len] is the total
//!     sweep_write:    the same walk, each pair (min, max of the two box indices) written
//!                     at p's start, in walk order
//!     pair_keys(b), radix_sort, pair_keys(a), radix_sort  (index bits each): by a, then b
//!     gather_pairs:   the pairs in that order
//! ```
//!
//! One invocation per box and no atomics: a box's pairs land at its own offsets, and both
//! sorts are stable, so the list is the same on every adapter and here: ascending by first
//! box, then second, as `BroadPhase::find_pairs` returns it. The walk from a box stops at the
//! first later box that starts past its right edge: every later one starts further right.
//! Boxes are closed (touching boxes pair), as on the CPU. The sweep runs along x without
//! `BroadPhase`'s bands: a column of boxes sharing one x interval costs a walk over all of
//! them (see `docs/performance.md` for when that matters).

use crate::broad_phase::radix_sort::{index_bits, radix_sort};
use crate::broad_phase::scan::exclusive_scan;
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

/// The boxes in the order of `items`.
pub(crate) fn gather_boxes(boxes: &[Aabb], items: &[[u32; 2]], sorted: &mut [Aabb]) {
    for (s, item) in sorted.iter_mut().zip(items) {
        *s = boxes[item[1] as usize];
    }
}

/// Whether the later box `b` (in x order) overlaps `a`, given that it starts at or left of
/// `a`'s right edge: the rest of the closed-box test.
#[inline]
fn overlaps_later(a: &Aabb, b: &Aabb) -> bool {
    a.min.x <= b.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y
}

/// How many later boxes sorted box `p` pairs with: `counts[p]` for every `p`, and 0 in
/// `counts[len]` (the scan's total).
pub(crate) fn sweep_count(sorted: &[Aabb], counts: &mut [u32]) {
    for (p, a) in sorted.iter().enumerate() {
        let mut count = 0u32;
        for b in sorted[p + 1..].iter().take_while(|b| b.min.x <= a.max.x) {
            count += u32::from(overlaps_later(a, b));
        }
        counts[p] = count;
    }
    counts[sorted.len()] = 0;
}

/// Sorted box `p`'s pairs, written from `starts[p]` in walk order as (smaller, larger) box
/// index.
pub(crate) fn sweep_write(
    sorted: &[Aabb],
    items: &[[u32; 2]],
    starts: &[u32],
    pairs: &mut [[u32; 2]],
) {
    for (p, a) in sorted.iter().enumerate() {
        let mut at = starts[p] as usize;
        let walk = sorted[p + 1..].iter().zip(&items[p + 1..]);
        for (b, item) in walk.take_while(|(b, _)| b.min.x <= a.max.x) {
            if overlaps_later(a, b) {
                let (i, j) = (items[p][1], item[1]);
                pairs[at] = [i.min(j), i.max(j)];
                at += 1;
            }
        }
    }
}

/// Item `k`'s key becomes side `side` (0: first box, 1: second) of the pair it names;
/// `first` names pair `k` itself (the first sort's input), else the pair it already held.
pub(crate) fn pair_keys(pairs: &[[u32; 2]], items: &mut [[u32; 2]], side: usize, first: bool) {
    for (k, item) in items.iter_mut().enumerate() {
        let pair = if first { k as u32 } else { item[1] };
        *item = [pairs[pair as usize][side], pair];
    }
}

/// The pairs in the order of `items`.
pub(crate) fn gather_pairs(pairs: &[[u32; 2]], items: &[[u32; 2]], out: &mut [[u32; 2]]) {
    for (o, item) in out.iter_mut().zip(items) {
        *o = pairs[item[1] as usize];
    }
}

/// Every pair of boxes that overlap or touch, ascending by first then second box: the
/// pairs of [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs), found by the stages
/// [`GpuBroadPhase`](crate::gpu::GpuBroadPhase) runs, one after the other on this thread.
/// It is the GPU broad phase's reference, and tells what the GPU will do with a batch (a
/// column of boxes sharing one x interval is walked whole); for speed on the CPU use
/// `BroadPhase`, which sweeps in bands over the pool.
///
/// The boxes must be finite, each with its minimum at or below its maximum (the GPU broad
/// phase refuses others); a box with a NaN here pairs as its comparisons fall.
///
/// ```
/// use wgpu_sat::{broad_phase::sort_sweep, glam::Vec2, Aabb, BroadPhase};
/// let boxes = [
///     Aabb::new(Vec2::ZERO, Vec2::ONE),
///     Aabb::new(Vec2::ONE, Vec2::splat(2.0)), // touches the first at a corner
///     Aabb::new(Vec2::splat(5.0), Vec2::splat(6.0)),
/// ];
/// assert_eq!(sort_sweep(&boxes), [[0, 1]]);
/// assert_eq!(sort_sweep(&boxes), BroadPhase::new().find_pairs(&boxes));
/// ```
pub fn sort_sweep(boxes: &[Aabb]) -> Vec<[u32; 2]> {
    let n = boxes.len();
    let mut items = vec![[0u32; 2]; n];
    let mut spare = Vec::new();
    box_keys(boxes, &mut items);
    radix_sort(&mut items, &mut spare, 32);
    let mut sorted = vec![Aabb::default(); n];
    gather_boxes(boxes, &items, &mut sorted);
    let mut counts = vec![0u32; n + 1];
    sweep_count(&sorted, &mut counts);
    exclusive_scan(&mut counts);
    let total = counts[n] as usize;
    let mut found = vec![[0u32; 2]; total];
    sweep_write(&sorted, &items, &counts, &mut found);
    let bits = index_bits(n);
    let mut order = vec![[0u32; 2]; total];
    pair_keys(&found, &mut order, 1, true);
    radix_sort(&mut order, &mut spare, bits);
    pair_keys(&found, &mut order, 0, false);
    radix_sort(&mut order, &mut spare, bits);
    let mut pairs = vec![[0u32; 2]; total];
    gather_pairs(&found, &order, &mut pairs);
    pairs
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::BroadPhase;

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
        assert_eq!(sort_sweep(&boxes), expected);
        assert!(sort_sweep(&[]).is_empty());
        assert!(sort_sweep(&boxes[..1]).is_empty());
    }
}
