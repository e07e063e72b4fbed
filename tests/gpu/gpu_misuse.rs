//! Every public GPU call given bad input, called out of order, or called after the device
//! was destroyed: an `Err` naming the problem or a documented `Ok`, never a panic, never a
//! hang.

use crate::common;

use wgpu_sat::error::{BatchError, GpuError};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Collider, Error, GpuNarrowPhase, NarrowPhase, Polygon, Shape, Sweep, Transform,
    collision::toi::SweptCollider, gpu::GpuTimeOfImpact,
};

/// Polls until the pending readback returns, for at most about ten seconds.
fn poll_bounded(gpu: &mut GpuNarrowPhase) -> Option<Result<Vec<wgpu_sat::Contact>, Error>> {
    for _ in 0..100_000 {
        if let Some(result) = gpu.poll_readback() {
            return Some(result);
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    None
}

fn is_device_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Gpu(GpuError::Readback(_))
            | Error::Gpu(GpuError::Poll(_))
            | Error::Gpu(GpuError::Device(_))
    )
}

/// Ok (wgpu cannot report every loss at once: writes and recordings on a lost device are
/// accepted and dropped) or an error from the device, never another error.
fn ok_or_device_error<T: std::fmt::Debug>(what: &str, r: Result<T, Error>) {
    eprintln!("{what}: {r:?}");
    assert!(
        r.as_ref().err().is_none_or(is_device_error),
        "{what}: {r:?}"
    );
}

#[test]
fn every_call_after_the_device_was_destroyed_returns() {
    let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
    else {
        return;
    };
    let batch = wgpu_sat::scenes::narrow_phase_batch(2_000, 5);
    let table: Vec<Shape> = batch.shapes.iter().copied().map(Shape::from).collect();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&batch.shapes).unwrap();
    gpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
    let mut toi = GpuTimeOfImpact::new(&device, &queue).unwrap();
    toi.set_shape_table(&table).unwrap();
    let sweeps: Vec<SweptCollider> = batch
        .colliders
        .iter()
        .map(|c| SweptCollider {
            shape: c.shape,
            sweep: Sweep::fixed(&c.transform),
        })
        .collect();
    toi.time_of_impact_pairs(&sweeps, &batch.pairs).unwrap();
    // Another table of the same size, so that setting it uploads.
    let reversed: Vec<Shape> = table.iter().rev().copied().collect();

    device.destroy();

    ok_or_device_error("set_shape_table", gpu.set_shape_table(&reversed));
    // What reads results back reports the loss.
    let e = gpu
        .collide_pairs(&batch.colliders, &batch.pairs)
        .unwrap_err();
    assert!(is_device_error(&e), "{e:?}");
    ok_or_device_error("write_poses", gpu.write_poses(&batch.colliders));
    ok_or_device_error("prepare", gpu.prepare(&batch.colliders, &batch.pairs));
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut encoder = device.create_command_encoder(&Default::default());
    ok_or_device_error("record", gpu.record(&mut encoder));
    ok_or_device_error("request_readback", gpu.request_readback(&mut encoder));
    queue.submit([encoder.finish()]);
    drop(pollster::block_on(scope.pop()));
    match poll_bounded(&mut gpu) {
        Some(Err(e)) => assert!(is_device_error(&e), "{e:?}"),
        other => panic!("poll_readback on a destroyed device: {other:?}"),
    }

    ok_or_device_error("toi set_shape_table", toi.set_shape_table(&reversed));
    let e = toi.time_of_impact_pairs(&sweeps, &batch.pairs).unwrap_err();
    assert!(is_device_error(&e), "{e:?}");

    // New pipelines on the destroyed device: made or refused, and unusable either way.
    if let Ok(mut late) = GpuNarrowPhase::new(&device, &queue) {
        let set = late.set_shapes(&batch.shapes);
        let r = late.collide_pairs(&batch.colliders, &batch.pairs);
        refused_after_a_late_table("GpuNarrowPhase", set, r);
    }
    if let Ok(mut late) = GpuTimeOfImpact::new(&device, &queue) {
        let set = late.set_shape_table(&table);
        let r = late.time_of_impact_pairs(&sweeps, &batch.pairs);
        refused_after_a_late_table("GpuTimeOfImpact", set, r);
    }
}

/// On a destroyed device, setting a table is Ok or a device error; a batch after it is
/// refused, for the device or (if the table was refused) for the shapes it lacks.
fn refused_after_a_late_table<T: std::fmt::Debug>(
    what: &str,
    set: Result<(), Error>,
    batch: Result<T, Error>,
) {
    eprintln!("{what}: set {set:?}, batch {batch:?}");
    assert!(
        set.as_ref().err().is_none_or(is_device_error),
        "{what}: {set:?}"
    );
    assert!(
        batch.as_ref().is_err_and(|e| is_device_error(e)
            || (set.is_err()
                && matches!(e, Error::Batch(BatchError::ShapeIndexOutOfRange { .. })))),
        "{what}: {batch:?}"
    );
}

/// When the device goes while a readback is pending.
#[derive(Clone, Copy, Debug)]
enum Loss {
    /// Right after the host's submit, the frame most likely still running.
    WhileRunning,
    /// After a first poll.
    AfterAPoll,
    /// Before the host submitted the encoder holding the request (then submitted).
    BeforeTheSubmit,
    /// Before the frame was even prepared: the whole frame runs on a destroyed device.
    BeforeTheFrame,
    /// And the encoder is never submitted.
    NeverSubmitted,
    /// While an earlier frame was running: this frame runs on a device destroyed with work
    /// in flight.
    DuringAnEarlierFrame,
}

#[test]
fn a_readback_pending_when_the_device_goes_ends_instead_of_waiting_forever() {
    let batch = wgpu_sat::scenes::narrow_phase_batch(60_000, 6);
    for loss in [
        Loss::WhileRunning,
        Loss::AfterAPoll,
        Loss::BeforeTheSubmit,
        Loss::BeforeTheFrame,
        Loss::NeverSubmitted,
        Loss::DuringAnEarlierFrame,
    ] {
        let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
        else {
            return;
        };
        let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
        gpu.set_shapes(&batch.shapes).unwrap();
        // Warm: the kernel compiles now, so the next frame is still running when it goes.
        let expected = gpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
        if let Loss::BeforeTheFrame = loss {
            device.destroy();
        }
        if let Loss::DuringAnEarlierFrame = loss {
            gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
            let mut encoder = device.create_command_encoder(&Default::default());
            gpu.record(&mut encoder).unwrap();
            gpu.request_readback(&mut encoder).unwrap();
            queue.submit([encoder.finish()]);
            device.destroy();
            assert!(
                poll_bounded(&mut gpu).is_some(),
                "{loss:?}: the earlier frame"
            );
        }
        gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
        let mut encoder = device.create_command_encoder(&Default::default());
        gpu.record(&mut encoder).unwrap();
        gpu.request_readback(&mut encoder).unwrap();
        if let Loss::BeforeTheSubmit | Loss::NeverSubmitted = loss {
            device.destroy();
        }
        if let Loss::NeverSubmitted = loss {
            drop(encoder);
        } else {
            // A submit on a destroyed device is a validation error, the host's to handle.
            let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
            queue.submit([encoder.finish()]);
            drop(pollster::block_on(scope.pop()));
        }
        match loss {
            Loss::WhileRunning => device.destroy(),
            Loss::AfterAPoll => {
                let first = gpu.poll_readback();
                assert!(first.is_none(), "{loss:?}: the frame was already back");
                device.destroy();
            }
            _ => {}
        }
        let result = poll_bounded(&mut gpu);
        eprintln!(
            "{loss:?}: {:?}",
            result.as_ref().map(|r| r.as_ref().map(Vec::len))
        );
        match result {
            None => panic!("{loss:?}: the readback neither arrived nor failed"),
            // The frame may have finished before the device went.
            Some(Ok(contacts)) => assert_eq!(contacts.len(), expected.len(), "{loss:?}"),
            Some(Err(e)) => assert!(is_device_error(&e), "{loss:?}: {e:?}"),
        }
        assert!(!gpu.readback_pending() && gpu.poll_readback().is_none());
    }
}

/// One host frame: record the prepared batch (`records` times), request the readback,
/// submit, and poll until it arrives.
fn frame(
    gpu: &mut GpuNarrowPhase,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    records: usize,
) -> Vec<wgpu_sat::Contact> {
    let mut encoder = device.create_command_encoder(&Default::default());
    for _ in 0..records {
        gpu.record(&mut encoder).unwrap();
    }
    gpu.request_readback(&mut encoder).unwrap();
    queue.submit([encoder.finish()]);
    poll_bounded(gpu)
        .expect("the readback never arrived")
        .unwrap()
}

#[test]
fn host_calls_out_of_order_are_errors_or_documented_nothing() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let batch = wgpu_sat::scenes::narrow_phase_batch(8_000, 7);
    let mut cpu = wgpu_sat::CpuNarrowPhase::new();
    cpu.set_shapes(&batch.shapes).unwrap();
    let expected = cpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&batch.shapes).unwrap();

    // Nothing requested: nothing to return.
    assert!(gpu.poll_readback().is_none());
    let mut encoder = device.create_command_encoder(&Default::default());
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    assert!(matches!(
        gpu.request_readback(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));

    // A readback of a batch not recorded would copy a list no dispatch filled.
    gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
    let e = gpu.request_readback(&mut encoder).unwrap_err();
    assert!(matches!(e, Error::Gpu(GpuError::NotRecorded)), "{e:?}");
    assert!(e.to_string().contains("record"), "{e}");
    assert!(!gpu.readback_pending());
    drop(encoder);

    // Recorded twice in one encoder, then recorded again the next frame without a new
    // prepare: each recording starts an empty list, so the list holds each contact once.
    for records in [2, 1] {
        let got = frame(&mut gpu, &device, &queue, records);
        common::assert_same_contacts(&expected, &got);
        let count = common::read_words(&device, &queue, gpu.contacts_buffer(), 1)[0];
        assert_eq!(count as usize, expected.len(), "recorded {records} times");
    }

    // The blocking calls reuse the prepared batch's buffers, so they discard it.
    gpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
    gpu.write_poses(&batch.colliders).unwrap();
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    assert!(matches!(
        gpu.request_readback(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    // And it still works.
    gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
    common::assert_same_contacts(&expected, &frame(&mut gpu, &device, &queue, 1));
}

#[test]
fn empty_batches_are_empty_results() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    // No shapes, no colliders, no pairs: nothing to do, on every path.
    gpu.set_shape_table(&[]).unwrap();
    assert!(gpu.collide_pairs(&[], &[]).unwrap().is_empty());
    gpu.write_poses(&[]).unwrap();
    gpu.prepare(&[], &[]).unwrap();
    assert!(frame(&mut gpu, &device, &queue, 1).is_empty());
    // Colliders need a shape to name.
    let lone = [Collider {
        shape: 0,
        transform: Transform::IDENTITY,
    }];
    assert!(matches!(
        gpu.collide_pairs(&lone, &[]),
        Err(Error::Batch(BatchError::ShapeIndexOutOfRange {
            collider: 0,
            shape: 0,
            shape_count: 0
        }))
    ));
    assert!(matches!(
        gpu.write_poses(&lone),
        Err(Error::Batch(BatchError::ShapeIndexOutOfRange {
            collider: 0,
            ..
        }))
    ));
    // Colliders without pairs: no contacts, nobody touching.
    gpu.set_shapes(&[Polygon::rectangle(1.0, 1.0)]).unwrap();
    let stacked = [lone[0], lone[0], lone[0]];
    assert!(gpu.collide_pairs(&stacked, &[]).unwrap().is_empty());
    gpu.prepare(&stacked, &[]).unwrap();
    assert!(frame(&mut gpu, &device, &queue, 1).is_empty());
    assert_eq!(
        common::read_words(&device, &queue, gpu.touching_buffer(), 3),
        [0, 0, 0]
    );
    // The same colliders with their pairs still collide afterwards.
    assert_eq!(
        gpu.collide_pairs(&stacked, &[[0, 1], [2, 1]])
            .unwrap()
            .len(),
        2
    );

    let mut toi = GpuTimeOfImpact::new(&device, &queue).unwrap();
    toi.set_shape_table(&[]).unwrap();
    assert!(toi.time_of_impact_pairs(&[], &[]).unwrap().is_empty());
    let still = [SweptCollider {
        shape: 0,
        sweep: Sweep::fixed(&Transform::IDENTITY),
    }];
    assert!(matches!(
        toi.time_of_impact_pairs(&still, &[]),
        Err(Error::Batch(BatchError::ShapeIndexOutOfRange {
            collider: 0,
            ..
        }))
    ));
}

#[test]
fn what_does_not_fit_a_binding_is_refused_by_name_and_the_last_state_kept() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let square = Polygon::rectangle(0.5, 0.5);
    let shapes = vec![square; 456];
    let table: Vec<Shape> = shapes.iter().copied().map(Shape::from).collect();
    let colliders = |n: usize| -> Vec<Collider> {
        (0..n)
            .map(|i| Collider {
                shape: 0,
                transform: Transform::new(Vec2::new(0.75 * i as f32, 0.0), 0.0),
            })
            .collect()
    };
    let few = colliders(3);
    let pairs = [[0, 1], [1, 2]];

    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&shapes[..1]).unwrap();
    let e = gpu.set_shapes(&shapes).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "shapes",
                count: 456,
                max: 455
            })
        ),
        "{e:?}"
    );
    assert_eq!(gpu.collide_pairs(&few, &pairs).unwrap().len(), 2);

    let many = colliders(5_000);
    let e = gpu.collide_pairs(&many, &pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "colliders",
                count: 5_000,
                ..
            })
        ),
        "{e:?}"
    );
    let e = gpu.prepare(&many, &pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "colliders",
                ..
            })
        ),
        "{e:?}"
    );
    let e = gpu.write_poses(&many).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "colliders",
                ..
            })
        ),
        "{e:?}"
    );

    // More pairs than one dispatch: `collide_pairs` splits them, `prepare` names the limit.
    let row = colliders(3_000);
    let row_pairs: Vec<[u32; 2]> = (0..2_999u32)
        .flat_map(|i| [[i, i + 1], [i + 1, i]])
        .collect();
    let per_dispatch = gpu.max_pairs_per_dispatch(row.len());
    assert!(row_pairs.len() > per_dispatch);
    assert_eq!(
        gpu.collide_pairs(&row, &row_pairs).unwrap().len(),
        row_pairs.len()
    );
    let e = gpu.prepare(&row, &row_pairs).unwrap_err();
    assert!(
        matches!(e, Error::Gpu(GpuError::TooLarge { what: "pairs for one dispatch", count, max })
            if count == row_pairs.len() && max == per_dispatch),
        "{e:?}"
    );
    let mut encoder = device.create_command_encoder(&Default::default());
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    // A pair index far out of range is named, not followed.
    let e = gpu.collide_pairs(&few, &[[0, u32::MAX]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::PairIndexOutOfRange {
                pair: 0,
                index: u32::MAX,
                collider_count: 3
            })
        ),
        "{e:?}"
    );
    // Still usable.
    assert_eq!(gpu.collide_pairs(&few, &pairs).unwrap().len(), 2);

    let mut toi = GpuTimeOfImpact::new(&device, &queue).unwrap();
    toi.set_shape_table(&table[..1]).unwrap();
    let e = toi.set_shape_table(&table).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "shapes",
                count: 456,
                max: 455
            })
        ),
        "{e:?}"
    );
    let sweeps: Vec<SweptCollider> = few
        .iter()
        .map(|c| SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&c.transform),
        })
        .collect();
    let hits = toi.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    assert!(hits.iter().all(Option::is_some), "{hits:?}");
}
