//! Helpers shared by the integration tests: a device (or a skip), seeded random shapes and
//! poses, and an independent brute-force overlap test.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{Aabb, BroadPhase, Collider, Contact, Polygon, Transform};

/// A device from `request_device`, or `None` with a message when there is no adapter.
/// With `WGPU_SAT_REQUIRE_GPU=1` (CI sets it) a missing adapter fails the test instead.
pub fn gpu() -> Option<(wgpu::Device, wgpu::Queue)> {
    match wgpu_sat::request_device() {
        Ok((device, queue)) => {
            let info = device.adapter_info();
            eprintln!(
                "GPU test on {} ({:?}, {:?})",
                info.name, info.backend, info.device_type
            );
            Some((device, queue))
        }
        Err(e) if require_gpu() => panic!("WGPU_SAT_REQUIRE_GPU=1 but no device: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// A device of the test's own, made the way a host renderer would, with the given limits;
/// `None` (with the same skip rules as [`gpu`]) when there is no adapter.
pub fn device_with_limits(
    label: &str,
    limits: wgpu::Limits,
) -> Option<(wgpu::Device, wgpu::Queue)> {
    gpu()?;
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        &instance, None,
    ))
    .unwrap();
    Some(
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some(label),
            required_limits: limits,
            ..Default::default()
        }))
        .unwrap(),
    )
}

pub fn require_gpu() -> bool {
    std::env::var("WGPU_SAT_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A random convex polygon of 3 to 8 vertices about the origin, of size `scale`: points at
/// sorted random angles on an ellipse (always convex), or a box one time in four.
pub fn random_polygon(rng: &mut impl Rng, scale: f32) -> Polygon {
    loop {
        if rng.random_bool(0.25) {
            return Polygon::rectangle(
                scale * rng.random_range(0.2..1.0),
                scale * rng.random_range(0.2..1.0),
            );
        }
        let n = rng.random_range(3..=8);
        let mut angles: Vec<f32> = (0..n)
            .map(|_| rng.random_range(0.0..std::f32::consts::TAU))
            .collect();
        angles.sort_by(f32::total_cmp);
        let stretch = Vec2::new(rng.random_range(0.3..1.0), rng.random_range(0.3..1.0)) * scale;
        let points: Vec<Vec2> = angles
            .iter()
            .map(|&a| Vec2::from_angle(a) * stretch)
            .collect();
        if let Ok(p) = Polygon::new(&points) {
            return p;
        }
    }
}

pub fn random_transform(rng: &mut impl Rng, extent: f32) -> Transform {
    Transform::new(
        Vec2::new(
            rng.random_range(-extent..extent),
            rng.random_range(-extent..extent),
        ),
        rng.random_range(-std::f32::consts::PI..std::f32::consts::PI),
    )
}

/// `shape_count` random shapes of size about 1 and `collider_count` colliders scattered over
/// a square of half size `extent`, with the broad phase's candidate pairs, each pair's order
/// swapped at random (so both argument orders are exercised).
pub fn random_batch(
    seed: u64,
    shape_count: usize,
    collider_count: usize,
    extent: f32,
) -> (Vec<Polygon>, Vec<Collider>, Vec<[u32; 2]>) {
    let mut rng = rng(seed);
    let shapes: Vec<Polygon> = (0..shape_count)
        .map(|_| random_polygon(&mut rng, 1.0))
        .collect();
    let colliders: Vec<Collider> = (0..collider_count)
        .map(|_| Collider {
            shape: rng.random_range(0..shape_count as u32),
            transform: random_transform(&mut rng, extent),
        })
        .collect();
    let aabbs: Vec<Aabb> = colliders
        .iter()
        .map(|c| shapes[c.shape as usize].aabb(&c.transform))
        .collect();
    let pairs = BroadPhase::new()
        .find_pairs(&aabbs)
        .iter()
        .map(|&[a, b]| if rng.random_bool(0.5) { [a, b] } else { [b, a] })
        .collect();
    (shapes, colliders, pairs)
}

/// World vertices in f64.
pub fn world_vertices(p: &Polygon, t: &Transform) -> Vec<DVec2> {
    p.vertices()
        .iter()
        .map(|&v| t.transform_point(v).as_dvec2())
        .collect()
}

fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// How far inside convex CCW polygon `poly` the point is: the smallest distance to an edge
/// line, positive inside.
pub fn inside_margin(poly: &[DVec2], p: DVec2) -> f64 {
    (0..poly.len())
        .map(|i| {
            let a = poly[i];
            let b = poly[(i + 1) % poly.len()];
            cross(b - a, p - a) / (b - a).length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Brute-force overlap, independent of SAT: some vertex strictly inside the other polygon,
/// or two edges properly crossing. Returns the verdict and a margin: how far the deciding
/// evidence is from the boundary case (small margins are rounding-sensitive).
pub fn brute_force_overlap(a: &[DVec2], b: &[DVec2]) -> (bool, f64) {
    let mut best = f64::NEG_INFINITY;
    for &p in a {
        best = best.max(inside_margin(b, p));
    }
    for &p in b {
        best = best.max(inside_margin(a, p));
    }
    for i in 0..a.len() {
        let (p0, p1) = (a[i], a[(i + 1) % a.len()]);
        for j in 0..b.len() {
            let (q0, q1) = (b[j], b[(j + 1) % b.len()]);
            let d0 = cross(p1 - p0, q0 - p0) / (p1 - p0).length();
            let d1 = cross(p1 - p0, q1 - p0) / (p1 - p0).length();
            let d2 = cross(q1 - q0, p0 - q0) / (q1 - q0).length();
            let d3 = cross(q1 - q0, p1 - q0) / (q1 - q0).length();
            // A proper crossing: each segment's ends strictly on both sides of the other line.
            let m = (-(d0 * d1).signum() * d0.abs().min(d1.abs()))
                .min(-(d2 * d3).signum() * d2.abs().min(d3.abs()));
            best = best.max(m);
        }
    }
    (best > 0.0, best.abs())
}

/// Depth below which a pair may be reported by one backend and not the other: f32 rounding
/// of a near-touching pair, 1e-5 of the polygons' size (they are about 1 unit here).
pub const NEAR_ZERO_DEPTH: f32 = 1e-5;

/// Compares two contact lists from the same input: the same pairs in the same order (up to
/// pairs of near-zero depth), the same point counts and ids, and depths, normals and points
/// within 1e-5 relative.
pub fn assert_same_contacts(cpu: &[Contact], gpu: &[Contact]) {
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
