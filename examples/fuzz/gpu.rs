//! Target `gpu`: `GpuNarrowPhase` (blocking `collide_pairs`, and the host's path `prepare`,
//! `record`, `request_readback`, `poll_readback`) and `GpuTimeOfImpact` on the same kind of
//! batches as `batch`, against the CPU. One device for the whole run, made once; each input
//! costs milliseconds on a software adapter, so this target gets a small share.
//!
//! Invariants: the same `Err` as the CPU for a bad batch (and nothing prepared after a
//! refused `prepare`); for a good batch every contact of either backend finite with a unit
//! normal, and the same contacts as the CPU, but for pairs whose depth is within rounding
//! of zero, with depths, points and normals equal to rounding; the same times of impact but
//! where one side stops within the tolerance of a grazing contact the other passes; the
//! backends still usable after every call.
//!
//! Two things the parity promise does not cover, and what is checked there instead:
//! - A tie: shapes with two axes of equal overlap (concentric copies of one polygon, say)
//!   whose overlaps differ by a rounding step, so another device's rounding may pick the
//!   other axis. Where the depths agree and the normals do not, the GPU's normal must still
//!   be an axis of minimum overlap: the overlap of the two shapes along it, computed in f64
//!   from the world vertices (a circle's centre plus and minus its radius), equals the CPU's
//!   depth within the crate's tie tolerance (`RELATIVE_TIE_TOLERANCE` times the smaller
//!   radius) plus the depth's rounding allowance; points and ids then follow the other face
//!   and are not compared.
//! - The overflow zone: a pair whose depth or any contact coordinate on either side lies
//!   beyond `OVERFLOW_ZONE` (1e30), or whose length scale does (coordinates so near
//!   `f32::MAX` that a difference or a product of them overflows f32). There the backends
//!   round and overflow at different steps, so one may report a contact the other finds
//!   beyond f32's range; required: no panic, every contact finite with a unit normal, and the
//!   same `Err` for a bad batch, but not parity. Time of impact has its overflow zone
//!   too: it squares lengths (distances, a radius times the square of a turn), so a pair
//!   whose motion scale is beyond `sqrt(f32::MAX)` (1.8e19) gets the same rules: every hit
//!   with `t` in [0, 1], a finite separation and a unit normal, but not parity.
//!
//! And one allowance of the DESIGN's, at the grain of a point: a contact point whose own
//! depth is within rounding of zero may be kept by one backend and dropped by the other, as
//! a pair of such depth may; the other points must match.

use std::sync::Mutex;
use std::time::{Duration, Instant};
use wgpu_sat::error::GpuError;

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::DVec2;
use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, Error, GpuNarrowPhase, NarrowPhase, Shape,
    collision::RELATIVE_TIE_TOLERANCE, collision::toi::SweptCollider, collision::toi::TimeOfImpact,
    collision::toi::time_of_impact_pairs, collision::toi::toi_tolerance, gpu::GpuTimeOfImpact,
};

use crate::Target;
use crate::batch::{
    arbitrary_batch, arbitrary_sweeps, expected_error, pairs, same_error, sanitised,
};
use crate::hostile;

struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    narrow: GpuNarrowPhase,
    toi: GpuTimeOfImpact,
}

pub struct GpuTarget {
    gpu: Option<Mutex<Gpu>>,
    reason: String,
}

impl GpuTarget {
    /// Makes the device and both pipelines once, or records why it could not.
    pub fn new() -> GpuTarget {
        let made = wgpu_sat::request_device().and_then(|(device, queue)| {
            let narrow = GpuNarrowPhase::new(&device, &queue)?;
            let toi = GpuTimeOfImpact::new(&device, &queue)?;
            Ok(Gpu {
                device,
                queue,
                narrow,
                toi,
            })
        });
        match made {
            Ok(gpu) => {
                let info = gpu.device.adapter_info();
                let reason = format!("{} ({:?})", info.name, info.backend);
                GpuTarget {
                    gpu: Some(Mutex::new(gpu)),
                    reason,
                }
            }
            Err(e) => GpuTarget {
                gpu: None,
                reason: format!("no GPU adapter: {e}"),
            },
        }
    }

    pub fn available(&self) -> bool {
        self.gpu.is_some()
    }

    pub fn skip_reason(&self) -> &str {
        &self.reason
    }

    /// CI sets `WGPU_SAT_REQUIRE_GPU=1`: then a missing adapter fails the run.
    pub fn required(&self) -> bool {
        std::env::var("WGPU_SAT_REQUIRE_GPU").is_ok_and(|v| v == "1")
    }
}

#[derive(Debug)]
pub struct GpuInput {
    pub shapes: Vec<Shape>,
    pub colliders: Vec<Collider>,
    pub pairs: Vec<[u32; 2]>,
    /// Through `prepare`/`record`/`request_readback`/`poll_readback` rather than
    /// `collide_pairs`.
    pub host_path: bool,
    pub sweeps: Vec<SweptCollider>,
    pub toi_pairs: Vec<[u32; 2]>,
}

impl Target for GpuTarget {
    type Input = GpuInput;

    fn name(&self) -> &'static str {
        "gpu"
    }

    fn weight(&self) -> u64 {
        // About 1 input in 4,000: tens of seconds of the software adapter in a full run.
        1
    }

    fn parallel(&self) -> bool {
        false
    }

    fn generate(&self, u: &mut Unstructured) -> Result<GpuInput> {
        let (shapes, colliders, pairs) = arbitrary_batch(u, 12, 24)?;
        let hostile = u.ratio(1u8, 2)?;
        let sweeps = arbitrary_sweeps(u, shapes.len(), hostile)?;
        let toi_pairs = pairs_of(u, sweeps.len(), hostile)?;
        Ok(GpuInput {
            shapes,
            colliders,
            pairs,
            host_path: u.arbitrary()?,
            sweeps,
            toi_pairs,
        })
    }

    fn check(&self, input: &GpuInput) -> std::result::Result<(), String> {
        let Some(gpu) = &self.gpu else {
            return Ok(());
        };
        // A panic inside an earlier input poisons the lock; the state is still the best
        // there is, and a broken one shows up as failures of its own.
        let mut gpu = gpu.lock().unwrap_or_else(|e| e.into_inner());
        let gpu = &mut *gpu;
        let mut cpu = CpuNarrowPhase::new();
        cpu.set_shape_table(&input.shapes)
            .map_err(|e| format!("cpu set_shape_table: {e}"))?;
        gpu.narrow
            .set_shape_table(&input.shapes)
            .map_err(|e| format!("gpu set_shape_table: {e}"))?;
        let want = cpu.collide_pairs(&input.colliders, &input.pairs);
        let got = if input.host_path {
            host_frame(gpu, &input.colliders, &input.pairs)?
        } else {
            gpu.narrow.collide_pairs(&input.colliders, &input.pairs)
        };
        compare_results(&input.shapes, &input.colliders, &input.pairs, want, got)?;

        // Still usable: the repaired batch, blocking, against the CPU.
        let (colliders, pairs) = sanitised(input.shapes.len(), &input.colliders, &input.pairs);
        let want = cpu.collide_pairs(&colliders, &pairs);
        let got = gpu.narrow.collide_pairs(&colliders, &pairs);
        compare_results(&input.shapes, &colliders, &pairs, want, got)
            .map_err(|e| format!("the valid batch after the call: {e}"))?;

        gpu.toi
            .set_shape_table(&input.shapes)
            .map_err(|e| format!("gpu toi set_shape_table: {e}"))?;
        let want = time_of_impact_pairs(&input.shapes, &input.sweeps, &input.toi_pairs);
        let got = gpu
            .toi
            .time_of_impact_pairs(&input.sweeps, &input.toi_pairs);
        match (&want, &got) {
            (Err(c), Err(g)) => {
                if format!("{c:?}") != format!("{g:?}") {
                    return Err(format!("toi errors differ: cpu {c}, gpu {g}"));
                }
            }
            (Ok(c), Ok(g)) => {
                compare_toi(&input.shapes, &input.sweeps, &input.toi_pairs, c, g)?;
            }
            _ => return Err(format!("toi: cpu {want:?}, gpu {got:?}")),
        }
        Ok(())
    }
}

fn pairs_of(u: &mut Unstructured, count: usize, hostile: bool) -> Result<Vec<[u32; 2]>> {
    pairs(u, count, 12, hostile)
}

/// One frame the way a host runs it: prepare, record with a readback request into its own
/// encoder, submit, then poll without blocking until the contacts arrive.
fn host_frame(
    gpu: &mut Gpu,
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> std::result::Result<std::result::Result<Vec<Contact>, Error>, String> {
    if let Err(e) = gpu.narrow.prepare(colliders, pairs) {
        // Nothing is prepared after a refused batch.
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        return match gpu.narrow.record(&mut encoder) {
            Err(Error::Gpu(GpuError::NotPrepared)) => Ok(Err(e)),
            other => Err(format!(
                "record after a refused prepare ({e}) gave {other:?}"
            )),
        };
    }
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("fuzz host frame"),
        });
    if let Err(e) = gpu.narrow.record(&mut encoder) {
        return Ok(Err(e));
    }
    if let Err(e) = gpu.narrow.request_readback(&mut encoder) {
        return Ok(Err(e));
    }
    gpu.queue.submit([encoder.finish()]);
    let start = Instant::now();
    loop {
        if let Some(result) = gpu.narrow.poll_readback() {
            return Ok(result);
        }
        if start.elapsed() > Duration::from_secs(30) {
            return Err("poll_readback: no contacts after 30 s".into());
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The CPU's and the GPU's answers to one batch.
fn compare_results(
    shapes: &[Shape],
    colliders: &[Collider],
    pairs: &[[u32; 2]],
    cpu: std::result::Result<Vec<Contact>, Error>,
    gpu: std::result::Result<Vec<Contact>, Error>,
) -> std::result::Result<(), String> {
    match (cpu, gpu) {
        (Err(c), Err(g)) => {
            // The CPU's error is the documented one; the GPU must name the same item.
            let items: Vec<(u32, bool)> = colliders
                .iter()
                .map(|c| (c.shape, c.transform.is_finite()))
                .collect();
            match expected_error(shapes.len(), &items, pairs) {
                Some(x) => same_error(&g, &x).map_err(|e| format!("gpu: {e} (cpu: {c})")),
                None => Err(format!("cpu {c} on a valid batch")),
            }
        }
        (Ok(c), Ok(g)) => same_contacts(shapes, colliders, &c, &g),
        (c, g) => Err(format!("cpu {c:?}, gpu {g:?}")),
    }
}

/// A pair's length scale, in f64: both shapes' sizes and the distance between them. The
/// rounding of either side grows with it.
fn pair_scale(shapes: &[Shape], colliders: &[Collider], a: u32, b: u32) -> f64 {
    let (ca, cb) = (&colliders[a as usize], &colliders[b as usize]);
    let (sa, sb) = (&shapes[ca.shape as usize], &shapes[cb.shape as usize]);
    let ta = ca.transform.translation().as_dvec2();
    let tb = cb.transform.translation().as_dvec2();
    f64::from(sa.bounding_radius())
        + f64::from(sb.bounding_radius())
        + ta.distance(tb)
        + sa.centroid().as_dvec2().length()
        + sb.centroid().as_dvec2().length()
}

/// Where parity ends (see the header): a depth, a contact coordinate or a pair's length
/// scale beyond this. Far above any size a simulation uses, and far enough below f32::MAX
/// (3.4e38) that a sum or difference of a few such values still fits.
const OVERFLOW_ZONE: f64 = 1e30;

/// Whether a contact lies in the overflow zone: its depth or a point beyond
/// [`OVERFLOW_ZONE`], or its pair's inputs.
fn in_overflow_zone(shapes: &[Shape], colliders: &[Collider], x: &Contact) -> bool {
    let m = &x.manifold;
    // A NaN counts as beyond.
    let beyond = |v: f64| v.is_nan() || v.abs() > OVERFLOW_ZONE;
    beyond(f64::from(m.depth))
        || m.points()
            .iter()
            .any(|p| beyond(f64::from(p.point.x)) || beyond(f64::from(p.point.y)))
        || beyond(pair_scale(shapes, colliders, x.a, x.b))
}

/// What every contact of either backend must be, parity or not: finite, with a unit normal.
fn well_formed(who: &str, x: &Contact) -> std::result::Result<(), String> {
    let m = &x.manifold;
    let finite = m.depth.is_finite()
        && m.points()
            .iter()
            .all(|p| p.point.is_finite() && p.depth.is_finite());
    if finite && hostile::is_unit(m.normal) {
        Ok(())
    } else {
        Err(format!(
            "{who} pair ({}, {}): not finite or not a unit normal: {m:?}",
            x.a, x.b
        ))
    }
}

/// The interval a shape covers along `n` (world frame, f64) at its collider's pose.
fn world_extent(shape: &Shape, collider: &Collider, n: DVec2) -> (f64, f64) {
    let q = collider.transform.rotation().as_dvec2();
    let t = collider.transform.translation().as_dvec2();
    let place = |p: DVec2| DVec2::new(q.x * p.x - q.y * p.y, q.y * p.x + q.x * p.y) + t;
    if let Some(c) = shape.as_circle() {
        let centre = place(c.center().as_dvec2()).dot(n);
        let r = f64::from(c.radius());
        return (centre - r, centre + r);
    }
    let polygon = shape
        .as_polygon()
        .expect("a shape is a polygon or a circle");
    polygon
        .vertices()
        .iter()
        .map(|v| place(v.as_dvec2()).dot(n))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        })
}

/// How far B must move along `n` (from A to B) to clear A: A's highest projection minus
/// B's lowest, in f64. The depth of a manifold is this along its normal.
fn overlap_along(shapes: &[Shape], colliders: &[Collider], a: u32, b: u32, n: DVec2) -> f64 {
    let (ca, cb) = (&colliders[a as usize], &colliders[b as usize]);
    let (_, a_high) = world_extent(&shapes[ca.shape as usize], ca, n);
    let (b_low, _) = world_extent(&shapes[cb.shape as usize], cb, n);
    a_high - b_low
}

/// The crate's tie tolerance for a pair: overlaps this close are equal (src/collision/sat.rs).
fn tie_tolerance(shapes: &[Shape], colliders: &[Collider], a: u32, b: u32) -> f64 {
    let radius = |i: u32| f64::from(shapes[colliders[i as usize].shape as usize].bounding_radius());
    f64::from(RELATIVE_TIE_TOLERANCE) * radius(a).min(radius(b))
}

/// Contacts of the two backends: every one well formed; the same pairs in the same order
/// but for pairs of near-zero depth (1e-5 of the pair's scale, the DESIGN's allowance) and
/// pairs in the overflow zone; and the same manifolds to rounding, but that a tie may be
/// broken towards another axis of the same overlap (see the header).
fn same_contacts(
    shapes: &[Shape],
    colliders: &[Collider],
    cpu: &[Contact],
    gpu: &[Contact],
) -> std::result::Result<(), String> {
    for c in cpu {
        well_formed("cpu", c)?;
    }
    for g in gpu {
        well_formed("gpu", g)?;
    }
    let overflow = |x: &Contact| in_overflow_zone(shapes, colliders, x);
    let (mut i, mut j) = (0, 0);
    while i < cpu.len() || j < gpu.len() {
        let (c, g) = (cpu.get(i), gpu.get(j));
        let near_zero = |x: &Contact| {
            f64::from(x.manifold.depth) <= 1e-5 * pair_scale(shapes, colliders, x.a, x.b)
        };
        match (c, g) {
            (Some(c), Some(g)) if (c.a, c.b) == (g.a, g.b) && (overflow(c) || overflow(g)) => {
                i += 1;
                j += 1;
            }
            (Some(c), Some(g)) if (c.a, c.b) == (g.a, g.b) => {
                let scale = pair_scale(shapes, colliders, c.a, c.b);
                let (mc, mg) = (&c.manifold, &g.manifold);
                let tol = 1e-5 * scale;
                let differ = |what: &str| {
                    Err(format!(
                        "pair ({}, {}): {what} differ: cpu {mc:?}, gpu {mg:?}",
                        c.a, c.b
                    ))
                };
                if (f64::from(mc.depth) - f64::from(mg.depth)).abs() > tol {
                    return differ("depths");
                }
                // Where both depths are clearly above rounding, the normals, point counts,
                // ids and points must agree too; a near-zero one may pick another face. So
                // may a tie broken the other way, but only onto an axis of the same minimum
                // overlap (measured in f64), within the crate's tie tolerance plus the
                // rounding already allowed between the two depths; its points and ids then
                // belong to the other face.
                let tie = || {
                    let along = overlap_along(shapes, colliders, c.a, c.b, mg.normal.as_dvec2());
                    let allowed = tie_tolerance(shapes, colliders, c.a, c.b) + tol;
                    (along - f64::from(mc.depth)).abs() <= allowed
                };
                if !near_zero(c) && (mc.normal - mg.normal).length() > 1e-3 {
                    if !tie() {
                        return differ("normals (and the GPU's is no axis of minimum overlap)");
                    }
                } else if !near_zero(c) {
                    // A point of a manifold, like a pair, may be kept by one backend and
                    // dropped by the other only where its own depth is within rounding of
                    // zero (the DESIGN's allowance, at the grain of a point: the same sign
                    // test on a clipped point's separation decides it). Every other point
                    // must be in both, with the same id and place.
                    let kept = |m: &wgpu_sat::Manifold| -> Vec<wgpu_sat::ContactPoint> {
                        m.points()
                            .iter()
                            .filter(|p| f64::from(p.depth) > tol)
                            .copied()
                            .collect()
                    };
                    let (pcs, pgs) = (kept(mc), kept(mg));
                    if mc.points().len() != mg.points().len() && pcs.len() != pgs.len() {
                        return differ("point counts");
                    }
                    let (pcs, pgs) = if mc.points().len() == mg.points().len() {
                        (mc.points().to_vec(), mg.points().to_vec())
                    } else {
                        (pcs, pgs)
                    };
                    for (pc, pg) in pcs.iter().zip(&pgs) {
                        if pc.id != pg.id {
                            return differ("feature ids");
                        }
                        if pc.point.as_dvec2().distance(pg.point.as_dvec2()) > 1e-4 * scale {
                            return differ("points");
                        }
                    }
                }
                i += 1;
                j += 1;
            }
            (Some(c), _) if near_zero(c) || overflow(c) => i += 1,
            (_, Some(g)) if near_zero(g) || overflow(g) => j += 1,
            _ => {
                return Err(format!(
                    "contact lists differ at cpu[{i}] = {c:?}, gpu[{j}] = {g:?}"
                ));
            }
        }
    }
    Ok(())
}

/// The length scale of a swept pair, in f64: both sweep radii (farthest point from the
/// centre of rotation), the distance between the start centres, each centre's displacement
/// and the arc each radius sweeps through its turn. Time of impact squares lengths of this
/// size (distances, `radius · turn²`), so beyond `sqrt(f32::MAX)` its products overflow f32.
fn toi_motion_scale(a: &Shape, sa: &wgpu_sat::Sweep, b: &Shape, sb: &wgpu_sat::Sweep) -> f64 {
    let radius = |shape: &Shape, lc: DVec2| -> f64 {
        if let Some(c) = shape.as_circle() {
            return c.center().as_dvec2().distance(lc) + f64::from(c.radius());
        }
        let polygon = shape
            .as_polygon()
            .expect("a shape is a polygon or a circle");
        polygon
            .vertices()
            .iter()
            .map(|v| v.as_dvec2().distance(lc))
            .fold(0.0, f64::max)
    };
    let ra = radius(a, sa.local_center.as_dvec2());
    let rb = radius(b, sb.local_center.as_dvec2());
    let turn = |s: &wgpu_sat::Sweep| (f64::from(s.a1) - f64::from(s.a0)).abs();
    let moved = |s: &wgpu_sat::Sweep| s.c0.as_dvec2().distance(s.c1.as_dvec2());
    ra + rb
        + sa.c0.as_dvec2().distance(sb.c0.as_dvec2())
        + moved(sa)
        + moved(sb)
        + turn(sa) * ra
        + turn(sb) * rb
}

/// Times of impact of the two backends, by the rules of the parity tests: where both hit,
/// `t` in [0, 1] and the separations within the tolerance (unless one side reached the
/// iteration cap, short of contact); where only one hits, it is a grazing hit within the
/// tolerance. In the overflow zone (a motion scale beyond `sqrt(f32::MAX)`, see
/// [`toi_motion_scale`]) no parity: every hit of either side has `t` in [0, 1], a finite
/// separation and a unit normal.
fn compare_toi(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    cpu: &[Option<TimeOfImpact>],
    gpu: &[Option<TimeOfImpact>],
) -> std::result::Result<(), String> {
    if cpu.len() != gpu.len() {
        return Err(format!("toi: {} cpu results, {} gpu", cpu.len(), gpu.len()));
    }
    for ((&[i, j], c), g) in pairs.iter().zip(cpu).zip(gpu) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let (sa, sb) = (&shapes[a.shape as usize], &shapes[b.shape as usize]);
        let tol = toi_tolerance(sa, &a.sweep, sb, &b.sweep);
        let fail = || {
            Err(format!(
                "toi pair [{i}, {j}]: cpu {c:?}, gpu {g:?}, tol {tol}"
            ))
        };
        if toi_motion_scale(sa, &a.sweep, sb, &b.sweep) > f64::from(f32::MAX).sqrt() {
            for h in [c, g].into_iter().flatten() {
                if !(0.0..=1.0).contains(&h.t)
                    || !h.separation.is_finite()
                    || !hostile::is_unit(h.normal)
                {
                    return fail();
                }
            }
            continue;
        }
        match (c, g) {
            (Some(c), Some(g)) => {
                let apart = (c.separation - g.separation).abs();
                if !(0.0..=1.0).contains(&g.t)
                    || !hostile::is_unit(g.normal)
                    || !(apart <= tol.max(1e-5) || c.separation > tol || g.separation > tol)
                {
                    return fail();
                }
            }
            (None, None) => {}
            (Some(h), None) | (None, Some(h)) => {
                if !(h.separation >= 0.0 && h.separation <= tol) {
                    return fail();
                }
            }
        }
    }
    Ok(())
}
