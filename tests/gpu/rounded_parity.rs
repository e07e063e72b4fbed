//! The GPU narrow phase against the CPU reference on shape tables with every kind of shape:
//! sharp polygons, rounded polygons, circles, capsules, segments and chain links
//! (`shaders/sat_rounded.wgsl` against `src/collision/sat_rounded.rs`), on whatever adapter exists (a
//! software one in CI).

use crate::common;

use common::{
    Agreement, DEPTH_TOLERANCE, SHAPE_KINDS as KINDS, assert_same_contacts_within, host_frame,
    random_shape_of_kind as random_kind, read_words, rounded_normal_tolerance, shape_kind as kind,
};
use rand::Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::Capsule;
use wgpu_sat::{
    BodyDef, BodyShape, Circle, Collider, Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase,
    Polygon, Shape, World,
};

/// `per_kind` shapes of each kind, `collider_count` colliders of them scattered over a
/// square of half size `extent`, and the broad phase's pairs, each in a random order.
fn every_kind_batch(
    seed: u64,
    per_kind: usize,
    collider_count: usize,
    extent: f32,
) -> (Vec<Shape>, Vec<Collider>, Vec<[u32; 2]>) {
    let mut rng = common::rng(seed);
    let shapes: Vec<Shape> = (0..6 * per_kind)
        .map(|i| random_kind(&mut rng, i % 6))
        .collect();
    let colliders: Vec<Collider> = (0..collider_count)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: common::random_transform(&mut rng, extent),
        })
        .collect();
    let aabbs: Vec<_> = colliders
        .iter()
        .map(|c| shapes[c.shape as usize].aabb(&c.transform))
        .collect();
    let pairs = wgpu_sat::BroadPhase::new()
        .find_pairs(&aabbs)
        .iter()
        .map(|&[a, b]| if rng.random_bool(0.5) { [a, b] } else { [b, a] })
        .collect();
    (shapes, colliders, pairs)
}

/// Per ordered combination of kinds (row: A's kind, column: B's), how many of `items`.
fn by_kinds<T>(
    shapes: &[Shape],
    colliders: &[Collider],
    items: &[T],
    ab: impl Fn(&T) -> [u32; 2],
) -> [[usize; 6]; 6] {
    let mut table = [[0; 6]; 6];
    let k = |i: u32| kind(&shapes[colliders[i as usize].shape as usize]);
    for item in items {
        let [a, b] = ab(item);
        table[k(a)][k(b)] += 1;
    }
    table
}

/// Both narrow phases on one batch at speculative distance `margin`; returns the CPU's
/// contacts and the agreement.
fn compare(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    shapes: &[Shape],
    colliders: &[Collider],
    pairs: &[[u32; 2]],
    margin: f32,
) -> (Vec<Contact>, Agreement) {
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(device, queue).unwrap();
    cpu.set_shape_table(shapes).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    cpu.set_speculative_distance(margin).unwrap();
    gpu.set_speculative_distance(margin).unwrap();
    let expected = cpu.collide_pairs(colliders, pairs).unwrap();
    let got = gpu.collide_pairs(colliders, pairs).unwrap();
    let agreement = assert_same_contacts_within(
        &expected,
        &got,
        rounded_normal_tolerance(shapes, colliders),
        DEPTH_TOLERANCE,
    );
    eprintln!(
        "{} pairs, {} contacts (margin {margin}): {agreement:?}",
        pairs.len(),
        expected.len()
    );
    (expected, agreement)
}

/// Prints a kinds table (unordered: A–B and B–A together) and returns its smallest entry.
fn report(label: &str, table: &[[usize; 6]; 6]) -> usize {
    let mut smallest = usize::MAX;
    for i in 0..6 {
        for j in i..6 {
            let n = if i == j {
                table[i][i]
            } else {
                table[i][j] + table[j][i]
            };
            eprintln!("{label}: {} – {}: {n}", KINDS[i], KINDS[j]);
            smallest = smallest.min(n);
        }
    }
    smallest
}

#[test]
fn gpu_matches_cpu_on_every_combination_of_shapes() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = every_kind_batch(41, 16, 48_000, 95.0);
    assert!(pairs.len() >= 100_000, "only {} pairs", pairs.len());
    let (expected, agreement) = compare(&device, &queue, &shapes, &colliders, &pairs, 0.0);
    let pair_table = by_kinds(&shapes, &colliders, &pairs, |p| *p);
    let contact_table = by_kinds(&shapes, &colliders, &expected, |c| [c.a, c.b]);
    let fewest_pairs = report("pairs", &pair_table);
    report("contacts", &contact_table);
    // Every unordered combination is tested on hundreds to thousands of pairs (segment–
    // segment, of no area, fewest: 772 with this seed), and all but chain–chain (level
    // geometry never meets itself) give hundreds of contacts or more.
    assert!(fewest_pairs > 700, "{pair_table:?}");
    assert_eq!(contact_table[5][5], 0);
    for i in 0..6 {
        for j in i..6 {
            let n = contact_table[i][j] + if i == j { 0 } else { contact_table[j][i] };
            assert!(
                i == 5 && j == 5 || n > 200,
                "{} – {}: {n} contacts",
                KINDS[i],
                KINDS[j]
            );
        }
    }
    assert!(agreement.compared > 30_000, "{agreement:?}");
    assert!(
        agreement.unmatched * 1000 < agreement.compared,
        "{agreement:?}"
    );
}

#[test]
fn gpu_matches_cpu_with_a_speculative_distance() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = every_kind_batch(43, 8, 6000, 40.0);
    let (expected, agreement) = compare(&device, &queue, &shapes, &colliders, &pairs, 0.1);
    // Speculative contacts (apart, negative depth) are among them, from every kind.
    let apart: Vec<Contact> = expected
        .iter()
        .filter(|c| c.manifold.depth < 0.0)
        .copied()
        .collect();
    let table = by_kinds(&shapes, &colliders, &apart, |c| [c.a, c.b]);
    assert!(
        (0..6).all(|i| table[i].iter().sum::<usize>() > 20),
        "{table:?}"
    );
    assert!(agreement.compared > 3000, "{agreement:?}");
}

#[test]
fn one_narrow_phase_switches_kernels_as_its_table_changes() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // A table of sharp polygons and circles only runs a kernel built without the rounded
    // path (`SHARP_ONLY` in sat_pass.wgsl): the same narrow phase must go back to the full
    // one when a rounded shape comes in. The sharp table is the mixed one with every other
    // shape made a circle, so that the same colliders and pairs serve both.
    let (mixed, colliders, pairs) = every_kind_batch(47, 8, 6000, 40.0);
    let sharp: Vec<Shape> = mixed
        .iter()
        .map(|s| match kind(s) {
            0 | 2 => *s,
            _ => Shape::from(Circle::new(0.5).unwrap()),
        })
        .collect();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    for table in [&sharp, &mixed, &sharp, &mixed] {
        let mut cpu = CpuNarrowPhase::new();
        cpu.set_shape_table(table).unwrap();
        gpu.set_shape_table(table).unwrap();
        let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
        let got = gpu.collide_pairs(&colliders, &pairs).unwrap();
        let agreement = assert_same_contacts_within(
            &expected,
            &got,
            rounded_normal_tolerance(table, &colliders),
            DEPTH_TOLERANCE,
        );
        assert!(agreement.compared > 3000, "{agreement:?}");
        assert!(
            agreement.unmatched * 1000 < agreement.compared,
            "{agreement:?}"
        );
    }
}

#[test]
fn the_recorded_path_takes_every_kind_of_shape() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = every_kind_batch(47, 8, 3000, 20.0);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shape_table(&shapes).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let got = host_frame(&mut gpu, &device, &queue, &colliders, &pairs);
    let agreement = assert_same_contacts_within(
        &expected,
        &got,
        rounded_normal_tolerance(&shapes, &colliders),
        DEPTH_TOLERANCE,
    );
    assert!(agreement.compared > 1000, "{agreement:?}");
    if agreement.unmatched == 0 {
        let mut counts = vec![0u32; colliders.len()];
        for c in &expected {
            counts[c.a as usize] += 1;
            counts[c.b as usize] += 1;
        }
        let touching = read_words(&device, &queue, gpu.touching_buffer(), colliders.len());
        assert_eq!(touching, counts);
    }
}

/// A chain ground with hills, and capsules, rounded boxes and circles dropped on it.
fn chain_world() -> World {
    let v = Vec2::new;
    // Right to left: a link's solid side is on its right, so the ground faces up.
    let ground: Vec<Vec2> = (0..=40)
        .map(|i| {
            let x = 20.0 - i as f32;
            v(x, 0.6 * (0.4 * x).sin())
        })
        .collect();
    let mut world = World::default();
    world
        .add_body(&BodyDef::fixed(
            BodyShape::chain(&ground, false).unwrap(),
            Vec2::ZERO,
        ))
        .unwrap();
    for i in 0..90 {
        let x = -15.0 + (i % 20) as f32 * 1.5;
        let y = 2.0 + (i / 20) as f32 * 1.2;
        let shape = match i % 3 {
            0 => Shape::Capsule(Capsule::new(v(-0.4, 0.0), v(0.4, 0.0), 0.25).unwrap()),
            1 => Shape::from(Polygon::rectangle(0.3, 0.3).with_radius(0.1).unwrap()),
            _ => Shape::from(Circle::new(0.35).unwrap()),
        };
        let def = BodyDef {
            angle: 0.1 * i as f32,
            ..BodyDef::dynamic(shape, v(x, y))
        };
        world.add_body(&def).unwrap();
    }
    world
}

#[test]
fn a_world_of_capsules_and_rounded_boxes_on_a_chain_steps_alike_on_cpu_and_gpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    const DT: f32 = 1.0 / 60.0;
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let mut world = chain_world();
    // At several moments (falling, landing, settling on the hills), one step on each
    // backend from the same state: the same contacts, and the same bodies to the solver's
    // rounding edges (see tests/cpu/world.rs's CPU/GPU one-step check).
    let mut chain_contacts = 0;
    let mut steps = 0;
    for checkpoint in [20, 40, 60, 90, 150] {
        while steps < checkpoint {
            world.step(DT, &mut cpu).unwrap();
            steps += 1;
        }
        let mut on_cpu = world.clone();
        let mut on_gpu = world.clone();
        let a = on_cpu.step(DT, &mut cpu).unwrap();
        let b = on_gpu.step(DT, &mut gpu).unwrap();
        assert_eq!(a.pairs, b.pairs);
        let key = |w: &World| {
            w.contacts()
                .map(|c| (c.bodies, c.colliders))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            key(&on_cpu),
            key(&on_gpu),
            "step {checkpoint}: contact sets"
        );
        for (c, g) in on_cpu.contacts().zip(on_gpu.contacts()) {
            assert!((c.manifold.normal - g.manifold.normal).length() < 1e-4);
            assert!((c.manifold.depth - g.manifold.depth).abs() < 1e-5);
            assert_eq!(c.manifold.points().len(), g.manifold.points().len());
        }
        let ground = world.bodies().next().unwrap();
        chain_contacts = on_cpu
            .contacts()
            .filter(|c| c.bodies.contains(&ground))
            .count();
        let mut largest_gap = 0.0f32;
        for body in world.bodies() {
            largest_gap = largest_gap.max(
                on_cpu
                    .center_of_mass(body)
                    .distance(on_gpu.center_of_mass(body)),
            );
        }
        eprintln!(
            "step {checkpoint}: {} contacts, {chain_contacts} with the chain, largest gap {largest_gap}",
            a.contacts
        );
        assert!(
            largest_gap < 1e-3,
            "step {checkpoint}: bodies {largest_gap} apart"
        );
    }
    // By the last checkpoint most bodies rest on the chain.
    assert!(
        chain_contacts > 30,
        "{chain_contacts} contacts with the chain"
    );
}
