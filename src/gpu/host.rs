//! The host-encoder path of [`GpuNarrowPhase`]: for a program with a renderer of its own,
//! which runs the narrow phase inside its frame on its device, queue and encoder, and never
//! waits for the GPU (glyphon's shape: prepare, then record into the host's encoder).
//!
//! ```text
//! prepare:          validate the batch; poses, shape ids, pairs, params -> queue writes;
//!                   keep a copy of the pairs (`prepared_pairs`)
//! record:           clear `touching`; the SAT dispatch and the `count_touching` pass, into
//!                   the host's encoder (nothing submitted: the host submits its frame)
//! request_readback: a copy of the contact list into a mappable buffer, into the host's
//!                   encoder; the request takes its own copy of the pairs (`readback_pairs`)
//!                   so later frames may be prepared before it arrives
//! poll_readback:    poll the device, never wait: once the host's submission has run, map;
//!                   once mapped, place the records in pair order and name them by the
//!                   request's own pairs
//! write_poses:      poses and shape ids only, for a renderer after a CPU-side step
//! ```
//!
//! Between these calls the results stay on the GPU, in the buffers the accessors at the end
//! hand out (their WGSL structs are [`LAYOUT_WGSL`](super::LAYOUT_WGSL)), for a renderer to
//! draw from. The blocking batch path ([`collide_pairs`](crate::NarrowPhase::collide_pairs))
//! is in `narrow_phase.rs`; both fill the same buffers with the same kernel.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::Error;
use crate::gpu::layout::{ContactGpu, ContactsHeaderGpu};
use crate::gpu::narrow_phase::{GpuNarrowPhase, HEADER_BYTES, RECORD_BYTES, put_in_pair_order};
use crate::gpu::plumbing::unmap;
use crate::manifold::Contact;
use crate::narrow_phase::{Collider, NarrowPhaseTimings, validate_batch};

/// A batch written by `prepare`, ready for `record`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Prepared {
    pub(super) colliders: usize,
    pub(super) pairs: usize,
}

/// The host-driven readback: recorded into the host's encoder, then mapped without waiting.
/// The pairs it names are in `GpuNarrowPhase::readback_pairs`, not `prepared_pairs`: the
/// host may prepare other frames before it arrives.
pub(super) enum Readback {
    /// Nothing requested, or the last request returned (or failed).
    Idle,
    /// The copy of `bytes` bytes is recorded into the host's encoder. `copied` is set (by the
    /// encoder's work-done callback) once the host's submission of it has run: mapping
    /// earlier would read stale bytes, and would leave the buffer mapped when the host
    /// submits the copy into it, a validation error in the host's submit.
    Recorded { bytes: u64, copied: Arc<AtomicBool> },
    /// `map_async` is under way; its callback fills the slot.
    Mapping {
        bytes: u64,
        done: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>,
    },
}

impl GpuNarrowPhase {
    /// Writes this frame's poses and pairs with `Queue::write_buffer`, for a following
    /// [`record`](Self::record) into the host's encoder. The batch is validated like
    /// [`collide_pairs`](crate::NarrowPhase::collide_pairs); it must fit one dispatch
    /// ([`max_pairs_per_dispatch`](Self::max_pairs_per_dispatch)), else an error names the
    /// limit (the blocking `collide_pairs` splits larger batches instead). An empty batch
    /// (no pairs, or no colliders at all) is fine: it records a pass that finds nothing.
    ///
    /// The batch stays prepared until the next `prepare`, `collide_pairs` or
    /// [`write_poses`](Self::write_poses): those reuse its buffers, so after them `record`
    /// errors with [`Error::NotPrepared`] until the next `prepare`. For the same reason,
    /// call none of them between `record` and the host's submit of that encoder: their
    /// queue writes land before the submit, and the recorded dispatch would read them.
    pub fn prepare(&mut self, colliders: &[Collider], pairs: &[[u32; 2]]) -> Result<(), Error> {
        self.prepared = None;
        self.timings = NarrowPhaseTimings::default();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let batch = self.begin_batch(colliders, pairs)?;
        if pairs.len() > batch {
            return Err(Error::TooLarge {
                what: "pairs for one dispatch",
                count: pairs.len(),
                max: batch,
            });
        }
        self.write_batch(colliders, pairs);
        if let Some(error) = pollster::block_on(scope.pop()) {
            self.bind_group = None;
            self.uploaded_shape_ids = None;
            return Err(Error::Device(error.to_string()));
        }
        self.prepared_pairs.clear();
        self.prepared_pairs.extend_from_slice(pairs);
        self.prepared_recorded.store(false, Ordering::Release);
        self.prepared = Some(Prepared {
            colliders: colliders.len(),
            pairs: pairs.len(),
        });
        Ok(())
    }

    /// Records the prepared batch into the host's encoder: the narrow-phase dispatch, then a
    /// pass that fills [`touching_buffer`](Self::touching_buffer). Submits nothing; the
    /// results are in [`contacts_buffer`](Self::contacts_buffer) once the host's submission
    /// has run. Errors with [`Error::NotPrepared`] if nothing is prepared.
    ///
    /// A prepared batch may be recorded again (the next frame, when nothing moved): each
    /// recording starts an empty contact list.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        let prepared = self.prepared.ok_or(Error::NotPrepared)?;
        let touching_bytes = (4 * prepared.colliders as u64).max(4);
        encoder.clear_buffer(&self.touching.buffer, 0, Some(touching_bytes));
        // The contact count restarts here, not only in `prepare`'s queue write: recording
        // the same batch again (a frame whose poses did not change, or twice by mistake)
        // then appends to an empty list instead of past a full one.
        encoder.clear_buffer(&self.contacts.buffer, 0, Some(HEADER_BYTES));
        if prepared.pairs > 0 {
            self.encode_dispatch(encoder, prepared.pairs, true, false)?;
        }
        self.prepared_recorded.store(true, Ordering::Release);
        Ok(())
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
    /// Errors with [`Error::NotPrepared`] if nothing is prepared, and
    /// [`Error::NotRecorded`] if the prepared batch was not recorded (there would be no
    /// contacts to copy).
    pub fn request_readback(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        let prepared = self.prepared.ok_or(Error::NotPrepared)?;
        if !self.prepared_recorded.load(Ordering::Acquire) {
            return Err(Error::NotRecorded);
        }
        if let Readback::Mapping { .. } = self.readback_state {
            // The buffer may be mapped (or its mapping pending, which this aborts); it must
            // not be mapped when the host submits the copy into it.
            unmap(&self.device, &self.host_readback.buffer);
        }
        // From here on nothing of the replaced request survives, even if this one fails.
        self.readback_state = Readback::Idle;
        let bytes = HEADER_BYTES + RECORD_BYTES * prepared.pairs as u64;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.host_readback
            .reserve(&self.device, bytes, self.max_binding);
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(error.to_string()));
        }
        encoder.copy_buffer_to_buffer(
            &self.contacts.buffer,
            0,
            &self.host_readback.buffer,
            0,
            bytes,
        );
        let copied = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&copied);
        encoder.on_submitted_work_done(move || flag.store(true, Ordering::Release));
        self.readback_pairs.clone_from(&self.prepared_pairs);
        self.readback_state = Readback::Recorded { bytes, copied };
        Ok(())
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
        if let Readback::Idle = self.readback_state {
            return None;
        }
        // Runs the callbacks: the work-done one of the host's submit, then the mapping's.
        if let Err(e) = self.device.poll(wgpu::PollType::Poll) {
            return Some(self.fail_readback(out, e.into()));
        }
        if let Readback::Recorded { bytes, copied } = &self.readback_state {
            if !copied.load(Ordering::Acquire) {
                return self.still_waiting(out);
            }
            let bytes = *bytes;
            let done = Arc::new(Mutex::new(None));
            let slot = Arc::clone(&done);
            // Scoped: on a lost device the buffer is invalid, and wgpu would hand that error
            // to the host's uncaptured-error handler (which panics by default).
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            self.host_readback.buffer.slice(..bytes).map_async(
                wgpu::MapMode::Read,
                move |result| {
                    if let Ok(mut slot) = slot.lock() {
                        *slot = Some(result);
                    }
                },
            );
            if let Some(error) = pollster::block_on(scope.pop()) {
                return Some(self.fail_readback(out, Error::Device(error.to_string())));
            }
            self.readback_state = Readback::Mapping { bytes, done };
            if let Err(e) = self.device.poll(wgpu::PollType::Poll) {
                return Some(self.fail_readback(out, e.into()));
            }
        }
        let Readback::Mapping { bytes, done } = &self.readback_state else {
            return None;
        };
        let bytes = *bytes;
        let result = match done.lock() {
            Ok(mut slot) => slot.take(),
            Err(_) => Some(Err(wgpu::BufferAsyncError)),
        };
        let Some(result) = result else {
            return self.still_waiting(out);
        };
        self.readback_state = Readback::Idle;
        if let Err(e) = result {
            return Some(self.fail_readback(out, e.into()));
        }
        let slice = self.host_readback.buffer.slice(..bytes);
        self.records.clear();
        match slice.get_mapped_range() {
            Ok(view) => {
                let header: ContactsHeaderGpu =
                    bytemuck::pod_read_unaligned(&view[..HEADER_BYTES as usize]);
                // Bounded by the request's own batch (the kernel never appends more, and
                // the copy holds no more), whatever was prepared since.
                let count = (header.count as usize).min(self.readback_pairs.len());
                self.records.extend(
                    view[HEADER_BYTES as usize..][..count * RECORD_BYTES as usize]
                        .chunks_exact(RECORD_BYTES as usize)
                        .map(bytemuck::pod_read_unaligned::<ContactGpu>),
                );
            }
            Err(e) => return Some(self.fail_readback(out, Error::Device(e.to_string()))),
        }
        unmap(&self.device, &self.host_readback.buffer);
        out.clear();
        put_in_pair_order(&self.records, &mut self.slots, &self.readback_pairs, out);
        Some(Ok(()))
    }

    /// `None` while the readback is on its way, or an error if it never will arrive because
    /// the device is lost or destroyed: its callbacks then never run (a submission on a
    /// destroyed device never completes), and a host looping until the contacts arrive
    /// would wait forever.
    fn still_waiting(&mut self, out: &mut Vec<Contact>) -> Option<Result<(), Error>> {
        if self.device_lost() {
            return Some(self.fail_readback(
                out,
                Error::Device(
                    "the device was lost or destroyed before the readback arrived".into(),
                ),
            ));
        }
        None
    }

    /// Whether the device is lost or destroyed. wgpu has no query for it, but on such a
    /// device `map_async` fails at once, running its callback with an error before it
    /// returns; on a live device it only queues the mapping, which the unmap right after
    /// aborts. The probe buffer is used for nothing else, so this disturbs no work.
    fn device_lost(&self) -> bool {
        self.probe_refused.store(false, Ordering::Release);
        let flag = Arc::clone(&self.probe_refused);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.loss_probe
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |result| {
                if result.is_err() {
                    flag.store(true, Ordering::Release);
                }
            });
        let lost = self.probe_refused.load(Ordering::Acquire);
        // Aborts the queued mapping (its callback then reports the abort: read above, before).
        unmap(&self.device, &self.loss_probe);
        drop(pollster::block_on(scope.pop()));
        lost
    }

    /// Ends the pending readback with `error`: nothing is pending afterwards.
    fn fail_readback(&mut self, out: &mut Vec<Contact>, error: Error) -> Result<(), Error> {
        if let Readback::Mapping { .. } = self.readback_state {
            unmap(&self.device, &self.host_readback.buffer);
        }
        self.readback_state = Readback::Idle;
        out.clear();
        Err(error)
    }

    /// Writes the colliders' poses (and shape indices) to [`poses_buffer`](Self::poses_buffer)
    /// and [`collider_shapes_buffer`](Self::collider_shapes_buffer) for a renderer, without
    /// colliding anything: after `World::step`, `write_poses(world.colliders())` puts the
    /// stepped poses where a renderer draws from (the step itself uploaded the poses it
    /// started from). Errors, naming the collider, for a bad shape index or pose, and with
    /// [`Error::TooLarge`] for more colliders than a binding holds.
    pub fn write_poses(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        validate_batch(self.shapes.shapes().len(), colliders, &[])?;
        self.fit_colliders(colliders.len())?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.prepared = None;
        self.reserve(colliders.len(), 1);
        self.upload_colliders(colliders);
        if let Some(error) = pollster::block_on(scope.pop()) {
            self.bind_group = None;
            self.uploaded_shape_ids = None;
            return Err(Error::Device(error.to_string()));
        }
        Ok(())
    }

    /// Whether a readback was requested and has not been returned by
    /// [`poll_readback`](Self::poll_readback) yet.
    pub fn readback_pending(&self) -> bool {
        !matches!(self.readback_state, Readback::Idle)
    }

    // The buffers below grow when a batch needs more room: a larger one replaces the old.
    // A host that binds them rebuilds its bind group when one changes (`wgpu::Buffer`
    // compares by identity), or when `buffers_created` moves.

    /// The shape table (`array<Shape>` in `shaders/layout.wgsl`). Replaced when it grows:
    /// see [`buffers_created`](Self::buffers_created).
    pub fn shapes_buffer(&self) -> &wgpu::Buffer {
        &self.shapes.buffer.buffer
    }

    /// This step's pose of every collider (`array<Pose>`): what a renderer draws from.
    /// Replaced when it grows.
    pub fn poses_buffer(&self) -> &wgpu::Buffer {
        &self.poses.buffer
    }

    /// Each collider's shape index, in words `[0, collider count)` of this buffer
    /// (`array<u32>`; the words after them hold the pairs).
    pub fn collider_shapes_buffer(&self) -> &wgpu::Buffer {
        &self.indices.buffer
    }

    /// The compacted contacts of the last dispatch (`ContactList`): a count, then that many
    /// records in no particular order, each naming its pair.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.contacts.buffer
    }

    /// Per collider, how many contacts it is in (`array<u32>`), filled by
    /// [`record`](Self::record): nonzero means touching something.
    pub fn touching_buffer(&self) -> &wgpu::Buffer {
        &self.touching.buffer
    }
}
