//! Shared by the criterion benches (`benches/*.rs`) and the `benchmark` example (which
//! includes this file with `#[path]`): seeded inputs, the GPU device, parry2d adapters and
//! the GPU's byte accounting. Nothing here is timed by itself.
//!
//! parry2d 0.31 uses glam 0.33 (through glamx) while this crate re-exports glam 0.30, so
//! every value crosses between the two here, field by field, once and outside the timed
//! loops.

// Each bench uses only part of this module; the example uses another part.
#![allow(dead_code)]

pub mod box2d;
pub mod queries;

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Rotation, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::ContactManifold;
use parry2d::query::details::contact_manifold_pfm_pfm;
use parry2d::shape::ConvexPolygon;
use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes::{self, NarrowPhaseBatch};
use wgpu_sat::{Aabb, Collider, Contact, Polygon, Transform};

/// The seed every bench and the example use, so their inputs are the same.
pub const SEED: u64 = 0x5a7_2024;

/// Time step of the world benches: one 60 Hz frame.
pub const DT: f32 = 1.0 / 60.0;

// ---------------------------------------------------------------------------------------
// The GPU device
// ---------------------------------------------------------------------------------------

/// What the benches report about the adapter.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
}

impl Gpu {
    /// Whether the adapter is a CPU implementation (lavapipe, WARP, SwiftShader): its "GPU"
    /// times are CPU times and say nothing about GPU speed.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// One line naming the adapter, with the software warning where it applies.
    pub fn describe(&self) -> String {
        let kind = if self.is_software() {
            "software adapter: GPU times are CPU times, not GPU speed"
        } else {
            "hardware adapter"
        };
        format!(
            "{} ({:?}, {:?}; {kind})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}

/// The device from [`wgpu_sat::request_device`], or `None` with a printed reason, so that
/// the GPU benches are skipped on a machine without an adapter. With
/// `WGPU_SAT_REQUIRE_GPU=1` (as in CI) a missing adapter panics instead: a green run must
/// mean the GPU benches ran.
pub fn gpu() -> Option<Gpu> {
    match wgpu_sat::request_device() {
        Ok((device, queue)) => {
            let info = device.adapter_info();
            let gpu = Gpu {
                device,
                queue,
                info,
            };
            eprintln!("GPU: {}", gpu.describe());
            Some(gpu)
        }
        Err(e) => {
            if std::env::var("WGPU_SAT_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("WGPU_SAT_REQUIRE_GPU=1 but there is no GPU adapter: {e}");
            }
            eprintln!("no GPU adapter ({e}): skipping the GPU benchmarks");
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Bytes the GPU narrow phase moves per call
// ---------------------------------------------------------------------------------------

/// Bytes `GpuNarrowPhase::collide_pairs` writes to the device in one call, from the counts
/// and the layout in `src/gpu/layout.rs` (sizes pinned there by compile-time asserts):
/// 16 B pose per collider (`PoseGpu`), 8 B per pair (`[u32; 2]`), 16 B of parameters
/// (`ParamsGpu`) and a 16 B contact-counter reset (`ContactsHeaderGpu`) per dispatch, and
/// one 4 B shape id per collider only when the ids differ from the last call's (the first
/// call, or when bodies were added). The shape table itself is uploaded once by
/// `set_shapes` and not counted.
pub fn gpu_upload_bytes(colliders: usize, pairs: usize, shape_ids_changed: bool) -> u64 {
    let ids = if shape_ids_changed { 4 * colliders } else { 0 };
    (16 * colliders + 8 * pairs + 16 + 16 + ids) as u64
}

/// Bytes read back to the host in one call: the 16 B contact header, 16 B of kernel
/// timestamps (two u64 ticks; only on devices with timestamp queries) and one 48 B record
/// (`ContactGpu`) per overlapping pair. This is the payload: the library copies up to a
/// quarter more records (plus 64) as headroom, sized from the previous call's count, so
/// that one readback usually suffices; that slack is not counted here.
pub fn gpu_readback_bytes(contacts: usize, timestamps: bool) -> u64 {
    let ts = if timestamps { 16 } else { 0 };
    (16 + ts + 48 * contacts) as u64
}

// ---------------------------------------------------------------------------------------
// parry2d on the same inputs
// ---------------------------------------------------------------------------------------

fn to_parry(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

/// The same polygon as a parry2d `ConvexPolygon` (both are counter-clockwise).
pub fn parry_polygon(p: &Polygon) -> ConvexPolygon {
    let points = p.vertices().iter().map(|&v| to_parry(v)).collect();
    ConvexPolygon::from_convex_polyline(points).expect("a valid wgpu-sat polygon is convex")
}

/// The same pose; the rotation is copied as (cos, sin), not recomputed from the angle, so
/// both libraries see bit-identical poses.
pub fn parry_pose(t: &Transform) -> Pose {
    let r = t.rotation();
    Pose::from_parts(
        to_parry(t.translation()),
        Rotation::from_cos_sin_unchecked(r.x, r.y),
    )
}

pub fn parry_aabb(b: &Aabb) -> ParryAabb {
    ParryAabb::new(to_parry(b.min), to_parry(b.max))
}

/// A narrow-phase batch converted once for parry2d: its shapes and poses.
pub struct ParryBatch {
    pub shapes: Vec<ConvexPolygon>,
    pub poses: Vec<Pose>,
}

impl ParryBatch {
    pub fn new(shapes: &[Polygon], colliders: &[Collider]) -> Self {
        ParryBatch {
            shapes: shapes.iter().map(parry_polygon).collect(),
            poses: colliders.iter().map(|c| parry_pose(&c.transform)).collect(),
        }
    }

    /// parry2d's contact manifold for one pair, from scratch: a fresh manifold each time, so
    /// that parry's manifold-update shortcut (reuse last frame's contacts when the relative
    /// pose barely moved) cannot skip the work. Prediction 0: only touching or overlapping
    /// pairs produce points. Returns whether the pair overlaps (some point at negative
    /// distance), the question `wgpu_sat::collide` answers.
    #[inline]
    pub fn collide(&self, colliders: &[Collider], [a, b]: [u32; 2]) -> bool {
        let (ca, cb) = (&colliders[a as usize], &colliders[b as usize]);
        let pos12 = self.poses[a as usize].inv_mul(&self.poses[b as usize]);
        let mut manifold = ContactManifold::<(), ()>::new();
        contact_manifold_pfm_pfm(
            &pos12,
            &self.shapes[ca.shape as usize],
            0.0,
            None,
            &self.shapes[cb.shape as usize],
            0.0,
            None,
            0.0,
            &mut manifold,
        );
        manifold.points.iter().any(|p| p.dist < 0.0)
    }

    /// The overlapping pairs' count over a batch, what the bench times for parry2d.
    pub fn count_overlapping(&self, colliders: &[Collider], pairs: &[[u32; 2]]) -> usize {
        pairs
            .iter()
            .filter(|&&pair| self.collide(colliders, pair))
            .count()
    }
}

/// Compares parry2d's overlapping pairs with ours (`contacts`, from a narrow phase of this
/// crate, in pair order) and prints a warning when they disagree on more than a handful of
/// pairs. Pairs that barely touch may fall either way (f32 rounding in two different
/// algorithms: SAT here, GJK/EPA in parry), so a few mismatches are expected. Returns the
/// number of mismatches.
pub fn check_parry_agrees(
    parry: &ParryBatch,
    batch: &NarrowPhaseBatch,
    contacts: &[Contact],
) -> usize {
    let ours: std::collections::HashMap<[u32; 2], f32> = contacts
        .iter()
        .map(|c| ([c.a, c.b], c.manifold.depth))
        .collect();
    let mut mismatches = 0;
    let mut deepest_ours = 0.0f32;
    for &pair in &batch.pairs {
        let theirs = parry.collide(&batch.colliders, pair);
        let depth = ours.get(&pair);
        if theirs != depth.is_some() {
            mismatches += 1;
            deepest_ours = deepest_ours.max(depth.copied().unwrap_or(0.0));
        }
    }
    let handful = 5.max(batch.pairs.len() / 100_000);
    if mismatches > handful {
        eprintln!(
            "WARNING: parry2d and wgpu-sat disagree on {mismatches} of {} pairs (deepest of \
             ours among them: {deepest_ours:e}); expected at most {handful} near-touching pairs",
            batch.pairs.len()
        );
    }
    mismatches
}

/// How a GPU's contacts compare with the CPU twin's, contact by contact in their order.
pub struct GpuAgreement {
    /// Contacts on both sides.
    pub contacts: [usize; 2],
    /// Contacts equal to the last bit.
    pub identical: usize,
    /// Contacts whose pair or feature ids (so point count) differ, or that one side lacks.
    pub features_differ: usize,
    /// The largest difference of a normal, depth or point coordinate among the rest.
    pub max_difference: f32,
}

impl GpuAgreement {
    /// Compares `gpu` with `reference`; both list contacts in ascending pair order.
    pub fn new(gpu: &[Contact], reference: &[Contact]) -> GpuAgreement {
        let mut agreement = GpuAgreement {
            contacts: [gpu.len(), reference.len()],
            identical: 0,
            features_differ: gpu.len().abs_diff(reference.len()),
            max_difference: 0.0,
        };
        for (g, r) in gpu.iter().zip(reference) {
            let (gm, rm) = (&g.manifold, &r.manifold);
            let same_ids = gm
                .points()
                .iter()
                .map(|p| p.id)
                .eq(rm.points().iter().map(|p| p.id));
            if (g.a, g.b) != (r.a, r.b) || !same_ids {
                agreement.features_differ += 1;
            } else if g == r {
                agreement.identical += 1;
            } else {
                let mut d = (gm.normal - rm.normal).abs().max_element();
                d = d.max((gm.depth - rm.depth).abs());
                for (gp, rp) in gm.points().iter().zip(rm.points()) {
                    d = d.max((gp.point - rp.point).abs().max_element());
                    d = d.max((gp.depth - rp.depth).abs());
                }
                agreement.max_difference = agreement.max_difference.max(d);
            }
        }
        agreement
    }

    /// One line for the log.
    pub fn describe(&self) -> String {
        format!(
            "{} of {} contacts identical to the last bit, {} with other pairs or features \
             ({} on the GPU), the rest within {:e}",
            self.identical,
            self.contacts[1],
            self.features_differ,
            self.contacts[0],
            self.max_difference
        )
    }
}

// ---------------------------------------------------------------------------------------
// Moving boxes for the broad phase
// ---------------------------------------------------------------------------------------

/// Frames of the broad-phase workload: the AABBs of `count` colliders of a
/// [`scenes::narrow_phase_batch`] scene (bodies about 1 unit, about 5.5 candidate pairs
/// each), every box circling on a radius of 0.05 units with a period of [`FRAMES`] frames,
/// each at its own phase. A step moves a box about 0.01 units, as a body at 0.6 units per
/// second does at 60 Hz, so a broad phase that keeps state from frame to frame sees
/// realistic coherence; and since the motion is periodic, cycling through the frames never
/// jumps.
pub struct MovingBoxes {
    pub frames: Vec<Vec<Aabb>>,
}

/// Frames per period of [`MovingBoxes`].
pub const FRAMES: usize = 32;

impl MovingBoxes {
    pub fn new(count: usize, seed: u64) -> Self {
        // narrow_phase_batch makes pairs / 5 + pairs / 40 colliders (pairs * 9 / 40):
        // ask for enough pairs to get `count`, and keep the first `count`.
        let batch = scenes::narrow_phase_batch(count * 40 / 9 + 40, seed);
        assert!(batch.colliders.len() >= count);
        let base: Vec<Aabb> = batch.colliders[..count]
            .iter()
            .map(|c| batch.shapes[c.shape as usize].aabb(&c.transform))
            .collect();
        let frames = (0..FRAMES)
            .map(|f| {
                base.iter()
                    .enumerate()
                    .map(|(i, b)| {
                        // A phase per box from its index (golden-ratio spread), so that
                        // neighbours move in different directions.
                        let phase =
                            i as f32 * 2.399_963 + f as f32 * std::f32::consts::TAU / FRAMES as f32;
                        let d = 0.05 * Vec2::from_angle(phase);
                        Aabb::new(b.min + d, b.max + d)
                    })
                    .collect()
            })
            .collect();
        MovingBoxes { frames }
    }

    pub fn len(&self) -> usize {
        self.frames[0].len()
    }

    /// The frames converted once for parry2d.
    pub fn parry_frames(&self) -> Vec<Vec<ParryAabb>> {
        self.frames
            .iter()
            .map(|f| f.iter().map(parry_aabb).collect())
            .collect()
    }
}

/// parry2d's BVH rebuilt from scratch every frame (`Bvh::from_leaves`, binned SAH), then
/// traversed against itself: stateless, like a broad phase without frame coherence.
pub fn parry_bvh_rebuild(
    leaves: &[ParryAabb],
    workspace: &mut BvhWorkspace,
    out: &mut Vec<[u32; 2]>,
) {
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, leaves);
    out.clear();
    bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |a, b| {
        out.push(if a < b { [a, b] } else { [b, a] })
    });
}

/// parry2d's BVH kept from frame to frame, as rapier uses it: update each leaf in place,
/// refit, one incremental optimisation pass, then the self-traversal. The change-detection
/// margin is 0 so that the leaves are the exact boxes and the pair set is comparable with
/// ours (rapier fattens leaves by a margin and reports more pairs).
pub struct ParryBvhRefit {
    bvh: Bvh,
    workspace: BvhWorkspace,
}

impl ParryBvhRefit {
    pub fn new(first: &[ParryAabb]) -> Self {
        ParryBvhRefit {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, first),
            workspace: BvhWorkspace::default(),
        }
    }

    pub fn find_pairs(&mut self, leaves: &[ParryAabb], out: &mut Vec<[u32; 2]>) {
        for (i, &b) in leaves.iter().enumerate() {
            self.bvh.insert_or_update_partially(b, i as u32, 0.0);
        }
        self.bvh.refit(&mut self.workspace);
        self.bvh.optimize_incremental(&mut self.workspace);
        out.clear();
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
                out.push(if a < b { [a, b] } else { [b, a] })
            });
    }
}

/// Panics unless parry2d's pairs (any order) are exactly `ours` (ascending): checked once,
/// outside the timed loops, so that both broad phases are known to do the same job.
pub fn assert_same_pairs(what: &str, ours: &[[u32; 2]], theirs: &[[u32; 2]]) {
    let mut theirs = theirs.to_vec();
    theirs.sort_unstable();
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{what}: sweep-and-prune found {} pairs, parry2d {}",
        ours.len(),
        theirs.len()
    );
    assert!(ours == theirs.as_slice(), "{what}: the pair sets differ");
}

// ---------------------------------------------------------------------------------------
// Worlds
// ---------------------------------------------------------------------------------------

/// Frames after which the top row of [`scenes::pile`] has landed: the time to fall from the
/// top of its grid (rows of 1.1 units in a container about `sqrt(1.1 * bodies)` wide) under
/// gravity 10, plus half a second to settle. From then on the pile's pair count stays
/// about the same (about 2.6 pairs per body).
pub fn pile_warm_frames(bodies: usize) -> usize {
    let width = scenes::pile_width(bodies);
    let columns = ((width / 1.1).floor() as usize).max(1);
    let top = 1.0 + 1.1 * bodies.div_ceil(columns) as f32;
    let seconds = (2.0 * top / 10.0).sqrt() + 0.5;
    (seconds / DT).ceil() as usize
}

/// A world stepped `frames` times with the CPU narrow phase, so that a bench starts from a
/// realistic state (bodies landed and in contact, warm-start caches filled) rather than the
/// scene's initial grid. Sleeping is off: a bench times the step of bodies being simulated,
/// not of an island at rest.
pub fn warm_world(world: wgpu_sat::World, frames: usize) -> wgpu_sat::World {
    warm_world_driven(world, frames, |_, _| {})
}

/// [`warm_world`] with `before_step(world, k)` run before frame `k` (a scene's driver) and
/// once more, with `k = frames`, at the end: the warm world is ready for its next frame.
pub fn warm_world_driven(
    mut world: wgpu_sat::World,
    frames: usize,
    mut before_step: impl FnMut(&mut wgpu_sat::World, usize),
) -> wgpu_sat::World {
    world.set_sleeping(false);
    let mut narrow = wgpu_sat::ParallelCpuNarrowPhase::new();
    for k in 0..frames {
        before_step(&mut world, k);
        world.step(DT, &mut narrow).expect("a scene steps");
    }
    before_step(&mut world, frames);
    world
}

// ---------------------------------------------------------------------------------------
// Fonts and the criterion configuration
// ---------------------------------------------------------------------------------------

/// Where common systems keep a plain sans-serif TrueType font; `WGPU_SAT_FONT` names another.
const FONT_PATHS: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", // Debian, Ubuntu: fonts-dejavu-core
    "/usr/share/fonts/TTF/DejaVuSans.ttf",             // Arch
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf", // Fedora
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a system font as plotters' "sans-serif", once; returns whether there is one.
///
/// Why this is needed: plotters draws text through ab_glyph (pure Rust, no system
/// libraries), which has no fonts of its own. Cargo unifies features, so criterion's own
/// report charts use the same font table: without a font they fail, and the benches then
/// turn criterion's charts off (see [`criterion_config`]).
pub fn register_font() -> bool {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REGISTERED.get_or_init(|| {
        let paths = std::env::var("WGPU_SAT_FONT")
            .into_iter()
            .chain(FONT_PATHS.iter().map(|p| p.to_string()));
        for path in paths {
            if let Ok(bytes) = std::fs::read(&path) {
                // plotters keeps the font for the whole process and wants 'static bytes:
                // leaking one file, once, is exactly that.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font(
                    "sans-serif",
                    plotters::style::FontStyle::Normal,
                    bytes,
                )
                .is_ok()
                {
                    return true;
                }
            }
        }
        false
    })
}

/// The benches' criterion configuration: short defaults, so a whole group runs in minutes on
/// two cores (the command line's --warm-up-time, --measurement-time and --sample-size
/// override them), and criterion's charts only where a font was found.
pub fn criterion_config() -> criterion::Criterion {
    let config = criterion::Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(30);
    if register_font() {
        config
    } else {
        eprintln!(
            "no TrueType font found (install fonts-dejavu-core or set WGPU_SAT_FONT): \
             criterion's charts are off"
        );
        config.without_plots()
    }
}
