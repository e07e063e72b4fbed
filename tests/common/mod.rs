//! Helpers shared by the integration tests: a device (or a skip), one with small bindings,
//! seeded random shapes and poses, proptest strategies (`strategies`), a pile stirred by a
//! paddle and forces (`stirred`), and independent brute-force overlap and distance tests.
#![allow(dead_code)]

pub mod stirred;
pub mod strategies;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
#[cfg(feature = "gpu")]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::shapes::{Capsule, ChainSegment, Segment};
use wgpu_sat::{Aabb, BroadPhase, Circle, Collider, Contact, Polygon, Shape, Transform};

/// A device from `request_device`, or `None` with a message when there is no adapter.
/// With `WGPU_SAT_REQUIRE_GPU=1` (CI sets it) a missing adapter fails the test instead.
#[cfg(feature = "gpu")]
pub fn gpu() -> Option<(wgpu::Device, wgpu::Queue)> {
    match wgpu_sat::request_device() {
        Ok((device, queue)) => {
            let info = device.adapter_info();
            eprintln!(
                "GPU test on {} ({:?}, {:?})",
                info.name, info.backend, info.device_type
            );
            let _ = SOFTWARE_ADAPTER.set(info.device_type == wgpu::DeviceType::Cpu);
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
#[cfg(feature = "gpu")]
pub fn device_with_limits(
    label: &str,
    limits: wgpu::Limits,
) -> Option<(wgpu::Device, wgpu::Queue)> {
    gpu()?;
    let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
        wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    ));
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

/// A device whose storage bindings hold only 64 KiB, so that modest batches must be split:
/// 455 shapes, 4,096 poses, 4,096 time-of-impact records or 1,638 swept colliders fill one.
#[cfg(feature = "gpu")]
pub fn small_binding_device() -> Option<(wgpu::Device, wgpu::Queue)> {
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 64 << 10,
        ..wgpu::Limits::downlevel_defaults()
    };
    device_with_limits("small bindings", limits)
}

/// Copies a GPU buffer's first `words` u32s back (test-side, blocking).
#[cfg(feature = "gpu")]
pub fn read_words(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    words: usize,
) -> Vec<u32> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: (4 * words as u64).max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, (4 * words as u64).max(4));
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let words: Vec<u32> =
        bytemuck::cast_slice(&staging.slice(..).get_mapped_range().unwrap()).to_vec();
    words
}

/// Runs `entry`, a probe entry point of `source` whose group 1 binds `input` (binding 0,
/// read-only storage) and an output of `outputs` words (binding 1), one invocation per
/// output in workgroups of 64, and reads the output back.
#[cfg(feature = "gpu")]
pub fn run_probe(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &str,
    entry: &str,
    input: &[u8],
    outputs: usize,
) -> Vec<u32> {
    use wgpu::util::DeviceExt;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    });
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: input,
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (outputs * 4).max(4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(1),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(1, &bind_group, &[]);
        pass.dispatch_workgroups((outputs as u32).div_ceil(64), 1, 1);
    }
    queue.submit([encoder.finish()]);
    read_words(device, queue, &output, outputs)
}

/// One frame the way a host runs it: prepare, record into its own encoder with a readback
/// request, submit, then poll (never wait) until the contacts arrive.
#[cfg(feature = "gpu")]
pub fn host_frame(
    gpu: &mut GpuNarrowPhase,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> Vec<Contact> {
    gpu.prepare(colliders, pairs).unwrap();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("host frame"),
    });
    gpu.record(&mut encoder).unwrap();
    gpu.request_readback(&mut encoder).unwrap();
    queue.submit([encoder.finish()]);
    for _ in 0..100_000 {
        if let Some(result) = gpu.poll_readback() {
            return result.unwrap();
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    panic!("the readback never arrived");
}

/// Each body's pose and velocity as bits (translation, rotation, linear velocity, spin),
/// in body order: two worlds stepped alike compare body by body.
#[allow(dead_code)]
pub fn state_bits(world: &wgpu_sat::World) -> Vec<[u32; 7]> {
    world
        .bodies()
        .map(|k| {
            let t = world.transform(k);
            let v = world.linear_velocity(k);
            [
                t.translation().x,
                t.translation().y,
                t.rotation().x,
                t.rotation().y,
                v.x,
                v.y,
                world.angular_velocity(k),
            ]
            .map(f32::to_bits)
        })
        .collect()
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

/// A random shape of size `scale`: a circle one time in three (about its local origin, or
/// off it as a piece of a compound body would be), else a [`random_polygon`].
pub fn random_shape(rng: &mut impl Rng, scale: f32) -> Shape {
    if !rng.random_bool(1.0 / 3.0) {
        return Shape::from(random_polygon(rng, scale));
    }
    let radius = scale * rng.random_range(0.1..1.0);
    let center = if rng.random_bool(0.5) {
        Vec2::ZERO
    } else {
        scale * Vec2::new(rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5))
    };
    Shape::from(Circle::with_center(center, radius).unwrap())
}

/// `shape_count` random polygons of size about 1 and `collider_count` colliders scattered
/// over a square of half size `extent`, with the broad phase's candidate pairs, each pair's
/// order swapped at random (so both argument orders are exercised).
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
    let table: Vec<Shape> = shapes.iter().copied().map(Shape::from).collect();
    let (colliders, pairs) = scatter(&mut rng, &table, collider_count, extent);
    (shapes, colliders, pairs)
}

/// [`random_batch`] with a mixed shape table: polygons and circles ([`random_shape`]).
pub fn random_shape_batch(
    seed: u64,
    shape_count: usize,
    collider_count: usize,
    extent: f32,
) -> (Vec<Shape>, Vec<Collider>, Vec<[u32; 2]>) {
    let mut rng = rng(seed);
    let shapes: Vec<Shape> = (0..shape_count)
        .map(|_| random_shape(&mut rng, 1.0))
        .collect();
    let (colliders, pairs) = scatter(&mut rng, &shapes, collider_count, extent);
    (shapes, colliders, pairs)
}

/// Colliders of random shapes from `shapes` at random poses, and the broad phase's pairs of
/// them, each pair's order swapped at random.
fn scatter(
    rng: &mut impl Rng,
    shapes: &[Shape],
    collider_count: usize,
    extent: f32,
) -> (Vec<Collider>, Vec<[u32; 2]>) {
    let colliders: Vec<Collider> = (0..collider_count)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: random_transform(rng, extent),
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
    (colliders, pairs)
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

/// World centre of a circle, in f64.
pub fn world_center(c: &Circle, t: &Transform) -> DVec2 {
    t.transform_point(c.center()).as_dvec2()
}

/// The point of the boundary of polygon `poly` nearest to `p`.
pub fn closest_point(poly: &[DVec2], p: DVec2) -> DVec2 {
    (0..poly.len())
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let ab = b - a;
            a + ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) * ab
        })
        .min_by(|x, y| x.distance(p).total_cmp(&y.distance(p)))
        .unwrap()
}

/// Signed distance from a point to convex CCW polygon `poly`: positive outside (the distance
/// to the nearest edge segment), negative inside (minus the distance to the nearest edge
/// line, which for a convex polygon is the distance to its boundary).
pub fn signed_distance(poly: &[DVec2], p: DVec2) -> f64 {
    let margin = inside_margin(poly, p);
    if margin >= 0.0 {
        return -margin;
    }
    closest_point(poly, p).distance(p)
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

/// How closely two contact lists agreed (see [`assert_same_contacts`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Agreement {
    /// Contacts found by both and compared.
    pub compared: usize,
    /// Contacts of near-zero depth found by one side only.
    pub unmatched: usize,
    /// Largest depth difference of a compared contact.
    pub max_depth_difference: f32,
    /// Largest difference of a compared contact point: its position or its depth.
    pub max_point_difference: f32,
    /// Largest normal difference (length of the difference vector).
    pub max_normal_difference: f32,
    /// Largest normal difference as a fraction of the tolerance it was held to.
    pub max_normal_fraction: f32,
}

/// Compares two contact lists from the same input: the same pairs in the same order (up to
/// pairs of near-zero depth), the same point counts and ids, and depths, normals and points
/// within 1e-5 relative. Returns how closely they agreed.
pub fn assert_same_contacts(cpu: &[Contact], gpu: &[Contact]) -> Agreement {
    assert_same_contacts_with(cpu, gpu, |_| 1e-5)
}

/// [`assert_same_contacts`] with the normals of each contact (given the CPU's) allowed to
/// differ by `normal_tolerance(contact)`.
pub fn assert_same_contacts_with(
    cpu: &[Contact],
    gpu: &[Contact],
    normal_tolerance: impl Fn(&Contact) -> f32,
) -> Agreement {
    assert_same_contacts_within(cpu, gpu, normal_tolerance, 1e-5)
}

/// [`assert_same_contacts_with`] with depths (of the manifold and of each point) allowed to
/// differ by `depth_tolerance` times the depth (at least 1).
pub fn assert_same_contacts_within(
    cpu: &[Contact],
    gpu: &[Contact],
    normal_tolerance: impl Fn(&Contact) -> f32,
    depth_tolerance: f32,
) -> Agreement {
    let (mut i, mut j) = (0, 0);
    let mut compared = 0;
    let mut agreement = Agreement::default();
    while i < cpu.len() || j < gpu.len() {
        let c = cpu.get(i);
        let g = gpu.get(j);
        match (c, g) {
            (Some(c), Some(g)) if (c.a, c.b) == (g.a, g.b) => {
                let (mc, mg) = (&c.manifold, &g.manifold);
                let tol = depth_tolerance * mc.depth.abs().max(1.0);
                assert!(
                    (mc.depth - mg.depth).abs() <= tol,
                    "pair ({}, {}): depth cpu {} gpu {}",
                    c.a,
                    c.b,
                    mc.depth,
                    mg.depth
                );
                let normal_tol = normal_tolerance(c);
                assert!(
                    (mc.normal - mg.normal).length() <= normal_tol,
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
                    agreement.max_point_difference = agreement
                        .max_point_difference
                        .max((pc.point - pg.point).length())
                        .max((pc.depth - pg.depth).abs());
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
                agreement.max_depth_difference = agreement
                    .max_depth_difference
                    .max((mc.depth - mg.depth).abs());
                let normal_difference = (mc.normal - mg.normal).length();
                agreement.max_normal_difference =
                    agreement.max_normal_difference.max(normal_difference);
                agreement.max_normal_fraction = agreement
                    .max_normal_fraction
                    .max(normal_difference / normal_tol);
                compared += 1;
                i += 1;
                j += 1;
            }
            (Some(c), _) if c.manifold.depth <= NEAR_ZERO_DEPTH => {
                agreement.unmatched += 1;
                i += 1;
            }
            (_, Some(g)) if g.manifold.depth <= NEAR_ZERO_DEPTH => {
                agreement.unmatched += 1;
                j += 1;
            }
            _ => panic!("contact lists differ at cpu[{i}] = {c:?}, gpu[{j}] = {g:?}"),
        }
    }
    assert!(compared * 100 >= cpu.len() * 99, "too few pairs matched");
    agreement.compared = compared;
    agreement
}

/// How far the two backends' normals may differ for contact `c`. A face normal is a
/// polygon's stored normal, rotated: 1e-5. The normal of a contact on a polygon's vertex, or
/// between two circles, is the direction of the vector from the vertex (or A's centre) to
/// the circle's centre; both ends come out of the transforms with about 1e-7 of rounding,
/// which another device (fusing multiplies and adds, say) rounds differently, so the
/// direction of a vector of length `l` agrees only to about that over `l`: 1e-6 / l when
/// that is larger (a centre closer than 0.1 to the vertex or the other centre).
pub fn normal_tolerance<'a>(
    shapes: &'a [Shape],
    colliders: &'a [Collider],
) -> impl Fn(&Contact) -> f32 + 'a {
    move |c| {
        let shape = |i: u32| &shapes[colliders[i as usize].shape as usize];
        let vertex = c.manifold.points()[0].id & 1 == 1;
        let length = match (shape(c.a), shape(c.b)) {
            (Shape::Circle(a), Shape::Circle(b)) => a.radius() + b.radius() - c.manifold.depth,
            (Shape::Polygon(_), Shape::Circle(r)) | (Shape::Circle(r), Shape::Polygon(_))
                if vertex =>
            {
                r.radius() - c.manifold.depth
            }
            _ => return 1e-5,
        };
        (1e-6 / length).max(1e-5)
    }
}

/// The six kinds of shape, in the order of [`shape_kind`].
pub const SHAPE_KINDS: [&str; 6] = [
    "polygon",
    "rounded polygon",
    "circle",
    "capsule",
    "segment",
    "chain segment",
];

/// The place of `shape`'s kind in [`SHAPE_KINDS`].
pub fn shape_kind(shape: &Shape) -> usize {
    match shape {
        Shape::Polygon(p) if p.radius() == 0.0 => 0,
        Shape::Polygon(_) => 1,
        Shape::Circle(_) => 2,
        Shape::Capsule(_) => 3,
        Shape::Segment(_) => 4,
        Shape::ChainSegment(_) => 5,
    }
}

/// A random point within `scale` of the origin.
fn point(rng: &mut impl Rng, scale: f32) -> Vec2 {
    scale * Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
}

/// A random shape of kind `k` (see [`SHAPE_KINDS`]) of size about 1, about the origin.
pub fn random_shape_of_kind(rng: &mut impl Rng, k: usize) -> Shape {
    match k {
        0 => Shape::from(random_polygon(rng, 1.0)),
        1 => Shape::from(
            random_polygon(rng, 0.8)
                .with_radius(rng.random_range(0.02..0.3))
                .unwrap(),
        ),
        2 => {
            let center = if rng.random_bool(0.5) {
                Vec2::ZERO
            } else {
                point(rng, 0.5)
            };
            Shape::from(Circle::with_center(center, rng.random_range(0.1..1.0)).unwrap())
        }
        3 => {
            let a = point(rng, 0.3);
            let b = a + Vec2::from_angle(rng.random_range(0.0..6.3)) * rng.random_range(0.2..1.2);
            Shape::Capsule(Capsule::new(a, b, rng.random_range(0.05..0.5)).unwrap())
        }
        4 => {
            let a = point(rng, 0.5);
            let b = a + Vec2::from_angle(rng.random_range(0.0..6.3)) * rng.random_range(0.2..1.5);
            Shape::Segment(Segment::new(a, b).unwrap())
        }
        _ => {
            let a = point(rng, 0.5);
            let b = a + Vec2::from_angle(rng.random_range(0.0..6.3)) * rng.random_range(0.3..1.5);
            // A ghost: a free end one time in four, else a neighbour turning either way
            // (a straight continuation one time in four of those).
            let mut ghost = |end: Vec2, away: Vec2| -> Vec2 {
                match rng.random_range(0..4) {
                    0 => end,
                    1 => end + away,
                    _ => end + Vec2::from_angle(rng.random_range(-1.2..1.2)).rotate(away),
                }
            };
            let ghost_a = ghost(a, a - b);
            let ghost_b = ghost(b, b - a);
            Shape::ChainSegment(ChainSegment::new(ghost_a, a, b, ghost_b).unwrap())
        }
    }
}

/// How far the backends' depths may differ, relative: 1e-4, ten times the polygons'
/// allowance. On lavapipe the two sides now agree to the bit (tests/gpu/gpu_bits.rs); an
/// adapter that fuses or re-associates differently rounds apart (a manifold depth 2 ulps
/// apart was seen before keep(), docs/reliability.md), and a clipped point's
/// depth is an interpolation along the incident edge divided by that edge's span along the
/// reference face, which magnifies the difference where the edge stands almost upright on
/// the face: a chain link against a rounded polygon gave point depths 1.03e-5 apart.
pub const DEPTH_TOLERANCE: f32 = 1e-4;

/// How far the backends' normals may differ: 1e-5 for a face normal; for a normal along
/// the axis between two closest points (a vertex of a core against a vertex, or a circle's
/// centre), whose ends each carry about 1e-7 of rounding from the transforms, about 1e-6
/// over that axis's length, which is the radii minus the depth.
pub fn rounded_normal_tolerance<'a>(
    shapes: &'a [Shape],
    colliders: &'a [Collider],
) -> impl Fn(&Contact) -> f32 + 'a {
    move |c| {
        let rounding = |i: u32| match &shapes[colliders[i as usize].shape as usize] {
            Shape::Polygon(p) => p.radius(),
            Shape::Circle(circle) => circle.radius(),
            Shape::Capsule(capsule) => capsule.radius(),
            Shape::Segment(_) | Shape::ChainSegment(_) => 0.0,
        };
        let length = (rounding(c.a) + rounding(c.b) - c.manifold.depth).max(1e-3);
        (1e-6 / length).max(1e-5)
    }
}

/// Whether the adapter [`gpu`] found gives the CPU's bits: a software one (lavapipe, as in
/// CI), which docs/reliability.md promises them on. A hardware GPU may fuse a product into a
/// sum and round it otherwise, and agrees with the CPU only to rounding there (seen on an
/// NVIDIA H200). True before any adapter was asked for.
#[cfg(feature = "gpu")]
pub fn adapter_gives_cpu_bits() -> bool {
    *SOFTWARE_ADAPTER.get().unwrap_or(&true)
}

#[cfg(feature = "gpu")]
static SOFTWARE_ADAPTER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// The GPU's contacts against the CPU's as the adapter promises: to the bit where
/// [`adapter_gives_cpu_bits`], else to rounding ([`assert_same_contacts_within`] with
/// [`rounded_normal_tolerance`] and [`DEPTH_TOLERANCE`]).
#[cfg(feature = "gpu")]
pub fn assert_contacts_as_promised(
    shapes: &[Shape],
    colliders: &[Collider],
    cpu: &[Contact],
    gpu: &[Contact],
    what: &str,
) {
    if !adapter_gives_cpu_bits() {
        let normal_tolerance = rounded_normal_tolerance(shapes, colliders);
        let agreement = assert_same_contacts_within(cpu, gpu, normal_tolerance, DEPTH_TOLERANCE);
        eprintln!("{what}: the same contacts to rounding: {agreement:?}");
        return;
    }
    assert_eq!(gpu.len(), cpu.len(), "{what}: contact count");
    for (g, c) in gpu.iter().zip(cpu) {
        assert_eq!(
            contact_bits(g),
            contact_bits(c),
            "{what}: contact of pair ({}, {})",
            c.a,
            c.b
        );
    }
}

/// Every bit a contact reports: pair, normal, depth, and each point's position, depth and id.
pub fn contact_bits(c: &Contact) -> Vec<u32> {
    let m = &c.manifold;
    let mut out = vec![
        c.a,
        c.b,
        m.normal.x.to_bits(),
        m.normal.y.to_bits(),
        m.depth.to_bits(),
    ];
    for p in m.points() {
        out.extend([
            p.point.x.to_bits(),
            p.point.y.to_bits(),
            p.depth.to_bits(),
            p.id,
        ]);
    }
    out
}
