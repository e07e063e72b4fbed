//! One batch through both narrow phases: random polygons scattered over a square, the broad
//! phase's candidate pairs, then the CPU reference and the GPU kernel on the same input.
//! Prints the counts, whether the two agree, and the time each took.
//!
//! ```text
//! cargo run --release --example batch -- --pairs 200000
//! ```

use std::time::{Duration, Instant};

use clap::Parser;
use wgpu_sat::{CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, scenes};

#[derive(Parser)]
#[command(about = "Run one random batch through the CPU and GPU narrow phases")]
struct Args {
    /// Candidate pairs: random 3- to 8-gons and boxes scattered densely enough that about
    /// two thirds of the broad phase's pairs overlap (`scenes::narrow_phase_batch`).
    #[arg(long, default_value_t = 200_000)]
    pairs: usize,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let batch = scenes::narrow_phase_batch(args.pairs, args.seed);
    let (shapes, colliders, pairs) = (batch.shapes, batch.colliders, batch.pairs);

    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&shapes)?;
    let (device, queue) = wgpu_sat::request_device()?;
    let info = device.adapter_info();
    let mut gpu = GpuNarrowPhase::new(&device, &queue)?;
    gpu.set_shapes(&shapes)?;

    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );
    if info.device_type == wgpu::DeviceType::Cpu {
        println!("note: this is a software adapter; its times are CPU times, not GPU speed");
    }
    println!(
        "{} colliders, {} candidate pairs",
        colliders.len(),
        pairs.len()
    );

    // Warm up: the first dispatch compiles the shader.
    let expected = cpu.collide_pairs(&colliders, &pairs)?;
    let got = gpu.collide_pairs(&colliders, &pairs)?;
    let same = expected.len() == got.len()
        && expected.iter().zip(&got).all(|(c, g)| {
            (c.a, c.b) == (g.a, g.b)
                && (c.manifold.depth - g.manifold.depth).abs() <= 1e-5 * c.manifold.depth.max(1.0)
        });
    println!(
        "{} contacts on the CPU, {} on the GPU: {}",
        expected.len(),
        got.len(),
        if same {
            "same pairs, same depths"
        } else {
            "they DIFFER"
        }
    );

    let time =
        |f: &mut dyn FnMut() -> Result<(), wgpu_sat::Error>| -> Result<Duration, wgpu_sat::Error> {
            let mut times = Vec::new();
            for _ in 0..args.repeat.max(1) {
                let start = Instant::now();
                f()?;
                times.push(start.elapsed());
            }
            Ok(median(times))
        };
    let cpu_time = time(&mut || cpu.collide_pairs(&colliders, &pairs).map(drop))?;
    let gpu_time = time(&mut || gpu.collide_pairs(&colliders, &pairs).map(drop))?;
    let per_pair = |t: Duration| t.as_secs_f64() * 1e9 / pairs.len().max(1) as f64;
    println!(
        "CPU reference, one thread: {:8.2} ms ({:.0} ns per pair)",
        cpu_time.as_secs_f64() * 1e3,
        per_pair(cpu_time)
    );
    println!(
        "GPU, end to end:           {:8.2} ms ({:.0} ns per pair)",
        gpu_time.as_secs_f64() * 1e3,
        per_pair(gpu_time)
    );
    if !same {
        return Err("the CPU and GPU narrow phases disagree".into());
    }
    Ok(())
}
