//! One batch through both narrow phases: random polygons scattered over a square, the broad
//! phase's candidate pairs, then the CPU reference and the GPU kernel on the same input.
//! Prints the counts, whether the two agree, and the time each took.
//!
//! ```text
//! cargo run --release --example batch -- --colliders 20000 --extent 50
//! ```

use std::time::{Duration, Instant};

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Aabb, BroadPhase, Collider, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon, Transform,
};

#[derive(Parser)]
#[command(about = "Run one random batch through the CPU and GPU narrow phases")]
struct Args {
    /// Number of colliders.
    #[arg(long, default_value_t = 20_000)]
    colliders: usize,
    /// Half size of the square they are scattered over (bodies are about 1 unit).
    #[arg(long, default_value_t = 50.0)]
    extent: f32,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn random_shape(rng: &mut impl Rng) -> Polygon {
    if rng.random_bool(0.3) {
        return Polygon::rectangle(rng.random_range(0.2..0.8), rng.random_range(0.2..0.8));
    }
    Polygon::regular(rng.random_range(3..=8), rng.random_range(0.3..0.9))
        .expect("3 to 8 sides and a positive radius")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let shapes: Vec<Polygon> = (0..64).map(|_| random_shape(&mut rng)).collect();
    let e = args.extent;
    let colliders: Vec<Collider> = (0..args.colliders)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: Transform::new(
                Vec2::new(rng.random_range(-e..e), rng.random_range(-e..e)),
                rng.random_range(-std::f32::consts::PI..std::f32::consts::PI),
            ),
        })
        .collect();
    let aabbs: Vec<Aabb> = colliders
        .iter()
        .map(|c| shapes[c.shape as usize].aabb(&c.transform))
        .collect();
    let mut broad = BroadPhase::new();
    let pairs = broad.find_pairs(&aabbs).to_vec();

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
