//! The GPU plumbing the kernels share: buffers that grow and are reused
//! (`growing_buffer.rs`, re-exported here), bind group layout entries, pipelines, the
//! shape-table upload, a blocking readback, and the whole runner of the kernels that write
//! one fixed record per pair.
//!
//! Why a room of its own: [`GpuNarrowPhase`](super::GpuNarrowPhase) (`narrow_phase.rs`,
//! `host.rs`), [`GpuTimeOfImpact`](super::GpuTimeOfImpact) (`toi.rs`) and
//! [`GpuRayCast`](super::GpuRayCast) (`ray.rs`) build their passes from the same few pieces,
//! and none should reach into another for them.
//!
//! ```text
//! GrowingBuffer     a buffer slot: grows to the next power of two (within the binding
//!                   limit) when a batch needs more, else is reused; counts what it created
//! storage, uniform  compute-stage bind group layout entries
//! compute_pipeline  a pipeline with one explicit bind group layout (shareable, unlike an
//!                   automatic one)
//! upload_shapes     shape table -> `array<Shape>` (ShapeGpu records)
//! read_back         map_async, wait for the device, read, unmap
//! unmap             unmap inside an error scope (a lost device must not panic the host)
//! PairRunner        a `PairKernel` (time of impact, ray casts) on the device:
//!                       items (bound whole) -> binding 1, once per call
//!                       per run of pairs that fits one dispatch, in order:
//!                           pairs -> binding 2, params -> binding 4
//!                           one invocation per pair, a fixed record at its index -> 3
//!                           copy the records to a mapped buffer, hand them out in pair order
//! ```

use std::sync::mpsc;
use std::time::{Duration, Instant};

use bytemuck::Pod;

use crate::error::Error;
use crate::error::GpuError;
use crate::gpu::layout::ShapeGpu;
use crate::shapes::shape::Shape;

pub(super) use super::growing_buffer::GrowingBuffer;

/// A compute-stage storage buffer binding of any size.
pub(super) fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A compute-stage uniform buffer binding of `size` bytes (the size of its struct).
pub(super) fn uniform(binding: u32, size: usize) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            // The pipeline checks the bound buffer's size once, at bind time, not per draw.
            min_binding_size: wgpu::BufferSize::new(size as u64),
        },
        count: None,
    }
}

/// A compute pipeline running `entry_point` of `module`, with `layout` as its only bind
/// group (an explicit layout, so several pipelines and their bind groups can share it).
pub(super) fn compute_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    entry_point: &'static str,
) -> wgpu::ComputePipeline {
    compute_pipeline_with(device, module, layout, entry_point, &[])
}

/// [`compute_pipeline`] with values for the module's `override` constants, by name.
pub(super) fn compute_pipeline_with(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    entry_point: &'static str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry_point),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// A bind group entry binding the whole of `buffer`.
pub(super) fn entire(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// Writes a shape table into `buffer` (grown if needed, within `max_binding`) as
/// `ShapeGpu` records. Returns whether the buffer was replaced (bind groups holding it
/// must be rebuilt). Errors when the table cannot fit in one binding.
pub(super) fn upload_shapes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &mut GrowingBuffer,
    max_binding: u64,
    shapes: &[Shape],
) -> Result<bool, Error> {
    let max = (max_binding / size_of::<ShapeGpu>() as u64) as usize;
    if shapes.len() > max {
        return Err(Error::Gpu(GpuError::TooLarge {
            what: "shapes",
            count: shapes.len(),
            max,
        }));
    }
    let data: Vec<ShapeGpu> = shapes.iter().map(ShapeGpu::from).collect();
    let bytes: &[u8] = bytemuck::cast_slice(&data);
    let replaced = buffer.reserve(device, bytes.len() as u64, max_binding);
    if !bytes.is_empty() {
        queue.write_buffer(&buffer.buffer, 0, bytes);
    }
    Ok(replaced)
}

/// A shape table on the device: its storage buffer and the table it holds, shared by every
/// kernel that reads shapes (the narrow phase, time of impact, ray casts).
pub(super) struct ShapeTable {
    pub(super) buffer: GrowingBuffer,
    uploaded: Vec<Shape>,
}

impl ShapeTable {
    pub(super) fn new(device: &wgpu::Device, label: impl Into<String>) -> ShapeTable {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        ShapeTable {
            buffer: GrowingBuffer::new(device, label, usage),
            uploaded: Vec::new(),
        }
    }

    /// The table the buffer holds (empty after a device error: unknown).
    pub(super) fn shapes(&self) -> &[Shape] {
        &self.uploaded
    }

    /// Makes the buffer hold `shapes`, uploading only when it holds another table; returns
    /// whether the table changed. The write runs in an error scope, so that a lost device
    /// comes back as an error rather than reaching the host's uncaptured-error handler.
    /// `bind_group` (the caller's, holding the buffer) is dropped when the buffer was
    /// replaced or its contents became unknown (a device error: the next call uploads
    /// whatever table it gets). A table too large for one binding is an error that leaves
    /// the last one in place.
    pub(super) fn set(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        max_binding: u64,
        shapes: &[Shape],
        bind_group: &mut Option<wgpu::BindGroup>,
    ) -> Result<bool, Error> {
        if shapes == self.uploaded.as_slice() {
            return Ok(false);
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let uploaded = upload_shapes(device, queue, &mut self.buffer, max_binding, shapes);
        let device_error = pollster::block_on(scope.pop());
        if uploaded? {
            *bind_group = None;
        }
        self.uploaded.clear();
        if let Some(error) = device_error {
            *bind_group = None;
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        self.uploaded.extend_from_slice(shapes);
        Ok(true)
    }
}

/// Bytes of two resolved timestamps.
pub(super) const TIMESTAMP_BYTES: u64 = 16;

/// Timestamp queries on devices that have them: two (at the start of the first timed pass
/// and the end of the last), or two per pass of a plan timed pass by pass
/// ([`record`](super::plan::record) with a timer); the kernels' own time beside the wall
/// time.
pub(super) struct KernelTimer {
    pub(super) query_set: wgpu::QuerySet,
    /// Where the queries resolve to (QUERY_RESOLVE needs a buffer of its own).
    pub(super) resolve: wgpu::Buffer,
    /// Queries in the set: two, or two per pass of a plan timed pass by pass.
    queries: u32,
    /// Nanoseconds per timestamp tick.
    period: f32,
}

impl KernelTimer {
    /// A timer of two queries on `device`, or `None` when it has no timestamp queries.
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<KernelTimer> {
        Self::with_queries(device, queue, 2)
    }

    /// A timer of `queries` queries (an even number: a start and an end per pass), or
    /// `None` when `device` has no timestamp queries.
    pub(super) fn with_queries(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        queries: u32,
    ) -> Option<KernelTimer> {
        let features = device.features();
        features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| KernelTimer {
                query_set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("wgpu-sat kernel time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: queries,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-sat kernel time"),
                    size: u64::from(queries) * 8,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                queries,
                period: queue.get_timestamp_period(),
            })
    }

    /// The passes this timer can time one by one.
    pub(super) fn passes(&self) -> usize {
        self.queries as usize / 2
    }

    /// The writes of a pass timed alone: its start and its end.
    pub(super) fn whole_pass(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.pass(Some(0), Some(1))
    }

    /// The writes of one pass of several timed together: `start` for the first, `end` for
    /// the last.
    pub(super) fn pass(
        &self,
        start: Option<u32>,
        end: Option<u32>,
    ) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: start,
            end_of_pass_write_index: end,
        }
    }

    /// Resolves the two queries and copies them to `to` at `offset`.
    pub(super) fn copy(&self, encoder: &mut wgpu::CommandEncoder, to: &wgpu::Buffer, offset: u64) {
        self.copy_first(encoder, to, offset, 2);
    }

    /// Resolves the first `queries` queries and copies them to `to` at `offset` (8 bytes
    /// each).
    pub(super) fn copy_first(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        to: &wgpu::Buffer,
        offset: u64,
        queries: u32,
    ) {
        encoder.resolve_query_set(&self.query_set, 0..queries, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, to, offset, u64::from(queries) * 8);
    }

    /// The time between the two ticks read back.
    pub(super) fn elapsed(&self, ticks: [u64; 2]) -> Duration {
        let ns = ticks[1].saturating_sub(ticks[0]) as f64 * self.period as f64;
        Duration::from_nanos(ns as u64)
    }
}

/// Maps the first `bytes` of a readback buffer, waits for the device, hands the bytes to
/// `read`, and unmaps. Returns when the data became ready (after the device's work).
pub(super) fn read_back(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    bytes: u64,
    read: impl FnOnce(&[u8]),
) -> Result<Instant, Error> {
    let slice = buffer.slice(..bytes);
    let (sender, receiver) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        // The receiver outlives the poll below; a failed send means nobody waits.
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let ready = Instant::now();
    receiver
        .recv()
        .map_err(|_| Error::Gpu(GpuError::Device("the readback was never completed".into())))??;
    {
        let view = slice
            .get_mapped_range()
            .map_err(|e| Error::Gpu(GpuError::Device(e.to_string())))?;
        read(&view);
    }
    unmap(device, buffer);
    Ok(ready)
}

/// Unmaps `buffer` inside an error scope: on a destroyed device the buffer is destroyed too,
/// and wgpu would hand the complaint to the host's uncaptured-error handler (which panics by
/// default). There is nothing left to release then, so the error is dropped.
pub(super) fn unmap(device: &wgpu::Device, buffer: &wgpu::Buffer) {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    buffer.unmap();
    drop(pollster::block_on(scope.pop()));
}

/// A kernel of one invocation per pair that writes one fixed record per pair at the pair's
/// index, so that its results come back in pair order with no atomic and no reordering.
/// Its bindings: 0 the shape table, 1 the batch's items (bound whole to every dispatch, so
/// they cannot be split), 2 the pairs of one dispatch, 3 their records, 4 the uniform:
/// four storage buffers, the downlevel limit per shader stage.
pub(super) trait PairKernel {
    /// One item of the table bound whole (a pose, a swept collider).
    type Item: Pod;
    /// One pair as the kernel reads it.
    type Pair: Pod;
    /// One pair's result.
    type Record: Pod;
    /// The uniform of one dispatch.
    type Params: Pod;
    /// The WGSL source: the shared layouts and helpers, then the kernel.
    const SOURCE: &'static str;
    /// Invocations per workgroup: the kernel's `@workgroup_size`.
    const WORKGROUP_SIZE: u32;
    /// The kernel's entry point; it labels the pipeline, the pass and the bind group too.
    const ENTRY_POINT: &'static str;
    /// A short name for the labels of the module and the buffers.
    const NAME: &'static str;
    /// The items, as an [`GpuError::TooLarge`](crate::error::GpuError::TooLarge) names them.
    const ITEMS: &'static str;
    /// The pairs, as an [`GpuError::TooLarge`](crate::error::GpuError::TooLarge) names them.
    const PAIRS: &'static str;
    /// The uniform of a dispatch over `pair_count` pairs.
    fn params(pair_count: u32) -> Self::Params;
}

/// A [`PairKernel`] on the host's device: its pipeline, its shape table, and buffers that
/// grow on demand and are reused, so a warm call creates no buffer. Each call uploads,
/// dispatches and reads back before it returns: nothing but the shape table and the buffers
/// outlives a call, and no result can be read against another call's pairs.
pub(super) struct PairRunner<K: PairKernel> {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: ShapeTable,
    items: GrowingBuffer,
    pairs: GrowingBuffer,
    results: GrowingBuffer,
    readback: GrowingBuffer,
    /// The current batch's items and one dispatch's pairs, as uploaded.
    item_scratch: Vec<K::Item>,
    pair_scratch: Vec<K::Pair>,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    max_binding: u64,
    max_workgroups: u32,
}

impl<K: PairKernel> PairRunner<K> {
    /// Builds the pipeline on the host's device. The driver may finish compiling the WGSL on
    /// the first dispatch.
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let name = K::NAME;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&format!("wgpu-sat {name}.wgsl")),
            source: wgpu::ShaderSource::Wgsl(K::SOURCE.into()),
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(K::ENTRY_POINT),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<K::Params>()),
            ],
        });
        let pipeline = compute_pipeline(device, &module, &bind_group_layout, K::ENTRY_POINT);
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("wgpu-sat {name} params")),
            size: size_of::<K::Params>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| {
            GrowingBuffer::new(device, format!("wgpu-sat {name} {what}"), storage_usage)
        };
        let (items, pairs, results) = (buffer("items"), buffer("pairs"), buffer("results"));
        let shapes = ShapeTable::new(device, format!("wgpu-sat {name} shapes"));
        let readback = GrowingBuffer::new(
            device,
            format!("wgpu-sat {name} readback"),
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        let limits = device.limits();
        Ok(PairRunner {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            bind_group_layout,
            bind_group: None,
            params,
            shapes,
            items,
            pairs,
            results,
            readback,
            item_scratch: Vec::new(),
            pair_scratch: Vec::new(),
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
        })
    }

    /// The device this runs on.
    pub(super) fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The shape table the kernel reads (empty after a device error: unknown).
    pub(super) fn shapes(&self) -> &[Shape] {
        self.shapes.shapes()
    }

    /// How many GPU buffers this has created so far, the uniform's included.
    pub(super) fn buffers_created(&self) -> u64 {
        1 + [
            &self.shapes.buffer,
            &self.items,
            &self.pairs,
            &self.results,
            &self.readback,
        ]
        .iter()
        .map(|b| b.created)
        .sum::<u64>()
    }

    /// The most pairs one dispatch takes: the dispatch size limit, and the binding limit of
    /// the pairs and of the records.
    pub(super) fn max_pairs(&self) -> usize {
        let by_dispatch = self.max_workgroups as usize * K::WORKGROUP_SIZE as usize;
        let by_pairs = (self.max_binding / size_of::<K::Pair>() as u64) as usize;
        let by_results = (self.max_binding / size_of::<K::Record>() as u64) as usize;
        by_dispatch.min(by_pairs).min(by_results)
    }

    /// Replaces the shape table; setting the table it already holds uploads nothing.
    pub(super) fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        let (device, queue) = (&self.device, &self.queue);
        self.shapes
            .set(
                device,
                queue,
                self.max_binding,
                shapes,
                &mut self.bind_group,
            )
            .map(|_| ())
    }

    /// Runs the kernel over `pairs` of a batch the caller has validated: `items` go up once
    /// (each as `item` makes it), then each run of [`max_pairs`](Self::max_pairs) pairs
    /// (each as `pair` makes it) is dispatched in turn, and `take` gets every pair with its
    /// record, in pair order.
    ///
    /// Errors when the items alone exceed a binding (they are bound whole to every
    /// dispatch), when not even one record fits a binding, and for a device error; the
    /// runner stays usable, and rebuilds its bind group on the next call.
    pub(super) fn run<T>(
        &mut self,
        items: &[T],
        item: impl Fn(&T) -> K::Item,
        pairs: &[[u32; 2]],
        pair: impl Fn([u32; 2]) -> K::Pair,
        mut take: impl FnMut([u32; 2], K::Record),
    ) -> Result<(), Error> {
        if pairs.is_empty() {
            return Ok(());
        }
        let max_items = (self.max_binding / size_of::<K::Item>() as u64) as usize;
        if items.len() > max_items {
            return Err(Error::Gpu(GpuError::TooLarge {
                what: K::ITEMS,
                count: items.len(),
                max: max_items,
            }));
        }
        let per_dispatch = self.max_pairs();
        if per_dispatch == 0 {
            // Only on a device whose binding cannot hold one record: nothing to split into.
            return Err(Error::Gpu(GpuError::TooLarge {
                what: K::PAIRS,
                count: pairs.len(),
                max: 0,
            }));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.begin(items, item, per_dispatch.min(pairs.len()));
        let mut result = Ok(());
        for chunk in pairs.chunks(per_dispatch) {
            result = self.dispatch(chunk, &pair, &mut take);
            if result.is_err() {
                break;
            }
        }
        if let Some(error) = pollster::block_on(scope.pop()) {
            result = Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        if result.is_err() {
            // Nothing half-done survives: rebuild the bind group on the next call.
            self.bind_group = None;
        }
        result
    }

    /// Makes room for the items and for dispatches of up to `per_dispatch` pairs, rebuilds
    /// the bind group if a buffer was replaced, and uploads the items.
    fn begin<T>(&mut self, items: &[T], item: impl Fn(&T) -> K::Item, per_dispatch: usize) {
        let cap = self.max_binding;
        let item_bytes = (size_of::<K::Item>() * items.len()) as u64;
        let pair_bytes = (size_of::<K::Pair>() * per_dispatch) as u64;
        let record_bytes = (size_of::<K::Record>() * per_dispatch) as u64;
        let mut replaced = self.items.reserve(&self.device, item_bytes, cap);
        replaced |= self.pairs.reserve(&self.device, pair_bytes, cap);
        replaced |= self.results.reserve(&self.device, record_bytes, cap);
        self.readback.reserve(&self.device, record_bytes, cap);
        if replaced || self.bind_group.is_none() {
            self.bind_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(K::ENTRY_POINT),
                layout: &self.bind_group_layout,
                entries: &[
                    entire(0, &self.shapes.buffer.buffer),
                    entire(1, &self.items.buffer),
                    entire(2, &self.pairs.buffer),
                    entire(3, &self.results.buffer),
                    entire(4, &self.params),
                ],
            }));
        }
        self.item_scratch.clear();
        self.item_scratch.extend(items.iter().map(item));
        self.queue.write_buffer(
            &self.items.buffer,
            0,
            bytemuck::cast_slice(&self.item_scratch),
        );
    }

    /// Uploads the pairs of one dispatch, runs it, and hands each pair and its record to
    /// `take`: the dispatches run in pair order, so the records reach `take` in pair order.
    fn dispatch(
        &mut self,
        pairs: &[[u32; 2]],
        pair: impl Fn([u32; 2]) -> K::Pair,
        mut take: impl FnMut([u32; 2], K::Record),
    ) -> Result<(), Error> {
        let Some(bind_group) = &self.bind_group else {
            return Err(Error::Gpu(GpuError::Device(format!(
                "the {} pass has no bind group",
                K::ENTRY_POINT
            ))));
        };
        self.pair_scratch.clear();
        self.pair_scratch.extend(pairs.iter().map(|&p| pair(p)));
        self.queue.write_buffer(
            &self.pairs.buffer,
            0,
            bytemuck::cast_slice(&self.pair_scratch),
        );
        let params = K::params(pairs.len() as u32);
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));

        let label = Some(K::ENTRY_POINT);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label,
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups((pairs.len() as u32).div_ceil(K::WORKGROUP_SIZE), 1, 1);
        }
        let record_bytes = (size_of::<K::Record>() * pairs.len()) as u64;
        encoder.copy_buffer_to_buffer(
            &self.results.buffer,
            0,
            &self.readback.buffer,
            0,
            record_bytes,
        );
        self.queue.submit([encoder.finish()]);

        read_back(&self.device, &self.readback.buffer, record_bytes, |view| {
            let records = view
                .chunks_exact(size_of::<K::Record>())
                .map(bytemuck::pod_read_unaligned::<K::Record>);
            for (&p, record) in pairs.iter().zip(records) {
                take(p, record);
            }
        })?;
        Ok(())
    }
}
