//! The host's renderer (STEP 3): a pipeline that binds the narrow phase's buffers and
//! draws every polygon in one instanced draw.

use wgpu_sat::GpuNarrowPhase;

use crate::{FAN_VERTICES, HALF_WORLD};

/// STEP 3: the host's renderer. It owns no polygon data: it binds the narrow phase's buffers.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    view: wgpu::Buffer,
    srgb_target: bool,
    /// The bind group and the buffers it was made from.
    bound: Option<(wgpu::BindGroup, [wgpu::Buffer; 4])>,
}

impl Renderer {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
    ) -> Renderer {
        let source = format!(
            "{}\n{}",
            wgpu_sat::gpu::LAYOUT_WGSL,
            include_str!("embed.wgsl")
        );
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("embed.wgsl"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let entry = |binding, visibility, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        // The storage buffers only in the vertex stage: that is where the 4-per-stage limit
        // and VERTEX_STORAGE apply, and the fragment stage needs none of them.
        let (vertex, storage) = (
            wgpu::ShaderStages::VERTEX,
            wgpu::BufferBindingType::Storage { read_only: true },
        );
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("embed"),
            entries: &[
                entry(
                    0,
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    wgpu::BufferBindingType::Uniform,
                ),
                entry(1, vertex, storage), // shapes_buffer()
                entry(2, vertex, storage), // poses_buffer()
                entry(3, vertex, storage), // collider_shapes_buffer()
                entry(4, vertex, storage), // touching_buffer()
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("embed"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("embed polygons"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[], // vertex pulling: everything comes from storage buffers
            },
            primitive: wgpu::PrimitiveState::default(), // triangle list, no culling
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("embed view"),
            size: 32,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Renderer {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            layout,
            view,
            srgb_target: format.is_srgb(),
            bound: None,
        }
    }

    /// Records a render pass drawing every collider into `target`, straight from `gpu`'s
    /// buffers. Must follow `gpu.record` in the same encoder (or an earlier submission).
    pub fn draw(
        &mut self,
        gpu: &GpuNarrowPhase,
        colliders: u32,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        (width, height): (u32, u32),
    ) {
        let buffers = [
            gpu.shapes_buffer(),
            gpu.poses_buffer(),
            gpu.collider_shapes_buffer(),
            gpu.touching_buffer(),
        ];
        // `prepare` may have replaced a buffer that grew; wgpu buffers compare by identity.
        if !matches!(&self.bound, Some((_, held)) if held.iter().eq(buffers)) {
            let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&self.view)
                .chain(buffers)
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("embed"),
                layout: &self.layout,
                entries: &entries,
            });
            self.bound = Some((group, buffers.map(Clone::clone)));
        }
        // Fit the world rectangle (plus a margin) into the target, keeping the aspect ratio.
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let half_height = HALF_WORLD.y.max(HALF_WORLD.x / aspect) * 1.03;
        let (sx, sy) = (1.0 / (half_height * aspect), 1.0 / half_height);
        let srgb = if self.srgb_target { 1.0 } else { 0.0 };
        let view: [f32; 8] = [0.0, 0.0, sx, sy, srgb, 0.0, 0.0, 0.0]; // as `View` in WGSL
        self.queue
            .write_buffer(&self.view, 0, bytemuck::cast_slice(&view));

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("embed polygons"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.006,
                        g: 0.008,
                        b: 0.012,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, self.bound.as_ref().map(|(g, _)| g), &[]);
        pass.draw(0..FAN_VERTICES, 0..colliders); // ONE draw for every polygon
    }
}
