//! The GPU world's continuous stage on the device: `shaders/continuous.wgsl`, the twin of
//! the host's (`dynamics/continuous.rs`), run in the solver's submit, held to the host's by
//! a hash of what each moved.
//!
//! ```text
//! prepare(world), before the step: whether the device runs the stage this step (the
//!     world's continuous collision on, no bullet, `enabled`, every binding within the
//!     device's binding size); the stage's records up where
//!     they changed (ResidentList): the bodies' (32 bytes a body), the colliders' as pieces
//!     (48 bytes), the static obstacles (80 bytes a position of the static list, sent when
//!     its revision moves) and the shape table with each shape's core
//! the solver's submit (solver/): record_start first (the poses the step starts from);
//!     after the solver's passes the states and poses are copied to the readback (the
//!     host's twin sweeps from them), then sweep_bodies, earliest_hits, stop_at_impacts,
//!     apply_impacts and hash_moved, then the transforms are written from the poses they
//!     leave; the hash comes back with the step's results (16 bytes)
//! check(world), after the host's continuous stage: the host's hash of the bodies it moved
//!     (their poses, velocities and count) against the device's: the same, and the device
//!     holds the host's records (nothing goes up for them); else its states and poses are
//!     sent whole at the next step, and the transforms now
//! ```
//!
//! Why the same bits: every kernel is its host function's twin operation for operation
//! (toi.wgsl's time of impact, sin_cos.wgsl's rotations and soft_f64.wgsl's angle give
//! the host's bits on lavapipe), the obstacles are visited in the static list's order and a
//! later hit replaces an earlier one only when strictly earlier, as the host's scan does;
//! with no bullet an impact changes its own body alone.

pub(crate) mod layout;

use layout::{
    ContinuousBodyGpu, ContinuousColliderGpu, ContinuousParamsGpu, SWEPT_BODY_BYTES,
    StaticObstacleGpu,
};

use crate::gpu::layout::ShapeGpu;
use crate::gpu::plan::{Kernel, KernelMaker, Plan, RO, RW};
use crate::gpu::plumbing::GrowingBuffer;
use crate::gpu::world::resident::ResidentList;
use crate::shapes::shape::Shape;
use crate::world::World;
use crate::world::gpu_continuous::continuous_shapes;

/// The WGSL of the continuous stage: the layouts, the transform helpers, the box hash, the
/// host's angles (`u64.wgsl`, `soft_f64.wgsl`, `sin_cos.wgsl`), the narrow phase's pair
/// tests, the time of impact (`toi.wgsl`), then `shaders/continuous.wgsl`.
pub const CONTINUOUS_WGSL: &str = concat!(
    include_str!("../../../../shaders/layout.wgsl"),
    include_str!("../../../../shaders/transform.wgsl"),
    include_str!("../../../../shaders/box_hash.wgsl"),
    include_str!("../../../../shaders/u64.wgsl"),
    include_str!("../../../../shaders/soft_f64.wgsl"),
    include_str!("../../../../shaders/sin_cos.wgsl"),
    include_str!("../../../../shaders/sat.wgsl"),
    include_str!("../../../../shaders/sat_circle.wgsl"),
    include_str!("../../../../shaders/sat_rounded.wgsl"),
    include_str!("../../../../shaders/toi.wgsl"),
    include_str!("../../../../shaders/continuous.wgsl")
);

/// The bindings, as `continuous.wgsl` numbers them, and the uniform's.
const SWEEPS: u32 = 0;
const BODIES: u32 = 1;
const POSES: u32 = 2;
const TURNED: u32 = 3;
const PIECES: u32 = 4;
const OBSTACLES: u32 = 5;
const SHAPES: u32 = 6;
const STATES: u32 = 7;
const INFOS: u32 = 8;
const HASH: u32 = 9;
const PARAMS: (u32, usize) = (10, size_of::<ContinuousParamsGpu>());
/// Invocations per workgroup, as the kernels declare.
const WORKGROUP: u32 = 64;
/// Bytes of the hash read back: the sum, the count, the poison flag and a spare word.
pub(super) const HASH_BYTES: u64 = 16;

/// The stage's pipelines.
struct Kernels {
    record_start: Kernel,
    sweep_bodies: Kernel,
    earliest_hits: Kernel,
    stop_at_impacts: Kernel,
    apply_impacts: Kernel,
    hash_moved: Kernel,
}

/// The solver's buffers the stage reads and writes.
pub(super) struct SolverBuffers<'a> {
    pub(super) poses: &'a wgpu::Buffer,
    pub(super) turned: &'a wgpu::Buffer,
    pub(super) states: &'a wgpu::Buffer,
    pub(super) infos: &'a wgpu::Buffer,
}

/// The continuous stage's kernels, buffers and counts (see the module header).
pub(crate) struct GpuContinuous {
    kernels: Kernels,
    bodies: ResidentList<ContinuousBodyGpu>,
    pieces: ResidentList<ContinuousColliderGpu>,
    obstacles: ResidentList<StaticObstacleGpu>,
    shapes: ResidentList<ShapeGpu>,
    sweeps: GrowingBuffer,
    pub(super) hash: wgpu::Buffer,
    /// Host staging, and what the obstacles and the shapes were last made from.
    body_scratch: Vec<ContinuousBodyGpu>,
    piece_scratch: Vec<ContinuousColliderGpu>,
    obstacle_scratch: Vec<StaticObstacleGpu>,
    shape_scratch: Vec<ShapeGpu>,
    obstacles_at: Option<u64>,
    shapes_of: Vec<Shape>,
    /// This step: its uniform, when the device runs the stage; the bytes its records took
    /// up; the hash it read back.
    params: Option<ContinuousParamsGpu>,
    pub(super) sent: u64,
    pub(super) device_hash: Option<[u32; 4]>,
    /// Whether steps may run the stage here (`GpuWorld::set_continuous_on_device`).
    pub(crate) enabled: bool,
    /// Steps whose stage ran here and matched the host's, and steps swept by the host alone;
    /// steps whose hash did not match.
    pub(crate) steps: [u64; 2],
    pub(crate) misses: u64,
}

impl GpuContinuous {
    pub(super) fn new(device: &wgpu::Device) -> GpuContinuous {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| GrowingBuffer::new(device, format!("wgpu-sat {what}"), storage);
        // From 128: the solver's pass holds its own (from 0) and the colouring's (from 64).
        let make = KernelMaker::new(device, 128);
        let module = make.module("continuous", CONTINUOUS_WGSL);
        let kernel =
            |entry, bindings: &[(u32, bool)]| make.kernel(&module, entry, bindings, PARAMS);
        GpuContinuous {
            kernels: Kernels {
                record_start: kernel("record_start", &[(SWEEPS, RW), (POSES, RW)]),
                sweep_bodies: kernel(
                    "sweep_bodies",
                    &[(SWEEPS, RW), (BODIES, RO), (POSES, RW), (TURNED, RO)],
                ),
                earliest_hits: kernel(
                    "earliest_hits",
                    &[(SWEEPS, RW), (PIECES, RO), (OBSTACLES, RO), (SHAPES, RO)],
                ),
                stop_at_impacts: kernel(
                    "stop_at_impacts",
                    &[(SWEEPS, RW), (OBSTACLES, RO), (SHAPES, RO), (POSES, RW)],
                ),
                apply_impacts: kernel(
                    "apply_impacts",
                    &[(SWEEPS, RW), (STATES, RW), (POSES, RW), (INFOS, RO)],
                ),
                hash_moved: kernel(
                    "hash_moved",
                    &[(SWEEPS, RW), (POSES, RW), (STATES, RW), (HASH, RW)],
                ),
            },
            bodies: ResidentList::new(buffer("continuous bodies")),
            pieces: ResidentList::new(buffer("continuous pieces")),
            obstacles: ResidentList::new(buffer("static obstacles")),
            shapes: ResidentList::new(buffer("continuous shapes")),
            sweeps: buffer("swept bodies"),
            hash: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat moved bodies' hash"),
                size: HASH_BYTES,
                usage: storage,
                mapped_at_creation: false,
            }),
            body_scratch: Vec::new(),
            piece_scratch: Vec::new(),
            obstacle_scratch: Vec::new(),
            shape_scratch: Vec::new(),
            obstacles_at: None,
            shapes_of: Vec::new(),
            params: None,
            sent: 0,
            device_hash: None,
            enabled: true,
            steps: [0; 2],
            misses: 0,
        }
    }

    /// Decides whether the next step runs the stage on the device, and sends its records
    /// where they changed. Returns the bytes sent.
    pub(in crate::gpu::world) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
    ) -> u64 {
        self.device_hash = None;
        let bodies = world.body_transforms_len();
        self.params = None;
        if !(self.enabled && world.continuous_on_device()) || bodies == 0 {
            return 0;
        }
        world.continuous_bodies(&mut self.body_scratch);
        world.continuous_pieces(&mut self.piece_scratch);
        if self.obstacles_at != Some(world.static_revision()) {
            world.static_obstacles(&mut self.obstacle_scratch);
            self.obstacles_at = Some(world.static_revision());
        }
        if self.shapes_of != world.shape_list() {
            self.shapes_of.clear();
            self.shapes_of.extend_from_slice(world.shape_list());
            continuous_shapes(&self.shapes_of, &mut self.shape_scratch);
        }
        // Every binding must fit the device's binding size (a device of small bindings
        // sweeps on the host alone).
        let cap = device.limits().max_storage_buffer_binding_size;
        let sizes = [
            bodies * SWEPT_BODY_BYTES,
            size_of_val(self.piece_scratch.as_slice()),
            size_of_val(self.obstacle_scratch.as_slice()),
            size_of_val(self.shape_scratch.as_slice()),
        ];
        if sizes.iter().any(|&bytes| bytes as u64 > cap) {
            return 0;
        }
        let mut sent = self.bodies.write(device, queue, &self.body_scratch, cap);
        sent += (self.pieces).write(device, queue, &self.piece_scratch, cap);
        sent += (self.obstacles).write(device, queue, &self.obstacle_scratch, cap);
        sent += (self.shapes).write(device, queue, &self.shape_scratch, cap);
        self.sweeps
            .reserve(device, (bodies * SWEPT_BODY_BYTES) as u64, cap);
        self.params = Some(ContinuousParamsGpu {
            bodies: bodies as u32,
            statics: self.obstacle_scratch.len() as u32,
            shapes: self.shapes_of.len() as u32,
            never: 0,
        });
        sent
    }

    /// Whether this step runs the stage on the device.
    pub(super) fn here(&self) -> bool {
        self.params.is_some()
    }

    /// Pushes `record_start` (the step's start poses), first in the solver's plan.
    pub(super) fn push_start<'a>(&'a self, plan: &mut Plan<'a>, poses: &'a wgpu::Buffer) {
        if let Some(params) = self.params {
            let bindings = [(SWEEPS, &self.sweeps.buffer), (POSES, poses)];
            plan.push(
                &self.kernels.record_start,
                &bindings,
                params,
                groups(params),
            );
        }
    }

    /// Pushes the stage's passes, after the solver's.
    pub(super) fn push_stage<'a>(&'a self, plan: &mut Plan<'a>, solver: SolverBuffers<'a>) {
        let Some(params) = self.params else {
            return;
        };
        let (k, sweeps, n) = (&self.kernels, &self.sweeps.buffer, groups(params));
        let SolverBuffers {
            poses,
            turned,
            states,
            infos,
        } = solver;
        let [bodies, pieces] = [&self.bodies.buffer.buffer, &self.pieces.buffer.buffer];
        let [obstacles, shapes] = [&self.obstacles.buffer.buffer, &self.shapes.buffer.buffer];
        let sweep = [
            (SWEEPS, sweeps),
            (BODIES, bodies),
            (POSES, poses),
            (TURNED, turned),
        ];
        plan.push(&k.sweep_bodies, &sweep, params, n);
        let hits = [
            (SWEEPS, sweeps),
            (PIECES, pieces),
            (OBSTACLES, obstacles),
            (SHAPES, shapes),
        ];
        plan.push(&k.earliest_hits, &hits, params, n);
        let stop = [
            (SWEEPS, sweeps),
            (OBSTACLES, obstacles),
            (SHAPES, shapes),
            (POSES, poses),
        ];
        plan.push(&k.stop_at_impacts, &stop, params, n);
        let impulses = [
            (SWEEPS, sweeps),
            (STATES, states),
            (POSES, poses),
            (INFOS, infos),
        ];
        plan.push(&k.apply_impacts, &impulses, params, n);
        let hash = [
            (SWEEPS, sweeps),
            (POSES, poses),
            (STATES, states),
            (HASH, &self.hash),
        ];
        plan.push(&k.hash_moved, &hash, params, n);
    }

    /// After the host's continuous stage: whether the device's stage, if it ran this step,
    /// moved the bodies the host moved to the host's bits (`Some(true)`), or not
    /// (`Some(false)`: a poisoned impact, another body, another bit); `None` when the host
    /// swept alone.
    pub(in crate::gpu::world) fn check(&mut self, world: &World) -> Option<bool> {
        let Some(device) = self.device_hash.take() else {
            self.steps[1] += 1;
            return None;
        };
        let [sum, count] = world.moved_hash();
        let same = device[0] == sum && device[1] == count && device[2] == 0;
        self.steps[usize::from(!same)] += 1;
        self.misses += u64::from(!same);
        Some(same)
    }

    /// The device's records are unknown (a step failed there): the next sends them all.
    pub(super) fn forget(&mut self) {
        self.bodies.forget();
        self.pieces.forget();
        self.obstacles.forget();
        self.shapes.forget();
        self.params = None;
        self.device_hash = None;
    }
}

/// Workgroups for one invocation per body.
fn groups(params: ContinuousParamsGpu) -> u32 {
    params.bodies.div_ceil(WORKGROUP)
}
