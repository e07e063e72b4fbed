//! The GPU narrow phase against the CPU reference on shape tables that mix polygons and
//! circles (`shaders/sat_circle.wgsl` against `src/collision/sat_circle.rs`), on whatever adapter
//! exists (a software one in CI).

use crate::common;

use common::{Agreement, assert_same_contacts_with, host_frame, normal_tolerance, read_words};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Circle, Collider, Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon, Shape,
    Transform, collision::CIRCLE_FEATURE,
};

/// Contacts by the kinds of their two shapes: polygon–polygon, polygon–circle,
/// circle–polygon, circle–circle.
fn count_kinds(shapes: &[Shape], colliders: &[Collider], contacts: &[Contact]) -> [usize; 4] {
    let mut kinds = [0; 4];
    for c in contacts {
        let circle = |i: u32| -> usize {
            matches!(
                shapes[colliders[i as usize].shape as usize],
                Shape::Circle(_)
            )
            .into()
        };
        kinds[2 * circle(c.a) + circle(c.b)] += 1;
    }
    kinds
}

/// Polygon–circle contacts on a vertex (the vertex-axis path) rather than a face.
fn count_vertex_contacts(contacts: &[Contact]) -> usize {
    contacts
        .iter()
        .filter(|c| {
            let id = c.manifold.points()[0].id;
            (id >> 8) & 0xff == CIRCLE_FEATURE as u32 && (id >> 16) & 0xff != 0xff && id & 1 == 1
        })
        .count()
}

/// Both narrow phases on one batch; returns the CPU's contacts and the agreement.
fn compare(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    shapes: &[Shape],
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> (Vec<Contact>, Agreement) {
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(device, queue).unwrap();
    cpu.set_shape_table(shapes).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    let expected = cpu.collide_pairs(colliders, pairs).unwrap();
    let got = gpu.collide_pairs(colliders, pairs).unwrap();
    let agreement = assert_same_contacts_with(&expected, &got, normal_tolerance(shapes, colliders));
    eprintln!(
        "{} pairs, {} contacts (pp, pc, cp, cc: {:?}; {} on a polygon's vertex): {agreement:?}",
        pairs.len(),
        expected.len(),
        count_kinds(shapes, colliders, &expected),
        count_vertex_contacts(&expected),
    );
    (expected, agreement)
}

#[test]
fn gpu_matches_cpu_on_random_mixed_shape_tables() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_shape_batch(17, 64, 20_000, 50.0);
    let circles = shapes.iter().filter(|s| s.as_circle().is_some()).count();
    assert!(
        circles > 10 && circles < 54,
        "{circles} circles in the table"
    );
    let (expected, agreement) = compare(&device, &queue, &shapes, &colliders, &pairs);
    assert!(pairs.len() >= 50_000, "only {} pairs", pairs.len());
    // Every path of the kernel is exercised, each many times.
    let kinds = count_kinds(&shapes, &colliders, &expected);
    assert!(
        kinds.iter().all(|&k| k > 1000),
        "contacts by kind {kinds:?}"
    );
    assert!(count_vertex_contacts(&expected) > 1000);
    assert!(agreement.compared > 20_000);
}

#[test]
fn far_from_the_origin_mixed_tables_still_agree() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, mut colliders, pairs) = common::random_shape_batch(5, 32, 4000, 20.0);
    for c in &mut colliders {
        c.transform = Transform::from_rotation(
            c.transform.translation() + Vec2::new(1000.0, -700.0),
            c.transform.rotation(),
        );
    }
    let (expected, _) = compare(&device, &queue, &shapes, &colliders, &pairs);
    assert!(expected.len() > 1000);
}

#[test]
fn gpu_matches_cpu_on_the_literature_cases() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let v = Vec2::new;
    let ball = |r| Shape::from(Circle::new(r).unwrap());
    let shapes = [
        Shape::from(Polygon::rectangle(2.0, 0.5)), // 0 ground
        Shape::from(Polygon::rectangle(1.0, 1.0)), // 1 square
        Shape::from(Polygon::new(&[v(0.0, 0.0), v(4.0, 0.0), v(0.0, 3.0)]).unwrap()), // 2 3-4-5
        ball(0.5),                                 // 3
        ball(0.6),                                 // 4
        ball(0.25),                                // 5
        ball(0.75),                                // 6
        Shape::from(Circle::with_center(v(0.2, -0.1), 0.6).unwrap()), // 7
        ball(0.625),                               // 8
    ];
    let at = |shape, x, y, angle| Collider {
        shape,
        transform: Transform::new(v(x, y), angle),
    };
    // Each scene in its own patch of the world, 10 units apart.
    let colliders = [
        at(0, 0.0, 0.0, 0.0),    // 0 ground
        at(3, 0.3, 0.9, 1.0),    // 1 resting on its face, 0.1 deep
        at(1, 10.0, 0.0, 0.0),   // 2 square
        at(4, 11.3, 1.4, 0.0),   // 3 in the corner (11, 1)'s Voronoi region, 0.1 deep
        at(5, 10.7, 0.2, 0.0),   // 4 centre inside the square
        at(5, 11.0, 1.0, 0.0),   // 5 centre exactly on the corner (11, 1)
        at(2, 20.0, 0.0, 0.0),   // 6 triangle
        at(5, 21.0, 0.5, 0.0),   // 7 inside, nearest the bottom
        at(5, 22.5, 1.0, 0.0),   // 8 inside, nearest the hypotenuse
        at(6, 30.0, 0.0, 0.0),   // 9 circle 0.75 (unturned: touching 11 exactly)
        at(3, 30.375, 0.5, 0.0), // 10 circle 0.5 overlapping it by 0.625
        at(3, 30.75, 1.0, 0.0),  // 11 touching 9
        at(3, 30.0, 0.0, 2.0),   // 12 concentric with 9
        at(8, 2.375, 1.0, 0.0),  // 13 touching the ground's corner (2, 0.5)
        at(3, 0.3, 1.0, 0.0),    // 14 touching the ground's face
        at(7, 40.0, 0.0, 0.9),   // 15 off-centre circle
        at(1, 39.0, 0.2, 0.3),   // 16 square under it
        at(6, 50.0, 0.0, 1.0),   // 17 circle 0.75, turned
        at(3, 50.375, 0.5, 0.0), // 18 overlapping it by 0.625
    ];
    let one_way = [
        [0, 1],
        [2, 3],
        [2, 4],
        [2, 5],
        [6, 7],
        [6, 8],
        [9, 10],
        [9, 11],
        [9, 12],
        [0, 13],
        [0, 14],
        [16, 15],
        [17, 18],
    ];
    let pairs: Vec<[u32; 2]> = one_way
        .iter()
        .flat_map(|&[a, b]| [[a, b], [b, a]])
        .collect();
    let (expected, agreement) = compare(&device, &queue, &shapes, &colliders, &pairs);
    // All but the three touching pairs, in both orders; nothing left to rounding.
    assert_eq!(expected.len(), 2 * (one_way.len() - 3), "{expected:?}");
    assert_eq!(agreement.unmatched, 0);
    for touching in [[9, 11], [0, 13], [0, 14]] {
        assert!(!expected.iter().any(|c| [c.a, c.b] == touching));
    }
}

#[test]
fn the_recorded_path_counts_circle_contacts_in_touching() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_shape_batch(23, 16, 3000, 15.0);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shape_table(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let got = host_frame(&mut gpu, &device, &queue, &colliders, &pairs);
    let agreement =
        assert_same_contacts_with(&expected, &got, normal_tolerance(&shapes, &colliders));
    assert!(agreement.compared > 1000, "{agreement:?}");

    // The touching counts straight from the GPU buffer, against the CPU's contacts.
    let mut counts = vec![0u32; colliders.len()];
    for c in &expected {
        counts[c.a as usize] += 1;
        counts[c.b as usize] += 1;
    }
    let touching = read_words(&device, &queue, gpu.touching_buffer(), colliders.len());
    assert_eq!(
        agreement.unmatched, 0,
        "a near-zero pair would make the counts differ"
    );
    assert_eq!(touching, counts);
    let circles_touching = colliders
        .iter()
        .zip(&touching)
        .filter(|&(c, &n)| n > 0 && shapes[c.shape as usize].as_circle().is_some())
        .count();
    assert!(
        circles_touching > 100,
        "{circles_touching} circles in contact"
    );
}

#[test]
fn a_mixed_batch_split_over_several_dispatches_agrees() {
    // 64 KiB storage bindings: a few thousand pairs need several dispatches, each of which
    // writes its own circle–polygon pairs polygon first.
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_shape_batch(29, 16, 3000, 18.0);
    let per_dispatch = GpuNarrowPhase::new(&device, &queue)
        .unwrap()
        .max_pairs_per_dispatch(colliders.len());
    assert!(pairs.len() > 5 * per_dispatch, "{} pairs", pairs.len());
    let (expected, _) = compare(&device, &queue, &shapes, &colliders, &pairs);
    assert!(expected.len() > per_dispatch);
}
