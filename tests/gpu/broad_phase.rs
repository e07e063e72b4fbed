//! The GPU broad phase (`GpuBroadPhase`, `shaders/sort_sweep.wgsl` with `radix_sort.wgsl`
//! and `scan.wgsl`, and the LBVH it was measured against, `shaders/lbvh.wgsl`) against the
//! CPU broad phase (`BroadPhase::find_pairs`) and their own CPU twins
//! (`broad_phase::sort_sweep`, `broad_phase::lbvh_pairs`): the same pairs in the same
//! order on random boxes of mixed sizes, tall and wide boxes across many y bands, identical boxes, a grid of
//! edge-touching boxes, a huge box over tiny ones, boxes far from the origin, and one batch
//! moved over many calls; the empty and one-box batches; the bad-box error and the calls
//! after it; buffers reused once grown; a destroyed device.

use crate::common;

use rand::Rng;
use wgpu_sat::broad_phase::{lbvh_pairs, sort_sweep};
use wgpu_sat::error::BatchError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, BroadPhase, Error, gpu::GpuBroadPhase};

/// `count` random boxes about `center` in a square of half size `extent`, of sizes from a
/// hundredth of a unit to `max_size`.
fn random_boxes(seed: u64, count: usize, center: Vec2, extent: f32, max_size: f32) -> Vec<Aabb> {
    let mut rng = common::rng(seed);
    (0..count)
        .map(|_| {
            let min = center
                + Vec2::new(
                    rng.random_range(-extent..extent),
                    rng.random_range(-extent..extent),
                );
            let size = Vec2::new(
                rng.random_range(0.01..max_size),
                rng.random_range(0.01..max_size),
            );
            Aabb::new(min, min + size)
        })
        .collect()
}

/// Checks the GPU's pairs of `boxes` against the CPU broad phase's and the twin's, through
/// the sweep and through the LBVH; returns how many pairs there were.
fn check(gpu: &mut GpuBroadPhase, boxes: &[Aabb], what: &str) -> usize {
    let expected = BroadPhase::new().find_pairs(boxes).to_vec();
    assert_eq!(sort_sweep(boxes).unwrap(), expected, "{what}: the CPU twin");
    let found = gpu.find_pairs(boxes).unwrap().to_vec();
    assert_eq!(found.len(), expected.len(), "{what}: pair count");
    assert_eq!(found, expected, "{what}: pairs");
    assert_eq!(
        lbvh_pairs(boxes).unwrap(),
        expected,
        "{what}: the LBVH's CPU twin"
    );
    let found = gpu.find_pairs_lbvh(boxes).unwrap().to_vec();
    assert_eq!(found.len(), expected.len(), "{what}: the LBVH's pair count");
    assert_eq!(found, expected, "{what}: the LBVH's pairs");
    expected.len()
}

#[test]
fn gpu_pairs_equal_the_cpu_broad_phase() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();

    // Random boxes of mixed sizes: past one scan level of counts (65,536) and with pair
    // indices past 16 bits (two radix passes per key).
    let boxes = random_boxes(1, 70_000, Vec2::ZERO, 300.0, 3.0);
    assert!(check(&mut gpu, &boxes, "random") > 30_000);
    let boxes = random_boxes(2, 3_000, Vec2::ZERO, 20.0, 2.0);
    assert!(check(&mut gpu, &boxes, "dense") > 10_000);
    // The kernels' own time, where the device counts it.
    let timed = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(gpu.kernel_time().is_some(), timed);
    assert!(
        gpu.kernel_time()
            .is_none_or(|t| t > std::time::Duration::ZERO)
    );
    gpu.find_pairs(&boxes[..1]).unwrap();
    assert_eq!(gpu.kernel_time(), None, "no pass, no time");

    // Tall thin boxes among flat wide ones: entries spanning many y bands, pairs whose
    // reporting band is neither box's lowest.
    let mut mixed = random_boxes(9, 2_000, Vec2::ZERO, 50.0, 0.5);
    for (k, b) in mixed.iter_mut().enumerate() {
        let stretch = if k % 2 == 0 {
            Vec2::new(0.0, 15.0)
        } else {
            Vec2::new(12.0, 0.0)
        };
        *b = Aabb::new(b.min, b.max + stretch);
    }
    assert!(check(&mut gpu, &mixed, "tall and wide") > 5_000);

    // Identical boxes: every pair, from keys that all tie (the sorts must keep them stable).
    let boxes = vec![Aabb::new(Vec2::splat(-0.5), Vec2::splat(0.5)); 300];
    assert_eq!(check(&mut gpu, &boxes, "identical"), 300 * 299 / 2);

    // A grid of unit boxes that touch their neighbours along edges and at corners.
    let mut grid = Vec::new();
    for i in 0..40 {
        for j in 0..40 {
            let min = Vec2::new(i as f32, j as f32);
            grid.push(Aabb::new(min, min + Vec2::ONE));
        }
    }
    // Each box pairs with its 8 neighbours (edge and corner): 4 pairs per inner box.
    assert_eq!(
        check(&mut gpu, &grid, "touching grid"),
        2 * 40 * 39 + 2 * 39 * 39
    );

    // One huge box over many tiny ones, listed last and first.
    let mut tiny = random_boxes(3, 2_000, Vec2::ZERO, 100.0, 0.05);
    tiny.push(Aabb::new(Vec2::splat(-200.0), Vec2::splat(200.0)));
    tiny.insert(0, Aabb::new(Vec2::splat(-150.0), Vec2::splat(150.0)));
    assert!(check(&mut gpu, &tiny, "huge over tiny") > 4_000);

    // Far from the origin, where f32 spacing is coarse, and on negative coordinates (the
    // sortable keys flip their bits).
    let far = random_boxes(4, 4_000, Vec2::new(-1.0e6, 2.5e5), 100.0, 4.0);
    assert!(check(&mut gpu, &far, "far") > 1_000);
    let mixed_sign = random_boxes(5, 4_000, Vec2::ZERO, 30.0, 1.0);
    assert!(check(&mut gpu, &mixed_sign, "both signs") > 1_000);
}

#[test]
fn gpu_broad_phase_over_many_calls_with_motion() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let mut boxes = random_boxes(6, 2_000, Vec2::ZERO, 40.0, 2.0);
    let mut rng = common::rng(7);
    let velocities: Vec<Vec2> = (0..boxes.len())
        .map(|_| Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect();
    // The batch moves, then shrinks to a few boxes and grows back: every buffer is grown,
    // reused and bound again at another size.
    for call in 0..30 {
        for (b, v) in boxes.iter_mut().zip(&velocities) {
            *b = Aabb::new(b.min + *v, b.max + *v);
        }
        let count = match call {
            10..=14 => 3,
            15..=19 => 0,
            _ => boxes.len(),
        };
        check(&mut gpu, &boxes[..count], &format!("call {call}"));
    }
    // Warm: the same batch again creates no buffer.
    let created = gpu.buffers_created();
    check(&mut gpu, &boxes, "warm");
    assert_eq!(gpu.buffers_created(), created);
}

#[test]
fn gpu_broad_phase_small_and_bad_batches() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    assert!(gpu.find_pairs(&[]).unwrap().is_empty());
    let one = [Aabb::new(Vec2::ZERO, Vec2::ONE)];
    assert!(gpu.find_pairs(&one).unwrap().is_empty());
    let two = [one[0], Aabb::new(Vec2::ONE, Vec2::splat(3.0))];
    assert_eq!(gpu.find_pairs(&two).unwrap(), &[[0, 1]]);

    // Each bad box is named by its index, and the next call works.
    let good = random_boxes(8, 500, Vec2::ZERO, 10.0, 1.0);
    let bad_boxes = [
        Aabb::new(Vec2::new(f32::NAN, 0.0), Vec2::ONE),
        Aabb::new(Vec2::ZERO, Vec2::new(1.0, f32::INFINITY)),
        Aabb::new(Vec2::new(f32::NEG_INFINITY, 0.0), Vec2::ONE),
        // Inverted: its minimum above its maximum.
        Aabb::new(Vec2::new(2.0, 0.0), Vec2::new(1.0, 1.0)),
    ];
    for (k, bad) in bad_boxes.into_iter().enumerate() {
        let mut boxes = good.clone();
        let index = 17 * (k + 1);
        boxes[index] = bad;
        match gpu.find_pairs(&boxes) {
            Err(Error::Batch(BatchError::InvalidBox { index: named })) => {
                assert_eq!(named, index)
            }
            other => panic!("box {bad:?}: {other:?}"),
        }
        let message = gpu.find_pairs(&boxes).unwrap_err().to_string();
        assert!(message.contains(&format!("box {index}")), "{message}");
        check(&mut gpu, &good, "after a bad batch");
    }
}

#[test]
fn gpu_broad_phase_on_a_destroyed_device_returns_an_error() {
    let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
    else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let boxes = random_boxes(10, 1_000, Vec2::ZERO, 10.0, 1.0);
    check(&mut gpu, &boxes, "before the loss");
    device.destroy();
    // Never a panic or a hang, and never pairs that were not computed.
    match gpu.find_pairs(&boxes) {
        Err(Error::Gpu(e)) => eprintln!("after the loss: {e}"),
        other => panic!("find_pairs on a destroyed device: {other:?}"),
    }
    // Batches with nothing to send still answer, and a bad box is still named.
    assert!(gpu.find_pairs(&boxes[..1]).unwrap().is_empty());
    let bad = [Aabb::new(Vec2::ZERO, Vec2::new(f32::NAN, 1.0))];
    assert!(matches!(
        gpu.find_pairs(&bad),
        Err(Error::Batch(BatchError::InvalidBox { index: 0 }))
    ));
}
