//! [`GpuRayCast`]: the ray casts of `src/ray.rs` as a wgpu compute pass, for batches of
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
//! The shape of `GpuTimeOfImpact`, for the same reasons: a fixed record per pair keeps the
//! results in pair order with no atomic, and the ray's data rides in its pair so that the
//! pass binds four storage buffers, the downlevel limit. The host computes each hit's point
//! (`origin + fraction * translation`), as `cast_ray` does.

use crate::error::Error;
use crate::gpu::layout::{PoseGpu, RayHitGpu, RayPairGpu, RayParamsGpu};
use crate::gpu::plumbing::{
    GrowingBuffer, ShapeTable, compute_pipeline, entire, read_back, storage, uniform,
};
use crate::narrow_phase::Collider;
use crate::ray::{Ray, RayHit, validate_rays};
use crate::shape::Shape;

/// The WGSL source of the ray kernel: the layouts, the transform helpers
/// (`shaders/transform.wgsl`), then `shaders/ray.wgsl`.
pub const RAY_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/ray.wgsl")
);

/// Invocations per workgroup; must match `@workgroup_size` in `ray.wgsl`.
const WORKGROUP_SIZE: u32 = 64;
const POSE_BYTES: u64 = size_of::<PoseGpu>() as u64;
const PAIR_BYTES: u64 = size_of::<RayPairGpu>() as u64;
const RECORD_BYTES: u64 = size_of::<RayHitGpu>() as u64;

/// Ray casts on a wgpu device: one compute invocation per (ray, collider) pair, with the
/// same answers as [`cast_ray_pairs`](crate::cast_ray_pairs) on the CPU (up to rounding;
/// see `tests/gpu_rays.rs`).
///
/// It borrows the host's device and queue (cheap clones of the handles), holds only its
/// pipeline and scratch buffers, and can be dropped at any time.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, Collider, GpuRayCast, Polygon, Ray, Shape, Transform};
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
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: ShapeTable,
    poses: GrowingBuffer,
    pairs: GrowingBuffer,
    results: GrowingBuffer,
    readback: GrowingBuffer,
    /// The current batch's poses and pairs, as uploaded.
    pose_scratch: Vec<PoseGpu>,
    pair_scratch: Vec<RayPairGpu>,
    /// The largest storage binding (and buffer) the device allows, in bytes.
    max_binding: u64,
    max_workgroups: u32,
}

impl GpuRayCast {
    /// Builds the pipeline on the host's device. The driver may finish compiling the WGSL on
    /// the first dispatch.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat ray.wgsl"),
            source: wgpu::ShaderSource::Wgsl(RAY_WGSL.into()),
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat ray casts"),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                uniform(4, size_of::<RayParamsGpu>()),
            ],
        });
        let pipeline = compute_pipeline(device, &module, &bind_group_layout, "cast_ray_pairs");
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat ray params"),
            size: size_of::<RayParamsGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let shapes = ShapeTable::new(device, "wgpu-sat ray shapes");
        let poses = GrowingBuffer::new(device, "wgpu-sat ray poses", storage_usage);
        let pairs = GrowingBuffer::new(device, "wgpu-sat ray pairs", storage_usage);
        let results = GrowingBuffer::new(device, "wgpu-sat ray results", storage_usage);
        let readback = GrowingBuffer::new(
            device,
            "wgpu-sat ray readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(error.to_string()));
        }
        let limits = device.limits();
        Ok(GpuRayCast {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            bind_group_layout,
            bind_group: None,
            params,
            shapes,
            poses,
            pairs,
            results,
            readback,
            pose_scratch: Vec::new(),
            pair_scratch: Vec::new(),
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
            &self.poses,
            &self.pairs,
            &self.results,
            &self.readback,
        ]
        .iter()
        .map(|b| b.created)
        .sum::<u64>()
    }

    /// The most pairs one dispatch takes: the dispatch size limit, and the binding limit of
    /// the pairs and of the result records. Larger batches run as several dispatches.
    pub fn max_pairs(&self) -> usize {
        let by_dispatch = self.max_workgroups as usize * WORKGROUP_SIZE as usize;
        let by_pairs = (self.max_binding / PAIR_BYTES) as usize;
        let by_results = (self.max_binding / RECORD_BYTES) as usize;
        by_dispatch.min(by_pairs).min(by_results)
    }

    /// Replaces the shape table that [`Collider::shape`] indexes: polygons and circles.
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
        validate_rays(self.shapes.shapes().len(), colliders, rays, pairs)?;
        if pairs.is_empty() {
            return Ok(());
        }
        let max_poses = (self.max_binding / POSE_BYTES) as usize;
        if colliders.len() > max_poses {
            return Err(Error::TooLarge {
                what: "ray batch colliders",
                count: colliders.len(),
                max: max_poses,
            });
        }
        let per_dispatch = self.max_pairs();
        if per_dispatch == 0 {
            return Err(Error::TooLarge {
                what: "ray pairs",
                count: pairs.len(),
                max: 0,
            });
        }
        out.reserve(pairs.len());
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.begin(colliders, per_dispatch.min(pairs.len()));
        let mut result = Ok(());
        for chunk in pairs.chunks(per_dispatch) {
            result = self.run_dispatch(colliders, rays, chunk, out);
            if result.is_err() {
                break;
            }
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

    /// Makes room for the poses and for dispatches of up to `per_dispatch` pairs, rebuilds
    /// the bind group if a buffer was replaced, and uploads the poses.
    fn begin(&mut self, colliders: &[Collider], per_dispatch: usize) {
        let cap = self.max_binding;
        let record_bytes = RECORD_BYTES * per_dispatch as u64;
        let mut replaced =
            self.poses
                .reserve(&self.device, POSE_BYTES * colliders.len() as u64, cap);
        replaced |= self
            .pairs
            .reserve(&self.device, PAIR_BYTES * per_dispatch as u64, cap);
        replaced |= self.results.reserve(&self.device, record_bytes, cap);
        self.readback.reserve(&self.device, record_bytes, cap);
        if replaced || self.bind_group.is_none() {
            self.bind_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-sat ray casts"),
                layout: &self.bind_group_layout,
                entries: &[
                    entire(0, &self.shapes.buffer.buffer),
                    entire(1, &self.poses.buffer),
                    entire(2, &self.pairs.buffer),
                    entire(3, &self.results.buffer),
                    entire(4, &self.params),
                ],
            }));
        }
        self.pose_scratch.clear();
        self.pose_scratch
            .extend(colliders.iter().map(|c| PoseGpu::from(&c.transform)));
        self.queue.write_buffer(
            &self.poses.buffer,
            0,
            bytemuck::cast_slice(&self.pose_scratch),
        );
    }

    /// Uploads the pairs of one dispatch, runs it, and appends its results to `out` (in
    /// pair order), each hit's point computed from its ray.
    fn run_dispatch(
        &mut self,
        colliders: &[Collider],
        rays: &[Ray],
        pairs: &[[u32; 2]],
        out: &mut Vec<Option<RayHit>>,
    ) -> Result<(), Error> {
        let Some(bind_group) = &self.bind_group else {
            return Err(Error::Device("the ray pass has no bind group".into()));
        };
        self.pair_scratch.clear();
        self.pair_scratch.extend(pairs.iter().map(|&[r, c]| {
            let ray = &rays[r as usize];
            RayPairGpu {
                origin: ray.origin.to_array(),
                translation: ray.translation.to_array(),
                collider: c,
                shape: colliders[c as usize].shape,
            }
        }));
        self.queue.write_buffer(
            &self.pairs.buffer,
            0,
            bytemuck::cast_slice(&self.pair_scratch),
        );
        let params = RayParamsGpu {
            pair_count: pairs.len() as u32,
            _pad: [0; 3],
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));

        let record_bytes = RECORD_BYTES * pairs.len() as u64;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat cast_ray_pairs"),
            });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sat cast_ray_pairs"),
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
            let records = view
                .chunks_exact(RECORD_BYTES as usize)
                .map(bytemuck::pod_read_unaligned::<RayHitGpu>);
            out.extend(records.zip(pairs).map(|(record, &[r, _])| {
                let ray = &rays[r as usize];
                record.hit(ray.origin, ray.translation)
            }));
        })?;
        Ok(())
    }
}
