//! The batch call (`time_of_impact_pairs`) against pair-by-pair calls, and its validation:
//! every bad input an error naming the item, on the CPU and the GPU.

use super::*;

#[test]
fn the_cpu_batch_matches_pair_by_pair_calls() {
    let mut rng = common::rng(5);
    let shapes = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, shapes.len(), 200, 2000);
    let batch = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
    assert_eq!(batch.len(), pairs.len());
    for (&[i, j], got) in pairs.iter().zip(&batch) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let expected = time_of_impact(
            &shapes[a.shape as usize],
            &a.sweep,
            &shapes[b.shape as usize],
            &b.sweep,
        );
        assert_eq!(*got, expected);
    }
    assert!(batch.iter().filter(|h| h.is_some()).count() > 100);
}

/// A backend's batch call: the CPU function or the GPU pass.
type Backend<'a> =
    dyn FnMut(&[SweptCollider], &[[u32; 2]]) -> Result<Vec<Option<TimeOfImpact>>, Error> + 'a;

/// Every bad input, with its specific error naming the item; `run` is either backend.
fn check_bad_inputs(shapes: &[Shape], run: &mut Backend<'_>) {
    assert_eq!(shapes.len(), 2);
    let good = vec![
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::IDENTITY),
        },
        SweptCollider {
            shape: 1,
            sweep: moving(v(-3.0, 0.0), v(3.0, 0.0), 0.0, 1.0),
        },
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::new(v(0.0, 10.0), 0.0)),
        },
    ];
    let pairs = [[0, 1], [1, 2], [2, 0]];

    let e = run(&good, &[[0, 1], [2, 3]]).unwrap_err();
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

    let e = run(&good, &[[0, 1], [2, 2]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::SelfPair {
                pair: 1,
                collider: 2
            })
        ),
        "{e:?}"
    );

    let mut bad = good.clone();
    bad[2].shape = 5;
    let e = run(&bad, &pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider: 2,
                shape: 5,
                shape_count: 2
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("collider 2"), "{e}");

    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for sweep in [
        Sweep {
            c0: v(nan, 0.0),
            ..good[1].sweep
        },
        Sweep {
            c1: v(0.0, inf),
            ..good[1].sweep
        },
        Sweep {
            local_center: v(nan, 0.0),
            ..good[1].sweep
        },
        Sweep {
            a0: nan,
            ..good[1].sweep
        },
        Sweep {
            a1: -inf,
            ..good[1].sweep
        },
    ] {
        let mut bad = good.clone();
        bad[1].sweep = sweep;
        let e = run(&bad, &pairs).unwrap_err();
        assert!(
            matches!(e, Error::Batch(BatchError::NonFiniteSweep { collider: 1 })),
            "{sweep:?}: {e:?}"
        );
        assert!(e.to_string().contains("collider 1"), "{e}");
    }

    // Still works: the mover hits the box at the origin and nothing else.
    let hits = run(&good, &pairs).unwrap();
    assert!(
        hits[0].is_some() && hits[1].is_none() && hits[2].is_none(),
        "{hits:?}"
    );
    assert!(run(&good, &[]).unwrap().is_empty());
}

fn two_shapes() -> Vec<Shape> {
    vec![boxed(0.5, 0.5), circle(0.25)]
}

#[test]
fn bad_input_is_an_error_naming_the_item_on_the_cpu() {
    let shapes = two_shapes();
    check_bad_inputs(&shapes, &mut |s, p| time_of_impact_pairs(&shapes, s, p));
}

#[cfg(feature = "gpu")]
#[test]
fn bad_input_is_an_error_naming_the_item_on_the_gpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = two_shapes();
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    check_bad_inputs(&shapes, &mut |s, p| gpu.time_of_impact_pairs(s, p));
}
