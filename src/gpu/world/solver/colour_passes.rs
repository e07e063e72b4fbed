//! The colour passes of the GPU world's solver ([`ColourPasses`]): how each of a step's
//! warm start, solve, relax and restitution passes dispatches its colours.

use super::GpuSolver;
use crate::dynamics::COLOURS;
use crate::dynamics::solver::StepView;
use crate::gpu::plan::{Kernel, Plan, Workgroups};
use crate::gpu::world::colouring::ColourBounds;
use crate::gpu::world::layout::{OVERFLOW, OVERFLOW_CHUNK};

/// The colour passes of a step: per colour, in order, a dispatch of its joints' kernel and
/// one of its contacts', each of the workgroups the colouring wrote for it (`args`: six
/// words a colour) over the range it wrote; the overflow's last, each in one invocation,
/// its joints before its contacts. A colour's joints and contacts share no moving body, so
/// their order within it is free. A kind with no constraint this step (`kinds`: joints,
/// contacts) has no dispatch, and nor have the colours no constraint can take this step
/// (`GpuColouring::colours_to_dispatch`); the overflow of each kind is dispatched a chunk
/// of `OVERFLOW_CHUNK` at a time, for as many as can overflow (none, mostly).
pub(super) struct ColourPasses<'a> {
    pub(super) args: &'a wgpu::Buffer,
    pub(super) kinds: [bool; 2],
    pub(super) bounds: ColourBounds,
}

impl<'a> ColourPasses<'a> {
    /// One pass of `kernels` (joints', contacts', each with its bindings; an empty list of
    /// bindings: a kind the pass does not have).
    pub(super) fn push(
        &self,
        plan: &mut Plan<'a>,
        kernels: [(&'a Kernel, &[(u32, &'a wgpu::Buffer)]); 2],
        view: &StepView<'_, '_>,
    ) {
        // Every colour a constraint can take is dispatched: only the device knows which
        // hold constraints (an empty one runs no workgroup).
        for colour in 0..=COLOURS {
            let overflow = colour == COLOURS;
            if !overflow && colour >= self.bounds.colours {
                continue;
            }
            let flags = if overflow { OVERFLOW } else { 0 };
            // A colour's six words: its contacts' workgroups, then its joints'.
            let words = [6 * colour + 3, 6 * colour];
            let kinds = kernels.into_iter().zip(self.kinds).zip(words);
            for (kind, (((kernel, bindings), has), word)) in kinds.enumerate() {
                if !has || bindings.is_empty() {
                    continue;
                }
                let args = Workgroups::Indirect(self.args, 4 * word as u64);
                // The overflow's chunks in order, each from its first place in the range.
                let chunks = if overflow {
                    self.bounds.overflow[kind].div_ceil(OVERFLOW_CHUNK)
                } else {
                    1
                };
                for chunk in 0..chunks {
                    let params = GpuSolver::params(view, colour, chunk * OVERFLOW_CHUNK, flags);
                    plan.push_with(kernel, bindings, params, args);
                }
            }
        }
    }
}
