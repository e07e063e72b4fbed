//! What computes a step's contacts ([`CollisionStage`]): the narrow phase the caller passes
//! to [`World::step`], over the pairs the world picks, or the GPU's collision stage
//! (`gpu_step.rs`), which runs beside the world's broad phase.

use super::World;
use crate::collision::narrow_phase::{NarrowPhase, NarrowPhaseTimings};
use crate::dynamics::solver::{OffloadedStages, SPECULATIVE_DISTANCE};
use crate::error::Error;

/// What computes a step's contacts: a narrow phase over the pairs the world picks, or a
/// stage of its own (the GPU's, `gpu_step.rs`). An error from either leaves the world as
/// it was before the step.
pub(super) trait CollisionStage {
    /// Before the broad phase, with the poses and boxes of the step's start (they do not
    /// change until the solver): work that needs nothing else, such as a GPU submit that
    /// then runs while the CPU does the broad phase.
    fn before(&mut self, _world: &mut World) -> Result<(), Error> {
        Ok(())
    }

    /// After the broad phase and the recycling pass: the contacts of the fresh pairs
    /// (`scratch.fresh_pairs`) into `scratch.contact_scratch`, in their order, and where
    /// the time went.
    fn collide(&mut self, world: &mut World) -> Result<Option<NarrowPhaseTimings>, Error>;

    /// Where the solver's stages run, when not on the host's threads (the GPU world's
    /// solver, `gpu/world/`).
    fn offloaded(&mut self) -> Option<&mut dyn OffloadedStages> {
        None
    }

    /// Where the pair set's pairs are found, when not on the host's threads (the GPU
    /// world's device, `gpu/world/pairs.rs`).
    fn pairs_elsewhere(&mut self) -> Option<&mut dyn PairsElsewhere> {
        None
    }
}

/// The world's pair set found elsewhere (the GPU world's device): its own copy of the set,
/// brought up to date over the world's fat boxes and rule (`World::pair_input`), whose
/// changes the world applies to its set (`PairSet::apply`) when the copy was the world's
/// list before; else the world sweeps its set itself, and the copy is the world's again.
pub(crate) trait PairsElsewhere: Send {
    /// Brings the copy up to date with `world`'s fat boxes (those of this step, fattened)
    /// and rule, and returns its changes (begun, ended, the pairs now), when the copy was
    /// the world's pair list `generation` before; `None` otherwise, or when it failed (the
    /// copy is then unknown).
    fn update(&mut self, world: &World, generation: u64) -> Option<([&[[u32; 2]]; 2], usize)>;

    /// The world's pair list is `generation` now, and the copy holds the same pairs
    /// (unless the update failed).
    fn synced(&mut self, generation: u64, applied: bool);

    /// Whether the copy should be brought to the world's pair list `generation` even on a
    /// step with no fat box moved: it is not that list, and its last update did not fail
    /// (a copy the device cannot hold is tried again only when boxes move, as before).
    fn behind(&self, generation: u64) -> bool;

    /// The boxes the collision stage placed on the device this step (`None`: it placed
    /// none), from which the copy's fat boxes grow there rather than being sent.
    #[cfg(feature = "gpu")]
    fn place_from(&mut self, placed: Option<crate::gpu::PlacedBoxes>);

    /// The copy's pair set on the device (its buffer and its pairs, ascending) when it
    /// holds the world's pair list `generation`, for the collision stage to take its pairs
    /// from; `None` otherwise.
    #[cfg(feature = "gpu")]
    fn device_set(&self, generation: u64) -> Option<(wgpu::Buffer, usize)>;
}

/// The step through a [`NarrowPhase`].
pub(super) struct ThroughNarrowPhase<'a>(pub(super) &'a mut dyn NarrowPhase);

impl CollisionStage for ThroughNarrowPhase<'_> {
    fn collide(&mut self, world: &mut World) -> Result<Option<NarrowPhaseTimings>, Error> {
        let narrow_phase = &mut *self.0;
        // Cheap when the narrow phase already holds this table (see `set_shape_table`).
        narrow_phase.set_shape_table(&world.shapes.list)?;
        narrow_phase.set_speculative_distance(SPECULATIVE_DISTANCE)?;
        narrow_phase.collide_pairs_into(
            &world.colliders.records,
            &world.scratch.fresh_pairs,
            &mut world.scratch.contact_scratch,
        )?;
        Ok(narrow_phase.timings())
    }
}
