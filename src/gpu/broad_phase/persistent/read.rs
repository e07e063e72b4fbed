//! The persistent face's readback: the new set's size and the begun and ended pairs that
//! submit 2 copied back, and, when the changes outgrew that first copy, one more copy of
//! them all.

use super::{HEAD_BYTES, Persistent, SPARE_CHANGES};
use crate::error::Error;
use crate::gpu::broad_phase::{GpuBroadPhase, read_ticks};
use crate::gpu::plumbing::read_back;

impl GpuBroadPhase {
    /// Reads submit 2's copy back (and, when the changes outgrew it, copies them again):
    /// the new set's size, the begun and ended pairs. Returns the bytes read.
    pub(super) fn read_changes(
        &mut self,
        state: &mut Persistent,
        total: usize,
    ) -> Result<u64, Error> {
        let copies = first_copies(state, total);
        let bytes = HEAD_BYTES + 8 * (copies[0] + copies[1]) as u64;
        let timer = self.timers[1].as_ref();
        let mut head = [0u32; 3];
        let mut second = None;
        let (begun, ended) = (&mut state.begun, &mut state.ended);
        read_back(&self.device, &state.readback.buffer, bytes, |view| {
            head = bytemuck::pod_read_unaligned(&view[..12]);
            second = read_ticks(view, 16, timer);
            let fits = head[1] as usize <= copies[0] && head[2] as usize <= copies[1];
            if fits {
                let lists = bytemuck::cast_slice::<u8, [u32; 2]>(&view[HEAD_BYTES as usize..]);
                begun.clear();
                begun.extend_from_slice(&lists[..head[1] as usize]);
                ended.clear();
                ended.extend_from_slice(&lists[copies[0]..copies[0] + head[2] as usize]);
            }
        })?;
        if let (Some(first), Some(second)) = (self.kernel, second) {
            self.kernel = Some(first + second);
        }
        let [count, begun_count, ended_count] = head.map(|c| c as usize);
        let mut read = bytes;
        if begun_count > copies[0] || ended_count > copies[1] {
            read += self.read_all_changes(state, [begun_count, ended_count])?;
        }
        state.current = 1 - state.current;
        state.count = count;
        Ok(read)
    }

    /// One more copy, of every change: when they outgrew the first.
    fn read_all_changes(
        &mut self,
        state: &mut Persistent,
        counts: [usize; 2],
    ) -> Result<u64, Error> {
        let bytes = 8 * (counts[0] + counts[1]) as u64;
        state
            .readback
            .reserve(&self.device, bytes, self.max_binding);
        let readback = &state.readback.buffer;
        let mut encoder = self.encoder();
        let mut at = 0;
        for (side, &count) in counts.iter().enumerate() {
            if count > 0 {
                let len = 8 * count as u64;
                encoder.copy_buffer_to_buffer(&state.changes[side].buffer, 0, readback, at, len);
                at += len;
            }
        }
        self.queue.submit([encoder.finish()]);
        let (begun, ended) = (&mut state.begun, &mut state.ended);
        read_back(&self.device, readback, bytes.max(4), |view| {
            let lists = bytemuck::cast_slice::<u8, [u32; 2]>(&view[..bytes as usize]);
            begun.clear();
            begun.extend_from_slice(&lists[..counts[0]]);
            ended.clear();
            ended.extend_from_slice(&lists[counts[0]..]);
        })?;
        Ok(bytes)
    }
}

/// The begun and ended pairs submit 2 copies back with the counts, of an update whose sweep
/// found `total` pairs: twice the last update's of each kind and `SPARE_CHANGES` more,
/// within what there can be (the found pairs, the old set).
pub(super) fn first_copies(state: &Persistent, total: usize) -> [usize; 2] {
    [
        total.min(2 * state.begun.len() + SPARE_CHANGES),
        state.count.min(2 * state.ended.len() + SPARE_CHANGES),
    ]
}
