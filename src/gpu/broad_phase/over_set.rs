//! The collision pipeline's pairs taken from a pair set already on the device (the GPU
//! world's, `gpu/world/pairs.rs`) rather than swept: the narrow phase then collides the
//! set's fresh pairs, flagged on the device by the recycling pass there
//! (`gpu/collision/recycle/`) or marked by the host's (a bit a pair, sent up: the pairs
//! themselves never cross), which are the only contacts the world takes of the sweep's,
//! without the sweep's sorts and without the recycled pairs' narrow phase.
//!
//! ```text
//! record_over_set(set, fresh pairs, boxes):
//!     hash_boxes: the wrapping sum of a hash of every box (box_hash.wgsl), copied into
//!         the dispatch's `entries` word, for the host to hold to its own boxes' sum
//!     the flags: the device's recycling pass's dispatches (PushFlags), or, the host's
//!         bits sent (4 bytes a 32 pairs), set_fresh: per pair of the set, its bit
//!     the exclusive scan of the flags (scan.wgsl): where each fresh pair goes, the total
//!     set_compact: the fresh pairs, in the set's (ascending) order
//!     pair_args: the narrow phase's indirect dispatch over them (the room is the set's
//!         size: never short)
//! ```
//!
//! The CPU twins are `set_fresh`, `set_compact` and `hash_boxes` in
//! `src/broad_phase/sort_sweep.rs`.

use super::{DevicePairs, GpuBroadPhase, groups};
use crate::error::{Error, GpuError};
use crate::gpu::layout::SweepParamsGpu;
use crate::gpu::plan::{Plan, record};

/// Which pairs of the set the narrow phase takes.
pub(in crate::gpu) enum FreshPairs<'a> {
    /// Those whose bit is set (32 to a word, the low bit first; at least a bit a pair),
    /// sent up.
    Bits(&'a [u32]),
    /// Those that these dispatches flag on the device.
    Flagged(&'a dyn PushFlags),
}

/// Dispatches that flag the fresh pairs of a set on the device, in the set's pass: a 1
/// or a 0 per pair into `flags`, and a 0 past the last (the scan's total).
pub(in crate::gpu) trait PushFlags {
    /// Adds the dispatches to `plan`, over the set's pairs (`set`) and the colliders'
    /// boxes (`boxes`, the broad phase's).
    fn push<'a>(
        &'a self,
        plan: &mut Plan<'a>,
        set: &'a wgpu::Buffer,
        boxes: &'a wgpu::Buffer,
        flags: &'a wgpu::Buffer,
    );
}

/// Where `pair_args` leaves the dispatch's `entries` word (`PairDispatchGpu`), which the
/// set's call fills with the boxes' hash.
const ENTRIES_OFFSET: u64 = 20;

impl GpuBroadPhase {
    /// Records in `encoder` the pairs of `set` (its first `set_len` pairs, `[u32; 2]` each,
    /// ascending) that `fresh` names, in the set's order, and the narrow phase's indirect
    /// dispatch over them, as [`record_on_device`](Self::record_on_device) leaves its
    /// pairs; the dispatch's `entries` word holds the wrapping sum of the hashes of the `n`
    /// boxes in the boxes' buffer ([`hash_boxes`](crate::broad_phase::sort_sweep::hash_boxes))
    /// instead of the band entries. `timestamps` are written around its pass. The bytes
    /// queued (the bits and the uniforms) are the result's `uploaded_bytes`.
    pub(in crate::gpu) fn record_over_set(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        (set, set_len): (&wgpu::Buffer, usize),
        fresh: FreshPairs<'_>,
        n: usize,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<DevicePairs<'_>, Error> {
        let bits = match fresh {
            FreshPairs::Bits(bits) => bits,
            FreshPairs::Flagged(_) => &[],
        };
        if matches!(fresh, FreshPairs::Bits(_)) && bits.len() * 32 < set_len {
            return Err(Error::Gpu(GpuError::Device(format!(
                "{} fresh bits for {set_len} pairs",
                bits.len() * 32
            ))));
        }
        self.check_fits("pairs", set_len.max(1), size_of::<[u32; 2]>())?;
        self.reserve_pairs(set_len.max(1), false);
        let (device, cap) = (&self.device, self.max_binding);
        let b = &mut self.buffers;
        b.counts.reserve(device, 4 * (set_len as u64 + 1), cap);
        if !bits.is_empty() {
            b.fresh.reserve(device, size_of_val(bits) as u64, cap);
            self.queue
                .write_buffer(&b.fresh.buffer, 0, bytemuck::cast_slice(bits));
        }
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let params = |len: usize| SweepParamsGpu {
            len: len as u32,
            entry_count: set_len as u32,
            capacity: set_len as u32,
            row_groups: self.max_workgroups,
            ..bytemuck::Zeroable::zeroed()
        };
        let (boxes, counts) = (&buffers.boxes.buffer, &buffers.counts.buffer);
        let (out, hash) = (&buffers.out.buffer, &buffers.hash.buffer);
        let mut plan = Plan::default();
        plan.push(
            &kernels.hash_boxes,
            &[(0, boxes), (9, hash)],
            params(n),
            groups(n),
        );
        match fresh {
            FreshPairs::Bits(_) => plan.push(
                &kernels.set_fresh,
                &[(3, counts), (10, &buffers.fresh.buffer)],
                params(set_len),
                groups(set_len + 1),
            ),
            FreshPairs::Flagged(flags) => flags.push(&mut plan, set, boxes, counts),
        }
        buffers.scan(kernels, &mut plan, counts, set_len + 1, 0);
        plan.push(
            &kernels.set_compact,
            &[(3, counts), (4, set), (5, out)],
            params(set_len),
            groups(set_len),
        );
        plan.push(
            &kernels.pair_args,
            &[(3, counts), (8, &buffers.dispatch)],
            params(1),
            1,
        );
        encoder.clear_buffer(hash, 0, None);
        let (device, queue) = (&self.device, &self.queue);
        let cache = &mut self.bind_groups[3];
        let uniforms = &buffers.params;
        let uniforms = record(device, queue, encoder, uniforms, cache, plan, timestamps);
        let uploaded_bytes = uniforms + size_of_val(bits) as u64;
        encoder.copy_buffer_to_buffer(hash, 0, &buffers.dispatch, ENTRIES_OFFSET, 4);
        Ok(DevicePairs {
            pairs: &self.buffers.out.buffer,
            dispatch: &self.buffers.dispatch,
            uploaded_bytes,
        })
    }
}

const _: () = assert!(
    std::mem::offset_of!(crate::gpu::layout::PairDispatchGpu, entries) as u64 == ENTRIES_OFFSET
);
