//! The GPU broad phase's persistent face (`GpuBroadPhase::update_pairs`,
//! `shaders/pair_set.wgsl`) against its CPU twin (`broad_phase::PersistentPairs`, itself
//! checked against the world's pair set in its unit tests): the same set size and the same
//! begun and ended pairs, update after update, while boxes creep inside their fat boxes,
//! jump, come and go, and filters change; the set read back from the device; what crosses
//! the bus when nothing moved; empty and one-box updates; bad input refused with the set
//! kept; the batch face between updates; a destroyed device.

use crate::common;

use rand::Rng;
use wgpu_sat::broad_phase::{PairFilter, PersistentPairs};
use wgpu_sat::error::BatchError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, BodyType, BroadPhase, Error, Filter, gpu::GpuBroadPhase};

/// Four filter kinds in turn (default; a negative group; a category its own mask skips; a
/// positive group with no mask), colliders in twos per body; of every five bodies one
/// static and one kinematic, and every seventh collider a sensor: the world's whole rule.
fn filters(n: usize) -> Vec<PairFilter> {
    (0..n)
        .map(|i| {
            let filter = match i % 4 {
                0 => Filter::default(),
                1 => Filter {
                    group_index: -1,
                    ..Filter::default()
                },
                2 => Filter {
                    category_bits: 1 << 40,
                    mask_bits: !(1 << 40),
                    group_index: 0,
                },
                _ => Filter {
                    mask_bits: 0,
                    group_index: 2,
                    ..Filter::default()
                },
            };
            let body = (i / 2) as u32;
            let types = [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic];
            PairFilter {
                filter,
                body,
                body_type: types[(body % 5).min(2) as usize],
                sensor: i % 7 == 0,
            }
        })
        .collect()
}

/// Boxes of half size 0.4 about the centres.
fn boxes(centres: &[Vec2]) -> Vec<Aabb> {
    centres
        .iter()
        .map(|&c| Aabb::new(c - Vec2::splat(0.4), c + Vec2::splat(0.4)))
        .collect()
}

/// Bodies kept apart as a joint keeps them, for `n` colliders: every third body with the
/// next, in the tests' large sets (the small ones' pairs are counted by hand).
fn apart(n: usize) -> Vec<[u32; 2]> {
    if n < 100 {
        return Vec::new();
    }
    (0..n as u32 / 2).step_by(3).map(|b| [b, b + 1]).collect()
}

/// One update of both; asserts they agree and returns (pairs, begun, ended).
fn update(
    gpu: &mut GpuBroadPhase,
    twin: &mut PersistentPairs,
    boxes: &[Aabb],
    filters: &[PairFilter],
    what: &str,
) -> (usize, usize, usize) {
    let apart = apart(filters.len());
    let expected = twin.update_with(boxes, filters, &apart).unwrap();
    let (pairs, begun, ended) = (
        expected.pairs,
        expected.begun.to_vec(),
        expected.ended.to_vec(),
    );
    let got = gpu.update_pairs_with(boxes, filters, &apart).unwrap();
    assert_eq!(got.pairs, pairs, "{what}: set size");
    assert_eq!(got.begun, begun, "{what}: begun");
    assert_eq!(got.ended, ended, "{what}: ended");
    assert_eq!(gpu.set_len(), pairs);
    (pairs, begun.len(), ended.len())
}

/// The device's set, read back.
fn read_set(gpu: &GpuBroadPhase, device: &wgpu::Device, queue: &wgpu::Queue) -> Vec<[u32; 2]> {
    let bytes = 8 * gpu.set_len() as u64;
    if bytes == 0 {
        return Vec::new();
    }
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test set readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(gpu.set_buffer().unwrap(), 0, &staging, 0, bytes);
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let view = staging.slice(..).get_mapped_range().unwrap();
    bytemuck::cast_slice::<u8, [u32; 2]>(&view).to_vec()
}

#[test]
fn gpu_persistent_pairs_follow_the_twin_over_many_updates() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let mut twin = PersistentPairs::new();
    let mut rng = common::rng(31);
    let n = 2_000;
    let mut filters = filters(n);
    let field = 30.0;
    let mut centres: Vec<Vec2> = (0..n)
        .map(|_| {
            Vec2::new(
                rng.random_range(-field..field),
                rng.random_range(-field..field),
            )
        })
        .collect();
    // The first update begins every pair: more than the first copy back holds.
    let (first, begun, _) = update(&mut gpu, &mut twin, &boxes(&centres), &filters, "first");
    assert!(
        first > 800 && begun == first,
        "{first} pairs, {begun} begun"
    );
    assert_eq!(
        read_set(&gpu, &device, &queue),
        twin.pairs(),
        "the device's set"
    );

    let (mut begun_all, mut ended_all) = (0, 0);
    for step in 0..40 {
        for (i, c) in centres.iter_mut().enumerate() {
            if (i + step) % 131 == 0 {
                *c = Vec2::new(
                    rng.random_range(-field..field),
                    rng.random_range(-field..field),
                );
            } else {
                *c += Vec2::new(rng.random_range(-0.03..0.03), rng.random_range(-0.03..0.03));
            }
        }
        if step == 20 {
            // A filter change takes effect at the next update: collider 0 and 2 touch
            // nothing from here.
            for f in [0, 2] {
                filters[f].filter.mask_bits = 0;
            }
        }
        let (_, begun, ended) = update(&mut gpu, &mut twin, &boxes(&centres), &filters, "motion");
        begun_all += begun;
        ended_all += ended;
    }
    assert!(begun_all > 50 && ended_all > 50, "{begun_all} {ended_all}");
    assert_eq!(
        read_set(&gpu, &device, &queue),
        twin.pairs(),
        "the set after motion"
    );

    // The filters refused pairs whose fat boxes overlap.
    let all = BroadPhase::new().find_pairs(twin.fat_boxes()).len();
    assert!(gpu.set_len() < all, "{} of {all}", gpu.set_len());

    // Nothing moved: no change, and nothing crosses the bus.
    let still = boxes(&centres);
    update(&mut gpu, &mut twin, &still, &filters, "still");
    let (pairs, begun, ended) = update(&mut gpu, &mut twin, &still, &filters, "still again");
    assert_eq!((begun, ended), (0, 0));
    assert!(pairs > 800);
    assert_eq!(gpu.update_bytes(), [0, 0]);
    assert_eq!(gpu.kernel_time(), None, "no pass ran");
    // One box creeps out of its fat box: up its fat box (32 bytes) and the passes'
    // uniforms; back the counts, the timestamps and the room for changes (32 of each kind
    // past none). A warm update creates no buffer.
    let mut crept = centres.clone();
    crept[99] += Vec2::new(0.15, 0.0);
    let created = gpu.buffers_created();
    update(&mut gpu, &mut twin, &boxes(&crept), &filters, "crept");
    let [up, down] = gpu.update_bytes();
    assert!(up < 32 + 256 * 200, "{up} bytes up");
    assert!(down <= 24 + 32 + 2 * 8 * 32, "{down} bytes back");
    assert_eq!(
        gpu.buffers_created(),
        created,
        "a warm update creates no buffer"
    );
    // Only filters change: the pairs they refuse end.
    let mut deaf = filters.clone();
    for f in deaf.iter_mut().step_by(3) {
        f.filter.mask_bits = 0;
    }
    let (_, _, ended) = update(&mut gpu, &mut twin, &boxes(&crept), &deaf, "filters");
    assert!(ended > 100, "{ended}");

    // Colliders come and go: the count grows, then shrinks below the start.
    let mut more = centres.clone();
    more.extend((0..500).map(|_| Vec2::new(rng.random_range(-field..field), 0.0)));
    let more_filters = self::filters(more.len());
    update(&mut gpu, &mut twin, &boxes(&more), &more_filters, "grown");
    let (_, _, ended) = update(
        &mut gpu,
        &mut twin,
        &boxes(&more[..700]),
        &more_filters[..700],
        "shrunk",
    );
    assert!(ended > 100, "{ended}");
    assert_eq!(
        read_set(&gpu, &device, &queue),
        twin.pairs(),
        "the set after shrinking"
    );
}

/// The fat boxes a caller keeps (the world's), given as they are: the device's set and
/// changes are the twin's, only the fat boxes that changed go up, and kept-apart pairs out
/// of order are refused by name.
#[test]
fn gpu_persistent_pairs_over_given_fat_boxes_follow_the_twin() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let mut twin = PersistentPairs::new();
    let mut rng = common::rng(5);
    let n = 1_500;
    let filters = filters(n);
    let apart = apart(n);
    let mut fat = boxes(
        &(0..n)
            .map(|_| Vec2::new(rng.random_range(-25.0..25.0), rng.random_range(-25.0..25.0)))
            .collect::<Vec<_>>(),
    );
    let (mut begun_all, mut ended_all) = (0, 0);
    for step in 0..30 {
        // A few fat boxes made again about moved tight ones; the rest as they were.
        let moved: Vec<usize> = (0..n).filter(|i| (i + 7 * step) % 53 == 0).collect();
        for &i in &moved {
            let shift = Vec2::new(rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5));
            fat[i] = Aabb::new(fat[i].min + shift, fat[i].max + shift);
        }
        let expected = twin.update_fat(&fat, &filters, &apart).unwrap();
        let (pairs, begun, ended) = (
            expected.pairs,
            expected.begun.to_vec(),
            expected.ended.to_vec(),
        );
        let got = gpu.update_pairs_fat(&fat, &filters, &apart).unwrap();
        assert_eq!(
            (got.pairs, got.begun, got.ended),
            (pairs, &begun[..], &ended[..]),
            "step {step}"
        );
        if step > 0 {
            // The moved fat boxes (32 bytes each), the passes' uniforms, nothing else.
            let [up, _] = gpu.update_bytes();
            assert!(
                up <= 32 * moved.len() as u64 + 256 * 200,
                "step {step}: {up} bytes"
            );
        }
        begun_all += begun.len();
        ended_all += ended.len();
    }
    assert!(begun_all > 500 && ended_all > 30, "{begun_all} {ended_all}");
    assert_eq!(read_set(&gpu, &device, &queue), twin.pairs());
    // The fat boxes as they are: a fat box the twin would not grow again.
    let unchanged = gpu.update_pairs_fat(&fat, &filters, &apart).unwrap();
    assert_eq!((unchanged.begun.len(), unchanged.ended.len()), (0, 0));
    assert_eq!(gpu.update_bytes(), [0, 0]);
    let unsorted = [[3, 4], [1, 2]];
    let e = gpu.update_pairs_fat(&fat, &filters, &unsorted).unwrap_err();
    assert!(
        matches!(e, Error::Batch(BatchError::UnsortedApartPairs { index: 1 })),
        "{e}"
    );
    let e = twin.update_fat(&fat, &filters, &[[2, 2]]).unwrap_err();
    assert!(
        matches!(e, Error::Batch(BatchError::UnsortedApartPairs { index: 0 })),
        "{e}"
    );
    assert_eq!(
        read_set(&gpu, &device, &queue),
        twin.pairs(),
        "kept on errors"
    );
}

#[test]
fn gpu_persistent_pairs_small_bad_and_mixed_with_the_batch_face() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let mut twin = PersistentPairs::new();
    let f = filters(8);
    let distinct: Vec<PairFilter> = (0..8)
        .map(|body| PairFilter::new(Filter::default(), body))
        .collect();
    // Empty and one box: no pairs; then two that touch at an edge.
    assert_eq!(update(&mut gpu, &mut twin, &[], &[], "empty"), (0, 0, 0));
    let one = [Aabb::new(Vec2::ZERO, Vec2::ONE)];
    assert_eq!(update(&mut gpu, &mut twin, &one, &f[..1], "one"), (0, 0, 0));
    let two = [one[0], Aabb::new(Vec2::new(1.2, 0.0), Vec2::new(2.0, 1.0))];
    assert_eq!(
        update(&mut gpu, &mut twin, &two, &distinct[..2], "two"),
        (1, 1, 0)
    );
    // Back to one: the pair ends.
    assert_eq!(
        update(&mut gpu, &mut twin, &one, &distinct[..1], "one again"),
        (0, 0, 1)
    );

    // The doc example of update_pairs: a third box moves onto the second (and its fat box
    // stays clear of the first's).
    let mut fresh = GpuBroadPhase::new(&device, &queue).unwrap();
    let at = |x: f32| Aabb::new(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 1.0));
    let changes = fresh
        .update_pairs(&[at(0.0), at(0.5), at(5.0)], &distinct[..3])
        .unwrap();
    assert_eq!(changes.begun, [[0, 1]]);
    let changes = fresh
        .update_pairs(&[at(0.0), at(0.5), at(1.3)], &distinct[..3])
        .unwrap();
    assert_eq!(
        (changes.pairs, changes.begun, changes.ended),
        (2, &[[1, 2]][..], &[][..])
    );

    let mut rng = common::rng(5);
    let centres: Vec<Vec2> = (0..300)
        .map(|_| Vec2::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0)))
        .collect();
    let good = boxes(&centres);
    let good_filters = filters(good.len());
    update(&mut gpu, &mut twin, &good, &good_filters, "good");

    // Bad input: named, and the set stays (the next update's changes are the twin's, which
    // refused the same input).
    let mut bad = good.clone();
    bad[123] = Aabb::new(Vec2::new(0.0, f32::NAN), Vec2::ONE);
    assert!(matches!(
        gpu.update_pairs(&bad, &good_filters),
        Err(Error::Batch(BatchError::InvalidBox { index: 123 }))
    ));
    let message = gpu
        .update_pairs(&good, &good_filters[..10])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("10 filters") && message.contains("300 boxes"),
        "{message}"
    );
    assert_eq!(gpu.set_len(), twin.pairs().len());

    // The batch face between two updates (it overwrites the boxes' buffer): the persistent
    // face sends its fat boxes again, and its set is intact.
    let other = boxes(&centres[..50]);
    assert_eq!(
        gpu.find_pairs(&other).unwrap(),
        BroadPhase::new().find_pairs(&other)
    );
    let mut moved = centres.clone();
    moved[7] += Vec2::new(3.0, 0.0);
    update(
        &mut gpu,
        &mut twin,
        &boxes(&moved),
        &good_filters,
        "after the batch face",
    );
    update(
        &mut gpu,
        &mut twin,
        &boxes(&moved),
        &good_filters,
        "after, still",
    );
}

#[test]
fn gpu_persistent_pairs_on_a_destroyed_device_return_an_error() {
    let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
    else {
        return;
    };
    let mut gpu = GpuBroadPhase::new(&device, &queue).unwrap();
    let centres: Vec<Vec2> = (0..200).map(|i| Vec2::new(0.5 * i as f32, 0.0)).collect();
    let f = filters(200);
    let pairs = gpu.update_pairs(&boxes(&centres), &f).unwrap().pairs;
    assert!(pairs > 0);
    device.destroy();
    // Nothing moved: nothing to send, and the set stands.
    assert_eq!(gpu.update_pairs(&boxes(&centres), &f).unwrap().pairs, pairs);
    let moved: Vec<Vec2> = centres.iter().map(|&c| c + Vec2::new(0.0, 1.0)).collect();
    match gpu.update_pairs(&boxes(&moved), &f) {
        Err(Error::Gpu(e)) => eprintln!("after the loss: {e}"),
        other => panic!("update_pairs on a destroyed device: {other:?}"),
    }
    // Bad input is still named before anything is sent.
    let bad = [Aabb::new(Vec2::ZERO, Vec2::new(f32::NAN, 1.0))];
    assert!(matches!(
        gpu.update_pairs(&bad, &f[..1]),
        Err(Error::Batch(BatchError::InvalidBox { index: 0 }))
    ));
}
