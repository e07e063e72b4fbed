//! The Box2D comparison: each scene in both engines at 1 and 2 threads (and all cores),
//! each thread count in a child process of its own, and the comparison's table.

use std::fmt::Write as _;
use std::time::Duration;

use crate::common::{self, box2d};
use crate::{Args, Plan, Row};

/// One scene at one thread count, in both engines.
pub struct Versus {
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
/// `benches/common/box2d/`): rows `world_step_vs_box2d/<scene>` (ms per step) and
/// `world_step_vs_box2d_collision/<scene>` (ours broad + narrow phase, Box2D's pairs +
/// collide, ms per step).
///
/// Ours is timed as an application calls it: `World::step` from the process's main thread,
/// on rayon's global pool. That pool is sized once per process, so each thread count runs
/// in a child process of this example (`--versus-child n`, with `RAYON_NUM_THREADS=n`),
/// which prints its figures (`Versus::to_line`) for this process to gather.
pub fn versus_box2d(
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
pub fn versus_child(
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

/// The comparison's own table: ms per step of each engine and their ratio, whole step and
/// collision stages.
pub fn versus_table(versus: &[Versus]) -> String {
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
