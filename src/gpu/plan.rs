//! The dispatches of one submit of the GPU's multi-kernel faces (the broad phase, the GPU
//! world's solver), with their uniforms, and the submit itself: one compute pass (split
//! where the plan copies a buffer between two dispatches: [`Plan::copy`]), each dispatch
//! with the bind group it had in the same place of the last such submit while it binds the
//! same buffers. [`Kernel::new`] makes a pipeline with the layout of its bindings.

use bytemuck::Pod;

use crate::broad_phase::radix_sort::{RADIX_DIGITS, radix_passes, radix_tile_count};
use crate::broad_phase::scan::scan_tile_count;
use crate::gpu::layout::{RadixParamsGpu, ScanParamsGpu};
use crate::gpu::plumbing::{GrowingBuffer, KernelTimer, compute_pipeline, storage, uniform};

/// Bytes per dispatch in a submit's uniform buffer: the uniform offset alignment every
/// adapter accepts.
pub(in crate::gpu) const PARAMS_SLOT: u64 = 256;

/// Storage bindings (binding, read-only) of each kernel, as its WGSL declares them.
pub(in crate::gpu) const RW: bool = false;
pub(in crate::gpu) const RO: bool = true;

/// One entry point, its layout (the storage bindings it uses, then its uniform) and the
/// uniform's binding.
pub(in crate::gpu) struct Kernel {
    /// Its place in `Kernels`, naming it in a [`BindKey`].
    pub(in crate::gpu) id: u8,
    pub(in crate::gpu) pipeline: wgpu::ComputePipeline,
    pub(in crate::gpu) layout: wgpu::BindGroupLayout,
    pub(in crate::gpu) params: u32,
    pub(in crate::gpu) params_size: u64,
}

/// The dispatches of one submit, in order, with their uniforms.
#[derive(Default)]
pub(in crate::gpu) struct Plan<'a> {
    pub(in crate::gpu) dispatches: Vec<Dispatch<'a>>,
    pub(in crate::gpu) params: Vec<u8>,
    /// Where each stage of the plan begins (its first dispatch) and its label, for a
    /// timer that times the plan pass by pass ([`record_passes`]).
    pub(in crate::gpu) stages: Vec<(usize, u8)>,
    /// Buffer copies between the dispatches ([`Plan::copy`]), in order.
    copies: Vec<PlanCopy<'a>>,
}

/// A copy of a buffer's first `bytes` to `to` at `offset`, before dispatch `at` (after the
/// dispatches before it): the compute pass is split there.
struct PlanCopy<'a> {
    at: usize,
    from: &'a wgpu::Buffer,
    to: &'a wgpu::Buffer,
    offset: u64,
    bytes: u64,
}

/// The most storage buffers a kernel binds (the downlevel limit per stage).
const MAX_STORAGE: usize = 4;

pub(in crate::gpu) struct Dispatch<'a> {
    pub(in crate::gpu) kernel: &'a Kernel,
    /// (binding, buffer) of each storage binding; the uniform is the dispatch's slot.
    pub(in crate::gpu) bindings: [Option<(u32, &'a wgpu::Buffer)>; MAX_STORAGE],
    pub(in crate::gpu) workgroups: Workgroups<'a>,
}

/// How many workgroups a dispatch runs: a count the host knows, or one a kernel wrote (the
/// three `u32` of `dispatch_workgroups_indirect` at that offset of that buffer).
#[derive(Clone, Copy)]
pub(in crate::gpu) enum Workgroups<'a> {
    Direct(u32),
    Indirect(&'a wgpu::Buffer, u64),
}

/// What a dispatch's bind group binds: the kernel, its storage buffers, and the uniform
/// buffer (at the dispatch's slot, its position in the submit). Buffers compare by identity:
/// a grown buffer is another one, and its bind groups are made again.
#[derive(PartialEq, Eq)]
pub(in crate::gpu) struct BindKey {
    pub(in crate::gpu) kernel: u8,
    pub(in crate::gpu) bindings: [Option<(u32, wgpu::Buffer)>; MAX_STORAGE],
    pub(in crate::gpu) params: wgpu::Buffer,
}

impl<'a> Plan<'a> {
    /// Starts a stage labelled `label`: the dispatches pushed from here on, up to the next
    /// stage, are its own (one pass of their own when timed pass by pass).
    pub(in crate::gpu) fn stage(&mut self, label: u8) {
        self.stages.push((self.dispatches.len(), label));
    }

    /// The stages that hold dispatches, in order: their dispatches and labels. Dispatches
    /// before the first stage are a stage of their own, labelled `u8::MAX`.
    fn stage_ranges(&self) -> impl Iterator<Item = (std::ops::Range<usize>, u8)> + '_ {
        let head = (0, u8::MAX);
        let starts = std::iter::once(head).chain(self.stages.iter().copied());
        let ends = self
            .stages
            .iter()
            .map(|&(start, _)| start)
            .chain(std::iter::once(self.dispatches.len()));
        starts
            .zip(ends)
            .map(|((start, label), end)| (start..end, label))
            .filter(|(range, _)| !range.is_empty())
    }

    /// Copies `from`'s first `bytes` to `to` at `offset` once the dispatches pushed so far
    /// have run, before the next (a readback of what the dispatches after it change).
    pub(in crate::gpu) fn copy(
        &mut self,
        from: &'a wgpu::Buffer,
        to: &'a wgpu::Buffer,
        offset: u64,
        bytes: u64,
    ) {
        if bytes > 0 {
            let at = self.dispatches.len();
            self.copies.push(PlanCopy {
                at,
                from,
                to,
                offset,
                bytes,
            });
        }
    }

    /// Adds a dispatch of `workgroups` workgroups of `kernel` with `params` as its uniform.
    pub(in crate::gpu) fn push(
        &mut self,
        kernel: &'a Kernel,
        bindings: &[(u32, &'a wgpu::Buffer)],
        params: impl Pod,
        workgroups: u32,
    ) {
        self.push_with(kernel, bindings, params, Workgroups::Direct(workgroups));
    }

    /// [`Plan::push`] with workgroups that may be a kernel's ([`Workgroups::Indirect`]).
    pub(in crate::gpu) fn push_with(
        &mut self,
        kernel: &'a Kernel,
        bindings: &[(u32, &'a wgpu::Buffer)],
        params: impl Pod,
        workgroups: Workgroups<'a>,
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

/// Adds the dispatches of an exclusive scan of `len` counts of `data`, in place
/// (`src/broad_phase/scan.rs`' `exclusive_scan`, with `shaders/scan.wgsl`'s `scan_reduce`
/// and `scan_tiles` as `kernels`): `sums` are the tile sums of this level and the ones
/// above, `zero` holds the top level's base (a zero).
pub(in crate::gpu) fn push_scan<'a>(
    plan: &mut Plan<'a>,
    [reduce, tiles]: [&'a Kernel; 2],
    sums: &'a [GrowingBuffer],
    zero: &'a wgpu::Buffer,
    data: &'a wgpu::Buffer,
    len: usize,
) {
    let params = ScanParamsGpu {
        len: len as u32,
        _pad: [0; 3],
    };
    let tile_count = scan_tile_count(len);
    let Some((level, above)) = sums.split_first().filter(|_| tile_count > 1) else {
        plan.push(tiles, &[(0, data), (1, zero)], params, 1);
        return;
    };
    let level = &level.buffer;
    plan.push(reduce, &[(0, data), (1, level)], params, tile_count as u32);
    push_scan(plan, [reduce, tiles], above, zero, level, tile_count);
    plan.push(tiles, &[(0, data), (1, level)], params, tile_count as u32);
}

/// The kernels of a radix sort (`shaders/radix_sort.wgsl`' `radix_count` and
/// `radix_scatter`) and of its scans (`scan.wgsl`' `scan_reduce` and `scan_tiles`).
pub(in crate::gpu) struct RadixKernels<'a> {
    pub(in crate::gpu) count: &'a Kernel,
    pub(in crate::gpu) scatter: &'a Kernel,
    pub(in crate::gpu) scan: [&'a Kernel; 2],
}

/// Adds the passes of a stable radix sort of `len` (key, value) items by their keys' low
/// `bits` bits (`src/broad_phase/radix_sort.rs`' `radix_sort`), starting in `items[start]`
/// and ping-ponging between the two; `counts` holds each pass's digit counts per tile, and
/// `sums`, `zero` are the scans' (see [`push_scan`]). Returns which buffer holds the result.
#[allow(clippy::too_many_arguments)]
pub(in crate::gpu) fn push_radix_sort<'a>(
    plan: &mut Plan<'a>,
    kernels: &RadixKernels<'a>,
    counts: &'a wgpu::Buffer,
    (sums, zero): (&'a [GrowingBuffer], &'a wgpu::Buffer),
    items: [&'a wgpu::Buffer; 2],
    start: usize,
    len: usize,
    bits: u32,
) -> usize {
    let tiles = radix_tile_count(len);
    let mut at = start;
    for pass in 0..radix_passes(bits) {
        let params = RadixParamsGpu {
            len: len as u32,
            shift: pass * 8,
            tiles: tiles as u32,
            _pad: 0,
        };
        let count = [(0, items[at]), (1, counts)];
        plan.push(kernels.count, &count, params, tiles as u32);
        push_scan(plan, kernels.scan, sums, zero, counts, RADIX_DIGITS * tiles);
        let scatter = [(0, items[at]), (1, counts), (2, items[1 - at])];
        plan.push(kernels.scatter, &scatter, params, tiles as u32);
        at = 1 - at;
    }
    at
}

/// Makes the shader modules and kernels of one set of pipelines, numbering the kernels in
/// the order they are made from a first number: within a submit a bind group is kept by
/// its dispatch's kernel number and place, so two sets whose kernels share a pass number
/// theirs apart.
pub(in crate::gpu) struct KernelMaker<'d> {
    device: &'d wgpu::Device,
    next: std::cell::Cell<u8>,
}

impl<'d> KernelMaker<'d> {
    pub(in crate::gpu) fn new(device: &'d wgpu::Device, first: u8) -> Self {
        KernelMaker {
            device,
            next: std::cell::Cell::new(first),
        }
    }

    /// The module of `source`, labelled `wgpu-sat {name}.wgsl`.
    pub(in crate::gpu) fn module(&self, name: &str, source: &str) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&format!("wgpu-sat {name}.wgsl")),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
    }

    /// The next kernel: `entry` of `module`, see [`Kernel::new`].
    pub(in crate::gpu) fn kernel(
        &self,
        module: &wgpu::ShaderModule,
        entry: &'static str,
        bindings: &[(u32, bool)],
        params: (u32, usize),
    ) -> Kernel {
        let id = self.next.get();
        self.next.set(id + 1);
        Kernel::new(self.device, module, entry, bindings, params, id)
    }
}

/// Writes `plan`'s uniforms, records its dispatches in one compute pass (see [`record`]),
/// copies `copy` (from, offset, to, bytes: to the start of `to`) and, with a `timer`, the
/// pass's timestamps after it, and submits. `params` is the uniform buffer the
/// dispatches' slots are in. Returns the uniform bytes written.
pub(in crate::gpu) fn submit(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    params: &GrowingBuffer,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    (from, offset, to, bytes): (&wgpu::Buffer, u64, &wgpu::Buffer, u64),
    timer: Option<&KernelTimer>,
) -> u64 {
    let label = Some("wgpu-sat broad phase");
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label });
    let timestamps = timer.map(KernelTimer::whole_pass);
    let written = record(device, queue, &mut encoder, params, cache, plan, timestamps);
    encoder.copy_buffer_to_buffer(from, offset, to, 0, bytes);
    if let Some(timer) = timer {
        // After the copy, 8-byte aligned: the pass's two ticks.
        timer.copy(&mut encoder, to, bytes.next_multiple_of(8));
    }
    queue.submit([encoder.finish()]);
    written
}

/// Writes `plan`'s uniforms to `params` (the slots that changed since the buffer's last
/// write: [`GrowingBuffer::write_slots`]) and records its dispatches in one compute pass
/// (split at the plan's copies, which are recorded between the parts)
/// of `encoder`, each with the bind group it had in the same place of the last plan
/// recorded with `cache` when it binds the same buffers, else a new one, kept in `cache`;
/// `timestamps` are written around the pass. Returns the uniform bytes written.
pub(in crate::gpu) fn record(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: &mut wgpu::CommandEncoder,
    params: &GrowingBuffer,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
) -> u64 {
    let written = params.write_slots(queue, &plan.params, PARAMS_SLOT as usize);
    let params = &params.buffer;
    let all = 0..plan.dispatches.len();
    let mut copied = 0;
    record_split(
        encoder,
        (device, params, cache),
        &plan,
        all,
        timestamps,
        &mut copied,
    );
    copy_from(encoder, &plan, usize::MAX, &mut copied);
    // Bind groups past this plan would hold old buffers alive.
    cache.truncate(plan.dispatches.len());
    written
}

/// Records dispatches `range` of `plan` as one compute pass, or as several where a copy of
/// the plan falls inside it (the copies recorded between them): `timestamps`' start is
/// written by the first, its end by the last. `copied` counts the plan's copies recorded
/// so far.
fn record_split(
    encoder: &mut wgpu::CommandEncoder,
    (device, params, cache): (
        &wgpu::Device,
        &wgpu::Buffer,
        &mut Vec<(BindKey, wgpu::BindGroup)>,
    ),
    plan: &Plan<'_>,
    range: std::ops::Range<usize>,
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    copied: &mut usize,
) {
    copy_from(encoder, plan, range.start, copied);
    // Where the copies inside the range split it.
    let cuts = plan.copies[*copied..]
        .iter()
        .map(|c| c.at)
        .filter(|&at| at > range.start && at < range.end);
    let mut bounds: Vec<usize> = std::iter::once(range.start).chain(cuts).collect();
    bounds.dedup();
    bounds.push(range.end);
    let last = bounds.len() - 2;
    for (k, piece) in bounds.windows(2).enumerate() {
        copy_from(encoder, plan, piece[0], copied);
        let writes = timestamps
            .as_ref()
            .map(|t| wgpu::ComputePassTimestampWrites {
                query_set: t.query_set,
                beginning_of_pass_write_index: t.beginning_of_pass_write_index.filter(|_| k == 0),
                end_of_pass_write_index: t.end_of_pass_write_index.filter(|_| k == last),
            });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgpu-sat"),
            timestamp_writes: writes,
        });
        record_range(&mut pass, device, params, cache, plan, piece[0]..piece[1]);
    }
}

/// Records the plan's copies not yet recorded whose place is at or before dispatch `at`.
fn copy_from(encoder: &mut wgpu::CommandEncoder, plan: &Plan<'_>, at: usize, copied: &mut usize) {
    while let Some(c) = plan.copies.get(*copied).filter(|c| c.at <= at) {
        encoder.copy_buffer_to_buffer(c.from, 0, c.to, c.offset, c.bytes);
        *copied += 1;
    }
}

/// [`record`] with a pass per stage of `plan` ([`Plan::stage`]), each timed by `timer`
/// (pass `i` writes queries `2i` and `2i + 1`), as many as it has queries for (the rest in
/// the last one). Returns the timed passes' stage labels, in order, and the uniform bytes
/// written. Without a timer, one untimed pass (and no label): the dispatches and their
/// order are the same either way, and so are the results.
pub(in crate::gpu) fn record_passes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: &mut wgpu::CommandEncoder,
    params: &GrowingBuffer,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: Plan<'_>,
    timer: Option<&KernelTimer>,
) -> (Vec<u8>, u64) {
    let Some(timer) = timer else {
        let written = record(device, queue, encoder, params, cache, plan, None);
        return (Vec::new(), written);
    };
    let written = params.write_slots(queue, &plan.params, PARAMS_SLOT as usize);
    let params = &params.buffer;
    let room = timer.passes();
    let mut ranges: Vec<_> = plan.stage_ranges().collect();
    let mut labels = Vec::with_capacity(ranges.len());
    if ranges.len() > room && room > 0 {
        // Too many stages to time one by one: the last timed pass runs to the end.
        let end = plan.dispatches.len();
        ranges.truncate(room);
        if let Some((last, _)) = ranges.last_mut() {
            last.end = end;
        }
    }
    let mut copied = 0;
    for (i, (range, label)) in ranges.into_iter().enumerate() {
        let at = 2 * i as u32;
        let writes = Some(timer.pass(Some(at), Some(at + 1)));
        record_split(
            encoder,
            (device, params, cache),
            &plan,
            range,
            writes,
            &mut copied,
        );
        labels.push(label);
    }
    copy_from(encoder, &plan, usize::MAX, &mut copied);
    cache.truncate(plan.dispatches.len());
    (labels, written)
}

/// Records dispatches `range` of `plan` into `pass` (see [`record`] for the bind groups).
fn record_range(
    pass: &mut wgpu::ComputePass<'_>,
    device: &wgpu::Device,
    params: &wgpu::Buffer,
    cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
    plan: &Plan<'_>,
    range: std::ops::Range<usize>,
) {
    for k in range {
        let dispatch = &plan.dispatches[k];
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
        match dispatch.workgroups {
            Workgroups::Direct(count) => pass.dispatch_workgroups(count, 1, 1),
            Workgroups::Indirect(args, offset) => pass.dispatch_workgroups_indirect(args, offset),
        }
    }
}

/// The bind group of dispatch `k` of a submit: its storage buffers whole, and its slot of
/// the uniform buffer `params`.
pub(in crate::gpu) fn bind_group(
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

impl Kernel {
    /// The pipeline of `entry` in `module`, with a layout of its storage `bindings`
    /// (binding, read-only) and its uniform (binding, size); `id` names it in bind keys.
    pub(in crate::gpu) fn new(
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        entry: &'static str,
        bindings: &[(u32, bool)],
        (params, size): (u32, usize),
        id: u8,
    ) -> Kernel {
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
            .iter()
            .map(|&(binding, read_only)| storage(binding, read_only))
            .collect();
        entries.push(uniform(params, size));
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(entry),
            entries: &entries,
        });
        Kernel {
            id,
            pipeline: compute_pipeline(device, module, &layout, entry),
            layout,
            params,
            params_size: size as u64,
        }
    }
}
