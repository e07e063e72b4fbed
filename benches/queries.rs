//! World queries, one criterion group (`queries`): 1,000 closest-hit ray casts (20 units
//! of reach, random origins and directions) against a world of 10,000 and of 100,000 static
//! convex polygons and circles, through `World::cast_ray_closest` (`wgpu_sat`) and through
//! parry2d 0.31's BVH (`Bvh::cast_ray`, binned build, each leaf cast with parry2d's own
//! shape) on the same shapes and poses (`parry2d`). Throughput is in rays. The inputs are
//! `common::queries::RayScene`'s, shared with the `benchmark` example.
//!
//! ```text
//! cargo bench --bench queries
//! ```

mod common;

use std::hint::black_box;

use common::queries::{RAYS_PER_CALL, RayScene};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn queries(c: &mut Criterion) {
    let mut group = c.benchmark_group("queries");
    group.throughput(Throughput::Elements(RAYS_PER_CALL as u64));
    for colliders in [10_000, 100_000] {
        let scene = RayScene::new(colliders, common::SEED);
        let (differ, hits) = scene.check();
        eprintln!(
            "queries {colliders}: {hits} of {RAYS_PER_CALL} rays hit; parry2d differs on {differ}"
        );
        group.bench_function(BenchmarkId::new("ray_cast/wgpu_sat", colliders), |b| {
            b.iter(|| black_box(scene.cast_ours()))
        });
        group.bench_function(BenchmarkId::new("ray_cast/parry2d", colliders), |b| {
            b.iter(|| black_box(scene.cast_parry()))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion_config();
    targets = queries
}
criterion_main!(benches);
