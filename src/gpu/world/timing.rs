//! The GPU world's step on the device, stage by stage ([`GpuStepTimes`]), from timestamp
//! queries.
//!
//! ```text
//! the collision stage: its submits' passes, timed as a whole (GpuCollision::timings)
//! the solver's submit: a compute pass per stage (plan::record_passes), each timed at its
//!     start and end; a stage that runs once per substep (integrate, warm start, solve,
//!     relax) sums its passes; the labels below name them
//! ```
//!
//! A pass per stage costs what a barrier between dispatches costs already (wgpu puts one
//! between any two dispatches that share a written buffer), so the solver records the same
//! dispatches, in the same order, timed or not; only devices without timestamp queries
//! record the whole step in one pass.

use std::time::Duration;

/// The labels of the solver's stages ([`Plan::stage`](crate::gpu::plan::Plan::stage)).
pub(crate) mod stage {
    pub(crate) const COLOURING: u8 = 0;
    pub(crate) const PREPARE: u8 = 1;
    pub(crate) const INTEGRATE: u8 = 2;
    pub(crate) const WARM_START: u8 = 3;
    pub(crate) const SOLVE: u8 = 4;
    pub(crate) const RELAX: u8 = 5;
    pub(crate) const RESTITUTION: u8 = 6;
    pub(crate) const STORE: u8 = 7;
    pub(crate) const CONTINUOUS: u8 = 8;
}

/// The most passes the solver's submit times one by one: the wake, the colouring, the
/// prepare stage, five per substep at the most substeps a world takes
/// ([`MAX_SUBSTEPS`](crate::world::MAX_SUBSTEPS)), restitution and the store
/// stage, the continuous stage and the transforms.
pub(crate) const TIMED_PASSES: u32 = 7 + 5 * crate::world::MAX_SUBSTEPS as u32;

/// The last [`GpuWorld::step`](super::GpuWorld::step)'s time on the device, by stage, from
/// timestamp queries ([`GpuWorld::step_times`](super::GpuWorld::step_times)): what a
/// profiler of the GPU world reads beside the host's [`StepStats`](crate::StepStats).
/// Each field is the time between its passes' start and end timestamps, summed over the
/// substeps for the stages that run in each; the gaps between passes are in none of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuStepTimes {
    /// The collision stage's kernels: the broad phase's boxes, sort and sweep, and the
    /// narrow phase of the pairs found.
    pub collision: Duration,
    /// The constraint colouring: its input, the keep and fresh rounds and their finishers,
    /// the shuffle, the sort into the solve order, the colours' ranges and workgroups.
    pub colouring: Duration,
    /// The islands woken before the solve (when a body slept), the bodies' clamp, the
    /// contacts' inputs unpacked and their constraints prepared (and the joints, when the
    /// device prepares them).
    pub prepare: Duration,
    /// The velocities' and the positions' integration, over the substeps.
    pub integrate: Duration,
    /// The warm start, colour by colour, over the substeps.
    pub warm_start: Duration,
    /// The solve with bias, colour by colour, over the substeps.
    pub solve: Duration,
    /// The relaxation (the solve without bias), colour by colour, over the substeps.
    pub relax: Duration,
    /// The restitution pass, colour by colour.
    pub restitution: Duration,
    /// The impulses stored, the bodies settled and the transforms written.
    pub store: Duration,
    /// The continuous stage and sleep, when the device ran them (`continuous.wgsl`,
    /// `sleep.wgsl`).
    pub continuous: Duration,
}

impl GpuStepTimes {
    /// The time of every stage, summed.
    pub fn total(&self) -> Duration {
        self.collision + self.solver()
    }

    /// The solver's stages, summed (everything but the collision stage).
    pub fn solver(&self) -> Duration {
        self.colouring
            + self.prepare
            + self.integrate
            + self.warm_start
            + self.solve
            + self.relax
            + self.restitution
            + self.store
            + self.continuous
    }

    /// Adds `time` to the stage labelled `label` (a label of no stage: to `store`, the
    /// last).
    pub(crate) fn add(&mut self, label: u8, time: Duration) {
        let field = match label {
            stage::COLOURING => &mut self.colouring,
            stage::PREPARE => &mut self.prepare,
            stage::INTEGRATE => &mut self.integrate,
            stage::WARM_START => &mut self.warm_start,
            stage::SOLVE => &mut self.solve,
            stage::RELAX => &mut self.relax,
            stage::RESTITUTION => &mut self.restitution,
            stage::CONTINUOUS => &mut self.continuous,
            _ => &mut self.store,
        };
        *field += time;
    }
}

/// Stage by stage, for sums over steps (divide a field by the steps for its mean).
impl std::ops::AddAssign for GpuStepTimes {
    fn add_assign(&mut self, other: GpuStepTimes) {
        self.collision += other.collision;
        self.colouring += other.colouring;
        self.prepare += other.prepare;
        self.integrate += other.integrate;
        self.warm_start += other.warm_start;
        self.solve += other.solve;
        self.relax += other.relax;
        self.restitution += other.restitution;
        self.store += other.store;
        self.continuous += other.continuous;
    }
}
