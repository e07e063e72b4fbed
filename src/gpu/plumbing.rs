//! The GPU plumbing both kernels share: buffers that grow and are reused, bind group layout
//! entries, pipelines, the shape-table upload, and a blocking readback.
//!
//! Why a room of its own: [`GpuNarrowPhase`](super::GpuNarrowPhase) (`narrow_phase.rs`,
//! `host.rs`) and [`GpuTimeOfImpact`](super::GpuTimeOfImpact) (`toi.rs`) build their passes
//! from the same few pieces, and neither should reach into the other for them.
//!
//! ```text
//! GrowingBuffer     a buffer slot: grows to the next power of two (within the binding
//!                   limit) when a batch needs more, else is reused; counts what it created
//! storage, uniform  compute-stage bind group layout entries
//! compute_pipeline  a pipeline with one explicit bind group layout (shareable, unlike an
//!                   automatic one)
//! upload_shapes     shape table -> `array<Shape>` (ShapeGpu records)
//! read_back         map_async, wait for the device, read, unmap
//! unmap             unmap inside an error scope (a lost device must not panic the host)
//! ```

use std::sync::mpsc;
use std::time::Instant;

use crate::error::Error;
use crate::gpu::layout::ShapeGpu;
use crate::shape::Shape;

/// A buffer that grows to the next power of two when asked for more, and is otherwise
/// reused.
pub(super) struct GrowingBuffer {
    pub(super) buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
    /// Buffers created for this slot so far, the first included.
    pub(super) created: u64,
}

impl GrowingBuffer {
    /// A 256-byte buffer with `usage`, labelled for debuggers.
    pub(super) fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
    ) -> Self {
        // 256 bytes: never empty (a zero-sized binding is invalid), and a whole alignment unit.
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 256,
            usage,
            mapped_at_creation: false,
        });
        GrowingBuffer {
            buffer,
            label,
            usage,
            created: 1,
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
            label: Some(self.label),
            size: size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: self.usage,
            mapped_at_creation: false,
        });
        self.created += 1;
        true
    }
}

/// A compute-stage storage buffer binding of any size.
pub(super) fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A compute-stage uniform buffer binding of `size` bytes (the size of its struct).
pub(super) fn uniform(binding: u32, size: usize) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            // The pipeline checks the bound buffer's size once, at bind time, not per draw.
            min_binding_size: wgpu::BufferSize::new(size as u64),
        },
        count: None,
    }
}

/// A compute pipeline running `entry_point` of `module`, with `layout` as its only bind
/// group (an explicit layout, so several pipelines and their bind groups can share it).
pub(super) fn compute_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    entry_point: &'static str,
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry_point),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group entry binding the whole of `buffer`.
pub(super) fn entire(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// Writes a shape table into `buffer` (grown if needed, within `max_binding`) as
/// `ShapeGpu` records. Returns whether the buffer was replaced (bind groups holding it
/// must be rebuilt). Errors when the table cannot fit in one binding.
pub(super) fn upload_shapes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &mut GrowingBuffer,
    max_binding: u64,
    shapes: &[Shape],
) -> Result<bool, Error> {
    let max = (max_binding / size_of::<ShapeGpu>() as u64) as usize;
    if shapes.len() > max {
        return Err(Error::TooLarge {
            what: "shapes",
            count: shapes.len(),
            max,
        });
    }
    let data: Vec<ShapeGpu> = shapes.iter().map(ShapeGpu::from).collect();
    let bytes: &[u8] = bytemuck::cast_slice(&data);
    let replaced = buffer.reserve(device, bytes.len() as u64, max_binding);
    if !bytes.is_empty() {
        queue.write_buffer(&buffer.buffer, 0, bytes);
    }
    Ok(replaced)
}

/// A shape table on the device: its storage buffer and the table it holds, shared by every
/// kernel that reads shapes (the narrow phase, time of impact, ray casts).
pub(super) struct ShapeTable {
    pub(super) buffer: GrowingBuffer,
    uploaded: Vec<Shape>,
}

impl ShapeTable {
    pub(super) fn new(device: &wgpu::Device, label: &'static str) -> ShapeTable {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        ShapeTable {
            buffer: GrowingBuffer::new(device, label, usage),
            uploaded: Vec::new(),
        }
    }

    /// The table the buffer holds (empty after a device error: unknown).
    pub(super) fn shapes(&self) -> &[Shape] {
        &self.uploaded
    }

    /// Makes the buffer hold `shapes`, uploading only when it holds another table; returns
    /// whether the table changed. The write runs in an error scope, so that a lost device
    /// comes back as an error rather than reaching the host's uncaptured-error handler.
    /// `bind_group` (the caller's, holding the buffer) is dropped when the buffer was
    /// replaced or its contents became unknown (a device error: the next call uploads
    /// whatever table it gets). A table too large for one binding is an error that leaves
    /// the last one in place.
    pub(super) fn set(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        max_binding: u64,
        shapes: &[Shape],
        bind_group: &mut Option<wgpu::BindGroup>,
    ) -> Result<bool, Error> {
        if shapes == self.uploaded.as_slice() {
            return Ok(false);
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let uploaded = upload_shapes(device, queue, &mut self.buffer, max_binding, shapes);
        let device_error = pollster::block_on(scope.pop());
        if uploaded? {
            *bind_group = None;
        }
        self.uploaded.clear();
        if let Some(error) = device_error {
            *bind_group = None;
            return Err(Error::Device(error.to_string()));
        }
        self.uploaded.extend_from_slice(shapes);
        Ok(true)
    }
}

/// Maps the first `bytes` of a readback buffer, waits for the device, hands the bytes to
/// `read`, and unmaps. Returns when the data became ready (after the device's work).
pub(super) fn read_back(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    bytes: u64,
    read: impl FnOnce(&[u8]),
) -> Result<Instant, Error> {
    let slice = buffer.slice(..bytes);
    let (sender, receiver) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        // The receiver outlives the poll below; a failed send means nobody waits.
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let ready = Instant::now();
    receiver
        .recv()
        .map_err(|_| Error::Device("the readback was never completed".into()))??;
    {
        let view = slice
            .get_mapped_range()
            .map_err(|e| Error::Device(e.to_string()))?;
        read(&view);
    }
    unmap(device, buffer);
    Ok(ready)
}

/// Unmaps `buffer` inside an error scope: on a destroyed device the buffer is destroyed too,
/// and wgpu would hand the complaint to the host's uncaptured-error handler (which panics by
/// default). There is nothing left to release then, so the error is dropped.
pub(super) fn unmap(device: &wgpu::Device, buffer: &wgpu::Buffer) {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    buffer.unmap();
    drop(pollster::block_on(scope.pop()));
}
