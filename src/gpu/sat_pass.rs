//! The SAT pass on the device, which both paths of [`GpuNarrowPhase`](super::GpuNarrowPhase)
//! fill and record: the `collide_pairs` and `count_touching` pipelines, their bind groups,
//! and every buffer they bind. The blocking batch path (`narrow_phase.rs`) and the
//! host-encoder path (`host.rs`) each add only a readback of their own, and neither reaches
//! into the other.
//!
//! ```text
//! set_shape_table   shape table -> `shapes` (only when it changed); notes which are circles
//! begin_batch       validate the batch, make room for it (bind groups rebuilt when a buffer
//!                   was replaced), upload the colliders
//! upload_colliders  poses (16 B each) -> `poses`; shape ids -> `indices[0..n)` only when
//!                   they changed
//! write_batch       pairs (8 B each) -> `indices[n..)`, params, a zeroed contact count
//! encode_dispatch   one `collide_pairs` invocation per pair (built with `SHARP_ONLY` when the
//!                   table holds only sharp polygons and circles), each overlapping pair appending
//!                   a 48-byte record to `contacts`; then, if asked, `count_touching`
//! ContactRecords    a contact list read back -> contacts in pair order, in linear time
//! ```

use bytemuck::Zeroable;

use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::{Collider, NarrowPhaseTimings, validate_batch};
use crate::error::Error;
use crate::error::GpuError;
use crate::gpu::layout::{ContactGpu, ContactsHeaderGpu, ParamsGpu, PoseGpu, SWAPPED};
use crate::gpu::plumbing::{
    GrowingBuffer, ShapeTable, compute_pipeline, compute_pipeline_with, entire, storage, uniform,
};
use crate::shapes::shape::Shape;

/// The WGSL source of the narrow-phase kernels: the layouts, the transform helpers
/// (`shaders/transform.wgsl`, shared with the time-of-impact kernel), then `shaders/sat.wgsl`
/// (the polygon–polygon test), then `shaders/sat_circle.wgsl` (pairs with a circle), then
/// `shaders/sat_rounded.wgsl` (pairs with a capsule, a segment, a rounded polygon or a chain
/// link), and last `shaders/sat_pass.wgsl` (the bindings and the kernels). The pair tests
/// bind nothing themselves, so the time-of-impact kernel takes them too.
pub const SAT_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/sat.wgsl"),
    include_str!("../../shaders/sat_circle.wgsl"),
    include_str!("../../shaders/sat_rounded.wgsl"),
    include_str!("../../shaders/sat_pass.wgsl")
);

/// Invocations per workgroup; must match `@workgroup_size` in `sat_pass.wgsl`.
const WORKGROUP_SIZE: u32 = 64;
/// The contact list's header (its count), before the records.
pub(super) const HEADER_BYTES: u64 = size_of::<ContactsHeaderGpu>() as u64;
/// One contact record.
pub(super) const RECORD_BYTES: u64 = size_of::<ContactGpu>() as u64;
/// A pair with no contact record.
const NO_RECORD: u32 = u32::MAX;

/// A shape's part in the host's swap of a pair's order: a circle–polygon pair goes up
/// polygon first ([`SWAPPED`]), as `collide_shapes` tests it in the polygon's frame; a
/// circle against any other shape is tested circle first, as given.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SwapRole {
    Circle,
    SharpPolygon,
    Other,
}

impl SwapRole {
    fn of(shape: &Shape) -> SwapRole {
        match shape {
            Shape::Circle(_) => SwapRole::Circle,
            Shape::Polygon(p) if p.radius() == 0.0 => SwapRole::SharpPolygon,
            _ => SwapRole::Other,
        }
    }
}

/// Whether the shape takes the polygon path of the kernel (`KIND_SHARP`): a sharp polygon
/// or a circle.
fn is_sharp(shape: &Shape) -> bool {
    match shape {
        Shape::Polygon(p) => p.radius() == 0.0,
        Shape::Circle(_) => true,
        _ => false,
    }
}

/// The narrow-phase kernels on the host's device, and the buffers they bind.
pub(super) struct SatPass {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    /// `collide_pairs` built with `SHARP_ONLY` set: for a table of sharp polygons and
    /// circles only, which then skips the rounded path's code altogether.
    sharp_pipeline: wgpu::ComputePipeline,
    /// Whether every shape of the table is a sharp polygon or a circle.
    sharp_only: bool,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    /// The `count_touching` pass, with a layout of its own (3 storage buffers).
    touching_pipeline: wgpu::ComputePipeline,
    touching_layout: wgpu::BindGroupLayout,
    touching_bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: ShapeTable,
    poses: GrowingBuffer,
    indices: GrowingBuffer,
    contacts: GrowingBuffer,
    /// Per collider, the number of contacts it is in (written by `count_touching`).
    touching: GrowingBuffer,
    /// See [`NarrowPhase::set_speculative_distance`](crate::NarrowPhase); written with each
    /// batch's params.
    speculative_distance: f32,
    /// Per shape of the table, its part in a circle–polygon swap (see [`SwapRole`]); empty
    /// when the table has no circle, and pairs are then uploaded as given.
    swap_roles: Vec<SwapRole>,
    /// The pairs of a batch with circles, as uploaded (see [`SWAPPED`]).
    pair_scratch: Vec<[u32; 2]>,
    /// The collider shape ids now in `indices[0..n)`; `None` when unknown (after a
    /// reallocation of `indices`, or a device error).
    uploaded_shape_ids: Option<Vec<u32>>,
    /// The poses of the current batch, as uploaded.
    pose_scratch: Vec<PoseGpu>,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    max_binding: u64,
    max_workgroups: u32,
    /// Where the last call spent its time; each path adds its own part.
    pub(super) timings: NarrowPhaseTimings,
}

impl SatPass {
    /// Builds both pipelines on the host's device; call inside an error scope, which
    /// catches what goes wrong here.
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> SatPass {
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
        let sharp_pipeline = compute_pipeline_with(
            device,
            &module,
            &bind_group_layout,
            "collide_pairs",
            &[("SHARP_ONLY", 1.0)],
        );
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
        let limits = device.limits();
        SatPass {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            sharp_pipeline,
            sharp_only: true,
            bind_group_layout,
            bind_group: None,
            touching_pipeline,
            touching_layout,
            touching_bind_group: None,
            params,
            shapes: ShapeTable::new(device, "wgpu-sat shapes"),
            poses: GrowingBuffer::new(device, "wgpu-sat poses", storage_usage),
            indices: GrowingBuffer::new(device, "wgpu-sat indices", storage_usage),
            contacts: GrowingBuffer::new(device, "wgpu-sat contacts", storage_usage),
            touching: GrowingBuffer::new(device, "wgpu-sat touching", storage_usage),
            speculative_distance: 0.0,
            swap_roles: Vec::new(),
            pair_scratch: Vec::new(),
            uploaded_shape_ids: None,
            pose_scratch: Vec::new(),
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            timings: NarrowPhaseTimings::default(),
        }
    }

    /// The device the pass runs on.
    pub(super) fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue the pass writes to.
    pub(super) fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The largest storage binding (and buffer) the device allows, in bytes.
    pub(super) fn max_binding(&self) -> u64 {
        self.max_binding
    }

    /// The shape table the kernels read (empty after a device error: unknown).
    pub(super) fn shapes(&self) -> &[Shape] {
        self.shapes.shapes()
    }

    /// How many GPU buffers the pass has created so far, the params buffer included.
    pub(super) fn buffers_created(&self) -> u64 {
        1 + [
            &self.shapes.buffer,
            &self.poses,
            &self.indices,
            &self.contacts,
            &self.touching,
        ]
        .iter()
        .map(|b| b.created)
        .sum::<u64>()
    }

    /// The shape table (`array<Shape>`).
    pub(super) fn shapes_buffer(&self) -> &wgpu::Buffer {
        &self.shapes.buffer.buffer
    }

    /// The poses of the colliders (`array<Pose>`).
    pub(super) fn poses_buffer(&self) -> &wgpu::Buffer {
        &self.poses.buffer
    }

    /// The colliders' shape ids, then the pairs (`array<u32>`).
    pub(super) fn indices_buffer(&self) -> &wgpu::Buffer {
        &self.indices.buffer
    }

    /// The contact list (`ContactList`).
    pub(super) fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.contacts.buffer
    }

    /// Per collider, how many contacts it is in (`array<u32>`).
    pub(super) fn touching_buffer(&self) -> &wgpu::Buffer {
        &self.touching.buffer
    }

    /// The layout of the narrow phase's bindings (shapes, poses, indices, contacts, params).
    pub(super) fn bind_group_layout(&self) -> &wgpu::BindGroupLayout {
        &self.bind_group_layout
    }

    /// The narrow phase's bind group, made by [`SatPass::reserve`]; `None` before it.
    pub(super) fn bind_group(&self) -> Option<&wgpu::BindGroup> {
        self.bind_group.as_ref()
    }

    /// The uniform (`Params`).
    pub(super) fn params_buffer(&self) -> &wgpu::Buffer {
        &self.params
    }

    /// Whether every shape of the table is a sharp polygon or a circle.
    pub(super) fn sharp_only(&self) -> bool {
        self.sharp_only
    }

    /// Queues the params of a dispatch over pairs that a GPU pass writes after `colliders`
    /// shape ids in `indices`, with room for `room` of them and their records, and a zeroed
    /// contact count. The pair count is left 0 for the GPU to copy in
    /// (the collision pipeline's `pair_args`).
    pub(super) fn write_found_params(&mut self, colliders: usize, room: usize) {
        self.write_params(0, colliders, room);
    }

    /// Queues a dispatch's params (`pair_count` pairs after `colliders` shape ids, room for
    /// `capacity` records) and a zeroed contact count.
    fn write_params(&mut self, pair_count: usize, colliders: usize, capacity: usize) {
        let params = ParamsGpu {
            pair_count: pair_count as u32,
            pair_offset: colliders as u32,
            contact_capacity: capacity as u32,
            speculative_distance: self.speculative_distance,
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        self.queue.write_buffer(
            &self.contacts.buffer,
            0,
            bytemuck::bytes_of(&ContactsHeaderGpu::zeroed()),
        );
        self.timings.uploaded_bytes += (size_of::<ParamsGpu>() as u64) + HEADER_BYTES;
    }

    /// The speculative distance the batches to come are given.
    pub(super) fn speculative_distance(&self) -> f32 {
        self.speculative_distance
    }

    /// Keeps the speculative distance, for the params of the batches to come.
    pub(super) fn set_speculative_distance(&mut self, margin: f32) {
        self.speculative_distance = margin;
    }

    /// Uploads the shape table (only when it changed), and notes which shapes are circles.
    pub(super) fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        let (device, queue) = (&self.device, &self.queue);
        let result = self.shapes.set(
            device,
            queue,
            self.max_binding,
            shapes,
            &mut self.bind_group,
        );
        if !matches!(result, Ok(false)) {
            // Which shapes are circles and sharp polygons, for the swap of their pairs: none
            // noted when the table has no circle, or when it is unknown after a device error.
            let table = self.shapes.shapes();
            self.sharp_only = table.iter().all(is_sharp);
            self.swap_roles.clear();
            if table.iter().any(|s| s.as_circle().is_some()) {
                self.swap_roles.extend(table.iter().map(SwapRole::of));
            }
        }
        result.map(|_| ())
    }

    /// Forgets what the device holds after a failed call: the bind groups are rebuilt and
    /// the shape ids sent again by the next batch.
    pub(super) fn invalidate(&mut self) {
        self.bind_group = None;
        self.uploaded_shape_ids = None;
    }

    /// The most pairs one dispatch can take with `colliders` colliders. Zero when the
    /// colliders alone fill a binding.
    pub(super) fn max_pairs_per_dispatch(&self, colliders: usize) -> usize {
        let (pairs, records) = self.max_pairs_and_records(colliders);
        let by_dispatch = self.max_workgroups as usize * WORKGROUP_SIZE as usize;
        pairs.min(records).min(by_dispatch)
    }

    /// The most pairs the bindings hold after `colliders` shape ids, and the most contact
    /// records: [`max_pairs_per_dispatch`](Self::max_pairs_per_dispatch)'s bounds for a
    /// dispatch of rows of workgroups (the collision pipeline's), which no dimension limits
    /// first.
    pub(super) fn max_pairs_and_records(&self, colliders: usize) -> (usize, usize) {
        let words = (self.max_binding / 4) as usize;
        let by_indices = words.saturating_sub(colliders) / 2;
        let by_contacts = (self.max_binding.saturating_sub(HEADER_BYTES) / RECORD_BYTES) as usize;
        let rows = self.max_workgroups as usize;
        let by_dispatch = rows * rows * WORKGROUP_SIZE as usize;
        (by_indices.min(by_dispatch), by_contacts.min(by_dispatch))
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
            return Err(Error::Gpu(GpuError::TooLarge {
                what: "colliders",
                count: colliders,
                max: max_colliders.min(((self.max_binding / 4) as usize).saturating_sub(2)),
            }));
        }
        Ok(batch)
    }

    /// Makes room for `colliders` colliders and dispatches of `batch` pairs, re-creating the
    /// bind groups if a buffer was replaced.
    pub(super) fn reserve(&mut self, colliders: usize, batch: usize) {
        self.reserve_records(colliders, batch, batch);
    }

    /// [`reserve`](Self::reserve) with room for `pairs` pairs and `records` contact records
    /// apart (the collision pipeline caps its records by the binding, not its pairs).
    /// Returns whether the poses or the shape ids were lost (their buffer replaced).
    pub(super) fn reserve_records(
        &mut self,
        colliders: usize,
        pairs: usize,
        records: usize,
    ) -> bool {
        let cap = self.max_binding;
        let mut replaced = self.poses.reserve(&self.device, 16 * colliders as u64, cap);
        if self
            .indices
            .reserve(&self.device, 4 * (colliders + 2 * pairs) as u64, cap)
        {
            self.uploaded_shape_ids = None;
            replaced = true;
        }
        let lost = replaced;
        let contact_bytes = HEADER_BYTES + RECORD_BYTES * records as u64;
        replaced |= self.contacts.reserve(&self.device, contact_bytes, cap);
        replaced |= self
            .touching
            .reserve(&self.device, 4 * colliders as u64, cap);
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
        lost
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

    /// Queues the writes of one dispatch: its pairs, its parameters, a zeroed contact count.
    /// With circles in the table, a circle–(sharp) polygon pair goes up polygon first, marked
    /// [`SWAPPED`]: the kernel then needs no test of its own to put the polygon first (a
    /// per-lane branch costs every lane of a SIMD group, and polygon pairs would pay).
    pub(super) fn write_batch(&mut self, colliders: &[Collider], pairs: &[[u32; 2]]) {
        let collider_count = colliders.len();
        let words = if self.swap_roles.is_empty() {
            pairs
        } else {
            let role = |i: u32| self.swap_roles[colliders[i as usize].shape as usize];
            self.pair_scratch.clear();
            self.pair_scratch.extend(pairs.iter().map(|&[a, b]| {
                if role(a) == SwapRole::Circle && role(b) == SwapRole::SharpPolygon {
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
        self.write_params(pairs.len(), collider_count, pairs.len());
        self.timings.uploaded_bytes += 8 * pairs.len() as u64;
    }

    /// Records the narrow-phase dispatch over `pair_count` pairs and, with `touching`, the
    /// pass that counts each collider's contacts; `timestamps` go around the pass.
    pub(super) fn encode_dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pair_count: usize,
        touching: bool,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), Error> {
        let (Some(bind_group), Some(touching_bind_group)) =
            (&self.bind_group, &self.touching_bind_group)
        else {
            return Err(Error::Gpu(GpuError::Device(
                "the narrow phase has no bind group".into(),
            )));
        };
        let workgroups = (pair_count as u32).div_ceil(WORKGROUP_SIZE);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgpu-sat collide_pairs"),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(if self.sharp_only {
            &self.sharp_pipeline
        } else {
            &self.pipeline
        });
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
}

/// Contact records read back from a contact list, and the scratch that puts them in pair
/// order. Kept and reused, so a warm reader allocates nothing.
#[derive(Default)]
pub(super) struct ContactRecords {
    /// The records as read, in whatever order the invocations appended them.
    records: Vec<ContactGpu>,
    /// For each pair of the batch, the index of its record, or `NO_RECORD`.
    slots: Vec<u32>,
}

impl ContactRecords {
    /// Reads a contact list (`ContactList`: the header, then the records) from `bytes`,
    /// replacing the records held. Returns its count, bounded by `pairs` (the kernel never
    /// appends more; the bound keeps a broken driver from making us read garbage), and keeps
    /// at most the first `at_most` records: those `bytes` hold.
    pub(super) fn read_list(&mut self, bytes: &[u8], pairs: usize, at_most: usize) -> usize {
        let header: ContactsHeaderGpu =
            bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES as usize]);
        let count = (header.count as usize).min(pairs);
        self.records.clear();
        let here = count.min(at_most) * RECORD_BYTES as usize;
        self.read_more(&bytes[HEADER_BYTES as usize..][..here]);
        count
    }

    /// Appends the whole records of `bytes` (the rest of a list read in two parts).
    pub(super) fn read_more(&mut self, bytes: &[u8]) {
        self.records.extend(
            bytes
                .chunks_exact(RECORD_BYTES as usize)
                .map(bytemuck::pod_read_unaligned::<ContactGpu>),
        );
    }

    /// Appends the contacts of the records held to `out` in the order of their pairs, of
    /// which there were `pairs`, each record's two colliders being `ends[k]` (the records and
    /// their ends as the collision pipeline reads them back; see `put_in_pair_order`).
    pub(super) fn put_in_found_order(
        &mut self,
        ends: &[[u32; 2]],
        pairs: usize,
        out: &mut Vec<Contact>,
    ) {
        self.records.truncate(ends.len());
        self.place(pairs, |_, record| ends[record], out);
    }

    /// Appends the contacts of the records held to `out` in the order of `pairs`. Appends
    /// happen in whatever order the invocations ran; pair indices are dense and unique, so
    /// placing each record by its pair restores the order in linear time.
    pub(super) fn put_in_pair_order(&mut self, pairs: &[[u32; 2]], out: &mut Vec<Contact>) {
        self.place(pairs.len(), |pair, _| pairs[pair], out);
    }

    /// Places each record held at its pair's index among `pairs` pairs, then appends their
    /// contacts in that order, each named by `ends(pair, record)`.
    fn place(
        &mut self,
        pairs: usize,
        ends: impl Fn(usize, usize) -> [u32; 2],
        out: &mut Vec<Contact>,
    ) {
        let (records, slots) = (&self.records, &mut self.slots);
        slots.clear();
        slots.resize(pairs, NO_RECORD);
        for (k, r) in records.iter().enumerate() {
            if let Some(slot) = slots.get_mut(r.pair as usize) {
                *slot = k as u32;
            }
        }
        out.reserve(records.len());
        for (pair, &slot) in slots.iter().enumerate() {
            if slot != NO_RECORD {
                let [a, b] = ends(pair, slot as usize);
                let manifold = records[slot as usize].manifold();
                out.push(Contact { a, b, manifold });
            }
        }
    }
}
