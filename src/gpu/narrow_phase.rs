//! [`GpuNarrowPhase`]: the SAT narrow phase as a wgpu compute pass.
//!
//! ```text
//! set_shapes:    shape table -> `shapes` storage buffer (once)
//! collide_pairs: validate the batch (same rules and errors as the CPU)
//!                poses (16 B per collider) -> `poses`
//!                collider shape ids -> `indices[0..n)`, only when they changed
//!                per batch of pairs that fits the device's binding limits:
//!                    pairs (8 B each) -> `indices[n..)`
//!                    dispatch one invocation per pair; overlapping pairs append a
//!                    48-byte record to `contacts` (compaction with one atomic counter)
//!                    copy the header and as many records as the last call produced (plus
//!                    headroom) to a mapped buffer; one more copy only if that was short
//!                    sort the records by pair index: input order
//! ```
//!
//! Every buffer grows on demand (to the next power of two, within the binding limit) and is
//! reused, so a warm narrow phase creates no buffer per call.

use std::sync::mpsc;
use std::time::Instant;

use bytemuck::Zeroable;

use crate::error::Error;
use crate::gpu::layout::{ContactGpu, ContactsHeaderGpu, ParamsGpu, PoseGpu, ShapeGpu};
use crate::manifold::Contact;
use crate::narrow_phase::{Collider, NarrowPhase, NarrowPhaseTimings, validate_batch};
use crate::shape::Polygon;

/// The WGSL source of the narrow-phase kernel.
pub const SAT_WGSL: &str = include_str!("../../shaders/sat.wgsl");

/// Invocations per workgroup; must match `@workgroup_size` in `sat.wgsl`.
const WORKGROUP_SIZE: u32 = 64;

const HEADER_BYTES: u64 = size_of::<ContactsHeaderGpu>() as u64;
const RECORD_BYTES: u64 = size_of::<ContactGpu>() as u64;
/// The readback buffer starts with the kernel's two timestamps (when the device has
/// timestamp queries), then holds a copy of the contact buffer.
const TIMESTAMP_BYTES: u64 = 16;
/// A pair with no contact record.
const NO_RECORD: u32 = u32::MAX;

/// Timestamp queries around the compute pass, on devices that have them.
struct KernelTimer {
    query_set: wgpu::QuerySet,
    /// Where the queries resolve to (QUERY_RESOLVE needs a buffer of its own).
    resolve: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period: f32,
}

/// A buffer that grows to the next power of two when asked for more, and is otherwise
/// reused.
struct GrowingBuffer {
    buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
    /// Buffers created for this slot so far, the first included.
    created: u64,
}

impl GrowingBuffer {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
        // 256 bytes: never empty (a zero-sized binding is invalid), and a whole alignment unit.
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 256,
            usage,
            mapped_at_creation: false,
        });
        GrowingBuffer {
            buffer,
            label,
            usage,
            created: 1,
        }
    }

    /// Makes room for `size` bytes, growing to at most `cap` beyond that. Returns whether
    /// the buffer was replaced (its contents are then gone).
    fn reserve(&mut self, device: &wgpu::Device, size: u64, cap: u64) -> bool {
        if self.buffer.size() >= size {
            return false;
        }
        let size = size.next_power_of_two().min(cap).max(size);
        self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(self.label),
            size: size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: self.usage,
            mapped_at_creation: false,
        });
        self.created += 1;
        true
    }
}

/// The SAT narrow phase on a wgpu device: one compute invocation per candidate pair.
///
/// It borrows the host's device and queue (cheap clones of the handles), holds only its
/// pipeline and scratch buffers, and can be dropped at any time.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, Collider, GpuNarrowPhase, NarrowPhase, Polygon, Transform};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut narrow = GpuNarrowPhase::new(&device, &queue)?;
/// narrow.set_shapes(&[Polygon::rectangle(0.5, 0.5)])?;
/// let colliders = [
///     Collider { shape: 0, transform: Transform::IDENTITY },
///     Collider { shape: 0, transform: Transform::new(Vec2::new(0.75, 0.0), 0.0) },
/// ];
/// let contacts = narrow.collide_pairs(&colliders, &[[0, 1]])?;
/// assert_eq!(contacts.len(), 1);
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuNarrowPhase {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: GrowingBuffer,
    poses: GrowingBuffer,
    indices: GrowingBuffer,
    contacts: GrowingBuffer,
    readback: GrowingBuffer,
    /// The shape table as uploaded, so that setting the same table again costs no upload.
    shapes_uploaded: Vec<Polygon>,
    /// The collider shape ids now in `indices[0..n)`; `None` when unknown (after a
    /// reallocation of `indices`).
    uploaded_shape_ids: Option<Vec<u32>>,
    /// Records copied from the mapped buffer, sorted by pair.
    records: Vec<ContactGpu>,
    /// For each pair of the batch, the index of its record, or `NO_RECORD`.
    slots: Vec<u32>,
    /// The poses of the current batch, as uploaded.
    pose_scratch: Vec<PoseGpu>,
    /// How many records the first readback copies: the last batch's count plus headroom.
    expected_contacts: usize,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    max_binding: u64,
    max_workgroups: u32,
    /// Where the last call spent its time.
    timings: NarrowPhaseTimings,
    timer: Option<KernelTimer>,
    /// When the last submit happened.
    submitted: Instant,
}

impl GpuNarrowPhase {
    /// Builds the pipeline on the host's device. Creating it compiles the WGSL; the driver
    /// may finish compiling on the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat sat.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SAT_WGSL.into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat narrow phase"),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 4,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(size_of::<ParamsGpu>() as u64),
                    },
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("wgpu-sat narrow phase"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("wgpu-sat collide_pairs"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("collide_pairs"),
            compilation_options: Default::default(),
            cache: None,
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat params"),
            size: size_of::<ParamsGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let storage_usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let shapes = GrowingBuffer::new(device, "wgpu-sat shapes", storage_usage);
        let poses = GrowingBuffer::new(device, "wgpu-sat poses", storage_usage);
        let indices = GrowingBuffer::new(device, "wgpu-sat indices", storage_usage);
        let contacts = GrowingBuffer::new(
            device,
            "wgpu-sat contacts",
            storage_usage | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = GrowingBuffer::new(
            device,
            "wgpu-sat readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let timer = device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| KernelTimer {
                query_set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("wgpu-sat kernel time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-sat kernel time"),
                    size: TIMESTAMP_BYTES,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                period: queue.get_timestamp_period(),
            });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(error.to_string()));
        }
        let limits = device.limits();
        Ok(GpuNarrowPhase {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            bind_group_layout,
            bind_group: None,
            params,
            shapes,
            poses,
            indices,
            contacts,
            readback,
            shapes_uploaded: Vec::new(),
            uploaded_shape_ids: None,
            records: Vec::new(),
            slots: Vec::new(),
            pose_scratch: Vec::new(),
            // Nothing known yet: the first call reads back the whole contact buffer.
            expected_contacts: usize::MAX,
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            timings: NarrowPhaseTimings::default(),
            timer,
            submitted: Instant::now(),
        })
    }

    /// The device this narrow phase runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue this narrow phase submits to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// How many GPU buffers this narrow phase has created so far. Once warm (after a call
    /// with the largest batch), it stays the same: buffers are reused, not re-created.
    pub fn buffers_created(&self) -> u64 {
        1 + [
            &self.shapes,
            &self.poses,
            &self.indices,
            &self.contacts,
            &self.readback,
        ]
        .iter()
        .map(|b| b.created)
        .sum::<u64>()
    }

    /// The most pairs one dispatch can take with `colliders` colliders; larger batches are
    /// split into dispatches of this size. Zero when the colliders alone fill a binding.
    pub fn max_pairs_per_dispatch(&self, colliders: usize) -> usize {
        let words = (self.max_binding / 4) as usize;
        let by_indices = words.saturating_sub(colliders) / 2;
        let by_contacts = (self.max_binding.saturating_sub(HEADER_BYTES) / RECORD_BYTES) as usize;
        let by_dispatch = self.max_workgroups as usize * WORKGROUP_SIZE as usize;
        by_indices.min(by_contacts).min(by_dispatch)
    }

    /// Makes room for a batch, re-creating the bind group if a buffer was replaced.
    fn reserve(&mut self, colliders: usize, batch: usize) {
        let cap = self.max_binding;
        let mut replaced = self.poses.reserve(&self.device, 16 * colliders as u64, cap);
        if self
            .indices
            .reserve(&self.device, 4 * (colliders + 2 * batch) as u64, cap)
        {
            self.uploaded_shape_ids = None;
            replaced = true;
        }
        let contact_bytes = HEADER_BYTES + RECORD_BYTES * batch as u64;
        replaced |= self.contacts.reserve(&self.device, contact_bytes, cap);
        self.readback
            .reserve(&self.device, TIMESTAMP_BYTES + contact_bytes, cap);
        if replaced || self.bind_group.is_none() {
            self.bind_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-sat narrow phase"),
                layout: &self.bind_group_layout,
                entries: &[
                    entire(0, &self.shapes.buffer),
                    entire(1, &self.poses.buffer),
                    entire(2, &self.indices.buffer),
                    entire(3, &self.contacts.buffer),
                    entire(4, &self.params),
                ],
            }));
        }
    }

    /// Writes the poses, and the shape ids if they changed since the last upload.
    fn upload_colliders(&mut self, colliders: &[Collider]) {
        self.pose_scratch.clear();
        self.pose_scratch
            .extend(colliders.iter().map(|c| PoseGpu::from(&c.transform)));
        self.queue.write_buffer(
            &self.poses.buffer,
            0,
            bytemuck::cast_slice(&self.pose_scratch),
        );
        let unchanged = self.uploaded_shape_ids.as_ref().is_some_and(|ids| {
            ids.len() == colliders.len() && ids.iter().zip(colliders).all(|(&s, c)| s == c.shape)
        });
        if !unchanged {
            let ids: Vec<u32> = colliders.iter().map(|c| c.shape).collect();
            self.queue
                .write_buffer(&self.indices.buffer, 0, bytemuck::cast_slice(&ids));
            self.uploaded_shape_ids = Some(ids);
        }
    }

    /// Runs one dispatch over `pairs` and appends its contacts, in pair order, to `out`.
    fn run_batch(
        &mut self,
        collider_count: usize,
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        let Some(bind_group) = &self.bind_group else {
            return Err(Error::Device("the narrow phase has no bind group".into()));
        };
        let upload_start = Instant::now();
        let pair_count = pairs.len() as u32;
        self.queue.write_buffer(
            &self.indices.buffer,
            4 * collider_count as u64,
            bytemuck::cast_slice(pairs),
        );
        let params = ParamsGpu {
            pair_count,
            pair_offset: collider_count as u32,
            contact_capacity: pair_count,
            _pad: 0,
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(
            &self.contacts.buffer,
            0,
            bytemuck::bytes_of(&ContactsHeaderGpu::zeroed()),
        );

        let expected = self.expected_contacts.clamp(1, pairs.len());
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat collide_pairs"),
            });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sat collide_pairs"),
                timestamp_writes: self
                    .timer
                    .as_ref()
                    .map(|t| wgpu::ComputePassTimestampWrites {
                        query_set: &t.query_set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }),
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(pair_count.div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        if let Some(t) = &self.timer {
            encoder.resolve_query_set(&t.query_set, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &self.readback.buffer, 0, TIMESTAMP_BYTES);
        }
        let first_bytes = HEADER_BYTES + RECORD_BYTES * expected as u64;
        encoder.copy_buffer_to_buffer(
            &self.contacts.buffer,
            0,
            &self.readback.buffer,
            TIMESTAMP_BYTES,
            first_bytes,
        );
        self.timings.upload += upload_start.elapsed();
        self.submitted = Instant::now();
        self.queue.submit([encoder.finish()]);

        self.records.clear();
        let mut count = 0;
        let mut ticks = [0u64; 2];
        self.map_readback(TIMESTAMP_BYTES + first_bytes, |bytes, records| {
            ticks = bytemuck::pod_read_unaligned(&bytes[..TIMESTAMP_BYTES as usize]);
            let bytes = &bytes[TIMESTAMP_BYTES as usize..];
            let header: ContactsHeaderGpu =
                bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES as usize]);
            // The kernel never appends past the capacity; clamp anyway so a broken driver
            // cannot make us read garbage.
            count = (header.count as usize).min(pairs.len());
            let here = count.min(expected);
            let body = &bytes[HEADER_BYTES as usize..][..here * RECORD_BYTES as usize];
            records.extend(
                body.chunks_exact(RECORD_BYTES as usize)
                    .map(bytemuck::pod_read_unaligned::<ContactGpu>),
            );
        })?;
        if let Some(t) = &self.timer {
            let ns = ticks[1].saturating_sub(ticks[0]) as f64 * t.period as f64;
            let kernel = self.timings.kernel.unwrap_or_default();
            self.timings.kernel = Some(kernel + std::time::Duration::from_nanos(ns as u64));
        }
        if count > expected {
            // More contacts than last time's estimate: fetch the rest.
            let start = HEADER_BYTES + RECORD_BYTES * expected as u64;
            let rest = RECORD_BYTES * (count - expected) as u64;
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("wgpu-sat readback rest"),
                });
            encoder.copy_buffer_to_buffer(
                &self.contacts.buffer,
                start,
                &self.readback.buffer,
                0,
                rest,
            );
            self.submitted = Instant::now();
            self.queue.submit([encoder.finish()]);
            self.map_readback(rest, |bytes, records| {
                records.extend(
                    bytes
                        .chunks_exact(RECORD_BYTES as usize)
                        .map(bytemuck::pod_read_unaligned::<ContactGpu>),
                );
            })?;
        }
        self.expected_contacts = count + count / 4 + 64;

        // Appends happen in whatever order the invocations ran. Pair indices are dense and
        // unique, so placing each record by its pair restores the order in linear time.
        let order_start = Instant::now();
        self.slots.clear();
        self.slots.resize(pairs.len(), NO_RECORD);
        for (k, r) in self.records.iter().enumerate() {
            self.slots[r.pair as usize] = k as u32;
        }
        out.reserve(self.records.len());
        for (pair, &slot) in self.slots.iter().enumerate() {
            if slot != NO_RECORD {
                let [a, b] = pairs[pair];
                let manifold = self.records[slot as usize].manifold();
                out.push(Contact { a, b, manifold });
            }
        }
        self.timings.readback += order_start.elapsed();
        Ok(())
    }

    /// Maps the first `bytes` of the readback buffer, hands them to `read` with the record
    /// scratch, and unmaps.
    fn map_readback(
        &mut self,
        bytes: u64,
        read: impl FnOnce(&[u8], &mut Vec<ContactGpu>),
    ) -> Result<(), Error> {
        let slice = self.readback.buffer.slice(..bytes);
        let (sender, receiver) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver outlives the poll below; a failed send means nobody waits.
            let _ = sender.send(result);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely())?;
        let ready = Instant::now();
        // From the submit: a device may start (a software one may even finish) the work
        // before the poll.
        self.timings.dispatch += ready - self.submitted;
        receiver
            .recv()
            .map_err(|_| Error::Device("the readback was never completed".into()))??;
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Device(e.to_string()))?;
            read(&view, &mut self.records);
        }
        self.readback.buffer.unmap();
        self.timings.readback += ready.elapsed();
        Ok(())
    }
}

fn entire(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

impl NarrowPhase for GpuNarrowPhase {
    /// Uploads the shape table; setting the table it already holds uploads nothing, so a
    /// caller may set it before every call.
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        if shapes == self.shapes_uploaded.as_slice() {
            return Ok(());
        }
        let max = (self.max_binding / size_of::<ShapeGpu>() as u64) as usize;
        if shapes.len() > max {
            return Err(Error::TooLarge {
                what: "shapes",
                count: shapes.len(),
                max,
            });
        }
        let data: Vec<ShapeGpu> = shapes.iter().map(ShapeGpu::from).collect();
        let bytes: &[u8] = bytemuck::cast_slice(&data);
        if self
            .shapes
            .reserve(&self.device, bytes.len() as u64, self.max_binding)
        {
            self.bind_group = None;
        }
        self.queue.write_buffer(&self.shapes.buffer, 0, bytes);
        self.shapes_uploaded.clear();
        self.shapes_uploaded.extend_from_slice(shapes);
        Ok(())
    }

    fn collide_pairs(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
    ) -> Result<Vec<Contact>, Error> {
        let mut out = Vec::new();
        self.collide_pairs_into(colliders, pairs, &mut out)?;
        Ok(out)
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        out.clear();
        self.timings = NarrowPhaseTimings::default();
        let upload_start = Instant::now();
        validate_batch(self.shapes_uploaded.len(), colliders, pairs)?;
        if pairs.is_empty() {
            return Ok(());
        }
        let max_colliders = (self.max_binding / size_of::<PoseGpu>() as u64) as usize;
        let batch = self.max_pairs_per_dispatch(colliders.len());
        if colliders.len() > max_colliders || batch == 0 {
            return Err(Error::TooLarge {
                what: "colliders",
                count: colliders.len(),
                max: max_colliders.min(((self.max_binding / 4) as usize).saturating_sub(2)),
            });
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.reserve(colliders.len(), batch.min(pairs.len()));
        self.upload_colliders(colliders);
        self.timings.upload += upload_start.elapsed();
        let mut result = Ok(());
        for chunk in pairs.chunks(batch) {
            result = self.run_batch(colliders.len(), chunk, out);
            if result.is_err() {
                break;
            }
        }
        if let Some(error) = pollster::block_on(scope.pop()) {
            result = Err(Error::Device(error.to_string()));
        }
        if result.is_err() {
            // Nothing half-done survives: rebuild the bind group and re-send the shape ids
            // on the next call, and report no contacts.
            self.bind_group = None;
            self.uploaded_shape_ids = None;
            out.clear();
        }
        result
    }

    fn timings(&self) -> Option<NarrowPhaseTimings> {
        Some(self.timings)
    }
}
