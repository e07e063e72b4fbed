//! [`GpuTimeOfImpact`]: the time-of-impact test of `src/collision/toi/` as a wgpu compute pass.
//!
//! ```text
//! set_shape_table:      shape table -> `shapes` storage buffer (only when it changed)
//! time_of_impact_pairs: validate the batch (same rules and errors as the CPU twin)
//!                       swept colliders (40 B each) -> `colliders`, once per call
//!                       per run of pairs that fits one dispatch (`max_pairs`), in order:
//!                           pairs (8 B each) -> `pairs`
//!                           one invocation per pair, each writing a fixed 16-byte record
//!                           at its pair's index (t = NO_HIT when the pair misses)
//!                           copy the records to a mapped buffer, append them in pair order
//! ```
//!
//! Why this simple shape, unlike the narrow phase's compaction: time-of-impact batches are
//! small (only fast bodies are swept, against what the broad phase finds along their path),
//! so a fixed record per pair costs a few kilobytes of readback at most, needs no atomic and
//! no reordering, and the results are already in pair order.
//!
//! The pass is a [`PairKernel`] run by `plumbing.rs`'s runner, as `GpuRayCast`'s is: every
//! buffer grows on demand and is reused, so a warm call creates no buffer. There is no
//! host-encoder path (no prepare, record or deferred readback): each call uploads, dispatches
//! and reads back before it returns, so nothing but the shape table and the buffers outlives
//! a call, and no result can be read against another call's pairs.

use crate::collision::toi::{SweptCollider, TimeOfImpact, validate_sweeps};
use crate::error::Error;
use crate::gpu::layout::{SweptColliderGpu, TimeOfImpactGpu, ToiParamsGpu};
use crate::gpu::plumbing::{PairKernel, PairRunner};
use crate::shapes::shape::Shape;

/// The WGSL source of the time-of-impact kernel: the layouts, the transform helpers
/// (`shaders/transform.wgsl`, shared with the narrow phase), the host's sine and cosine
/// (`u64.wgsl`, `soft_f64.wgsl`, `sin_cos.wgsl`), the narrow phase's pair tests
/// (`sat.wgsl`, `sat_circle.wgsl`, `sat_rounded.wgsl`, which bind nothing: the distance of
/// a pair with a capsule, a segment, a rounded polygon or a chain link is the rounded
/// narrow phase's manifold, as on the CPU), then `shaders/toi.wgsl` (the test, binding
/// nothing) and `toi_pass.wgsl` (the batch's bindings and entry point).
pub const TOI_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/u64.wgsl"),
    include_str!("../../shaders/soft_f64.wgsl"),
    include_str!("../../shaders/sin_cos.wgsl"),
    include_str!("../../shaders/sat.wgsl"),
    include_str!("../../shaders/sat_circle.wgsl"),
    include_str!("../../shaders/sat_rounded.wgsl"),
    include_str!("../../shaders/toi.wgsl"),
    include_str!("../../shaders/toi_pass.wgsl")
);

/// `toi.wgsl`'s bindings and names, for the pair-kernel runner.
struct ToiKernel;

impl PairKernel for ToiKernel {
    type Item = SweptColliderGpu;
    type Pair = [u32; 2];
    type Record = TimeOfImpactGpu;
    type Params = ToiParamsGpu;
    const SOURCE: &'static str = TOI_WGSL;
    const WORKGROUP_SIZE: u32 = 64;
    const ENTRY_POINT: &'static str = "time_of_impact_pairs";
    const NAME: &'static str = "toi";
    const ITEMS: &'static str = "swept colliders";
    const PAIRS: &'static str = "time-of-impact pairs";

    fn params(pair_count: u32) -> ToiParamsGpu {
        ToiParamsGpu {
            pair_count,
            never: 0,
            _pad: [0; 2],
        }
    }
}

/// The time-of-impact test on a wgpu device: one compute invocation per pair of swept
/// colliders, with the same answers as [`time_of_impact_pairs`](crate::collision::toi::time_of_impact_pairs)
/// on the CPU: to the bit on adapters that round as the host does (lavapipe), to rounding
/// elsewhere (docs/reliability.md; the GPU tests in `tests/cpu/toi/gpu.rs`).
///
/// It borrows the host's device and queue (cheap clones of the handles), holds only its
/// pipeline and scratch buffers, and can be dropped at any time.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, gpu::GpuTimeOfImpact, Polygon, Shape, Sweep, collision::toi::SweptCollider, Transform};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut toi = GpuTimeOfImpact::new(&device, &queue)?;
/// toi.set_shape_table(&[
///     Shape::from(Polygon::rectangle(0.1, 2.0)),
///     Shape::from(Polygon::rectangle(0.05, 0.05)),
/// ])?;
/// let sweeps = [
///     SweptCollider { shape: 0, sweep: Sweep::fixed(&Transform::IDENTITY) },
///     SweptCollider {
///         shape: 1,
///         sweep: Sweep::from_velocity(
///             &Transform::new(Vec2::new(-2.0, 0.0), 0.0), Vec2::ZERO, Vec2::new(300.0, 0.0), 0.0, 1.0 / 60.0,
///         ),
///     },
/// ];
/// let hits = toi.time_of_impact_pairs(&sweeps, &[[0, 1]])?;
/// assert!(hits[0].is_some());
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuTimeOfImpact {
    runner: PairRunner<ToiKernel>,
}

impl GpuTimeOfImpact {
    /// Builds the pipeline on the host's device. The driver may finish compiling the WGSL on
    /// the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let runner = PairRunner::new(device, queue)?;
        Ok(GpuTimeOfImpact { runner })
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
    /// the pairs and of the result records. Larger batches are split into dispatches of this
    /// size.
    pub fn max_pairs(&self) -> usize {
        self.runner.max_pairs()
    }

    /// Replaces the shape table that [`SweptCollider::shape`] indexes: shapes of every kind
    /// (a chain link is swept as its plain segment, as
    /// [`time_of_impact`](crate::time_of_impact) sweeps it). Setting the table it already
    /// holds uploads nothing.
    pub fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.runner.set_shape_table(shapes)
    }

    /// The time of impact of each pair of swept colliders, in the order of `pairs` (`None`
    /// for a pair that stays apart), as [`time_of_impact`](crate::time_of_impact) defines
    /// it. Each pair holds two indices into `sweeps`; the normal points from the first to the
    /// second. A batch of more than [`max_pairs`](Self::max_pairs) pairs runs as several
    /// dispatches, one after the other.
    ///
    /// Errors, naming the item, for a shape index out of range, a non-finite sweep, a pair
    /// index out of range or a pair of a collider with itself; and when the swept colliders
    /// alone exceed the device's storage binding limit (they are bound whole to every
    /// dispatch, so they cannot be split). It stays usable.
    pub fn time_of_impact_pairs(
        &mut self,
        sweeps: &[SweptCollider],
        pairs: &[[u32; 2]],
    ) -> Result<Vec<Option<TimeOfImpact>>, Error> {
        let mut out = Vec::new();
        self.time_of_impact_pairs_into(sweeps, pairs, &mut out)?;
        Ok(out)
    }

    /// [`time_of_impact_pairs`](Self::time_of_impact_pairs) into a vector the caller keeps
    /// (replaced by the results; empty after an error), so that a warm caller allocates
    /// nothing.
    pub fn time_of_impact_pairs_into(
        &mut self,
        sweeps: &[SweptCollider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Option<TimeOfImpact>>,
    ) -> Result<(), Error> {
        out.clear();
        // Validated as a whole first, so an error names the pair by its place in `pairs`;
        // then the colliders go up once, and each dispatch uploads only its pairs.
        validate_sweeps(self.runner.shapes().len(), sweeps, pairs)?;
        out.reserve(pairs.len());
        let result = self.runner.run(
            sweeps,
            |s| SweptColliderGpu::from(s),
            pairs,
            |pair| pair,
            |_, record| out.push(record.time_of_impact()),
        );
        if result.is_err() {
            out.clear();
        }
        result
    }
}
