//! Speculative contacts: with a speculative distance, shapes a little apart get a manifold
//! whose depth is minus the gap, the same on the CPU and the GPU; feature ids survive both
//! the margin's boundary and a change of reference face.

use crate::common;

#[cfg(feature = "gpu")]
use common::{assert_same_contacts_with, normal_tolerance};
#[cfg(feature = "gpu")]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::error::BatchError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Circle, CpuNarrowPhase, Error, NarrowPhase, ParallelCpuNarrowPhase, Polygon, Shape, Transform,
    collide_shapes, collision::collide_shapes_speculative,
};

const MARGIN: f32 = 0.05;

/// A unit ground box (top at y = 0) and a shape resting on it `gap` above (negative: into
/// it), for each kind of shape: a box, a disc, and a box on a disc's top (polygon B).
fn resting(gap: f32) -> Vec<(Shape, Transform, Shape, Transform)> {
    let ground = Shape::from(Polygon::rectangle(5.0, 0.5));
    let under = Transform::new(Vec2::new(0.0, -0.5), 0.0);
    let disc = Shape::from(Circle::new(0.5).unwrap());
    let small_box = Shape::from(Polygon::rectangle(0.5, 0.5));
    let above = Transform::new(Vec2::new(0.3, 0.5 + gap), 0.0);
    vec![
        (ground, under, small_box, above),
        (ground, under, disc, above),
        (
            disc,
            Transform::new(Vec2::new(0.0, -0.5), 0.0),
            small_box,
            above,
        ),
    ]
}

#[test]
fn a_shape_within_the_margin_has_a_contact_at_minus_its_gap_and_none_beyond() {
    for gap in [0.001f32, 0.01, 0.02, 0.049] {
        for (k, (a, ta, b, tb)) in resting(gap).into_iter().enumerate() {
            let m = collide_shapes_speculative(&a, &ta, &b, &tb, MARGIN)
                .unwrap_or_else(|| panic!("case {k}, gap {gap}: no speculative contact"));
            assert!((m.normal - Vec2::Y).length() < 1e-5, "case {k}: {m:?}");
            assert!((m.depth + gap).abs() < 1e-5, "case {k}, gap {gap}: {m:?}");
            for p in m.points() {
                assert!((p.depth + gap).abs() < 1e-5, "case {k}, gap {gap}: {p:?}");
            }
            // Apart is apart for the plain narrow phase.
            assert!(collide_shapes(&a, &ta, &b, &tb).is_none());
        }
    }
    // (A gap of exactly MARGIN rounds either way: 0.5 + 0.05 is not exact in f32.)
    for gap in [1.02 * MARGIN, 0.06, 1.0] {
        for (k, (a, ta, b, tb)) in resting(gap).into_iter().enumerate() {
            assert!(
                collide_shapes_speculative(&a, &ta, &b, &tb, MARGIN).is_none(),
                "case {k}, gap {gap}: a contact beyond the margin"
            );
        }
    }
}

#[test]
fn feature_ids_stay_the_same_as_a_gap_closes_into_overlap() {
    let ids = |gap: f32| {
        resting(gap)
            .into_iter()
            .map(|(a, ta, b, tb)| {
                let m = collide_shapes_speculative(&a, &ta, &b, &tb, MARGIN).unwrap();
                m.points().iter().map(|p| p.id).collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let apart = ids(0.03);
    for gap in [0.01, 0.0, -0.01, -0.1] {
        assert_eq!(ids(gap), apart, "gap {gap}");
    }
}

/// Two equal boxes face to face, the upper one turned by a tiny angle either way: the two
/// faces are parallel to rounding, so which one is the reference face changes with the
/// angle's sign, and the point ids (vertex of A, vertex of B) must not.
#[test]
fn feature_ids_do_not_change_when_the_other_box_takes_the_reference_face() {
    let square = Polygon::rectangle(0.5, 0.5);
    let lower = Transform::IDENTITY;
    let mut seen = Vec::new();
    for k in -20..=20 {
        let angle = 2e-4 * k as f32;
        let upper = Transform::new(Vec2::new(0.2, 0.995), angle);
        let m = wgpu_sat::collide(&square, &lower, &square, &upper).unwrap();
        assert_eq!(m.points().len(), 2, "angle {angle}");
        let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
        ids.sort_unstable();
        seen.push((angle, ids));
    }
    for (angle, ids) in &seen {
        assert_eq!(*ids, seen[0].1, "angle {angle}: {seen:?}");
    }
}

#[test]
fn bad_speculative_distances_are_errors_naming_the_margin() {
    let mut narrows: Vec<Box<dyn NarrowPhase>> = vec![
        Box::new(CpuNarrowPhase::new()),
        Box::new(ParallelCpuNarrowPhase::new()),
    ];
    #[cfg(feature = "gpu")]
    if let Some((device, queue)) = common::gpu() {
        narrows.push(Box::new(GpuNarrowPhase::new(&device, &queue).unwrap()));
    }
    for narrow in &mut narrows {
        for bad in [-0.01, f32::NAN, f32::INFINITY, 1e4] {
            match narrow.set_speculative_distance(bad) {
                Err(Error::Batch(BatchError::InvalidSpeculativeDistance { margin })) => {
                    assert_eq!(margin.to_bits(), bad.to_bits())
                }
                other => panic!("margin {bad}: {other:?}"),
            }
        }
        narrow.set_speculative_distance(0.0).unwrap();
        narrow.set_speculative_distance(MARGIN).unwrap();
    }
}

#[test]
fn the_backends_agree_with_a_speculative_distance() {
    let (shapes, colliders, pairs) = common::random_shape_batch(11, 64, 20_000, 50.0);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shape_table(&shapes).unwrap();
    let plain = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let margin = 0.1;
    cpu.set_speculative_distance(margin).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let speculative = expected
        .iter()
        .filter(|c| c.manifold.points().iter().any(|p| p.depth < 0.0))
        .count();
    eprintln!(
        "{} pairs: {} contacts without a margin, {} with {margin}, {speculative} with a point apart",
        pairs.len(),
        plain.len(),
        expected.len()
    );
    assert!(pairs.len() >= 100_000);
    assert!(
        expected.len() > plain.len() + 1_000,
        "few speculative contacts"
    );
    assert!(speculative > 2_000);
    // Every contact of the plain narrow phase is still there, with the same normal and depth.
    let mut i = 0;
    for c in &plain {
        while (expected[i].a, expected[i].b) != (c.a, c.b) {
            i += 1;
        }
        assert!((expected[i].manifold.depth - c.manifold.depth).abs() < 1e-6);
        assert!((expected[i].manifold.normal - c.manifold.normal).length() < 1e-6);
    }

    let mut parallel = ParallelCpuNarrowPhase::new();
    parallel.set_shape_table(&shapes).unwrap();
    parallel.set_speculative_distance(margin).unwrap();
    assert_eq!(
        parallel.collide_pairs(&colliders, &pairs).unwrap(),
        expected
    );

    #[cfg(feature = "gpu")]
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    #[cfg(feature = "gpu")]
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    #[cfg(feature = "gpu")]
    gpu.set_shape_table(&shapes).unwrap();
    #[cfg(feature = "gpu")]
    gpu.set_speculative_distance(margin).unwrap();
    #[cfg(feature = "gpu")]
    let got = gpu.collide_pairs(&colliders, &pairs).unwrap();
    #[cfg(feature = "gpu")]
    assert_same_contacts_with(&expected, &got, normal_tolerance(&shapes, &colliders));
}
