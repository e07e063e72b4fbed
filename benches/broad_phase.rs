//! The broad phase, one criterion group (`broad_phase`): all overlapping pairs among 1k,
//! 10k and 100k moving boxes (the AABBs of `scenes::narrow_phase_batch` bodies, each
//! circling 0.05 units per 32 frames, so about 0.01 units a frame), through
//!
//! - `sweep_and_prune`: `BroadPhase::find_pairs`, kept from frame to frame (its sort order
//!   is re-sorted by insertion sort), pairs sorted ascending as its contract says;
//! - `parry2d_bvh_rebuild`: parry2d 0.31's `Bvh::from_leaves` (binned SAH) every frame, then
//!   `traverse_bvtt_single_tree` for the leaf pairs;
//! - `parry2d_bvh_refit`: the same BVH kept between frames as rapier keeps it: leaves
//!   updated in place, `refit`, `optimize_incremental`, then the traversal.
//!
//! Every iteration takes the next precomputed frame, so the motion itself is outside the
//! timing and identical for both libraries. parry2d's pairs are collected into a `Vec`
//! (unsorted: its traversal does not need an order). Before timing, the benches assert
//! that all three find the same pair set. Throughput is in boxes.
//!
//! ```text
//! CARGO_TARGET_DIR=... cargo bench --bench broad_phase
//! cargo bench --bench broad_phase -- --warm-up-time 1 --measurement-time 2
//! ```

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use parry2d::partitioning::BvhWorkspace;
use wgpu_sat::BroadPhase;

use common::{FRAMES, MovingBoxes, ParryBvhRefit};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_phase");
    for n in SIZES {
        let boxes = MovingBoxes::new(n, common::SEED);
        let parry_frames = boxes.parry_frames();
        group.throughput(Throughput::Elements(n as u64));
        if n >= 100_000 {
            group.sample_size(10);
            group.measurement_time(Duration::from_secs(4));
        }

        // The same answer from all three, on a few consecutive frames (the first through
        // the refit path too), checked once before anything is timed.
        let mut sap = BroadPhase::new();
        let mut workspace = BvhWorkspace::default();
        let mut refit = ParryBvhRefit::new(&parry_frames[0]);
        let mut theirs = Vec::new();
        for (f, (frame, parry_frame)) in boxes.frames.iter().zip(&parry_frames).take(3).enumerate()
        {
            let ours = sap.find_pairs(frame).to_vec();
            common::parry_bvh_rebuild(parry_frame, &mut workspace, &mut theirs);
            common::assert_same_pairs(&format!("{n} boxes, frame {f}, rebuild"), &ours, &theirs);
            refit.find_pairs(parry_frame, &mut theirs);
            common::assert_same_pairs(&format!("{n} boxes, frame {f}, refit"), &ours, &theirs);
            if f == 0 {
                eprintln!("broad_phase/{n}: {} pairs in frame 0", ours.len());
            }
        }

        // Each bench walks the frames in order from where its warm-up left off; the
        // frame index wraps, and since the motion is periodic the wrap is an ordinary step.
        let mut frame = 0;
        group.bench_function(BenchmarkId::new("sweep_and_prune", n), |b| {
            b.iter(|| {
                frame = (frame + 1) % FRAMES;
                sap.find_pairs(black_box(&boxes.frames[frame])).len()
            })
        });
        group.bench_function(BenchmarkId::new("parry2d_bvh_rebuild", n), |b| {
            b.iter(|| {
                frame = (frame + 1) % FRAMES;
                common::parry_bvh_rebuild(
                    black_box(&parry_frames[frame]),
                    &mut workspace,
                    &mut theirs,
                );
                theirs.len()
            })
        });
        group.bench_function(BenchmarkId::new("parry2d_bvh_refit", n), |b| {
            b.iter(|| {
                frame = (frame + 1) % FRAMES;
                refit.find_pairs(black_box(&parry_frames[frame]), &mut theirs);
                theirs.len()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion_config();
    targets = broad_phase
}
criterion_main!(benches);
