//! Thousands of bodies (polygons, circles and concave outlines split into convex pieces)
//! falling into a container, stepped by the wgpu-sat pipeline (GPU or CPU narrow phase, or
//! the GPU world) and drawn with wgpu in a winit window, or rendered headless to a PNG.
//!
//! ```text
//! cargo run --example simulate                                  # 3,000 bodies, GPU narrow phase
//! cargo run --example simulate -- --scene pile                  # convex polygons only
//! cargo run --example simulate -- --scene pyramid --rows 30
//! cargo run --example simulate -- --scene large_pyramid --backend cpu
//! cargo run --release --example simulate -- --scene pile --bodies 100000 --backend gpu-collision
//! cargo run --release --example simulate -- --scene pile --bodies 100000 --backend gpu-world
//! cargo run --example simulate -- --headless --backend gpu-world --frames 60 --screenshot gw.png
//! cargo run --example simulate -- --headless --backend gpu-world --scene level --push-every 25
//! cargo run --example simulate -- --scene level                 # a platform, a paddle, pits
//! cargo run --example simulate -- --scene joints                # chain, bridge, ragdolls, car
//! cargo run --example simulate -- --headless --frames 300 --screenshot out.png
//! cargo run --example simulate -- --headless --fire-every 20     # bullets into the pile
//! cargo run --example simulate -- --headless --lose-device-at 60  # GPU lost: the CPU takes over
//! cargo run --example simulate -- --headless --scene level --push-every 30  # bodies jump
//! cargo run --example simulate -- --headless --scene pyramid --drag-at 0,5  # a mouse drag
//! ```
//!
//! `--backend gpu-collision` steps with `World::step_on_gpu`: the GPU finds the pairs among
//! the world's boxes itself and collides them in one submit (the pairs never cross the bus).
//!
//! `--backend gpu-world` steps a `wgpu_sat::gpu::GpuWorld` built on the renderer's device
//! and queue (`device_world.rs`), and draws the bodies from its transforms buffer: the
//! instances (shape, body slot, static flag) are uploaded once, and again only when bodies
//! are added or removed, and the vertex shader reads each body's pose by its slot (see
//! `render/`). No pose is uploaded and nothing is read back to draw a frame; the world is
//! read back (`GpuWorld::read_world`) only for the title's counts (twice a second), the
//! contact overlay (C), the ray fan (L), the joints' lines (a world with joints, or a
//! drag), picking (a left press, `--drag-at`), F, the headless reports, and after an edit
//! that added bodies (the instances are built from it). Every scene runs on it. What it
//! changes:
//! - the level's movers (before every step), N, B, I, the car's keys, `--fire-every`,
//!   `--push-every` and a drag (left button, `--drag-at`: a mouse joint added, moved and
//!   removed) edit the device's world (`GpuWorld::edit`), with no rebuild;
//! - R builds the GPU world again from the scene (`GpuWorld::new`: on lavapipe about a
//!   second, for its pipelines);
//! - G reads the world back and steps on with the CPU narrow phase (drawn from the world
//!   again); G again uploads it as a new GPU world (a drag in progress carries on);
//! - sleeping bodies are not dimmed (the transforms buffer carries poses only);
//! - the title shows `GpuWorld::step`'s wall time, its device time (`kernel_time`) and the
//!   bytes its solver moved, with the counts of the world read back (the GPU world gives
//!   no per-stage statistics).
//!
//! If the GPU narrow phase fails mid-run (a lost device, out of memory, a validation
//! error), the step that failed changed nothing, so the simulation says so in one line on
//! stderr and carries on with the CPU narrow phase. The GPU world's world is read back
//! first, and the CPU carries on from it.
//!
//! Keys and mouse in the window:
//!
//! | input                 | action                                                       |
//! |-----------------------|--------------------------------------------------------------|
//! | G                     | toggle the narrow phase between GPU and CPU (with            |
//! |                       | `--backend gpu-world`: between the GPU world and the CPU)    |
//! | Space                 | pause / resume                                               |
//! | S                     | one step, pausing first if running (hold to keep stepping)   |
//! | R                     | reset the scene                                              |
//! | N                     | drop 200 more bodies above the container                     |
//! | B                     | fire a bullet at the cursor (swept: it cannot tunnel)        |
//! | I                     | push the body under the cursor up (an impulse: mass × 7/s)   |
//! | C                     | show contact points and normals                              |
//! | L                     | cast a fan of 90 rays from the cursor, drawn to their hits   |
//! | F                     | frame the whole scene again                                  |
//! | D / A / X             | joints scene: drive the car forward (+x) / back / brake      |
//! | Esc                   | quit                                                         |
//! | scroll                | zoom about the cursor                                        |
//! | right or middle drag  | pan                                                          |
//! | left drag on a body   | pull it by a mouse joint (at most 1000 × its mass); let go   |
//! |                       | to throw it                                                  |
//!
//! Sleeping bodies (an island at rest, see `World::set_sleeping`) are drawn dimmed; they
//! wake when something touches them or you drag them. The mixed and pile scenes have a
//! sensor band across the container, drawn as an outline: bodies fall through it, and it
//! counts them in and out. Picking (the left drag) is the world's point query; the pull is a
//! mouse joint (`scenes::MouseDrag`), so the body pushes what is in its way. Joints are
//! drawn as thin lines, from each moving body's centre to its anchor and anchor to anchor.
//!
//! The title shows, about twice a second: frames per second, bodies (and how many are
//! awake), candidate pairs, contacts, the last step's events (contacts begun and ended,
//! hits faster than 2 units per second, bodies into and out of the sensor), the mean
//! milliseconds of each stage of `World::step` (and, for the GPU, its upload, dispatch and
//! readback; then the continuous stage and how many bodies it swept), the narrow phase in
//! use and the adapter. On a software adapter (Mesa's lavapipe) the "GPU" runs on the CPU,
//! and the title says so.
//!
//! The world advances by a fixed 1/60 s per frame, so a slow machine shows slow motion.
//! Rendering (see `render/`) draws every body with one instanced draw call whose vertex
//! shader reads the poses (from the instances, or from the GPU world's transforms) and the
//! shape table from storage buffers. The statistics are in `stats.rs`.

mod device_world;
mod headless;
mod render;
#[path = "../shared/mod.rs"]
mod shared;
mod sim;
mod stats;
mod window;

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use wgpu_sat::glam::Vec2;

use sim::{SceneSpec, Sim};

#[derive(Parser, Debug)]
#[command(about = "Simulate and draw thousands of colliding polygons with wgpu-sat")]
pub struct Args {
    /// The scene to simulate.
    #[arg(long, value_enum, default_value_t = Scene::Mixed)]
    scene: Scene,
    /// Bodies in the mixed, pile and playground scenes.
    #[arg(long, default_value_t = 3000)]
    bodies: usize,
    /// Rows of the pyramid scene.
    #[arg(long, default_value_t = 20)]
    rows: usize,
    /// Narrow phase; default: the GPU one when an adapter exists, else the CPU one.
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Random seed of the mixed, pile, playground and level scenes and of spawned bodies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run without a window: simulate --frames frames, print statistics, and write the
    /// last frame to --screenshot if given.
    #[arg(long)]
    headless: bool,
    /// Frames to simulate in headless mode.
    #[arg(long, default_value_t = 300)]
    frames: usize,
    /// In headless mode, fire a bullet at the middle of the scene every this many frames
    /// (as the B key does at the cursor in the window).
    #[arg(long, requires = "headless")]
    fire_every: Option<usize>,
    /// In headless mode, push a dynamic body up every this many frames (as the I key does
    /// to the body under the cursor in the window), a different one each time.
    #[arg(long, requires = "headless")]
    push_every: Option<usize>,
    /// In headless mode, grab the dynamic body under this world point (`x,y`) at the first
    /// frame with a mouse joint, as a left drag does in the window, and pull it along a
    /// path (up 3 units over the first second, then swaying 2 units either side) until
    /// the last frame.
    #[arg(long, requires = "headless", value_parser = parse_point, allow_hyphen_values = true)]
    drag_at: Option<Vec2>,
    /// PNG file for the last headless frame.
    #[arg(long, requires = "headless")]
    screenshot: Option<std::path::PathBuf>,
    /// In headless mode, destroy the GPU device before this frame, as a lost device would
    /// be: shows the fall-back to the CPU narrow phase (the run carries on; no screenshot,
    /// which needs the device).
    #[arg(long, requires = "headless", conflicts_with = "screenshot")]
    lose_device_at: Option<usize>,
    /// Start with contact points and normals drawn (C toggles them in the window).
    #[arg(long)]
    contacts: bool,
    /// In headless mode, draw a fan of rays cast from the middle of the scene into the
    /// screenshot (the L key casts it from the cursor in the window).
    #[arg(long, requires = "headless")]
    ray_fan: bool,
    /// Window (or screenshot) width in pixels.
    #[arg(long, default_value_t = 1280)]
    width: u32,
    /// Window (or screenshot) height in pixels.
    #[arg(long, default_value_t = 800)]
    height: u32,
}

impl Args {
    fn scene_spec(&self) -> SceneSpec {
        SceneSpec {
            scene: self.scene,
            bodies: self.bodies,
            rows: self.rows,
            seed: self.seed,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Scene {
    /// Circles, convex polygons and concave bodies raining into a walled container.
    Mixed,
    /// Random 3- to 8-gons and boxes raining into a walled container.
    Pile,
    /// A pyramid of --rows rows of boxes.
    Pyramid,
    /// Box2D's benchmark pyramid: 100 rows, 5,050 boxes.
    #[value(name = "large_pyramid", alias = "large-pyramid")]
    LargePyramid,
    /// Capsules, rounded boxes, circles and boxes on rolling terrain made of one chain.
    Playground,
    /// A level: chain terrain with hills and pits, a moving platform, a spinning paddle, a
    /// conveyor belt, and capsules, rounded boxes, boxes and circles.
    Level,
    /// Joints: a swinging chain, a loaded bridge, ragdolls and a car on wheel joints
    /// driving over hills (A / D / X: back, forward, brake).
    Joints,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The CPU narrow phase.
    Cpu,
    /// The GPU narrow phase: the world's pairs go up, the contacts come back.
    Gpu,
    /// The GPU collision stage (`World::step_on_gpu`): the GPU finds the pairs itself and
    /// collides them; only the boxes and poses go up.
    GpuCollision,
    /// The GPU world (`wgpu_sat::gpu::GpuWorld`): collision and the solver on the GPU, the
    /// bodies drawn from its transforms buffer with no readback.
    GpuWorld,
}

use shared::Result;

/// A world point given as `x,y`.
fn parse_point(text: &str) -> std::result::Result<Vec2, String> {
    let parse = |s: &str| {
        s.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{s:?} is not a finite number"))
    };
    match text.split_once(',') {
        Some((x, y)) => Ok(Vec2::new(parse(x)?, parse(y)?)),
        None => Err(format!("{text:?} is not a point: write x,y")),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = if args.headless {
        headless::run(&args)
    } else {
        window::run(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("simulate: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The simulation of `args`' scene, stepped by `gpu` if given and `use_gpu`. Only the GPU
/// world's upload can fail (`Sim::new`, with the device's error): the error names the scene.
pub fn start_sim(args: &Args, gpu: Option<sim::GpuStage>, use_gpu: bool) -> Result<Sim> {
    Sim::new(args.scene_spec(), gpu, use_gpu).map_err(|e| {
        let scene = args.scene.to_possible_value().expect("no scene is skipped");
        format!(
            "--backend gpu-world: uploading the {} scene failed: {e}",
            scene.get_name()
        )
        .into()
    })
}

/// The device the example asks for: the crate's portable limits (see
/// `wgpu_sat::request_device`) with the adapter's own storage-buffer sizes, so large batches
/// fit, and timestamp queries when the adapter has them.
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    let adapter_limits = adapter.limits();
    wgpu::DeviceDescriptor {
        label: Some("simulate device"),
        required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
        required_limits: wgpu::Limits {
            max_storage_buffer_binding_size: adapter_limits.max_storage_buffer_binding_size,
            max_buffer_size: adapter_limits.max_buffer_size,
            ..wgpu::Limits::downlevel_defaults().using_resolution(adapter_limits)
        },
        ..Default::default()
    }
}

/// The GPU stage on the renderer's device, as `--backend` asks (the collision stage for
/// `gpu-collision`, the GPU world for `gpu-world`, else the narrow phase): `(stage, start
/// on it)`. With `--backend gpu` or `gpu-collision` a failure is an error; by default it
/// falls back to the CPU with a note. (The GPU world is built with the scene, by `Sim::new`.)
pub fn gpu_narrow_phase(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    backend: Option<Backend>,
) -> Result<(Option<sim::GpuStage>, bool)> {
    let stage = match backend {
        Some(Backend::GpuWorld) => Ok(sim::GpuStage::World(Box::new(
            device_world::DeviceWorld::new(device, queue),
        ))),
        Some(Backend::GpuCollision) => wgpu_sat::gpu::GpuCollision::new(device, queue)
            .map(|c| sim::GpuStage::Collision(Box::new(c))),
        _ => {
            wgpu_sat::GpuNarrowPhase::new(device, queue).map(|n| sim::GpuStage::Narrow(Box::new(n)))
        }
    };
    match stage {
        Ok(gpu) => Ok((Some(gpu), backend != Some(Backend::Cpu))),
        Err(e) if matches!(backend, Some(Backend::Gpu | Backend::GpuCollision)) => {
            Err(format!("--backend: the GPU stage failed to start: {e}").into())
        }
        Err(e) => {
            eprintln!("simulate: GPU narrow phase unavailable ({e}); using the CPU one");
            Ok((None, false))
        }
    }
}
