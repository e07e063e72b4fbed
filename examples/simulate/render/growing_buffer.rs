//! A GPU buffer that grows (doubling) when a write needs more room, and is otherwise
//! reused frame after frame.

/// A GPU buffer that is replaced by a larger one when it runs out of room, and otherwise
/// reused frame after frame.
pub(super) struct GrowingBuffer {
    pub(super) buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl GrowingBuffer {
    pub(super) fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
    ) -> Self {
        // Never empty: a zero-sized storage binding is invalid.
        let buffer = Self::create(device, label, usage, 4096);
        GrowingBuffer {
            buffer,
            label,
            usage,
        }
    }

    fn create(
        device: &wgpu::Device,
        label: &str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Writes `bytes` at the start, growing first if needed. True when the buffer was
    /// replaced, so bind groups that hold it must be rebuilt.
    pub(super) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        bytes: &[u8],
    ) -> bool {
        let needed = bytes.len() as u64;
        let grown = needed > self.buffer.size();
        if grown {
            // Doubling keeps the number of re-creations logarithmic while bodies are spawned.
            let size = needed.next_power_of_two().max(self.buffer.size() * 2);
            self.buffer = Self::create(device, self.label, self.usage, size);
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
        grown
    }
}
