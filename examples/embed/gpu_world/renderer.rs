//! STEP W3: the host's renderer for the GPU world. It owns the boxes' sizes and colours
//! (uploaded once) and no pose: the vertex shader reads each body's transform from the GPU
//! world's buffer, bound read-only, by body slot.

use wgpu::util::DeviceExt;

use super::{BoxGpu, VIEW_CENTER, VIEW_HALF_HEIGHT};

/// Vertices per body: a quad as two triangles.
const QUAD_VERTICES: u32 = 6;

/// As `View` in `bodies.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct ViewGpu {
    center: [f32; 2],
    scale: [f32; 2],
    srgb_target: u32,
    _pad: [u32; 3],
}
const _: () = assert!(size_of::<ViewGpu>() == 32);

/// Draws every body of a GPU world as a box, in one instanced draw (instance = body slot).
pub struct BodyRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    view: wgpu::Buffer,
    /// The view as last written: written again only when the target's size changes.
    written_view: Option<ViewGpu>,
    boxes: wgpu::Buffer,
    bodies: u32,
    srgb_target: bool,
    /// The bind group and the transforms buffer it holds.
    bound: Option<(wgpu::BindGroup, wgpu::Buffer)>,
}

impl BodyRenderer {
    /// A pipeline drawing into textures of `format`, and `boxes` (one per body slot)
    /// uploaded once.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        boxes: &[BoxGpu],
    ) -> BodyRenderer {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("embed bodies.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("bodies.wgsl").into()),
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
        let storage = wgpu::BufferBindingType::Storage { read_only: true };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("embed bodies"),
            entries: &[
                entry(
                    0,
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    wgpu::BufferBindingType::Uniform,
                ),
                entry(1, wgpu::ShaderStages::VERTEX, storage), // gpu_world.transforms()
                entry(2, wgpu::ShaderStages::VERTEX, storage), // the host's boxes
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("embed bodies"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("embed bodies"),
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
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("embed bodies view"),
            size: size_of::<ViewGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // Never empty: a zero-sized storage binding is invalid.
        let padded = if boxes.is_empty() {
            &[BoxGpu::default()][..]
        } else {
            boxes
        };
        let boxes_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("embed boxes"),
            contents: bytemuck::cast_slice(padded),
            usage: wgpu::BufferUsages::STORAGE,
        });
        BodyRenderer {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            layout,
            view,
            written_view: None,
            boxes: boxes_buffer,
            bodies: boxes.len() as u32,
            srgb_target: format.is_srgb(),
            bound: None,
        }
    }

    /// Records a render pass that clears `target` and draws every body from `transforms`
    /// (`GpuWorld::transforms`). The pass reads what the queue's earlier submissions (the
    /// step) wrote there.
    pub fn draw(
        &mut self,
        transforms: &wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        (width, height): (u32, u32),
    ) {
        // A GPU world keeps its buffer while its bodies stay; bound again if it changes
        // (wgpu buffers compare by identity).
        if !matches!(&self.bound, Some((_, held)) if held == transforms) {
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("embed bodies"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.view.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: transforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.boxes.as_entire_binding(),
                    },
                ],
            });
            self.bound = Some((group, transforms.clone()));
        }
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let view = ViewGpu {
            center: VIEW_CENTER.to_array(),
            scale: [1.0 / (VIEW_HALF_HEIGHT * aspect), 1.0 / VIEW_HALF_HEIGHT],
            srgb_target: self.srgb_target as u32,
            _pad: [0; 3],
        };
        if self.written_view != Some(view) {
            self.queue
                .write_buffer(&self.view, 0, bytemuck::bytes_of(&view));
            self.written_view = Some(view);
        }

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("embed bodies"),
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
        pass.draw(0..QUAD_VERTICES, 0..self.bodies); // ONE draw for every body
    }

    /// Bodies drawn: one instance per body slot.
    pub fn bodies(&self) -> u32 {
        self.bodies
    }
}
