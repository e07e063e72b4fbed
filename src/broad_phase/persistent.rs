//! Persistent pairs over fat boxes, with filters, as changes: the CPU twin of the GPU broad
//! phase's persistent face ([`GpuBroadPhase::update_pairs`](crate::gpu::GpuBroadPhase::update_pairs),
//! `shaders/pair_set.wgsl`), function for function.
//!
//! ```text
//! update_with(boxes, filters, apart):
//!     fatten (pair_set/, shared with the world's set): a box that left its fat box (or
//!         is new) gets a new one, grown by FAT_MARGIN
//!     none did, no collider came or went, no filter or kept-apart pair changed: no change
//!         (nothing to do)
//!     found = the sort-and-sweep pairs of the fat boxes (sort_sweep.rs), ascending
//!     keep_flags: 1 for each found pair whose colliders may touch (keep_pair: of two
//!         bodies, whose types pair, not two sensors, each filter accepting the other, the
//!         two bodies not kept apart by a joint), 0 else; exclusive scan; compact_pairs:
//!         the kept pairs, still ascending: the new set
//!     change_flags(new set, old set): 1 for each new pair the old set lacks; scan;
//!         compact_pairs: the begun pairs
//!     change_flags(old set, new set): 1 for each old pair the new set lacks; scan;
//!         compact_pairs: the ended pairs
//! ```
//!
//! The set is what the world's own pair set (`pair_set/`) holds for the same boxes and
//! rule (the world's rule, given as each collider's [`PairFilter`] and the body pairs its
//! joints keep apart): a pair is in it from the update its fat boxes first overlap
//! (touching counts) until the update they part, so per-pair data (a kept manifold) can
//! hang on it; a tight box that stays inside its fat box changes nothing. Unlike the world's set, the rule is
//! asked of every found pair at every update, so a changed filter takes effect at once. The
//! changes are what a caller needs to follow the set without reading it: they are small
//! where the set is large (a settled pile's pairs stay, its changes are none).
//!
//! Every stage is a map, a scan or a binary search over ascending lists, so the GPU's lists
//! are these to the element: no atomic decides an order.

use crate::broad_phase::filter::{BodyType, Filter, types_pair};
use crate::broad_phase::pair_set::fatten;
use crate::broad_phase::scan::exclusive_scan;
use crate::broad_phase::sort_sweep::{check_boxes, sort_sweep};
use crate::error::{BatchError, Error};
use crate::shapes::aabb::Aabb;

/// What decides whether a collider pairs with another, as the world decides it: its
/// collision [`Filter`], the body it belongs to (two colliders of one body never pair), the
/// body's type and whether the collider is a sensor (one body dynamic, or a sensor and a
/// kinematic body; two sensors never pair).
// No `Default`: a default body would put every collider on one body, which pairs with nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairFilter {
    /// Categories, mask and group, as the world's colliders have them.
    pub filter: Filter,
    /// The body's id, any number the caller chooses: colliders with the same one never
    /// pair.
    pub body: u32,
    /// The body's type ([`PairFilter::new`]: dynamic, which pairs with any).
    pub body_type: BodyType,
    /// Whether the collider is a sensor.
    pub sensor: bool,
}

impl PairFilter {
    /// A collider of body `body`, dynamic, that is no sensor: `filter` and the body alone
    /// decide its pairs.
    pub fn new(filter: Filter, body: u32) -> PairFilter {
        PairFilter {
            filter,
            body,
            body_type: BodyType::Dynamic,
            sensor: false,
        }
    }
}

/// What an update changed: the set's size, and the pairs that came and went, each list
/// ascending (`[a, b]` with `a < b`, by `a` then `b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairChanges<'a> {
    /// Pairs in the set after the update.
    pub pairs: usize,
    /// Pairs in the set now that were not before.
    pub begun: &'a [[u32; 2]],
    /// Pairs in the set before that are not now.
    pub ended: &'a [[u32; 2]],
}

/// The persistent pair set on the CPU, the twin of the GPU broad phase's: fat boxes, the
/// pairs whose fat boxes overlap and whose filters accept each other, and each update's
/// changes.
///
/// ```
/// use wgpu_sat::{glam::Vec2, Aabb, Filter};
/// use wgpu_sat::broad_phase::{PairFilter, PersistentPairs};
/// let mut set = PersistentPairs::new();
/// let at = |x: f32| Aabb::new(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 1.0));
/// let filters = [PairFilter::new(Filter::default(), 0), PairFilter::new(Filter::default(), 1)];
/// let changes = set.update(&[at(0.0), at(0.5)], &filters)?;
/// assert_eq!(changes.begun, [[0, 1]]);
/// // Apart: the pair ends.
/// let changes = set.update(&[at(0.0), at(3.0)], &filters)?;
/// assert_eq!((changes.pairs, changes.ended), (0, &[[0, 1]][..]));
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct PersistentPairs {
    fat: Vec<Aabb>,
    /// The filters and the kept-apart bodies the set was found with.
    filters: Vec<PairFilter>,
    apart: Vec<[u32; 2]>,
    pairs: Vec<[u32; 2]>,
    begun: Vec<[u32; 2]>,
    ended: Vec<[u32; 2]>,
}

impl PersistentPairs {
    /// An empty set.
    pub fn new() -> PersistentPairs {
        PersistentPairs::default()
    }

    /// Brings the fat boxes and the set up to date with the colliders' `boxes` and
    /// `filters` (one each, by collider index), and returns what changed: `update_with`
    /// with no bodies kept apart.
    ///
    /// Errors, leaving the set as it was: [`BatchError::InvalidBox`] naming the first box
    /// that is not finite or has its minimum above its maximum;
    /// [`BatchError::FilterCount`] when the two slices differ in length.
    pub fn update(
        &mut self,
        boxes: &[Aabb],
        filters: &[PairFilter],
    ) -> Result<PairChanges<'_>, Error> {
        self.update_with(boxes, filters, &[])
    }

    /// [`update`](Self::update) with the pairs of bodies that never pair whatever their
    /// filters say (`apart`: `[a, b]` with `a < b`, ascending; the bodies a joint that does
    /// not let its bodies collide connects). Errors as `update`, and
    /// [`BatchError::UnsortedApartPairs`] naming the first such pair out of order.
    pub fn update_with(
        &mut self,
        boxes: &[Aabb],
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        check_pair_input(boxes, filters)?;
        check_apart(apart)?;
        let same_colliders = boxes.len() == self.fat.len();
        let moved = fatten(&mut self.fat, boxes, |_| {});
        self.find_set(moved > 0 || !same_colliders, filters, apart)
    }

    /// [`update_with`](Self::update_with) over fat boxes the caller keeps (the world's
    /// pair set's, which fattens its own): taken as they are, none grown. Errors as
    /// `update_with`.
    pub fn update_fat(
        &mut self,
        fat: &[Aabb],
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        check_pair_input(fat, filters)?;
        check_apart(apart)?;
        let moved = self.fat != fat;
        if moved {
            self.fat.clear();
            self.fat.extend_from_slice(fat);
        }
        self.find_set(moved, filters, apart)
    }

    /// The set over the fat boxes as they now are, and its changes: none when no fat box
    /// `moved` and the rule is the last update's.
    fn find_set(
        &mut self,
        moved: bool,
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        if !moved && self.filters == filters && self.apart == apart {
            // Nothing moved and no filter changed: the set is what it was.
            self.begun.clear();
            self.ended.clear();
            return Ok(self.changes());
        }
        self.filters.clear();
        self.filters.extend_from_slice(filters);
        self.apart.clear();
        self.apart.extend_from_slice(apart);
        let found = sort_sweep(&self.fat)?;
        let mut kept = vec![0u32; found.len() + 1];
        keep_flags(&found, filters, apart, &mut kept);
        exclusive_scan(&mut kept);
        let mut set = vec![[0u32; 2]; kept[found.len()] as usize];
        compact_pairs(&found, &kept, &mut set);
        self.begun = missing_from(&set, &self.pairs);
        self.ended = missing_from(&self.pairs, &set);
        self.pairs = set;
        Ok(self.changes())
    }

    fn changes(&self) -> PairChanges<'_> {
        PairChanges {
            pairs: self.pairs.len(),
            begun: &self.begun,
            ended: &self.ended,
        }
    }

    /// The set, ascending.
    pub fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// The fat boxes, by collider.
    pub fn fat_boxes(&self) -> &[Aabb] {
        &self.fat
    }
}

/// The pairs of `items` that `other` lacks, in order: change_flags, its scan, and
/// compact_pairs.
fn missing_from(items: &[[u32; 2]], other: &[[u32; 2]]) -> Vec<[u32; 2]> {
    let mut flags = vec![0u32; items.len() + 1];
    change_flags(items, other, &mut flags);
    exclusive_scan(&mut flags);
    let mut out = vec![[0u32; 2]; flags[items.len()] as usize];
    compact_pairs(items, &flags, &mut out);
    out
}

/// The input of an update: valid boxes, and a filter for each.
pub(crate) fn check_pair_input(boxes: &[Aabb], filters: &[PairFilter]) -> Result<(), Error> {
    check_boxes(boxes)?;
    if filters.len() != boxes.len() {
        return Err(Error::Batch(BatchError::FilterCount {
            filters: filters.len(),
            boxes: boxes.len(),
        }));
    }
    Ok(())
}

/// The kept-apart pairs of an update: each `[a, b]` with `a < b`, each above the one
/// before.
pub(crate) fn check_apart(apart: &[[u32; 2]]) -> Result<(), Error> {
    let out_of_order = |k: usize| {
        let [a, b] = apart[k];
        a >= b || (k > 0 && !pair_below(apart[k - 1], apart[k]))
    };
    match (0..apart.len()).find(|&k| out_of_order(k)) {
        Some(index) => Err(Error::Batch(BatchError::UnsortedApartPairs { index })),
        None => Ok(()),
    }
}

/// Whether two colliders may pair, as the world's step decides (`World::find_pairs`): of
/// two bodies, whose types pair (a sensor among the two or not), not both sensors, each
/// filter accepting the other, and the bodies not kept apart.
pub(crate) fn keep_pair(a: &PairFilter, b: &PairFilter, apart: &[[u32; 2]]) -> bool {
    a.body != b.body
        && types_pair(a.body_type, b.body_type, a.sensor || b.sensor)
        && !(a.sensor && b.sensor)
        && a.filter.should_collide(&b.filter)
        && !holds(apart, [a.body.min(b.body), a.body.max(b.body)])
}

/// `flags[k]` = 1 when found pair `k`'s colliders may pair, else 0; `flags[len]` = 0 (the
/// scan's last count, so that it ends with the kept total).
pub(crate) fn keep_flags(
    found: &[[u32; 2]],
    filters: &[PairFilter],
    apart: &[[u32; 2]],
    flags: &mut [u32],
) {
    for (flag, &[a, b]) in flags.iter_mut().zip(found) {
        *flag = u32::from(keep_pair(&filters[a as usize], &filters[b as usize], apart));
    }
    flags[found.len()] = 0;
}

/// Each item whose scanned flag rises (`offsets[k + 1] > offsets[k]`) to `out[offsets[k]]`:
/// the flagged items, in their order.
pub(crate) fn compact_pairs(items: &[[u32; 2]], offsets: &[u32], out: &mut [[u32; 2]]) {
    for (k, &item) in items.iter().enumerate() {
        if offsets[k + 1] > offsets[k] {
            out[offsets[k] as usize] = item;
        }
    }
}

/// `flags[k]` = 1 when `items[k]` is not in `other` (both ascending), else 0;
/// `flags[len]` = 0.
pub(crate) fn change_flags(items: &[[u32; 2]], other: &[[u32; 2]], flags: &mut [u32]) {
    for (flag, item) in flags.iter_mut().zip(items) {
        *flag = u32::from(!holds(other, *item));
    }
    flags[items.len()] = 0;
}

/// Whether the ascending `list` holds `pair`: a lower-bound binary search, as the WGSL's
/// (the standard library's would do; this one is the twin's, step for step).
pub(crate) fn holds(list: &[[u32; 2]], pair: [u32; 2]) -> bool {
    let (mut low, mut high) = (0usize, list.len());
    while low < high {
        let mid = (low + high) / 2;
        if pair_below(list[mid], pair) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low < list.len() && list[low] == pair
}

/// Whether pair `p` comes before `q`: by first collider, then second.
fn pair_below(p: [u32; 2], q: [u32; 2]) -> bool {
    p[0] < q[0] || (p[0] == q[0] && p[1] < q[1])
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::broad_phase::pair_set::PairSet;

    /// Colliders in twos per body, in four filter kinds: default, a negative group, a
    /// category that skips its own, a positive group with no mask; bodies of the three
    /// types in turn (by body, every fifth), and every seventh collider a sensor.
    fn filters(n: usize) -> Vec<PairFilter> {
        (0..n)
            .map(|i| {
                let filter = match i % 4 {
                    0 => Filter::default(),
                    1 => Filter {
                        group_index: -1,
                        ..Filter::default()
                    },
                    2 => Filter {
                        category_bits: 1 << 40,
                        mask_bits: !(1 << 40),
                        group_index: 0,
                    },
                    _ => Filter {
                        mask_bits: 0,
                        group_index: 2,
                        ..Filter::default()
                    },
                };
                let body = (i / 2) as u32;
                let types = [BodyType::Dynamic, BodyType::Static, BodyType::Kinematic];
                PairFilter {
                    filter,
                    body,
                    body_type: types[(body % 5).min(2) as usize],
                    sensor: i % 7 == 0,
                }
            })
            .collect()
    }

    /// The twin's set equals the world's pair set (`PairSet`, its own sweeps and tree
    /// queries) over many updates of jittering and jumping boxes, and its changes are the
    /// difference of the sets.
    #[test]
    fn the_twin_follows_the_worlds_pair_set() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 600;
        let filters = filters(n);
        let mut centres: Vec<Vec2> = (0..n)
            .map(|_| Vec2::new(rng.random_range(-15.0..15.0), rng.random_range(-15.0..15.0)))
            .collect();
        // Bodies kept apart: neighbours' pairs that would otherwise pair.
        let apart: Vec<[u32; 2]> = (0..n as u32 / 2).step_by(3).map(|b| [b, b + 1]).collect();
        let mut twin = PersistentPairs::new();
        let mut world: PairSet<()> = PairSet::default();
        let mut previous: Vec<[u32; 2]> = Vec::new();
        let (mut begun, mut ended) = (0, 0);
        for step in 0..60 {
            for (i, c) in centres.iter_mut().enumerate() {
                // Most creep (and stay in their fat boxes for a while); every step a few
                // jump across the field.
                if (i + step) % 97 == 0 {
                    *c = Vec2::new(rng.random_range(-15.0..15.0), rng.random_range(-15.0..15.0));
                } else {
                    *c += Vec2::new(rng.random_range(-0.03..0.03), rng.random_range(-0.03..0.03));
                }
            }
            let boxes: Vec<Aabb> = centres
                .iter()
                .map(|&c| Aabb::new(c - Vec2::splat(0.4), c + Vec2::splat(0.4)))
                .collect();
            let changes = twin.update_with(&boxes, &filters, &apart).unwrap();
            let (now_begun, now_ended) = (changes.begun.to_vec(), changes.ended.to_vec());
            world.update(&boxes, |[a, b]| {
                keep_pair(&filters[a as usize], &filters[b as usize], &apart)
            });
            assert_eq!(twin.pairs(), world.pairs(), "step {step}: the set");
            let expected_begun: Vec<_> = twin
                .pairs()
                .iter()
                .filter(|p| !previous.contains(p))
                .copied()
                .collect();
            let expected_ended: Vec<_> = previous
                .iter()
                .filter(|p| !twin.pairs().contains(p))
                .copied()
                .collect();
            assert_eq!(now_begun, expected_begun, "step {step}: begun");
            assert_eq!(now_ended, expected_ended, "step {step}: ended");
            begun += now_begun.len();
            ended += now_ended.len();
            previous = twin.pairs().to_vec();
        }
        // The filters refused some pairs, and the motion made and broke others.
        let all = sort_sweep(twin.fat_boxes()).unwrap().len();
        assert!(twin.pairs().len() < all && twin.pairs().len() > 100);
        assert!(
            begun > twin.pairs().len() + 50 && ended > 50,
            "{begun} {ended}"
        );
    }

    #[test]
    fn bad_input_is_refused_and_the_set_kept() {
        let mut set = PersistentPairs::new();
        let unit = |x: f32| Aabb::new(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 1.0));
        let two = filters(4)[..2].to_vec();
        let other = PairFilter { body: 9, ..two[1] };
        let pair = [two[0], other];
        assert_eq!(set.update(&[unit(0.0), unit(0.5)], &pair).unwrap().pairs, 1);
        let bad = Aabb::new(Vec2::new(f32::NAN, 0.0), Vec2::ONE);
        assert!(matches!(
            set.update(&[unit(0.0), bad], &pair),
            Err(Error::Batch(BatchError::InvalidBox { index: 1 }))
        ));
        assert!(matches!(
            set.update(&[unit(0.0), unit(0.5)], &pair[..1]),
            Err(Error::Batch(BatchError::FilterCount {
                filters: 1,
                boxes: 2
            }))
        ));
        assert_eq!(set.pairs(), [[0, 1]]);
        // The same body's two colliders never pair.
        let changes = set.update(&[unit(0.0), unit(0.5)], &two).unwrap();
        assert_eq!((changes.pairs, changes.ended), (0, &[[0, 1]][..]));
    }

    #[test]
    fn holds_finds_every_item_and_nothing_else() {
        let list: Vec<[u32; 2]> = (0..50u32).map(|k| [k / 7, 3 * k]).collect();
        for &p in &list {
            assert!(holds(&list, p));
            assert!(!holds(&list, [p[0], p[1] + 1]));
        }
        assert!(!holds(&[], [0, 1]));
        assert!(!holds(&list, [100, 0]));
    }
}
