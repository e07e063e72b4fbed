//! [`GpuNarrowPhase`]: the SAT narrow phase as a wgpu compute pass, and its blocking batch
//! path (the [`NarrowPhase`] trait). It holds the pass (`sat_pass.rs`: the kernels and the
//! buffers they bind) and the host-encoder path (`host.rs`: prepare, record, a readback that
//! never waits), and hands each public call to the one it belongs to; the buffers, bindings
//! and readback every kernel uses are in `plumbing.rs`.
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
//! (within [`RELATIVE_TIE_TOLERANCE`](crate::collision::RELATIVE_TIE_TOLERANCE)) possibly broken
//! towards the other axis, and none promised in the overflow zone (a depth, contact
//! coordinate or pair size beyond 1e30), where each backend still reports only finite
//! contacts with unit normals, or none; `examples/fuzz/gpu.rs` checks exactly this.

use std::time::Instant;

use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::{Collider, NarrowPhase, NarrowPhaseTimings, validate_batch};
use crate::error::Error;
use crate::error::GpuError;
use crate::gpu::host::HostPath;
use crate::gpu::plumbing::{self, GrowingBuffer, KernelTimer, read_back};
use crate::gpu::sat_pass::{ContactRecords, HEADER_BYTES, RECORD_BYTES, SatPass};
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;

/// The WGSL structs of the narrow phase's buffers (`shaders/layout.wgsl`), for hosts that
/// read them in their own shaders: prepend it to your WGSL.
pub const LAYOUT_WGSL: &str = include_str!("../../shaders/layout.wgsl");

/// The readback buffer starts with the kernel's two timestamps (when the device has
/// timestamp queries), then holds a copy of the contact buffer.
const TIMESTAMP_BYTES: u64 = plumbing::TIMESTAMP_BYTES;

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
    /// The kernels and every buffer they bind, which both paths fill.
    pass: SatPass,
    /// The host-encoder path's state and readback.
    host: HostPath,
    /// The blocking path's mappable buffer, and the records it read back.
    readback: GrowingBuffer,
    records: ContactRecords,
    /// How many records the first readback copies: the last batch's count plus headroom.
    expected_contacts: usize,
    timer: Option<KernelTimer>,
    /// When the last submit happened.
    submitted: Instant,
}

impl GpuNarrowPhase {
    /// Builds the pipeline on the host's device. Creating it compiles the WGSL; the driver
    /// may finish compiling on the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pass = SatPass::new(device, queue);
        let host = HostPath::new(device);
        let readback = GrowingBuffer::new(
            device,
            "wgpu-sat readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let timer = KernelTimer::new(device, queue);
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        Ok(GpuNarrowPhase {
            pass,
            host,
            readback,
            records: ContactRecords::default(),
            // Nothing known yet: the first call reads back the whole contact buffer.
            expected_contacts: usize::MAX,
            timer,
            submitted: Instant::now(),
        })
    }

    /// The device this narrow phase runs on.
    pub fn device(&self) -> &wgpu::Device {
        self.pass.device()
    }

    /// The queue this narrow phase submits to.
    pub fn queue(&self) -> &wgpu::Queue {
        self.pass.queue()
    }

    /// How many GPU buffers this narrow phase has created so far. Once warm (after a call
    /// with the largest batch), it stays the same: buffers are reused, not re-created. A
    /// host that binds the narrow phase's buffers rebuilds its bind group when it changes.
    pub fn buffers_created(&self) -> u64 {
        self.pass.buffers_created() + self.host.buffers_created() + self.readback.created
    }

    /// The most pairs one dispatch can take with `colliders` colliders; larger batches are
    /// split into dispatches of this size. Zero when the colliders alone fill a binding.
    pub fn max_pairs_per_dispatch(&self, colliders: usize) -> usize {
        self.pass.max_pairs_per_dispatch(colliders)
    }

    /// Writes this frame's poses and pairs with `Queue::write_buffer`, for a following
    /// [`record`](Self::record) into the host's encoder. The batch is validated like
    /// [`collide_pairs`](crate::NarrowPhase::collide_pairs); it must fit one dispatch
    /// ([`max_pairs_per_dispatch`](Self::max_pairs_per_dispatch)), else an error names the
    /// limit (the blocking `collide_pairs` splits larger batches instead). An empty batch
    /// (no pairs, or no colliders at all) is fine: it records a pass that finds nothing.
    ///
    /// The batch stays prepared until the next `prepare`, `collide_pairs` or
    /// [`write_poses`](Self::write_poses): those reuse its buffers, so after them `record`
    /// errors with [`GpuError::NotPrepared`](crate::error::GpuError::NotPrepared) until the next `prepare`. For the same reason,
    /// call none of them between `record` and the host's submit of that encoder: their
    /// queue writes land before the submit, and the recorded dispatch would read them.
    pub fn prepare(&mut self, colliders: &[Collider], pairs: &[[u32; 2]]) -> Result<(), Error> {
        self.host.prepare(&mut self.pass, colliders, pairs)
    }

    /// Records the prepared batch into the host's encoder: the narrow-phase dispatch, then a
    /// pass that fills [`touching_buffer`](Self::touching_buffer). Submits nothing; the
    /// results are in [`contacts_buffer`](Self::contacts_buffer) once the host's submission
    /// has run. Errors with [`GpuError::NotPrepared`](crate::error::GpuError::NotPrepared) if nothing is prepared.
    ///
    /// A prepared batch may be recorded again (the next frame, when nothing moved): each
    /// recording starts an empty contact list.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        self.host.record(&self.pass, encoder)
    }

    /// Records a copy of the prepared batch's contacts into the host's encoder, to be read
    /// back without blocking: after submitting the encoder, call
    /// [`poll_readback`](Self::poll_readback) (once per frame, say) until it returns them.
    ///
    /// The request keeps its own copy of the batch's pairs, so the host may
    /// [`prepare`](Self::prepare) and record further frames before the contacts arrive:
    /// they are this batch's all the same.
    ///
    /// A new request replaces one still under way (its contacts are never returned). The
    /// readback of an encoder the host drops unsubmitted stays pending, and
    /// [`poll_readback`](Self::poll_readback) returns `None`, until a new request replaces
    /// it. Submit encoders in the order the requests were recorded: an older request's
    /// encoder submitted after a newer one's may find the buffer mapped, and wgpu refuses
    /// that submit.
    ///
    /// Errors with [`GpuError::NotPrepared`](crate::error::GpuError::NotPrepared) if nothing is prepared, and
    /// [`GpuError::NotRecorded`](crate::error::GpuError::NotRecorded) if the prepared batch was not recorded (there would be no
    /// contacts to copy).
    pub fn request_readback(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        self.host.request_readback(&self.pass, encoder)
    }

    /// The contacts of the requested readback, in pair order, as
    /// [`collide_pairs`](crate::NarrowPhase::collide_pairs) returned them for the batch prepared
    /// before [`request_readback`](Self::request_readback), once the GPU has them; `None`
    /// while they are on their way (or the encoder holding the request is not submitted
    /// yet), or when no readback is pending (see [`readback_pending`](Self::readback_pending)),
    /// so a host may call it every frame. Never blocks: it only polls the device.
    ///
    /// An error ends the readback (nothing is pending afterwards): when mapping fails, and
    /// when the device is lost or destroyed before the contacts arrive, which they then
    /// never would, so a host that polls until they do never waits forever.
    pub fn poll_readback(&mut self) -> Option<Result<Vec<Contact>, Error>> {
        let mut out = Vec::new();
        self.poll_readback_into(&mut out)
            .map(|result| result.map(|()| out))
    }

    /// [`poll_readback`](Self::poll_readback) into a vector the caller keeps: when the
    /// readback arrives, `out` is replaced by its contacts (and emptied on an error); while
    /// it returns `None`, `out` is left alone. A warm host that reuses `out` allocates
    /// nothing here.
    pub fn poll_readback_into(&mut self, out: &mut Vec<Contact>) -> Option<Result<(), Error>> {
        self.host.poll_readback_into(self.pass.device(), out)
    }

    /// Writes the colliders' poses (and shape indices) to [`poses_buffer`](Self::poses_buffer)
    /// and [`collider_shapes_buffer`](Self::collider_shapes_buffer) for a renderer, without
    /// colliding anything: after `World::step`, `write_poses(world.colliders())` puts the
    /// stepped poses where a renderer draws from (the step itself uploaded the poses it
    /// started from). Errors, naming the collider, for a bad shape index or pose, and with
    /// [`GpuError::TooLarge`](crate::error::GpuError::TooLarge) for more colliders than a binding holds.
    pub fn write_poses(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.host.write_poses(&mut self.pass, colliders)
    }

    /// Whether a readback was requested and has not been returned by
    /// [`poll_readback`](Self::poll_readback) yet.
    pub fn readback_pending(&self) -> bool {
        self.host.readback_pending()
    }

    // The buffers below grow when a batch needs more room: a larger one replaces the old.
    // A host that binds them rebuilds its bind group when one changes (`wgpu::Buffer`
    // compares by identity), or when `buffers_created` moves. Their WGSL structs are in
    // `LAYOUT_WGSL`.

    /// The shape table (`array<Shape>` in `shaders/layout.wgsl`). Replaced when it grows:
    /// see [`buffers_created`](Self::buffers_created).
    pub fn shapes_buffer(&self) -> &wgpu::Buffer {
        self.pass.shapes_buffer()
    }

    /// This step's pose of every collider (`array<Pose>`): what a renderer draws from.
    /// Replaced when it grows.
    pub fn poses_buffer(&self) -> &wgpu::Buffer {
        self.pass.poses_buffer()
    }

    /// Each collider's shape index, in words `[0, collider count)` of this buffer
    /// (`array<u32>`; the words after them hold the pairs).
    pub fn collider_shapes_buffer(&self) -> &wgpu::Buffer {
        self.pass.indices_buffer()
    }

    /// The compacted contacts of the last dispatch (`ContactList`): a count, then that many
    /// records in no particular order, each naming its pair.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        self.pass.contacts_buffer()
    }

    /// Per collider, how many contacts it is in (`array<u32>`), filled by
    /// [`record`](Self::record): nonzero means touching something.
    pub fn touching_buffer(&self) -> &wgpu::Buffer {
        self.pass.touching_buffer()
    }

    /// Runs one dispatch over `pairs` and appends its contacts, in pair order, to `out`.
    fn run_batch(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        let upload_start = Instant::now();
        self.pass.write_batch(colliders, pairs);
        let expected = self.expected_contacts.clamp(1, pairs.len());
        let mut encoder =
            self.pass
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("wgpu-sat collide_pairs"),
                });
        let timestamps = self.timer.as_ref().map(KernelTimer::whole_pass);
        self.pass
            .encode_dispatch(&mut encoder, pairs.len(), false, timestamps)?;
        if let Some(t) = &self.timer {
            t.copy(&mut encoder, &self.readback.buffer, 0);
        }
        let first_bytes = HEADER_BYTES + RECORD_BYTES * expected as u64;
        encoder.copy_buffer_to_buffer(
            self.pass.contacts_buffer(),
            0,
            &self.readback.buffer,
            TIMESTAMP_BYTES,
            first_bytes,
        );
        self.pass.timings.upload += upload_start.elapsed();
        self.submitted = Instant::now();
        self.pass.queue().submit([encoder.finish()]);

        let mut count = 0;
        let mut ticks = [0u64; 2];
        self.map_readback(TIMESTAMP_BYTES + first_bytes, |bytes, records| {
            ticks = bytemuck::pod_read_unaligned(&bytes[..TIMESTAMP_BYTES as usize]);
            count = records.read_list(&bytes[TIMESTAMP_BYTES as usize..], pairs.len(), expected);
        })?;
        if let Some(t) = &self.timer {
            let kernel = self.pass.timings.kernel.unwrap_or_default();
            self.pass.timings.kernel = Some(kernel + t.elapsed(ticks));
        }
        if count > expected {
            // More contacts than last time's estimate: fetch the rest.
            let start = HEADER_BYTES + RECORD_BYTES * expected as u64;
            let rest = RECORD_BYTES * (count - expected) as u64;
            let mut encoder =
                self.pass
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("wgpu-sat readback rest"),
                    });
            encoder.copy_buffer_to_buffer(
                self.pass.contacts_buffer(),
                start,
                &self.readback.buffer,
                0,
                rest,
            );
            self.submitted = Instant::now();
            self.pass.queue().submit([encoder.finish()]);
            self.map_readback(rest, |bytes, records| records.read_more(bytes))?;
        }
        self.expected_contacts = count + count / 4 + 64;

        let order_start = Instant::now();
        self.records.put_in_pair_order(pairs, out);
        self.pass.timings.readback += order_start.elapsed();
        Ok(())
    }

    /// Maps the first `bytes` of the readback buffer, hands them to `read` with the record
    /// scratch, and unmaps.
    fn map_readback(
        &mut self,
        bytes: u64,
        read: impl FnOnce(&[u8], &mut ContactRecords),
    ) -> Result<(), Error> {
        self.pass.timings.read_back_bytes += bytes;
        let records = &mut self.records;
        let ready = read_back(self.pass.device(), &self.readback.buffer, bytes, |view| {
            read(view, records)
        })?;
        // From the submit: a device may start (a software one may even finish) the work
        // before the poll.
        self.pass.timings.dispatch += ready - self.submitted;
        self.pass.timings.readback += ready.elapsed();
        Ok(())
    }
}

impl NarrowPhase for GpuNarrowPhase {
    /// Kept and written to the GPU with each batch's parameters (4 bytes that the uniform
    /// already carries as padding).
    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        crate::collision::narrow_phase::check_speculative_distance(margin)?;
        self.pass.set_speculative_distance(margin);
        Ok(())
    }

    /// [`set_shape_table`](NarrowPhase::set_shape_table) for polygons; setting the
    /// polygons it already holds neither uploads nor allocates.
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        let held = shapes.len() == self.pass.shapes().len()
            && shapes
                .iter()
                .zip(self.pass.shapes())
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
        self.pass.set_shape_table(shapes)
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        out.clear();
        self.pass.timings = NarrowPhaseTimings::default();
        let upload_start = Instant::now();
        if pairs.is_empty() {
            validate_batch(self.pass.shapes().len(), colliders, pairs)?;
            return Ok(());
        }
        let scope = self
            .pass
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let batch = self.pass.begin_batch(colliders, pairs)?;
        let contact_bytes = HEADER_BYTES + RECORD_BYTES * batch.min(pairs.len()) as u64;
        self.readback.reserve(
            self.pass.device(),
            TIMESTAMP_BYTES + contact_bytes,
            self.pass.max_binding(),
        );
        // The blocking path reuses the buffers `prepare` filled.
        self.host.unprepare();
        self.pass.timings.upload += upload_start.elapsed();
        let mut result = Ok(());
        for chunk in pairs.chunks(batch) {
            result = self.run_batch(colliders, chunk, out);
            if result.is_err() {
                break;
            }
        }
        if let Some(error) = pollster::block_on(scope.pop()) {
            result = Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        if result.is_err() {
            // Nothing half-done survives: rebuild the bind group and re-send the shape ids
            // on the next call, and report no contacts.
            self.pass.invalidate();
            out.clear();
        }
        result
    }

    fn timings(&self) -> Option<NarrowPhaseTimings> {
        Some(self.pass.timings)
    }
}
