//! Every stage on every backend at several sizes, as one table, a CSV file and a chart.
//!
//! - `narrow_phase`: seeded batches of candidate pairs (`scenes::narrow_phase_batch`) through
//!   `CpuNarrowPhase` (one thread), `ParallelCpuNarrowPhase`, `GpuNarrowPhase` (end to end,
//!   and its kernel time from timestamp queries) and parry2d's polygon contact manifold.
//!   Ours write into one reused vector (`collide_pairs_into`, as `World` does).
//! - `broad_phase`: all overlapping pairs among moving boxes, with our sweep-and-prune and
//!   parry2d's BVH (rebuilt each frame, and kept and refitted as rapier does).
//! - `world_step/pile`, `world_step/large_pyramid`: one `World::step(1/60)` of a warm world
//!   (see `benches/world_step.rs`) with each narrow phase.
//! - `world_step_vs_box2d`: Box2D v3 and ours on the same scenes with Box2D's benchmark
//!   protocol (`benches/common/box2d.rs`) at 1 and 2 threads. Ours is timed as an
//!   application calls it, `World::step` from its main thread on rayon's global pool; that
//!   pool is sized once per process, so each thread count runs in a child process of this
//!   example with `RAYON_NUM_THREADS` set. The same stretch inside a pool of its own
//!   (`pool.install`) is timed beside it.
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
//! ```

#[path = "../benches/common/mod.rs"]
mod common;

use common::box2d;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use parry2d::partitioning::BvhWorkspace;
use wgpu_sat::{
    BroadPhase, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, World, scenes,
};

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
            versus_steps: Some(10),
            versus_rounds: args.rounds.unwrap_or(1).max(1),
        }
    } else {
        Plan {
            samples: args.samples.unwrap_or(11).max(1),
            min_sample: Duration::from_millis(20),
            narrow_sizes: &[1_000, 3_000, 10_000, 30_000, 100_000, 200_000, 1_000_000],
            broad_sizes: &[1_000, 3_000, 10_000, 50_000, 100_000],
            pile_sizes: &[1_000, 3_000, 10_000, 30_000],
            query_sizes: &[10_000, 100_000],
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
    if !args.versus_only {
        narrow_phase(&plan, gpu.as_ref(), &mut rows)?;
        broad_phase(&plan, &mut rows);
        world_step(&plan, gpu.as_ref(), &mut rows)?;
        queries(&plan, gpu.as_ref(), &mut rows)?;
    }
    let versus = versus_box2d(&args, &mut rows)?;

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

fn narrow_phase(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let mut gpu_narrow = match gpu {
        Some(g) => Some(GpuNarrowPhase::new(&g.device, &g.queue)?),
        None => None,
    };
    for &n in plan.narrow_sizes {
        let batch = scenes::narrow_phase_batch(n, common::SEED);
        let (colliders, pairs) = (&batch.colliders, &batch.pairs);
        let row = |backend, median, upload, readback, kernel| Row {
            stage: "narrow_phase".to_string(),
            backend,
            size: pairs.len(),
            unit: "pairs",
            median,
            upload,
            readback,
            kernel,
        };

        let mut cpu = CpuNarrowPhase::new();
        cpu.set_shapes(&batch.shapes)?;
        let reference = cpu.collide_pairs(colliders, pairs)?;
        // Every timed call writes into this vector, as `World` does, so that once it has
        // grown the calls time the work and not the allocator.
        let mut out = Vec::new();
        let (t, _) = measure(plan, || {
            cpu.collide_pairs_into(colliders, pairs, &mut out).unwrap();
            std::hint::black_box(out.len());
            None
        });
        rows.push(row("cpu_1_thread", t, None, None, None));

        let mut parallel = ParallelCpuNarrowPhase::new();
        parallel.set_shapes(&batch.shapes)?;
        let (t, _) = measure(plan, || {
            parallel
                .collide_pairs_into(colliders, pairs, &mut out)
                .unwrap();
            std::hint::black_box(out.len());
            None
        });
        rows.push(row("cpu_parallel", t, None, None, None));

        if let Some(narrow) = gpu_narrow.as_mut() {
            narrow.set_shapes(&batch.shapes)?;
            // Warm-up: compiles the shader on the first size, sizes the buffers, and sets
            // the shape ids, so the timed calls upload only poses and pairs.
            let contacts = narrow.collide_pairs(colliders, pairs)?;
            // The tests hold the backends to the same answers; this only guards the numbers
            // against comparing different work (near-touching pairs may differ).
            if contacts.len().abs_diff(reference.len()) > 5 {
                eprintln!(
                    "WARNING: GPU found {} contacts, CPU {}",
                    contacts.len(),
                    reference.len()
                );
            }
            let timestamps = narrow.timings().is_some_and(|t| t.kernel.is_some());
            let (t, kernel) = measure(plan, || {
                narrow
                    .collide_pairs_into(colliders, pairs, &mut out)
                    .unwrap();
                std::hint::black_box(out.len());
                narrow.timings().and_then(|t| t.kernel)
            });
            rows.push(row(
                "gpu",
                t,
                Some(common::gpu_upload_bytes(
                    colliders.len(),
                    pairs.len(),
                    false,
                )),
                Some(common::gpu_readback_bytes(contacts.len(), timestamps)),
                kernel,
            ));
        }

        let parry = common::ParryBatch::new(&batch.shapes, colliders);
        let mismatches = common::check_parry_agrees(&parry, &batch, &reference);
        let (t, _) = measure(plan, || {
            std::hint::black_box(parry.count_overlapping(colliders, pairs));
            None
        });
        rows.push(row("parry2d", t, None, None, None));
        eprintln!(
            "narrow_phase {n}: {} overlapping; parry2d differs on {mismatches}",
            reference.len()
        );
    }
    Ok(())
}

/// Closest-hit ray casts against worlds of static colliders, ours and parry2d's BVH on the
/// same shapes (see `benches/common/queries.rs`): one row per side and world size, the
/// size being the rays of a call.
fn queries(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    use common::queries::{RAYS_PER_CALL, RayScene};
    let mut gpu_rays = match gpu {
        Some(g) => Some(wgpu_sat::gpu::GpuRayCast::new(&g.device, &g.queue)?),
        None => None,
    };
    for &n in plan.query_sizes {
        let scene = RayScene::new(n, common::SEED);
        let (differ, hits) = scene.check();
        eprintln!("ray_cast {n}: {hits} of {RAYS_PER_CALL} rays hit; parry2d differs on {differ}");
        let row = |backend, median| Row {
            stage: format!("ray_cast/{n}"),
            backend,
            size: RAYS_PER_CALL,
            unit: "rays",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        let (t, _) = measure(plan, || {
            std::hint::black_box(scene.cast_ours());
            None
        });
        rows.push(row("cpu_1_thread", t));
        let (t, _) = measure(plan, || {
            std::hint::black_box(scene.cast_parry());
            None
        });
        rows.push(row("parry2d", t));

        // The batch form: every (ray, collider) pair whose boxes meet, on the GPU and on
        // one CPU thread; the size is the pairs of a call.
        let (colliders, rays, pairs) = scene.batch();
        let shapes = scene.world.shapes();
        let batch_row = |backend, median| Row {
            stage: format!("ray_batch/{n}"),
            backend,
            size: pairs.len(),
            unit: "pairs",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        let reference = wgpu_sat::query::cast_ray_pairs(shapes, &colliders, &rays, &pairs)?;
        let (t, _) = measure(plan, || {
            let hits = wgpu_sat::query::cast_ray_pairs(shapes, &colliders, &rays, &pairs).unwrap();
            std::hint::black_box(hits.len());
            None
        });
        rows.push(batch_row("cpu_1_thread", t));
        if let Some(gpu_rays) = gpu_rays.as_mut() {
            gpu_rays.set_shape_table(shapes)?;
            let mut out = Vec::new();
            gpu_rays.cast_ray_pairs_into(&colliders, &rays, &pairs, &mut out)?;
            let differ = out
                .iter()
                .zip(&reference)
                .filter(|(a, b)| a.is_some() != b.is_some())
                .count();
            eprintln!(
                "ray_batch {n}: {} pairs; the GPU differs from the CPU on {differ}",
                pairs.len()
            );
            let (t, _) = measure(plan, || {
                gpu_rays
                    .cast_ray_pairs_into(&colliders, &rays, &pairs, &mut out)
                    .unwrap();
                std::hint::black_box(out.len());
                None
            });
            let mut r = batch_row("gpu", t);
            // Per call: the poses, 24 bytes per pair up; a 16-byte record per pair back.
            r.upload = Some(16 * colliders.len() as u64 + 24 * pairs.len() as u64);
            r.readback = Some(16 * pairs.len() as u64);
            rows.push(r);
        }
    }
    Ok(())
}

fn broad_phase(plan: &Plan, rows: &mut Vec<Row>) {
    for &n in plan.broad_sizes {
        let boxes = common::MovingBoxes::new(n, common::SEED);
        let parry_frames = boxes.parry_frames();
        let mut sap = BroadPhase::new();
        let mut workspace = BvhWorkspace::default();
        let mut refit = common::ParryBvhRefit::new(&parry_frames[0]);
        let mut theirs = Vec::new();
        // The same pairs from all three, checked once on the first frame.
        let ours = sap.find_pairs(&boxes.frames[0]).to_vec();
        common::parry_bvh_rebuild(&parry_frames[0], &mut workspace, &mut theirs);
        common::assert_same_pairs("rebuild", &ours, &theirs);
        refit.find_pairs(&parry_frames[0], &mut theirs);
        common::assert_same_pairs("refit", &ours, &theirs);

        let row = |backend, median| Row {
            stage: "broad_phase".to_string(),
            backend,
            size: n,
            unit: "boxes",
            median,
            upload: None,
            readback: None,
            kernel: None,
        };
        // Every call takes the next frame of the periodic motion (see MovingBoxes).
        let mut frame = 0;
        let mut next = || {
            frame = (frame + 1) % common::FRAMES;
            frame
        };
        let (t, _) = measure(plan, || {
            std::hint::black_box(sap.find_pairs(&boxes.frames[next()]).len());
            None
        });
        rows.push(row("sweep_and_prune", t));
        let (t, _) = measure(plan, || {
            common::parry_bvh_rebuild(&parry_frames[next()], &mut workspace, &mut theirs);
            None
        });
        rows.push(row("parry2d_bvh_rebuild", t));
        let (t, _) = measure(plan, || {
            refit.find_pairs(&parry_frames[next()], &mut theirs);
            None
        });
        rows.push(row("parry2d_bvh_refit", t));
        eprintln!("broad_phase {n}: {} pairs", ours.len());
    }
}

fn world_step(
    plan: &Plan,
    gpu: Option<&common::Gpu>,
    rows: &mut Vec<Row>,
) -> Result<(), wgpu_sat::Error> {
    let mut worlds: Vec<(&'static str, World)> = plan
        .pile_sizes
        .iter()
        .map(|&n| {
            let world = scenes::pile(n, common::SEED);
            (
                "world_step/pile",
                common::warm_world(world, common::pile_warm_frames(n)),
            )
        })
        .collect();
    worlds.push((
        "world_step/large_pyramid",
        common::warm_world(scenes::large_pyramid(), 60),
    ));
    let mut gpu_narrow = match gpu {
        Some(g) => Some(GpuNarrowPhase::new(&g.device, &g.queue)?),
        None => None,
    };
    for (stage, warm) in &worlds {
        let mut cpu = CpuNarrowPhase::new();
        let mut parallel = ParallelCpuNarrowPhase::new();
        let mut backends: Vec<(&'static str, &mut dyn NarrowPhase)> =
            vec![("cpu_1_thread", &mut cpu), ("cpu_parallel", &mut parallel)];
        if let Some(narrow) = gpu_narrow.as_mut() {
            backends.push(("gpu", narrow));
        }
        for (backend, narrow) in backends {
            // A step of a clone of the same warm world each time: every backend and
            // sample steps the identical state. The clone is made outside the timing.
            let mut samples = Vec::with_capacity(plan.samples);
            let mut kernels = Vec::new();
            let mut last = None;
            for k in 0..=plan.samples {
                let mut world = warm.clone();
                let start = Instant::now();
                let stats = world.step(common::DT, narrow)?;
                let t = start.elapsed();
                // Sample 0 is the warm-up (shape upload, shader compilation).
                if k > 0 {
                    samples.push(t);
                    if let Some(kernel) = stats.narrow_phase_detail.and_then(|d| d.kernel) {
                        kernels.push(kernel);
                    }
                }
                last = Some(stats);
            }
            let stats = last.expect("at least one step");
            let is_gpu = backend == "gpu";
            rows.push(Row {
                stage: stage.to_string(),
                backend,
                size: stats.bodies,
                unit: "bodies",
                median: median(samples),
                upload: is_gpu.then(|| common::gpu_upload_bytes(stats.bodies, stats.pairs, false)),
                readback: is_gpu
                    .then(|| common::gpu_readback_bytes(stats.contacts, !kernels.is_empty())),
                kernel: (!kernels.is_empty()).then(|| median(kernels)),
            });
            if backend == "cpu_1_thread" {
                eprintln!(
                    "{stage} {}: {} pairs, {} contacts per step",
                    stats.bodies, stats.pairs, stats.contacts
                );
            }
        }
    }
    Ok(())
}

/// One scene at one thread count, in both engines.
struct Versus {
    scene: &'static str,
    threads: usize,
    bodies: usize,
    /// Ours stepped from the application's thread, on rayon's global pool of `threads`
    /// threads: the figure a user sees.
    ours: box2d::Run,
    /// Ours with the whole stretch inside a pool of `threads` threads (`pool.install`).
    in_pool: box2d::Run,
    theirs: box2d::Run,
    /// The median over the rounds of ours over Box2D's within the round. The two run back
    /// to back in a round, so a host whose speed drifts between rounds (a shared virtual
    /// machine's does, by a third) moves both sides of each round's ratio alike.
    round_ratio: f64,
}

impl Versus {
    /// One line of a child's output: `versus <scene> <threads> <bodies>` and each run as
    /// `steps,total_ns,collision_ns,recycled` (ours, in the pool, Box2D's), then the
    /// rounds' median ratio.
    fn to_line(&self) -> String {
        let run = |r: &box2d::Run| {
            format!(
                "{},{},{},{}",
                r.steps,
                r.total.as_nanos(),
                r.collision.as_nanos(),
                r.recycled
            )
        };
        format!(
            "versus {} {} {} {} {} {} {}",
            self.scene,
            self.threads,
            self.bodies,
            run(&self.ours),
            run(&self.in_pool),
            run(&self.theirs),
            self.round_ratio
        )
    }

    /// The inverse of [`Versus::to_line`]; `None` for any other line.
    fn from_line(line: &str) -> Option<Versus> {
        let run = |field: &str| -> Option<box2d::Run> {
            let mut parts = field.split(',');
            let mut next = || parts.next();
            let steps = next()?.parse().ok()?;
            let total = Duration::from_nanos(next()?.parse().ok()?);
            let collision = Duration::from_nanos(next()?.parse().ok()?);
            let recycled = next()?.parse().ok()?;
            Some(box2d::Run {
                steps,
                total,
                collision,
                recycled,
            })
        };
        let mut fields = line.split_whitespace();
        if fields.next()? != "versus" {
            return None;
        }
        let name = fields.next()?;
        let scene = box2d::SCENES.iter().find(|s| s.name == name)?.name;
        Some(Versus {
            scene,
            threads: fields.next()?.parse().ok()?,
            bodies: fields.next()?.parse().ok()?,
            ours: run(fields.next()?)?,
            in_pool: run(fields.next()?)?,
            theirs: run(fields.next()?)?,
            round_ratio: fields.next()?.parse().ok()?,
        })
    }
}

/// Who a row of the comparison times, and how.
#[derive(Clone, Copy)]
enum Side {
    /// Ours from the application's thread (rayon's global pool).
    Ours,
    /// Ours inside a pool of its own.
    InPool,
    Box2d,
}

/// The backend names of the comparison's rows, by side and thread count.
fn versus_backend(side: Side, threads: usize, cores: usize) -> &'static str {
    match (side, threads) {
        (Side::Ours, 1) => "wgpu_sat_1_thread",
        (Side::Ours, 2) => "wgpu_sat_2_threads",
        (Side::InPool, 1) => "wgpu_sat_in_pool_1_thread",
        (Side::InPool, 2) => "wgpu_sat_in_pool_2_threads",
        (Side::Box2d, 1) => "box2d_1_thread",
        (Side::Box2d, 2) => "box2d_2_threads",
        _ if cores != threads => unreachable!("the comparison runs 1, 2 and all cores"),
        (Side::Ours, _) => "wgpu_sat_all_cores",
        (Side::InPool, _) => "wgpu_sat_in_pool_all_cores",
        (Side::Box2d, _) => "box2d_all_cores",
    }
}

/// The scenes of the comparison `names` asks for (all of them when it is empty).
fn versus_scenes(names: &[String]) -> impl Iterator<Item = &'static box2d::Scene> + '_ {
    box2d::SCENES
        .iter()
        .filter(move |s| names.is_empty() || names.iter().any(|n| n == s.name))
}

/// Each scene of `box2d::SCENES` (or those of `--scene`) in both engines on 1 and 2
/// threads (and all cores, where there are more), with Box2D's benchmark protocol (see
/// `benches/common/box2d.rs`): rows `world_step_vs_box2d/<scene>` (ms per step) and
/// `world_step_vs_box2d_collision/<scene>` (ours broad + narrow phase, Box2D's pairs +
/// collide, ms per step).
///
/// Ours is timed as an application calls it: `World::step` from the process's main thread,
/// on rayon's global pool. That pool is sized once per process, so each thread count runs
/// in a child process of this example (`--versus-child n`, with `RAYON_NUM_THREADS=n`),
/// which prints its figures (`Versus::to_line`) for this process to gather.
fn versus_box2d(
    args: &Args,
    rows: &mut Vec<Row>,
) -> Result<Vec<Versus>, Box<dyn std::error::Error>> {
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(usize::from(boxdd::WorkerCount::MAX));
    let mut thread_counts = vec![1, 2];
    if cores > 2 {
        thread_counts.push(cores);
    }
    if cfg!(debug_assertions) {
        eprintln!(
            "NOTE: a debug build: boxdd-sys compiles Box2D at -O0 for Cargo's dev profile; \
             compare the engines with --release"
        );
    }
    let exe = std::env::current_exe()?;
    let mut out = Vec::new();
    for &threads in &thread_counts {
        let mut child = std::process::Command::new(&exe);
        child
            .env("RAYON_NUM_THREADS", threads.to_string())
            .arg("--versus-child")
            .arg(threads.to_string())
            .stderr(std::process::Stdio::inherit());
        if args.quick {
            child.arg("--quick");
        }
        if let Some(rounds) = args.rounds {
            child.arg("--rounds").arg(rounds.to_string());
        }
        for scene in &args.scene {
            child.arg("--scene").arg(scene);
        }
        let output = child.output()?;
        if !output.status.success() {
            return Err(
                format!("the {threads}-thread comparison failed: {}", output.status).into(),
            );
        }
        out.extend(
            String::from_utf8(output.stdout)?
                .lines()
                .filter_map(Versus::from_line),
        );
    }
    let scene_index = |name: &str| box2d::SCENES.iter().position(|s| s.name == name);
    out.sort_by_key(|v| (scene_index(v.scene), v.threads));
    for v in &out {
        for (side, run) in [
            (Side::Ours, v.ours),
            (Side::InPool, v.in_pool),
            (Side::Box2d, v.theirs),
        ] {
            let backend = versus_backend(side, v.threads, cores);
            let row = |stage: &str, per_step: f64| Row {
                stage: format!("{stage}/{}", v.scene),
                backend,
                size: v.bodies,
                unit: "bodies",
                median: Duration::from_secs_f64(per_step * 1e-3),
                upload: None,
                readback: None,
                kernel: None,
            };
            rows.push(row("world_step_vs_box2d", run.ms_per_step()));
            rows.push(row(
                "world_step_vs_box2d_collision",
                run.collision_ms_per_step(),
            ));
        }
    }
    Ok(out)
}

/// The comparison at one thread count, in a child process (see [`versus_box2d`]) whose
/// global rayon pool must have `threads` threads: one `Versus::to_line` per scene on
/// stdout.
fn versus_child(
    plan: &Plan,
    scenes: &[String],
    threads: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let global = rayon::current_num_threads();
    if global != threads {
        return Err(format!(
            "the comparison at {threads} threads found rayon's global pool at {global} \
             (RAYON_NUM_THREADS is set by the parent process)"
        )
        .into());
    }
    for scene in versus_scenes(scenes) {
        let steps = plan.versus_steps.unwrap_or(scene.steps - 1);
        // On a shared machine a stretch can be slowed by a neighbour: the engines take
        // turns, round after round, and each one's median round is its figure.
        let (mut ours_runs, mut pool_runs, mut theirs_runs) = (Vec::new(), Vec::new(), Vec::new());
        let mut bodies = 0;
        for round in 0..plan.versus_rounds {
            let fresh = (scene.make)(common::SEED);
            bodies = fresh.body_count();
            // All three start from the same state. Our two are both clones, so that neither
            // has the other's memory layout (a world built body by body against a copy made
            // at once) to thank for its cache misses.
            let (mut ours, mut pooled) = (fresh.clone(), fresh.clone());
            let mut theirs = box2d::box2d_world(&fresh, threads)?;
            drop(fresh);
            // Our two ways of calling take turns going first.
            let mut caller = || box2d::time_ours(&mut ours, steps, scene.hook);
            let mut in_pool = || box2d::time_ours_in_pool(&mut pooled, threads, steps, scene.hook);
            if round % 2 == 0 {
                ours_runs.push(caller()?);
                pool_runs.push(in_pool()?);
            } else {
                pool_runs.push(in_pool()?);
                ours_runs.push(caller()?);
            }
            drop((ours, pooled));
            theirs_runs.push(box2d::time_box2d(&mut theirs, steps, scene.hook)?);
        }
        let mut ratios: Vec<f64> = ours_runs
            .iter()
            .zip(&theirs_runs)
            .map(|(ours, theirs)| ours.total.as_secs_f64() / theirs.total.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let v = Versus {
            scene: scene.name,
            threads,
            bodies,
            round_ratio: ratios[ratios.len() / 2],
            ours: median_run(ours_runs),
            in_pool: median_run(pool_runs),
            theirs: median_run(theirs_runs),
        };
        eprintln!(
            "world_step_vs_box2d {} ({bodies} bodies), {threads} thread(s), {steps} steps: \
             wgpu-sat {:.3} ms (in a pool {:.3} ms), Box2D {:.3} ms per step",
            scene.name,
            v.ours.ms_per_step(),
            v.in_pool.ms_per_step(),
            v.theirs.ms_per_step()
        );
        println!("{}", v.to_line());
    }
    Ok(())
}

/// The run of median total time among `runs` (at least one).
fn median_run(mut runs: Vec<box2d::Run>) -> box2d::Run {
    runs.sort_by_key(|run| run.total);
    runs[runs.len() / 2]
}

/// Steps `world` `steps` times at 60 Hz on the CPU narrow phase (rain's groups dropped
/// as its step function says, without replacement, when `rain` is set).
fn settle(world: &mut World, steps: usize, rain: bool) -> Result<(), wgpu_sat::Error> {
    let mut narrow = CpuNarrowPhase::new();
    for k in 0..steps {
        if let (true, Some(step)) = (rain, scenes::rain_step(k)) {
            if !step.replace {
                for row in 0..scenes::RAIN_ROWS {
                    scenes::add_rain_group(world, scenes::rain_group_origin(row, step.column))?;
                }
            }
        }
        world.step(1.0 / 60.0, &mut narrow)?;
    }
    Ok(())
}

/// A scene of the snapshot size table: name, maker, steps before the snapshot, and
/// whether rain's groups are dropped meanwhile.
type SnapshotScene = (&'static str, fn() -> World, usize, bool);

/// The snapshot section (`--snapshot`): cost against a step, and size per scene.
fn snapshot_section(plan: &Plan) -> Result<(), Box<dyn std::error::Error>> {
    let mut pile = scenes::pile(10_000, 1);
    settle(&mut pile, 300, false)?;
    let mut narrow = CpuNarrowPhase::new();
    let mut stepped = pile.clone();
    let (step, _) = measure(plan, || {
        stepped
            .step(1.0 / 60.0, &mut narrow)
            .expect("the pile steps");
        None
    });
    let bytes = pile.snapshot();
    let (write, _) = measure(plan, || {
        std::hint::black_box(pile.snapshot());
        None
    });
    let (read, _) = measure(plan, || {
        std::hint::black_box(World::from_snapshot(&bytes).expect("the snapshot loads"));
        None
    });
    // A rollback loop's case: the snapshot restored over the world it was taken of.
    let mut target = stepped.clone();
    let (restore, _) = measure(plan, || {
        target
            .restore_snapshot(&bytes)
            .expect("the snapshot restores");
        None
    });
    let of_step = |d: Duration| d.as_secs_f64() / step.as_secs_f64();
    println!(
        "snapshot of pile(10000) after 300 steps: {} bytes; one step {:.3} ms, write {:.3} ms \
         ({:.2} of a step), read {:.3} ms ({:.2} of a step), restore over the world {:.3} ms \
         ({:.2} of a step)",
        bytes.len(),
        ms(step),
        ms(write),
        of_step(write),
        ms(read),
        of_step(read),
        ms(restore),
        of_step(restore),
    );
    println!();
    println!(
        "{:<14} {:>6} {:>7} {:>8} {:>9} {:>10} {:>10}",
        "scene", "steps", "bodies", "points", "bytes", "B/body", "B/(body+point)"
    );
    let scenes: [SnapshotScene; 6] = [
        ("pile", || scenes::pile(10_000, 1), 300, false),
        ("mixed", || scenes::mixed(3_000, 1), 300, false),
        ("large_pyramid", scenes::large_pyramid, 120, false),
        ("joint_grid", scenes::joint_grid, 60, false),
        ("rain", scenes::rain, 320, true),
        ("pyramid(20)", || scenes::pyramid(20), 0, false),
    ];
    for (name, make, steps, rain) in scenes {
        let mut world = make();
        settle(&mut world, steps, rain)?;
        let bytes = world.snapshot().len();
        let bodies = world.body_count();
        let points: usize = world.contacts().map(|c| c.manifold.points().len()).sum();
        println!(
            "{name:<14} {steps:>6} {bodies:>7} {points:>8} {bytes:>9} {:>10.1} {:>10.1}",
            bytes as f64 / bodies as f64,
            bytes as f64 / (bodies + points) as f64,
        );
    }
    Ok(())
}

/// The comparison's own table: ms per step of each engine and their ratio, whole step and
/// collision stages.
fn versus_table(versus: &[Versus]) -> String {
    let mut s = String::from(
        "world_step vs Box2D (Box2D's benchmark protocol: 60 Hz, 4 substeps, sleeping as Box2D's scene has it: \
         off in the pyramids and our scenes, on in smash and compounds; \
         steps 1..N timed after step 0; each engine's median of its rounds, the engines \
         taking turns; its collision stages from that round; per round: the median over the \
         rounds of the ratio within each)\n",
    );
    let _ = writeln!(
        s,
        "{:<15} {:>7} {:>7} {:>6} {:>12} {:>10} {:>7} {:>12} {:>7} {:>9} {:>13} {:>13} {:>7} {:>15}",
        "scene",
        "bodies",
        "threads",
        "steps",
        "wgpu-sat ms",
        "in pool",
        "/pool",
        "Box2D ms",
        "ratio",
        "per round",
        "broad+narrow",
        "pairs+collide",
        "ratio",
        "recycled"
    );
    for v in versus {
        let _ = writeln!(
            s,
            "{:<15} {:>7} {:>7} {:>6} {:>12.3} {:>10.3} {:>7.3} {:>12.3} {:>7.2} {:>9.2} {:>13.3} {:>13.3} {:>7.2} {:>7.1}/{:>5.1} %",
            v.scene,
            v.bodies,
            v.threads,
            v.ours.steps,
            v.ours.ms_per_step(),
            v.in_pool.ms_per_step(),
            v.ours.ms_per_step() / v.in_pool.ms_per_step(),
            v.theirs.ms_per_step(),
            v.ours.ms_per_step() / v.theirs.ms_per_step(),
            v.round_ratio,
            v.ours.collision_ms_per_step(),
            v.theirs.collision_ms_per_step(),
            v.ours.collision_ms_per_step() / v.theirs.collision_ms_per_step(),
            100.0 * v.ours.recycled,
            100.0 * v.theirs.recycled,
        );
    }
    s.push_str(
        "(wgpu-sat: World::step called from the application's thread on rayon's global pool \
         of that many threads; in pool: the same stretch inside a pool of its own \
         (pool.install), /pool the first over the second. ratio: wgpu-sat's time over \
         Box2D's; below 1 is faster than Box2D. recycled: wgpu-sat / Box2D, the share of \
         candidate pairs whose manifold was carried over instead of computed afresh, over \
         the timed steps)\n",
    );
    s
}

fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0} "),
    }
}

/// Compact axis labels: 1k, 30k, 1M.
fn axis_label(x: f64) -> String {
    match x {
        x if x >= 1e6 => format!("{}M", x / 1e6),
        x if x >= 1e3 => format!("{}k", x / 1e3),
        x => format!("{x}"),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<24} {:<20} {:>9} {:>11} {:>16} {:>11} {:>11} {:>10}",
        "stage",
        "backend",
        "size",
        "median ms",
        "per second",
        "upload B",
        "readback B",
        "kernel ms"
    );
    // The Box2D comparison has a table of its own (`versus_table`).
    for r in rows.iter().filter(|r| !is_versus(r)) {
        let opt = |b: Option<u64>| b.map_or("-".to_string(), |b| format!("{}B", si(b as f64)));
        let _ = writeln!(
            s,
            "{:<24} {:<20} {:>9} {:>11.3} {:>16} {:>11} {:>11} {:>10}",
            r.stage,
            r.backend,
            r.size,
            ms(r.median),
            format!("{}{}/s", si(r.per_second()), r.unit),
            opt(r.upload),
            opt(r.readback),
            r.kernel
                .map_or("-".to_string(), |k| format!("{:.3}", ms(k))),
        );
    }
    s
}

/// Whether a row belongs to the Box2D comparison.
fn is_versus(r: &Row) -> bool {
    r.stage.starts_with("world_step_vs_box2d")
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "stage,backend,size,unit,median_ms,per_second,upload_bytes,readback_bytes,kernel_ms\n",
    );
    for r in rows {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{:.6},{:.1},{},{},{}",
            r.stage,
            r.backend,
            r.size,
            r.unit,
            ms(r.median),
            r.per_second(),
            opt(r.upload.map(|b| b.to_string())),
            opt(r.readback.map(|b| b.to_string())),
            opt(r.kernel.map(|k| format!("{:.6}", ms(k)))),
        );
    }
    s
}

// ---------------------------------------------------------------------------------------
// The chart
// ---------------------------------------------------------------------------------------

use plotters::prelude::*;

/// One colour per backend, the same in every panel.
fn colour(backend: &str) -> RGBColor {
    match backend {
        "cpu_1_thread" | "sweep_and_prune" => RGBColor(31, 119, 180),
        "cpu_parallel" => RGBColor(44, 160, 44),
        "gpu" => RGBColor(214, 39, 40),
        "gpu_kernel" => RGBColor(255, 127, 14),
        "parry2d" | "parry2d_bvh_rebuild" => RGBColor(148, 103, 189),
        // The Box2D comparison: ours in blues and greens, Box2D in oranges and reds.
        "wgpu_sat_1_thread" => RGBColor(31, 119, 180),
        "wgpu_sat_2_threads" => RGBColor(44, 160, 44),
        "wgpu_sat_all_cores" => RGBColor(23, 190, 207),
        "wgpu_sat_in_pool_1_thread" => RGBColor(174, 199, 232),
        "wgpu_sat_in_pool_2_threads" => RGBColor(152, 223, 138),
        "wgpu_sat_in_pool_all_cores" => RGBColor(158, 218, 229),
        "box2d_1_thread" => RGBColor(255, 127, 14),
        "box2d_2_threads" => RGBColor(214, 39, 40),
        "box2d_all_cores" => RGBColor(227, 119, 194),
        _ => RGBColor(140, 86, 75), // parry2d_bvh_refit
    }
}

/// A series of one panel: (size, ms) points of one backend.
struct Series {
    label: String,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
    /// `None`: a line with circles; `Some(size)`: triangles alone (one scene size), drawn
    /// smaller for each later backend so that equal times stay visible, one in another.
    triangles: Option<u32>,
}

fn series(rows: &[Row], stage: &str, kernel: bool) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows.iter().filter(|r| r.stage == stage) {
        let mut push = |label: &str, t: Duration| {
            let point = (r.size as f64, ms(t));
            match out.iter_mut().find(|s| s.label == label) {
                Some(s) => s.points.push(point),
                None => out.push(Series {
                    label: label.to_string(),
                    colour: colour(label),
                    points: vec![point],
                    triangles: None,
                }),
            }
        };
        push(r.backend, r.median);
        if let (true, Some(k)) = (kernel, r.kernel) {
            push("gpu_kernel", k);
        }
    }
    out
}

/// The Box2D comparison's whole steps: one line per engine and thread count through the
/// scenes, by body count.
fn versus_series(rows: &[Row]) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.stage.starts_with("world_step_vs_box2d/"))
    {
        let point = (r.size as f64, ms(r.median));
        match out.iter_mut().find(|s| s.label == r.backend) {
            Some(s) => s.points.push(point),
            None => out.push(Series {
                label: r.backend.to_string(),
                colour: colour(r.backend),
                points: vec![point],
                triangles: None,
            }),
        }
    }
    // Markers alone: the points are different scenes, and a line between them would read
    // as a trend with size. Smaller for each later series, so equal times stay visible.
    for (i, s) in out.iter_mut().enumerate() {
        s.triangles = Some(11u32.saturating_sub(2 * i as u32).max(3));
    }
    out
}

fn chart(rows: &[Row], adapter: &str, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (2400, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    // The adapter line carries the software-adapter warning where it applies.
    let title = format!("wgpu-sat: median time per call, log-log. {adapter}");
    let (top, body) = root.split_vertically(50);
    top.titled(&title, ("sans-serif", 20))?;
    let panels = body.split_evenly((1, 4));

    // Whole steps only: the kernel time of a step's narrow phase is in the table, but next
    // to whole-step times it would read as one.
    let mut world = series(rows, "world_step/pile", false);
    // The pyramid is one size: its points join the pile panel as triangles, one per
    // backend, in the backend's colour.
    for (i, mut s) in series(rows, "world_step/large_pyramid", false)
        .into_iter()
        .enumerate()
    {
        s.label = format!("{} (large_pyramid)", s.label);
        s.triangles = Some(11u32.saturating_sub(3 * i as u32).max(3));
        world.push(s);
    }
    let stages = [
        ("narrow_phase: pairs", series(rows, "narrow_phase", true)),
        (
            "broad_phase: moving boxes",
            series(rows, "broad_phase", false),
        ),
        ("world_step (pile; triangles: large_pyramid): bodies", world),
        (
            "world_step vs Box2D, ms per step (one scene per body count)",
            versus_series(rows),
        ),
    ];
    for (area, (caption, data)) in panels.iter().zip(stages) {
        panel(area, caption, &data)?;
    }
    root.present()?;
    Ok(())
}

fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    data: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let points = data.iter().flat_map(|s| &s.points);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return Ok(()); // nothing measured for this stage
    }
    // Some room around the data, in log space.
    let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 2.0, y1 * 2.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("size")
        .y_desc("median ms per call")
        // Few labels: a panel spanning one decade would otherwise label every tick.
        .x_labels(8)
        .y_labels(10)
        .light_line_style(BLACK.mix(0.04))
        .x_label_formatter(&|x| axis_label(*x))
        .y_label_formatter(&|y| {
            if *y >= 1.0 {
                format!("{y:.0}")
            } else {
                format!("{y:.2}")
            }
        })
        .label_style(("sans-serif", 13))
        .draw()?;
    for s in data {
        let style = s.colour.stroke_width(2);
        if let Some(size) = s.triangles {
            let c = s.colour;
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, size, c.filled())),
                )?
                .label(&s.label)
                .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 6, c.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), style))?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
            chart.draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, s.colour.filled())),
            )?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

/// The project's speed targets, checked on the rows of this run (ratios of times taken in
/// the same run on the same inputs; the Box2D figure is the reference per-pair time of
/// `b2CollidePolygons` measured on these machines, not measured here).
fn targets(rows: &[Row]) {
    const BOX2D_NS_PER_PAIR: f64 = 113.0;
    let find = |stage: &str, backend: &str, size: usize| {
        rows.iter()
            .find(|r| r.stage == stage && r.backend == backend && r.size == size)
            .map(|r| r.median.as_secs_f64())
    };
    println!();
    println!("targets (this run):");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let n = 200_000;
    if let (Some(cpu), Some(parry)) = (
        find("narrow_phase", "cpu_1_thread", n),
        find("narrow_phase", "parry2d", n),
    ) {
        let ns = cpu * 1e9 / n as f64;
        println!(
            "  collide, one thread, {n} pairs: {ns:.0} ns per pair (Box2D reference {BOX2D_NS_PER_PAIR} ns), \
             {:.1}x parry2d's manifold: {}",
            parry / cpu,
            verdict(ns <= BOX2D_NS_PER_PAIR)
        );
    }
    let boxes = 50_000;
    if let (Some(ours), Some(bvh)) = (
        find("broad_phase", "sweep_and_prune", boxes),
        find("broad_phase", "parry2d_bvh_rebuild", boxes),
    ) {
        println!(
            "  broad phase, {boxes} moving boxes: {:.2} ms against parry2d's BVH build and \
             traversal {:.2} ms ({:.1}x): {}",
            ours * 1e3,
            bvh * 1e3,
            bvh / ours,
            verdict(ours <= bvh)
        );
    }
    for colliders in [10_000, 100_000] {
        let stage = format!("ray_cast/{colliders}");
        if let (Some(ours), Some(parry)) = (
            find(&stage, "cpu_1_thread", common::queries::RAYS_PER_CALL),
            find(&stage, "parry2d", common::queries::RAYS_PER_CALL),
        ) {
            let rate = |t: f64| common::queries::RAYS_PER_CALL as f64 / t;
            println!(
                "  ray casts, {colliders} colliders, one thread: {} rays/s against parry2d's BVH \
                 {} rays/s ({:.2}x): {}",
                si(rate(ours)),
                si(rate(parry)),
                parry / ours,
                verdict(ours <= parry)
            );
        }
        let stage = format!("ray_batch/{colliders}");
        let size = rows.iter().find(|r| r.stage == stage).map(|r| r.size);
        if let Some(size) = size
            && let (Some(gpu), Some(cpu)) = (
                find(&stage, "gpu", size),
                find(&stage, "cpu_1_thread", size),
            )
        {
            println!(
                "  ray batch, {size} (ray, collider) pairs of {colliders} colliders: GPU {:.2} ms \
                 against one CPU thread {:.2} ms ({:.2}x)",
                gpu * 1e3,
                cpu * 1e3,
                gpu / cpu
            );
        }
    }
    if let (Some(gpu), Some(cpu)) = (
        find("narrow_phase", "gpu", n),
        find("narrow_phase", "cpu_1_thread", n),
    ) {
        println!(
            "  GPU end to end, {n} pairs: {:.2} ms against one CPU thread {:.2} ms ({:.2}x): {}",
            gpu * 1e3,
            cpu * 1e3,
            gpu / cpu,
            verdict(gpu <= cpu)
        );
    }
}
