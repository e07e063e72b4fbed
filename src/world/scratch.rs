//! The step's scratch ([`StepScratch`]): what one stage fills and the next reads within a
//! step (grown boxes, the slots' outcomes and changes, the fresh pairs, the continuous
//! stage's start poses), kept between steps only for its memory, so that a warm step
//! allocates nothing (`tests/allocations.rs`).
//!
//! No part of the world's state: nothing in it survives a step's end that the next step
//! reads, so the snapshot does not save it and the state hash does not see it.

use glam::Vec2;

use super::contacts::{Change, SlotBlock, SlotOutcome};
use crate::collision::manifold::Contact;
use crate::collision::recycle::KeptManifold;
use crate::dynamics::continuous::ContinuousScratch;
use crate::shapes::aabb::Aabb;

/// The step's scratch vectors (see the module notes).
#[derive(Clone, Debug, Default)]
pub(super) struct StepScratch {
    /// `aabbs` grown by half the speculative distance each, as the broad phase sees them
    ///.
    pub broad_boxes: Vec<Aabb>,
    /// Where the narrow phase writes.
    pub contact_scratch: Vec<Contact>,
    /// Per slot of `pair_set` this step: what became of the pair
    /// (`SlotOutcome`), and its contact where it was recycled, or where a fresh one began
    /// touching (the begin event carries it).
    pub slot_outcomes: Vec<SlotOutcome>,
    pub slot_contacts: Vec<Contact>,
    /// Per slot of `pair_set` this step: whether the pair began or stopped
    /// touching (`Change`).
    pub slot_changes: Vec<Change>,
    /// This step's blocks of `SLOTS_PER_TASK` slots (the first `block_count` are
    /// in use).
    pub blocks: Vec<SlotBlock>,
    pub block_count: usize,
    /// The pairs that go to the narrow phase, block after block, and what is kept of each
    /// report for recycling.
    pub fresh_pairs: Vec<[u32; 2]>,
    pub fresh_kept: Vec<Option<KeptManifold>>,
    /// The continuous stage's own.
    pub continuous: ContinuousScratch,
    /// For the continuous stage: poses at the start of the step, the angle each
    /// body turned during it, and the bodies it moved.
    pub start_centers: Vec<Vec2>,
    pub start_rotations: Vec<Vec2>,
    pub turned: Vec<f32>,
    pub moved: Vec<usize>,
    /// Bodies whose pairs with a removed body's colliders just left.
    pub woken: Vec<u32>,
}
