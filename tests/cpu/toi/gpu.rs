//! `GpuTimeOfImpact` against the CPU reference: random swept pairs of every kind of shape,
//! far from the origin, the literature cases, warm calls and batches over one dispatch.

use super::*;

/// The pairs whose swept bounding boxes overlap, the way a continuous-collision pass would
/// find them: each box bounds the shape at nine times of the step, grown by the most a
/// point can stray between two of them (a tenth of the turn times the sweep radius, plus a
/// tenth of the move). Each pair's order is swapped at random.
#[cfg(feature = "gpu")]
fn swept_pairs(rng: &mut impl Rng, shapes: &[Shape], sweeps: &[SweptCollider]) -> Vec<[u32; 2]> {
    let aabbs: Vec<wgpu_sat::Aabb> = sweeps
        .iter()
        .map(|c| {
            let shape = &shapes[c.shape as usize];
            let s = &c.sweep;
            let mut min = Vec2::splat(f32::INFINITY);
            let mut max = Vec2::splat(f32::NEG_INFINITY);
            for k in 0..=8 {
                let b = shape.aabb(&s.transform_at(k as f32 / 8.0));
                min = min.min(b.min);
                max = max.max(b.max);
            }
            let reach =
                (shape.bounding_radius() + (shape.centroid() - s.local_center).length()) * 2.0;
            let grow = 0.125 * ((s.a1 - s.a0).abs() * reach + (s.c1 - s.c0).length());
            wgpu_sat::Aabb::new(min - Vec2::splat(grow), max + Vec2::splat(grow))
        })
        .collect();
    wgpu_sat::BroadPhase::new()
        .find_pairs(&aabbs)
        .iter()
        .map(|&[a, b]| if rng.random_bool(0.5) { [a, b] } else { [b, a] })
        .collect()
}

/// How a GPU result compares with the CPU's.
#[cfg(feature = "gpu")]
#[derive(Default, Debug)]
struct Parity {
    pairs: usize,
    hits: usize,
    /// One side hits and the other does not.
    disagree: usize,
    /// Both hit, `t` more than 1e-4 apart. Rare, and expected: when a distance lands within
    /// rounding of the tolerance, one side stops there and the other takes one more safe
    /// step, of about `(tol / 2) / approach`, long when the approach along the normal is slow.
    t_apart: usize,
    /// Both hit, normals more than 1e-3 apart.
    normal_apart: usize,
    max_t_difference: f32,
    max_normal_difference: f32,
    /// Pairs whose result is the CPU's to the bit (both miss, or both hit with the same
    /// time, normal and separation).
    same_bits: usize,
}

#[cfg(feature = "gpu")]
impl Parity {
    /// Where the adapter keeps the CPU's bits (lavapipe, as in CI: docs/reliability.md),
    /// every result is the CPU's; elsewhere only the bounds of the callers hold.
    fn assert_bits_where_promised(&self) {
        if common::adapter_gives_cpu_bits() {
            assert_eq!(self.same_bits, self.pairs, "{self:?}");
        }
    }

    /// At most one pair in 1,000 hit on one side only (grazing pairs, which `compare` has
    /// checked), and at most one hit in 200 with `t` or the normal apart.
    fn assert_close(&self) {
        self.assert_bits_where_promised();
        assert!(self.disagree * 1000 <= self.pairs, "{self:?}");
        assert!(self.t_apart * 200 <= self.hits, "{self:?}");
        assert!(self.normal_apart * 200 <= self.hits, "{self:?}");
    }
}

#[cfg(feature = "gpu")]
fn compare(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    cpu: &[Option<TimeOfImpact>],
    gpu: &[Option<TimeOfImpact>],
) -> Parity {
    assert_eq!(cpu.len(), gpu.len());
    let mut p = Parity {
        pairs: pairs.len(),
        ..Parity::default()
    };
    for ((&[i, j], c), g) in pairs.iter().zip(cpu).zip(gpu) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let (sa, sb) = (&shapes[a.shape as usize], &shapes[b.shape as usize]);
        let tol = toi_tolerance(sa, &a.sweep, sb, &b.sweep);
        let bits = |h: &TimeOfImpact| [h.t, h.normal.x, h.normal.y, h.separation].map(f32::to_bits);
        p.same_bits += usize::from(c.as_ref().map(bits) == g.as_ref().map(bits));
        match (c, g) {
            (Some(c), Some(g)) => {
                p.hits += 1;
                let dt = (c.t - g.t).abs();
                let dn = (c.normal - g.normal).length();
                p.max_t_difference = p.max_t_difference.max(dt);
                p.max_normal_difference = p.max_normal_difference.max(dn);
                p.t_apart += (dt > 1e-4) as usize;
                p.normal_apart += (dn > 1e-3) as usize;
                // Whatever the rounding, both stay conservative: within the tolerance, or
                // short of it after the iteration cap.
                assert!(g.t >= 0.0 && g.t <= 1.0, "pair [{i}, {j}]: gpu {g:?}");
                assert!(
                    (c.separation - g.separation).abs() <= tol.max(1e-5)
                        || c.separation > tol
                        || g.separation > tol,
                    "pair [{i}, {j}]: cpu {c:?} gpu {g:?}"
                );
            }
            (None, None) => {}
            (Some(h), None) | (None, Some(h)) => {
                // Allowed only for grazing pairs: the side that hits stops within the
                // tolerance, at a point the other side passed at least `target` away.
                p.disagree += 1;
                assert!(
                    h.separation >= 0.0 && h.separation <= tol,
                    "pair [{i}, {j}]: cpu {c:?} gpu {g:?}"
                );
            }
        }
    }
    p
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_matches_the_cpu_on_random_swept_pairs() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut rng = common::rng(11);
    let shapes = shape_table(&mut rng);
    let (sweeps, _) = random_sweeps(&mut rng, shapes.len(), 700, 0);
    let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
    assert!(pairs.len() > 5000, "{} pairs", pairs.len());
    let p = cpu_against_gpu(&device, &queue, &shapes, &sweeps, &pairs);
    assert!(p.hits > 2000, "too few hits to compare: {p:?}");
    // Grazing pairs only, and few of them.
    p.assert_close();
}

/// Runs the batch through `time_of_impact_pairs` on the CPU and `GpuTimeOfImpact`, and
/// compares the two.
#[cfg(feature = "gpu")]
fn cpu_against_gpu(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
) -> Parity {
    let cpu = time_of_impact_pairs(shapes, sweeps, pairs).unwrap();
    let mut gpu = GpuTimeOfImpact::new(device, queue).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    let got = gpu.time_of_impact_pairs(sweeps, pairs).unwrap();
    let p = compare(shapes, sweeps, pairs, &cpu, &got);
    eprintln!("{p:?}");
    p
}

/// Per kind of the pair's shapes (`common::SHAPE_KINDS`), how many of `pairs` hit on both
/// sides: a pair counts for both its kinds.
#[cfg(feature = "gpu")]
fn hits_by_kind(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    cpu: &[Option<TimeOfImpact>],
    gpu: &[Option<TimeOfImpact>],
) -> [usize; 6] {
    let mut hits = [0; 6];
    for ((pair, c), g) in pairs.iter().zip(cpu).zip(gpu) {
        if c.is_some() && g.is_some() {
            for &k in pair {
                hits[common::shape_kind(&shapes[sweeps[k as usize].shape as usize])] += 1;
            }
        }
    }
    hits
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_matches_the_cpu_on_swept_pairs_of_every_kind_of_shape() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // Six shapes of each kind (sharp and rounded polygons, circles, capsules, segments, chain
    // links), swept pairs near the origin and far from it.
    let mut rng = common::rng(15);
    let shapes: Vec<Shape> = (0..36)
        .map(|i| common::random_shape_of_kind(&mut rng, i % 6))
        .collect();
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    for shift in [Vec2::ZERO, v(1000.0, -700.0)] {
        let (mut sweeps, _) = random_sweeps(&mut rng, shapes.len(), 700, 0);
        let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
        for s in &mut sweeps {
            s.sweep.c0 += shift;
            s.sweep.c1 += shift;
        }
        assert!(pairs.len() > 5000, "{} pairs", pairs.len());
        let cpu = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
        let got = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
        // `compare` asserts that both sides stay conservative on every pair, and that a pair
        // only one side hits is a grazing one (within the tolerance where it hits).
        let p = compare(&shapes, &sweeps, &pairs, &cpu, &got);
        let by_kind = hits_by_kind(&shapes, &sweeps, &pairs, &cpu, &got);
        eprintln!("shifted by {shift}: {p:?}, hits by kind {by_kind:?}");
        for (kind, &n) in common::SHAPE_KINDS.iter().zip(&by_kind) {
            assert!(n > 200, "only {n} hits with a {kind}: {by_kind:?}");
        }
        p.assert_close();
    }
}

#[cfg(feature = "gpu")]
#[test]
fn far_from_the_origin_the_gpu_still_matches() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut rng = common::rng(12);
    let shapes = shape_table(&mut rng);
    let (mut sweeps, _) = random_sweeps(&mut rng, shapes.len(), 500, 0);
    let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
    for s in &mut sweeps {
        let shift = v(1000.0, -700.0);
        s.sweep.c0 += shift;
        s.sweep.c1 += shift;
    }
    let p = cpu_against_gpu(&device, &queue, &shapes, &sweeps, &pairs);
    assert!(p.hits > 500, "{p:?}");
    p.assert_bits_where_promised();
    assert!(p.disagree * 200 <= p.pairs, "{p:?}");
    assert!(p.t_apart * 100 <= p.hits, "{p:?}");
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_literature_cases_and_warm_calls() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = vec![
        boxed(0.1, 2.0),
        boxed(0.05, 0.05),
        circle(0.3),
        boxed(0.5, 0.5),
    ];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: still(0.0, 0.0, 0.0),
        },
        SweptCollider {
            shape: 1,
            sweep: moving(v(-2.0, 0.0), v(3.0, 0.0), 0.0, 0.0),
        },
        SweptCollider {
            shape: 3,
            sweep: still(5.0, 0.0, 0.0),
        },
        SweptCollider {
            shape: 2,
            sweep: moving(v(2.0, 0.7), v(8.0, 0.7), 0.0, 0.0),
        },
    ];
    // The bullet and the wall (t = 1.85 / 5); the circle and the box at (5, 0) (the
    // corner root, shifted: t = (2.5 - sqrt(0.05)) / 6); the bullet and the far box: none.
    let pairs = [[0, 1], [2, 3], [1, 2]];
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let hits = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let wall = hits[0].expect("bullet hits the wall");
    assert!(wall.t <= 0.37 && wall.t > 0.37 - 1e-4, "{wall:?}");
    assert!(close(wall.normal, v(-1.0, 0.0), 1e-6), "{wall:?}");
    let corner = hits[1].expect("circle hits the corner");
    let root = (2.5 - 0.05f32.sqrt()) / 6.0;
    assert!(
        corner.t <= root + 1e-6 && corner.t > root - 1e-4,
        "{corner:?}"
    );
    assert!(hits[2].is_none(), "{hits:?}");

    // Warm calls reuse every buffer; the same table set again uploads nothing new.
    let mut rng = common::rng(13);
    let table = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, table.len(), 300, 3000);
    gpu.set_shape_table(&table).unwrap();
    gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let warm = gpu.buffers_created();
    let mut out = Vec::new();
    for n in [3000, 2000, 100, 2999] {
        gpu.set_shape_table(&table).unwrap();
        gpu.time_of_impact_pairs_into(&sweeps, &pairs[..n], &mut out)
            .unwrap();
        assert_eq!(out.len(), n);
        let cpu = time_of_impact_pairs(&table, &sweeps, &pairs[..n]).unwrap();
        let p = compare(&table, &sweeps, &pairs[..n], &cpu, &out);
        p.assert_bits_where_promised();
        assert!(p.disagree * 100 <= n, "{p:?}");
    }
    assert_eq!(gpu.buffers_created(), warm, "a warm call created buffers");
}

#[cfg(feature = "gpu")]
#[test]
fn a_batch_larger_than_one_dispatch_is_split_and_keeps_pair_order() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let mut rng = common::rng(14);
    let shapes = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, shapes.len(), 1_500, 18_000);
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let per_dispatch = gpu.max_pairs();
    assert!(
        pairs.len() > 4 * per_dispatch,
        "{} pairs, {per_dispatch} per dispatch: the batch must need several dispatches",
        pairs.len()
    );
    let cpu = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
    let got = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let p = compare(&shapes, &sweeps, &pairs, &cpu, &got);
    eprintln!("{per_dispatch} pairs per dispatch: {p:?}");
    // Hits in every dispatch, so a result out of its place would show.
    for (k, chunk) in cpu.chunks(per_dispatch).enumerate() {
        assert!(
            chunk.iter().filter(|h| h.is_some()).count() > chunk.len() / 50,
            "dispatch {k} has too few hits to check the order"
        );
    }
    p.assert_close();

    // A bad pair in a later dispatch is still named by its place in the whole batch.
    let mut bad = pairs.clone();
    bad[3 * per_dispatch + 5] = [0, 9_999];
    let e = gpu.time_of_impact_pairs(&sweeps, &bad).unwrap_err();
    assert!(
        matches!(e, Error::Batch(BatchError::PairIndexOutOfRange { pair, index: 9_999, .. })
            if pair == 3 * per_dispatch + 5),
        "{e:?}"
    );

    // What cannot be split is still refused: more swept colliders than one binding holds.
    let (many, few_pairs) = random_sweeps(&mut rng, shapes.len(), 2_000, 100);
    let e = gpu.time_of_impact_pairs(&many, &few_pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "swept colliders",
                count: 2_000,
                max: 1_638
            })
        ),
        "{e:?}"
    );
    // And it stays usable.
    assert_eq!(gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap(), got);
}
