//! Pair-set changes found elsewhere, applied (`PairSet::apply`): the GPU world's device
//! keeps a copy of the world's pair set and finds its begun and ended pairs over the
//! world's own fat boxes (`gpu/world/pairs.rs`); the host merges them into its lists, which
//! `update` would otherwise find by its sweep or its queries.
//!
//! ```text
//! fatten_boxes(boxes)                       the fat boxes, the moved colliders (mod.rs)
//! apply(begun, ended, count):
//!     the changes must be of this list: each pair list draws a fresh `generation`,
//!         and the caller knows which list the copy elsewhere holds
//!     one merge walk over the old list and the begun pairs (both ascending): the ended
//!         pairs go to `dropped` with their data, the begun get default data
//!     a begun pair already held, an ended one not held, another count: nothing applied
//! ```

use super::PairSet;

/// A number no pair list has had: the lists of every set in the process draw from it.
pub(super) fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<T: Copy + Default + Send + Sync> PairSet<T> {
    /// After [`fatten_boxes`](Self::fatten_boxes): the pairs that began and ended (each
    /// ascending), found elsewhere over these fat boxes with the same rule (the GPU's
    /// persistent pairs), applied to the set, which then holds `count` pairs: the begun
    /// with default data, the ended into `dropped` with theirs. The caller knows the
    /// changes are of this list ([`generation`](Self::generation)); should they not fit it
    /// all the same (a begun pair already in it, an ended one not, another count), nothing
    /// is applied and `false` is returned.
    pub fn apply(&mut self, begun: &[[u32; 2]], ended: &[[u32; 2]], count: usize) -> bool {
        if self.pairs.len() + begun.len() != count + ended.len() {
            return false;
        }
        self.pairs_next.clear();
        self.data_next.clear();
        self.dropped.clear();
        let (mut b, mut e) = (0, 0);
        for (&pair, &datum) in self.pairs.iter().zip(&self.data) {
            while b < begun.len() && begun[b] < pair {
                self.pairs_next.push(begun[b]);
                self.data_next.push(T::default());
                b += 1;
            }
            let ends = e < ended.len() && ended[e] == pair;
            if (b < begun.len() && begun[b] == pair) || (e < ended.len() && ended[e] < pair) {
                self.dropped.clear();
                return false;
            }
            if ends {
                self.dropped.push((pair, datum));
                e += 1;
            } else {
                self.pairs_next.push(pair);
                self.data_next.push(datum);
            }
        }
        if e < ended.len() {
            self.dropped.clear();
            return false;
        }
        self.pairs_next.extend_from_slice(&begun[b..]);
        self.data_next.resize(self.pairs_next.len(), T::default());
        self.take_next_lists();
        true
    }

    /// Which pair list the set holds: equal for two sets whose lists are the same since
    /// one was cloned from the other (or both are new), else different.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::shapes::aabb::Aabb;

    fn unit_box(x: f32, y: f32) -> Aabb {
        Aabb::new(Vec2::new(x, y), Vec2::new(x + 1.0, y + 1.0))
    }

    /// Changes found elsewhere (here: the difference of two updates of a second set over
    /// the same boxes) applied after `fatten_boxes` give `update`'s lists, data and
    /// dropped pairs; changes that do not fit the list are refused and change nothing.
    #[test]
    fn applied_changes_give_the_updates_set_and_misfits_are_refused() {
        let mut rng = 0x2545_f491_u32;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            (rng % 1000) as f32 / 1000.0
        };
        let mut boxes: Vec<Aabb> = (0..300)
            .map(|_| unit_box(30.0 * next(), 30.0 * next()))
            .collect();
        let (mut updated, mut applied) = (PairSet::<u32>::default(), PairSet::<u32>::default());
        let keep = |[a, b]: [u32; 2]| (a + b) % 5 != 0;
        updated.update(&boxes, keep);
        applied.update(&boxes, keep);
        for (k, d) in updated.pairs_and_data_mut().1.iter_mut().enumerate() {
            *d = k as u32 + 1;
        }
        for (k, d) in applied.pairs_and_data_mut().1.iter_mut().enumerate() {
            *d = k as u32 + 1;
        }
        let mut changed = 0;
        for step in 0..20 {
            for (i, b) in boxes.iter_mut().enumerate() {
                if (i + step) % 11 == 0 {
                    *b = unit_box(30.0 * next(), 30.0 * next());
                }
            }
            let before = updated.pairs().to_vec();
            let moved = updated.update(&boxes, keep);
            let after = updated.pairs().to_vec();
            let begun: Vec<_> = after
                .iter()
                .filter(|p| !before.contains(p))
                .copied()
                .collect();
            let ended: Vec<_> = before
                .iter()
                .filter(|p| !after.contains(p))
                .copied()
                .collect();
            assert_eq!(applied.fatten_boxes(&boxes), moved);
            // Misfits first: a begun pair the list has, an ended one it lacks, a count off.
            if let Some(&held) = before.first() {
                let generation = applied.generation();
                assert!(!applied.apply(&[held], &[], before.len() + 1));
                assert!(!applied.apply(&[], &[[held[0], 9999]], before.len() - 1));
                assert!(!applied.apply(&begun, &ended, after.len() + 1));
                assert_eq!(
                    (applied.pairs(), applied.generation()),
                    (&before[..], generation)
                );
            }
            assert!(applied.apply(&begun, &ended, after.len()), "step {step}");
            assert_eq!(applied.pairs(), updated.pairs(), "step {step}");
            assert_eq!(applied.dropped(), updated.dropped(), "step {step}");
            assert_eq!(
                applied.pairs_and_data_mut().1,
                updated.pairs_and_data_mut().1,
                "step {step}: the data carried over"
            );
            changed += begun.len() + ended.len();
        }
        assert!(changed > 100, "{changed}");
    }
}
