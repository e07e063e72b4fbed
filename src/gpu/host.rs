//! [`HostPath`], the host-encoder path of [`GpuNarrowPhase`](super::GpuNarrowPhase): for a
//! program with a renderer of its own, which runs the narrow phase inside its frame on its
//! device, queue and encoder, and never waits for the GPU (glyphon's shape: prepare, then
//! record into the host's encoder). `GpuNarrowPhase` holds one and hands it the
//! [`SatPass`] whose buffers it fills; its public methods of the same names say what each
//! call promises.
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
//! Between these calls the results stay on the GPU, in the pass's buffers, for a renderer to
//! draw from. The blocking batch path ([`collide_pairs`](crate::NarrowPhase::collide_pairs))
//! is in `narrow_phase.rs`; both fill the same buffers with the same kernel.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::{Collider, NarrowPhaseTimings, validate_batch};
use crate::error::Error;
use crate::error::GpuError;
use crate::gpu::plumbing::{GrowingBuffer, unmap};
use crate::gpu::sat_pass::{ContactRecords, HEADER_BYTES, RECORD_BYTES, SatPass};

/// A batch written by `prepare`, ready for `record`.
#[derive(Clone, Copy, Debug)]
struct Prepared {
    colliders: usize,
    pairs: usize,
}

/// The host-driven readback: recorded into the host's encoder, then mapped without waiting.
/// The pairs it names are in `HostPath::readback_pairs`, not `prepared_pairs`: the host may
/// prepare other frames before it arrives.
enum Readback {
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

/// The host-encoder path's own state: the prepared batch, the pending readback and its
/// mappable buffer. The buffers it fills and records belong to the [`SatPass`] each call
/// is handed.
pub(super) struct HostPath {
    /// The readback's own mappable buffer and state.
    readback: GrowingBuffer,
    readback_state: Readback,
    /// A tiny mappable buffer used only to ask whether the device is lost (see
    /// `device_lost`), and the flag its mapping callback sets.
    loss_probe: wgpu::Buffer,
    probe_refused: Arc<AtomicBool>,
    /// The batch of the last `prepare`, and a copy of its pairs (for `request_readback` to
    /// take).
    prepared: Option<Prepared>,
    prepared_pairs: Vec<[u32; 2]>,
    /// Whether `record` ran for the prepared batch (an atomic: `record` takes `&self`).
    prepared_recorded: AtomicBool,
    /// The pairs of the batch the pending readback copies, taken from `prepared_pairs` by
    /// `request_readback`: they name the colliders of the contacts it returns, and their
    /// count bounds the records read. Kept and reused, so a warm host allocates nothing.
    readback_pairs: Vec<[u32; 2]>,
    records: ContactRecords,
}

impl HostPath {
    /// Creates the readback and loss-probe buffers; call inside an error scope.
    pub(super) fn new(device: &wgpu::Device) -> HostPath {
        let loss_probe = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat device loss probe"),
            size: wgpu::MAP_ALIGNMENT,
            usage: wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        HostPath {
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat host readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            readback_state: Readback::Idle,
            loss_probe,
            probe_refused: Arc::new(AtomicBool::new(false)),
            prepared: None,
            prepared_pairs: Vec::new(),
            prepared_recorded: AtomicBool::new(false),
            readback_pairs: Vec::new(),
            records: ContactRecords::default(),
        }
    }

    /// How many GPU buffers this path has created so far, the loss probe included.
    pub(super) fn buffers_created(&self) -> u64 {
        1 + self.readback.created
    }

    /// Forgets the prepared batch: another call wrote over its buffers.
    pub(super) fn unprepare(&mut self) {
        self.prepared = None;
    }

    /// Validates the batch and queues its writes; it must fit one dispatch.
    pub(super) fn prepare(
        &mut self,
        pass: &mut SatPass,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
    ) -> Result<(), Error> {
        self.prepared = None;
        pass.timings = NarrowPhaseTimings::default();
        let scope = pass
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let batch = pass.begin_batch(colliders, pairs)?;
        if pairs.len() > batch {
            return Err(Error::Gpu(GpuError::TooLarge {
                what: "pairs for one dispatch",
                count: pairs.len(),
                max: batch,
            }));
        }
        pass.write_batch(colliders, pairs);
        if let Some(error) = pollster::block_on(scope.pop()) {
            pass.invalidate();
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
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

    /// Records the prepared batch, and the touching counts, into the host's encoder.
    pub(super) fn record(
        &self,
        pass: &SatPass,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), Error> {
        let prepared = self.prepared.ok_or(Error::Gpu(GpuError::NotPrepared))?;
        let touching_bytes = (4 * prepared.colliders as u64).max(4);
        encoder.clear_buffer(pass.touching_buffer(), 0, Some(touching_bytes));
        // The contact count restarts here, not only in `prepare`'s queue write: recording
        // the same batch again (a frame whose poses did not change, or twice by mistake)
        // then appends to an empty list instead of past a full one.
        encoder.clear_buffer(pass.contacts_buffer(), 0, Some(HEADER_BYTES));
        if prepared.pairs > 0 {
            pass.encode_dispatch(encoder, prepared.pairs, true, None)?;
        }
        self.prepared_recorded.store(true, Ordering::Release);
        Ok(())
    }

    /// Records a copy of the recorded batch's contact list into the host's encoder, and
    /// takes the batch's pairs for the contacts it will return.
    pub(super) fn request_readback(
        &mut self,
        pass: &SatPass,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), Error> {
        let prepared = self.prepared.ok_or(Error::Gpu(GpuError::NotPrepared))?;
        if !self.prepared_recorded.load(Ordering::Acquire) {
            return Err(Error::Gpu(GpuError::NotRecorded));
        }
        let device = pass.device();
        if let Readback::Mapping { .. } = self.readback_state {
            // The buffer may be mapped (or its mapping pending, which this aborts); it must
            // not be mapped when the host submits the copy into it.
            unmap(device, &self.readback.buffer);
        }
        // From here on nothing of the replaced request survives, even if this one fails.
        self.readback_state = Readback::Idle;
        let bytes = HEADER_BYTES + RECORD_BYTES * prepared.pairs as u64;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.readback.reserve(device, bytes, pass.max_binding());
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        encoder.copy_buffer_to_buffer(pass.contacts_buffer(), 0, &self.readback.buffer, 0, bytes);
        let copied = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&copied);
        encoder.on_submitted_work_done(move || flag.store(true, Ordering::Release));
        self.readback_pairs.clone_from(&self.prepared_pairs);
        self.readback_state = Readback::Recorded { bytes, copied };
        Ok(())
    }

    /// Moves the pending readback on without waiting: `Some` once it has arrived (its
    /// contacts in `out`) or failed, `None` while it is on its way or when none is pending.
    pub(super) fn poll_readback_into(
        &mut self,
        device: &wgpu::Device,
        out: &mut Vec<Contact>,
    ) -> Option<Result<(), Error>> {
        if let Readback::Idle = self.readback_state {
            return None;
        }
        // Runs the callbacks: the work-done one of the host's submit, then the mapping's.
        if let Err(e) = device.poll(wgpu::PollType::Poll) {
            return Some(self.fail_readback(device, out, e.into()));
        }
        if let Readback::Recorded { bytes, copied } = &self.readback_state {
            if !copied.load(Ordering::Acquire) {
                return self.still_waiting(device, out);
            }
            let bytes = *bytes;
            let done = Arc::new(Mutex::new(None));
            let slot = Arc::clone(&done);
            // Scoped: on a lost device the buffer is invalid, and wgpu would hand that error
            // to the host's uncaptured-error handler (which panics by default).
            let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
            self.readback
                .buffer
                .slice(..bytes)
                .map_async(wgpu::MapMode::Read, move |result| {
                    if let Ok(mut slot) = slot.lock() {
                        *slot = Some(result);
                    }
                });
            if let Some(error) = pollster::block_on(scope.pop()) {
                return Some(self.fail_readback(
                    device,
                    out,
                    Error::Gpu(GpuError::Device(error.to_string())),
                ));
            }
            self.readback_state = Readback::Mapping { bytes, done };
            if let Err(e) = device.poll(wgpu::PollType::Poll) {
                return Some(self.fail_readback(device, out, e.into()));
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
            return self.still_waiting(device, out);
        };
        self.readback_state = Readback::Idle;
        if let Err(e) = result {
            return Some(self.fail_readback(device, out, e.into()));
        }
        match self.readback.buffer.slice(..bytes).get_mapped_range() {
            // Bounded by the request's own batch (the kernel never appends more, and the
            // copy holds no more), whatever was prepared since.
            Ok(view) => {
                self.records
                    .read_list(&view, self.readback_pairs.len(), usize::MAX);
            }
            Err(e) => {
                let error = Error::Gpu(GpuError::Device(e.to_string()));
                return Some(self.fail_readback(device, out, error));
            }
        }
        unmap(device, &self.readback.buffer);
        out.clear();
        self.records.put_in_pair_order(&self.readback_pairs, out);
        Some(Ok(()))
    }

    /// `None` while the readback is on its way, or an error if it never will arrive because
    /// the device is lost or destroyed: its callbacks then never run (a submission on a
    /// destroyed device never completes), and a host looping until the contacts arrive
    /// would wait forever.
    fn still_waiting(
        &mut self,
        device: &wgpu::Device,
        out: &mut Vec<Contact>,
    ) -> Option<Result<(), Error>> {
        if self.device_lost(device) {
            return Some(self.fail_readback(
                device,
                out,
                Error::Gpu(GpuError::Device(
                    "the device was lost or destroyed before the readback arrived".into(),
                )),
            ));
        }
        None
    }

    /// Whether the device is lost or destroyed. wgpu has no query for it, but on such a
    /// device `map_async` fails at once, running its callback with an error before it
    /// returns; on a live device it only queues the mapping, which the unmap right after
    /// aborts. The probe buffer is used for nothing else, so this disturbs no work.
    fn device_lost(&self, device: &wgpu::Device) -> bool {
        self.probe_refused.store(false, Ordering::Release);
        let flag = Arc::clone(&self.probe_refused);
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.loss_probe
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |result| {
                if result.is_err() {
                    flag.store(true, Ordering::Release);
                }
            });
        let lost = self.probe_refused.load(Ordering::Acquire);
        // Aborts the queued mapping (its callback then reports the abort: read above, before).
        unmap(device, &self.loss_probe);
        drop(pollster::block_on(scope.pop()));
        lost
    }

    /// Ends the pending readback with `error`: nothing is pending afterwards.
    fn fail_readback(
        &mut self,
        device: &wgpu::Device,
        out: &mut Vec<Contact>,
        error: Error,
    ) -> Result<(), Error> {
        if let Readback::Mapping { .. } = self.readback_state {
            unmap(device, &self.readback.buffer);
        }
        self.readback_state = Readback::Idle;
        out.clear();
        Err(error)
    }

    /// Writes the colliders' poses and shape ids, colliding nothing; the prepared batch is
    /// gone afterwards (its buffers were written over).
    pub(super) fn write_poses(
        &mut self,
        pass: &mut SatPass,
        colliders: &[Collider],
    ) -> Result<(), Error> {
        validate_batch(pass.shapes().len(), colliders, &[])?;
        pass.fit_colliders(colliders.len())?;
        let scope = pass
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        self.prepared = None;
        pass.reserve(colliders.len(), 1);
        pass.upload_colliders(colliders);
        if let Some(error) = pollster::block_on(scope.pop()) {
            pass.invalidate();
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        Ok(())
    }

    /// Whether a readback was requested and has not been returned yet.
    pub(super) fn readback_pending(&self) -> bool {
        !matches!(self.readback_state, Readback::Idle)
    }
}
