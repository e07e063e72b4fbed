//! [`GpuTimeOfImpact`]: the time-of-impact test of `src/toi.rs` as a wgpu compute pass.
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
//! Every buffer grows on demand and is reused, so a warm call creates no buffer. There is no
//! host-encoder path (no prepare, record or deferred readback): each call uploads, dispatches
//! and reads back before it returns, so nothing but the shape table and the buffers outlives
//! a call, and no result can be read against another call's pairs.

use crate::error::Error;
use crate::gpu::layout::{SweptColliderGpu, TimeOfImpactGpu, ToiParamsGpu};
use crate::gpu::plumbing::{
    GrowingBuffer, ShapeTable, compute_pipeline, entire, read_back, storage, uniform,
};
use crate::shape::Shape;
use crate::toi::{SweptCollider, TimeOfImpact, validate_sweeps};

/// The WGSL source of the time-of-impact kernel: the layouts, the transform helpers
/// (`shaders/transform.wgsl`, shared with the narrow phase), then `shaders/toi.wgsl`.
pub const TOI_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/toi.wgsl")
);

/// Invocations per workgroup; must match `@workgroup_size` in `toi.wgsl`.
const WORKGROUP_SIZE: u32 = 64;
const COLLIDER_BYTES: u64 = size_of::<SweptColliderGpu>() as u64;
const PAIR_BYTES: u64 = 8;
const RECORD_BYTES: u64 = size_of::<TimeOfImpactGpu>() as u64;

/// The time-of-impact test on a wgpu device: one compute invocation per pair of swept
/// colliders, with the same answers as [`time_of_impact_pairs`](crate::time_of_impact_pairs)
/// on the CPU (up to rounding; see the GPU tests in `tests/toi.rs`).
///
/// It borrows the host's device and queue (cheap clones of the handles), holds only its
/// pipeline and scratch buffers, and can be dropped at any time.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, GpuTimeOfImpact, Polygon, Shape, Sweep, SweptCollider, Transform};
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
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: ShapeTable,
    colliders: GrowingBuffer,
    pairs: GrowingBuffer,
    results: GrowingBuffer,
    readback: GrowingBuffer,
    /// The swept colliders of the current batch, as uploaded.
    collider_scratch: Vec<SweptColliderGpu>,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    max_binding: u64,
    max_workgroups: u32,
}

impl GpuTimeOfImpact {
    /// Builds the pipeline on the host's device. The driver may finish compiling the WGSL on
    /// the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat toi.wgsl"),
            source: wgpu::ShaderSource::Wgsl(TOI_WGSL.into()),
        });
        // Four storage buffers: the downlevel limit per shader stage.
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat time of impact"),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<ToiParamsGpu>()),
            ],
        });
        let pipeline =
            compute_pipeline(device, &module, &bind_group_layout, "time_of_impact_pairs");
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat toi params"),
            size: size_of::<ToiParamsGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let shapes = ShapeTable::new(device, "wgpu-sat toi shapes");
        let colliders = GrowingBuffer::new(device, "wgpu-sat toi colliders", storage_usage);
        let pairs = GrowingBuffer::new(device, "wgpu-sat toi pairs", storage_usage);
        let results = GrowingBuffer::new(device, "wgpu-sat toi results", storage_usage);
        let readback = GrowingBuffer::new(
            device,
            "wgpu-sat toi readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(error.to_string()));
        }
        let limits = device.limits();
        Ok(GpuTimeOfImpact {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            bind_group_layout,
            bind_group: None,
            params,
            shapes,
            colliders,
            pairs,
            results,
            readback,
            collider_scratch: Vec::new(),
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
        })
    }

    /// The device this runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// How many GPU buffers this has created so far; once warm (after a call with the
    /// largest batch) it stays the same: buffers are reused.
    pub fn buffers_created(&self) -> u64 {
        1 + [
            &self.shapes.buffer,
            &self.colliders,
            &self.pairs,
            &self.results,
            &self.readback,
        ]
        .iter()
        .map(|b| b.created)
        .sum::<u64>()
    }

    /// The most pairs one dispatch takes: the dispatch size limit, and the binding limit of
    /// the pairs and of the result records. Larger batches are split into dispatches of this
    /// size.
    pub fn max_pairs(&self) -> usize {
        let by_dispatch = self.max_workgroups as usize * WORKGROUP_SIZE as usize;
        let by_pairs = (self.max_binding / PAIR_BYTES) as usize;
        let by_results = (self.max_binding / RECORD_BYTES) as usize;
        by_dispatch.min(by_pairs).min(by_results)
    }

    /// Replaces the shape table that [`SweptCollider::shape`] indexes: polygons and circles.
    /// Setting the table it already holds uploads nothing.
    pub fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        let (device, queue) = (&self.device, &self.queue);
        self.shapes
            .set(
                device,
                queue,
                self.max_binding,
                shapes,
                &mut self.bind_group,
            )
            .map(|_| ())
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
        validate_sweeps(self.shapes.shapes().len(), sweeps, pairs)?;
        if pairs.is_empty() {
            return Ok(());
        }
        let max_colliders = (self.max_binding / COLLIDER_BYTES) as usize;
        if sweeps.len() > max_colliders {
            return Err(Error::TooLarge {
                what: "swept colliders",
                count: sweeps.len(),
                max: max_colliders,
            });
        }
        let per_dispatch = self.max_pairs();
        if per_dispatch == 0 {
            // Only on a device whose binding cannot hold one record: nothing to split into.
            return Err(Error::TooLarge {
                what: "time-of-impact pairs",
                count: pairs.len(),
                max: 0,
            });
        }
        out.reserve(pairs.len());
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        // Validated as a whole above, so an error names the pair by its place in `pairs`;
        // then the colliders go up once, and each dispatch uploads only its pairs.
        let mut result = self.begin(sweeps, per_dispatch.min(pairs.len()));
        for chunk in pairs.chunks(per_dispatch) {
            if result.is_err() {
                break;
            }
            result = self.run_dispatch(chunk, out);
        }
        if let Some(error) = pollster::block_on(scope.pop()) {
            result = Err(Error::Device(error.to_string()));
        }
        if result.is_err() {
            // Nothing half-done survives: rebuild the bind group on the next call.
            self.bind_group = None;
            out.clear();
        }
        result
    }

    /// Makes room for the swept colliders and for dispatches of up to `per_dispatch` pairs,
    /// rebuilds the bind group if a buffer was replaced, and uploads the colliders.
    fn begin(&mut self, sweeps: &[SweptCollider], per_dispatch: usize) -> Result<(), Error> {
        let cap = self.max_binding;
        let record_bytes = RECORD_BYTES * per_dispatch as u64;
        let mut replaced =
            self.colliders
                .reserve(&self.device, COLLIDER_BYTES * sweeps.len() as u64, cap);
        replaced |= self
            .pairs
            .reserve(&self.device, PAIR_BYTES * per_dispatch as u64, cap);
        replaced |= self.results.reserve(&self.device, record_bytes, cap);
        self.readback.reserve(&self.device, record_bytes, cap);
        if replaced || self.bind_group.is_none() {
            self.bind_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-sat time of impact"),
                layout: &self.bind_group_layout,
                entries: &[
                    entire(0, &self.shapes.buffer.buffer),
                    entire(1, &self.colliders.buffer),
                    entire(2, &self.pairs.buffer),
                    entire(3, &self.results.buffer),
                    entire(4, &self.params),
                ],
            }));
        }
        self.collider_scratch.clear();
        self.collider_scratch
            .extend(sweeps.iter().map(SweptColliderGpu::from));
        self.queue.write_buffer(
            &self.colliders.buffer,
            0,
            bytemuck::cast_slice(&self.collider_scratch),
        );
        Ok(())
    }

    /// Uploads the pairs of one dispatch, runs it, and appends its results to `out`: the
    /// dispatches run in pair order, so `out` stays in pair order.
    fn run_dispatch(
        &mut self,
        pairs: &[[u32; 2]],
        out: &mut Vec<Option<TimeOfImpact>>,
    ) -> Result<(), Error> {
        let Some(bind_group) = &self.bind_group else {
            return Err(Error::Device(
                "the time-of-impact pass has no bind group".into(),
            ));
        };
        let record_bytes = RECORD_BYTES * pairs.len() as u64;
        self.queue
            .write_buffer(&self.pairs.buffer, 0, bytemuck::cast_slice(pairs));
        let params = ToiParamsGpu {
            pair_count: pairs.len() as u32,
            _pad: [0; 3],
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));

        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat time_of_impact_pairs"),
            });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sat time_of_impact_pairs"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups((pairs.len() as u32).div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        encoder.copy_buffer_to_buffer(
            &self.results.buffer,
            0,
            &self.readback.buffer,
            0,
            record_bytes,
        );
        self.queue.submit([encoder.finish()]);

        read_back(&self.device, &self.readback.buffer, record_bytes, |view| {
            out.extend(
                view.chunks_exact(RECORD_BYTES as usize)
                    .map(bytemuck::pod_read_unaligned::<TimeOfImpactGpu>)
                    .map(|record| record.time_of_impact()),
            );
        })?;
        Ok(())
    }
}
