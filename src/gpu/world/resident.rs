//! [`ResidentList`]: records that stay on the device from step to step (the bodies' states,
//! poses and infos of the GPU world's solver), with the host's copy of what the device
//! holds, so that a step sends only the records that differ from it.
//!
//! ```text
//! write(records): the buffer replaced, or another count of records: all of them up
//!     else the runs of records whose bytes differ from the host's copy, each one write
//!         (all of them in one write when the runs are many), and the copy follows
//! hold(records): kernels wrote the device's copy, and the host read it back: its copy
//!     follows, nothing sent
//! hold_changed(k, change): kernels of the coming submit will change record k so (before
//!     anything reads it): the host's copy follows, and the write sends nothing for it
//! forget(): the device's copy is unknown (a failed step): the next write sends all
//! ```
//!
//! Why it pays: the solver's own output is next step's input. The states and poses a step
//! reads back are on the device already, and the host changes few of them before the next
//! step (the continuous stage, sleep, edits); the infos change when forces or bodies do.
//! Records compare by their bytes, so a changed sign of zero or a NaN's payload goes up too.

use bytemuck::Pod;

use crate::gpu::plumbing::GrowingBuffer;

/// Runs of changed records past which one write of the whole list is sent instead: each
/// write is a staging copy and a command of its own.
const MAX_RUNS: usize = 64;

/// A list of `T` kept on the device in a buffer of its own, and the host's copy of it.
pub(in crate::gpu) struct ResidentList<T: Pod> {
    pub(in crate::gpu) buffer: GrowingBuffer,
    /// What the device holds, record for record; `None` when unknown.
    held: Option<Vec<T>>,
    /// Where the runs of changed records start and end, reused.
    runs: Vec<(usize, usize)>,
}

impl<T: Pod> ResidentList<T> {
    /// An empty list in `buffer`, whose contents are unknown.
    pub(in crate::gpu) fn new(buffer: GrowingBuffer) -> Self {
        ResidentList {
            buffer,
            held: None,
            runs: Vec::new(),
        }
    }

    /// Makes the device hold `records` (growing the buffer to at most `cap` bytes beyond
    /// their size). Returns the bytes sent.
    pub(in crate::gpu) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        records: &[T],
        cap: u64,
    ) -> u64 {
        let replaced = self
            .buffer
            .reserve(device, size_of_val(records) as u64, cap);
        let held = match self.held.as_mut() {
            Some(held) if !replaced && held.len() == records.len() => held,
            _ => return self.write_all(queue, records),
        };
        self.runs.clear();
        let mut k = 0;
        while k < records.len() {
            if bytemuck::bytes_of(&held[k]) == bytemuck::bytes_of(&records[k]) {
                k += 1;
                continue;
            }
            let start = k;
            while k < records.len()
                && bytemuck::bytes_of(&held[k]) != bytemuck::bytes_of(&records[k])
            {
                k += 1;
            }
            self.runs.push((start, k));
            if self.runs.len() > MAX_RUNS {
                return self.write_all(queue, records);
            }
        }
        let mut sent = 0;
        for &(start, end) in &self.runs {
            let bytes = bytemuck::cast_slice(&records[start..end]);
            let at = (start * size_of::<T>()) as u64;
            queue.write_buffer(&self.buffer.buffer, at, bytes);
            held[start..end].copy_from_slice(&records[start..end]);
            sent += bytes.len() as u64;
        }
        sent
    }

    /// Every record up, and the host's copy made anew.
    fn write_all(&mut self, queue: &wgpu::Queue, records: &[T]) -> u64 {
        if !records.is_empty() {
            queue.write_buffer(&self.buffer.buffer, 0, bytemuck::cast_slice(records));
        }
        let held = self.held.get_or_insert_with(Vec::new);
        held.clear();
        held.extend_from_slice(records);
        size_of_val(records) as u64
    }

    /// The device holds `records` (written there by kernels, and read back): the host's
    /// copy follows.
    pub(in crate::gpu) fn hold(&mut self, records: impl ExactSizeIterator<Item = T>) {
        let held = self.held.get_or_insert_with(Vec::new);
        held.clear();
        held.extend(records);
    }

    /// Record `k` on the device is `record` (a kernel wrote it, and the host knows its
    /// bits): the host's copy follows, when it has one.
    pub(in crate::gpu) fn hold_at(&mut self, k: usize, record: T) {
        if let Some(held) = self.held.as_mut().and_then(|held| held.get_mut(k)) {
            *held = record;
        }
    }

    /// Record `k` on the device will be `held` changed by `change` (kernels of the coming
    /// submit change it so, before anything reads it): the host's copy follows, when it
    /// has one, and a write of the changed record sends nothing for it.
    pub(in crate::gpu) fn hold_changed(&mut self, k: usize, change: impl FnOnce(&mut T)) {
        if let Some(held) = self.held.as_mut().and_then(|held| held.get_mut(k)) {
            change(held);
        }
    }

    /// The device's records are unknown (a step failed on it): the next write sends all.
    pub(in crate::gpu) fn forget(&mut self) {
        self.held = None;
    }
}
