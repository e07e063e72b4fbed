//! Drawing a [`World`]: the camera, and a renderer shared by the window and the headless
//! screenshot (same pipelines, same shaders; only the target format differs).
//!
//! Every body is drawn by one instanced draw call. The vertex shader pulls each collider's
//! instance (24 bytes: shape, body slot, flags, pose) from a storage buffer, its polygon
//! from the shape table (uploaded only when the world's table changes), and its pose from
//! one of two places, as the camera uniform's `pose_source` says:
//!
//! - the instance, when the host steps the world: the instances are rewritten each frame
//!   with `queue.write_buffer` into a reused buffer;
//! - a GPU world's transforms buffer (`GpuWorld::transforms`, bound read-only), by body slot,
//!   when the GPU world steps it: the device writes the poses, and the instances are
//!   written only when its colliders may have changed (the GPU world built again, bodies
//!   added or removed: its generation changes), so a frame uploads no poses and reads
//!   nothing back. A transforms buffer replaced (by one with room for more bodies) is
//!   bound again.
//!
//! Nothing per vertex is built on the CPU. The contact overlay is a second, small line-list
//! pipeline fed from a per-frame vertex buffer.
//!
//! The split into `prepare` (uploads) and `draw` (records into a render pass) follows
//! glyphon: a host with its own render pass can call `draw` inside it.
//!
//! The instances are built in `instances.rs`, the shape table's entries in
//! `shape_table.rs`, the overlay's lines in `overlay.rs`; `growing_buffer.rs` holds the
//! buffers that grow with the world.

mod growing_buffer;
mod instances;
mod overlay;
mod shape_table;

use bytemuck::{Pod, Zeroable};
use wgpu_sat::glam::{UVec2, Vec2};
use wgpu_sat::{Aabb, BodyId, MAX_POLYGON_VERTICES, Shape, World};

use growing_buffer::GrowingBuffer;
pub use instances::DeviceTransforms;
use instances::{InstanceGpu, Written, collider_instances};
use overlay::{contact_lines, joint_lines, ray_fan_lines, sensor_lines};
use shape_table::shape_gpu;

/// Vertices per instance: a fan of `MAX_POLYGON_VERTICES - 2` triangles.
const FAN_VERTICES: u32 = 3 * (MAX_POLYGON_VERTICES as u32 - 2);
/// [`CameraGpu::pose_source`]: the pose is in the instance.
const POSE_IN_INSTANCE: u32 = 0;
/// [`CameraGpu::pose_source`]: the pose is in the transforms buffer, at the body's slot.
const POSE_FROM_TRANSFORMS: u32 = 1;
/// Background, in sRGB.
const BACKGROUND: [f64; 3] = [0.09, 0.10, 0.12];

/// One shape-table entry, as `Shape` in `render.wgsl`: a polygon's vertices, or a circle
/// (count 1) with its centre in slot 0.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct ShapeGpu {
    vertices: [[f32; 2]; MAX_POLYGON_VERTICES],
    count: u32,
    /// A circle's radius; 0 for a polygon.
    radius: f32,
}
const _: () = assert!(size_of::<ShapeGpu>() == 72);

/// As `Camera` in `render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraGpu {
    center: [f32; 2],
    scale: [f32; 2],
    selected: u32,
    srgb_target: u32,
    /// [`POSE_IN_INSTANCE`] or [`POSE_FROM_TRANSFORMS`].
    pose_source: u32,
    _pad: u32,
}
const _: () = assert!(size_of::<CameraGpu>() == 32);

/// A vertex of the contact overlay.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct LineVertex {
    position: [f32; 2],
    /// RGBA8, sRGB, red in the lowest byte (`Unorm8x4`).
    color: [u8; 4],
}

/// A 2D camera, y up. `half_height` world units fit between the centre and the top edge;
/// the width follows from the viewport's aspect ratio, so resizing never stretches.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub center: Vec2,
    pub half_height: f32,
    /// Target size in physical pixels.
    pub viewport: UVec2,
}

impl Camera {
    /// A camera showing all of `bounds` with a small margin.
    pub fn framing(bounds: Aabb, viewport: UVec2) -> Camera {
        let mut camera = Camera {
            center: bounds.center(),
            half_height: 1.0,
            viewport,
        };
        let half = 0.5 * bounds.size() * 1.05;
        camera.half_height = half.y.max(half.x / camera.aspect()).max(1.0);
        camera
    }

    fn aspect(&self) -> f32 {
        self.viewport.x.max(1) as f32 / self.viewport.y.max(1) as f32
    }

    fn half_extent(&self) -> Vec2 {
        Vec2::new(self.half_height * self.aspect(), self.half_height)
    }

    /// World length of one pixel.
    pub fn world_per_pixel(&self) -> f32 {
        2.0 * self.half_height / self.viewport.y.max(1) as f32
    }

    /// The world point under a pixel position (origin top left, y down).
    pub fn screen_to_world(&self, pixel: Vec2) -> Vec2 {
        let size = self.viewport.max(UVec2::ONE).as_vec2();
        let ndc = Vec2::new(2.0 * pixel.x / size.x - 1.0, 1.0 - 2.0 * pixel.y / size.y);
        self.center + ndc * self.half_extent()
    }

    /// Zooms by `factor` (below 1 zooms in) keeping the world point under `pixel` in place.
    pub fn zoom_about(&mut self, pixel: Vec2, factor: f32) {
        let anchor = self.screen_to_world(pixel);
        let old = self.half_height;
        self.half_height = (old * factor).clamp(0.5, 1.0e5);
        self.center = anchor + (self.center - anchor) * (self.half_height / old);
    }

    /// Moves the view so that the scene follows a drag of `delta` pixels.
    pub fn pan_pixels(&mut self, delta: Vec2) {
        self.center -= Vec2::new(delta.x, -delta.y) * self.world_per_pixel();
    }

    fn uniform(&self, selected: Option<BodyId>, srgb_target: bool, pose_source: u32) -> CameraGpu {
        CameraGpu {
            center: self.center.to_array(),
            scale: (1.0 / self.half_extent()).to_array(),
            // The shader tells bodies apart by slot, as `InstanceGpu::body` names them.
            selected: selected.map_or(u32::MAX, |b| b.index() as u32),
            srgb_target: srgb_target as u32,
            pose_source,
            _pad: 0,
        }
    }
}

/// The union of all bodies' AABBs, or `None` for an empty world.
pub fn scene_bounds(world: &World) -> Option<Aabb> {
    world
        .bodies()
        .map(|b| world.body_aabb(b))
        .reduce(|a, b| a.union(&b))
}

/// What to draw besides the bodies.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrawOptions {
    /// Contact points (crosses) and their normals (lines from A to B).
    pub show_contacts: bool,
    /// A body to highlight: the one being dragged.
    pub selected: Option<BodyId>,
    /// Where to cast a fan of rays from (world frame), drawing each to its first hit.
    pub ray_fan: Option<Vec2>,
}

/// Draws a world: bodies, and optionally its contacts.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    srgb_target: bool,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: wgpu::BindGroup,
    polygon_pipeline: wgpu::RenderPipeline,
    line_pipeline: wgpu::RenderPipeline,
    camera: wgpu::Buffer,
    shapes: GrowingBuffer,
    instances: GrowingBuffer,
    lines: GrowingBuffer,
    /// What the bind group's transforms binding holds while the poses are in the instances
    /// (a binding cannot be left empty): one transform, never read.
    no_transforms: wgpu::Buffer,
    /// The GPU world's transforms buffer in the bind group, if any: a new GPU world has a
    /// new buffer, and the bind group is made again.
    bound_transforms: Option<wgpu::Buffer>,
    /// The shape table as last uploaded: re-uploaded only when the world's differs.
    uploaded_shapes: Vec<Shape>,
    /// What the instances buffer holds.
    written: Written,
    instance_scratch: Vec<InstanceGpu>,
    line_scratch: Vec<LineVertex>,
    instance_count: u32,
    line_vertex_count: u32,
}

impl Renderer {
    /// Pipelines for drawing into textures of `format`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("simulate render.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("render.wgsl").into()),
        });
        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        // One layout for both pipelines, so that one bind group serves both; the line
        // shaders simply leave the storage bindings unused. Three storage buffers in the
        // vertex stage: within the downlevel limit of four.
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("simulate render"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(size_of::<CameraGpu>() as u64),
                    },
                    count: None,
                },
                storage(1), // the shape table
                storage(2), // the instances
                storage(3), // a GPU world's transforms, or `no_transforms`
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("simulate render"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        let targets = [Some(wgpu::ColorTargetState {
            format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let pipeline = |label, vertex_entry, fragment_entry, buffers, topology| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vertex_entry),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    // Fans are counter-clockwise, but nothing is hidden behind anything
                    // else in 2D: cull nothing.
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fragment_entry),
                    compilation_options: Default::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let polygon_pipeline = pipeline(
            "simulate polygons",
            "vs_polygon",
            "fs_polygon",
            &[],
            wgpu::PrimitiveTopology::TriangleList,
        );
        let line_attributes = wgpu::vertex_attr_array![0 => Float32x2, 1 => Unorm8x4];
        let line_pipeline = pipeline(
            "simulate contact lines",
            "vs_line",
            "fs_line",
            &[Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &line_attributes,
            })],
            wgpu::PrimitiveTopology::LineList,
        );

        let camera = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("simulate camera"),
            size: size_of::<CameraGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shapes = GrowingBuffer::new(device, "simulate shapes", wgpu::BufferUsages::STORAGE);
        let instances =
            GrowingBuffer::new(device, "simulate instances", wgpu::BufferUsages::STORAGE);
        let lines =
            GrowingBuffer::new(device, "simulate contact lines", wgpu::BufferUsages::VERTEX);
        let no_transforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("simulate no transforms"),
            size: size_of::<wgpu_sat::gpu::layout::BodyTransformGpu>() as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let bind_group = Self::create_bind_group(
            device,
            &bind_group_layout,
            [&camera, &shapes.buffer, &instances.buffer, &no_transforms],
        );
        Renderer {
            device: device.clone(),
            queue: queue.clone(),
            srgb_target: format.is_srgb(),
            bind_group_layout,
            bind_group,
            polygon_pipeline,
            line_pipeline,
            camera,
            shapes,
            instances,
            lines,
            no_transforms,
            bound_transforms: None,
            uploaded_shapes: Vec::new(),
            written: Written::Nothing,
            instance_scratch: Vec::new(),
            line_scratch: Vec::new(),
            instance_count: 0,
            line_vertex_count: 0,
        }
    }

    /// The bind group of `buffers`, bound at 0 (the camera), 1 (the shape table), 2 (the
    /// instances) and 3 (the transforms).
    fn create_bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        buffers: [&wgpu::Buffer; 4],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("simulate render"),
            layout,
            entries: &entries,
        })
    }

    /// Uploads what the next [`Renderer::draw`] shows: the shape table if it changed, the
    /// instances, the camera, and the overlay (contacts if asked for).
    ///
    /// With `device` (a GPU world steps `world`), the bodies' poses come from its transforms
    /// buffer and the instances are written only when its generation changes (`world` is
    /// then a snapshot taken since that generation began, current enough for the
    /// colliders); `world`
    /// serves the overlay, so bring it up to date first when the overlay needs the bodies
    /// where they are now (contacts, the ray fan). Without, every body's pose is written
    /// from `world`.
    pub fn prepare(
        &mut self,
        world: &World,
        device: Option<DeviceTransforms<'_>>,
        camera: &Camera,
        options: &DrawOptions,
    ) {
        let written = device.map_or(Written::Poses, |d| Written::Slots(d.generation));
        // Poses in the instances change every frame; a GPU world's colliders only with its
        // generation.
        let mut rebind = false;
        if written == Written::Poses || written != self.written {
            if self.uploaded_shapes != world.shapes() {
                let table: Vec<ShapeGpu> = world.shapes().iter().map(shape_gpu).collect();
                rebind |=
                    self.shapes
                        .write(&self.device, &self.queue, bytemuck::cast_slice(&table));
                self.uploaded_shapes = world.shapes().to_vec();
            }
            let poses = written == Written::Poses;
            collider_instances(world, poses, &mut self.instance_scratch);
            rebind |= self.instances.write(
                &self.device,
                &self.queue,
                bytemuck::cast_slice(&self.instance_scratch),
            );
            self.instance_count = self.instance_scratch.len() as u32;
            self.written = written;
        }
        // wgpu buffers compare by identity: a GPU world built again, or one whose bodies
        // outgrew its transforms buffer, has a new buffer.
        let bound = device.map(|d| d.buffer);
        if self.bound_transforms.as_ref() != bound {
            self.bound_transforms = bound.cloned();
            rebind = true;
        }
        if rebind {
            let transforms = device.map_or(&self.no_transforms, |d| d.buffer);
            self.bind_group = Self::create_bind_group(
                &self.device,
                &self.bind_group_layout,
                [
                    &self.camera,
                    &self.shapes.buffer,
                    &self.instances.buffer,
                    transforms,
                ],
            );
        }

        let pose_source = match device {
            Some(_) => POSE_FROM_TRANSFORMS,
            None => POSE_IN_INSTANCE,
        };
        let uniform = camera.uniform(options.selected, self.srgb_target, pose_source);
        self.queue
            .write_buffer(&self.camera, 0, bytemuck::bytes_of(&uniform));

        self.line_scratch.clear();
        sensor_lines(world, &mut self.line_scratch);
        joint_lines(world, &mut self.line_scratch);
        if options.show_contacts {
            contact_lines(world, camera, &mut self.line_scratch);
        }
        if let Some(origin) = options.ray_fan {
            ray_fan_lines(world, camera, origin, &mut self.line_scratch);
        }
        if !self.line_scratch.is_empty() {
            self.lines.write(
                &self.device,
                &self.queue,
                bytemuck::cast_slice(&self.line_scratch),
            );
        }
        self.line_vertex_count = self.line_scratch.len() as u32;
    }

    /// Records the draws into a pass whose target has the renderer's format.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_pipeline(&self.polygon_pipeline);
        pass.draw(0..FAN_VERTICES, 0..self.instance_count);
        if self.line_vertex_count > 0 {
            pass.set_pipeline(&self.line_pipeline);
            pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
            pass.draw(0..self.line_vertex_count, 0..1);
        }
    }

    /// Clears `target` to the background and draws into it.
    pub fn render(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        // A clear value is stored as given and encoded by an sRGB target like any output.
        let [r, g, b] = if self.srgb_target {
            BACKGROUND.map(srgb_to_linear)
        } else {
            BACKGROUND
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("simulate frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.draw(&mut pass);
    }
}

fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
