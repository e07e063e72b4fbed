//! What every host writes: its device (STEP 1), the narrow phase and the shape table
//! (STEP 2), and the frame (STEP 4, with STEP 5's readback request).

use wgpu_sat::{BroadPhase, GpuNarrowPhase, NarrowPhase};

use crate::Scene;
use crate::renderer::Renderer;
use crate::shared::Result;

/// STEP 1: the host's device. Fails with a clear message when the adapter cannot read
/// storage buffers in vertex shaders (the draw reads the narrow phase's buffers there).
pub fn request_device(adapter: &wgpu::Adapter) -> Result<(wgpu::Device, wgpu::Queue)> {
    let limits = adapter.limits();
    let vertex_storage = adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::VERTEX_STORAGE);
    if !vertex_storage || limits.max_storage_buffers_per_shader_stage < 4 {
        return Err(format!(
            "the adapter {:?} cannot read 4 storage buffers in a vertex shader \
             (DownlevelFlags::VERTEX_STORAGE), which this example draws from",
            adapter.get_info().name
        )
        .into());
    }
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("embed host device"),
        required_limits: wgpu::Limits {
            // The adapter's own sizes, so large batches fit in one dispatch.
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
            max_buffer_size: limits.max_buffer_size,
            ..wgpu::Limits::downlevel_defaults().using_resolution(limits)
        },
        ..Default::default()
    };
    Ok(pollster::block_on(adapter.request_device(&descriptor))?)
}

/// Everything a host keeps: its device and queue, the narrow phase, a broad phase, its scene
/// and its renderer.
pub struct Host {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub gpu: GpuNarrowPhase,
    pub broad: BroadPhase,
    pub scene: Scene,
    renderer: Renderer,
    /// Candidate pairs of the last frame.
    pub pairs: usize,
}

impl Host {
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        format: wgpu::TextureFormat,
        count: usize,
    ) -> Result<Host> {
        // STEP 2: the narrow phase on the host's device, and the shape table, once.
        let mut gpu = GpuNarrowPhase::new(&device, &queue)?;
        let scene = Scene::new(count);
        gpu.set_shapes(&scene.shapes)?;
        let renderer = Renderer::new(&device, &queue, format);
        Ok(Host {
            device,
            queue,
            gpu,
            broad: BroadPhase::new(),
            scene,
            renderer,
            pairs: 0,
        })
    }

    /// STEP 4: one frame, the part every host writes. Returns the encoder for the caller to
    /// add its own work (a present, a screenshot copy) and submit once.
    pub fn encode_frame(
        &mut self,
        t: f32,
        target: &wgpu::TextureView,
        size: (u32, u32),
        readback: bool,
    ) -> Result<wgpu::CommandEncoder> {
        self.scene.move_to(t); // poses and AABBs, on the CPU
        let pairs = self.broad.find_pairs(&self.scene.aabbs); // candidate pairs, on the CPU
        self.pairs = pairs.len();
        self.gpu.prepare(&self.scene.colliders, pairs)?; // queue.write_buffer only
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.gpu.record(&mut encoder)?; // SAT dispatch + per-collider touching counts
        if readback {
            self.gpu.request_readback(&mut encoder)?; // STEP 5: a copy, mapped later
        }
        let colliders = self.scene.colliders.len() as u32;
        self.renderer
            .draw(&self.gpu, colliders, &mut encoder, target, size); // same encoder
        Ok(encoder)
    }
}
