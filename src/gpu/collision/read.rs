//! The collision stage's readback (`GpuCollision::receive`): the dispatch and the contacts
//! read back after a submit, checked (the placed boxes' band entries, the pairs against
//! their room, the records against theirs), and placed in pair order; the records the
//! first copy missed in one more copy.

use std::time::Instant;

use super::{DISPATCH_BYTES, END_BYTES, GpuCollision, HEAD_BYTES, Pending, grown_room};
use crate::collision::narrow_phase::Collider;
use crate::error::{Error, GpuError};
use crate::gpu::layout::PairDispatchGpu;
use crate::gpu::plumbing::read_back;
use crate::gpu::sat_pass::{HEADER_BYTES, RECORD_BYTES};

impl GpuCollision {
    /// Waits for a submit and reads it back: the contacts in `self.contacts` and `true`,
    /// or `false` when the pairs outgrew their room (the room is grown for the next submit,
    /// and nothing else is kept).
    pub(super) fn receive(
        &mut self,
        colliders: &[Collider],
        pending: Pending,
    ) -> Result<bool, Error> {
        let Pending {
            entries,
            room,
            most_pairs,
            records: record_room,
            expected,
            submitted,
        } = pending;
        let device = self.sat.device().clone();
        let list_bytes = HEADER_BYTES + RECORD_BYTES * expected as u64;
        let ends_at = (HEAD_BYTES + list_bytes) as usize;
        let first_copy = ends_at as u64 + END_BYTES * expected as u64;
        let mut dispatch: PairDispatchGpu = bytemuck::Zeroable::zeroed();
        let (records, ends) = (&mut self.records, &mut self.end_scratch);
        let (mut count, mut ticks) = (0, [0u64; 2]);
        let readback = &self.readback.buffer;
        let ready = read_back(&device, readback, first_copy, |view| {
            dispatch = bytemuck::pod_read_unaligned(&view[..DISPATCH_BYTES as usize]);
            ticks = bytemuck::pod_read_unaligned(&view[DISPATCH_BYTES as usize..][..16]);
            let list = &view[HEAD_BYTES as usize..][..list_bytes as usize];
            count = records.read_list(list, dispatch.pairs as usize, expected);
            ends.clear();
            let here = count.min(expected) * END_BYTES as usize;
            ends.extend(
                view[ends_at..][..here]
                    .chunks_exact(END_BYTES as usize)
                    .map(bytemuck::pod_read_unaligned::<[u32; 2]>),
            );
        })?;
        self.sat.timings.dispatch += ready - submitted;
        self.sat.timings.read_back_bytes += first_copy;
        if let Some(t) = &self.timer {
            let kernel = self.sat.timings.kernel.unwrap_or_default();
            self.sat.timings.kernel = Some(kernel + t.elapsed(ticks));
        }
        if self.place_from.is_some() && dispatch.entries != entries {
            // The boxes placed on the device are not the host's (an adapter that rounds
            // otherwise, a transforms buffer a host wrote to): again, with the host's sent.
            // (`entries` is the band entries they span, or over a set their hash.)
            self.place_from = None;
            self.placed_early = false;
            self.resident.invalidate();
            self.placement_misses += 1;
            self.started = Instant::now();
            return Ok(false);
        }
        if self.over_set.is_some() && !self.recycling.check(dispatch.fresh_hash) {
            // The device's recycling pass found other fresh pairs than the world's (an
            // adapter that rounds otherwise): again, with the world's bits sent.
            self.started = Instant::now();
            return Ok(false);
        }
        let total = dispatch.total as usize;
        if total > most_pairs {
            return Err(Error::Gpu(GpuError::TooLarge {
                what: "pairs",
                count: total,
                max: most_pairs,
            }));
        }
        if total > room {
            // The sweep found more pairs than it had room for: again, with room for them
            // all (and the usual headroom). The next submit's upload time counts from here.
            self.room = grown_room(total);
            self.started = Instant::now();
            return Ok(false);
        }
        if count > record_room {
            return Err(Error::Gpu(GpuError::TooLarge {
                what: "contacts",
                count,
                max: record_room,
            }));
        }
        if count > expected {
            self.read_rest(expected, count)?;
        }
        self.expected_contacts = count + count / 4;
        let pairs = dispatch.pairs as usize;
        self.records
            .put_in_found_order(&self.end_scratch, pairs, &mut self.contacts);
        self.sat.timings.readback += ready.elapsed();
        self.pair_count = total;
        self.room = grown_room(total).max(colliders.len());
        if self.over_set.is_some() {
            self.recycling
                .commit(dispatch.merge_hash, dispatch.warm_hash);
        }
        Ok(true)
    }

    /// The records (and their ends) from `from` to `count`, which the first copy missed.
    fn read_rest(&mut self, from: usize, count: usize) -> Result<(), Error> {
        let device = self.sat.device().clone();
        let rest = (count - from) as u64;
        let (record_bytes, end_bytes) = (RECORD_BYTES * rest, END_BYTES * rest);
        self.readback
            .reserve(&device, record_bytes + end_bytes, self.sat.max_binding());
        let readback = &self.readback.buffer;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-sat collision rest"),
        });
        let records_at = HEADER_BYTES + RECORD_BYTES * from as u64;
        let contacts = self.sat.contacts_buffer();
        encoder.copy_buffer_to_buffer(contacts, records_at, readback, 0, record_bytes);
        let ends_at = END_BYTES * from as u64;
        encoder.copy_buffer_to_buffer(
            &self.ends.buffer,
            ends_at,
            readback,
            record_bytes,
            end_bytes,
        );
        self.sat.queue().submit([encoder.finish()]);
        let (records, ends) = (&mut self.records, &mut self.end_scratch);
        read_back(&device, readback, record_bytes + end_bytes, |view| {
            records.read_more(&view[..record_bytes as usize]);
            ends.extend(
                view[record_bytes as usize..]
                    .chunks_exact(END_BYTES as usize)
                    .map(bytemuck::pod_read_unaligned::<[u32; 2]>),
            );
        })?;
        self.sat.timings.read_back_bytes += record_bytes + end_bytes;
        Ok(())
    }
}
