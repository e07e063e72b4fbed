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
//! ```
//!
//! Why two submits: the pairs' buffers are sized from the total, which only the GPU knows;
//! reading 4 bytes back costs one round trip, and a too-small guess would cost a second
//! sweep. The World's GPU pipeline (next) keeps the count on the device and dispatches
//! indirectly from it; this is the batch face, for tests, benchmarks and callers with a
//! solver of their own. Why a sweep rather than an LBVH: `docs/performance.md` ("The GPU
//! broad phase") gives the reasons and the measurements.
//!
//! Every dispatch has its own 256-byte slot of one uniform buffer (a submit holds many
//! dispatches, and one buffer written once per submit serves them all). Buffers grow and
//! are reused, and each dispatch keeps its bind group from call to call while it binds the
//! same buffers: a warm call of the same size creates no buffer and no bind group.

use bytemuck::Pod;

use crate::broad_phase::radix_sort::{RADIX_DIGITS, index_bits, radix_passes, radix_tile_count};
use crate::broad_phase::scan::scan_tile_count;
use crate::broad_phase::sort_sweep::{PairKey, one_pair_sort};
use crate::broad_phase::sweep::Bands;
use crate::error::{BatchError, Error, GpuError};
use crate::gpu::layout::{AabbGpu, RadixParamsGpu, ScanParamsGpu, SweepParamsGpu};
use crate::gpu::plumbing::{GrowingBuffer, compute_pipeline, read_back, storage, uniform};
use crate::shapes::aabb::Aabb;

/// The WGSL of the scan (`shaders/scan.wgsl`).
pub const SCAN_WGSL: &str = include_str!("../../shaders/scan.wgsl");
/// The WGSL of the radix sort (`shaders/radix_sort.wgsl`).
pub const RADIX_SORT_WGSL: &str = include_str!("../../shaders/radix_sort.wgsl");
/// The WGSL of the sweep (`shaders/sort_sweep.wgsl`).
pub const SORT_SWEEP_WGSL: &str = include_str!("../../shaders/sort_sweep.wgsl");

/// Invocations per workgroup of every kernel here, and items per tile of the scan and sort.
const WORKGROUP: u32 = 256;
/// Bytes between two dispatches' uniforms: the uniform offset alignment wgpu's limits allow
/// at most.
const PARAMS_SLOT: u64 = 256;
/// Levels of tile sums the scan keeps: 256^4 counts, past any binding.
const SCAN_LEVELS: usize = 3;

/// The broad phase on a wgpu device: the pairs of boxes that overlap or touch, as
/// [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs) finds them and in the same
/// order (ascending by first box, then second), computed by compute passes with no atomics,
/// so the same on every adapter.
///
/// It borrows the host's device and queue (cheap clones of the handles), holds its
/// pipelines and buffers (grown as batches need, reused after), and can be dropped at any
/// time.
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
    /// The bind groups of the two submits' dispatches, by position (see `submit`).
    bind_groups: [Vec<(BindKey, wgpu::BindGroup)>; 2],
    max_binding: u64,
    max_workgroups: u32,
}

/// The pipelines, with the bind group layout each uses.
struct Kernels {
    scan_reduce: Kernel,
    scan_tiles: Kernel,
    radix_count: Kernel,
    radix_scatter: Kernel,
    box_keys: Kernel,
    band_spans: Kernel,
    band_entries: Kernel,
    gather_boxes: Kernel,
    sweep_count: Kernel,
    sweep_write: Kernel,
    pair_keys: Kernel,
    gather_pairs: Kernel,
}

/// One entry point, its layout (the storage bindings it uses, then its uniform) and the
/// uniform's binding.
struct Kernel {
    /// Its place in `Kernels`, naming it in a [`BindKey`].
    id: u8,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    params: u32,
    params_size: u64,
}

/// The buffers a call uses, each grown on demand.
struct Buffers {
    boxes: GrowingBuffer,
    sorted: GrowingBuffer,
    /// The boxes' (key, index) items, sorted in place between the two.
    box_items: [GrowingBuffer; 2],
    /// The pairs' (key, index) items.
    pair_items: [GrowingBuffer; 2],
    counts: GrowingBuffer,
    tile_counts: GrowingBuffer,
    sums: [GrowingBuffer; SCAN_LEVELS],
    /// Zeros: the base of the scan's top level.
    zero: wgpu::Buffer,
    found: GrowingBuffer,
    out: GrowingBuffer,
    params: GrowingBuffer,
    readback: GrowingBuffer,
}

/// The dispatches of one submit, in order, with their uniforms.
#[derive(Default)]
struct Plan<'a> {
    dispatches: Vec<Dispatch<'a>>,
    params: Vec<u8>,
}

/// The most storage buffers a kernel binds (the downlevel limit per stage).
const MAX_STORAGE: usize = 4;

struct Dispatch<'a> {
    kernel: &'a Kernel,
    /// (binding, buffer) of each storage binding; the uniform is the dispatch's slot.
    bindings: [Option<(u32, &'a wgpu::Buffer)>; MAX_STORAGE],
    workgroups: u32,
}

/// What a dispatch's bind group binds: the kernel, its storage buffers, and the uniform
/// buffer (at the dispatch's slot, its position in the submit). Buffers compare by identity:
/// a grown buffer is another one, and its bind groups are made again.
#[derive(PartialEq, Eq)]
struct BindKey {
    kernel: u8,
    bindings: [Option<(u32, wgpu::Buffer)>; MAX_STORAGE],
    params: wgpu::Buffer,
}

impl<'a> Plan<'a> {
    /// Adds a dispatch of `workgroups` workgroups of `kernel` with `params` as its uniform.
    fn push(
        &mut self,
        kernel: &'a Kernel,
        bindings: &[(u32, &'a wgpu::Buffer)],
        params: impl Pod,
        workgroups: u32,
    ) {
        let at = self.params.len();
        self.params.extend_from_slice(bytemuck::bytes_of(&params));
        self.params.resize(at + PARAMS_SLOT as usize, 0);
        let mut slots = [None; MAX_STORAGE];
        for (slot, &binding) in slots.iter_mut().zip(bindings) {
            *slot = Some(binding);
        }
        self.dispatches.push(Dispatch {
            kernel,
            bindings: slots,
            workgroups,
        });
    }
}

/// The uniform's binding in each module, and its size.
const SCAN_PARAMS: (u32, usize) = (2, size_of::<ScanParamsGpu>());
const RADIX_PARAMS: (u32, usize) = (3, size_of::<RadixParamsGpu>());
const SWEEP_PARAMS: (u32, usize) = (6, size_of::<SweepParamsGpu>());

/// Storage bindings (binding, read-only) of each kernel, as its WGSL declares them.
const RW: bool = false;
const RO: bool = true;

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
            bind_groups: [Vec::new(), Vec::new()],
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
        })
    }

    /// All pairs `[a, b]` of boxes that overlap or touch, with `a < b`, in ascending order:
    /// exactly [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs)'s. The slice lives
    /// until the next call.
    ///
    /// Errors, leaving the broad phase usable: [`BatchError::InvalidBox`] naming the first
    /// box with a NaN or infinite coordinate or a minimum above its maximum; a batch (or its
    /// pairs) past what one binding or dispatch holds; a device error.
    pub fn find_pairs(&mut self, aabbs: &[Aabb]) -> Result<&[[u32; 2]], Error> {
        self.pairs.clear();
        if let Some(index) = aabbs.iter().position(|b| !valid(b)) {
            return Err(Error::Batch(BatchError::InvalidBox { index }));
        }
        if aabbs.len() < 2 {
            return Ok(&self.pairs);
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = self.run(aabbs);
        if let Some(error) = pollster::block_on(scope.pop()) {
            self.pairs.clear();
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        result?;
        Ok(&self.pairs)
    }

    /// How many GPU buffers this has created so far.
    pub fn buffers_created(&self) -> u64 {
        self.buffers.created()
    }

    /// The two submits of a call over at least two valid boxes.
    fn run(&mut self, aabbs: &[Aabb]) -> Result<(), Error> {
        let n = aabbs.len();
        // The bands and the entry count the GPU will find (the same arithmetic: see
        // `sort_sweep.rs`).
        let bands = Bands::fit(aabbs);
        let entry_count: usize = aabbs
            .iter()
            .map(|b| bands.band(b.max.y) - bands.band(b.min.y) + 1)
            .sum();
        self.check_fits("boxes", n.max(entry_count), size_of::<AabbGpu>())?;
        self.reserve_boxes(n, entry_count);
        self.scratch.clear();
        self.scratch.extend(aabbs.iter().map(|b| AabbGpu {
            min: b.min.to_array(),
            max: b.max.to_array(),
        }));
        let bytes = bytemuck::cast_slice(&self.scratch);
        self.queue
            .write_buffer(&self.buffers.boxes.buffer, 0, bytes);

        let params = |len: usize| SweepParamsGpu {
            len: len as u32,
            side: 0,
            first: 0,
            bits: 0,
            origin: bands.origin,
            inv_height: bands.inv_height,
            band_count: bands.count as u32,
            entry_count: entry_count as u32,
        };
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let mut plan = Plan::default();
        let items = [&buffers.box_items[0].buffer, &buffers.box_items[1].buffer];
        let (boxes, sorted) = (&buffers.boxes.buffer, &buffers.sorted.buffer);
        let counts = &buffers.counts.buffer;
        plan.push(
            &kernels.box_keys,
            &[(0, boxes), (1, items[0])],
            params(n),
            groups(n),
        );
        let by_x = buffers.radix_sort(kernels, &mut plan, items, 0, n, 32);
        plan.push(
            &kernels.band_spans,
            &[(0, boxes), (1, items[by_x]), (3, counts)],
            params(n),
            groups(n + 1),
        );
        buffers.scan(kernels, &mut plan, counts, n + 1, 0);
        let (x_order, entries) = (items[by_x], items[1 - by_x]);
        plan.push(
            &kernels.band_entries,
            &[(0, boxes), (1, x_order), (3, counts), (7, entries)],
            params(n),
            groups(n),
        );
        let band_bits = index_bits(bands.count);
        let e = entry_count;
        let by_band = buffers.radix_sort(kernels, &mut plan, items, 1 - by_x, e, band_bits);
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
        buffers.scan(kernels, &mut plan, counts, e + 1, 0);
        let (device, queue) = (&self.device, &self.queue);
        let cache = &mut self.bind_groups[0];
        submit(
            device,
            queue,
            buffers,
            cache,
            plan,
            Some((counts, 4 * e as u64, 4)),
        );
        let mut total = 0u32;
        read_back(&self.device, &self.buffers.readback.buffer, 4, |view| {
            total = bytemuck::pod_read_unaligned(&view[..4]);
        })?;
        let total = total as usize;
        if total == 0 {
            return Ok(());
        }

        self.check_fits("pairs", total, size_of::<[u32; 2]>())?;
        self.reserve_pairs(total);
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let mut plan = Plan::default();
        let entries = &buffers.box_items[by_band].buffer;
        let pair_items = [&buffers.pair_items[0].buffer, &buffers.pair_items[1].buffer];
        let (found, out) = (&buffers.found.buffer, &buffers.out.buffer);
        let sorted = &buffers.sorted.buffer;
        let counts = &buffers.counts.buffer;
        plan.push(
            &kernels.sweep_write,
            &[(1, entries), (2, sorted), (3, counts), (4, found)],
            params(e),
            groups(e),
        );
        let bits = index_bits(n);
        let keys = |key: PairKey, first: u32| SweepParamsGpu {
            side: key as u32,
            first,
            bits,
            ..params(total)
        };
        let at = if one_pair_sort(bits) {
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[0]), (4, found)],
                keys(PairKey::Both, 1),
                groups(total),
            );
            buffers.radix_sort(kernels, &mut plan, pair_items, 0, total, 2 * bits)
        } else {
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[0]), (4, found)],
                keys(PairKey::Second, 1),
                groups(total),
            );
            let at = buffers.radix_sort(kernels, &mut plan, pair_items, 0, total, bits);
            plan.push(
                &kernels.pair_keys,
                &[(1, pair_items[at]), (4, found)],
                keys(PairKey::First, 0),
                groups(total),
            );
            buffers.radix_sort(kernels, &mut plan, pair_items, at, total, bits)
        };
        plan.push(
            &kernels.gather_pairs,
            &[(1, pair_items[at]), (4, found), (5, out)],
            params(total),
            groups(total),
        );
        let bytes = 8 * total as u64;
        let (device, queue) = (&self.device, &self.queue);
        submit(
            device,
            queue,
            buffers,
            &mut self.bind_groups[1],
            plan,
            Some((out, 0, bytes)),
        );
        let pairs = &mut self.pairs;
        read_back(&self.device, &self.buffers.readback.buffer, bytes, |view| {
            pairs.extend_from_slice(bytemuck::cast_slice::<u8, [u32; 2]>(view));
        })?;
        Ok(())
    }

    /// An error unless `count` items of `size` bytes fit one binding, and their tiles (and
    /// the radix sort's counts) one dispatch.
    fn check_fits(&self, what: &'static str, count: usize, size: usize) -> Result<(), Error> {
        let by_binding = (self.max_binding / size.max(16) as u64) as usize;
        let by_dispatch = self.max_workgroups as usize * WORKGROUP as usize;
        let max = by_binding.min(by_dispatch);
        if count > max {
            return Err(Error::Gpu(GpuError::TooLarge { what, count, max }));
        }
        Ok(())
    }

    /// Room for `n` boxes in `entries` band entries, and what their sorts and sweep use.
    fn reserve_boxes(&mut self, n: usize, entries: usize) {
        let (device, cap, b) = (&self.device, self.max_binding, &mut self.buffers);
        let most = n.max(entries) as u64;
        b.boxes.reserve(device, 16 * n as u64, cap);
        b.sorted.reserve(device, 16 * entries as u64, cap);
        for items in &mut b.box_items {
            items.reserve(device, 8 * most, cap);
        }
        b.counts.reserve(device, 4 * (most + 1), cap);
        b.reserve_scan(device, cap, most as usize + 1, most as usize);
        b.readback.reserve(device, 4, cap);
    }

    /// Room for `total` pairs and their sorts.
    fn reserve_pairs(&mut self, total: usize) {
        let (device, cap, b) = (&self.device, self.max_binding, &mut self.buffers);
        for buffer in [&mut b.found, &mut b.out, &mut b.readback] {
            buffer.reserve(device, 8 * total as u64, cap);
        }
        for items in &mut b.pair_items {
            items.reserve(device, 8 * total as u64, cap);
        }
        b.reserve_scan(device, cap, total, total);
    }
}

/// Writes `plan`'s uniforms, records its dispatches in one compute pass (each with the bind
/// group it had in the same place of the last such submit when it binds the same buffers,
/// else a new one, kept in `cache`), copies `copy` (buffer, offset, bytes) to the readback
/// buffer, and submits.
fn submit(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffers: &Buffers,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    copy: Option<(&wgpu::Buffer, u64, u64)>,
) {
    let params = &buffers.params.buffer;
    let label = Some("wgpu-sat broad phase");
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label });
    queue.write_buffer(params, 0, &plan.params);
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label,
            timestamp_writes: None,
        });
        for (k, dispatch) in plan.dispatches.iter().enumerate() {
            let key = BindKey {
                kernel: dispatch.kernel.id,
                bindings: dispatch
                    .bindings
                    .map(|b| b.map(|(i, buffer)| (i, buffer.clone()))),
                params: params.clone(),
            };
            if cache.get(k).is_none_or(|(cached, _)| *cached != key) {
                let bind_group = bind_group(device, dispatch, params, k);
                if k < cache.len() {
                    cache[k] = (key, bind_group);
                } else {
                    cache.push((key, bind_group));
                }
            }
            pass.set_pipeline(&dispatch.kernel.pipeline);
            pass.set_bind_group(0, &cache[k].1, &[]);
            pass.dispatch_workgroups(dispatch.workgroups, 1, 1);
        }
    }
    // Bind groups past this plan would hold old buffers alive.
    cache.truncate(plan.dispatches.len());
    if let Some((buffer, offset, bytes)) = copy {
        encoder.copy_buffer_to_buffer(buffer, offset, &buffers.readback.buffer, 0, bytes);
    }
    queue.submit([encoder.finish()]);
}

/// The bind group of dispatch `k` of a submit: its storage buffers whole, and its slot of
/// the uniform buffer `params`.
fn bind_group(
    device: &wgpu::Device,
    dispatch: &Dispatch<'_>,
    params: &wgpu::Buffer,
    k: usize,
) -> wgpu::BindGroup {
    let mut entries: Vec<wgpu::BindGroupEntry<'_>> = dispatch
        .bindings
        .iter()
        .flatten()
        .map(|&(binding, buffer)| wgpu::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    entries.push(wgpu::BindGroupEntry {
        binding: dispatch.kernel.params,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: params,
            offset: k as u64 * PARAMS_SLOT,
            size: wgpu::BufferSize::new(dispatch.kernel.params_size),
        }),
    });
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &dispatch.kernel.layout,
        entries: &entries,
    })
}

/// Whether a box is one the GPU broad phase takes: finite, with its minimum at or below its
/// maximum on both axes.
fn valid(b: &Aabb) -> bool {
    b.min.is_finite() && b.max.is_finite() && b.min.x <= b.max.x && b.min.y <= b.max.y
}

/// Workgroups of [`WORKGROUP`] invocations for `len` invocations.
fn groups(len: usize) -> u32 {
    (len as u32).div_ceil(WORKGROUP)
}

impl Kernels {
    fn new(device: &wgpu::Device) -> Kernels {
        let module = |name: &str, source: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&format!("wgpu-sat {name}.wgsl")),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let scan = module("scan", SCAN_WGSL);
        let radix = module("radix_sort", RADIX_SORT_WGSL);
        let sweep = module("sort_sweep", SORT_SWEEP_WGSL);
        let next_id = std::cell::Cell::new(0u8);
        let kernel = |module: &wgpu::ShaderModule,
                      entry: &'static str,
                      bindings: &[(u32, bool)],
                      (params, size): (u32, usize)| {
            let mut entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
                .iter()
                .map(|&(binding, read_only)| storage(binding, read_only))
                .collect();
            entries.push(uniform(params, size));
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(entry),
                entries: &entries,
            });
            let id = next_id.get();
            next_id.set(id + 1);
            Kernel {
                id,
                pipeline: compute_pipeline(device, module, &layout, entry),
                layout,
                params,
                params_size: size as u64,
            }
        };
        Kernels {
            scan_reduce: kernel(&scan, "scan_reduce", &[(0, RW), (1, RW)], SCAN_PARAMS),
            scan_tiles: kernel(&scan, "scan_tiles", &[(0, RW), (1, RW)], SCAN_PARAMS),
            radix_count: kernel(&radix, "radix_count", &[(0, RO), (1, RW)], RADIX_PARAMS),
            radix_scatter: kernel(
                &radix,
                "radix_scatter",
                &[(0, RO), (1, RW), (2, RW)],
                RADIX_PARAMS,
            ),
            box_keys: kernel(&sweep, "box_keys", &[(0, RO), (1, RW)], SWEEP_PARAMS),
            band_spans: kernel(
                &sweep,
                "band_spans",
                &[(0, RO), (1, RW), (3, RW)],
                SWEEP_PARAMS,
            ),
            band_entries: kernel(
                &sweep,
                "band_entries",
                &[(0, RO), (1, RW), (3, RW), (7, RW)],
                SWEEP_PARAMS,
            ),
            gather_boxes: kernel(
                &sweep,
                "gather_boxes",
                &[(0, RO), (1, RW), (2, RW)],
                SWEEP_PARAMS,
            ),
            sweep_count: kernel(
                &sweep,
                "sweep_count",
                &[(1, RW), (2, RW), (3, RW)],
                SWEEP_PARAMS,
            ),
            sweep_write: kernel(
                &sweep,
                "sweep_write",
                &[(1, RW), (2, RW), (3, RW), (4, RW)],
                SWEEP_PARAMS,
            ),
            pair_keys: kernel(&sweep, "pair_keys", &[(1, RW), (4, RW)], SWEEP_PARAMS),
            gather_pairs: kernel(
                &sweep,
                "gather_pairs",
                &[(1, RW), (4, RW), (5, RW)],
                SWEEP_PARAMS,
            ),
        }
    }
}

impl Buffers {
    fn new(device: &wgpu::Device) -> Buffers {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| {
            GrowingBuffer::new(device, format!("wgpu-sat broad phase {what}"), storage)
        };
        Buffers {
            boxes: buffer("boxes"),
            sorted: buffer("sorted boxes"),
            box_items: [buffer("box items"), buffer("box items 2")],
            pair_items: [buffer("pair items"), buffer("pair items 2")],
            counts: buffer("counts"),
            tile_counts: buffer("radix counts"),
            sums: [
                buffer("scan sums"),
                buffer("scan sums 2"),
                buffer("scan sums 3"),
            ],
            // Created zeroed, and no kernel writes it: the top level's base.
            zero: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat broad phase zero"),
                size: 256,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            found: buffer("found pairs"),
            out: buffer("pairs"),
            params: GrowingBuffer::new(
                device,
                "wgpu-sat broad phase params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat broad phase readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
        }
    }

    /// Buffers created so far, the zeros included.
    fn created(&self) -> u64 {
        let grown = [
            &self.boxes,
            &self.sorted,
            &self.counts,
            &self.tile_counts,
            &self.found,
            &self.out,
            &self.params,
            &self.readback,
        ];
        let pairs = self
            .box_items
            .iter()
            .chain(&self.pair_items)
            .chain(&self.sums);
        1 + grown
            .iter()
            .copied()
            .chain(pairs)
            .map(|b| b.created)
            .sum::<u64>()
    }

    /// Room for scans of up to `counts` counts, radix sorts of up to `items` items, and the
    /// uniforms of a submit of either (a generous bound on its dispatches).
    fn reserve_scan(&mut self, device: &wgpu::Device, cap: u64, counts: usize, items: usize) {
        let radix_counts = RADIX_DIGITS * radix_tile_count(items);
        self.tile_counts
            .reserve(device, 4 * radix_counts as u64, cap);
        let mut len = counts.max(radix_counts);
        for level in &mut self.sums {
            len = scan_tile_count(len);
            level.reserve(device, 4 * len.max(1) as u64, cap);
        }
        // Per radix pass a count, a scatter and a scan of up to 2 * SCAN_LEVELS + 1
        // dispatches; two sorts of four passes, and a handful of other kernels.
        let dispatches = 2 * 4 * (2 + 2 * SCAN_LEVELS + 1) + 16;
        self.params
            .reserve(device, dispatches as u64 * PARAMS_SLOT, u64::MAX);
    }

    /// Adds the dispatches of an exclusive scan of `len` counts of `data` (scan.rs's
    /// `exclusive_scan`, level `level` of the tile sums).
    fn scan<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        data: &'a wgpu::Buffer,
        len: usize,
        level: usize,
    ) {
        let params = ScanParamsGpu {
            len: len as u32,
            _pad: [0; 3],
        };
        let tiles = scan_tile_count(len);
        if tiles <= 1 {
            plan.push(
                &kernels.scan_tiles,
                &[(0, data), (1, &self.zero)],
                params,
                1,
            );
            return;
        }
        let sums = &self.sums[level].buffer;
        plan.push(
            &kernels.scan_reduce,
            &[(0, data), (1, sums)],
            params,
            tiles as u32,
        );
        self.scan(kernels, plan, sums, tiles, level + 1);
        plan.push(
            &kernels.scan_tiles,
            &[(0, data), (1, sums)],
            params,
            tiles as u32,
        );
    }

    /// Adds the passes of a radix sort of `len` items by their low `bits` bits (radix_sort.rs's
    /// `radix_sort`), starting in `items[start]`; returns which buffer holds the result.
    fn radix_sort<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        items: [&'a wgpu::Buffer; 2],
        start: usize,
        len: usize,
        bits: u32,
    ) -> usize {
        let tiles = radix_tile_count(len);
        let counts = &self.tile_counts.buffer;
        let mut at = start;
        for pass in 0..radix_passes(bits) {
            let params = RadixParamsGpu {
                len: len as u32,
                shift: pass * 8,
                tiles: tiles as u32,
                _pad: 0,
            };
            plan.push(
                &kernels.radix_count,
                &[(0, items[at]), (1, counts)],
                params,
                tiles as u32,
            );
            self.scan(kernels, plan, counts, RADIX_DIGITS * tiles, 0);
            plan.push(
                &kernels.radix_scatter,
                &[(0, items[at]), (1, counts), (2, items[1 - at])],
                params,
                tiles as u32,
            );
            at = 1 - at;
        }
        at
    }
}
