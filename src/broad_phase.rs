//! Sweep-and-prune broad phase over axis-aligned bounding boxes.
//!
//! ```text
//! find_pairs(boxes):
//!     order = box indices sorted by min.x     (kept from the last call and re-sorted by
//!                                              insertion sort: bodies move little per step)
//!     for each box i in that order:
//!         for each later box j while j.min.x <= i.max.x:   // x intervals overlap
//!             if the y intervals overlap: emit (min(i, j), max(i, j))
//!     sort the pairs ascending
//! ```
//!
//! Boxes are closed: touching boxes form a pair. A box with a NaN coordinate overlaps
//! nothing.

use crate::aabb::Aabb;

/// Sweep-and-prune broad phase. Holds only scratch state (the sort order of the last call
/// and the pair buffer), reused between calls so that a warm broad phase allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// Box indices sorted by `min.x` at the last call.
    order: Vec<u32>,
    pairs: Vec<[u32; 2]>,
}

impl BroadPhase {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// All pairs `[a, b]` of boxes that overlap or touch, with `a < b`, in ascending order.
    /// The slice lives until the next call.
    pub fn find_pairs(&mut self, aabbs: &[Aabb]) -> &[[u32; 2]] {
        self.sort_by_min_x(aabbs);
        self.pairs.clear();
        for (k, &i) in self.order.iter().enumerate() {
            let a = &aabbs[i as usize];
            for &j in &self.order[k + 1..] {
                let b = &aabbs[j as usize];
                if b.min.x > a.max.x {
                    break;
                }
                // The full test, not just y: it is false for NaN coordinates, which sort
                // past every finite box and never trigger the break above.
                if a.overlaps(b) {
                    self.pairs.push(if i < j { [i, j] } else { [j, i] });
                }
            }
        }
        self.pairs.sort_unstable();
        &self.pairs
    }

    /// Brings `order` up to date: insertion sort from the last call's order while the boxes
    /// are nearly sorted, a full sort when the count changed or too much has moved.
    fn sort_by_min_x(&mut self, aabbs: &[Aabb]) {
        let key = |i: u32| aabbs[i as usize].min.x;
        if self.order.len() != aabbs.len() {
            self.order.clear();
            self.order.extend(0..aabbs.len() as u32);
            self.order
                .sort_unstable_by(|&i, &j| key(i).total_cmp(&key(j)));
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
                self.order
                    .sort_unstable_by(|&i, &j| key(i).total_cmp(&key(j)));
                return;
            }
        }
    }
}
