//! The interactive mode: a winit window whose surface the renderer draws into, input
//! handling, and the statistics in the title.

use std::sync::Arc;
use std::time::Duration;

use wgpu_sat::glam::{UVec2, Vec2};
use winit::application::ApplicationHandler;
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::render::{Camera, DrawOptions, Renderer, scene_bounds};
use crate::shared::{request_adapter, srgb_surface_config};
use crate::sim::Sim;
use crate::stats::{AdapterLabel, StatsWindow};
use crate::{Args, Result};

const NO_DISPLAY: &str = "no display found: run with --headless --frames 300 --screenshot \
                          out.png, or under xvfb-run";
/// How often the title's statistics are refreshed.
const TITLE_PERIOD: Duration = Duration::from_millis(500);
/// Bodies dropped by N.
const SPAWN_COUNT: usize = 200;
/// Zoom per scroll line: scrolling up (positive) zooms in.
const ZOOM_PER_LINE: f32 = 0.85;

pub fn run(args: &Args) -> Result<()> {
    // Checked up front so that the usual case (an SSH session, CI) gets a hint rather than
    // winit's message; a display that is set but unusable fails in `EventLoop::new`.
    if !display_variables_set() {
        return Err(NO_DISPLAY.into());
    }
    let event_loop = EventLoop::new().map_err(|e| format!("{NO_DISPLAY} ({e})"))?;
    let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
        wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )),
    ));
    let mut app = App {
        args,
        instance,
        state: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Whether a Wayland or X11 display is named in the environment. Other platforms have no
/// such variables and always have a display.
fn display_variables_set() -> bool {
    if cfg!(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android")
    )) {
        ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
    } else {
        true
    }
}

struct App<'a> {
    args: &'a Args,
    instance: wgpu::Instance,
    /// Created on the first `resumed`, when winit allows windows.
    state: Option<State>,
    /// The error that ended the event loop, reported once `run_app` returns.
    error: Option<Box<dyn std::error::Error>>,
}

impl App<'_> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: Box<dyn std::error::Error>) {
        self.error = Some(error);
        // Drop the window now: events still queued before the loop ends find no state.
        self.state = None;
        event_loop.exit();
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match State::new(event_loop, &self.instance, self.args) {
            Ok(state) => self.state = Some(state),
            Err(error) => self.fail(event_loop, error),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else {
            return;
        };
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                state.resize(size);
                Ok(())
            }
            WindowEvent::RedrawRequested => state.frame(),
            WindowEvent::KeyboardInput { event, .. } => state.key(&event, event_loop),
            WindowEvent::CursorMoved { position, .. } => {
                state.cursor_moved(position);
                Ok(())
            }
            WindowEvent::MouseInput {
                state: button_state,
                button,
                ..
            } => state.mouse_button(button, button_state == ElementState::Pressed),
            WindowEvent::MouseWheel { delta, .. } => {
                state.scroll(delta);
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(error) = result {
            self.fail(event_loop, error);
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        // Redraw continuously: every frame is a simulation step.
        if let Some(state) = &self.state {
            state.window.request_redraw();
        }
    }
}

/// Everything that exists once the window does.
struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    sim: Sim,
    camera: Camera,
    adapter: AdapterLabel,
    stats: StatsWindow,
    show_contacts: bool,
    /// Whether a fan of rays follows the cursor (the L key).
    ray_fan: bool,
    /// Cursor position in physical pixels.
    cursor: Vec2,
    /// Set while the right or middle button pans the view.
    panning: bool,
}

impl State {
    fn new(event_loop: &ActiveEventLoop, instance: &wgpu::Instance, args: &Args) -> Result<State> {
        let attributes = Window::default_attributes()
            .with_title("wgpu-sat simulate")
            .with_inner_size(PhysicalSize::new(args.width.max(1), args.height.max(1)));
        let window = Arc::new(event_loop.create_window(attributes)?);
        // From an `Arc<Window>` the surface owns a handle to the window: `Surface<'static>`.
        let surface = instance.create_surface(window.clone()).map_err(|e| {
            format!(
                "cannot draw to the window ({e}): no graphics backend could make a surface for \
                 it; check WGPU_BACKEND, or install a Vulkan driver (on Debian or Ubuntu \
                 `apt-get install mesa-vulkan-drivers` provides a software one)"
            )
        })?;
        let adapter = request_adapter(instance, Some(&surface))?;
        let (device, queue) =
            pollster::block_on(adapter.request_device(&crate::device_descriptor(&adapter)))?;

        let size = window.inner_size();
        // sRGB when offered; the shaders handle either (see `srgb_target` in render.wgsl).
        let config = srgb_surface_config(&surface, &adapter, size.width, size.height)?;
        surface.configure(&device, &config);

        let (gpu, use_gpu) = crate::gpu_narrow_phase(&device, &queue, args.backend)?;
        let sim = crate::start_sim(args, gpu, use_gpu)?;
        let viewport = UVec2::new(config.width, config.height);
        let camera = frame_scene(&sim, viewport);
        let renderer = Renderer::new(&device, &queue, config.format);
        let adapter = AdapterLabel::of(Some(&device));
        println!(
            "simulate: {} bodies, {}, {}, surface {:?}",
            sim.world.body_count(),
            sim.backend_label(),
            adapter.name,
            config.format
        );
        Ok(State {
            window,
            surface,
            config,
            device,
            queue,
            renderer,
            sim,
            camera,
            adapter,
            stats: StatsWindow::new(),
            show_contacts: args.contacts,
            ray_fan: false,
            cursor: Vec2::ZERO,
            panning: false,
        })
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        // A minimised window has no area; a surface cannot be configured so.
        if size.width == 0 || size.height == 0 {
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.device, &self.config);
        // The camera keeps its height in world units: the aspect ratio stays true.
        self.camera.viewport = UVec2::new(size.width, size.height);
    }

    /// One frame: a simulation step (unless paused), the title, then drawing.
    fn frame(&mut self) -> Result<()> {
        if self.sim.dragged_body().is_some() {
            // Follow the cursor even when only the camera moved.
            self.sim
                .drag_to(self.camera.screen_to_world(self.cursor))
                .map_err(|e| format!("dragging failed: {e}"))?;
        }
        if let Some(stepped) = self
            .sim
            .advance()
            .map_err(|e| format!("simulation step failed: {e}"))?
        {
            self.stats.record(&stepped, &self.sim.world);
        }
        self.stats.frame();
        // On the GPU world, `sim.world` is read back only for what needs the bodies where
        // they are: the title's counts twice a second, the contacts, the ray fan and the
        // joints' lines (a drag's mouse joint among them). The bodies themselves are drawn
        // from the GPU world's transforms.
        let title_due = self.stats.elapsed() >= TITLE_PERIOD;
        let joints = self.sim.world.joint_count() > 0 || self.sim.drag().is_some();
        let overlay = self.show_contacts || self.ray_fan || joints;
        if title_due || overlay {
            self.sim
                .sync_world()
                .map_err(|e| format!("reading the GPU world back failed: {e}"))?;
        }
        if title_due {
            let summary = self.stats.summary("fps", &self.sim, &self.adapter);
            self.window
                .set_title(&format!("wgpu-sat simulate | {summary}"));
            self.stats = StatsWindow::after(&self.stats);
        }

        // Suboptimal: draw this frame, then reconfigure (not while its texture is held).
        let (frame, reconfigure) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => (frame, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => (frame, true),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
            // Hidden, slow or momentarily invalid: skip drawing, keep simulating.
            _ => return Ok(()),
        };
        let view = frame.texture.create_view(&Default::default());
        let options = DrawOptions {
            show_contacts: self.show_contacts,
            selected: self.sim.dragged_body(),
            ray_fan: self
                .ray_fan
                .then(|| self.camera.screen_to_world(self.cursor)),
        };
        self.renderer.prepare(
            &self.sim.world,
            self.sim.device_transforms(),
            &self.camera,
            &options,
        );
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("simulate frame"),
            });
        self.renderer.render(&mut encoder, &view);
        self.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.queue.present(frame);
        if reconfigure {
            self.surface.configure(&self.device, &self.config);
        }
        Ok(())
    }

    fn key(&mut self, event: &KeyEvent, event_loop: &ActiveEventLoop) -> Result<()> {
        if event.state != ElementState::Pressed {
            return Ok(());
        }
        let character = match &event.logical_key {
            Key::Character(c) => c.to_lowercase(),
            Key::Named(NamedKey::Space) if !event.repeat => {
                self.sim.paused = !self.sim.paused;
                return Ok(());
            }
            Key::Named(NamedKey::Escape) => {
                event_loop.exit();
                return Ok(());
            }
            _ => return Ok(()),
        };
        match character.as_str() {
            // Holding S keeps stepping: key repeat is welcome here.
            "s" => {
                self.sim.paused = true;
                self.sim.request_single_step();
            }
            _ if event.repeat => {}
            "g" => self.toggle_backend(),
            "r" => {
                self.sim.reset()?;
                self.camera = frame_scene(&self.sim, self.camera.viewport);
            }
            "n" => self.sim.spawn(SPAWN_COUNT)?,
            "b" => self.sim.fire(self.camera.screen_to_world(self.cursor))?,
            // Over empty space or a static body nothing happens, and nothing needs saying.
            "i" => {
                self.sim.push(self.camera.screen_to_world(self.cursor))?;
            }
            "c" => self.show_contacts = !self.show_contacts,
            "l" => self.ray_fan = !self.ray_fan,
            "f" => {
                self.sim.sync_world()?;
                self.camera = frame_scene(&self.sim, self.camera.viewport);
            }
            // The car of the joints scene; in other scenes these keys do nothing.
            "d" => _ = self.sim.drive(1.0)?,
            "a" => _ = self.sim.drive(-1.0)?,
            "x" => _ = self.sim.drive(0.0)?,
            _ => {}
        }
        Ok(())
    }

    /// Zooms about the cursor, so the point under it stays put.
    fn scroll(&mut self, delta: MouseScrollDelta) {
        let lines = match delta {
            MouseScrollDelta::LineDelta(_, y) => y,
            // Trackpads: about 40 pixels make one line.
            MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
        };
        self.camera
            .zoom_about(self.cursor, ZOOM_PER_LINE.powf(lines));
    }

    fn toggle_backend(&mut self) {
        match self.sim.toggle_backend() {
            Ok(true) => {}
            Ok(false) => {
                eprintln!("simulate: no GPU narrow phase on this device; staying on the CPU")
            }
            Err(e) => eprintln!(
                "simulate: switching the backend failed ({e}); on the {}",
                self.sim.backend_label()
            ),
        }
    }

    fn cursor_moved(&mut self, position: PhysicalPosition<f64>) {
        let cursor = Vec2::new(position.x as f32, position.y as f32);
        if self.panning {
            self.camera.pan_pixels(cursor - self.cursor);
        }
        self.cursor = cursor;
    }

    fn mouse_button(&mut self, button: MouseButton, pressed: bool) -> Result<()> {
        match button {
            MouseButton::Left if pressed => {
                self.sim.grab(self.camera.screen_to_world(self.cursor))?;
            }
            MouseButton::Left => self.sim.release()?,
            MouseButton::Right | MouseButton::Middle => self.panning = pressed,
            _ => {}
        }
        Ok(())
    }
}

/// A camera showing every body, or the origin for an empty world.
fn frame_scene(sim: &Sim, viewport: UVec2) -> Camera {
    let bounds = scene_bounds(&sim.world)
        .unwrap_or(wgpu_sat::Aabb::new(Vec2::splat(-10.0), Vec2::splat(10.0)));
    Camera::framing(bounds, viewport)
}
