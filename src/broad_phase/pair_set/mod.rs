//! Persistent pairs over enlarged ("fat") boxes: the world's incremental broad phase.
//!
//! ```text
//! update(boxes):
//!     for each collider c:
//!         if fat[c] does not hold boxes[c]:     c left its fat box (or is new)
//!             fat[c] = boxes[c] grown by FAT_MARGIN on every side; moved += 1
//!     if nothing moved: the pairs (and each pair's data) stay as they are
//!     few moved: refit the tree over the fat boxes (build it anew now and then); query
//!           it with each moved fat box: the moved colliders' pairs now; if they are the
//!           ones they had (counted by degree), the lists stay as they are; otherwise
//!           drop the pairs of a moved collider whose fat boxes parted, add the new ones
//!           (default data)
//!     many moved: pairs = the sweep-and-prune pairs of the fat boxes that pass `keep`,
//!           each carrying its data over from the last list when it was there
//!     (both ways are merge walks: every list is in ascending pair order)
//!     the pairs that left, with their data, are kept for the caller (`dropped`): the
//!     world's contact end events
//! invalidate(c): c counts as moved at the next update, so its pairs face `keep` again
//!     (a collision filter changed)
//! remove(c): c's fat box becomes empty (it overlaps nothing) and c counts as moved at the
//!     next update, which drops its pairs; the caller gives c an empty tight box too, so it
//!     stays out until a new collider takes its slot
//! ```
//!
//! A pair is in the set from the step its fat boxes first overlap until the step they part,
//! whatever the tight boxes do meanwhile: that lifetime is what per-pair data (a kept
//! manifold) hangs on. Bodies at rest, the bulk of a settled pile or pyramid, stay inside
//! their fat boxes, so a settled world's broad phase is one containment test per collider.
//! When a few colliders moved, only they are queried, in a bounding volume hierarchy over
//! the fat boxes (`query_tree.rs`), and the pairs of a moved collider whose fat boxes parted
//! leave. (An earlier x-sorted list scanned whole columns of a tall pyramid per query: the
//! tree made large_pyramid's broad phase a third cheaper, 0.060 against 0.041 ms a step.)
//! When many moved (a falling pile), sweep-and-prune over every fat box is cheaper than
//! that many queries, and runs instead.

mod apply;

use crate::broad_phase::BroadPhase;
use crate::broad_phase::query_tree::QueryTree;
use crate::parallel::{self, SharedOut};
use crate::shapes::aabb::Aabb;
use rayon::prelude::*;

/// How far a fat box reaches beyond the tight one on every side, world units. Box2D's margin
/// (0.1 m) for pieces about a unit across: a body at rest or creeping stays inside for many
/// steps, while a fat box stays small enough that the extra pairs it makes (fat boxes overlap,
/// tight ones do not) are few; those cost one box test a step each.
pub const FAT_MARGIN: f32 = 0.1;

/// The persistent pair set: fat boxes, the pairs whose fat boxes overlap in ascending order,
/// and one `T` per pair that lives as long as the pair. Warm, it allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairSet<T> {
    /// Each collider's fat box: its tight box grown by `FAT_MARGIN` when it last moved.
    fat: Vec<Aabb>,
    broad_phase: BroadPhase,
    pairs: Vec<[u32; 2]>,
    data: Vec<T>,
    /// The lists being built while the old ones are read; they take turns.
    pairs_next: Vec<[u32; 2]>,
    data_next: Vec<T>,
    /// This update's moved colliders, as a list and as a flag per collider.
    moved: Vec<u32>,
    is_moved: Vec<bool>,
    /// Per collider, how many pairs of `pairs` it is in, when `degree_counted`: counted
    /// at the first query after the lists changed, not at every change (a scene whose
    /// every body moves sweeps at every step and never asks; the count was a serial pass
    /// over every pair, 1.5 % of washer's step on two threads).
    degree: Vec<u32>,
    degree_counted: bool,
    /// The incremental path's scratch: a tree over the fat boxes (as they were at its last
    /// query: sweeps of all neither use nor refit it), refitted `refits` times since it
    /// was built, and the pairs the queries found (per task of `QUERIES_PER_TASK`, then
    /// all in order).
    tree: QueryTree,
    refits: u32,
    task_found: Vec<Vec<[u32; 2]>>,
    found: Vec<[u32; 2]>,
    /// The merges' scratch (`merge_found`): where each block of the old list ends in the
    /// new one, and the pairs each block dropped.
    block_ends: Vec<u32>,
    block_dropped: Vec<Vec<([u32; 2], T)>>,
    /// The pairs the last update removed, with their data.
    dropped: Vec<([u32; 2], T)>,
    /// Colliders removed since the last update (see `remove`).
    removed: Vec<u32>,
    /// Which pair list this is: a number drawn afresh (`next_generation`) each time the
    /// list changes, so that a list elsewhere known to be this one (the GPU world's, on
    /// the device) can tell that it still is (`apply`). 0: the empty list of a new set.
    generation: u64,
}

/// What a snapshot keeps of a pair set (`PairSet::saved`): fat boxes, pairs, their data,
/// colliders removed since the last update.
pub(crate) type SavedPairs<'a, T> = (&'a [Aabb], &'a [[u32; 2]], &'a [T], &'a [u32]);

/// The fat boxes brought up to date with `boxes`: one that no longer holds its tight box,
/// and one of a new collider, becomes the tight box grown by [`FAT_MARGIN`]; `moved` hears
/// each such collider. Boxes past `boxes` are dropped. Returns how many moved. (The GPU's
/// persistent face runs it on the host too: the sweep's bands are fitted to the fat boxes
/// there.)
pub(crate) fn fatten(fat: &mut Vec<Aabb>, boxes: &[Aabb], mut moved: impl FnMut(usize)) -> usize {
    let old_count = fat.len().min(boxes.len());
    fat.truncate(boxes.len());
    let mut count = 0;
    for (i, (fat, tight)) in fat.iter_mut().zip(boxes).enumerate() {
        if !fat.contains(tight) {
            *fat = tight.expanded(FAT_MARGIN);
            moved(i);
            count += 1;
        }
    }
    for (i, tight) in boxes.iter().enumerate().skip(old_count) {
        fat.push(tight.expanded(FAT_MARGIN));
        moved(i);
        count += 1;
    }
    count
}

/// When more than one collider in `FULL_SWEEP_SHARE` moved, the update sweeps every fat box
/// again rather than query the moved ones: a sweep is linear in the colliders, a query
/// costs a descent of the tree per moved collider. (With the tree, 2 and 4 measured the
/// same on large_pyramid; 1, queries always, made the falling pile's broad phase over its
/// first 120 steps three times slower.)
const FULL_SWEEP_SHARE: usize = 4;

/// Old pairs per block of the merges (`merge_found`): a comparison and a copy of a pair's
/// data each, some 10 ns, so a block is tens of microseconds, worth a steal.
const PAIRS_PER_TASK: usize = 4096;

/// Moved colliders per task of the queries: 64 tree queries a task make rayon's overhead
/// per task (about a microsecond) small, and a settling pyramid's steps, which move a few
/// hundred colliders, still make several tasks to share (large_pyramid, two threads: the
/// broad phase 0.043 -> 0.038 ms a step).
const QUERIES_PER_TASK: usize = 64;

/// Refits of the query tree before it is built anew. A build sorts the boxes (10,000 of
/// them took about 1.4 ms in the pile scene), a refit is one pass over boxes and nodes;
/// the fat boxes of a settling scene drift little between builds, so a refitted tree stays
/// tight: 20, 60 and 1,000 gave the same broad phase on large_pyramid (0.044 ms a step).
const REBUILD_EVERY: u32 = 20;

impl<T: Copy + Default + Send + Sync> PairSet<T> {
    /// Brings the fat boxes and the pairs up to date with the colliders' `boxes`, keeping
    /// only the pairs `keep` accepts; returns how many colliders left their fat boxes (all
    /// of them the first time, and the new ones when colliders were added).
    pub fn update(&mut self, boxes: &[Aabb], keep: impl Fn([u32; 2]) -> bool + Sync) -> usize {
        let count_changed = self.fat.len() != boxes.len();
        let moved = self.fatten_boxes(boxes);
        if moved == 0 {
            return 0;
        }
        if count_changed || moved * FULL_SWEEP_SHARE > boxes.len() {
            self.sweep_all(&keep);
        } else if !self.query_moved(&keep) {
            // No pair came or went: the lists stay as they are.
            return moved;
        }
        self.take_next_lists();
        moved
    }

    /// The first half of [`update`](Self::update): the fat boxes brought up to date with
    /// `boxes`, the colliders that left theirs (and the removed ones) marked as moved, and
    /// last update's dropped pairs forgotten. Returns how many moved. The pairs are then
    /// found again by [`sweep`](Self::sweep), or taken from elsewhere by
    /// [`apply`](Self::apply); with none moved, they stay as they are.
    pub fn fatten_boxes(&mut self, boxes: &[Aabb]) -> usize {
        self.is_moved.clear();
        self.is_moved.resize(boxes.len(), false);
        self.moved.clear();
        self.dropped.clear();
        let (is_moved, moved) = (&mut self.is_moved, &mut self.moved);
        fatten(&mut self.fat, boxes, |i| {
            is_moved[i] = true;
            moved.push(i as u32);
        });
        // A removed collider's empty fat box holds its empty tight box: the loop above did
        // not see it move, but its pairs must go.
        for r in self.removed.drain(..) {
            let i = r as usize;
            if i < boxes.len() && !self.is_moved[i] {
                self.is_moved[i] = true;
                self.moved.push(r);
            }
        }
        self.moved.len()
    }

    /// After [`fatten_boxes`](Self::fatten_boxes): the pairs found again by sweep-and-prune
    /// over every fat box, keeping those `keep` accepts (`update`'s sweep, each pair's data
    /// carried over).
    pub fn sweep(&mut self, keep: impl Fn([u32; 2]) -> bool + Sync) {
        self.sweep_all(&keep);
        self.take_next_lists();
    }

    /// The lists built into `pairs_next` and `data_next` become the set's.
    fn take_next_lists(&mut self) {
        // The lists take turns: keep the spare ones as large as the ones in use, so that a
        // warm set does not allocate when its pair count alternates between updates.
        std::mem::swap(&mut self.pairs, &mut self.pairs_next);
        std::mem::swap(&mut self.data, &mut self.data_next);
        self.pairs_next.reserve(self.pairs.len());
        self.data_next.reserve(self.data.len());
        self.degree_counted = false;
        self.generation = apply::next_generation();
    }

    /// The new pair list from sweep-and-prune over every fat box, each pair's data carried
    /// over from the old list where it was there; the old pairs the sweep did not find are
    /// dropped.
    fn sweep_all(&mut self, keep: &(impl Fn([u32; 2]) -> bool + Sync)) {
        self.found.clear();
        let swept = self.broad_phase.find_pairs_where(&self.fat, keep);
        self.found.extend_from_slice(swept);
        // An old pair stays exactly when the sweep found it again.
        self.merge_found(|_, found_again| found_again);
    }

    /// The new pair list from the old one: pairs of a moved collider whose fat boxes parted
    /// leave, and each moved collider's fat box is queried against the others for new ones.
    /// Returns false, with no new list built, when that would be the old one.
    fn query_moved(&mut self, keep: &(impl Fn([u32; 2]) -> bool + Sync)) -> bool {
        // The tree over the fat boxes, brought up to date: refitted while it is young,
        // built anew now and then (a refit keeps the tree's shape, whose splits go stale as
        // the boxes move) and when colliders came or went. A falling pile alternates
        // between sweeps and queries: a build after each sweep made its broad phase 5 %
        // slower than the old x-sorted scan.
        if self.refits < REBUILD_EVERY && self.tree.len() == self.fat.len() {
            self.tree.refit(&self.fat);
            self.refits += 1;
        } else {
            self.tree.build(&self.fat);
            self.refits = 0;
        }
        // The queries run over the rayon pool, each task into its own list; `found` is
        // sorted below, so the threads change nothing of the outcome.
        let tasks = self.moved.len().div_ceil(QUERIES_PER_TASK);
        if self.task_found.len() < tasks {
            self.task_found.resize_with(tasks, Vec::new);
        }
        let (fat, tree, is_moved) = (&self.fat, &self.tree, &self.is_moved);
        self.moved
            .par_chunks(QUERIES_PER_TASK)
            .zip(self.task_found[..tasks].par_iter_mut())
            .with_min_len(parallel::min_len(1))
            .for_each(|(moved, found)| {
                found.clear();
                for &m in moved {
                    tree.boxes(&fat[m as usize], |o| {
                        let o = o as u32;
                        // A pair of two moved colliders is found from its first one only.
                        if o != m && (!is_moved[o as usize] || m < o) {
                            let pair = if m < o { [m, o] } else { [o, m] };
                            if keep(pair) {
                                found.push(pair);
                            }
                        }
                        true
                    });
                }
            });
        self.found.clear();
        for found in &self.task_found[..tasks] {
            self.found.extend_from_slice(found);
        }
        self.found.sort_unstable();
        self.found.dedup();
        if !self.degree_counted {
            self.degree.clear();
            self.degree.resize(self.fat.len(), 0);
            for &[a, b] in &self.pairs {
                self.degree[a as usize] += 1;
                self.degree[b as usize] += 1;
            }
            self.degree_counted = true;
        }
        // Most updates of a settled scene change no pair: a few colliders crept out of their
        // fat boxes, which grew around them again, and every pair they had still holds.
        // Then the lists stay, instead of being copied whole (a pair's data is a kept
        // manifold: 15,000 pairs of large_pyramid made a megabyte a step).
        if self.moved_pairs_stay() {
            return false;
        }
        // Out of `self` while the merge reads them (a move, not a copy).
        let fat = std::mem::take(&mut self.fat);
        let is_moved = std::mem::take(&mut self.is_moved);
        // A moved collider's pairs are tested again: its fat box moved, or its filter
        // changed (see `invalidate`).
        self.merge_found(|&[a, b], _| {
            let moved = is_moved[a as usize] || is_moved[b as usize];
            !moved || (fat[a as usize].overlaps(&fat[b as usize]) && keep([a, b]))
        });
        self.fat = fat;
        self.is_moved = is_moved;
        true
    }

    /// The next lists from the old pairs and `found` (both ascending): the old pairs that
    /// `holds` (given whether `found` has them too) with their data, and the found pairs
    /// not among them with none; the old ones that do not hold are dropped.
    ///
    /// In blocks of the old list over the pool (every pair's data is copied, and a scene
    /// whose every body moves, as washer's, does this at every step: a tenth of its step
    /// on one thread). Each block counts what it writes, then writes it at the sum of the
    /// counts before it: the lists are the one merge's, whatever the blocks.
    fn merge_found(&mut self, holds: impl Fn(&[u32; 2], bool) -> bool + Sync) {
        let (pairs, found) = (&self.pairs, &self.found);
        let blocks = pairs.len().div_ceil(PAIRS_PER_TASK).max(1);
        // Block j takes the found pairs from the first one not below its first old pair
        // (found pairs between two blocks' old ones go with the earlier block).
        let found_start = |j: usize| match j {
            0 => 0,
            j if j >= blocks => found.len(),
            j => found.partition_point(|p| *p < pairs[j * PAIRS_PER_TASK]),
        };
        let block = |j: usize| {
            let old = j * PAIRS_PER_TASK..((j + 1) * PAIRS_PER_TASK).min(pairs.len());
            (old, found_start(j)..found_start(j + 1))
        };
        self.block_ends.clear();
        self.block_ends.resize(blocks, 0);
        self.block_ends
            .par_iter_mut()
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(j, end)| {
                let (old, new) = block(j);
                merge_block(pairs, found, old, new, &holds, |step| {
                    *end += u32::from(!matches!(step, Merged::Dropped(_)));
                });
            });
        let mut total = 0;
        for end in &mut self.block_ends {
            total += *end;
            *end = total;
        }
        // No clear first: the write pass below writes every slot, so only a longer list's
        // new tail is filled here (filling all of it was a serial pass over every pair's
        // data, 72 bytes each: 5 % of washer's step on two threads).
        self.pairs_next.resize(total as usize, [0, 0]);
        self.data_next.resize(total as usize, T::default());
        if self.block_dropped.len() < blocks {
            self.block_dropped.resize_with(blocks, Vec::new);
        }
        let out = (
            SharedOut::new(&mut self.pairs_next),
            SharedOut::new(&mut self.data_next),
        );
        let (data, block_ends) = (&self.data, &self.block_ends);
        self.block_dropped[..blocks]
            .par_iter_mut()
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(j, dropped)| {
                dropped.clear();
                let (old, new) = block(j);
                let mut at = if j == 0 {
                    0
                } else {
                    block_ends[j - 1] as usize
                };
                merge_block(pairs, found, old, new, &holds, |step| {
                    let (pair, value) = match step {
                        Merged::Kept(o) => (pairs[o], data[o]),
                        Merged::Found(f) => (found[f], T::default()),
                        Merged::Dropped(o) => {
                            dropped.push((pairs[o], data[o]));
                            return;
                        }
                    };
                    // SAFETY: `at` runs over this block's own range of the output (the
                    // counting pass above sized it: `block_ends`), which no other block
                    // writes, and the lists were sized to the total.
                    unsafe {
                        out.0.write(at, pair);
                        out.1.write(at, value);
                    }
                    at += 1;
                });
            });
        for dropped in &self.block_dropped[..blocks] {
            self.dropped.extend_from_slice(dropped);
        }
    }

    /// Whether the moved colliders' pairs are the ones the queries found (`found`), so that
    /// the lists stand as they are, without a walk over every pair.
    ///
    /// `found` holds every pair of a moved collider that holds now (each moved fat box was
    /// queried against all the others, `keep` applied). The old pairs of moved colliders
    /// are the same set when every found pair is among them and they are as many, counted
    /// by moved ends: the old ones' count is the moved colliders' degrees summed (a pair of
    /// two moved colliders counts twice on both sides). Each pair counts at least once, so
    /// equal sums over a subset and its superset leave nothing over.
    fn moved_pairs_stay(&self) -> bool {
        let moved_ends = |&[a, b]: &[u32; 2]| {
            u64::from(self.is_moved[a as usize]) + u64::from(self.is_moved[b as usize])
        };
        let old_ends: u64 = self
            .moved
            .iter()
            .map(|&m| u64::from(self.degree[m as usize]))
            .sum();
        let found_ends: u64 = self.found.iter().map(moved_ends).sum();
        if old_ends != found_ends {
            return false;
        }
        // Both lists ascend: each search starts past the last pair found.
        let mut from = 0;
        self.found
            .iter()
            .all(|p| match self.pairs[from..].binary_search(p) {
                Ok(at) => {
                    from += at + 1;
                    true
                }
                Err(_) => false,
            })
    }

    /// Makes the next update treat `collider` as moved: its fat box is made again and its
    /// pairs are tested again against the boxes and `keep` (which may say otherwise now: a
    /// collision filter changed). Out of range, nothing.
    pub fn invalidate(&mut self, collider: usize) {
        if let Some(fat) = self.fat.get_mut(collider) {
            // A box no tight box is inside but an empty one (a removed collider's, whose
            // slot `remove` has already marked).
            *fat = Aabb::EMPTY;
        }
    }

    /// Takes `collider` out: its fat box overlaps nothing from now on, and the next update
    /// drops its pairs (into `dropped`, as any pair that parts) at the cost of a query, not
    /// a sweep. The caller's box for it must be empty as well (`Aabb::EMPTY`) until a new
    /// collider takes the slot, which then joins as a moved one.
    pub fn remove(&mut self, collider: usize) {
        if let Some(fat) = self.fat.get_mut(collider) {
            *fat = Aabb::EMPTY;
            self.removed.push(collider as u32);
        }
    }

    /// The pairs the last update removed (their fat boxes parted, or `keep` refused them
    /// after an `invalidate`), in ascending order, with the data they held.
    pub fn dropped(&self) -> &[([u32; 2], T)] {
        &self.dropped
    }

    /// What a snapshot keeps of the set (`world/snapshot/`): the fat boxes, the pairs
    /// with their data, and the colliders removed since the last update. The rest is
    /// scratch, or counted again (`restored`).
    pub fn saved(&self) -> SavedPairs<'_, T> {
        (&self.fat, &self.pairs, &self.data, &self.removed)
    }

    /// A set of `saved`'s parts, which the caller checked (pairs ascending, `a < b`, both
    /// below the fat boxes' count; one datum per pair). The degrees are counted and the
    /// tree is built at the first query: neither changes which pairs an update finds.
    pub fn restored(fat: Vec<Aabb>, pairs: Vec<[u32; 2]>, data: Vec<T>, removed: Vec<u32>) -> Self {
        PairSet {
            fat,
            pairs,
            data,
            removed,
            generation: apply::next_generation(),
            ..PairSet::default()
        }
    }

    /// `saved`'s lists, emptied, for `restored` to fill again in the same memory (a world
    /// restored over another: no fresh pages to fault in).
    pub fn into_buffers(self) -> (Vec<Aabb>, Vec<[u32; 2]>, Vec<T>, Vec<u32>) {
        let (mut fat, mut pairs, mut data, mut removed) =
            (self.fat, self.pairs, self.data, self.removed);
        fat.clear();
        pairs.clear();
        data.clear();
        removed.clear();
        (fat, pairs, data, removed)
    }

    /// The pairs `[a, b]`, `a < b`, whose fat boxes overlap, in ascending order.
    pub fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// The pairs with each pair's data, which the caller may change.
    pub fn pairs_and_data_mut(&mut self) -> (&[[u32; 2]], &mut [T]) {
        (&self.pairs, &mut self.data)
    }
}

/// One step of the incremental merge (`merge_block`): an old pair kept, a found pair that
/// is new, or an old pair dropped, by index into its list.
enum Merged {
    Kept(usize),
    Found(usize),
    Dropped(usize),
}

/// Merges the old pairs `pairs[old]` with the found ones `found[new]` (both ascending):
/// an old pair stays if it `holds` (told whether it was found again), a found pair already
/// among the old ones is that one, and a found pair that is not is new. Tells each step to
/// `out`, in the merged order.
fn merge_block(
    pairs: &[[u32; 2]],
    found: &[[u32; 2]],
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
    holds: &impl Fn(&[u32; 2], bool) -> bool,
    mut out: impl FnMut(Merged),
) {
    let (mut o, mut f) = (old.start, new.start);
    while o < old.end || f < new.end {
        let take_old = f == new.end || (o < old.end && pairs[o] <= found[f]);
        if take_old {
            let found_again = f < new.end && found[f] == pairs[o];
            if found_again {
                f += 1;
            }
            out(if holds(&pairs[o], found_again) {
                Merged::Kept(o)
            } else {
                Merged::Dropped(o)
            });
            o += 1;
        } else {
            out(Merged::Found(f));
            f += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn unit_box(x: f32, y: f32) -> Aabb {
        Aabb::new(Vec2::new(x, y), Vec2::new(x + 1.0, y + 1.0))
    }

    #[test]
    fn a_pair_lives_while_its_fat_boxes_overlap_and_keeps_its_data() {
        let mut set = PairSet::<u32>::default();
        let mut boxes = vec![unit_box(0.0, 0.0), unit_box(0.5, 0.0), unit_box(5.0, 0.0)];
        assert_eq!(set.update(&boxes, |_| true), 3);
        assert_eq!(set.pairs(), &[[0, 1]]);
        set.pairs_and_data_mut().1[0] = 7;

        // A creep inside the fat box moves nothing.
        boxes[1] = unit_box(0.55, 0.02);
        assert_eq!(set.update(&boxes, |_| true), 0);
        assert_eq!(set.pairs_and_data_mut().1, &[7]);

        // Box 1 leaves its fat box but meets no one new and keeps box 0: queried, and the
        // set stays as it was, data and all.
        boxes[1] = unit_box(0.7, 0.0);
        assert_eq!(set.update(&boxes, |_| true), 1);
        assert_eq!(set.pairs(), &[[0, 1]]);
        assert_eq!(set.pairs_and_data_mut().1, &[7]);
        assert!(set.dropped().is_empty());

        // Box 2 leaves its fat box and meets box 1: a new pair, with default data, and the
        // old pair keeps its own.
        boxes[2] = unit_box(1.0, 0.0);
        assert_eq!(set.update(&boxes, |_| true), 1);
        assert_eq!(set.pairs(), &[[0, 1], [0, 2], [1, 2]]);
        assert_eq!(set.pairs_and_data_mut().1, &[7, 0, 0]);

        // Tight boxes 0 and 2 part but their fat boxes still overlap: the pair stays.
        boxes[0] = unit_box(0.35, 0.0);
        boxes[2] = unit_box(1.45, 0.0);
        set.update(&boxes, |_| true);
        assert!(set.pairs().contains(&[0, 2]));

        // Far apart: the pair ends, and comes back afresh.
        boxes[2] = unit_box(9.0, 0.0);
        set.update(&boxes, |_| true);
        assert_eq!(set.pairs(), &[[0, 1]]);
        assert_eq!(set.pairs_and_data_mut().1, &[7]);
        boxes[2] = unit_box(1.0, 0.0);
        set.update(&boxes, |_| true);
        assert_eq!(set.pairs_and_data_mut().1, &[7, 0, 0]);
    }

    #[test]
    fn queries_and_sweeps_keep_exactly_the_overlapping_fat_boxes_and_their_data() {
        check_queries_and_sweeps(400, 40.0, 300);
    }

    #[test]
    fn the_merges_blocks_over_the_pool_give_the_one_merges_pairs_data_and_drops() {
        // Some 10,000 pairs: three blocks of `PAIRS_PER_TASK` in the merges.
        check_queries_and_sweeps(4000, 100.0, 40);
    }

    /// `count` small boxes in a strip `2 * half_width` wide on a wide ground, moved at
    /// random over `updates` updates (most move a few, every tenth most of them): after
    /// each, the pairs are exactly the overlapping fat boxes `keep` accepts, a pair that
    /// stayed keeps its data, a new one has none, and the dropped ones are exactly the
    /// pairs that left, with their data.
    fn check_queries_and_sweeps(count: usize, half_width: f32, updates: usize) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        // A ground far wider than the rest, and the small boxes in a strip.
        let ground = 1.25 * half_width;
        let mut boxes = vec![Aabb::new(Vec2::new(-ground, -1.0), Vec2::new(ground, 0.0))];
        for _ in 0..count {
            let (x, y) = (
                rng.random_range(-half_width..half_width),
                rng.random_range(0.0..8.0),
            );
            boxes.push(Aabb::new(Vec2::new(x, y), Vec2::new(x + 0.5, y + 0.5)));
        }
        let keep = |[a, b]: [u32; 2]| (a + b) % 7 != 0;
        let tag = |[a, b]: [u32; 2]| a * 100_000 + b + 1;
        let mut set = PairSet::<u32>::default();
        let (mut queried, mut swept) = (0, 0);
        let mut before: Vec<[u32; 2]> = Vec::new();
        for update in 0..updates {
            // Most updates move a few boxes (queries), some move most (sweeps); each moves
            // by a step or a jump.
            let share = if update % 10 == 0 { 0.8 } else { 0.03 };
            for b in boxes.iter_mut().skip(1) {
                if rng.random_bool(share) {
                    let step = if rng.random_bool(0.1) { 3.0 } else { 0.15 };
                    let d = Vec2::new(rng.random_range(-step..step), rng.random_range(-step..step));
                    *b = Aabb::new(b.min + d, b.max + d);
                }
            }
            let moved = set.update(&boxes, keep);
            if moved * FULL_SWEEP_SHARE > boxes.len() {
                swept += 1;
            } else if moved > 0 {
                queried += 1;
            }
            let mut expected = Vec::new();
            for a in 0..boxes.len() as u32 {
                for b in a + 1..boxes.len() as u32 {
                    if keep([a, b]) && set.fat[a as usize].overlaps(&set.fat[b as usize]) {
                        expected.push([a, b]);
                    }
                }
            }
            assert_eq!(set.pairs(), &expected[..], "update {update}");
            let gone: Vec<([u32; 2], u32)> = before
                .iter()
                .filter(|p| expected.binary_search(p).is_err())
                .map(|&p| (p, tag(p)))
                .collect();
            if moved > 0 {
                assert_eq!(set.dropped(), &gone[..], "update {update}: dropped");
            }
            let (pairs, data) = set.pairs_and_data_mut();
            for (&pair, d) in pairs.iter().zip(data.iter_mut()) {
                // A pair that stayed has the tag it got when it came; a new one has none.
                let stayed = before.binary_search(&pair).is_ok();
                let wanted = if stayed { tag(pair) } else { 0 };
                assert_eq!(*d, wanted, "update {update}: {pair:?} (stayed: {stayed})");
                *d = tag(pair);
            }
            before = pairs.to_vec();
        }
        assert!(
            queried > updates * 2 / 3 && swept >= updates / 10,
            "{queried} queried, {swept} swept"
        );
    }

    #[test]
    fn keep_filters_pairs_and_new_colliders_join() {
        let mut set = PairSet::<u8>::default();
        let mut boxes = vec![unit_box(0.0, 0.0), unit_box(0.5, 0.5)];
        set.update(&boxes, |[a, _]| a != 0);
        assert!(set.pairs().is_empty());
        boxes.push(unit_box(1.0, 1.0));
        assert_eq!(set.update(&boxes, |[a, _]| a != 0), 1);
        assert_eq!(set.pairs(), &[[1, 2]]);
    }
}
