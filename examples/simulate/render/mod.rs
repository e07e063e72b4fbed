//! Drawing a [`World`]: the camera, and a renderer shared by the window and the headless
//! screenshot (same pipelines, same shaders; only the target format differs).
//!
//! Every body is drawn by one instanced draw call. The vertex shader pulls the body's pose
//! from a storage buffer of 20-byte instances (rewritten each frame with
//! `queue.write_buffer` into a reused buffer) and its polygon from the shape table (uploaded
//! only when the world's table changes), so nothing per vertex is built on the CPU. The
//! contact overlay is a second, small line-list pipeline fed from a per-frame vertex buffer.
//!
//! The split into `prepare` (uploads) and `draw` (records into a render pass) follows
//! glyphon: a host with its own render pass can call `draw` inside it.
//!
//! The shape table's entries are built in `shape_table.rs`, the overlay's lines in
//! `overlay.rs`.

mod overlay;
mod shape_table;

use bytemuck::{Pod, Zeroable};
use wgpu_sat::glam::{UVec2, Vec2};
use wgpu_sat::{Aabb, BodyId, MAX_POLYGON_VERTICES, Shape, World};

use overlay::{contact_lines, joint_lines, ray_fan_lines, sensor_lines};
use shape_table::shape_gpu;

/// Vertices per instance: a fan of `MAX_POLYGON_VERTICES - 2` triangles.
const FAN_VERTICES: u32 = 3 * (MAX_POLYGON_VERTICES as u32 - 2);
/// Top bit of [`InstanceGpu::shape`]: the body is static (drawn grey).
const STATIC_BIT: u32 = 1 << 31;
/// Next bit of [`InstanceGpu::shape`]: the body sleeps (drawn dimmed).
const SLEEPING_BIT: u32 = 1 << 30;
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

/// One collider's pose, shape and body, as `Instance` in `render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct InstanceGpu {
    translation: [f32; 2],
    /// `(cos, sin)` of the rotation.
    rotation: [f32; 2],
    /// Shape index, with [`STATIC_BIT`] for static bodies and [`SLEEPING_BIT`] for
    /// sleeping ones.
    shape: u32,
    /// The slot of the body the collider is a piece of (`BodyId::index`): pieces of one
    /// body share its colour.
    body: u32,
}
const _: () = assert!(size_of::<InstanceGpu>() == 24);

/// As `Camera` in `render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraGpu {
    center: [f32; 2],
    scale: [f32; 2],
    selected: u32,
    srgb_target: u32,
    _pad: [u32; 2],
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

    fn uniform(&self, selected: Option<BodyId>, srgb_target: bool) -> CameraGpu {
        CameraGpu {
            center: self.center.to_array(),
            scale: (1.0 / self.half_extent()).to_array(),
            // The shader tells bodies apart by slot, as `InstanceGpu::body` names them.
            selected: selected.map_or(u32::MAX, |b| b.index() as u32),
            srgb_target: srgb_target as u32,
            _pad: [0; 2],
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

/// A GPU buffer that is replaced by a larger one when it runs out of room, and otherwise
/// reused frame after frame.
struct GrowingBuffer {
    buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl GrowingBuffer {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
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
    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) -> bool {
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
    /// The shape table as last uploaded: re-uploaded only when the world's differs.
    uploaded_shapes: Vec<Shape>,
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
        // shaders simply leave the storage bindings unused.
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
                storage(1),
                storage(2),
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
        let bind_group =
            Self::create_bind_group(device, &bind_group_layout, &camera, &shapes, &instances);
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
            uploaded_shapes: Vec::new(),
            instance_scratch: Vec::new(),
            line_scratch: Vec::new(),
            instance_count: 0,
            line_vertex_count: 0,
        }
    }

    fn create_bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        camera: &wgpu::Buffer,
        shapes: &GrowingBuffer,
        instances: &GrowingBuffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("simulate render"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: camera.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: shapes.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: instances.buffer.as_entire_binding(),
                },
            ],
        })
    }

    /// Uploads what the next [`Renderer::draw`] shows: the shape table if it changed, every
    /// body's pose, the camera, and the contact overlay if asked for.
    pub fn prepare(&mut self, world: &World, camera: &Camera, options: &DrawOptions) {
        let mut replaced = false;
        if self.uploaded_shapes != world.shapes() {
            let table: Vec<ShapeGpu> = world.shapes().iter().map(shape_gpu).collect();
            replaced |= self
                .shapes
                .write(&self.device, &self.queue, bytemuck::cast_slice(&table));
            self.uploaded_shapes = world.shapes().to_vec();
        }

        self.instance_scratch.clear();
        self.instance_scratch
            .extend(world.colliders().iter().enumerate().filter_map(|(i, c)| {
                // A vacant slot (its body removed) holds a stale collider: not drawn.
                let id = world.collider_id(i)?;
                // Sensors are drawn as outlines (below), not filled.
                if world.is_sensor(id) == Some(true) {
                    return None;
                }
                let body = world.collider_body(id).ok()?;
                let flag = if world.is_static(body) {
                    STATIC_BIT
                } else if !world.is_awake(body) {
                    SLEEPING_BIT
                } else {
                    0
                };
                Some(InstanceGpu {
                    translation: c.transform.translation().to_array(),
                    rotation: c.transform.rotation().to_array(),
                    shape: c.shape | flag,
                    body: body.index() as u32,
                })
            }));
        replaced |= self.instances.write(
            &self.device,
            &self.queue,
            bytemuck::cast_slice(&self.instance_scratch),
        );
        self.instance_count = self.instance_scratch.len() as u32;
        if replaced {
            self.bind_group = Self::create_bind_group(
                &self.device,
                &self.bind_group_layout,
                &self.camera,
                &self.shapes,
                &self.instances,
            );
        }

        let uniform = camera.uniform(options.selected, self.srgb_target);
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
