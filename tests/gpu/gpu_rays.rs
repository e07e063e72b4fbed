//! The GPU ray batch (`GpuRayCast`, `shaders/ray.wgsl`) against its CPU twin
//! (`cast_ray_pairs`, `src/query/ray.rs`) on 100,000 random rays (400,000 (ray, collider) pairs)
//! against polygons and circles, near the origin and far from it; on 100,000 more against
//! every kind of shape (capsules, segments, rounded polygons, chain links too); and the
//! batch's bad-input errors on both.

use crate::common;

use rand::Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Collider, Error, RayHit, Shape, gpu::GpuRayCast, query::Ray, query::cast_ray_pairs,
};

/// Which shape table a batch draws from.
#[derive(Clone, Copy)]
enum Table {
    /// 64 random polygons and circles.
    PolygonsAndCircles,
    /// 16 random shapes of each of the six kinds (`common::SHAPE_KINDS`).
    EveryKind,
}

/// A batch: a random shape table, `colliders` colliders over a square of half size
/// `extent` about `center`, and rays from random points of that square aimed at a random
/// collider (most hit it or pass near it), each paired with its target and three other
/// colliders.
fn batch(
    table: Table,
    seed: u64,
    colliders: usize,
    rays: usize,
    center: Vec2,
    extent: f32,
) -> (Vec<Shape>, Vec<Collider>, Vec<Ray>, Vec<[u32; 2]>) {
    let (shapes, mut placed, _) = common::random_shape_batch(seed, 64, colliders, extent);
    let shapes = match table {
        Table::PolygonsAndCircles => shapes,
        Table::EveryKind => {
            let mut rng = common::rng(seed ^ 0x5a9e);
            (0..96)
                .map(|i| common::random_shape_of_kind(&mut rng, i % 6))
                .collect()
        }
    };
    for c in &mut placed {
        c.transform = wgpu_sat::Transform::from_rotation(
            c.transform.translation() + center,
            c.transform.rotation(),
        );
    }
    let mut rng = common::rng(seed ^ 0xa11);
    let mut ray_list = Vec::with_capacity(rays);
    let mut pairs = Vec::with_capacity(4 * rays);
    for r in 0..rays as u32 {
        let origin = center
            + Vec2::new(
                rng.random_range(-extent..extent),
                rng.random_range(-extent..extent),
            );
        let target = rng.random_range(0..colliders as u32);
        let aim = placed[target as usize].transform.translation()
            + Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let translation = (aim - origin) * rng.random_range(0.5..2.0);
        ray_list.push(Ray {
            origin,
            translation,
        });
        pairs.push([r, target]);
        for _ in 0..3 {
            pairs.push([r, rng.random_range(0..colliders as u32)]);
        }
    }
    (shapes, placed, ray_list, pairs)
}

/// Whether rounding may decide the pair: the CPU's own verdict changes when the ray moves
/// sideways, or its end moves, by `band` (relative to the ray's length and the scene).
fn rounding_decides(shapes: &[Shape], c: &Collider, ray: &Ray, band: f32) -> bool {
    let shape = &shapes[c.shape as usize];
    let cast = |o: Vec2, d: Vec2| wgpu_sat::cast_ray(shape, &c.transform, o, d).is_some();
    let side = ray.translation.perp().normalize_or_zero() * band;
    let along = ray.translation.normalize_or_zero() * band;
    let base = cast(ray.origin, ray.translation);
    [
        cast(ray.origin + side, ray.translation),
        cast(ray.origin - side, ray.translation),
        cast(ray.origin, ray.translation + along),
        cast(ray.origin, ray.translation - along),
        cast(ray.origin + along, ray.translation - along),
        cast(ray.origin - along, ray.translation + along),
    ]
    .iter()
    .any(|&v| v != base)
}

/// Casts the batch on both, checks them against each other, and returns (pairs, hits per
/// kind of shape, in the order of `common::SHAPE_KINDS`).
fn parity(
    gpu: &mut GpuRayCast,
    table: Table,
    seed: u64,
    center: Vec2,
    extent: f32,
) -> (usize, [usize; 6]) {
    let (shapes, colliders, rays, pairs) = batch(table, seed, 2_000, 50_000, center, extent);
    gpu.set_shape_table(&shapes).unwrap();
    let on_gpu = gpu.cast_ray_pairs(&colliders, &rays, &pairs).unwrap();
    let on_cpu = cast_ray_pairs(&shapes, &colliders, &rays, &pairs).unwrap();
    assert_eq!(on_gpu.len(), pairs.len());
    // Rounding scales with the coordinates: 64 f32 steps at the scene's distance from 0.
    let band = 64.0 * f32::EPSILON * (center.abs().max_element() + 2.0 * extent);
    let (mut hits, mut decided_by_rounding) = ([0; 6], 0);
    for (k, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        let [r, i] = pairs[k];
        let (ray, collider) = (&rays[r as usize], &colliders[i as usize]);
        match (g, c) {
            (Some(g), Some(c)) => {
                hits[common::shape_kind(&shapes[collider.shape as usize])] += 1;
                same_hit(g, c, ray, band, k);
            }
            (None, None) => {}
            _ => {
                assert!(
                    rounding_decides(&shapes, collider, ray, band),
                    "pair {k}: GPU {g:?}, CPU {c:?}, ray {ray:?}, collider {collider:?}"
                );
                decided_by_rounding += 1;
            }
        }
    }
    eprintln!(
        "{} pairs about {center}: {hits:?} hits on both by kind, {decided_by_rounding} decided by rounding",
        pairs.len()
    );
    assert!(
        decided_by_rounding * 10_000 <= pairs.len(),
        "{decided_by_rounding}"
    );
    (pairs.len(), hits)
}

fn same_hit(g: &RayHit, c: &RayHit, ray: &Ray, band: f32, k: usize) {
    // Along the normal: a grazing ray's entry moves far along it for a rounding's change.
    let across = ray.translation.dot(c.normal).abs();
    assert!(
        (g.fraction - c.fraction).abs() * across <= band,
        "pair {k}: fraction {} on the GPU, {} on the CPU",
        g.fraction,
        c.fraction
    );
    // The same edge, or at a corner (within rounding of two edges' entries) the other one.
    let corner = (g.normal - c.normal).length() > 1e-4;
    assert!(
        !corner || (g.fraction - c.fraction).abs() * ray.translation.length() <= 4.0 * band,
        "pair {k}: normal {} on the GPU, {} on the CPU",
        g.normal,
        c.normal
    );
    assert!((g.point - c.point).length() <= 4.0 * band + 1e-6 * ray.translation.length());
}

#[test]
fn gpu_ray_casts_match_the_cpu_on_100_000_rays_near_and_far_from_the_origin() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuRayCast::new(&device, &queue).unwrap();
    let table = Table::PolygonsAndCircles;
    let (near_pairs, near_hits) = parity(&mut gpu, table, 1, Vec2::ZERO, 60.0);
    let (far_pairs, far_hits) = parity(&mut gpu, table, 2, Vec2::new(1000.0, -700.0), 60.0);
    let (near_hits, far_hits) = (
        near_hits.iter().sum::<usize>(),
        far_hits.iter().sum::<usize>(),
    );
    // 50,000 rays in each, against four colliders each.
    assert_eq!(near_pairs + far_pairs, 400_000);
    assert!(
        near_hits > 15_000 && far_hits > 15_000,
        "{near_hits}, {far_hits}"
    );
    // Warm: the same batch again creates no buffer.
    let created = gpu.buffers_created();
    parity(&mut gpu, table, 2, Vec2::new(1000.0, -700.0), 60.0);
    assert_eq!(gpu.buffers_created(), created);
}

#[test]
fn gpu_ray_casts_match_the_cpu_on_every_kind_of_shape() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuRayCast::new(&device, &queue).unwrap();
    // 50,000 rays about the origin and 50,000 far from it, four colliders each, on 16
    // shapes of each kind; the tolerances are `parity`'s (64 f32 steps of the scene's
    // size).
    for (seed, center) in [(4, Vec2::ZERO), (5, Vec2::new(1000.0, -700.0))] {
        let (pairs, hits) = parity(&mut gpu, Table::EveryKind, seed, center, 60.0);
        assert_eq!(pairs, 200_000);
        // Every kind is hit often enough for the comparison to mean something.
        for (kind, &n) in common::SHAPE_KINDS.iter().zip(&hits) {
            assert!(
                n > 800,
                "about {center}: only {n} hits on a {kind}: {hits:?}"
            );
        }
    }
}

#[test]
fn bad_ray_batches_are_errors_naming_the_item_on_both() {
    let (shapes, colliders, rays, pairs) = batch(Table::EveryKind, 3, 10, 10, Vec2::ZERO, 5.0);
    let gpu = common::gpu();
    let mut gpu = gpu.map(|(d, q)| {
        let mut g = GpuRayCast::new(&d, &q).unwrap();
        g.set_shape_table(&shapes).unwrap();
        g
    });
    let mut bad_rays = rays.clone();
    bad_rays[4].translation.y = f32::NAN;
    let mut bad_colliders = colliders.clone();
    bad_colliders[6].shape = 99;
    let mut bad_pairs = pairs.clone();
    bad_pairs[7] = [3, 10];
    /// A batch (colliders, rays, pairs) and what its error must name.
    type Case<'a> = (&'a [Collider], &'a [Ray], &'a [[u32; 2]], &'static str);
    let cases: [Case; 3] = [
        (&colliders, &bad_rays, &pairs, "ray 4"),
        (&bad_colliders, &rays, &pairs, "collider 6"),
        (&colliders, &rays, &bad_pairs, "ray pair 7"),
    ];
    for (c, r, p, named) in cases {
        let e: Error = cast_ray_pairs(&shapes, c, r, p).unwrap_err();
        assert!(e.to_string().contains(named), "CPU: {e}");
        if let Some(gpu) = gpu.as_mut() {
            let e = gpu.cast_ray_pairs(c, r, p).unwrap_err();
            assert!(e.to_string().contains(named), "GPU: {e}");
            // Still usable.
            assert_eq!(
                gpu.cast_ray_pairs(&colliders, &rays, &pairs).unwrap().len(),
                40
            );
        }
    }
}
