//! The window: winit's event loop, a surface, and a frame per redraw (STEP 5's readback
//! polled each frame), of the narrow phase's colliders or, with `--gpu-world`, of the GPU
//! world (STEP W4).

use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::gpu_world::WorldHost;
use crate::host::{Host, request_device};
use crate::shared::{Result, request_adapter, srgb_surface_config};
use crate::{Args, NO_DISPLAY, READBACK_PERIOD, TITLE_PERIOD};

pub fn run_window(args: &Args) -> Result<()> {
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
    let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
        wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )),
    ));
    let mut app = App {
        count: args.count,
        gpu_world: args.gpu_world,
        instance,
        state: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    app.error.map_or(Ok(()), Err)
}

struct App {
    count: usize,
    gpu_world: bool,
    instance: wgpu::Instance,
    state: Option<WindowState>,
    error: Option<Box<dyn std::error::Error>>,
}

struct WindowState {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    content: Content,
    start: Instant,
    title_since: Instant,
    title_frames: u32,
    /// When the last readback was requested, and whether it is still on its way.
    requested: Instant,
    pending: bool,
    contacts: Option<usize>,
}

/// What the window draws. (Boxed: each holds its pipelines and GPU stages.)
enum Content {
    /// Polygons on Lissajous paths, coloured by the narrow phase's contacts (STEP 1 to 5).
    Narrow(Box<Host>),
    /// `--gpu-world`: boxes stepped by a GPU world, drawn from its transforms (STEP W1 to W4).
    World(Box<WorldHost>),
}

impl Content {
    fn device(&self) -> &wgpu::Device {
        match self {
            Content::Narrow(host) => &host.device,
            Content::World(host) => &host.device,
        }
    }

    fn queue(&self) -> &wgpu::Queue {
        match self {
            Content::Narrow(host) => &host.queue,
            Content::World(host) => &host.queue,
        }
    }
}

impl WindowState {
    fn new(
        event_loop: &ActiveEventLoop,
        instance: &wgpu::Instance,
        count: usize,
        gpu_world: bool,
    ) -> Result<Self> {
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
        let what = if gpu_world {
            "boxes on a GPU world"
        } else {
            "polygons"
        };
        println!(
            "embed: {count} {what} on {}, surface {:?}",
            adapter.get_info().name,
            config.format
        );
        let content = if gpu_world {
            Content::World(Box::new(WorldHost::new(
                device,
                queue,
                config.format,
                count,
            )?))
        } else {
            Content::Narrow(Box::new(Host::new(device, queue, config.format, count)?))
        };
        let now = Instant::now();
        Ok(WindowState {
            window,
            surface,
            config,
            content,
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
                self.surface.configure(self.content.device(), &self.config);
                return Ok(());
            }
            _ => return Ok(()), // hidden or timed out: skip this frame
        };
        let view = frame.texture.create_view(&Default::default());
        let readback = !self.pending && self.requested.elapsed() >= READBACK_PERIOD;
        let t = self.start.elapsed().as_secs_f32();
        let size = (self.config.width, self.config.height);
        let encoder = match &mut self.content {
            Content::Narrow(host) => host.encode_frame(t, &view, size, readback)?,
            // A step per frame (its own submits), then the draw: no readback ever.
            Content::World(host) => host.encode_frame(&view, size)?,
        };
        self.content.queue().submit([encoder.finish()]); // the frame's one submit
        self.window.pre_present_notify();
        self.content.queue().present(frame);
        if reconfigure {
            self.surface.configure(self.content.device(), &self.config);
        }
        match &mut self.content {
            Content::Narrow(_) => self.poll_contacts(readback),
            Content::World(_) => {}
        }
        self.title_frames += 1;
        let since = self.title_since.elapsed();
        if since >= TITLE_PERIOD {
            let fps = self.title_frames as f64 / since.as_secs_f64();
            let title = match &self.content {
                Content::Narrow(host) => {
                    let contacts = self.contacts.map_or("-".into(), |c| c.to_string());
                    format!(
                        "wgpu-sat embed | {fps:.0} fps | {} polygons | {} pairs | \
                         {contacts} contacts (last readback)",
                        host.scene.colliders.len(),
                        host.pairs,
                    )
                }
                Content::World(host) => format!(
                    "wgpu-sat embed | {fps:.0} fps | {} bodies on a GPU world, drawn from its \
                     transforms (no readback)",
                    host.bodies()
                ),
            };
            self.window.set_title(&title);
            (self.title_since, self.title_frames) = (Instant::now(), 0);
        }
        Ok(())
    }

    /// STEP 5, continued: a readback requested this frame is noted, and one on its way
    /// polled. Never blocks: `None` until the copy has landed, a frame or more later.
    fn poll_contacts(&mut self, requested: bool) {
        let Content::Narrow(host) = &mut self.content else {
            return;
        };
        if requested {
            (self.requested, self.pending) = (Instant::now(), true);
        }
        if self.pending {
            match host.gpu.poll_readback() {
                None => {}
                Some(Ok(contacts)) => (self.contacts, self.pending) = (Some(contacts.len()), false),
                Some(Err(e)) => {
                    eprintln!("embed: readback failed: {e}");
                    self.pending = false;
                }
            }
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() {
            match WindowState::new(event_loop, &self.instance, self.count, self.gpu_world) {
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
                state
                    .surface
                    .configure(state.content.device(), &state.config);
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
