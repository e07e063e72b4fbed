//! [`GpuCollision`]: the collision stage on the GPU in one submit, poses in and contacts
//! out, the pairs never crossing the bus. The twin of
//! [`find_contacts`](crate::collision::find_contacts), stage for stage:
//!
//! ```text
//! find_contacts(colliders) = send(colliders), then collect(colliders):
//!     check the colliders (shape index, finite pose) as the CPU does
//!     collider_boxes on the host (grown by half the speculative distance), and the y bands
//!     and entry count of the sweep from them (see below)
//!     queue: the colliders whose pose, box or shape changed since the last call (48 B
//!            each, scatter.rs), or all of them whole (36 B each) when most did; the
//!            narrow phase's params with room for `room` pairs
//!     one submit (send returns here; collect waits for it):
//!         scatter_colliders, when some changed
//!         the broad phase (sort_sweep.wgsl), the pairs sorted over the whole room
//!         pair_args: the narrow phase's indirect dispatch from the GPU's own count
//!         copy the pairs after the shape ids, and the count into the narrow phase's params
//!         collide_pairs, dispatched indirectly, ORIENT_ON_DEVICE (the kernel puts a
//!             circle–polygon pair polygon first); overlapping pairs append a record
//!         contact_ends: each record's two colliders
//!         copy back: the dispatch (32 B: pairs, total), the timestamps (16 B), the
//!             contact count and as many records and ends as the last call had (plus
//!             headroom)
//!     the total above the room: grow the room, run again (the pairs were cut short)
//!     more records than were copied: one more copy of the rest
//!     place each record by its pair index: ascending pair order, in linear time
//! ```
//!
//! What crosses the bus: up, 48 bytes a changed collider (36 a collider when most changed)
//! and the passes' uniforms (256 bytes a dispatch, about a hundred dispatches); back, 64
//! bytes and 56 a contact. What does not: the pairs (8 bytes each, several per collider in a
//! pile), which the broad phase leaves where the narrow phase reads them.
//!
//! The room: the GPU alone knows how many pairs there are, so the call reserves room for
//! the last call's total and a quarter more, sorts the whole room (the part past the total
//! keyed to sort last), and reads the total back with the contacts. A world whose pairs
//! grow by more than a quarter in a step runs the submit twice that step; a first call
//! reserves two pairs per collider.
//!
//! Why the boxes come from the host: the sweep's bands (and the entry count that sizes its
//! buffers) are fitted to the boxes on the host, as the batch face does, and a world
//! stepped on the CPU has them anyway; fitting them on the GPU (a reduction) belongs to a
//! step whose poses never leave the device.
//!
//! The GPU world (`send_placed`) sends neither: its bodies' transforms are on the device,
//! and `place.rs` writes each collider's pose and box there before the sweep (the scatter
//! sends only what the device cannot place: a changed shape id, a removed collider's
//! pose). The host's boxes still fit the sweep, so the sweep's `entry_total` reports the
//! entries the device's boxes span, read back with the dispatch; a count that is not the
//! host's runs the call again with the host's poses and boxes sent. With its pair set on
//! the device, the GPU world calls in two halves (`set.rs`): the placement first, then the
//! narrow phase over the set's pairs the world's recycling pass marked fresh, no sweep (a
//! hash of the placed boxes checks them then).

use std::time::Instant;

use crate::broad_phase::sort_sweep::hash_boxes;
use crate::collision::find_contacts::collider_boxes;
use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::{
    Collider, NarrowPhaseTimings, check_colliders, check_speculative_distance,
};
use crate::error::{Error, GpuError};
use crate::gpu::broad_phase::{FreshPairs, GpuBroadPhase};
use crate::gpu::layout::ParamsGpu;
use crate::gpu::layout::{ContactGpu, PairDispatchGpu};
use crate::gpu::place::PlacedColliders;

mod colliders;
mod read;
mod recycle;
mod set;
use crate::gpu::plumbing::{
    GrowingBuffer, KernelTimer, TIMESTAMP_BYTES, compute_pipeline, compute_pipeline_with, entire,
    storage, uniform,
};
use crate::gpu::sat_pass::{ContactRecords, HEADER_BYTES, RECORD_BYTES, SAT_WGSL, SatPass};
use crate::gpu::scatter::ResidentColliders;
use crate::shapes::aabb::Aabb;
use crate::shapes::shape::Shape;
pub use recycle::RECYCLE_WGSL;
pub(crate) use recycle::SetKept;
use recycle::{KeepInputs, SetRecycling};

/// Bytes of a record's two colliders (`ends` in sat_pass.wgsl).
const END_BYTES: u64 = 8;
/// Bytes of the dispatch read back first (`PairDispatchGpu`).
const DISPATCH_BYTES: u64 = size_of::<PairDispatchGpu>() as u64;
/// The readback's head: the dispatch, then the two timestamps (zeros on a device without
/// timestamp queries), then the contact list and the ends.
const HEAD_BYTES: u64 = DISPATCH_BYTES + TIMESTAMP_BYTES;

/// The collision stage on a wgpu device: colliders in, the contacts of every pair whose
/// shapes overlap or lie within the speculative distance out, in ascending pair order,
/// each as [`find_contacts`](crate::collision::find_contacts) computes it on the CPU (the
/// tests hold the two to the same bits on lavapipe).
///
/// The broad phase's pairs stay on the GPU: the narrow phase is dispatched indirectly from
/// the count the broad phase wrote, and only the contacts come back. It borrows the host's
/// device and queue, and keeps its pipelines and buffers (grown as calls need, reused
/// after).
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, gpu::GpuCollision, Collider, Polygon, Shape, Transform};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut collision = GpuCollision::new(&device, &queue)?;
/// collision.set_shape_table(&[Shape::from(Polygon::rectangle(0.5, 0.5))])?;
/// let at = |x: f32| Collider { shape: 0, transform: Transform::new(Vec2::new(x, 0.0), 0.0) };
/// let contacts = collision.find_contacts(&[at(0.0), at(0.9), at(5.0)])?;
/// assert_eq!(contacts.len(), 1);
/// assert_eq!([contacts[0].a, contacts[0].b], [0, 1]);
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuCollision {
    broad: GpuBroadPhase,
    sat: SatPass,
    kernels: FoundPairKernels,
    /// The colliders' poses, shape ids and boxes, kept on the device from call to call.
    resident: ResidentColliders,
    /// The GPU world's placement of the colliders from its bodies' transforms (`place.rs`):
    /// the transforms buffer while this call places them, and each collider's owner.
    placed: PlacedColliders,
    place_from: Option<wgpu::Buffer>,
    owners: Vec<u32>,
    /// The GPU world's call in two submits (`set.rs`): whether `place_first` has placed
    /// this call's colliders, and the pair set (buffer, pairs) the narrow phase takes its
    /// pairs from instead of sweeping; the largest set so far, which `place_first`
    /// reserves room for.
    placed_early: bool,
    over_set: Option<(wgpu::Buffer, usize)>,
    /// A bit per pair of `over_set`: those the narrow phase takes (the world's fresh ones)
    /// when the device's recycling pass does not decide them (`recycle/`), or missed.
    fresh_bits: Vec<u32>,
    recycling: SetRecycling,
    set_room: usize,
    /// `send_over_set` calls over a set, and without one (swept).
    set_calls: [u64; 2],
    /// Calls whose placed boxes spanned other band entries than the host's (run again
    /// with the host's boxes sent).
    placement_misses: u64,
    /// Timestamps at the start of the broad phase's pass and the end of the narrow
    /// phase's, on devices that have them.
    timer: Option<KernelTimer>,
    /// The bind group of `contact_ends`, and the buffers it binds (rebuilt when one grew).
    ends_binding: Option<([wgpu::Buffer; 4], wgpu::BindGroup)>,
    ends: GrowingBuffer,
    readback: GrowingBuffer,
    records: ContactRecords,
    /// This call's boxes, and its records' ends as read back.
    boxes: Vec<Aabb>,
    end_scratch: Vec<[u32; 2]>,
    contacts: Vec<Contact>,
    /// Room for pairs the next call reserves, and the records it copies back at first.
    room: usize,
    expected_contacts: usize,
    /// The last call's pairs (the broad phase's total).
    pair_count: usize,
    /// The last call's submits: 1, or 2 when the room was short.
    submits: u32,
    /// When the last call began, its submit while it waits to be read back, and the number
    /// of colliders `send` sent (see [`GpuCollision::send`] and [`GpuCollision::collect`]).
    started: Instant,
    pending: Option<Pending>,
    sent: Option<usize>,
}

/// A submit not yet read back: its room for pairs (and the most the bindings allow), for
/// contact records, and the records its first copy holds.
struct Pending {
    /// What the dispatch's `entries` word must read: the band entries the host's boxes span
    /// (the sweep's `entry_count`), or over a set the hash of the host's boxes.
    entries: u32,
    room: usize,
    most_pairs: usize,
    records: usize,
    expected: usize,
    submitted: Instant,
}

/// The narrow phase's kernels with `ORIENT_ON_DEVICE` set, and `contact_ends`.
struct FoundPairKernels {
    collide: wgpu::ComputePipeline,
    /// `collide` with `SHARP_ONLY` set as well (see `SatPass`).
    collide_sharp: wgpu::ComputePipeline,
    ends: wgpu::ComputePipeline,
    ends_layout: wgpu::BindGroupLayout,
}

impl FoundPairKernels {
    fn new(device: &wgpu::Device, sat: &SatPass) -> FoundPairKernels {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat sat.wgsl (collision pipeline)"),
            source: wgpu::ShaderSource::Wgsl(SAT_WGSL.into()),
        });
        let layout = sat.bind_group_layout();
        let orient = ("ORIENT_ON_DEVICE", 1.0);
        let collide = compute_pipeline_with(device, &module, layout, "collide_pairs", &[orient]);
        let collide_sharp = compute_pipeline_with(
            device,
            &module,
            layout,
            "collide_pairs",
            &[orient, ("SHARP_ONLY", 1.0)],
        );
        let ends_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat contact_ends"),
            entries: &[
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<ParamsGpu>()),
                storage(6, false),
            ],
        });
        let ends = compute_pipeline(device, &module, &ends_layout, "contact_ends");
        FoundPairKernels {
            collide,
            collide_sharp,
            ends,
            ends_layout,
        }
    }
}

impl GpuCollision {
    /// Builds the pipelines on the host's device (the broad phase's, and the narrow phase's
    /// with the pair order decided on the device). The driver may finish compiling the
    /// WGSL on the first call.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<GpuCollision, Error> {
        let broad = GpuBroadPhase::new(device, queue)?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let sat = SatPass::new(device, queue);
        let kernels = FoundPairKernels::new(device, &sat);
        let recycling = SetRecycling::new(device);
        let timer = KernelTimer::new(device, queue);
        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let ends = GrowingBuffer::new(device, "wgpu-sat contact ends", storage_usage);
        let readback = GrowingBuffer::new(
            device,
            "wgpu-sat collision readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        Ok(GpuCollision {
            broad,
            sat,
            kernels,
            resident: ResidentColliders::new(device),
            placed: PlacedColliders::new(device),
            place_from: None,
            owners: Vec::new(),
            placed_early: false,
            over_set: None,
            fresh_bits: Vec::new(),
            recycling,
            set_room: 0,
            set_calls: [0; 2],
            placement_misses: 0,
            timer,
            ends_binding: None,
            ends,
            readback,
            records: ContactRecords::default(),
            boxes: Vec::new(),
            end_scratch: Vec::new(),
            contacts: Vec::new(),
            room: 0,
            expected_contacts: 0,
            pair_count: 0,
            submits: 0,
            started: Instant::now(),
            pending: None,
            sent: None,
        })
    }

    /// Replaces the shape table that [`Collider::shape`] indexes (uploaded only when it
    /// changed). Errors for a table larger than a binding.
    pub fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.sat.set_shape_table(shapes)
    }

    /// The speculative distance of the calls to come: pairs apart by less get a manifold
    /// too, with negative depths (see
    /// [`NarrowPhase::set_speculative_distance`](crate::NarrowPhase::set_speculative_distance),
    /// whose range and error it shares). 0 at first: overlapping pairs only.
    pub fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        check_speculative_distance(margin)?;
        self.sat.set_speculative_distance(margin);
        Ok(())
    }

    /// The contacts of every pair of `colliders` whose shapes overlap or lie within the
    /// speculative distance, in ascending pair order (`a < b`, the normal from `a` to `b`):
    /// exactly [`find_contacts`](crate::collision::find_contacts)'s, computed on the GPU.
    /// The slice lives until the next call.
    ///
    /// Errors, leaving the stage usable: a shape index out of range or a non-finite pose
    /// (naming the first such collider, as the CPU does); more colliders or pairs than one
    /// binding or dispatch holds; a device error (a lost device among them).
    pub fn find_contacts(&mut self, colliders: &[Collider]) -> Result<&[Contact], Error> {
        self.begin(colliders)?;
        let (shapes, margin) = (self.sat.shapes(), self.sat.speculative_distance());
        collider_boxes(shapes, colliders, margin, &mut self.boxes);
        if colliders.len() >= 2 {
            self.guarded(|stage| stage.run(colliders))?;
        }
        Ok(&self.contacts)
    }

    /// The first half of [`find_contacts`](GpuCollision::find_contacts): checks the
    /// colliders and sends the call's submit, without waiting for the GPU.
    /// [`collect`](Self::collect) waits for it and returns the contacts; in between, the CPU
    /// is free for work of its own. Errors as `find_contacts` does.
    ///
    /// ```no_run
    /// # use wgpu_sat::{gpu::GpuCollision, Collider};
    /// # fn other_work() {}
    /// # fn run(collision: &mut GpuCollision, colliders: &[Collider]) -> Result<(), wgpu_sat::Error> {
    /// collision.send(colliders)?;
    /// other_work(); // runs while the GPU finds the contacts
    /// let contacts = collision.collect(colliders)?;
    /// # Ok(()) }
    /// ```
    pub fn send(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.begin(colliders)?;
        let (shapes, margin) = (self.sat.shapes(), self.sat.speculative_distance());
        collider_boxes(shapes, colliders, margin, &mut self.boxes);
        self.send_boxes_ready(colliders)
    }

    /// The submit of a call whose boxes are in `self.boxes`, if it has a pair to find.
    fn send_boxes_ready(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        if colliders.len() >= 2 {
            self.guarded(|stage| {
                stage.pending = Some(stage.submit(colliders)?);
                Ok(())
            })?;
        }
        self.sent = Some(colliders.len());
        Ok(())
    }

    /// The second half of [`find_contacts`](GpuCollision::find_contacts): waits for the call
    /// [`send`](Self::send) sent (and runs it again when its pairs outgrew their room), and
    /// returns its contacts. `colliders` must be those given to `send`; a call with none
    /// sent, or with another number of colliders, is an error
    /// ([`GpuError::NotSent`](crate::error::GpuError::NotSent)).
    pub fn collect(&mut self, colliders: &[Collider]) -> Result<&[Contact], Error> {
        if self.sent.take() != Some(colliders.len()) {
            self.pending = None;
            return Err(Error::Gpu(GpuError::NotSent));
        }
        if let Some(pending) = self.pending.take() {
            self.guarded(|stage| {
                if !stage.receive(colliders, pending)? {
                    stage.run(colliders)?;
                }
                Ok(())
            })?;
        }
        Ok(&self.contacts)
    }

    /// The start of a call: nothing of the last one kept, the colliders checked.
    fn begin(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.contacts.clear();
        (self.pending, self.sent, self.place_from) = (None, None, None);
        (self.placed_early, self.over_set) = (false, None);
        // The manifolds a call merges are its own step's.
        self.recycling.merged_hash = None;
        self.sat.timings = NarrowPhaseTimings::default();
        (self.pair_count, self.submits) = (0, 0);
        self.started = Instant::now();
        check_colliders(self.sat.shapes().len(), colliders)
    }

    /// Runs `part` of a call inside an error scope; on any error nothing of the call is
    /// kept, and what the device holds is sent again by the next.
    fn guarded(
        &mut self,
        part: impl FnOnce(&mut GpuCollision) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let device = self.sat.device().clone();
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = part(self);
        let result = match pollster::block_on(scope.pop()) {
            Some(error) => Err(Error::Gpu(GpuError::Device(error.to_string()))),
            None => result,
        };
        if result.is_err() {
            self.contacts.clear();
            self.pending = None;
            self.sat.invalidate();
            self.resident.invalidate();
            self.placed.invalidate();
            self.recycling.invalidate();
            self.ends_binding = None;
        }
        result
    }

    /// Where the last call spent its time and how many bytes it moved each way (`upload`:
    /// the checks, boxes and queue writes; `dispatch`: from the submit until the results
    /// could be mapped; `readback`: mapping and placing the contacts; `kernel`: from the
    /// start of the broad phase's pass to the end of the narrow phase's, by timestamp
    /// queries, on devices that have them).
    pub fn timings(&self) -> NarrowPhaseTimings {
        self.sat.timings
    }

    /// How many pairs the broad phase found in the last call (on the GPU; only the count
    /// came back).
    pub fn pair_count(&self) -> usize {
        self.pair_count
    }

    /// How many submits the last call made: 1, or 2 when the pairs outgrew the room
    /// reserved for them.
    pub fn submits(&self) -> u32 {
        self.submits
    }

    /// How many GPU buffers this has created so far.
    pub fn buffers_created(&self) -> u64 {
        self.broad.buffers_created()
            + self.sat.buffers_created()
            + self.resident.buffers_created()
            + self.placed.buffers_created()
            + self.recycling.buffers_created()
            + self.ends.created
            + self.readback.created
    }

    /// A whole call over at least two checked colliders, whose boxes are in `self.boxes`:
    /// a submit and its readback, and a second when the pairs outgrew their room.
    fn run(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        loop {
            let pending = self.submit(colliders)?;
            if self.receive(colliders, pending)? {
                return Ok(());
            }
        }
    }

    /// Encodes and submits the call's work with room for `self.room` pairs (two a collider
    /// at first): the broad phase, the narrow phase dispatched from its count, and the
    /// copies to the readback buffer, which [`receive`](Self::receive) maps.
    fn submit(&mut self, colliders: &[Collider]) -> Result<Pending, Error> {
        let n = colliders.len();
        self.sat.fit_colliders(n)?;
        if self.room == 0 {
            self.room = 2 * n;
        }
        let (most_pairs, most_records) = self.sat.max_pairs_and_records(n);
        // Within what the bindings hold (a batch after a larger one needs less room than
        // that one left; a total past the most is an error after the readback).
        let most_pairs = most_pairs.min(self.broad.max_pairs());
        // Over a set, its pairs are the most there can be: never short.
        let room = match &self.over_set {
            Some((_, set_len)) => (*set_len).max(1),
            None => self.room,
        };
        let room = room.min(most_pairs);
        // Records: one a pair at most, within a binding (a pair's 8 bytes fit where its
        // 48-byte record may not); more than that is an error named after the readback.
        let records = room.min(most_records);
        let (base, boxes_lost) = self.broad.prepare_boxes(&self.boxes)?;
        let lost = self.sat.reserve_records(n, room, records) || boxes_lost;
        self.sat.write_found_params(n, records);
        let device = self.sat.device().clone();
        let cap = self.sat.max_binding();
        self.ends.reserve(&device, END_BYTES * records as u64, cap);
        let expected = self.expected_contacts.max(16).min(records);
        let list_bytes = HEADER_BYTES + RECORD_BYTES * expected as u64;
        let first_copy = HEAD_BYTES + list_bytes + END_BYTES * expected as u64;
        self.readback.reserve(&device, first_copy, cap);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-sat collision"),
        });
        let ends_bind_group = self.ends_bind_group(&device);
        // The colliders, unless `place_first` sent them and nothing they were written to
        // has been replaced since.
        let mut timed_first = false;
        if !self.placed_early || lost {
            let uploaded;
            (uploaded, timed_first) = self.record_colliders(&mut encoder, colliders, lost, true);
            self.sat.timings.uploaded_bytes += uploaded;
        }
        let (first_pass, last_pass) = match &self.timer {
            Some(t) => (
                Some(t.pass(Some(0), None)).filter(|_| !timed_first),
                Some(t.pass(None, Some(1))),
            ),
            None => (None, None),
        };
        let (found, entries) = match &self.over_set {
            Some((set, set_len)) => {
                // The fresh pairs flagged by the device's recycling pass, or the world's
                // bits.
                let (broad, recycling) = (&mut self.broad, &self.recycling);
                recycling.record_start(&mut encoder);
                let flags = recycling.flags(self.sat.poses_buffer());
                let fresh = match recycling.deciding() {
                    true => FreshPairs::Flagged(&flags),
                    false => FreshPairs::Bits(&self.fresh_bits),
                };
                let set = (set, *set_len);
                let found = broad.record_over_set(&mut encoder, set, fresh, n, first_pass)?;
                // The boxes placed on the device are checked by their hash (no sweep counts
                // their band entries).
                let hash = self
                    .place_from
                    .as_ref()
                    .map_or(0, |_| hash_boxes(&self.boxes));
                (found, hash)
            }
            None => {
                let broad = &mut self.broad;
                let found = broad.record_on_device(&mut encoder, base, room, first_pass)?;
                (found, base.entry_count)
            }
        };
        self.sat.timings.uploaded_bytes += found.uploaded_bytes;
        let (indices, params) = (self.sat.indices_buffer(), self.sat.params_buffer());
        encoder.copy_buffer_to_buffer(found.pairs, 0, indices, 4 * n as u64, 8 * room as u64);
        // PairDispatchGpu::pairs (bytes 12..16) into Params::pair_count (bytes 0..4).
        encoder.copy_buffer_to_buffer(found.dispatch, 12, params, 0, 4);
        let Some(bind_group) = self.sat.bind_group() else {
            return Err(Error::Gpu(GpuError::Device(
                "the narrow phase has no bind group".into(),
            )));
        };
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sat collide_pairs (found on the GPU)"),
                timestamp_writes: last_pass,
            });
            pass.set_pipeline(if self.sat.sharp_only() {
                &self.kernels.collide_sharp
            } else {
                &self.kernels.collide
            });
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups_indirect(found.dispatch, 0);
            // As many invocations as pairs: at least one per record.
            pass.set_pipeline(&self.kernels.ends);
            pass.set_bind_group(0, &ends_bind_group, &[]);
            pass.dispatch_workgroups_indirect(found.dispatch, 0);
        }
        if let Some((set, _)) = &self.over_set {
            // The fresh records' manifolds kept on the device, and the contact list
            // merged there, when it decided the fresh pairs.
            let inputs = KeepInputs {
                set,
                contacts: self.sat.contacts_buffer(),
                ends: &self.ends.buffer,
                indices,
                shapes: self.sat.shapes_buffer(),
                poses: self.sat.poses_buffer(),
                dispatch: found.dispatch,
                hash_offset: std::mem::offset_of!(PairDispatchGpu, fresh_hash) as u64,
                capacity: records,
            };
            let queue = self.sat.queue();
            let written = self
                .recycling
                .record_keep(&device, queue, &mut encoder, inputs);
            self.sat.timings.uploaded_bytes += written;
        }
        let readback = &self.readback.buffer;
        encoder.copy_buffer_to_buffer(found.dispatch, 0, readback, 0, DISPATCH_BYTES);
        if let Some(t) = &self.timer {
            t.copy(&mut encoder, readback, DISPATCH_BYTES);
        }
        let contacts = self.sat.contacts_buffer();
        encoder.copy_buffer_to_buffer(contacts, 0, readback, HEAD_BYTES, list_bytes);
        let ends_at = HEAD_BYTES + list_bytes;
        let end_bytes = END_BYTES * expected as u64;
        encoder.copy_buffer_to_buffer(&self.ends.buffer, 0, readback, ends_at, end_bytes);
        let submitted = Instant::now();
        self.sat.timings.upload += submitted - self.started;
        self.sat.queue().submit([encoder.finish()]);
        self.submits += 1;
        Ok(Pending {
            entries,
            room,
            most_pairs,
            records,
            expected,
            submitted,
        })
    }

    /// The bind group of `contact_ends`, made again when a buffer it binds was replaced.
    fn ends_bind_group(&mut self, device: &wgpu::Device) -> wgpu::BindGroup {
        let buffers = [
            self.sat.indices_buffer().clone(),
            self.sat.contacts_buffer().clone(),
            self.sat.params_buffer().clone(),
            self.ends.buffer.clone(),
        ];
        if let Some((bound, group)) = &self.ends_binding
            && *bound == buffers
        {
            return group.clone();
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgpu-sat contact_ends"),
            layout: &self.kernels.ends_layout,
            entries: &[
                entire(2, &buffers[0]),
                entire(3, &buffers[1]),
                entire(4, &buffers[2]),
                entire(6, &buffers[3]),
            ],
        });
        self.ends_binding = Some((buffers, group.clone()));
        group
    }
}

/// Room for `pairs` pairs and a quarter more, so that a world whose pairs grow slowly runs
/// one submit a step.
fn grown_room(pairs: usize) -> usize {
    pairs + pairs / 4 + 64
}

const _: () = assert!(size_of::<ContactGpu>() as u64 == RECORD_BYTES);
