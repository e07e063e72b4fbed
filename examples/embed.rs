//! A host renderer that embeds the wgpu-sat pipeline on its own device, queue and surface,
//! and colours every polygon from the GPU's contact results without reading anything back.
//!
//! ```text
//! cargo run --example embed                                   # a window (Esc quits)
//! cargo run --example embed -- --headless --screenshot embed.png [--frames 60] [--count 400]
//! ```
//!
//! What a host writes (search for `STEP` below):
//!
//! 1. Its own instance, adapter, device and queue (and surface). Drawing from the narrow
//!    phase's buffers needs storage buffers in the vertex stage:
//!    `DownlevelFlags::VERTEX_STORAGE` and 4 storage buffers per stage.
//! 2. `GpuNarrowPhase::new(&device, &queue)` once, `set_shapes(&shapes)` once.
//! 3. A render pipeline whose WGSL starts with `wgpu_sat::gpu::LAYOUT_WGSL` (the `Shape` and
//!    `Pose` structs) and binds, read-only in the vertex stage, `shapes_buffer()`,
//!    `poses_buffer()`, `collider_shapes_buffer()` and `touching_buffer()`. The narrow
//!    phase replaces a buffer when it grows: rebuild the bind group when one changes.
//! 4. Per frame: poses -> AABBs -> `BroadPhase::find_pairs` on the CPU,
//!    `gpu.prepare(&colliders, pairs)`, then in ONE encoder `gpu.record(&mut encoder)` and the
//!    render pass (one instanced draw: 18 vertices per collider), then one `queue.submit`.
//!    The library submits nothing on this path and nothing waits for the GPU.
//! 5. Now and then, if the CPU wants the contacts: `gpu.request_readback(&mut encoder)`
//!    before that submit, then `gpu.poll_readback()` each later frame (it never blocks)
//!    until it returns `Some(Ok(contacts))`.
//!
//! The per-frame core (`Host::encode_frame` below, plus the submit):
//!
//! ```ignore
//! scene.move_to(t);                                     // the host's poses and AABBs
//! let pairs = broad.find_pairs(&aabbs);                 // CPU sweep and prune
//! gpu.prepare(&colliders, pairs)?;                      // queue.write_buffer only
//! let mut encoder = device.create_command_encoder(&Default::default());
//! gpu.record(&mut encoder)?;                            // SAT dispatch + touching counts
//! if want_contacts {
//!     gpu.request_readback(&mut encoder)?;              // a copy, mapped later
//! }
//! let mut pass = encoder.begin_render_pass(&target_pass);
//! pass.set_pipeline(&pipeline);
//! pass.set_bind_group(0, &bind_group, &[]);             // the 4 gpu buffers, read-only
//! pass.draw(0..18, 0..colliders.len() as u32);          // one instanced draw for all
//! drop(pass);
//! queue.submit([encoder.finish()]);                     // the frame's only submit
//! if let Some(Ok(contacts)) = gpu.poll_readback() {}    // later frames; never blocks
//! ```
//!
//! The polygons follow Lissajous paths with spin (no physics): calm blue when free, orange
//! when touching one polygon, red when touching three or more.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Aabb, BroadPhase, Collider, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon, Transform,
};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

#[derive(Parser, Debug)]
#[command(about = "A host renderer drawing wgpu-sat's GPU contact results with no readback")]
struct Args {
    /// No window: render --frames frames offscreen and print a summary.
    #[arg(long)]
    headless: bool,
    /// PNG file for the last headless frame.
    #[arg(long, requires = "headless")]
    screenshot: Option<PathBuf>,
    /// Frames to run in headless mode (at 1/60 s each).
    #[arg(long, default_value_t = 60)]
    frames: u32,
    /// Moving polygons.
    #[arg(long, default_value_t = 400)]
    count: usize,
}

#[path = "shared/mod.rs"]
mod shared;

use shared::{
    OFFSCREEN_FORMAT, Offscreen, Result, request_adapter, srgb_surface_config, write_png,
};

/// The polygons move inside [-HALF_WORLD, HALF_WORLD].
const HALF_WORLD: Vec2 = Vec2::new(80.0, 50.0);
/// A fan of 6 triangles covers the 8 padded vertex slots of a `Shape`.
const FAN_VERTICES: u32 = 3 * (wgpu_sat::MAX_POLYGON_VERTICES as u32 - 2);
const READBACK_PERIOD: Duration = Duration::from_secs(1);
const TITLE_PERIOD: Duration = Duration::from_millis(500);
const NO_DISPLAY: &str = "no display found; run with --headless --screenshot PATH, or under \
                          xvfb-run";

fn main() -> ExitCode {
    let args = Args::parse();
    let result = if args.headless {
        headless(&args)
    } else {
        run_window(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("embed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One polygon on an analytic path: a Lissajous curve about an anchor, spinning.
struct Mover {
    shape: u32,
    anchor: Vec2,
    amplitude: Vec2,
    frequency: Vec2,
    phase: Vec2,
    spin: f32,
}

/// The host's own scene state: nothing here belongs to wgpu-sat but the types.
struct Scene {
    shapes: Vec<Polygon>,
    movers: Vec<Mover>,
    colliders: Vec<Collider>,
    aabbs: Vec<Aabb>,
}

impl Scene {
    fn new(count: usize) -> Scene {
        let regular = |n, r| Polygon::regular(n, r).expect("a valid regular polygon");
        let shapes = vec![
            Polygon::rectangle(1.6, 1.0),
            Polygon::rectangle(2.6, 0.45),
            regular(3, 1.9),
            regular(6, 1.5),
            regular(8, 1.4),
        ];
        // A fixed seed: every run (and every screenshot) shows the same scene.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut random = move |lo: f32, hi: f32| rng.random_range(lo..hi);
        let movers = (0..count)
            .map(|i| {
                let amplitude = Vec2::new(random(4.0, 22.0), random(3.0, 14.0));
                let room = HALF_WORLD - amplitude - Vec2::splat(3.0);
                let tau = std::f32::consts::TAU;
                Mover {
                    shape: (i % shapes.len()) as u32,
                    anchor: Vec2::new(random(-room.x, room.x), random(-room.y, room.y)),
                    amplitude,
                    frequency: Vec2::new(random(0.03, 0.12), random(0.03, 0.12)) * tau,
                    phase: Vec2::new(random(0.0, tau), random(0.0, tau)),
                    spin: random(-1.2, 1.2),
                }
            })
            .collect();
        Scene {
            shapes,
            movers,
            colliders: Vec::with_capacity(count),
            aabbs: Vec::with_capacity(count),
        }
    }

    /// The poses at time `t` (seconds) and their bounding boxes.
    fn move_to(&mut self, t: f32) {
        self.colliders.clear();
        self.aabbs.clear();
        for m in &self.movers {
            let wave = (m.frequency * t + m.phase).to_array().map(f32::sin);
            let position = m.anchor + m.amplitude * Vec2::from_array(wave);
            let transform = Transform::new(position, m.spin * t);
            self.aabbs
                .push(self.shapes[m.shape as usize].aabb(&transform));
            self.colliders.push(Collider {
                shape: m.shape,
                transform,
            });
        }
    }
}

/// STEP 1: the host's device. Fails with a clear message when the adapter cannot read
/// storage buffers in vertex shaders (the draw reads the narrow phase's buffers there).
fn request_device(adapter: &wgpu::Adapter) -> Result<(wgpu::Device, wgpu::Queue)> {
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

/// STEP 3: the host's renderer. It owns no polygon data: it binds the narrow phase's buffers.
struct Renderer {
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
    fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Renderer {
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
    fn draw(
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

/// Everything a host keeps: its device and queue, the narrow phase, a broad phase, its scene
/// and its renderer.
struct Host {
    device: wgpu::Device,
    queue: wgpu::Queue,
    gpu: GpuNarrowPhase,
    broad: BroadPhase,
    scene: Scene,
    renderer: Renderer,
    /// Candidate pairs of the last frame.
    pairs: usize,
}

impl Host {
    fn new(
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
    fn encode_frame(
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

/// `--headless`: no window and no event loop; frames rendered offscreen, the last one saved.
fn headless(args: &Args) -> Result<()> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = request_adapter(&instance, None)?;
    let (device, queue) = request_device(&adapter)?;
    let mut host = Host::new(device.clone(), queue.clone(), OFFSCREEN_FORMAT, args.count)?;
    let (width, height) = (1280u32, 800u32);
    let offscreen = Offscreen::new(&device, "embed offscreen", width, height);
    let touching_bytes = 4 * args.count.max(1) as u64;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("embed staging"),
        size: touching_bytes + offscreen.copy_bytes(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });

    let start = Instant::now();
    let frames = args.frames.max(1);
    for frame in 1..=frames {
        let last = frame == frames;
        let t = frame as f32 / 60.0;
        let mut encoder = host.encode_frame(t, &offscreen.view, (width, height), last)?;
        if last {
            // The summary's one-off readback: the touching flags and the picture.
            encoder.copy_buffer_to_buffer(
                host.gpu.touching_buffer(),
                0,
                &staging,
                0,
                touching_bytes,
            );
            offscreen.copy_to(&mut encoder, &staging, touching_bytes);
        }
        queue.submit([encoder.finish()]);
    }
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the staging buffer")
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let elapsed = start.elapsed();
    let (touching, pixels) = {
        let mapped = slice.get_mapped_range()?;
        let (flags, image) = mapped.split_at(touching_bytes as usize);
        let flags: Vec<u32> = bytemuck::pod_collect_to_vec(flags);
        (flags, offscreen.unpad(image))
    };
    staging.unmap();
    // The non-blocking readback requested in the last frame: poll, waiting in between.
    let contacts = loop {
        match host.gpu.poll_readback() {
            Some(result) => break result?,
            None => _ = device.poll(wgpu::PollType::wait_indefinitely())?,
        }
    };

    // Cross-check the colours against the CPU narrow phase on the same pairs.
    let pairs = host.broad.find_pairs(&host.scene.aabbs);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&host.scene.shapes)?;
    let expected = cpu.collide_pairs(&host.scene.colliders, pairs)?;
    let mut cpu_touching = vec![false; args.count];
    for c in &expected {
        cpu_touching[c.a as usize] = true;
        cpu_touching[c.b as usize] = true;
    }
    let gpu_count = touching.iter().filter(|&&n| n > 0).count();
    let differ = (0..args.count)
        .filter(|&i| (touching[i] > 0) != cpu_touching[i])
        .count();
    println!(
        "embed: {} polygons, {frames} frames in {:.2} s on {}: {} pairs, {} contacts, \
         {gpu_count} touching colliders ({})",
        args.count,
        elapsed.as_secs_f64(),
        adapter.get_info().name,
        host.pairs,
        contacts.len(),
        if differ == 0 {
            "the CPU narrow phase agrees".to_string()
        } else {
            format!("{differ} differ from the CPU narrow phase")
        }
    );
    if let Some(path) = &args.screenshot {
        write_png(path, width, height, &pixels)?;
        println!("embed: wrote {} ({width}x{height})", path.display());
    }
    Ok(())
}

fn run_window(args: &Args) -> Result<()> {
    let display_set = ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    if cfg!(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "android")
    )) && !display_set
    {
        return Err(NO_DISPLAY.into());
    }
    let event_loop = EventLoop::new().map_err(|e| format!("{NO_DISPLAY} ({e})"))?;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
        Box::new(event_loop.owned_display_handle()),
    ));
    let mut app = App {
        count: args.count,
        instance,
        state: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    app.error.map_or(Ok(()), Err)
}

struct App {
    count: usize,
    instance: wgpu::Instance,
    state: Option<WindowState>,
    error: Option<Box<dyn std::error::Error>>,
}

struct WindowState {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    host: Host,
    start: Instant,
    title_since: Instant,
    title_frames: u32,
    /// When the last readback was requested, and whether it is still on its way.
    requested: Instant,
    pending: bool,
    contacts: Option<usize>,
}

impl WindowState {
    fn new(event_loop: &ActiveEventLoop, instance: &wgpu::Instance, count: usize) -> Result<Self> {
        let attributes = Window::default_attributes()
            .with_title("wgpu-sat embed")
            .with_inner_size(PhysicalSize::new(1280, 800));
        let window = Arc::new(event_loop.create_window(attributes)?);
        let surface = instance.create_surface(window.clone())?; // Surface<'static> via Arc
        let adapter = request_adapter(instance, Some(&surface))?;
        let (device, queue) = request_device(&adapter)?;
        let size = window.inner_size();
        // An sRGB format if there is one; the shader handles either.
        let config = srgb_surface_config(&surface, &adapter, size.width, size.height)?;
        surface.configure(&device, &config);
        println!(
            "embed: {count} polygons on {}, surface {:?}",
            adapter.get_info().name,
            config.format
        );
        let host = Host::new(device, queue, config.format, count)?;
        let now = Instant::now();
        Ok(WindowState {
            window,
            surface,
            config,
            host,
            start: now,
            title_since: now,
            title_frames: 0,
            requested: now,
            pending: false,
            contacts: None,
        })
    }

    fn frame(&mut self) -> Result<()> {
        let (frame, reconfigure) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => (frame, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => (frame, true),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.host.device, &self.config);
                return Ok(());
            }
            _ => return Ok(()), // hidden or timed out: skip this frame
        };
        let view = frame.texture.create_view(&Default::default());
        let readback = !self.pending && self.requested.elapsed() >= READBACK_PERIOD;
        let t = self.start.elapsed().as_secs_f32();
        let size = (self.config.width, self.config.height);
        let encoder = self.host.encode_frame(t, &view, size, readback)?;
        self.host.queue.submit([encoder.finish()]); // the frame's one submit
        self.window.pre_present_notify();
        self.host.queue.present(frame);
        if reconfigure {
            self.surface.configure(&self.host.device, &self.config);
        }
        if readback {
            (self.requested, self.pending) = (Instant::now(), true);
        }
        if self.pending {
            // STEP 5, continued. Never blocks: `None` until the copy has landed, a frame or
            // more later.
            match self.host.gpu.poll_readback() {
                None => {}
                Some(Ok(contacts)) => (self.contacts, self.pending) = (Some(contacts.len()), false),
                Some(Err(e)) => {
                    eprintln!("embed: readback failed: {e}");
                    self.pending = false;
                }
            }
        }
        self.title_frames += 1;
        let since = self.title_since.elapsed();
        if since >= TITLE_PERIOD {
            let fps = self.title_frames as f64 / since.as_secs_f64();
            let contacts = self.contacts.map_or("-".into(), |c| c.to_string());
            self.window.set_title(&format!(
                "wgpu-sat embed | {fps:.0} fps | {} polygons | {} pairs | \
                 {contacts} contacts (last readback)",
                self.host.scene.colliders.len(),
                self.host.pairs,
            ));
            (self.title_since, self.title_frames) = (Instant::now(), 0);
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() {
            match WindowState::new(event_loop, &self.instance, self.count) {
                Ok(state) => self.state = Some(state),
                Err(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed
                    && event.logical_key == Key::Named(NamedKey::Escape) =>
            {
                event_loop.exit()
            }
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                state.config.width = size.width;
                state.config.height = size.height;
                state.surface.configure(&state.host.device, &state.config);
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = state.frame() {
                    self.error = Some(e);
                    self.state = None;
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(state) = &self.state {
            state.window.request_redraw(); // animate continuously
        }
    }
}
