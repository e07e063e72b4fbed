//! The GPU narrow phase against the CPU reference bit for bit (issue 23): the same pairs
//! give manifolds with the same bits, and a world stepped through either narrow phase
//! reaches the same poses. What holds, and on which adapters, is in docs/reliability.md
//! ("GPU and CPU bits"); these tests check it on the adapter at hand (lavapipe in CI).

use crate::common;

use rand::Rng;
use wgpu_sat::gpu::GpuCollision;
use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, Shape,
    World, scenes,
};

use common::contact_bits as bits;

/// How many of the CPU's contacts the GPU reported with the same bits; how many differ in
/// the normal, the manifold depth, a point (position or depth); and the first that differs.
fn exact(cpu: &[Contact], gpu: &[Contact]) -> ([usize; 4], Option<(Contact, Option<Contact>)>) {
    let by_pair: std::collections::HashMap<_, _> = gpu.iter().map(|g| ((g.a, g.b), g)).collect();
    let mut counts = [0; 4];
    let mut first = None;
    for c in cpu {
        let g = by_pair.get(&(c.a, c.b)).copied();
        match g {
            Some(g) if bits(g) == bits(c) => counts[0] += 1,
            _ => {
                if let Some(g) = g {
                    let (mc, mg) = (&c.manifold, &g.manifold);
                    counts[1] += (mc.normal.to_array().map(f32::to_bits)
                        != mg.normal.to_array().map(f32::to_bits))
                        as usize;
                    counts[2] += (mc.depth.to_bits() != mg.depth.to_bits()) as usize;
                    counts[3] += (bits(c)[5..] != bits(g)[5..]) as usize;
                }
                if first.is_none() {
                    first = Some((*c, g.copied()));
                }
            }
        }
    }
    (counts, first)
}

#[test]
fn polygon_pairs_give_the_same_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (shapes, colliders, pairs) = common::random_batch(7, 64, 20_000, 50.0);
    let table: Vec<Shape> = shapes.iter().copied().map(Shape::from).collect();
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    cpu.set_shape_table(&table).unwrap();
    gpu.set_shape_table(&table).unwrap();
    let expected = cpu.collide_pairs(&colliders, &pairs).unwrap();
    let got = gpu.collide_pairs(&colliders, &pairs).unwrap();
    let ([same, normals, depths, points], first) = exact(&expected, &got);
    eprintln!(
        "{} pairs: {same} of {} contacts bit-equal, {normals} normals, {depths} depths, {points} points differ; first differing {first:?}",
        pairs.len(),
        expected.len()
    );
    assert!(pairs.len() >= 100_000);
    assert_eq!(same, expected.len(), "first differing: {first:?}");
    assert_eq!(got.len(), expected.len());
}

/// Both narrow phases on one batch at speculative distance `margin`: per unordered pair of
/// shape kinds, [bit-equal contacts, contacts], and the first contact that differs.
fn exact_by_kinds(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    shapes: &[Shape],
    colliders: &[Collider],
    pairs: &[[u32; 2]],
    margin: f32,
) -> [[[usize; 2]; 6]; 6] {
    let mut cpu = CpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(device, queue).unwrap();
    for narrow in [&mut cpu as &mut dyn NarrowPhase, &mut gpu] {
        narrow.set_shape_table(shapes).unwrap();
        narrow.set_speculative_distance(margin).unwrap();
    }
    let expected = cpu.collide_pairs(colliders, pairs).unwrap();
    let got = gpu.collide_pairs(colliders, pairs).unwrap();
    let by_pair: std::collections::HashMap<_, _> = got.iter().map(|g| ((g.a, g.b), g)).collect();
    let kind = |i: u32| common::shape_kind(&shapes[colliders[i as usize].shape as usize]);
    let mut table = [[[0; 2]; 6]; 6];
    let mut first = [[None; 6]; 6];
    for c in &expected {
        let (i, j) = (kind(c.a).min(kind(c.b)), kind(c.a).max(kind(c.b)));
        let g = by_pair.get(&(c.a, c.b)).copied();
        table[i][j][1] += 1;
        if g.is_some_and(|g| bits(g) == bits(c)) {
            table[i][j][0] += 1;
        } else if first[i][j].is_none() {
            first[i][j] = Some((*c, g.copied()));
        }
    }
    for i in 0..6 {
        for j in i..6 {
            let [same, all] = table[i][j];
            eprintln!(
                "margin {margin}: {} – {}: {same} of {all} bit-equal; first differing {:?}",
                common::SHAPE_KINDS[i],
                common::SHAPE_KINDS[j],
                first[i][j]
            );
        }
    }
    table
}

#[test]
fn every_kind_of_pair_gives_the_same_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut rng = common::rng(23);
    let shapes: Vec<Shape> = (0..6 * 12)
        .map(|i| common::random_shape_of_kind(&mut rng, i % 6))
        .collect();
    let colliders: Vec<Collider> = (0..18_500)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: common::random_transform(&mut rng, 40.0),
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
        .collect::<Vec<_>>();
    eprintln!("{} pairs", pairs.len());
    assert!(pairs.len() >= 100_000, "{} pairs", pairs.len());
    for margin in [0.0, wgpu_sat::world::SPECULATIVE_DISTANCE] {
        let table = exact_by_kinds(&device, &queue, &shapes, &colliders, &pairs, margin);
        for (i, row) in table.iter().enumerate() {
            for [same, all] in row.iter().skip(i) {
                assert_eq!(
                    same, all,
                    "margin {margin}: contacts differ (see the table above)"
                );
            }
        }
        // Every combination but two chain links (which never collide) is exercised.
        let total: usize = table.iter().flatten().map(|[_, all]| all).sum();
        assert!(total > 40_000, "{total} contacts");
    }
}

/// The first body whose pose or velocity bits differ between two worlds, if any.
fn first_difference(a: &World, b: &World) -> Option<String> {
    let (bits_a, bits_b) = (common::state_bits(a), common::state_bits(b));
    let mut differs = a.bodies().zip(b.bodies()).zip(bits_a.iter().zip(&bits_b));
    differs.find_map(|((i, j), (x, y))| {
        (x != y).then(|| {
            format!(
                "body {i:?}: cpu {:?} gpu {:?}",
                a.transform(i),
                b.transform(j)
            )
        })
    })
}

#[test]
fn a_mixed_world_steps_to_the_same_bits_on_every_narrow_phase() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    const DT: f32 = 1.0 / 60.0;
    const STEPS: usize = 300;
    let mut cpu = CpuNarrowPhase::new();
    let mut parallel = ParallelCpuNarrowPhase::new();
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let mut on_cpu = scenes::mixed(STEPS_BODIES, 17);
    let mut on_parallel = on_cpu.clone();
    let mut on_gpu = on_cpu.clone();
    let mut on_stage = on_cpu.clone();
    let mut contacts = 0;
    for step in 0..STEPS {
        if step == STEPS / 2 {
            // Removed bodies leave empty boxes behind, which the GPU stage must pass over.
            let doomed: Vec<_> = on_cpu.bodies().step_by(97).collect();
            for world in [&mut on_cpu, &mut on_parallel, &mut on_gpu, &mut on_stage] {
                for &body in &doomed {
                    world.remove_body(body).unwrap();
                }
            }
        }
        let a = on_cpu.step(DT, &mut cpu).unwrap();
        let p = on_parallel.step(DT, &mut parallel).unwrap();
        let g = on_gpu.step(DT, &mut gpu).unwrap();
        let s = on_stage.step_on_gpu(DT, &mut collision).unwrap();
        contacts = a.contacts;
        let others = [
            ("parallel", p, &on_parallel),
            ("gpu", g, &on_gpu),
            ("gpu collision stage", s, &on_stage),
        ];
        for (name, b, world) in others {
            assert_eq!(
                (a.pairs, a.contacts),
                (b.pairs, b.contacts),
                "step {step}: {name}"
            );
            if let Some(d) = first_difference(&on_cpu, world) {
                panic!("step {step}, {name}: {d}");
            }
        }
    }
    assert_eq!(on_cpu.state_hash(), on_stage.state_hash());
    assert_eq!(on_cpu.state_hash(), on_gpu.state_hash());
    eprintln!("{STEPS} steps of {STEPS_BODIES} bodies, bit-equal; {contacts} contacts at the last");
    assert!(
        contacts > STEPS_BODIES / 2,
        "{contacts} contacts: the scene should have settled into contact"
    );
}

/// Bodies in the stepped scene: enough to pile up, few enough for lavapipe in CI.
const STEPS_BODIES: usize = 2500;

/// Scenes with what the GPU collision stage collides and the world does not want: rain's
/// floors (one static body of 2,505 tiles, each touching its neighbours), ragdolls whose
/// limbs a filter keeps apart and whose joints keep their ends apart, and the level's
/// chain terrain, kinematic platform and paddle. Each steps through `World::step_on_gpu`
/// to `World::step`'s bits, step by step.
#[test]
fn worlds_with_filters_joints_and_chains_step_on_the_gpu_stage_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    const DT: f32 = 1.0 / 60.0;
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let mut cpu = CpuNarrowPhase::new();

    let mut on_cpu = scenes::rain();
    let mut on_stage = on_cpu.clone();
    let mut contacts = 0;
    for k in 0..200 {
        if let Some(step) = scenes::rain_step(k).filter(|s| s.column < 3) {
            for world in [&mut on_cpu, &mut on_stage] {
                // The two lowest floors' groups of the column.
                for row in 0..2 {
                    let origin = scenes::rain_group_origin(row, step.column);
                    scenes::add_rain_group(world, origin).unwrap();
                }
            }
        }
        let a = on_cpu.step(DT, &mut cpu).unwrap();
        let b = on_stage.step_on_gpu(DT, &mut collision).unwrap();
        assert_eq!(
            (a.pairs, a.contacts),
            (b.pairs, b.contacts),
            "rain, step {k}"
        );
        assert_eq!(on_cpu.state_hash(), on_stage.state_hash(), "rain, step {k}");
        contacts = contacts.max(a.contacts);
    }
    // The ragdolls landed, and the GPU collided the floor's own tiles (which the world
    // never asks for) besides.
    assert!(contacts > 100, "{contacts} contacts");
    assert!(collision.pair_count() > 2 * contacts);

    let (mut on_cpu, driver) = scenes::level(3);
    let mut on_stage = on_cpu.clone();
    for k in 0..240 {
        let time = k as f32 * DT;
        driver.drive(&mut on_cpu, time, DT).unwrap();
        driver.drive(&mut on_stage, time, DT).unwrap();
        on_cpu.step(DT, &mut cpu).unwrap();
        on_stage.step_on_gpu(DT, &mut collision).unwrap();
        assert_eq!(
            on_cpu.state_hash(),
            on_stage.state_hash(),
            "level, step {k}"
        );
    }
}

/// The world's fallback when the GPU goes: `step_on_gpu` on a lost device is an error that
/// leaves the world as it was, and the CPU's step carries on from there to the bits a world
/// stepped on the CPU throughout reaches.
#[test]
fn a_world_on_the_gpu_stage_falls_back_to_the_cpu_without_losing_a_bit() {
    let Some((device, queue)) = common::device_with_limits("doomed", wgpu::Limits::default())
    else {
        return;
    };
    const DT: f32 = 1.0 / 60.0;
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let mut cpu = CpuNarrowPhase::new();
    let mut on_cpu = scenes::mixed(400, 5);
    let mut on_stage = on_cpu.clone();
    for _ in 0..60 {
        on_cpu.step(DT, &mut cpu).unwrap();
        on_stage.step_on_gpu(DT, &mut collision).unwrap();
    }
    assert_eq!(on_cpu.state_hash(), on_stage.state_hash());
    device.destroy();
    let before = on_stage.state_hash();
    match on_stage.step_on_gpu(DT, &mut collision) {
        Err(wgpu_sat::Error::Gpu(e)) => eprintln!("after the loss: {e}"),
        other => panic!("step_on_gpu on a destroyed device: {other:?}"),
    }
    assert_eq!(
        on_stage.state_hash(),
        before,
        "the failed step changed the world"
    );
    for _ in 0..60 {
        on_cpu.step(DT, &mut cpu).unwrap();
        on_stage.step(DT, &mut cpu).unwrap();
    }
    assert_eq!(on_cpu.state_hash(), on_stage.state_hash());
}
