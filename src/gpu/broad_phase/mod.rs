//! [`GpuBroadPhase`]: the broad phase as wgpu compute passes, sort-based sweep and prune
//! (`shaders/sort_sweep.wgsl`, with `radix_sort.wgsl` and `scan.wgsl`; their CPU twins are
//! in `src/broad_phase/`).
//!
//! ```text
//! find_pairs(boxes):
//!     check every box (finite, min <= max); fewer than two: no pair
//!     the y bands and the entry count, on the host (the same arithmetic as the GPU's)
//!     boxes (16 B each) -> `boxes`
//!     submit 1: box_keys, radix sort by left edge (4 passes of count, scan, scatter),
//!               band_spans, scan, band_entries, radix sort of the entries by band,
//!               gather_boxes, sweep_count, scan of the counts; copy the total (4 B) back
//!     submit 2: sweep_write; pair_keys(first and second) and a radix sort when the two
//!               indices fit 32 bits, else pair_keys(second), radix sort, pair_keys(first),
//!               radix sort; gather_pairs; copy the pairs (8 B each) back
//!     each submit's pass timed by timestamp queries where the device has them
//! record_on_device(base, room): both submits' dispatches in one pass of the caller's
//!     encoder, with room for `room` pairs, and pair_args; nothing read back
//! ```
//!
//! Why two submits: the pairs' buffers are sized from the total, which only the GPU knows;
//! reading 4 bytes back costs one round trip, and a too-small guess would cost a second
//! sweep. The collision pipeline (`gpu/collision/`) keeps the count on the device and
//! dispatches the narrow phase indirectly from it (`record_on_device`); this is the batch
//! face, for tests, benchmarks and callers with a solver of their own. Why a sweep rather
//! than an LBVH: `docs/performance.md` ("The GPU broad phase") gives the reasons and the
//! measurements.
//!
//! The pipelines and buffers are in `passes.rs`, the dispatches of a submit and their bind
//! groups in `plan.rs`. The persistent face (`update_pairs`: fat boxes and the pair set kept
//! on the device, only changes read back) is in `persistent.rs`, and the LBVH the sweep was
//! measured against (`find_pairs_lbvh`) in `lbvh.rs`; both are made at their first call.
//! Every dispatch has its own 256-byte slot of one uniform buffer (a submit holds many
//! dispatches, and one buffer written once per submit serves them all). Buffers grow and
//! are reused, and each dispatch keeps its bind group from call to call while it binds the
//! same buffers: a warm call of the same size creates no buffer and no bind group.

use crate::broad_phase::radix_sort::index_bits;
use crate::broad_phase::sort_sweep::{PairKey, check_boxes, one_pair_sort};
use crate::broad_phase::sweep::Bands;
use crate::error::{Error, GpuError};
use crate::gpu::layout::{AabbGpu, SweepParamsGpu};
use crate::gpu::plan::{BindKey, Plan, record, submit};
use crate::gpu::plumbing::{KernelTimer, TIMESTAMP_BYTES, read_back};
use crate::shapes::aabb::Aabb;
use passes::{Buffers, Kernels};
use std::time::Duration;

mod lbvh;
mod over_set;
mod passes;
mod persistent;

pub use lbvh::LBVH_WGSL;
pub(in crate::gpu) use over_set::{FreshPairs, PushFlags};
pub(in crate::gpu) use passes::SCAN_PARAMS;
pub use persistent::PAIR_SET_WGSL;

/// The WGSL of the scan (`shaders/scan.wgsl`).
pub const SCAN_WGSL: &str = include_str!("../../../shaders/scan.wgsl");
/// The WGSL of the radix sort (`shaders/radix_sort.wgsl`).
pub const RADIX_SORT_WGSL: &str = include_str!("../../../shaders/radix_sort.wgsl");
/// The WGSL of the sweep (`shaders/sort_sweep.wgsl`).
pub const SORT_SWEEP_WGSL: &str = concat!(
    include_str!("../../../shaders/sort_sweep.wgsl"),
    include_str!("../../../shaders/box_hash.wgsl")
);

/// Invocations per workgroup of every kernel here, and items per tile of the scan and sort.
const WORKGROUP: u32 = 256;
/// Levels of tile sums the scan keeps: 256^4 counts, past any binding.
pub(in crate::gpu) const SCAN_LEVELS: usize = 3;

/// The broad phase on a wgpu device: the pairs of boxes that overlap or touch, as
/// [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs) finds them and in the same
/// order (ascending by first box, then second), computed by compute passes in which no
/// atomic decides an order, so the same on every adapter.
///
/// It borrows the host's device and queue (cheap clones of the handles), holds its
/// pipelines and buffers (grown as batches need, reused after), and can be dropped at any
/// time.
///
/// Three faces: [`find_pairs`](Self::find_pairs), a batch of boxes in and its pairs out;
/// [`update_pairs`](Self::update_pairs), the persistent pair set over fat boxes with
/// collision filters, kept on the device, its changes read back; and
/// [`find_pairs_lbvh`](Self::find_pairs_lbvh), the batch face through the LBVH the sweep
/// was measured against.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, gpu::GpuBroadPhase, Aabb, BroadPhase};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut gpu = GpuBroadPhase::new(&device, &queue)?;
/// let boxes = [
///     Aabb::new(Vec2::ZERO, Vec2::ONE),
///     Aabb::new(Vec2::splat(0.5), Vec2::splat(2.0)),
///     Aabb::new(Vec2::splat(5.0), Vec2::splat(6.0)),
/// ];
/// assert_eq!(gpu.find_pairs(&boxes)?, &[[0, 1]]);
/// assert_eq!(gpu.find_pairs(&boxes)?, BroadPhase::new().find_pairs(&boxes));
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuBroadPhase {
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Kernels,
    buffers: Buffers,
    /// The last call's pairs.
    pairs: Vec<[u32; 2]>,
    /// The boxes as uploaded, kept for their memory.
    scratch: Vec<AabbGpu>,
    /// The bind groups of the batch face's two submits' dispatches, of the collision
    /// pipeline's plan, and of its plan over a given set (`over_set.rs`), by position (see
    /// `record`).
    bind_groups: [Vec<(BindKey, wgpu::BindGroup)>; 4],
    max_binding: u64,
    max_workgroups: u32,
    /// Timestamps around each submit's pass, on devices that have them, and the last
    /// call's kernel time.
    timers: [Option<KernelTimer>; 2],
    kernel: Option<Duration>,
    /// The persistent face's state (`persistent.rs`), made at its first update.
    persistent: Option<Box<persistent::Persistent>>,
    /// The LBVH's pipelines and buffers (`lbvh.rs`), made at its first call.
    lbvh: Option<Box<lbvh::Lbvh>>,
}

/// Bytes of a readback of `bytes` with the pass's timestamps after it (8-byte aligned).
fn timed_bytes(bytes: u64, timer: Option<&KernelTimer>) -> u64 {
    match timer {
        Some(_) => bytes.next_multiple_of(8) + TIMESTAMP_BYTES,
        None => bytes,
    }
}

/// The pass time of the ticks after the first `bytes` of a readback.
fn read_ticks(view: &[u8], bytes: u64, timer: Option<&KernelTimer>) -> Option<Duration> {
    let at = bytes.next_multiple_of(8) as usize;
    let ticks = view.get(at..at + TIMESTAMP_BYTES as usize)?;
    timer.map(|t| t.elapsed(bytemuck::pod_read_unaligned(ticks)))
}

impl GpuBroadPhase {
    /// Builds the pipelines on the host's device. The driver may finish compiling the WGSL
    /// on the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<GpuBroadPhase, Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let kernels = Kernels::new(device);
        let buffers = Buffers::new(device);
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        let limits = device.limits();
        Ok(GpuBroadPhase {
            device: device.clone(),
            queue: queue.clone(),
            kernels,
            buffers,
            pairs: Vec::new(),
            scratch: Vec::new(),
            bind_groups: [Vec::new(), Vec::new(), Vec::new(), Vec::new()],
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            timers: [
                KernelTimer::new(device, queue),
                KernelTimer::new(device, queue),
            ],
            kernel: None,
            persistent: None,
            lbvh: None,
        })
    }

    /// All pairs `[a, b]` of boxes that overlap or touch, with `a < b`, in ascending order:
    /// exactly [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs)'s. The slice lives
    /// until the next call.
    ///
    /// Errors, leaving the broad phase usable:
    /// [`BatchError::InvalidBox`](crate::error::BatchError::InvalidBox) naming the first box
    /// with a NaN or infinite coordinate or a minimum above its maximum; a batch (or its
    /// pairs) past what one binding or dispatch holds; a device error.
    pub fn find_pairs(&mut self, aabbs: &[Aabb]) -> Result<&[[u32; 2]], Error> {
        self.batch_call(aabbs, Self::run)
    }

    /// A call of the batch face: the checks, then `run` (over at least two valid boxes) in
    /// an error scope; the pairs `run` left in `self.pairs`, or the error.
    fn batch_call(
        &mut self,
        aabbs: &[Aabb],
        run: fn(&mut Self, &[Aabb]) -> Result<(), Error>,
    ) -> Result<&[[u32; 2]], Error> {
        self.pairs.clear();
        self.kernel = None;
        if let Some(state) = self.persistent.as_deref_mut() {
            // The boxes' buffer is about to hold these boxes, not the fat ones.
            state.fat_on_device = false;
        }
        check_boxes(aabbs)?;
        if aabbs.len() < 2 {
            return Ok(&self.pairs);
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = run(self, aabbs);
        if let Some(error) = pollster::block_on(scope.pop()) {
            self.pairs.clear();
            self.kernel = None;
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        result?;
        Ok(&self.pairs)
    }

    /// How many GPU buffers this has created so far.
    pub fn buffers_created(&self) -> u64 {
        let lbvh = self.lbvh.as_deref().map_or(0, lbvh::Lbvh::created);
        self.buffers.created() + self.persistent_buffers() + lbvh
    }

    /// The two submits of a call over at least two valid boxes.
    fn run(&mut self, aabbs: &[Aabb]) -> Result<(), Error> {
        let base = self.upload_boxes(aabbs)?;
        let (n, e) = (aabbs.len(), base.entry_count as usize);
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let mut plan = Plan::default();
        let by_band = buffers.plan_boxes(kernels, &mut plan, n, base, None);
        let link = Link::new(&self.device, &self.queue, self.timers[0].as_ref());
        let (total, kernel) = submit_for_total(link, buffers, &mut self.bind_groups[0], plan, e)?;
        self.kernel = kernel;
        if total == 0 {
            return Ok(());
        }

        self.check_fits("pairs", total, size_of::<[u32; 2]>())?;
        self.reserve_pairs(total, true);
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let mut plan = Plan::default();
        let room = SweepParamsGpu {
            capacity: total as u32,
            ..base
        };
        buffers.plan_pairs(kernels, &mut plan, n, by_band, room);
        let link = Link::new(&self.device, &self.queue, self.timers[1].as_ref());
        let cache = &mut self.bind_groups[1];
        let second = submit_for_pairs(link, buffers, cache, plan, total, &mut self.pairs)?;
        self.kernel = self.kernel.zip(second).map(|(a, b)| a + b);
        Ok(())
    }

    /// The kernels' own time in the last call (both submits' passes, from timestamp
    /// queries), on devices that have them; `None` elsewhere, and after a call with no
    /// pass (fewer than two boxes, or an error).
    pub fn kernel_time(&self) -> Option<Duration> {
        self.kernel
    }

    /// Records the whole broad phase over the boxes in the boxes' buffer (at least two, as
    /// [`prepare_boxes`](Self::prepare_boxes) checked them and fitted `base` to them) in
    /// `encoder`, with room for `room` pairs and no readback: the pairs stay on the GPU, ascending, the first
    /// `min(total, room)` of the buffer returned, and `pair_args` writes the narrow phase's
    /// indirect dispatch over them, with the total (see [`DevicePairs`]). The caller reads
    /// the total back with what it reads anyway, and records again with more room when it
    /// was short. `timestamps` are written around its pass. For the collision pipeline
    /// (`gpu/collision/`).
    pub(crate) fn record_on_device(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        base: SweepParamsGpu,
        room: usize,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<DevicePairs<'_>, Error> {
        let room = room.max(1);
        self.check_fits("pairs", room, size_of::<[u32; 2]>())?;
        self.reserve_pairs(room, false);
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let mut plan = Plan::default();
        let n = base.len as usize;
        let by_band = buffers.plan_boxes(kernels, &mut plan, n, base, Some(&buffers.dispatch));
        let room_params = SweepParamsGpu {
            capacity: room as u32,
            ..base
        };
        buffers.plan_pairs(kernels, &mut plan, n, by_band, room_params);
        plan.push(
            &kernels.pair_args,
            &[(3, &buffers.counts.buffer), (8, &buffers.dispatch)],
            room_params,
            1,
        );
        let (device, queue) = (&self.device, &self.queue);
        let cache = &mut self.bind_groups[2];
        let params = &buffers.params;
        let uploaded_bytes = record(device, queue, encoder, params, cache, plan, timestamps);
        Ok(DevicePairs {
            pairs: &self.buffers.out.buffer,
            dispatch: &self.buffers.dispatch,
            uploaded_bytes,
        })
    }

    /// Checks that `aabbs` fit, makes room for them, writes them to the queue, and returns
    /// the sweep's parameters (see [`prepare_boxes`](Self::prepare_boxes)).
    fn upload_boxes(&mut self, aabbs: &[Aabb]) -> Result<SweepParamsGpu, Error> {
        let (base, _) = self.prepare_boxes(aabbs)?;
        self.write_boxes(aabbs);
        Ok(base)
    }

    /// Checks that `aabbs` fit and makes room for them, and returns the sweep's parameters
    /// (the y bands and the entry count the GPU will find, the same arithmetic: see
    /// `sort_sweep.rs`; no room for pairs yet) and whether the boxes' buffer was replaced
    /// (its boxes lost). Writes nothing: the caller writes the boxes, or scatters those
    /// that changed into the buffer ([`boxes_buffer`](Self::boxes_buffer)).
    pub(crate) fn prepare_boxes(
        &mut self,
        aabbs: &[Aabb],
    ) -> Result<(SweepParamsGpu, bool), Error> {
        let n = aabbs.len();
        let bands = Bands::fit(aabbs);
        let entry_count: usize = aabbs
            .iter()
            .map(|b| bands.band(b.max.y) - bands.band(b.min.y) + 1)
            .sum();
        self.check_fits("boxes", n.max(entry_count), size_of::<AabbGpu>())?;
        let replaced = self.reserve_boxes(n, entry_count);
        let base = SweepParamsGpu {
            len: n as u32,
            side: 0,
            first: 0,
            bits: 0,
            origin: bands.origin,
            inv_height: bands.inv_height,
            band_count: bands.count as u32,
            entry_count: entry_count as u32,
            capacity: 0,
            row_groups: self.max_workgroups,
            _pad: [0; 2],
        };
        Ok((base, replaced))
    }

    /// Writes `aabbs` to the boxes' buffer (made room for by
    /// [`prepare_boxes`](Self::prepare_boxes)).
    pub(crate) fn write_boxes(&mut self, aabbs: &[Aabb]) {
        self.scratch.clear();
        self.scratch.extend(aabbs.iter().map(AabbGpu::from));
        let bytes = bytemuck::cast_slice(&self.scratch);
        self.queue
            .write_buffer(&self.buffers.boxes.buffer, 0, bytes);
    }

    /// The boxes the sweep reads (`array<vec4<f32>>`: min, max).
    pub(crate) fn boxes_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.boxes.buffer
    }

    /// The most pairs a call can hold: their sort items in one binding, their tiles in one
    /// dispatch.
    pub(crate) fn max_pairs(&self) -> usize {
        self.most(size_of::<[u32; 2]>())
    }

    /// The most items of `size` bytes one binding holds, and their tiles one dispatch.
    fn most(&self, size: usize) -> usize {
        let by_binding = (self.max_binding / size.max(16) as u64) as usize;
        let by_dispatch = self.max_workgroups as usize * WORKGROUP as usize;
        by_binding.min(by_dispatch)
    }

    /// An error unless `count` items of `size` bytes fit one binding, and their tiles (and
    /// the radix sort's counts) one dispatch.
    fn check_fits(&self, what: &'static str, count: usize, size: usize) -> Result<(), Error> {
        let max = self.most(size);
        if count > max {
            return Err(Error::Gpu(GpuError::TooLarge { what, count, max }));
        }
        Ok(())
    }

    /// Room for `n` boxes in `entries` band entries, and what their sorts and sweep use.
    /// Returns whether the boxes' buffer was replaced.
    fn reserve_boxes(&mut self, n: usize, entries: usize) -> bool {
        let (device, cap, b) = (&self.device, self.max_binding, &mut self.buffers);
        let most = n.max(entries) as u64;
        let replaced = b.boxes.reserve(device, 16 * n as u64, cap);
        b.sorted.reserve(device, 16 * entries as u64, cap);
        for items in &mut b.box_items {
            items.reserve(device, 8 * most, cap);
        }
        b.counts.reserve(device, 4 * (most + 1), cap);
        b.reserve_scan(device, cap, most as usize + 1, most as usize);
        b.readback.reserve(device, 8 + TIMESTAMP_BYTES, cap);
        replaced
    }

    /// Room for `total` pairs and their sorts, and for reading them back when `read_back`
    /// (the batch faces read them; the collision pipeline and the persistent face keep them
    /// on the device, and a mapped buffer of their size would be memory for nothing).
    fn reserve_pairs(&mut self, total: usize, read_back: bool) {
        let (device, cap, b) = (&self.device, self.max_binding, &mut self.buffers);
        for buffer in [&mut b.found, &mut b.out] {
            buffer.reserve(device, 8 * total as u64, cap);
        }
        if read_back {
            b.readback
                .reserve(device, 8 * total as u64 + TIMESTAMP_BYTES, cap);
        }
        for items in &mut b.pair_items {
            items.reserve(device, 8 * total as u64, cap);
        }
        b.reserve_scan(device, cap, total, total);
    }
}

/// What a submit of the batch face goes through: the device, the queue and its pass's
/// timer (on devices with timestamp queries).
#[derive(Clone, Copy)]
struct Link<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    timer: Option<&'a KernelTimer>,
}

impl<'a> Link<'a> {
    fn new(
        device: &'a wgpu::Device,
        queue: &'a wgpu::Queue,
        timer: Option<&'a KernelTimer>,
    ) -> Link<'a> {
        Link {
            device,
            queue,
            timer,
        }
    }
}

/// Submits `plan` (bind groups from `cache`) with the count at `counts[index]` copied back,
/// waits, and returns it with the pass's time.
fn submit_for_total(
    link: Link<'_>,
    buffers: &Buffers,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    index: usize,
) -> Result<(usize, Option<Duration>), Error> {
    let Link {
        device,
        queue,
        timer,
    } = link;
    let (uniforms, readback) = (&buffers.params, &buffers.readback.buffer);
    let copy = (&buffers.counts.buffer, 4 * index as u64, readback, 4);
    submit(device, queue, uniforms, cache, plan, copy, timer);
    let mut total = 0u32;
    let mut kernel = None;
    read_back(device, readback, timed_bytes(4, timer), |view| {
        total = bytemuck::pod_read_unaligned(&view[..4]);
        kernel = read_ticks(view, 4, timer);
    })?;
    Ok((total as usize, kernel))
}

/// Submits `plan` with the first `total` pairs of the output copied back, waits, appends
/// them to `pairs`, and returns the pass's time.
fn submit_for_pairs(
    link: Link<'_>,
    buffers: &Buffers,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    total: usize,
    pairs: &mut Vec<[u32; 2]>,
) -> Result<Option<Duration>, Error> {
    let Link {
        device,
        queue,
        timer,
    } = link;
    let bytes = 8 * total as u64;
    let (uniforms, readback) = (&buffers.params, &buffers.readback.buffer);
    let copy = (&buffers.out.buffer, 0, readback, bytes);
    submit(device, queue, uniforms, cache, plan, copy, timer);
    let mut kernel = None;
    read_back(device, readback, timed_bytes(bytes, timer), |view| {
        let view_pairs = &view[..bytes as usize];
        pairs.extend_from_slice(bytemuck::cast_slice::<u8, [u32; 2]>(view_pairs));
        kernel = read_ticks(view, bytes, timer);
    })?;
    Ok(kernel)
}

/// Workgroups of [`WORKGROUP`] invocations for `len` invocations.
fn groups(len: usize) -> u32 {
    (len as u32).div_ceil(WORKGROUP)
}

/// The pairs [`GpuBroadPhase::record_on_device`] leaves on the GPU.
pub(crate) struct DevicePairs<'a> {
    /// The pairs, `[u32; 2]` each, ascending, then the room past them.
    pub(crate) pairs: &'a wgpu::Buffer,
    /// A `PairDispatchGpu`: the narrow phase's indirect dispatch over the pairs in the
    /// room, how many those are, and the sweep's total.
    pub(crate) dispatch: &'a wgpu::Buffer,
    /// Bytes queued for the device: the dispatches' uniforms.
    pub(crate) uploaded_bytes: u64,
}

impl Buffers {
    /// Adds the dispatches from the boxes to the scanned pair counts of the band entries:
    /// box_keys, the sort by left edge, band_spans, its scan, band_entries, the sort by
    /// band, gather_boxes, sweep_count and its scan; with a `dispatch` buffer (a
    /// `PairDispatchGpu`), entry_total after band_entries. Returns which of `box_items`
    /// holds the entries in band order.
    fn plan_boxes<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        n: usize,
        base: SweepParamsGpu,
        dispatch: Option<&'a wgpu::Buffer>,
    ) -> usize {
        let params = |len: usize| SweepParamsGpu {
            len: len as u32,
            ..base
        };
        let e = base.entry_count as usize;
        let items = [&self.box_items[0].buffer, &self.box_items[1].buffer];
        let (boxes, sorted) = (&self.boxes.buffer, &self.sorted.buffer);
        let counts = &self.counts.buffer;
        plan.push(
            &kernels.box_keys,
            &[(0, boxes), (1, items[0])],
            params(n),
            groups(n),
        );
        let by_x = self.radix_sort(kernels, plan, items, 0, n, 32);
        plan.push(
            &kernels.band_spans,
            &[(0, boxes), (1, items[by_x]), (3, counts)],
            params(n),
            groups(n + 1),
        );
        self.scan(kernels, plan, counts, n + 1, 0);
        let (x_order, entries) = (items[by_x], items[1 - by_x]);
        plan.push(
            &kernels.band_entries,
            &[(0, boxes), (1, x_order), (3, counts), (7, entries)],
            params(n),
            groups(n),
        );
        if let Some(dispatch) = dispatch {
            plan.push(
                &kernels.entry_total,
                &[(3, counts), (8, dispatch)],
                params(n),
                1,
            );
        }
        let band_bits = index_bits(base.band_count as usize);
        let by_band = self.radix_sort(kernels, plan, items, 1 - by_x, e, band_bits);
        plan.push(
            &kernels.gather_boxes,
            &[(0, boxes), (1, items[by_band]), (2, sorted)],
            params(e),
            groups(e),
        );
        plan.push(
            &kernels.sweep_count,
            &[(1, items[by_band]), (2, sorted), (3, counts)],
            params(e),
            groups(e + 1),
        );
        self.scan(kernels, plan, counts, e + 1, 0);
        by_band
    }

    /// Adds the dispatches from the scanned counts to the pairs in order, over the whole
    /// room (`room.capacity` pairs; those past the total sort last): sweep_write, then
    /// [`plan_pair_order`](Self::plan_pair_order).
    fn plan_pairs<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        n: usize,
        by_band: usize,
        room: SweepParamsGpu,
    ) {
        let e = room.entry_count as usize;
        let entries = &self.box_items[by_band].buffer;
        let found = &self.found.buffer;
        let (sorted, counts) = (&self.sorted.buffer, &self.counts.buffer);
        plan.push(
            &kernels.sweep_write,
            &[(1, entries), (2, sorted), (3, counts), (4, found)],
            SweepParamsGpu {
                len: e as u32,
                ..room
            },
            groups(e),
        );
        self.plan_pair_order(kernels, plan, n, room);
    }

    /// Adds the dispatches that put the first `min(total, room.capacity)` pairs of `found`
    /// in order into `out` (the total at `counts[room.entry_count]`; the rest of the room
    /// after them): pair_keys and one radix sort when two box indices fit 32 bits, else
    /// two, and gather_pairs.
    fn plan_pair_order<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        n: usize,
        room: SweepParamsGpu,
    ) {
        let capacity = room.capacity as usize;
        let pair_items = [&self.pair_items[0].buffer, &self.pair_items[1].buffer];
        let (found, out) = (&self.found.buffer, &self.out.buffer);
        let counts = &self.counts.buffer;
        let bits = index_bits(n);
        let keys = |key: PairKey, first: u32| SweepParamsGpu {
            len: capacity as u32,
            side: key as u32,
            first,
            bits,
            ..room
        };
        let at = if one_pair_sort(bits) {
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[0]), (3, counts), (4, found)],
                keys(PairKey::Both, 1),
                groups(capacity),
            );
            self.radix_sort(kernels, plan, pair_items, 0, capacity, 2 * bits)
        } else {
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[0]), (3, counts), (4, found)],
                keys(PairKey::Second, 1),
                groups(capacity),
            );
            let at = self.radix_sort(kernels, plan, pair_items, 0, capacity, bits);
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[at]), (3, counts), (4, found)],
                keys(PairKey::First, 0),
                groups(capacity),
            );
            self.radix_sort(kernels, plan, pair_items, at, capacity, bits)
        };
        plan.push(
            &kernels.gather_pairs,
            &[(1, pair_items[at]), (4, found), (5, out)],
            SweepParamsGpu {
                len: capacity as u32,
                ..room
            },
            groups(capacity),
        );
    }
}
