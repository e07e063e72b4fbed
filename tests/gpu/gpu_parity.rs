//! The GPU narrow phase against the CPU reference, on whatever adapter exists (a software
//! one in CI).

use crate::common;

use common::assert_same_contacts;
use wgpu_sat::error::BatchError;
use wgpu_sat::{CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon};

#[test]
fn gpu_matches_cpu_on_100k_random_pairs() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_batch(7, 64, 20_000, 50.0);
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    cpu.set_shapes(&shapes).unwrap();
    gpu.set_shapes(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let got = gpu.collide_pairs(&colliders, &pairs).unwrap();
    eprintln!("{} pairs, {} contacts", pairs.len(), expected.len());
    assert!(
        pairs.len() >= 100_000,
        "the batch should have at least 100k pairs"
    );
    assert!(
        expected.len() > pairs.len() / 4,
        "the batch should have many contacts"
    );
    assert_same_contacts(&expected, &got);
}

#[test]
fn a_batch_larger_than_the_binding_limit_is_split() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_batch(21, 16, 3000, 18.0);
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let per_dispatch = gpu.max_pairs_per_dispatch(colliders.len());
    eprintln!("{} pairs, at most {per_dispatch} per dispatch", pairs.len());
    assert!(
        pairs.len() > 5 * per_dispatch,
        "the batch must need several dispatches"
    );
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&shapes).unwrap();
    gpu.set_shapes(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let got = gpu.collide_pairs(&colliders, &pairs).unwrap();
    assert!(
        expected.len() > per_dispatch,
        "contacts must span several dispatches"
    );
    assert_same_contacts(&expected, &got);
}

#[test]
fn far_from_the_origin_the_backends_still_agree() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, mut colliders, pairs) = common::random_batch(33, 32, 4000, 20.0);
    for c in &mut colliders {
        c.transform = wgpu_sat::Transform::from_rotation(
            c.transform.translation() + wgpu_sat::glam::Vec2::new(1000.0, -700.0),
            c.transform.rotation(),
        );
    }
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    cpu.set_shapes(&shapes).unwrap();
    gpu.set_shapes(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    assert!(expected.len() > 1000);
    assert_same_contacts(&expected, &gpu.collide_pairs(&colliders, &pairs).unwrap());
}

#[test]
fn warm_calls_create_no_buffers_and_reuse_results() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_batch(4, 16, 2000, 15.0);
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    cpu.set_shapes(&shapes).unwrap();
    gpu.set_shapes(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    assert_same_contacts(&expected, &gpu.collide_pairs(&colliders, &pairs).unwrap());
    let warm = gpu.buffers_created();
    for round in 0..5 {
        // Smaller batches and moved colliders reuse the same buffers.
        let n = pairs.len() - round * 100;
        let moved: Vec<_> = colliders
            .iter()
            .map(|c| wgpu_sat::Collider {
                transform: wgpu_sat::Transform::new(
                    c.transform.translation() * 0.99,
                    c.transform.angle() + 0.01 * round as f32,
                ),
                ..*c
            })
            .collect();
        let expected = cpu.collide_pairs(&moved, &pairs[..n]).unwrap();
        assert_same_contacts(&expected, &gpu.collide_pairs(&moved, &pairs[..n]).unwrap());
    }
    assert_eq!(gpu.buffers_created(), warm, "a warm call created buffers");
    // What a warm call moves: 16 B per collider and 8 per pair up (shape ids unchanged), and
    // back the count and the records, with at most a quarter (plus 64) of headroom.
    let n = pairs.len() - 4 * 100;
    // Twice: the first copy is sized by the previous call's count.
    gpu.collide_pairs(&colliders, &pairs[..n]).unwrap();
    let contacts = gpu.collide_pairs(&colliders, &pairs[..n]).unwrap().len() as u64;
    let t = gpu.timings().unwrap();
    assert_eq!(
        t.uploaded_bytes,
        16 * colliders.len() as u64 + 8 * n as u64 + 32
    );
    assert!(t.read_back_bytes >= 32 + 48 * contacts, "{t:?}");
    assert!(
        t.read_back_bytes <= 32 + 48 * (contacts + contacts / 4 + 64),
        "{t:?}"
    );
    // Where the time went: measured on the CPU, and the kernel itself from timestamps.
    assert!(t.upload > std::time::Duration::ZERO && t.dispatch > std::time::Duration::ZERO);
    if device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        let kernel = t.kernel.expect("the device has timestamp queries");
        assert!(
            kernel > std::time::Duration::ZERO && kernel <= t.dispatch,
            "{t:?}"
        );
    }
}

#[test]
fn empty_input_gives_no_contacts() {
    let mut cpu = CpuNarrowPhase::new();
    assert!(cpu.collide_pairs(&[], &[]).unwrap().is_empty());
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    assert!(gpu.collide_pairs(&[], &[]).unwrap().is_empty());
    gpu.set_shapes(&[Polygon::rectangle(1.0, 1.0)]).unwrap();
    let one = [wgpu_sat::Collider::default()];
    assert!(gpu.collide_pairs(&one, &[]).unwrap().is_empty());
}

/// Every bad input, on both backends, with its specific error; and the backend still works
/// afterwards.
fn check_bad_inputs(narrow: &mut dyn NarrowPhase) {
    use wgpu_sat::glam::Vec2;
    use wgpu_sat::{Collider, Error, Transform};
    let square = Polygon::rectangle(0.5, 0.5);
    narrow
        .set_shapes(&[square, Polygon::regular(6, 0.5).unwrap()])
        .unwrap();
    let good = vec![
        Collider {
            shape: 0,
            transform: Transform::IDENTITY,
        },
        Collider {
            shape: 1,
            transform: Transform::new(Vec2::new(0.7, 0.1), 0.3),
        },
        Collider {
            shape: 0,
            transform: Transform::new(Vec2::new(5.0, 0.0), 0.0),
        },
    ];
    let pairs = [[0, 1], [1, 2], [0, 2]];

    let e = narrow.collide_pairs(&good, &[[0, 1], [2, 3]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::PairIndexOutOfRange {
                pair: 1,
                index: 3,
                collider_count: 3
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("pair 1"), "{e}");

    let e = narrow.collide_pairs(&good, &[[0, 1], [1, 1]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::SelfPair {
                pair: 1,
                collider: 1
            })
        ),
        "{e:?}"
    );

    let mut bad = good.clone();
    bad[2].shape = 7;
    let e = narrow.collide_pairs(&bad, &pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider: 2,
                shape: 7,
                shape_count: 2
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("collider 2"), "{e}");

    for t in [
        Transform::new(Vec2::new(f32::NAN, 0.0), 0.0),
        Transform::new(Vec2::new(0.0, f32::INFINITY), 0.0),
        Transform::new(Vec2::ZERO, f32::NAN),
        Transform::from_rotation(Vec2::ZERO, Vec2::ZERO),
    ] {
        let mut bad = good.clone();
        bad[1].transform = t;
        let e = narrow.collide_pairs(&bad, &pairs).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Batch(BatchError::NonFiniteTransform { collider: 1 })
            ),
            "{t:?}: {e:?}"
        );
    }

    // Still works, and the good batch gives the one contact it has.
    let contacts = narrow.collide_pairs(&good, &pairs).unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!((contacts[0].a, contacts[0].b), (0, 1));
}

#[test]
fn bad_input_is_an_error_naming_the_item_on_the_cpu() {
    check_bad_inputs(&mut CpuNarrowPhase::new());
}

#[test]
fn bad_input_is_an_error_naming_the_item_on_the_gpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    check_bad_inputs(&mut GpuNarrowPhase::new(&device, &queue).unwrap());
}

#[test]
fn the_parallel_cpu_narrow_phase_matches_the_reference_exactly() {
    let (shapes, colliders, pairs) = common::random_batch(8, 64, 20_000, 50.0);
    let mut cpu = CpuNarrowPhase::new();
    let mut parallel = wgpu_sat::ParallelCpuNarrowPhase::new();
    cpu.set_shapes(&shapes).unwrap();
    parallel.set_shapes(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    assert!(expected.len() > 10_000);
    assert_eq!(
        parallel.collide_pairs(&colliders, &pairs).unwrap(),
        expected
    );
    check_bad_inputs(&mut parallel);
}
