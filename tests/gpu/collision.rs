//! The collision stage on the GPU (`GpuCollision`: the broad phase's pairs left on the
//! device, the narrow phase dispatched indirectly from their count) against its CPU twin
//! (`collision::find_contacts`): the same contacts to the bit on mixed shapes (polygons,
//! circles both ways round, capsules, rounded polygons) with speculative contacts; one
//! batch moved over many calls, its pairs growing past the room reserved (a second submit)
//! and shrinking; empty and one-collider batches; the errors, and the calls after them;
//! what crosses the bus; warm calls that create no buffer; a destroyed device.

use crate::common;

use rand::Rng;
use wgpu_sat::collision::find_contacts;
use wgpu_sat::error::BatchError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuCollision;
use wgpu_sat::world::SPECULATIVE_DISTANCE;
use wgpu_sat::{Capsule, Collider, Contact, Error, Polygon, Shape, Transform};

/// A table of every kind the GPU's narrow phase takes: random polygons and circles, a
/// capsule and a rounded box.
fn shape_table(seed: u64) -> Vec<Shape> {
    let mut rng = common::rng(seed);
    let mut shapes: Vec<Shape> = (0..12)
        .map(|_| common::random_shape(&mut rng, 0.5))
        .collect();
    shapes.push(Shape::from(
        Capsule::new(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.15).unwrap(),
    ));
    shapes.push(Shape::from(
        Polygon::rectangle(0.3, 0.2).with_radius(0.05).unwrap(),
    ));
    shapes
}

/// `count` colliders of random shapes of `shapes` scattered over a square of half size
/// `extent`.
fn scatter(seed: u64, shapes: &[Shape], count: usize, extent: f32) -> Vec<Collider> {
    let mut rng = common::rng(seed);
    (0..count)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: common::random_transform(&mut rng, extent),
        })
        .collect()
}

/// The GPU's contacts of `colliders` against the twin's, bit for bit (to rounding on a
/// hardware adapter: `common::assert_contacts_as_promised`); returns the twin's.
fn check(
    gpu: &mut GpuCollision,
    shapes: &[Shape],
    colliders: &[Collider],
    what: &str,
) -> Vec<Contact> {
    let expected = find_contacts(shapes, colliders, SPECULATIVE_DISTANCE).unwrap();
    let got = gpu.find_contacts(colliders).unwrap();
    common::assert_contacts_as_promised(shapes, colliders, &expected, got, what);
    expected
}

fn stage(device: &wgpu::Device, queue: &wgpu::Queue, shapes: &[Shape]) -> GpuCollision {
    let mut gpu = GpuCollision::new(device, queue).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    gpu.set_speculative_distance(SPECULATIVE_DISTANCE).unwrap();
    gpu
}

#[test]
fn gpu_collision_gives_the_cpu_stages_contacts_to_the_bit() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = shape_table(1);
    let mut gpu = stage(&device, &queue, &shapes);
    let colliders = scatter(2, &shapes, 6_000, 40.0);
    let contacts = check(&mut gpu, &shapes, &colliders, "mixed");
    assert!(contacts.len() > 2_000, "{} contacts", contacts.len());
    // The cases the stage must cover were there: speculative contacts, and circle–polygon
    // pairs with the circle first (the kernel turned those round itself).
    assert!(contacts.iter().any(|c| c.manifold.depth < 0.0));
    let circle_first = contacts.iter().any(|c| {
        let kind = |i: u32| &shapes[colliders[i as usize].shape as usize];
        kind(c.a).as_circle().is_some()
            && matches!(kind(c.b), Shape::Polygon(p) if p.radius() == 0.0)
    });
    assert!(circle_first);
    // Every pair the broad phase found went to the narrow phase on the GPU, and only the
    // count came back.
    assert!(gpu.pair_count() >= contacts.len());
    // Polygons only: the kernel built without the rounded path.
    let polygons: Vec<Shape> = shapes
        .iter()
        .filter(|s| matches!(s, Shape::Polygon(p) if p.radius() == 0.0))
        .copied()
        .collect();
    let mut sharp = stage(&device, &queue, &polygons);
    let colliders = scatter(3, &polygons, 4_000, 30.0);
    assert!(check(&mut sharp, &polygons, &colliders, "polygons").len() > 1_000);
}

#[test]
fn a_batch_moved_over_many_calls_matches_at_every_call() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = shape_table(4);
    let mut gpu = stage(&device, &queue, &shapes);
    let mut colliders = scatter(5, &shapes, 1_500, 60.0);
    let mut rng = common::rng(6);
    let (mut most, mut least, mut second_submits) = (0, usize::MAX, 0);
    // Squeezed towards the centre (the pairs grow past the room reserved), then let go.
    for call in 0..24 {
        let scale = if call < 12 { 0.8 } else { 1.2 };
        for c in &mut colliders {
            let turn = c.transform.angle() + rng.random_range(-0.3..0.3);
            c.transform = Transform::new(c.transform.translation() * scale, turn);
        }
        let contacts = check(&mut gpu, &shapes, &colliders, &format!("call {call}"));
        most = most.max(contacts.len());
        least = least.min(contacts.len());
        second_submits += usize::from(gpu.submits() == 2);
    }
    assert!(most > 20 * least.max(1), "{least}..{most} contacts");
    assert!(second_submits > 0, "the room never ran short");

    // A fifth of the colliders moves each call, another fifth the next, one of them to
    // another shape now and then: only those go up, scattered into place on the device.
    let n = colliders.len() as u64;
    for call in 0..10 {
        for (k, c) in colliders.iter_mut().enumerate() {
            if k % 5 == call % 5 {
                let turn = c.transform.angle() + rng.random_range(-0.3..0.3);
                let nudge = Vec2::new(rng.random_range(-0.2..0.2), rng.random_range(-0.2..0.2));
                c.transform = Transform::new(c.transform.translation() + nudge, turn);
                if k % 35 == 0 {
                    c.shape = (c.shape + 1) % shapes.len() as u32;
                }
            }
        }
        check(
            &mut gpu,
            &shapes,
            &colliders,
            &format!("a fifth moved, call {call}"),
        );
        let up = gpu.timings().uploaded_bytes;
        // 48 bytes for each moved collider, not 36 for each; and the passes' uniforms.
        assert!(
            up >= 48 * n / 5 && up < 48 * n / 5 + 64 * 1024,
            "call {call}: {up} B up"
        );
    }

    // Warm, the same batch again: one submit and no new buffer.
    gpu.find_contacts(&colliders).unwrap();
    let created = gpu.buffers_created();
    check(&mut gpu, &shapes, &colliders, "warm");
    assert_eq!(gpu.submits(), 1);
    assert_eq!(gpu.buffers_created(), created);
}

#[test]
fn the_pairs_never_cross_the_bus() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // Needles at 45 degrees, rows shifted by half a step: each needle's box overlaps its
    // neighbours' (three pairs a needle), while the needles lie at least 0.3 apart.
    let shapes = [Shape::from(Polygon::rectangle(0.7, 0.01))];
    let mut gpu = stage(&device, &queue, &shapes);
    let colliders: Vec<Collider> = (0..10_000)
        .map(|k| {
            let (column, row) = ((k % 100) as f32, (k / 100) as f32);
            let at = Vec2::new(0.9 * column + 0.45 * (row % 2.0), 0.9 * row);
            Collider {
                shape: 0,
                transform: Transform::new(at, std::f32::consts::FRAC_PI_4),
            }
        })
        .collect();
    let contacts = find_contacts(&shapes, &colliders, SPECULATIVE_DISTANCE).unwrap();
    assert_eq!(gpu.find_contacts(&colliders).unwrap(), contacts);
    assert_eq!(contacts.len(), 0);
    assert!(gpu.pair_count() > 25_000, "{} pairs", gpu.pair_count());
    // The first call's room (two pairs a needle) was short: it ran twice, each time with
    // every collider whole (36 bytes each) and the passes' uniforms.
    let n = colliders.len() as u64;
    let first = gpu.timings().uploaded_bytes;
    assert!(
        first >= 2 * 36 * n && first < 2 * (36 * n + 64 * 1024),
        "{first} B up"
    );
    // Warm, nothing moved: once, and no collider goes up at all, only the uniforms.
    assert_eq!(gpu.find_contacts(&colliders).unwrap(), contacts);
    assert_eq!(gpu.submits(), 1);
    let t = gpu.timings();
    // Back: the dispatch, the timestamps, the contact count and the first guess of
    // records. Not 8 bytes a pair either way.
    assert!(t.uploaded_bytes < 64 * 1024, "{} up", t.uploaded_bytes);
    assert!(t.read_back_bytes < 2_048, "{} back", t.read_back_bytes);
    // The kernels' own time, where the device counts it.
    let timed = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(t.kernel.is_some(), timed);
    if let Some(kernel) = t.kernel {
        assert!(
            kernel > std::time::Duration::ZERO && kernel <= t.dispatch,
            "{t:?}"
        );
    }
}

#[test]
fn small_batches_and_bad_input() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = shape_table(7);
    let mut gpu = stage(&device, &queue, &shapes);
    assert!(gpu.find_contacts(&[]).unwrap().is_empty());
    let one = scatter(8, &shapes, 1, 1.0);
    assert!(gpu.find_contacts(&one).unwrap().is_empty());
    // A handful on top of each other: fewer colliders than the records the first copy
    // reads back at least, and nearly every pair a contact.
    let pile: Vec<Collider> = (0..5)
        .map(|k| Collider {
            shape: k,
            transform: Transform::new(Vec2::new(0.01 * k as f32, 0.0), 0.3 * k as f32),
        })
        .collect();
    assert!(check(&mut gpu, &shapes, &pile, "five").len() >= 6);
    let mut colliders = scatter(9, &shapes, 400, 8.0);
    check(&mut gpu, &shapes, &colliders, "before");

    // A shape index out of range and a non-finite pose are named, as the CPU names them;
    // nothing of the call is kept.
    let good = colliders[17];
    colliders[17].shape = shapes.len() as u32;
    for result in [
        gpu.find_contacts(&colliders).map(<[Contact]>::to_vec),
        find_contacts(&shapes, &colliders, SPECULATIVE_DISTANCE),
    ] {
        assert!(matches!(
            result,
            Err(Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider: 17,
                ..
            }))
        ));
    }
    colliders[17] = good;
    colliders[30].transform = Transform::new(Vec2::new(f32::NAN, 0.0), 0.0);
    assert!(matches!(
        gpu.find_contacts(&colliders),
        Err(Error::Batch(BatchError::NonFiniteTransform {
            collider: 30
        }))
    ));
    assert!(matches!(
        gpu.set_speculative_distance(-1.0),
        Err(Error::Batch(BatchError::InvalidSpeculativeDistance { .. }))
    ));
    colliders[30].transform = Transform::IDENTITY;
    check(&mut gpu, &shapes, &colliders, "after");
}

#[test]
fn gpu_collision_on_a_destroyed_device_returns_an_error() {
    let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
    else {
        return;
    };
    let shapes = shape_table(10);
    let mut gpu = stage(&device, &queue, &shapes);
    let colliders = scatter(11, &shapes, 500, 10.0);
    check(&mut gpu, &shapes, &colliders, "before the loss");
    device.destroy();
    match gpu.find_contacts(&colliders) {
        Err(Error::Gpu(e)) => eprintln!("after the loss: {e}"),
        other => panic!("find_contacts on a destroyed device: {other:?}"),
    }
    // Batches with nothing to send still answer.
    assert!(gpu.find_contacts(&colliders[..1]).unwrap().is_empty());
}

#[test]
fn past_the_bindings_an_error_names_what_outgrew_them() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    // 64 KiB bindings: 1,364 contact records, 4,096 pairs' or band entries' sort items.
    let shapes = shape_table(12);
    let mut gpu = stage(&device, &queue, &shapes);
    for (count, extent, outgrown) in [
        (1_200, 10.0, "contacts"),
        (1_500, 10.0, "pairs"),
        (3_000, 12.0, "boxes"),
    ] {
        let crowded = scatter(13, &shapes, count, extent);
        let cpu = find_contacts(&shapes, &crowded, SPECULATIVE_DISTANCE).unwrap();
        assert!(cpu.len() > 1_364, "{} contacts", cpu.len());
        match gpu.find_contacts(&crowded) {
            Err(Error::Gpu(wgpu_sat::error::GpuError::TooLarge { what, count, max })) => {
                assert_eq!(what, outgrown);
                assert!(count > max, "{count} > {max}");
            }
            other => panic!("{count} crowded colliders: {other:?}"),
        }
    }
    // Within the bindings it works on.
    let colliders = scatter(14, &shapes, 300, 10.0);
    check(&mut gpu, &shapes, &colliders, "after");
}

#[test]
fn send_then_collect_is_find_contacts_in_two_halves() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = shape_table(15);
    let mut gpu = stage(&device, &queue, &shapes);
    let colliders = scatter(16, &shapes, 2_000, 8.0);
    let expected = find_contacts(&shapes, &colliders, SPECULATIVE_DISTANCE).unwrap();
    // Twice: the first outgrows its room on the way (a second submit inside `collect`).
    for submits in [2, 1] {
        gpu.send(&colliders).unwrap();
        let cpu_meanwhile = find_contacts(&shapes, &colliders, SPECULATIVE_DISTANCE).unwrap();
        let got = gpu.collect(&colliders).unwrap();
        common::assert_contacts_as_promised(&shapes, &colliders, &cpu_meanwhile, got, "sent");
        assert_eq!(cpu_meanwhile, expected);
        assert_eq!(gpu.submits(), submits);
    }
    // Out of turn: nothing sent, another batch than the one sent, or collected twice.
    let not_sent = |r: Result<&[Contact], Error>| {
        matches!(r, Err(Error::Gpu(wgpu_sat::error::GpuError::NotSent)))
    };
    assert!(not_sent(gpu.collect(&colliders)));
    gpu.send(&colliders).unwrap();
    assert!(not_sent(gpu.collect(&colliders[..100])));
    assert!(not_sent(gpu.collect(&colliders)));
    // A bad batch is named at `send`; the stage works on.
    let mut bad = colliders.clone();
    bad[5].transform = Transform::new(Vec2::new(0.0, f32::INFINITY), 0.0);
    assert!(matches!(
        gpu.send(&bad),
        Err(Error::Batch(BatchError::NonFiniteTransform { collider: 5 }))
    ));
    assert!(not_sent(gpu.collect(&bad)));
    gpu.send(&colliders[..1]).unwrap();
    assert!(gpu.collect(&colliders[..1]).unwrap().is_empty());
    gpu.send(&colliders).unwrap();
    let got = gpu.collect(&colliders).unwrap();
    common::assert_contacts_as_promised(&shapes, &colliders, &expected, got, "sent again");
}

#[test]
fn pairs_past_one_row_of_workgroups_take_more_rows() {
    // 16 workgroups a dimension: one row of the narrow phase reaches 1,024 pairs.
    let limits = wgpu::Limits {
        max_compute_workgroups_per_dimension: 16,
        ..wgpu::Limits::default()
    };
    let Some((device, queue)) = common::device_with_limits("rows", limits) else {
        return;
    };
    let shapes = shape_table(17);
    let mut gpu = stage(&device, &queue, &shapes);
    let colliders = scatter(18, &shapes, 900, 7.0);
    let contacts = check(&mut gpu, &shapes, &colliders, "rows");
    assert!(gpu.pair_count() > 2 * 1_024, "{} pairs", gpu.pair_count());
    assert!(contacts.len() > 1_024, "{} contacts", contacts.len());
}
