//! A host renderer that embeds the wgpu-sat pipeline on its own device, queue and surface,
//! and colours every polygon from the GPU's contact results without reading anything back;
//! or, with `--gpu-world`, steps a whole world on its device and draws it from the GPU
//! world's transforms buffer, again without reading anything back.
//!
//! ```text
//! cargo run --example embed                                   # a window (Esc quits)
//! cargo run --example embed -- --headless --screenshot embed.png [--frames 60] [--count 400]
//! cargo run --example embed -- --gpu-world                    # boxes falling on a floor
//! cargo run --example embed -- --headless --gpu-world --frames 240 --screenshot world.png
//! ```
//!
//! What a host writes (search for `STEP` in this example's files):
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
//! The per-frame core (`Host::encode_frame` in `host.rs`, plus the submit):
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
//!
//! With `--gpu-world` (`gpu_world/`), what a host writes instead (search for `STEP W`):
//!
//! W1. Its device as in STEP 1; the draw reads two storage buffers in the vertex stage.
//! W2. Its own `World` (here a floor between two walls and `--count` boxes in rows above
//!     it), and `GpuWorld::new(&device, &queue, &world)` once: a copy of it on the device.
//! W3. A render pipeline whose WGSL declares `BodyTransform` (`origin`, `rotation` as
//!     `(cos, sin)`: `wgpu_sat::gpu::layout::BodyTransformGpu`) and binds
//!     `gpu_world.transforms()` read-only in the vertex stage: one transform per body slot
//!     (`BodyId::index`), written by the device at the end of each step. What the host
//!     draws per body (here a box's half extents and colour) it uploads once, by slot.
//! W4. Per frame: `gpu_world.step(dt)` (it submits its own work on the queue), then in
//!     the host's encoder a render pass with one instanced draw (6 vertices per body, the
//!     instance index is the body slot), then one `queue.submit`: queue order puts the draw
//!     after the step that wrote the transforms. No pose is uploaded, nothing is read back.
//! W5. When the CPU wants the world (events, queries, a save): `gpu_world.read_world()`,
//!     a `World` with the same handles; the headless run does it once, for its summary.
//!
//! ```ignore
//! let mut gpu_world = GpuWorld::new(&device, &queue, &world)?;          // once
//! // once: a bind group of the view, gpu_world.transforms() and the host's boxes
//! gpu_world.step(1.0 / 60.0)?;                                          // per frame
//! let mut encoder = device.create_command_encoder(&Default::default());
//! let mut pass = encoder.begin_render_pass(&target_pass);
//! pass.set_pipeline(&pipeline);
//! pass.set_bind_group(0, &bind_group, &[]);
//! pass.draw(0..6, 0..bodies);                                           // one draw for all
//! drop(pass);
//! queue.submit([encoder.finish()]);
//! ```

mod gpu_world;
mod headless;
mod host;
mod renderer;
#[path = "../shared/mod.rs"]
mod shared;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, Collider, Polygon, Transform};

use headless::{headless, headless_world};
use window::run_window;

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
    /// Moving polygons (with --gpu-world: falling boxes).
    #[arg(long, default_value_t = 400)]
    count: usize,
    /// Step a World of boxes falling on a floor as a GpuWorld on the host's device, and
    /// draw it from the GPU world's transforms buffer (no readback, no pose upload).
    #[arg(long)]
    gpu_world: bool,
}

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
    let result = if args.headless && args.gpu_world {
        headless_world(&args)
    } else if args.headless {
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
