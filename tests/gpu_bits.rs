//! The GPU narrow phase against the CPU reference bit for bit (issue 23): the same pairs
//! give manifolds with the same bits, and a world stepped through either narrow phase
//! reaches the same poses. What holds, and on which adapters, is in docs/reliability.md
//! ("GPU and CPU bits"); these tests check it on the adapter at hand (lavapipe in CI).

mod common;

use wgpu_sat::{Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Shape};

/// Every bit a contact reports: pair, normal, depth, and each point's position, depth and id.
fn bits(c: &Contact) -> Vec<u32> {
    let m = &c.manifold;
    let mut out = vec![c.a, c.b, m.normal.x.to_bits(), m.normal.y.to_bits(), m.depth.to_bits()];
    for p in m.points() {
        out.extend([p.point.x.to_bits(), p.point.y.to_bits(), p.depth.to_bits(), p.id]);
    }
    out
}

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
                    counts[1] += (mc.normal.to_array().map(f32::to_bits) != mg.normal.to_array().map(f32::to_bits)) as usize;
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
    eprintln!("{} pairs: {same} of {} contacts bit-equal, {normals} normals, {depths} depths, {points} points differ; first differing {first:?}", pairs.len(), expected.len());
    assert!(pairs.len() >= 100_000);
    assert_eq!(same, expected.len(), "first differing: {first:?}");
    assert_eq!(got.len(), expected.len());
}
