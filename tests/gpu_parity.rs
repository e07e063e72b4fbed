//! The GPU narrow phase against the CPU reference, on whatever adapter exists (a software
//! one in CI).

mod common;

use wgpu_sat::{Contact, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon};

/// Depth below which a pair may be reported by one backend and not the other: f32 rounding
/// of a near-touching pair, 1e-5 of the polygons' size (they are about 1 unit here).
const NEAR_ZERO_DEPTH: f32 = 1e-5;

/// Compares two contact lists from the same input: the same pairs in the same order (up to
/// pairs of near-zero depth), the same point counts and ids, and depths, normals and points
/// within 1e-5 relative.
fn assert_same_contacts(cpu: &[Contact], gpu: &[Contact]) {
    let (mut i, mut j) = (0, 0);
    let mut compared = 0;
    while i < cpu.len() || j < gpu.len() {
        let c = cpu.get(i);
        let g = gpu.get(j);
        match (c, g) {
            (Some(c), Some(g)) if (c.a, c.b) == (g.a, g.b) => {
                let (mc, mg) = (&c.manifold, &g.manifold);
                let tol = 1e-5 * mc.depth.abs().max(1.0);
                assert!(
                    (mc.depth - mg.depth).abs() <= tol,
                    "pair ({}, {}): depth cpu {} gpu {}",
                    c.a,
                    c.b,
                    mc.depth,
                    mg.depth
                );
                assert!(
                    (mc.normal - mg.normal).length() <= 1e-5,
                    "pair ({}, {}): normal cpu {} gpu {}",
                    c.a,
                    c.b,
                    mc.normal,
                    mg.normal
                );
                assert_eq!(
                    mc.points().len(),
                    mg.points().len(),
                    "pair ({}, {}): point count",
                    c.a,
                    c.b
                );
                for (pc, pg) in mc.points().iter().zip(mg.points()) {
                    assert_eq!(pc.id, pg.id, "pair ({}, {}): feature id", c.a, c.b);
                    assert!(
                        (pc.point - pg.point).length() <= 1e-4
                            && (pc.depth - pg.depth).abs() <= tol,
                        "pair ({}, {}): point cpu {:?} gpu {:?}",
                        c.a,
                        c.b,
                        pc,
                        pg
                    );
                }
                compared += 1;
                i += 1;
                j += 1;
            }
            (Some(c), _) if c.manifold.depth <= NEAR_ZERO_DEPTH => i += 1,
            (_, Some(g)) if g.manifold.depth <= NEAR_ZERO_DEPTH => j += 1,
            _ => panic!("contact lists differ at cpu[{i}] = {c:?}, gpu[{j}] = {g:?}"),
        }
    }
    assert!(compared * 100 >= cpu.len() * 99, "too few pairs matched");
}

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
