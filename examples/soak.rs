//! A soak: a large mixed scene (circles, polygons, concave bodies in a walled container)
//! stepped for a long time, checked as it goes. First on the CPU narrow phase, then a
//! shorter run on the GPU one (skipped, with a message, when there is no adapter).
//!
//! ```text
//! cargo run --example soak      # 10,000 bodies: 10,000 steps on the CPU, then 1,000 on the GPU
//! cargo run --example soak -- --bodies 1000 --steps 900 --gpu-steps 600   # the short form CI runs
//! ```
//!
//! Every step it counts bodies with a non-finite pose or velocity and bodies whose centre
//! left the container (the box around its floor and walls), and keeps the deepest contact.
//! Every `--report-every` steps it prints those with the kinetic energy and the resident
//! memory. At the end it judges the run and exits non-zero if any of these fails:
//! - no body ever non-finite, none ever outside the container;
//! - the pile settles: its kinetic energy falls below `SETTLED_FRACTION` of its peak (the
//!   step where it does is "settled"; `--settle` sets it by hand);
//! - kinetic energy does not grow once settled: split the settled steps into tenths; the mean
//!   over the last tenth is at most `ENERGY_GROWTH` times the mean over the quietest tenth
//!   (plus a small floor, since a resting pile's energy is solver jitter near zero);
//! - resident memory is flat once warm: it grows by at most `MEMORY_GROWTH_MIB` from the
//!   settled step to the end (the world allocates nothing per step once warm;
//!   `tests/allocations.rs` checks that allocation by allocation).
//!
//! Resident memory is read from `/proc/self/status` (Linux); elsewhere it shows as n/a and
//! is not judged.

use std::time::{Duration, Instant};

use clap::Parser;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, BodyId, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, World, scenes};

const DT: f32 = 1.0 / 60.0;
/// The pile counts as settled once its kinetic energy falls below this fraction of its peak
/// (the peak comes as the bodies land; a resting pile keeps only solver jitter).
const SETTLED_FRACTION: f64 = 1e-3;
/// How much the settled kinetic energy may grow by the end before the run fails.
const ENERGY_GROWTH: f64 = 1.25;
/// Energy per body below which a settled pile counts as at rest, whatever the ratio: about
/// a unit body creeping at 0.01 units per second.
const ENERGY_FLOOR_PER_BODY: f64 = 5e-5;
/// How much resident memory may grow once warm (allocator noise, lazily touched pages).
const MEMORY_GROWTH_MIB: f64 = 8.0;

#[derive(Parser)]
#[command(about = "Step a large mixed scene for a long time and check it stays sound")]
struct Args {
    /// Bodies in the mixed scene.
    #[arg(long, default_value_t = 10_000)]
    bodies: usize,
    /// Steps on the CPU narrow phase.
    #[arg(long, default_value_t = 10_000)]
    steps: usize,
    /// Steps on the GPU narrow phase (0: skip).
    #[arg(long, default_value_t = 1_000)]
    gpu_steps: usize,
    /// Step after which the pile counts as settled and warm (energy and memory are judged
    /// from there); default: when its kinetic energy falls below a thousandth of its peak.
    #[arg(long)]
    settle: Option<usize>,
    /// Print a line every this many steps.
    #[arg(long, default_value_t = 500)]
    report_every: usize,
    /// Random seed of the scene.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// What one run saw.
#[derive(Default)]
struct Findings {
    steps: usize,
    /// Steps with at least one non-finite body, and the most in one step.
    non_finite_steps: usize,
    non_finite_max: usize,
    /// Steps with a body outside the container, and the most in one step.
    escaped_steps: usize,
    escaped_max: usize,
    /// The deepest contact of the run, and of the settled part.
    max_depth: f32,
    max_depth_settled: f32,
    /// Kinetic energy per step.
    energy: Vec<f64>,
    /// The step the pile counted as settled at, if it did.
    settled: Option<usize>,
    /// Resident memory after settling and at the end, MiB.
    rss_warm: Option<f64>,
    rss_end: Option<f64>,
    rss_start: Option<f64>,
    elapsed: Duration,
}

fn resident_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Kinetic energy of the dynamic bodies: ½ m v² + ½ I ω².
fn kinetic_energy(world: &World) -> f64 {
    world
        .bodies()
        .filter_map(|id| world.body(id).ok())
        .filter(|b| !b.is_static())
        .map(|b| {
            let v = b.linear_velocity().as_dvec2();
            let w = b.angular_velocity() as f64;
            0.5 * b.mass() as f64 * v.length_squared() + 0.5 * b.rotational_inertia() as f64 * w * w
        })
        .sum()
}

/// The box around the static bodies (the container's floor and walls).
fn container(world: &World) -> Option<Aabb> {
    world
        .bodies()
        .filter_map(|id| world.body(id).ok())
        .filter(|b| b.is_static())
        .map(|b| b.aabb())
        .reduce(|a, b| a.union(&b))
}

fn finite(world: &World, body: BodyId) -> bool {
    world.body(body).is_ok_and(|b| {
        let t = b.transform();
        t.translation().is_finite()
            && t.rotation().is_finite()
            && b.linear_velocity().is_finite()
            && b.angular_velocity().is_finite()
    })
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn run(
    args: &Args,
    label: &str,
    steps: usize,
    narrow: &mut dyn NarrowPhase,
) -> Result<Findings, wgpu_sat::Error> {
    let mut world = scenes::mixed(args.bodies, args.seed);
    let bounds = container(&world).unwrap_or(Aabb {
        min: Vec2::splat(f32::NEG_INFINITY),
        max: Vec2::splat(f32::INFINITY),
    });
    let mut f = Findings {
        rss_start: resident_mib(),
        ..Findings::default()
    };
    println!(
        "{label}: {} bodies, {steps} steps of {:.4} s",
        world.body_count(),
        DT
    );
    let mut peak = 0.0f64;
    let start = Instant::now();
    let mut window = (Instant::now(), 0usize);
    for step in 1..=steps {
        world.step(DT, narrow)?;
        f.steps = step;
        let non_finite = world.bodies().filter(|&b| !finite(&world, b)).count();
        let escaped = world
            .bodies()
            .filter_map(|id| world.body(id).ok())
            .filter(|b| !b.is_static() && !bounds.contains_point(b.center_of_mass()))
            .count();
        let depth = world
            .collider_contacts()
            .iter()
            .map(|c| c.manifold.depth)
            .fold(0.0, f32::max);
        f.non_finite_steps += usize::from(non_finite > 0);
        f.non_finite_max = f.non_finite_max.max(non_finite);
        f.escaped_steps += usize::from(escaped > 0);
        f.escaped_max = f.escaped_max.max(escaped);
        f.max_depth = f.max_depth.max(depth);
        if f.settled.is_some() {
            f.max_depth_settled = f.max_depth_settled.max(depth);
        }
        let energy = kinetic_energy(&world);
        f.energy.push(energy);
        peak = peak.max(energy);
        let settles_now = match args.settle {
            Some(at) => step == at,
            None => energy < SETTLED_FRACTION * peak,
        };
        if f.settled.is_none() && settles_now {
            f.settled = Some(step);
            f.rss_warm = resident_mib();
            println!(
                "{label} step {step:>6}: settled (kinetic energy {energy:.4}, peak {peak:.1})"
            );
        }
        if step % args.report_every.max(1) == 0 || step == steps {
            let ms = window.0.elapsed().as_secs_f64() * 1e3 / (step - window.1) as f64;
            window = (Instant::now(), step);
            println!(
                "{label} step {step:>6}: {ms:6.2} ms/step | {} contacts | non-finite {non_finite} \
                 | outside {escaped} | deepest {depth:.4} | kinetic energy {:.4} | resident {}",
                world.collider_contacts().len(),
                f.energy[step - 1],
                resident_mib().map_or("n/a".into(), |m| format!("{m:.1} MiB")),
            );
        }
    }
    f.elapsed = start.elapsed();
    f.rss_end = resident_mib();
    Ok(f)
}

/// Prints the run's summary and returns its failures.
fn judge(label: &str, bodies: usize, f: &Findings) -> Vec<String> {
    let mut failures = Vec::new();
    let settled = &f.energy[f.settled.unwrap_or(f.energy.len()).min(f.energy.len())..];
    let tenth = (settled.len() / 10).max(1);
    let quietest = settled
        .chunks(tenth)
        .map(mean)
        .fold(f64::INFINITY, f64::min)
        .min(f64::MAX);
    let last = mean(&settled[settled.len().saturating_sub(tenth)..]);
    let floor = ENERGY_FLOOR_PER_BODY * bodies as f64;
    let mib = |m: Option<f64>| m.map_or("n/a".to_string(), |m| format!("{m:.1} MiB"));
    println!(
        "{label} summary: {} steps in {:.1} s ({:.2} ms/step)",
        f.steps,
        f.elapsed.as_secs_f64(),
        f.elapsed.as_secs_f64() * 1e3 / f.steps.max(1) as f64
    );
    println!(
        "  non-finite bodies: {} (in {} steps)",
        f.non_finite_max, f.non_finite_steps
    );
    println!(
        "  bodies outside the container: {} (in {} steps)",
        f.escaped_max, f.escaped_steps
    );
    println!(
        "  deepest contact: {:.4} over the run, {:.4} once settled",
        f.max_depth, f.max_depth_settled
    );
    println!(
        "  kinetic energy: peak {:.3}; settled at step {}; of the settled steps' tenths, the \
         quietest has a mean of {:.5}, the last {:.5}",
        f.energy.iter().copied().fold(0.0, f64::max),
        f.settled.map_or("never".into(), |s| s.to_string()),
        quietest,
        last
    );
    println!(
        "  resident memory: {} at the start, {} once warm, {} at the end",
        mib(f.rss_start),
        mib(f.rss_warm),
        mib(f.rss_end)
    );
    if f.non_finite_steps > 0 {
        failures.push(format!("{label}: {} non-finite bodies", f.non_finite_max));
    }
    if f.escaped_steps > 0 {
        failures.push(format!(
            "{label}: {} bodies left the container",
            f.escaped_max
        ));
    }
    if f.settled.is_none() {
        failures.push(format!(
            "{label}: the pile never settled in {} steps (give more steps, or --settle)",
            f.steps
        ));
    } else if last > ENERGY_GROWTH * quietest + floor {
        failures.push(format!(
            "{label}: kinetic energy grew once settled, {quietest:.5} -> {last:.5}"
        ));
    }
    if let (Some(warm), Some(end)) = (f.rss_warm, f.rss_end)
        && end - warm > MEMORY_GROWTH_MIB
    {
        failures.push(format!(
            "{label}: resident memory grew by {:.1} MiB once warm",
            end - warm
        ));
    }
    failures
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut failures = Vec::new();

    let mut cpu = CpuNarrowPhase::new();
    let findings = run(&args, "cpu", args.steps, &mut cpu)?;
    failures.extend(judge("cpu", args.bodies, &findings));

    if args.gpu_steps > 0 {
        match wgpu_sat::request_device() {
            Ok((device, queue)) => {
                let info = device.adapter_info();
                println!("gpu adapter: {} ({:?})", info.name, info.device_type);
                if info.device_type == wgpu::DeviceType::Cpu {
                    println!("note: a software adapter; its times are CPU times, not GPU speed");
                }
                let mut gpu = GpuNarrowPhase::new(&device, &queue)?;
                let findings = run(&args, "gpu", args.gpu_steps, &mut gpu)?;
                failures.extend(judge("gpu", args.bodies, &findings));
            }
            Err(e) if std::env::var("WGPU_SAT_REQUIRE_GPU").as_deref() == Ok("1") => {
                return Err(format!("the GPU run needs an adapter: {e}").into());
            }
            Err(e) => println!("gpu run SKIPPED: {e}"),
        }
    }

    if failures.is_empty() {
        println!("soak passed");
        Ok(())
    } else {
        for failure in &failures {
            eprintln!("soak FAILED: {failure}");
        }
        std::process::exit(1);
    }
}
