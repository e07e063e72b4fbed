//! [`GpuRayCast`]: the ray casts of `src/query/ray.rs` as a wgpu compute pass, for batches of
//! (ray, collider) pairs.
//!
//! ```text
//! set_shape_table: shape table -> `shapes` storage buffer (only when it changed)
//! cast_ray_pairs:  validate the batch (same rules and errors as the CPU twin)
//!                  collider poses (16 B each) -> `poses`, once per call
//!                  per run of pairs that fits one dispatch (`max_pairs`), in order:
//!                      pairs, each with its ray inline (24 B) -> `ray_pairs`
//!                      one invocation per pair, each writing a fixed 16-byte record at
//!                      its pair's index (fraction NO_RAY_HIT on a miss)
//!                      copy the records to a mapped buffer, append them in pair order
//! ```
//!
//! A [`PairKernel`] run by `plumbing.rs`'s runner, as `GpuTimeOfImpact` is, for the same
//! reasons: a fixed record per pair keeps the results in pair order with no atomic, and the
//! ray's data rides in its pair so that the pass binds four storage buffers, the downlevel
//! limit. The host computes each hit's point (`origin + fraction * translation`), as
//! `cast_ray` does.

use crate::collision::narrow_phase::Collider;
use crate::error::Error;
use crate::gpu::layout::{PoseGpu, RayHitGpu, RayPairGpu, RayParamsGpu};
use crate::gpu::plumbing::{PairKernel, PairRunner};
use crate::query::ray::{Ray, RayHit, validate_rays};
use crate::shapes::shape::Shape;

/// The WGSL source of the ray kernel: the layouts, the transform helpers
/// (`shaders/transform.wgsl`), then `shaders/ray.wgsl`.
pub const RAY_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/ray.wgsl")
);

/// `ray.wgsl`'s bindings and names, for the pair-kernel runner.
struct RayKernel;

impl PairKernel for RayKernel {
    type Item = PoseGpu;
    type Pair = RayPairGpu;
    type Record = RayHitGpu;
    type Params = RayParamsGpu;
    const SOURCE: &'static str = RAY_WGSL;
    const WORKGROUP_SIZE: u32 = 64;
    const ENTRY_POINT: &'static str = "cast_ray_pairs";
    const NAME: &'static str = "ray";
    const ITEMS: &'static str = "ray batch colliders";
    const PAIRS: &'static str = "ray pairs";

    fn params(pair_count: u32) -> RayParamsGpu {
        RayParamsGpu {
            pair_count,
            _pad: [0; 3],
        }
    }
}

/// Ray casts on a wgpu device: one compute invocation per (ray, collider) pair, with the
/// same answers as [`cast_ray_pairs`](crate::query::cast_ray_pairs) on the CPU (up to rounding;
/// see `tests/gpu/gpu_rays.rs`).
///
/// It borrows the host's device and queue (cheap clones of the handles), holds only its
/// pipeline and scratch buffers, and can be dropped at any time.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, Collider, gpu::GpuRayCast, Polygon, query::Ray, Shape, Transform};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut rays = GpuRayCast::new(&device, &queue)?;
/// rays.set_shape_table(&[Shape::from(Polygon::rectangle(1.0, 1.0))])?;
/// let colliders = [Collider { shape: 0, transform: Transform::new(Vec2::new(5.0, 0.0), 0.0) }];
/// let fan: Vec<Ray> = (0..8)
///     .map(|k| Ray { origin: Vec2::ZERO, translation: Vec2::from_angle(k as f32 * 0.1 - 0.4) * 10.0 })
///     .collect();
/// let pairs: Vec<[u32; 2]> = (0..8).map(|k| [k, 0]).collect();
/// let hits = rays.cast_ray_pairs(&colliders, &fan, &pairs)?;
/// assert!(hits[4].is_some_and(|h| (h.fraction - 0.4).abs() < 1e-5));
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuRayCast {
    runner: PairRunner<RayKernel>,
}

impl GpuRayCast {
    /// Builds the pipeline on the host's device. The driver may finish compiling the WGSL on
    /// the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let runner = PairRunner::new(device, queue)?;
        Ok(GpuRayCast { runner })
    }

    /// The device this runs on.
    pub fn device(&self) -> &wgpu::Device {
        self.runner.device()
    }

    /// How many GPU buffers this has created so far; once warm (after a call with the
    /// largest batch) it stays the same: buffers are reused.
    pub fn buffers_created(&self) -> u64 {
        self.runner.buffers_created()
    }

    /// The most pairs one dispatch takes: the dispatch size limit, and the binding limit of
    /// the pairs and of the result records. Larger batches run as several dispatches.
    pub fn max_pairs(&self) -> usize {
        self.runner.max_pairs()
    }

    /// Replaces the shape table that [`Collider::shape`] indexes: shapes of every kind (a
    /// chain link is cast as its plain segment, from either side, as
    /// [`cast_ray`](crate::cast_ray) casts it). Setting the table it already holds uploads
    /// nothing.
    pub fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.runner.set_shape_table(shapes)
    }

    /// The hit of each `(ray, collider)` pair of `pairs` (indices into `rays` and
    /// `colliders`), in pair order (`None` for a miss), as
    /// [`cast_ray`](crate::cast_ray) defines it. A batch of more than
    /// [`max_pairs`](Self::max_pairs) pairs runs as several dispatches.
    ///
    /// Errors, naming the item, for a shape index out of range, a non-finite pose or ray, or
    /// a pair index out of range; and when the poses alone exceed the device's storage
    /// binding limit. It stays usable.
    pub fn cast_ray_pairs(
        &mut self,
        colliders: &[Collider],
        rays: &[Ray],
        pairs: &[[u32; 2]],
    ) -> Result<Vec<Option<RayHit>>, Error> {
        let mut out = Vec::new();
        self.cast_ray_pairs_into(colliders, rays, pairs, &mut out)?;
        Ok(out)
    }

    /// [`cast_ray_pairs`](Self::cast_ray_pairs) into a vector the caller keeps (replaced by
    /// the results; empty after an error), so that a warm caller allocates nothing.
    pub fn cast_ray_pairs_into(
        &mut self,
        colliders: &[Collider],
        rays: &[Ray],
        pairs: &[[u32; 2]],
        out: &mut Vec<Option<RayHit>>,
    ) -> Result<(), Error> {
        out.clear();
        validate_rays(self.runner.shapes().len(), colliders, rays, pairs)?;
        out.reserve(pairs.len());
        let result = self.runner.run(
            colliders,
            |c| PoseGpu::from(&c.transform),
            pairs,
            |[r, c]| {
                let ray = &rays[r as usize];
                RayPairGpu {
                    origin: ray.origin.to_array(),
                    translation: ray.translation.to_array(),
                    collider: c,
                    shape: colliders[c as usize].shape,
                }
            },
            // The host computes each hit's point, as `cast_ray` does.
            |[r, _], record| {
                let ray = &rays[r as usize];
                out.push(record.hit(ray.origin, ray.translation));
            },
        );
        if result.is_err() {
            out.clear();
        }
        result
    }
}
