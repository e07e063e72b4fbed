//! [`GpuNarrowPhase`]: the SAT narrow phase as a wgpu compute pass, and its blocking batch
//! path (the [`NarrowPhase`] trait). The host-encoder path (prepare, record, a readback that
//! never waits) is in `host.rs`; the buffers, bindings and readback both kernels use are in
//! `plumbing.rs`.
//!
//! ```text
//! set_shapes:    shape table -> `shapes` storage buffer (only when it changed)
//! collide_pairs: validate the batch (same rules and errors as the CPU)
//!                poses (16 B per collider) -> `poses`
//!                collider shape ids -> `indices[0..n)`, only when they changed
//!                per run of pairs that fits the device's binding limits, in order:
//!                    pairs (8 B each) -> `indices[n..)`
//!                    dispatch one invocation per pair; overlapping pairs append a
//!                    48-byte record to `contacts` (compaction with one atomic counter)
//!                    copy the header and as many records as the last call produced (plus
//!                    headroom) to a mapped buffer; one more copy only if that was short
//!                    place each record by its pair index: input order, in linear time
//! ```
//!
//! Why compaction and a reorder rather than a fixed slot per pair: the readback carries
//! only the overlapping pairs, and on a real GPU the transfers, not the kernel, dominate.
//! Every buffer grows on demand (to the next power of two, within the binding limit) and is
//! reused, so a warm narrow phase creates no buffer per call.
//!
//! Parity with the CPU: the same contacts to rounding, a tie between axes of equal overlap
//! (within [`RELATIVE_TIE_TOLERANCE`](crate::RELATIVE_TIE_TOLERANCE)) possibly broken
//! towards the other axis, and none promised in the overflow zone (a depth, contact
//! coordinate or pair size beyond 1e30), where each backend still reports only finite
//! contacts with unit normals, or none; `examples/fuzz/gpu.rs` checks exactly this.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use bytemuck::Zeroable;

use crate::error::Error;
use crate::gpu::host::{Prepared, Readback};
use crate::gpu::layout::{ContactGpu, ContactsHeaderGpu, ParamsGpu, PoseGpu, SWAPPED};
use crate::gpu::plumbing::{
    GrowingBuffer, ShapeTable, compute_pipeline, entire, read_back, storage, uniform,
};
use crate::manifold::Contact;
use crate::narrow_phase::{Collider, NarrowPhase, NarrowPhaseTimings, validate_batch};
use crate::polygon::Polygon;
use crate::shape::Shape;

/// The WGSL structs of the narrow phase's buffers (`shaders/layout.wgsl`), for hosts that
/// read them in their own shaders: prepend it to your WGSL.
pub const LAYOUT_WGSL: &str = include_str!("../../shaders/layout.wgsl");

/// The WGSL source of the narrow-phase kernels: the layouts, the transform helpers
/// (`shaders/transform.wgsl`, shared with the time-of-impact kernel), then `shaders/sat.wgsl`
/// (the kernels and the polygon–polygon test), then `shaders/sat_circle.wgsl` (pairs with a
/// circle).
pub const SAT_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/sat.wgsl"),
    include_str!("../../shaders/sat_circle.wgsl")
);

/// Invocations per workgroup; must match `@workgroup_size` in `sat.wgsl`.
const WORKGROUP_SIZE: u32 = 64;

/// The contact list's header (its count), before the records.
pub(super) const HEADER_BYTES: u64 = size_of::<ContactsHeaderGpu>() as u64;
/// One contact record.
pub(super) const RECORD_BYTES: u64 = size_of::<ContactGpu>() as u64;
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
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    pub(super) bind_group: Option<wgpu::BindGroup>,
    /// The `count_touching` pass, with a layout of its own (3 storage buffers).
    touching_pipeline: wgpu::ComputePipeline,
    touching_layout: wgpu::BindGroupLayout,
    touching_bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    pub(super) shapes: ShapeTable,
    pub(super) poses: GrowingBuffer,
    pub(super) indices: GrowingBuffer,
    pub(super) contacts: GrowingBuffer,
    readback: GrowingBuffer,
    /// Per collider, the number of contacts it is in (written by `record`).
    pub(super) touching: GrowingBuffer,
    /// The host-driven readback's own mappable buffer and state.
    pub(super) host_readback: GrowingBuffer,
    pub(super) readback_state: Readback,
    /// A tiny mappable buffer used only to ask whether the device is lost (see
    /// `device_lost` in `host.rs`), and the flag its mapping callback sets.
    pub(super) loss_probe: wgpu::Buffer,
    pub(super) probe_refused: Arc<AtomicBool>,
    /// The batch of the last `prepare`, and a copy of its pairs (for `request_readback` to
    /// take).
    pub(super) prepared: Option<Prepared>,
    pub(super) prepared_pairs: Vec<[u32; 2]>,
    /// Whether `record` ran for the prepared batch (an atomic: `record` takes `&self`).
    pub(super) prepared_recorded: AtomicBool,
    /// The pairs of the batch the pending readback copies, taken from `prepared_pairs` by
    /// `request_readback`: they name the colliders of the contacts it returns, and their
    /// count bounds the records read. Kept and reused, so a warm host allocates nothing.
    pub(super) readback_pairs: Vec<[u32; 2]>,
    /// See [`NarrowPhase::set_speculative_distance`]; written with each batch's params.
    speculative_distance: f32,
    /// Per shape of the table, whether it is a circle; empty when none is, and pairs are
    /// then uploaded as given.
    circle_shapes: Vec<bool>,
    /// The pairs of a batch with circles, as uploaded (see [`SWAPPED`]).
    pair_scratch: Vec<[u32; 2]>,
    /// The collider shape ids now in `indices[0..n)`; `None` when unknown (after a
    /// reallocation of `indices`).
    pub(super) uploaded_shape_ids: Option<Vec<u32>>,
    /// Records copied from the mapped buffer, sorted by pair.
    pub(super) records: Vec<ContactGpu>,
    /// For each pair of the batch, the index of its record, or `NO_RECORD`.
    pub(super) slots: Vec<u32>,
    /// The poses of the current batch, as uploaded.
    pose_scratch: Vec<PoseGpu>,
    /// How many records the first readback copies: the last batch's count plus headroom.
    expected_contacts: usize,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    pub(super) max_binding: u64,
    max_workgroups: u32,
    /// Where the last call spent its time.
    pub(super) timings: NarrowPhaseTimings,
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
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat narrow phase"),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<ParamsGpu>()),
            ],
        });
        let touching_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat count_touching"),
            entries: &[
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<ParamsGpu>()),
                storage(5, false),
            ],
        });
        let pipeline = compute_pipeline(device, &module, &bind_group_layout, "collide_pairs");
        let touching_pipeline =
            compute_pipeline(device, &module, &touching_layout, "count_touching");
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat params"),
            size: size_of::<ParamsGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // COPY_SRC as well: hosts may copy what the narrow phase holds.
        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let shapes = ShapeTable::new(device, "wgpu-sat shapes");
        let poses = GrowingBuffer::new(device, "wgpu-sat poses", storage_usage);
        let indices = GrowingBuffer::new(device, "wgpu-sat indices", storage_usage);
        let contacts = GrowingBuffer::new(device, "wgpu-sat contacts", storage_usage);
        let mappable = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let readback = GrowingBuffer::new(device, "wgpu-sat readback", mappable);
        let host_readback = GrowingBuffer::new(device, "wgpu-sat host readback", mappable);
        let touching = GrowingBuffer::new(device, "wgpu-sat touching", storage_usage);
        let loss_probe = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat device loss probe"),
            size: wgpu::MAP_ALIGNMENT,
            usage: wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
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
            touching_pipeline,
            touching_layout,
            touching_bind_group: None,
            params,
            shapes,
            poses,
            indices,
            contacts,
            readback,
            touching,
            host_readback,
            readback_state: Readback::Idle,
            loss_probe,
            probe_refused: Arc::new(AtomicBool::new(false)),
            prepared: None,
            prepared_pairs: Vec::new(),
            prepared_recorded: AtomicBool::new(false),
            readback_pairs: Vec::new(),
            speculative_distance: 0.0,
            circle_shapes: Vec::new(),
            pair_scratch: Vec::new(),
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
    /// with the largest batch), it stays the same: buffers are reused, not re-created. A
    /// host that binds the narrow phase's buffers rebuilds its bind group when it changes.
    pub fn buffers_created(&self) -> u64 {
        // The params buffer and the loss probe, then the slots that grow.
        2 + [
            &self.shapes.buffer,
            &self.poses,
            &self.indices,
            &self.contacts,
            &self.readback,
            &self.touching,
            &self.host_readback,
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
    pub(super) fn reserve(&mut self, colliders: usize, batch: usize) {
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
        replaced |= self
            .touching
            .reserve(&self.device, 4 * colliders as u64, cap);
        self.readback
            .reserve(&self.device, TIMESTAMP_BYTES + contact_bytes, cap);
        if replaced || self.touching_bind_group.is_none() {
            self.touching_bind_group =
                Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wgpu-sat count_touching"),
                    layout: &self.touching_layout,
                    entries: &[
                        entire(2, &self.indices.buffer),
                        entire(3, &self.contacts.buffer),
                        entire(4, &self.params),
                        entire(5, &self.touching.buffer),
                    ],
                }));
        }
        if replaced || self.bind_group.is_none() {
            self.bind_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-sat narrow phase"),
                layout: &self.bind_group_layout,
                entries: &[
                    entire(0, &self.shapes.buffer.buffer),
                    entire(1, &self.poses.buffer),
                    entire(2, &self.indices.buffer),
                    entire(3, &self.contacts.buffer),
                    entire(4, &self.params),
                ],
            }));
        }
    }

    /// Writes the poses, and the shape ids if they changed since the last upload.
    pub(super) fn upload_colliders(&mut self, colliders: &[Collider]) {
        self.pose_scratch.clear();
        self.pose_scratch
            .extend(colliders.iter().map(|c| PoseGpu::from(&c.transform)));
        if !colliders.is_empty() {
            self.queue.write_buffer(
                &self.poses.buffer,
                0,
                bytemuck::cast_slice(&self.pose_scratch),
            );
            self.timings.uploaded_bytes += 16 * colliders.len() as u64;
        }
        let unchanged = self.uploaded_shape_ids.as_ref().is_some_and(|ids| {
            ids.len() == colliders.len() && ids.iter().zip(colliders).all(|(&s, c)| s == c.shape)
        });
        if !unchanged && !colliders.is_empty() {
            let ids: Vec<u32> = colliders.iter().map(|c| c.shape).collect();
            self.queue
                .write_buffer(&self.indices.buffer, 0, bytemuck::cast_slice(&ids));
            self.timings.uploaded_bytes += 4 * ids.len() as u64;
            self.uploaded_shape_ids = Some(ids);
        }
    }

    /// Runs one dispatch over `pairs` and appends its contacts, in pair order, to `out`.
    fn run_batch(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        let upload_start = Instant::now();
        self.write_batch(colliders, pairs);
        let expected = self.expected_contacts.clamp(1, pairs.len());
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat collide_pairs"),
            });
        self.encode_dispatch(&mut encoder, pairs.len(), false, true)?;
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

        let order_start = Instant::now();
        put_in_pair_order(&self.records, &mut self.slots, pairs, out);
        self.timings.readback += order_start.elapsed();
        Ok(())
    }

    /// Queues the writes of one dispatch: its pairs, its parameters, a zeroed contact count.
    /// With circles in the table, a circle–polygon pair goes up polygon first, marked
    /// [`SWAPPED`]: the kernel then needs no test of its own to put the polygon first (a
    /// per-lane branch costs every lane of a SIMD group, and polygon pairs would pay).
    pub(super) fn write_batch(&mut self, colliders: &[Collider], pairs: &[[u32; 2]]) {
        let collider_count = colliders.len();
        let words = if self.circle_shapes.is_empty() {
            pairs
        } else {
            let circle = |i: u32| self.circle_shapes[colliders[i as usize].shape as usize];
            self.pair_scratch.clear();
            self.pair_scratch.extend(pairs.iter().map(|&[a, b]| {
                if circle(a) && !circle(b) {
                    [b | SWAPPED, a]
                } else {
                    [a, b]
                }
            }));
            &self.pair_scratch
        };
        if !words.is_empty() {
            self.queue.write_buffer(
                &self.indices.buffer,
                4 * collider_count as u64,
                bytemuck::cast_slice(words),
            );
        }
        let params = ParamsGpu {
            pair_count: pairs.len() as u32,
            pair_offset: collider_count as u32,
            contact_capacity: pairs.len() as u32,
            speculative_distance: self.speculative_distance,
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(
            &self.contacts.buffer,
            0,
            bytemuck::bytes_of(&ContactsHeaderGpu::zeroed()),
        );
        self.timings.uploaded_bytes +=
            8 * pairs.len() as u64 + (size_of::<ParamsGpu>() as u64) + HEADER_BYTES;
    }

    /// Records the narrow-phase dispatch over `pair_count` pairs and, with `touching`, the
    /// pass that counts each collider's contacts; `timed` writes the kernel timestamps.
    pub(super) fn encode_dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pair_count: usize,
        touching: bool,
        timed: bool,
    ) -> Result<(), Error> {
        let (Some(bind_group), Some(touching_bind_group)) =
            (&self.bind_group, &self.touching_bind_group)
        else {
            return Err(Error::Device("the narrow phase has no bind group".into()));
        };
        let workgroups = (pair_count as u32).div_ceil(WORKGROUP_SIZE);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgpu-sat collide_pairs"),
            timestamp_writes: self.timer.as_ref().filter(|_| timed).map(|t| {
                wgpu::ComputePassTimestampWrites {
                    query_set: &t.query_set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }
            }),
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(workgroups, 1, 1);
        if touching {
            // One invocation per possible record; those past the count return at once.
            pass.set_pipeline(&self.touching_pipeline);
            pass.set_bind_group(0, touching_bind_group, &[]);
            pass.dispatch_workgroups(workgroups, 1, 1);
        }
        Ok(())
    }

    /// Validates a batch and makes room for it; returns the pairs per dispatch.
    pub(super) fn begin_batch(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
    ) -> Result<usize, Error> {
        validate_batch(self.shapes.shapes().len(), colliders, pairs)?;
        let batch = self.fit_colliders(colliders.len())?;
        self.reserve(colliders.len(), batch.min(pairs.len()).max(1));
        self.upload_colliders(colliders);
        Ok(batch)
    }

    /// The pairs per dispatch with `colliders` colliders, or an error if their poses, or
    /// their shape ids with room for one pair, exceed a binding. Checked before any buffer
    /// grows: a buffer larger than a binding could never be bound again.
    pub(super) fn fit_colliders(&self, colliders: usize) -> Result<usize, Error> {
        let max_colliders = (self.max_binding / size_of::<PoseGpu>() as u64) as usize;
        let batch = self.max_pairs_per_dispatch(colliders);
        if colliders > max_colliders || batch == 0 {
            return Err(Error::TooLarge {
                what: "colliders",
                count: colliders,
                max: max_colliders.min(((self.max_binding / 4) as usize).saturating_sub(2)),
            });
        }
        Ok(batch)
    }

    /// Maps the first `bytes` of the readback buffer, hands them to `read` with the record
    /// scratch, and unmaps.
    fn map_readback(
        &mut self,
        bytes: u64,
        read: impl FnOnce(&[u8], &mut Vec<ContactGpu>),
    ) -> Result<(), Error> {
        self.timings.read_back_bytes += bytes;
        let records = &mut self.records;
        let ready = read_back(&self.device, &self.readback.buffer, bytes, |view| {
            read(view, records)
        })?;
        // From the submit: a device may start (a software one may even finish) the work
        // before the poll.
        self.timings.dispatch += ready - self.submitted;
        self.timings.readback += ready.elapsed();
        Ok(())
    }
}

/// Appends the contacts of `records` to `out` in the order of `pairs`. Appends happen in
/// whatever order the invocations ran; pair indices are dense and unique, so placing each
/// record by its pair (through `slots`, scratch) restores the order in linear time.
pub(super) fn put_in_pair_order(
    records: &[ContactGpu],
    slots: &mut Vec<u32>,
    pairs: &[[u32; 2]],
    out: &mut Vec<Contact>,
) {
    slots.clear();
    slots.resize(pairs.len(), NO_RECORD);
    for (k, r) in records.iter().enumerate() {
        if let Some(slot) = slots.get_mut(r.pair as usize) {
            *slot = k as u32;
        }
    }
    out.reserve(records.len());
    for (pair, &slot) in slots.iter().enumerate() {
        if slot != NO_RECORD {
            let [a, b] = pairs[pair];
            let manifold = records[slot as usize].manifold();
            out.push(Contact { a, b, manifold });
        }
    }
}

impl NarrowPhase for GpuNarrowPhase {
    /// Kept and written to the GPU with each batch's parameters (4 bytes that the uniform
    /// already carries as padding).
    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        crate::narrow_phase::check_speculative_distance(margin)?;
        self.speculative_distance = margin;
        Ok(())
    }

    /// [`set_shape_table`](NarrowPhase::set_shape_table) for polygons; setting the
    /// polygons it already holds neither uploads nor allocates.
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        let held = shapes.len() == self.shapes.shapes().len()
            && shapes
                .iter()
                .zip(self.shapes.shapes())
                .all(|(p, s)| s.as_polygon() == Some(p));
        if held {
            return Ok(());
        }
        let table: Vec<Shape> = shapes.iter().copied().map(Shape::from).collect();
        self.set_shape_table(&table)
    }

    /// Uploads the shape table; setting the table it already holds uploads nothing, so a
    /// caller may set it before every call.
    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        let (device, queue) = (&self.device, &self.queue);
        let result = self.shapes.set(
            device,
            queue,
            self.max_binding,
            shapes,
            &mut self.bind_group,
        );
        if !matches!(result, Ok(false)) {
            // Which shapes are circles, for the kernel's per-pair branch: none noted when the
            // table has none, or when it is unknown after a device error.
            let table = self.shapes.shapes();
            self.circle_shapes.clear();
            if table.iter().any(|s| s.as_circle().is_some()) {
                self.circle_shapes
                    .extend(table.iter().map(|s| s.as_circle().is_some()));
            }
        }
        result.map(|_| ())
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
        if pairs.is_empty() {
            validate_batch(self.shapes.shapes().len(), colliders, pairs)?;
            return Ok(());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let batch = self.begin_batch(colliders, pairs)?;
        // The blocking path reuses the buffers `prepare` filled.
        self.prepared = None;
        self.timings.upload += upload_start.elapsed();
        let mut result = Ok(());
        for chunk in pairs.chunks(batch) {
            result = self.run_batch(colliders, chunk, out);
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
