//! The pair and contact stages of the step, over the persistent pairs' slots in blocks of
//! `SLOTS_PER_TASK` (each block written by one task: the same bits on any threads):
//!
//! ```text
//! sort_out_recycled: per slot, apart (boxes part) / recycled (kept manifold still holds)
//!                    / fresh (goes to the narrow phase); each block lists its fresh slots
//! merge_contacts:    match the narrow phase's reports to the fresh slots, keep each for
//!                    recycling, and gather every contact in slot (= pair) order
//! record_pair_events: begin and end per changed slot, from the touching flags
//! ```

use glam::Vec2;
use rayon::prelude::*;

use super::World;
use super::contact_set::PairState;
use crate::collision::manifold::{Contact, ContactPoint, Manifold};
use crate::collision::recycle::KeptManifold;
use crate::dynamics::collider_set::ColliderSet;
use crate::parallel;
use crate::shapes::aabb::Aabb;

impl World {
    /// Sorts out this step's persistent pairs, block by block of slots over the rayon pool:
    /// those whose boxes do not overlap are no candidates; of the others, those whose kept
    /// manifold is recycled have their contact in `slot_contacts`, and the rest go to the
    /// narrow phase (`fresh_pairs`, in ascending pair order as the pair set holds them; each
    /// block lists its own). Each slot is written by its block alone: the same bits on any
    /// threads.
    pub(super) fn sort_out_recycled(&mut self) {
        let sorting = SortOut {
            boxes: &self.scratch.broad_boxes,
            colliders: &self.colliders,
            recycling: self.settings.recycling,
        };
        let (pairs, states) = self.contacts.pairs.pairs_and_data_mut();
        let filler = Contact {
            a: 0,
            b: 0,
            manifold: Manifold::new(
                Vec2::X,
                0.0,
                &[ContactPoint {
                    point: Vec2::ZERO,
                    depth: 0.0,
                    id: 0,
                }],
            ),
        };
        self.scratch
            .slot_outcomes
            .resize(pairs.len(), SlotOutcome::Apart);
        self.scratch.slot_contacts.resize(pairs.len(), filler);
        self.scratch.slot_changes.resize(pairs.len(), Change::Same);
        self.scratch.block_count = pairs.len().div_ceil(SLOTS_PER_TASK);
        if self.scratch.blocks.len() < self.scratch.block_count {
            // Grown only: a block's list of fresh slots is kept, so a warm world allocates
            // nothing here.
            self.scratch
                .blocks
                .resize_with(self.scratch.block_count, SlotBlock::default);
        }
        pairs
            .par_chunks(SLOTS_PER_TASK)
            .zip(states.par_chunks(SLOTS_PER_TASK))
            .zip(self.scratch.slot_outcomes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.scratch.slot_contacts.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.scratch.slot_changes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.scratch.blocks[..self.scratch.block_count].par_iter_mut())
            .enumerate()
            .with_min_len(parallel::min_len(1))
            .for_each(
                |(index, (((((pairs, states), outcomes), contacts), changes), block))| {
                    let slots = SlotsOut {
                        outcomes,
                        contacts,
                        changes,
                    };
                    let first = (index * SLOTS_PER_TASK) as u32;
                    sorting.sort_out_block(first, pairs, states, slots, block);
                },
            );
        self.scratch.fresh_pairs.clear();
        self.contacts.recycled = 0;
        self.contacts.candidates = 0;
        for block in &self.scratch.blocks[..self.scratch.block_count] {
            let fresh = block.fresh.iter().map(|&slot| pairs[slot as usize]);
            self.scratch.fresh_pairs.extend(fresh);
            let recycled = block.recycled + block.recycled_sensors;
            self.contacts.recycled += recycled;
            self.contacts.candidates += recycled + block.fresh.len();
        }
    }

    /// This step's fresh slots (those `sort_out_recycled` sent to the narrow phase) as a
    /// bit per slot of the pair set, 32 to a word, the low bit first, into `bits`
    /// (replaced): what the GPU world's collision stage collides of its copy of the set
    /// (`gpu/collision/set.rs`).
    #[cfg(feature = "gpu")]
    pub(crate) fn fresh_slot_bits(&self, bits: &mut Vec<u32>) {
        bits.clear();
        bits.resize(self.contacts.pairs.pairs().len().div_ceil(32), 0);
        for block in &self.scratch.blocks[..self.scratch.block_count] {
            for &slot in &block.fresh {
                bits[slot as usize / 32] |= 1 << (slot % 32);
            }
        }
    }

    /// Gathers this step's contacts, recycled and fresh, in slot order (which is pair order)
    /// into the world's list, and keeps each fresh pair's manifold (or its absence) in its
    /// slot of the pair set.
    ///
    /// The narrow phase reports a subset of `fresh_pairs`, in their order. A walk over the
    /// blocks' fresh slots matches each to its report (a slot without one is apart), and so
    /// counts each block's contacts: their prefix sum is where each block's contacts go.
    /// The blocks walk over the pool, each from its first report, found by a binary search;
    /// the serial walk runs only when a narrow phase's reports break their order.
    /// The matched reports are kept for recycling, over the rayon pool in even runs. Then
    /// the blocks, over the pool, each take their recycled contacts from their slots and
    /// their fresh ones (with what was kept of them) straight from the narrow phase's
    /// list, in slot order. Returns how many contact points the list holds.
    pub(super) fn merge_contacts(&mut self) -> usize {
        let (fresh, colliders) = (&self.scratch.contact_scratch, &self.colliders.records);
        let (pairs, states) = self.contacts.pairs.pairs_and_data_mut();
        let (sensors, has_sensors) = (&self.colliders.sensors, self.colliders.has_sensors);
        let is_sensor =
            |[a, b]: [u32; 2]| has_sensors && (sensors[a as usize] || sensors[b as usize]);
        let blocks = &mut self.scratch.blocks[..self.scratch.block_count];
        let outcomes = &mut self.scratch.slot_outcomes;
        let changes = &mut self.scratch.slot_changes;
        // Each block finds where its reports start by a binary search (the reports ascend,
        // as the narrow phase promises) and counts what the walk would match there, over
        // the pool; when every block starts where the blocks before it stopped, those are
        // the serial walk's matches, and the blocks record them over the pool too.
        // Otherwise the narrow phase broke its promise: the serial walk runs.
        blocks
            .par_iter_mut()
            .with_min_len(parallel::min_len(1))
            .for_each(|block| {
                let first = block.fresh.first().map(|&slot| pairs[slot as usize]);
                let start = first.map_or(0, |p| fresh.partition_point(|c| [c.a, c.b] < p));
                block.reported = start;
                (block.matched, block.fresh_contacts) = (0, 0);
                walk_reports(&block.fresh, start, fresh, pairs, |_, matched| {
                    if let Some(pair) = matched {
                        block.matched += 1;
                        block.fresh_contacts += usize::from(!is_sensor(pair));
                    }
                });
            });
        let mut matched = 0;
        let tiled = blocks.iter().all(|block| {
            let starts_here = block.fresh.is_empty() || block.reported == matched;
            matched += block.matched;
            starts_here
        });
        if tiled {
            let each_block = (outcomes.par_chunks_mut(SLOTS_PER_TASK))
                .zip(changes.par_chunks_mut(SLOTS_PER_TASK))
                .zip(states.par_chunks_mut(SLOTS_PER_TASK))
                .zip(blocks.par_iter_mut())
                .enumerate()
                .with_min_len(parallel::min_len(1));
            each_block.for_each(|(j, (((outcomes, changes), states), block))| {
                let first = j * SLOTS_PER_TASK;
                let mut changed = block.changed;
                walk_reports(
                    &block.fresh,
                    block.reported,
                    fresh,
                    pairs,
                    |slot, matched| {
                        let k = slot - first;
                        record_match(
                            matched.map(is_sensor),
                            &mut outcomes[k],
                            &mut changes[k],
                            &mut states[k],
                            &mut changed,
                        );
                    },
                );
                block.changed = changed;
            });
        } else {
            matched = 0;
            for block in blocks.iter_mut() {
                block.reported = matched;
                block.fresh_contacts = 0;
                let mut changed = block.changed;
                walk_reports(&block.fresh, matched, fresh, pairs, |slot, pair| {
                    if let Some(pair) = pair {
                        matched += 1;
                        block.fresh_contacts += usize::from(!is_sensor(pair));
                    }
                    record_match(
                        pair.map(is_sensor),
                        &mut outcomes[slot],
                        &mut changes[slot],
                        &mut states[slot],
                        &mut changed,
                    );
                });
                block.changed = changed;
            }
        }
        let mut total = 0;
        for block in blocks.iter_mut() {
            block.out_start = total;
            total += block.recycled + block.fresh_contacts;
        }

        // Each report kept for recycling, over the rayon pool in even runs of reports:
        // fresh pairs crowd into some blocks of slots (a settling pyramid's lower rows), and
        // keeping them block by block left one thread most of the work. A circle's normal
        // turns as the other piece slides along it: recycling assumes flat features (see
        // recycle.rs), so pairs with a circle keep nothing and are collided afresh every
        // step (a circle's manifold is the cheapest to compute anyway). Only the reports
        // the walk matched are read: a narrow phase that broke its contract may have added
        // others, with any indices (`tests/cpu/world_faults.rs`).
        const REPORTS_PER_TASK: usize = 512;
        let shapes = &self.shapes.list;
        let curved = |i: u32| {
            let shape = colliders[i as usize].shape as usize;
            shapes[shape].is_curved()
        };
        // The walk moves on only at a match: the first `matched` reports are the matched
        // ones.
        self.scratch.fresh_kept.resize(matched, None);
        self.scratch
            .fresh_kept
            .par_chunks_mut(REPORTS_PER_TASK)
            .zip(fresh[..matched].par_chunks(REPORTS_PER_TASK))
            .with_min_len(parallel::min_len(1))
            .for_each(|(kept, reports)| {
                for (kept, c) in kept.iter_mut().zip(reports) {
                    let flat = !curved(c.a) && !curved(c.b);
                    *kept = flat.then(|| KeptManifold::keep(c, colliders));
                }
            });

        self.contacts.next.clear();
        self.contacts.next.reserve(total);
        let out = ContactsOut(self.contacts.next.as_mut_ptr());
        let fresh_kept = &self.scratch.fresh_kept;
        states
            .par_chunks_mut(SLOTS_PER_TASK)
            .zip(self.scratch.slot_outcomes.par_chunks(SLOTS_PER_TASK))
            .zip(self.scratch.slot_contacts.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.scratch.slot_changes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(blocks.par_iter_mut())
            .with_min_len(parallel::min_len(1))
            .for_each(|((((states, outcomes), contacts), changes), block)| {
                let (mut k, mut next) = (block.out_start, block.reported);
                block.points = 0;
                let each = states.iter_mut().zip(outcomes).zip(contacts).zip(changes);
                for (((state, outcome), contact), change) in each {
                    let c = match outcome {
                        SlotOutcome::Recycled => contact,
                        SlotOutcome::Fresh | SlotOutcome::FreshSensor => {
                            let c = &fresh[next];
                            state.kept = fresh_kept[next];
                            next += 1;
                            let sensor = *outcome == SlotOutcome::FreshSensor;
                            *change = Change::of(state.touching, !sensor || overlaps(c));
                            block.changed |= *change != Change::Same;
                            if *change == Change::Began {
                                // The begin event carries it (`record_pair_events`).
                                *contact = *c;
                            }
                            if sensor {
                                continue;
                            }
                            c
                        }
                        SlotOutcome::Apart | SlotOutcome::Sensor => continue,
                    };
                    // SAFETY: the walk above counted this block's slots of outcome
                    // `Recycled` and `Fresh` (those written here), and gave it the indices
                    // out_start.. up to that count: below the next block's out_start (or
                    // `total`), so disjoint between blocks and within the capacity
                    // reserved above.
                    unsafe { out.write(k, *c) };
                    k += 1;
                    block.points += c.manifold.points().len();
                }
            });
        // SAFETY: every index below `total` was written above (the blocks' ranges tile it),
        // and `Contact` is `Copy`: nothing to drop.
        unsafe { self.contacts.next.set_len(total) };
        std::mem::swap(&mut self.contacts.list, &mut self.contacts.next);
        // The lists take turns: keep the spare one as large as the one in use, so that a
        // warm world does not allocate when its contact count alternates between steps.
        self.contacts.next.reserve(self.contacts.list.len());
        self.scratch.blocks[..self.scratch.block_count]
            .iter()
            .map(|b| b.points)
            .sum()
    }

    /// The begin and end events of this step's pairs, in pair order, from the changes the
    /// recycling pass and `merge_contacts` found; each changed pair's touching flag is
    /// brought up to date. Only the blocks of slots `merge_contacts` saw a change in are
    /// scanned: a settled world's cost nothing here.
    pub(super) fn record_pair_events(&mut self) {
        let (pairs, states) = self.contacts.pairs.pairs_and_data_mut();
        let blocks = self.scratch.blocks[..self.scratch.block_count]
            .iter()
            .enumerate();
        let changed_blocks = blocks.filter(|(_, b)| b.changed);
        let changed_slots = changed_blocks.flat_map(|(block, _)| {
            let start = block * SLOTS_PER_TASK;
            start..(start + SLOTS_PER_TASK).min(pairs.len())
        });
        for slot in changed_slots {
            let change = self.scratch.slot_changes[slot];
            if change == Change::Same {
                continue;
            }
            let pair = pairs[slot];
            let began = change == Change::Began;
            states[slot].touching = began;
            let sensor = sensor_side(&self.colliders.sensors, pair);
            let contact = began.then_some(&self.scratch.slot_contacts[slot]);
            self.contacts
                .events_next
                .record_change(pair, &self.names, sensor, contact);
        }
    }
}

/// Pair slots per block of `World::sort_out_recycled` and `World::merge_contacts` (and of
/// `record_pair_events`, which scans the blocks a change was seen in): a box test and a
/// recycling test each, about 20 ns on large_pyramid, so a block is some 40 µs of work,
/// and 15,000 pairs make 8 blocks to share between threads.
const SLOTS_PER_TASK: usize = 2048;

/// What the recycling pass reads of the world.
struct SortOut<'a> {
    boxes: &'a [Aabb],
    colliders: &'a ColliderSet,
    recycling: bool,
}

/// A block's slots the recycling pass writes.
struct SlotsOut<'a> {
    outcomes: &'a mut [SlotOutcome],
    contacts: &'a mut [Contact],
    changes: &'a mut [Change],
}

impl SortOut<'_> {
    /// Sorts out one block of pairs (slots `first..`): see `World::sort_out_recycled`.
    fn sort_out_block(
        &self,
        first: u32,
        pairs: &[[u32; 2]],
        states: &[PairState],
        slots: SlotsOut<'_>,
        block: &mut SlotBlock,
    ) {
        block.fresh.clear();
        // Counted in locals and written to the block once.
        let (mut recycled, mut recycled_sensors, mut changed) = (0, 0, false);
        let each = (pairs.iter().zip(states))
            .zip(slots.outcomes)
            .zip(slots.contacts)
            .zip(slots.changes);
        for (k, ((((&[a, b], state), outcome), contact), change)) in each.enumerate() {
            let sensor = self.colliders.has_sensors
                && (self.colliders.sensors[a as usize] || self.colliders.sensors[b as usize]);
            let kept = state.kept.as_ref().filter(|_| self.recycling);
            (*outcome, *change) = if !self.boxes[a as usize].overlaps(&self.boxes[b as usize]) {
                (SlotOutcome::Apart, Change::of(state.touching, false))
            } else if kept.is_some_and(|m| m.recycle_into(a, b, &self.colliders.records, contact)) {
                let now = !sensor || overlaps(contact);
                if sensor {
                    recycled_sensors += 1;
                    (SlotOutcome::Sensor, Change::of(state.touching, now))
                } else {
                    recycled += 1;
                    (SlotOutcome::Recycled, Change::of(state.touching, now))
                }
            } else {
                // Decided once the narrow phase has run (`World::merge_contacts`).
                block.fresh.push(first + k as u32);
                (SlotOutcome::Fresh, Change::Same)
            };
            changed |= *change != Change::Same;
        }
        (block.recycled, block.recycled_sensors) = (recycled, recycled_sensors);
        block.changed = changed;
    }
}

/// One block of pair slots in this step's recycling and merge passes. A cache line of its
/// own: neighbouring blocks are worked on by different threads at once.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
pub(super) struct SlotBlock {
    /// Its slots that go to the narrow phase, in order.
    fresh: Vec<u32>,
    /// How many of its slots had their manifold recycled: contacts, and sensor pairs.
    recycled: usize,
    recycled_sensors: usize,
    /// Where the narrow phase's reports for its fresh slots begin in its list, how many of
    /// them match its slots, and how many of those are contacts (not sensor pairs).
    reported: usize,
    matched: usize,
    fresh_contacts: usize,
    /// Where its contacts begin in this step's list.
    out_start: usize,
    /// Whether a pair in it began or stopped touching.
    changed: bool,
    /// The points of its contacts in this step's list (the step's statistics: counted
    /// here, over the pool, rather than by a pass of their own over every contact).
    points: usize,
}

/// Walks a block's `fresh` slots against the narrow phase's `reports` from `start` on, as
/// the merge matches them: the report at the cursor matches the slot of its pair and moves
/// the cursor on (`visit(slot, Some(pair))`); a slot it does not match is apart (`visit(slot,
/// None)`), and a report that matches no slot stops the walk's matching there.
fn walk_reports(
    fresh: &[u32],
    start: usize,
    reports: &[Contact],
    pairs: &[[u32; 2]],
    mut visit: impl FnMut(usize, Option<[u32; 2]>),
) {
    let mut next = start;
    for &slot in fresh {
        let (slot, pair) = (slot as usize, pairs[slot as usize]);
        if reports.get(next).is_some_and(|c| [c.a, c.b] == pair) {
            next += 1;
            visit(slot, Some(pair));
        } else {
            visit(slot, None);
        }
    }
}

/// What the walk records of one fresh slot: matched (`Some(whether it is a sensor pair)`),
/// it is fresh, and the merge decides its change; not matched, it is apart: a pair that
/// touched ends, and it keeps no manifold.
fn record_match(
    matched: Option<bool>,
    outcome: &mut SlotOutcome,
    change: &mut Change,
    state: &mut PairState,
    changed: &mut bool,
) {
    match matched {
        Some(true) => *outcome = SlotOutcome::FreshSensor,
        Some(false) => *outcome = SlotOutcome::Fresh,
        None => {
            *outcome = SlotOutcome::Apart;
            *change = Change::of(state.touching, false);
            *changed |= state.touching;
            state.kept = None;
        }
    }
}

/// Where the blocks of `World::merge_contacts` write their contacts, shared between them.
struct ContactsOut(*mut Contact);

// SAFETY: the blocks write disjoint indices (see `World::merge_contacts`).
unsafe impl Send for ContactsOut {}
// SAFETY: as above.
unsafe impl Sync for ContactsOut {}

impl ContactsOut {
    /// Writes `contact` at index `k`.
    ///
    /// # Safety
    /// `k` is within the buffer's capacity, and no other thread writes it meanwhile.
    unsafe fn write(&self, k: usize, contact: Contact) {
        // SAFETY: the caller's promise.
        unsafe { self.0.add(k).write(contact) }
    }
}

/// What became of a persistent pair this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotOutcome {
    /// Its boxes do not overlap: no candidate.
    Apart,
    /// Its kept manifold was recycled: its contact is in `slot_contacts`.
    Recycled,
    /// It goes to the narrow phase; after it (see `World::merge_contacts`), a pair the
    /// narrow phase reported a contact for (one it did not is `Apart`).
    Fresh,
    /// A sensor pair whose kept manifold was recycled into `slot_contacts`: it makes
    /// events, not a contact.
    Sensor,
    /// A sensor pair the narrow phase reported a manifold for.
    FreshSensor,
}

/// Whether a pair began or stopped touching this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    Same,
    Began,
    Ended,
}

impl Change {
    fn of(was: bool, now: bool) -> Change {
        match (was, now) {
            (false, true) => Change::Began,
            (true, false) => Change::Ended,
            _ => Change::Same,
        }
    }
}

/// Whether a sensor pair's contact is an overlap: a point of positive depth. (A
/// speculative point, apart by less than `SPECULATIVE_DISTANCE`, is not.)
fn overlaps(contact: &Contact) -> bool {
    contact.manifold.points().iter().any(|p| p.depth > 0.0)
}

/// Which collider of `pair` is the sensor (0 or 1), if either is. (Sensors never pair
/// with sensors.)
pub(super) fn sensor_side(sensors: &[bool], pair: [u32; 2]) -> Option<usize> {
    pair.iter().position(|&c| sensors[c as usize])
}
