//! The persistent face's first submit: the fat boxes brought up to date on the device, and
//! the sweep over them up to its total (read back, 4 bytes, to size the second submit).
//!
//! ```text
//! submit_boxes(fatten?):
//!     fatten (the GPU world): each placed collider's fat box grown on the device from the
//!         box the collision stage placed there, where it no longer holds it
//!         (pair_set.wgsl's fatten, the twin of fatten in broad_phase/pair_set)
//!     scatter_fat: the fat boxes the host sent (those that changed; with fatten, only
//!         those of removed colliders, which the device cannot place)
//!     hash_fat (with fatten): the wrapping sum of a hash of every fat box
//!     the sweep's first half over the fat boxes (sort_sweep.wgsl), to its total
//!     back: the total, the hash, the pass's timestamps
//! ```
//!
//! Why a hash: the host keeps the world's fat boxes and fits the sweep's bands to them, so
//! the device's must be the same to the bit. They are where the adapter places the boxes
//! as the host does (lavapipe: the tests hold it there); where it does not, the sum differs
//! from the host's [`hash_fat`], the host's fat boxes are sent whole and the submit runs
//! again ([`GpuBroadPhase::fat_misses`] counts it). A hash of each box by its index, summed,
//! is the same in any order of the sum, so one atomic add per workgroup gives the host's
//! bits on any adapter.

use super::{FIRST_ID, PAIR_SET_PARAMS, Persistent};
use crate::broad_phase::sort_sweep::hash_boxes;
use crate::error::Error;
use crate::gpu::PlacedBoxes;
use crate::gpu::broad_phase::{GpuBroadPhase, groups, read_ticks};
use crate::gpu::layout::{PairSetParamsGpu, SweepParamsGpu};
use crate::gpu::plan::{Kernel, Plan, RO, RW};
use crate::gpu::plumbing::{TIMESTAMP_BYTES, read_back};
use crate::shapes::aabb::Aabb;

/// `fatten` and `hash_fat`, the kernels of the fat boxes grown on the device.
pub(super) struct FatKernels {
    fatten: Kernel,
    hash_fat: Kernel,
}

impl FatKernels {
    pub(super) fn new(device: &wgpu::Device, module: &wgpu::ShaderModule) -> FatKernels {
        let kernel = |entry, bindings: &[(u32, bool)], id| {
            Kernel::new(
                device,
                module,
                entry,
                bindings,
                PAIR_SET_PARAMS,
                FIRST_ID + id,
            )
        };
        FatKernels {
            fatten: kernel("fatten", &[(8, RW), (10, RO), (11, RO)], 4),
            hash_fat: kernel("hash_fat", &[(8, RW), (12, RW)], 5),
        }
    }
}

/// What the first submit found: the sweep's total, where the sweep left the boxes' band
/// entries (`plan_boxes`), the device's hash of its fat boxes (when it grew them), and the
/// bytes read back.
pub(super) struct BoxesSent {
    pub(super) total: usize,
    pub(super) by_band: usize,
    pub(super) hash: Option<u32>,
    pub(super) read: u64,
}

/// The wrapping sum of every fat box's hash (`hash_fat` in `shaders/pair_set.wgsl`: the
/// sum of `box_hash`, as `hash_boxes` sums it).
pub(crate) fn hash_fat(fat: &[Aabb]) -> u32 {
    hash_boxes(fat)
}

impl GpuBroadPhase {
    /// Submit 1 over the `n` fat boxes: `fatten` from `placed` first when given (with the
    /// number of boxes the device held before), then the scattered updates in
    /// `state.fat_updates`, then the sweep to its total, which it reads back with the
    /// device's hash of the fat boxes (when it grew them) and the pass's timestamps.
    pub(super) fn submit_boxes(
        &mut self,
        state: &mut Persistent,
        n: usize,
        base: SweepParamsGpu,
        fatten: Option<(&PlacedBoxes, usize)>,
        up: &mut u64,
    ) -> Result<BoxesSent, Error> {
        let params = |len: usize, old_count: usize| PairSetParamsGpu {
            len: len as u32,
            old_count: old_count as u32,
            ..PairSetParamsGpu::default()
        };
        let boxes = &self.buffers.boxes.buffer;
        let mut plan = Plan::default();
        if let Some((placed, old)) = fatten {
            let bindings = [(8, boxes), (10, &placed.boxes), (11, &placed.owners)];
            plan.push(
                &state.fat_kernels.fatten,
                &bindings,
                params(n, old),
                groups(n),
            );
        }
        // Always in the plan (of no workgroups when nothing is scattered), so that the
        // dispatches keep their places and bind groups from update to update.
        let len = state.update_scratch.len();
        let scatter = [(7, &state.fat_updates.buffer), (8, boxes)];
        plan.push(
            &state.kernels.scatter_fat,
            &scatter,
            params(len, 0),
            groups(len),
        );
        if fatten.is_some() {
            let bindings = [(8, boxes), (12, &state.hash.buffer)];
            plan.push(
                &state.fat_kernels.hash_fat,
                &bindings,
                params(n, 0),
                groups(n),
            );
        }
        let by_band = self
            .buffers
            .plan_boxes(&self.kernels, &mut plan, n, base, None);
        let e = base.entry_count as u64;
        let timer = self.timers[0].as_ref();
        let readback = &self.buffers.readback.buffer;
        let mut encoder = self.encoder();
        if fatten.is_some() {
            encoder.clear_buffer(&state.hash.buffer, 0, None);
        }
        *up += self.record_pass(&mut encoder, &mut state.bind_groups[0], plan, timer);
        encoder.copy_buffer_to_buffer(&self.buffers.counts.buffer, 4 * e, readback, 0, 4);
        if fatten.is_some() {
            encoder.copy_buffer_to_buffer(&state.hash.buffer, 0, readback, 4, 4);
        }
        if let Some(timer) = timer {
            timer.copy(&mut encoder, readback, 8);
        }
        self.queue.submit([encoder.finish()]);
        let (mut total, mut hash, mut kernel) = (0u32, 0u32, None);
        let read = match (timer.is_some(), fatten.is_some()) {
            (true, _) => 8 + TIMESTAMP_BYTES,
            (false, true) => 8,
            (false, false) => 4,
        };
        read_back(&self.device, readback, read, |view| {
            total = bytemuck::pod_read_unaligned(&view[..4]);
            if fatten.is_some() {
                hash = bytemuck::pod_read_unaligned(&view[4..8]);
            }
            kernel = read_ticks(view, 8, timer);
        })?;
        self.kernel = kernel;
        Ok(BoxesSent {
            total: total as usize,
            by_band,
            hash: fatten.map(|_| hash),
            read,
        })
    }
}
