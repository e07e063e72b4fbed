//! Sweep-and-prune broad phase over axis-aligned bounding boxes, swept in horizontal bands.
//!
//! ```text
//! find_pairs(boxes):
//!     order = box indices sorted by min.x    kept from the last call, re-sorted by insertion
//!                                            sort (bodies move little per step), or in full
//!                                            over the pool when many moved
//!     cut the y range into bands about two box heights tall; list each box, in x order,
//!     in every band it spans
//!     for each band (runs of bands over the pool), sweep-and-prune along x:
//!         for each box a, for each later box b while b.min.x <= a.max.x:
//!             if a and b overlap in y, and this band holds max(a.min.y, b.min.y):
//!                 emit (min(a, b), max(a, b))    // the band test reports a pair once
//!     order the pairs by a, then b (counting sorts on b, then a, over the pool: linear time)
//! ```
//!
//! One sweep over the whole scene would test every pair whose x intervals overlap, however
//! far apart in y: in a square scene of n boxes that is about sqrt(n) candidates per box.
//! Bands cut that to the boxes nearby. Boxes are closed: touching boxes form a pair. A box
//! with a NaN coordinate overlaps nothing.

use rayon::prelude::*;

use crate::parallel::{self, SharedOut};
use crate::shapes::aabb::Aabb;

/// The most bands: beyond this the per-band bookkeeping costs more than it saves.
const MAX_BANDS: usize = 4096;

/// Sweep-and-prune broad phase. Holds only scratch state (the x order of the last call,
/// the band lists and the pair buffers), reused between calls so that a warm broad phase
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// Box indices sorted by `min.x` at the last call.
    order: Vec<u32>,
    /// Full sorts `sort_by_min_x` does before it tries an insertion sort again.
    full_sorts_ahead: u32,
    /// Band `k` lists its boxes in `members[band_start[k]..band_start[k + 1]]`, in x order,
    /// each with a copy of its box so that the sweep reads memory in order.
    band_start: Vec<u32>,
    /// The band fill's write cursors: a row of one per band for each chunk of `order`.
    band_cursors: Vec<u32>,
    members: Vec<(Aabb, u32)>,
    /// Pairs as found (any order), one list per run of bands swept together (one per task
    /// of the pool), then grouped by their first box.
    found: Vec<Vec<[u32; 2]>>,
    /// The counting sorts' write cursors (a row of one per box for each chunk of the
    /// input), and the pairs ordered by second box.
    starts: Vec<u32>,
    by_second: Vec<[u32; 2]>,
    pairs: Vec<[u32; 2]>,
}

/// One pass of a counting sort, over the pool: the pairs of `chunks` (`chunk(c)` lists
/// chunk `c`'s, in order) into `out` ordered by their element `side`, stably (chunk after
/// chunk, each in its order). Every chunk counts its keys into its row of `cursors`; the
/// rows become write cursors, key by key and chunk by chunk within a key; then every chunk
/// scatters its pairs at its own cursors. With one chunk this is the serial counting sort.
fn counting_pass<'a, I>(
    cursors: &mut Vec<u32>,
    box_count: usize,
    chunks: usize,
    chunk: impl Fn(usize) -> I + Sync,
    side: usize,
    out: &mut [[u32; 2]],
) where
    I: Iterator<Item = &'a [u32; 2]>,
{
    cursors.resize(chunks * box_count.max(1), 0);
    let rows = cursors
        .par_chunks_mut(box_count.max(1))
        .with_min_len(parallel::min_len(1))
        .enumerate();
    rows.for_each(|(c, row)| {
        row.fill(0);
        for pair in chunk(c) {
            row[pair[side] as usize] += 1;
        }
    });
    let mut total = 0;
    for k in 0..box_count {
        for c in 0..chunks {
            let cursor = &mut cursors[c * box_count + k];
            let count = *cursor;
            *cursor = total;
            total += count;
        }
    }
    debug_assert_eq!(total as usize, out.len());
    let out = SharedOut::new(out);
    let rows = cursors
        .par_chunks_mut(box_count.max(1))
        .with_min_len(parallel::min_len(1))
        .enumerate();
    rows.for_each(|(c, row)| {
        for &pair in chunk(c) {
            let cursor = &mut row[pair[side] as usize];
            // SAFETY: the cursors of all rows and keys start the disjoint ranges of `out`
            // that their counts sized, and each is used by this row's chunk alone.
            unsafe { out.write(*cursor as usize, pair) };
            *cursor += 1;
        }
    });
}

/// Calls of `sort_by_min_x` that sort in full after an insertion sort gave up: a scene
/// whose boxes shuffle keeps shuffling, and trying again at every call cost it both sorts.
const FULL_SORTS_AFTER_GIVING_UP: u32 = 8;

/// Runs of bands per thread of the pool in the sweep: a few, so that a run of crowded
/// bands does not keep one thread busy while the others wait.
const BAND_RUNS_PER_THREAD: usize = 4;

/// Sweep-and-prune along x over band `k`'s members (in x order): each pair that overlaps
/// and whose overlap starts in this band (so that a pair two bands share is found once),
/// into `found` as `[min, max]` if `keep` accepts it.
fn sweep_band(
    members: &[(Aabb, u32)],
    k: usize,
    bands: &Bands,
    keep: &impl Fn([u32; 2]) -> bool,
    found: &mut Vec<[u32; 2]>,
) {
    for (p, (a, i)) in members.iter().enumerate() {
        let i = *i;
        for (b, j) in &members[p + 1..] {
            let j = *j;
            if b.min.x > a.max.x {
                break;
            }
            if a.overlaps(b) && bands.band(a.min.y.max(b.min.y)) == k {
                let pair = if i < j { [i, j] } else { [j, i] };
                if keep(pair) {
                    found.push(pair);
                }
            }
        }
    }
}

/// The y bands: `band(y) = floor((y - origin) * inv_height)`, clamped to `0..count`. The GPU
/// broad phase cuts the same bands (`sort_sweep.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bands {
    pub origin: f32,
    pub inv_height: f32,
    pub count: usize,
}

impl Bands {
    /// Bands about twice the mean box height over the y range of the finite boxes.
    pub fn fit(aabbs: &[Aabb]) -> Bands {
        let mut low = f32::INFINITY;
        let mut high = f32::NEG_INFINITY;
        let mut heights = 0.0f64;
        let mut n = 0usize;
        for b in aabbs.iter().filter(|b| is_finite(b)) {
            low = low.min(b.min.y);
            high = high.max(b.max.y);
            heights += (b.max.y - b.min.y) as f64;
            n += 1;
        }
        let range = high - low;
        // With at least one finite box, `range` is finite.
        if n == 0 || range <= 0.0 {
            return Bands {
                origin: 0.0,
                inv_height: 0.0,
                count: 1,
            };
        }
        let height = ((2.0 * heights / n as f64) as f32).max(range / MAX_BANDS as f32);
        let count = ((range / height) as usize + 1).min(MAX_BANDS);
        Bands {
            origin: low,
            inv_height: 1.0 / height,
            count,
        }
    }

    pub fn band(&self, y: f32) -> usize {
        (((y - self.origin) * self.inv_height).max(0.0) as usize).min(self.count - 1)
    }
}

fn is_finite(b: &Aabb) -> bool {
    b.min.is_finite() && b.max.is_finite()
}

impl BroadPhase {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// All pairs `[a, b]` of boxes that overlap or touch, with `a < b`, in ascending order.
    /// The slice lives until the next call.
    pub fn find_pairs(&mut self, aabbs: &[Aabb]) -> &[[u32; 2]] {
        self.find_pairs_where(aabbs, |_| true)
    }

    /// As [`BroadPhase::find_pairs`], only the pairs `keep` accepts: it is asked in the
    /// sweep, over the pool, rather than by the caller after, one pair at a time.
    pub(crate) fn find_pairs_where(
        &mut self,
        aabbs: &[Aabb],
        keep: impl Fn([u32; 2]) -> bool + Sync,
    ) -> &[[u32; 2]] {
        self.sort_by_min_x(aabbs);
        let bands = Bands::fit(aabbs);
        self.fill_bands(aabbs, &bands);
        // Bands are swept apart, runs of them over the pool: the pairs are sorted after, so
        // the result is the same whoever found what.
        let threads = rayon::current_num_threads();
        let runs = if threads == 1 {
            1
        } else {
            (BAND_RUNS_PER_THREAD * threads).min(bands.count).max(1)
        };
        let per_run = bands.count.div_ceil(runs);
        // Lists beyond `runs` are kept (empty) for a later call with more bands: the band
        // count moves from step to step, and dropping them would allocate them again.
        if self.found.len() < runs {
            self.found.resize_with(runs, Vec::new);
        }
        for spare in &mut self.found[runs..] {
            spare.clear();
        }
        let (members, band_start) = (&self.members, &self.band_start);
        self.found[..runs]
            .par_iter_mut()
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(run, found)| {
                found.clear();
                for k in run * per_run..((run + 1) * per_run).min(bands.count) {
                    let band = &members[band_start[k] as usize..band_start[k + 1] as usize];
                    sweep_band(band, k, &bands, &keep, found);
                }
            });
        self.sort_pairs(aabbs.len(), runs);
        &self.pairs
    }

    /// Brings `order` up to date: insertion sort from the last call's order while the boxes
    /// are nearly sorted, a full sort (over the pool) when the count changed or too much
    /// has moved. After a full sort for that, the next few calls sort in full straight
    /// away: a scene whose every box moves (washer's) paid for an insertion sort that gave
    /// up, then the full sort, at every step.
    fn sort_by_min_x(&mut self, aabbs: &[Aabb]) {
        let key = |i: u32| aabbs[i as usize].min.x;
        let full_sort = |order: &mut Vec<u32>| {
            let by_x = |i: &u32, j: &u32| key(*i).total_cmp(&key(*j));
            // Ties may come out in any order: the sweep finds the same pairs whatever it is.
            if rayon::current_num_threads() > 1 {
                order.par_sort_unstable_by(by_x);
            } else {
                order.sort_unstable_by(by_x);
            }
        };
        if self.order.len() != aabbs.len() {
            self.order.clear();
            self.order.extend(0..aabbs.len() as u32);
            full_sort(&mut self.order);
            return;
        }
        if self.full_sorts_ahead > 0 {
            self.full_sorts_ahead -= 1;
            full_sort(&mut self.order);
            return;
        }
        // Insertion sort costs one move per inversion; beyond a few moves per box a full
        // sort is cheaper.
        let mut budget = 4 * self.order.len() + 64;
        for k in 1..self.order.len() {
            let item = self.order[k];
            let x = key(item);
            let mut m = k;
            while m > 0 && key(self.order[m - 1]).total_cmp(&x).is_gt() {
                self.order[m] = self.order[m - 1];
                m -= 1;
            }
            self.order[m] = item;
            budget = budget.saturating_sub(k - m);
            if budget == 0 {
                self.full_sorts_ahead = FULL_SORTS_AFTER_GIVING_UP;
                full_sort(&mut self.order);
                return;
            }
        }
    }

    /// Lists every finite box, in x order, in each band its y interval spans: a counting
    /// sort by band over the pool (`order` in one chunk per thread, each chunk's boxes
    /// counted per band, the counts made write cursors band by band and chunk by chunk
    /// within a band, then each chunk's boxes written at its cursors), so each band stays
    /// in x order with no sorting.
    fn fill_bands(&mut self, aabbs: &[Aabb], bands: &Bands) {
        let chunks = rayon::current_num_threads().max(1);
        let order = &self.order;
        let chunk = |c: usize| &order[c * order.len() / chunks..(c + 1) * order.len() / chunks];
        let band_range = |b: &Aabb| bands.band(b.min.y)..=bands.band(b.max.y);
        let cursors = &mut self.band_cursors;
        cursors.resize(chunks * bands.count, 0);
        let rows = cursors
            .par_chunks_mut(bands.count)
            .with_min_len(parallel::min_len(1))
            .enumerate();
        rows.for_each(|(c, row)| {
            row.fill(0);
            for &i in chunk(c) {
                let b = &aabbs[i as usize];
                if is_finite(b) {
                    for k in band_range(b) {
                        row[k] += 1;
                    }
                }
            }
        });
        self.band_start.clear();
        self.band_start.reserve(bands.count + 1);
        let mut total = 0;
        for k in 0..bands.count {
            self.band_start.push(total);
            for c in 0..chunks {
                let cursor = &mut cursors[c * bands.count + k];
                let count = *cursor;
                *cursor = total;
                total += count;
            }
        }
        self.band_start.push(total);
        let needed = total as usize;
        // Room for every box in two bands: the count moves by a few as boxes cross band
        // boundaries (and band heights follow the boxes), and a warm broad phase should not
        // reallocate each time that reaches a new high.
        let room = needed.max(2 * aabbs.len());
        self.members
            .reserve(room.saturating_sub(self.members.len()));
        // The fill below writes every slot: only a longer list's new tail is filled here.
        self.members.resize(needed, (Aabb::default(), 0));
        let members = SharedOut::new(&mut self.members);
        let rows = cursors
            .par_chunks_mut(bands.count)
            .with_min_len(parallel::min_len(1))
            .enumerate();
        rows.for_each(|(c, row)| {
            for &i in chunk(c) {
                let b = &aabbs[i as usize];
                if is_finite(b) {
                    for k in band_range(b) {
                        // SAFETY: the cursors of all rows and bands start the disjoint
                        // ranges of `members` that their counts sized, and each is used by
                        // this row's chunk alone.
                        unsafe { members.write(row[k] as usize, (*b, i)) };
                        row[k] += 1;
                    }
                }
            }
        });
    }

    /// Orders the first `runs` lists of `found` by (first box, second box): a counting sort
    /// on the second box, then a stable one on the first (radix order), each pass split
    /// over the pool (`counting_pass`; the order is the pairs' own, whoever sorted what).
    /// Every step is predictable: the insertion sort of each first box's group that this
    /// replaced mispredicted its comparison nearly every other time, and was 45% of the
    /// broad phase on tumbler; done on one thread, the passes were 4 % of washer's step on
    /// two, whose boxes all move and make 77,000 pairs.
    fn sort_pairs(&mut self, box_count: usize, runs: usize) {
        let count = self.found[..runs].iter().map(Vec::len).sum();
        let chunks = rayon::current_num_threads().min(runs).max(1);
        // No clears first: the scatters write every slot, so only a longer list's new
        // tail is filled.
        self.by_second.resize(count, [0, 0]);
        self.pairs.resize(count, [0, 0]);
        let found = &self.found[..runs];
        let runs_of = |c: usize| &found[c * runs / chunks..(c + 1) * runs / chunks];
        counting_pass(
            &mut self.starts,
            box_count,
            chunks,
            |c| runs_of(c).iter().flatten(),
            1,
            &mut self.by_second,
        );
        let by_second = &self.by_second;
        let part = |c: usize| &by_second[c * count / chunks..(c + 1) * count / chunks];
        counting_pass(
            &mut self.starts,
            box_count,
            chunks,
            |c| part(c).iter(),
            0,
            &mut self.pairs,
        );
    }
}
