//! Every stage on every backend at several sizes, as one table, a CSV file and a chart.
//!
//! - `narrow_phase`: seeded batches of candidate pairs (`scenes::narrow_phase_batch`) through
//!   `CpuNarrowPhase` (one thread), `ParallelCpuNarrowPhase`, `GpuNarrowPhase` (end to end,
//!   and its kernel time from timestamp queries) and parry2d's polygon contact manifold.
//!   Ours write into one reused vector (`collide_pairs_into`, as `World` does).
//! - `broad_phase`: all overlapping pairs among moving boxes, with our sweep-and-prune,
//!   parry2d's BVH (rebuilt each frame, and kept and refitted as rapier does), the GPU broad
//!   phase (`GpuBroadPhase`, with the bytes it moves) and its CPU twin (`sort_sweep`).
//! - `collision`: colliders in, contacts out: our CPU path (parallel sweep and narrow
//!   phase), the one-thread twin `collision::find_contacts`, and `GpuCollision` (pairs
//!   found and collided on the GPU, only their count and the contacts read back, with the
//!   bytes it moves); then `World::step_on_gpu` of the `world_step` worlds.
//! - `world_step/pile`, `world_step/large_pyramid`: one `World::step(1/60)` of a warm world
//!   (see `benches/world_step.rs`) with each narrow phase.
//! - `world_step_vs_box2d`: Box2D v3 and ours on the same scenes with Box2D's benchmark
//!   protocol (`benches/common/box2d/`) at 1 and 2 threads. Ours is timed as an
//!   application calls it, `World::step` from its main thread on rayon's global pool; that
//!   pool is sized once per process, so each thread count runs in a child process of this
//!   example with `RAYON_NUM_THREADS` set. The same stretch inside a pool of its own
//!   (`pool.install`) is timed beside it.
//! - `gpu_world/pile`: the GPU world (`gpu::GpuWorld`) against the CPU world and Box2D v3 on
//!   warm piles of 5,000, 20,000 and 100,000 bodies, and `gpu_world/joint_grid` on Box2D's
//!   joint grid (`gpu_world.rs`).
//!
//! Each number is the median of several samples; a sample repeats the call until it has
//! run for a few milliseconds, so that short calls are not lost in the clock's noise.
//! Inputs are made once from a fixed seed, outside the timing; every backend is warmed up
//! (the GPU's first dispatch compiles the shader) before it is timed.
//!
//! Writes `benchmark.csv` and `benchmark.png` (time against size, log-log, one panel per
//! stage) into `--out` (default `bench-out/`). On a software adapter (lavapipe) the GPU
//! numbers are CPU times, and the output says so.
//!
//! - `--snapshot` alone: `World::snapshot` and `World::from_snapshot` of a settled
//!   10,000-body pile as a ratio to one step of it, and snapshot bytes per body and per
//!   contact point on several scenes (the table in `docs/snapshot.md`).
//!
//! ```text
//! cargo run --release --example benchmark -- --quick --out /tmp/bench   # < 1 min, as in CI
//! cargo run --release --example benchmark -- --snapshot                 # snapshot cost and size
//! cargo run --release --example benchmark                               # a few minutes
//! cargo run --release --example benchmark -- --versus-only --scene large_pyramid
//! cargo run --release --example benchmark -- --stage broad_phase        # one stage
//! ```
//!
//! The stages are timed in `stages.rs`, the Box2D comparison in `versus.rs`, the snapshot
//! section in `snapshot.rs`; `report.rs` and `chart.rs` write the results.

mod chart;
mod collision;
#[path = "../../benches/common/mod.rs"]
mod common;
mod gpu_world;
mod report;
mod snapshot;
mod stages;
mod versus;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;

use chart::chart;
use collision::collision;
use gpu_world::gpu_world;
use report::{csv, table, targets};
use snapshot::snapshot_section;
use stages::{broad_phase, narrow_phase, queries, world_step};
use versus::{versus_box2d, versus_child, versus_table};

#[derive(Parser)]
#[command(about = "Benchmark every stage on every backend; write a table, a CSV and a chart")]
struct Args {
    /// Fewer sizes and samples: finishes in under a minute on two cores (for CI).
    #[arg(long)]
    quick: bool,
    /// Directory for benchmark.csv and benchmark.png.
    #[arg(long, default_value = "bench-out")]
    out: PathBuf,
    /// Only the world step against Box2D (its table, CSV rows and chart panel): the quick
    /// way to compare the engines while working on the step.
    #[arg(long)]
    versus_only: bool,
    /// Samples per measurement (the median is reported); default 5 with --quick, else 11.
    #[arg(long)]
    samples: Option<usize>,
    /// Only this scene of the Box2D comparison (repeat for more; default all of them):
    /// large_pyramid, many_pyramids, smash, compounds, washer, junkyard, joint_grid, spinner,
    /// rain, tumbler, pile_10000, mixed_3000.
    #[arg(long)]
    scene: Vec<String>,
    /// Rounds of the Box2D comparison (each engine's median round is reported); default 1
    /// with --quick, else 5.
    #[arg(long)]
    rounds: Option<usize>,
    /// Run the Box2D comparison at this thread count only and print it for the parent
    /// process to gather (the global rayon pool is sized once per process, so the parent
    /// runs one child per thread count, with RAYON_NUM_THREADS set).
    #[arg(long, hide = true)]
    versus_child: Option<usize>,
    /// Only the snapshot section: write and read a settled 10,000-body pile's snapshot
    /// (against one step of it), and bytes per body on several scenes.
    #[arg(long)]
    snapshot: bool,
    /// Only these stages (repeat for more; default all): narrow_phase, broad_phase,
    /// collision, world_step, gpu_world, queries, versus.
    #[arg(long, value_parser = ["narrow_phase", "broad_phase", "collision", "world_step", "gpu_world", "queries", "versus"])]
    stage: Vec<String>,
}

/// What to measure: the sizes of each stage, the samples per measurement (the median is
/// reported), and how long a sample runs at least (repeating short calls).
struct Plan {
    samples: usize,
    min_sample: Duration,
    narrow_sizes: &'static [usize],
    broad_sizes: &'static [usize],
    pile_sizes: &'static [usize],
    /// Colliders in the ray-cast worlds.
    query_sizes: &'static [usize],
    /// Timed steps of the Box2D comparison: `None` for Box2D's benchmark program's counts
    /// (N - 1 after an untimed first step).
    versus_steps: Option<usize>,
    /// Bodies in the piles of the GPU world's comparison, and its timed steps.
    /// Bodies in the piles of the GPU world's comparison, and its timed steps.
    gpu_world_sizes: &'static [usize],
    gpu_world_steps: usize,
    /// Whether the `gpu_world` stage also steps Box2D's joint grid.
    gpu_world_joints: bool,
    /// Rounds of the Box2D comparison: each builds both worlds afresh and times both engines
    /// one after the other; each engine's median round is reported.
    versus_rounds: usize,
}

/// One row of the table.
struct Row {
    stage: String,
    backend: &'static str,
    size: usize,
    /// What `size` and the rate count: pairs, boxes or bodies.
    unit: &'static str,
    median: Duration,
    /// Bytes written to the GPU and read back per call (GPU rows only).
    upload: Option<u64>,
    readback: Option<u64>,
    /// The compute pass's own time, from timestamp queries (GPU rows, where available).
    kernel: Option<Duration>,
}

impl Row {
    fn per_second(&self) -> f64 {
        self.size as f64 / self.median.as_secs_f64()
    }
}

/// Median over `samples` samples of the time of one `call`. A first call (a warm-up, not
/// timed in the result) decides how many calls a sample needs to last `min_sample`.
/// `call` returns the extra time to report alongside (the GPU kernel time), summed per
/// sample and divided like the wall time.
fn measure(
    plan: &Plan,
    mut call: impl FnMut() -> Option<Duration>,
) -> (Duration, Option<Duration>) {
    let start = Instant::now();
    call();
    let once = start.elapsed().max(Duration::from_nanos(1));
    let reps = (plan.min_sample.as_secs_f64() / once.as_secs_f64())
        .ceil()
        .clamp(1.0, 10_000.0) as u32;
    let mut wall = Vec::with_capacity(plan.samples);
    let mut extra = Vec::with_capacity(plan.samples);
    for _ in 0..plan.samples {
        let mut sum = None;
        let start = Instant::now();
        for _ in 0..reps {
            if let Some(d) = call() {
                sum = Some(sum.unwrap_or(Duration::ZERO) + d);
            }
        }
        wall.push(start.elapsed() / reps);
        if let Some(s) = sum {
            extra.push(s / reps);
        }
    }
    (median(wall), (!extra.is_empty()).then(|| median(extra)))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let plan = if args.quick {
        Plan {
            samples: args.samples.unwrap_or(5).max(1),
            min_sample: Duration::from_millis(5),
            narrow_sizes: &[1_000, 10_000, 100_000],
            broad_sizes: &[1_000, 10_000, 100_000],
            pile_sizes: &[1_000, 3_000, 10_000],
            query_sizes: &[10_000, 100_000],
            gpu_world_sizes: &[5_000],
            gpu_world_steps: 3,
            gpu_world_joints: false,
            versus_steps: Some(10),
            versus_rounds: args.rounds.unwrap_or(1).max(1),
        }
    } else {
        Plan {
            samples: args.samples.unwrap_or(11).max(1),
            min_sample: Duration::from_millis(20),
            narrow_sizes: &[1_000, 3_000, 10_000, 30_000, 100_000, 200_000, 1_000_000],
            broad_sizes: &[1_000, 10_000, 100_000, 1_000_000],
            pile_sizes: &[1_000, 3_000, 10_000, 30_000],
            query_sizes: &[10_000, 100_000],
            gpu_world_sizes: &[5_000, 20_000, 100_000],
            gpu_world_steps: 10,
            gpu_world_joints: true,
            versus_steps: None,
            // Five: on a shared machine a round can be slowed from outside (a neighbour on
            // the other core), and the median of five stands two such rounds per engine.
            versus_rounds: args.rounds.unwrap_or(5).max(1),
        }
    };
    if let Some(threads) = args.versus_child {
        return versus_child(&plan, &args.scene, threads);
    }
    if args.snapshot {
        return snapshot_section(&plan);
    }
    let run_start = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "wgpu-sat benchmark ({} mode, {threads} CPU threads)",
        if args.quick { "quick" } else { "full" }
    );
    let gpu = common::gpu();
    let adapter_line = match &gpu {
        Some(g) => format!("GPU adapter: {}", g.describe()),
        None => "GPU adapter: none (GPU rows skipped)".to_string(),
    };
    println!("{adapter_line}");

    let mut rows = Vec::new();
    let runs = |stage: &str| args.stage.is_empty() || args.stage.iter().any(|s| s == stage);
    if !args.versus_only {
        if runs("narrow_phase") {
            narrow_phase(&plan, gpu.as_ref(), &mut rows)?;
        }
        if runs("broad_phase") {
            broad_phase(&plan, gpu.as_ref(), &mut rows)?;
        }
        if runs("collision") {
            collision(&plan, gpu.as_ref(), &mut rows)?;
        }
        if runs("world_step") {
            world_step(&plan, gpu.as_ref(), &mut rows)?;
        }
        if runs("gpu_world") {
            gpu_world(&plan, gpu.as_ref(), &mut rows)?;
        }
        if runs("queries") {
            queries(&plan, gpu.as_ref(), &mut rows)?;
        }
    }
    let versus = if args.versus_only || runs("versus") {
        versus_box2d(&args, &mut rows)?
    } else {
        Vec::new()
    };

    println!();
    print!("{}", table(&rows));
    println!();
    print!("{}", versus_table(&versus));
    targets(&rows);
    if gpu.as_ref().is_some_and(|g| g.is_software()) {
        println!("software adapter: GPU times are CPU times, not GPU speed");
    }
    std::fs::create_dir_all(&args.out)?;
    let csv_path = args.out.join("benchmark.csv");
    std::fs::write(&csv_path, csv(&rows))?;
    println!("wrote {}", csv_path.display());
    let png_path = args.out.join("benchmark.png");
    if common::register_font() {
        chart(&rows, &adapter_line, &png_path)?;
        println!("wrote {}", png_path.display());
    } else {
        println!(
            "no TrueType font found (install fonts-dejavu-core or set WGPU_SAT_FONT): no chart"
        );
    }
    println!("total {:.1} s", run_start.elapsed().as_secs_f64());
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
