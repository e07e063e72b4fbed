//! The contacts, one part of the world: the persistent pairs (two colliders whose fat
//! boxes overlap) with what each keeps from step to step, the contact list the solver
//! reads, and the events of the last step.
//!
//! ```text
//! pairs        per pair: its manifold as the narrow phase last made it (recycled while the
//!              pair barely moves; its impulses warm-start the next solve, matched by
//!              feature id) and whether it touched (what begin and end events measure)
//! list         this step's contacts in pair order, between colliders
//! next         the next step's contacts while they are merged: swapped with `list` only
//!              when the narrow phase succeeded, so a failed step leaves the last in place
//! events       the last step's events; `events_next` the next step's while it runs (a pair
//!              that leaves the set before a step fails keeps its end event there)
//! ```

use crate::broad_phase::pair_set::PairSet;
use crate::collision::manifold::Contact;
use crate::collision::recycle::KeptManifold;
use crate::world::events::EventLists;

/// The world's contacts (see the module header).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSet {
    pub pairs: PairSet<PairState>,
    /// This step's candidate pairs: those of `pairs` whose grown boxes overlap.
    pub candidates: usize,
    /// Of them, those whose kept manifold was reused.
    pub recycled: usize,
    pub list: Vec<Contact>,
    pub next: Vec<Contact>,
    pub events: EventLists,
    pub events_next: EventLists,
}

/// What the world keeps per persistent pair.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairState {
    /// Its manifold as the narrow phase last computed it, for recycling (`None` when it
    /// found none).
    pub(crate) kept: Option<KeptManifold>,
    /// Whether it touched after the last step (a sensor pair: overlapped): what its next
    /// begin or end event is measured against.
    pub(crate) touching: bool,
}
