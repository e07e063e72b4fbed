//! Statistics of one step: counts of what each stage saw, and its time.

use std::time::Duration;

use crate::collision::narrow_phase::NarrowPhaseTimings;

/// What one [`World::step`](crate::World::step) did and how long each stage took.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepStats {
    /// Bodies in the world.
    pub bodies: usize,
    /// Dynamic bodies awake after the step (see [`World::set_sleeping`](crate::World::set_sleeping)).
    pub awake_bodies: usize,
    /// Colliders: one per convex piece of every body.
    pub colliders: usize,
    /// Candidate collider pairs from the broad phase: pairs whose boxes, grown by half the
    /// speculative distance, overlap (pairs within one body and pairs of two static bodies
    /// excluded).
    pub pairs: usize,
    /// The persistent pairs: colliders whose fat boxes ([`FAT_MARGIN`] beyond their
    /// boxes) overlap. A pair stays in the set from the step its fat boxes meet until the
    /// step they part; the candidates above are those of them whose boxes overlap.
    ///
    /// [`FAT_MARGIN`]: crate::broad_phase::FAT_MARGIN
    pub persistent_pairs: usize,
    /// Colliders whose box left its fat box this step (each new collider counts once): the
    /// broad phase swept the fat boxes again only when this is not 0.
    pub proxy_moves: usize,
    /// Of the candidates, pairs whose last manifold was recycled instead of going to the narrow
    /// phase (see [`World::set_contact_recycling`](crate::World::set_contact_recycling)); the narrow phase saw the others.
    pub recycled: usize,
    /// Pairs that overlap: the narrow phase's manifolds.
    pub contacts: usize,
    /// Contact points over all manifolds.
    pub contact_points: usize,
    /// Poses, AABBs and the broad phase.
    pub broad_phase: Duration,
    /// The narrow phase, as the caller sees it; with `World::step_on_gpu`,
    /// the GPU collision stage's submit before the broad phase and its collection after.
    pub narrow_phase: Duration,
    /// The narrow phase's own breakdown, where it has one (the GPU's upload, dispatch and
    /// readback).
    pub narrow_phase_detail: Option<NarrowPhaseTimings>,
    /// Contact solver and integration.
    pub solver: Duration,
    /// Bodies swept for continuous collision this step (bullets, and fast bodies).
    pub swept_bodies: usize,
    /// Swept bodies stopped at a time of impact.
    pub impacts: usize,
    /// The continuous collision stage.
    pub continuous: Duration,
}
