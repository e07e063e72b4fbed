//! The narrow phase, one criterion group (`narrow_phase`): the same seeded batches of
//! candidate pairs (`scenes::narrow_phase_batch`, random 3- to 8-gons and boxes, about two
//! thirds overlapping) at 1k, 10k, 100k and 1M pairs through
//!
//! - `cpu_1_thread`: `CpuNarrowPhase`, the reference, `collide()` pair by pair;
//! - `cpu_parallel`: `ParallelCpuNarrowPhase`, the same on every core (rayon);
//! - `gpu_end_to_end`: `GpuNarrowPhase::collide_pairs_into` as a caller sees it: validation,
//!   upload, dispatch, readback, contacts in pair order;
//! - `gpu_kernel`: the compute pass alone, from the device's timestamp queries (only where
//!   the adapter has them);
//! - `gpu_kernel_full_path`: the same with one capsule, used by no collider, added to the
//!   table: the host then runs the kernel with the rounded path, which a table of sharp
//!   polygons and circles skips (`SHARP_ONLY` in `shaders/sat_pass.wgsl`);
//! - `parry2d`: parry2d 0.31's polygon contact manifold (`contact_manifold_pfm_pfm`, what its
//!   query dispatcher uses for two convex polygons) on the same pairs, from a fresh manifold
//!   per pair.
//!
//! Every backend writes into one reused output vector (`collide_pairs_into`, the path
//! `World` takes; `collide_pairs` is the same plus a fresh vector per call). Throughput is in
//! pairs. On a software adapter (lavapipe) the GPU rows are CPU times.
//!
//! ```text
//! CARGO_TARGET_DIR=... cargo bench --bench narrow_phase
//! cargo bench --bench narrow_phase -- --warm-up-time 1 --measurement-time 2 'narrow_phase/.*/1000$'
//! ```

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Capsule, Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, Shape,
    scenes,
};

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn narrow_phase(c: &mut Criterion) {
    let gpu = common::gpu();
    // One GPU narrow phase for every size: its buffers grow to the largest batch and are
    // reused, as in an application.
    let mut gpu_narrow = gpu
        .as_ref()
        .map(|g| GpuNarrowPhase::new(&g.device, &g.queue).expect("the pipeline builds"));

    let mut group = c.benchmark_group("narrow_phase");
    for n in SIZES {
        // Generated once per size, outside every timed loop.
        let batch = scenes::narrow_phase_batch(n, common::SEED);
        let pairs = batch.pairs.len();
        group.throughput(Throughput::Elements(pairs as u64));
        if n >= 100_000 {
            // A 1M-pair iteration takes from a tenth of a second (CPU) to most of a second
            // (parry2d): ten samples of one iteration each keep the run to minutes.
            group.sample_size(10);
            group.sampling_mode(SamplingMode::Flat);
            group.measurement_time(Duration::from_secs(if n >= 1_000_000 { 8 } else { 4 }));
        }

        let mut cpu = CpuNarrowPhase::new();
        cpu.set_shapes(&batch.shapes).unwrap();
        let reference = cpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
        // Every timed call writes into this vector, as `World` does: once it has grown, a
        // call allocates nothing, so the benches time the work and not the allocator.
        let mut out = Vec::new();
        eprintln!(
            "narrow_phase/{n}: {} colliders, {pairs} pairs, {} overlapping",
            batch.colliders.len(),
            reference.len()
        );
        group.bench_function(BenchmarkId::new("cpu_1_thread", n), |b| {
            b.iter(|| {
                cpu.collide_pairs_into(
                    black_box(&batch.colliders),
                    black_box(&batch.pairs),
                    &mut out,
                )
                .unwrap();
                out.len()
            })
        });

        let mut parallel = ParallelCpuNarrowPhase::new();
        parallel.set_shapes(&batch.shapes).unwrap();
        group.bench_function(BenchmarkId::new("cpu_parallel", n), |b| {
            b.iter(|| {
                parallel
                    .collide_pairs_into(
                        black_box(&batch.colliders),
                        black_box(&batch.pairs),
                        &mut out,
                    )
                    .unwrap();
                out.len()
            })
        });

        if let Some(narrow) = gpu_narrow.as_mut() {
            narrow.set_shapes(&batch.shapes).unwrap();
            // Warm-up outside timing: the first dispatch compiles the shader and sizes the
            // buffers; the second settles the readback estimate at this batch's count.
            for _ in 0..2 {
                let contacts = narrow
                    .collide_pairs(&batch.colliders, &batch.pairs)
                    .unwrap();
                if contacts.len().abs_diff(reference.len()) > 5 {
                    eprintln!(
                        "WARNING: GPU found {} contacts, CPU {}",
                        contacts.len(),
                        reference.len()
                    );
                }
            }
            group.bench_function(BenchmarkId::new("gpu_end_to_end", n), |b| {
                b.iter(|| {
                    narrow
                        .collide_pairs_into(
                            black_box(&batch.colliders),
                            black_box(&batch.pairs),
                            &mut out,
                        )
                        .unwrap();
                    out.len()
                })
            });
            if narrow.timings().and_then(|t| t.kernel).is_some() {
                // Criterion times what the closure returns: the sum of the kernel's own
                // times, not the wall clock around the calls.
                group.bench_function(BenchmarkId::new("gpu_kernel", n), |b| {
                    b.iter_custom(|iters| kernel_time(narrow, &batch, &mut out, iters))
                });
                let mut table: Vec<Shape> = batch.shapes.iter().copied().map(Shape::from).collect();
                table.push(Shape::from(
                    Capsule::new(Vec2::ZERO, Vec2::X, 0.25).expect("a valid capsule"),
                ));
                narrow.set_shape_table(&table).unwrap();
                narrow
                    .collide_pairs_into(&batch.colliders, &batch.pairs, &mut out)
                    .unwrap();
                group.bench_function(BenchmarkId::new("gpu_kernel_full_path", n), |b| {
                    b.iter_custom(|iters| kernel_time(narrow, &batch, &mut out, iters))
                });
            } else if n == SIZES[0] {
                eprintln!("the adapter has no timestamp queries: no gpu_kernel benchmark");
            }
        }

        let parry = common::ParryBatch::new(&batch.shapes, &batch.colliders);
        let mismatches = common::check_parry_agrees(&parry, &batch, &reference);
        eprintln!("narrow_phase/{n}: parry2d disagrees with wgpu-sat on {mismatches} pairs");
        group.bench_function(BenchmarkId::new("parry2d", n), |b| {
            b.iter(|| parry.count_overlapping(black_box(&batch.colliders), black_box(&batch.pairs)))
        });
    }
    group.finish();
    if let Some(g) = &gpu {
        eprintln!("GPU was {}", g.describe());
    }
}

/// The sum of the kernel's own times (timestamp queries, not the wall clock around the
/// calls) over `iters` calls on `batch`.
fn kernel_time(
    narrow: &mut GpuNarrowPhase,
    batch: &scenes::NarrowPhaseBatch,
    out: &mut Vec<Contact>,
    iters: u64,
) -> Duration {
    let mut kernel = Duration::ZERO;
    for _ in 0..iters {
        narrow
            .collide_pairs_into(&batch.colliders, &batch.pairs, out)
            .unwrap();
        black_box(out.len());
        kernel += narrow.timings().unwrap().kernel.unwrap();
    }
    kernel
}

criterion_group! {
    name = benches;
    config = common::criterion_config();
    targets = narrow_phase
}
criterion_main!(benches);
