//! `--headless`: simulate a number of frames with no window (no winit event loop is ever
//! created, so no display is needed), print statistics, and render the last frame offscreen
//! to a PNG with the same renderer the window uses.

use std::path::Path;

use wgpu_sat::glam::{UVec2, Vec2};

use crate::render::{Camera, DrawOptions, Renderer, scene_bounds};
use crate::shared::{OFFSCREEN_FORMAT, Offscreen, write_png};
use crate::sim::{DT, Sim};
use crate::stats::{AdapterLabel, StatsWindow};
use crate::{Args, Backend, Result};

/// Print a line of statistics every this many frames.
const REPORT_EVERY: usize = 60;

pub fn run(args: &Args) -> Result<()> {
    // Fail before a long run, not after it, when the screenshot cannot be written.
    let parent = args.screenshot.as_deref().and_then(Path::parent);
    if let Some(dir) = parent.filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        return Err(format!(
            "cannot write the screenshot: {} is not a folder",
            dir.display()
        )
        .into());
    }
    // A device is needed to render a screenshot or to run the GPU narrow phase; a CPU-only
    // run without a screenshot needs none, and works with no adapter at all.
    let wants_gpu = args.backend != Some(Backend::Cpu);
    let device = if args.screenshot.is_some() || wants_gpu {
        match wgpu_sat::request_device() {
            Ok(device) => Some(device),
            Err(e) if args.screenshot.is_none() && args.backend.is_none() => {
                eprintln!("simulate: {e}; using the CPU narrow phase");
                None
            }
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let (gpu, use_gpu) = match &device {
        Some((device, queue)) if wants_gpu => crate::gpu_narrow_phase(device, queue, args.backend)?,
        _ => (None, false),
    };
    let adapter = AdapterLabel::of(device.as_ref().map(|(d, _)| d));
    let mut sim = crate::start_sim(args, gpu, use_gpu)?;
    // Framed on the scene as built, as the window starts: the container stays in view.
    let viewport = UVec2::new(args.width.max(1), args.height.max(1));
    let camera = scene_bounds(&sim.world).map(|b| Camera::framing(b, viewport));

    println!(
        "simulate: {} bodies, {} frames, {}, {}",
        sim.world.body_count(),
        args.frames,
        sim.backend_label(),
        adapter.name
    );
    let mut total = StatsWindow::new();
    let mut window = StatsWindow::new();
    let scene_middle = scene_bounds(&sim.world).map(|b| b.center());
    // Bodies pushed by --push-every (a push finds no dynamic body only in a scene of none).
    let mut pushed = 0;
    if let Some(at) = args.drag_at {
        sim.grab(at)?;
        match sim.dragged_body() {
            Some(body) => println!("--drag-at: grabbed {body} at ({}, {})", at.x, at.y),
            None => println!("--drag-at: no dynamic body at ({}, {})", at.x, at.y),
        }
    }
    for frame in 1..=args.frames {
        if let (Some(at), Some((device, _))) = (args.lose_device_at, &device)
            && frame == at
        {
            println!("frame {frame:>5}: destroying the GPU device (--lose-device-at)");
            device.destroy();
        }
        if let (Some(every), Some(target)) = (args.fire_every, scene_middle)
            && frame % every.max(1) == 0
        {
            sim.fire(target)?;
        }
        if let Some(every) = args.push_every
            && frame % every.max(1) == 0
        {
            pushed += usize::from(sim.push_one(frame / every.max(1))?);
        }
        if let Some(start) = args.drag_at {
            sim.drag_to(drag_path(start, (frame - 1) as f32 * DT))?;
        }
        let stepped = sim
            .advance()?
            .expect("a headless run never pauses, so every frame steps");
        for s in [&mut total, &mut window] {
            s.frame();
            s.record(&stepped, &sim.world);
        }
        if frame % REPORT_EVERY == 0 && frame != args.frames {
            // The GPU world's counts are read from its world: read back only for the report.
            sim.sync_world()?;
            println!(
                "frame {frame:>5}: {}",
                window.summary("steps/s", &sim, &adapter)
            );
            window = StatsWindow::after(&window);
        }
    }
    sim.sync_world()?;
    println!(
        "done, {} frames in {:.2} s: {}",
        args.frames,
        total.elapsed().as_secs_f64(),
        total.summary("steps/s", &sim, &adapter)
    );
    if args.push_every.is_some() {
        println!("pushed {pushed} bodies up (--push-every)");
    }
    if let (Some(body), Some(drag)) = (sim.dragged_body(), sim.drag()) {
        // The pull's gap: how far the grabbed point trails its target.
        let gap = sim
            .world
            .joint_anchors(drag.joint())
            .map_or(f32::NAN, |[target, point]| target.distance(point));
        let target = drag.target();
        println!(
            "dragged {body} to ({:.2}, {:.2}); the grabbed point {gap:.2} from it",
            target.x, target.y
        );
    }

    if let Some(path) = &args.screenshot {
        let (device, queue) = device
            .as_ref()
            .expect("a device was requested for the screenshot");
        let camera = camera.ok_or("the scene is empty: nothing to frame")?;
        let options = DrawOptions {
            show_contacts: args.contacts,
            selected: sim.dragged_body(),
            ray_fan: args.ray_fan.then_some(camera.center),
        };
        screenshot(device, queue, &sim, &camera, &options, path)?;
        println!("wrote {} ({}x{})", path.display(), viewport.x, viewport.y);
    }
    Ok(())
}

/// Rise of `--drag-at`'s target over its first second, and its sway afterwards (either
/// side, a full swing every `DRAG_SWAY_PERIOD` seconds), world units.
const DRAG_RISE: f32 = 3.0;
const DRAG_SWAY: f32 = 2.0;
const DRAG_SWAY_PERIOD: f32 = 2.0;

/// Where `--drag-at` pulls the grabbed point `seconds` after the grab.
fn drag_path(start: Vec2, seconds: f32) -> Vec2 {
    let rise = DRAG_RISE * seconds.min(1.0);
    let swaying = (seconds - 1.0).max(0.0);
    let sway = DRAG_SWAY * (std::f32::consts::TAU * swaying / DRAG_SWAY_PERIOD).sin();
    start + Vec2::new(sway, rise)
}

/// Renders the world into an offscreen texture and writes it to `path` as a PNG.
fn screenshot(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    sim: &Sim,
    camera: &Camera,
    options: &DrawOptions,
    path: &Path,
) -> Result<()> {
    let UVec2 {
        x: width,
        y: height,
    } = camera.viewport;
    let target = Offscreen::new(device, "simulate screenshot", width, height);
    let mut renderer = Renderer::new(device, queue, OFFSCREEN_FORMAT);
    // On the GPU world the bodies are drawn from its transforms buffer, not from `sim.world`
    // (which `run` read back for its summary, and which the overlay draws from).
    renderer.prepare(&sim.world, sim.device_transforms(), camera, options);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("simulate screenshot readback"),
        size: target.copy_bytes(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("simulate screenshot"),
    });
    renderer.render(&mut encoder, &target.view);
    target.copy_to(&mut encoder, &readback, 0);
    queue.submit([encoder.finish()]);

    let slice = readback.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    receiver.recv()??;
    let pixels = target.unpad(&slice.get_mapped_range()?);
    readback.unmap();
    write_png(path, width, height, &pixels)
}
