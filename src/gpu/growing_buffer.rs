//! A buffer slot that grows and is reused ([`GrowingBuffer`]), for every kernel's storage,
//! uniforms and readbacks; and, for uniform buffers, writes of only the 256-byte slots that
//! changed since the last ([`GrowingBuffer::write_slots`]), so that a submit whose counts
//! and parameters are the last one's sends little. Re-exported by `plumbing.rs`, beside the
//! rest of what the kernels share.

use std::sync::Mutex;

/// A buffer that grows to the next power of two when asked for more, and is otherwise
/// reused.
pub(super) struct GrowingBuffer {
    pub(super) buffer: wgpu::Buffer,
    label: String,
    usage: wgpu::BufferUsages,
    /// Buffers created for this slot so far, the first included.
    pub(super) created: u64,
    /// What the buffer's first bytes hold, as far as [`GrowingBuffer::write_slots`] wrote
    /// them (a uniform buffer's): the rest is unknown. Behind a lock only so that the
    /// buffer can be shared by reference while a plan borrows it.
    held: Mutex<Vec<u8>>,
}

impl GrowingBuffer {
    /// A 256-byte buffer with `usage`, labelled for debuggers.
    pub(super) fn new(
        device: &wgpu::Device,
        label: impl Into<String>,
        usage: wgpu::BufferUsages,
    ) -> Self {
        let label = label.into();
        // 256 bytes: never empty (a zero-sized binding is invalid), and a whole alignment unit.
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&label),
            size: 256,
            usage,
            mapped_at_creation: false,
        });
        GrowingBuffer {
            buffer,
            label,
            usage,
            created: 1,
            held: Mutex::new(Vec::new()),
        }
    }

    /// Makes room for `size` bytes, growing to at most `cap` beyond that. Returns whether
    /// the buffer was replaced (its contents are then gone).
    pub(super) fn reserve(&mut self, device: &wgpu::Device, size: u64, cap: u64) -> bool {
        if self.buffer.size() >= size {
            return false;
        }
        let size = size.next_power_of_two().min(cap).max(size);
        self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&self.label),
            size: size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: self.usage,
            mapped_at_creation: false,
        });
        self.created += 1;
        self.held_bytes().clear();
        true
    }

    /// Writes `bytes` to the buffer's start, `slot` bytes at a time, skipping the slots
    /// that already hold theirs (a run of changed slots is one write). Returns the bytes
    /// written. Many of a submit's uniforms are the last submit's (the same counts and
    /// parameters from step to step): on a falling 1,500-body pile the GPU world's
    /// collision stage sent 14.9 kB of 256-byte slots a step, 3.6 kB of them changed, and
    /// its solver 21.8 kB, 11.3 kB changed. Every write to the buffer must come through
    /// here for what it holds to be known.
    pub(super) fn write_slots(&self, queue: &wgpu::Queue, bytes: &[u8], slot: usize) -> u64 {
        let mut held = self.held_bytes();
        let mut written = 0u64;
        let mut write = |range: std::ops::Range<usize>| {
            queue.write_buffer(&self.buffer, range.start as u64, &bytes[range.clone()]);
            written += range.len() as u64;
        };
        let mut run = None;
        for start in (0..bytes.len()).step_by(slot.max(1)) {
            let end = (start + slot).min(bytes.len());
            if held.get(start..end) == Some(&bytes[start..end]) {
                if let Some(first) = run.take() {
                    write(first..start);
                }
            } else {
                run.get_or_insert(start);
            }
        }
        if let Some(first) = run {
            write(first..bytes.len());
        }
        if held.len() < bytes.len() {
            held.resize(bytes.len(), 0);
        }
        held[..bytes.len()].copy_from_slice(bytes);
        written
    }

    /// The known contents, lock taken (a panic elsewhere that poisoned it left them as a
    /// completed write left them).
    fn held_bytes(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
