//! The GPU world's continuous stage and sleep on the device: `shaders/continuous.wgsl` and
//! `sleep.wgsl` (`sleep.rs`), the twins of the host's (`dynamics/continuous.rs`,
//! `dynamics/sleep.rs`), run in the solver's submit after its passes, held to the host's
//! by hashes of what they changed.
//!
//! ```text
//! prepare(world), before the step: whether the device runs the stage this step (the
//!     world's continuous collision on, no bullet, `enabled`, every binding within the
//!     device's binding size) and the sleep (sleeping on, and the stage here or
//!     continuous collision off); the stage's records up where they changed
//!     (ResidentList): the bodies' (32 bytes a body), the colliders' as pieces (48
//!     bytes), the static obstacles (80 bytes a position of the static list; their angles
//!     taken again when its revision moves) and the shape table with each shape's core
//!     and probe
//! take_sleep, inside the step (sleep.rs): the timers and labels up where they changed,
//!     but those of the bodies the host's wake woke, which the device wakes
//! the solver's submit (solver/): the wake's passes first, where the device sleeps
//!     (sleep.rs), record_start (the poses the step starts from);
//!     after the solver's passes the states and poses are copied to the readback (the
//!     host's twins start from them), then sweep_bodies, list_swept (the swept bodies
//!     near an obstacle, and the workgroups over them), earliest_hits and stop_at_impacts
//!     over that list (dispatched indirectly), apply_impacts and hash_moved, then the
//!     sleep's passes, then the transforms are
//!     written from the poses they leave; the hashes come back with the step's results
//!     (32 bytes)
//! check(world) and check_sleep(world), after the host's stages: the host's hash of the
//!     bodies it moved (their poses, velocities and count), and of every timer and label,
//!     against the device's: the same, and the device holds the host's records (nothing
//!     goes up for them); else its states and poses are sent whole at the next step, and
//!     the transforms now
//! ```
//!
//! Why the same bits: every kernel is its host function's twin operation for operation
//! (toi.wgsl's time of impact, sin_cos.wgsl's rotations and soft_f64.wgsl's angle give
//! the host's bits on lavapipe), the obstacles are visited in the static list's order and a
//! later hit replaces an earlier one only when strictly earlier, as the host's scan does;
//! the swept list's order (an atomic append) is no order at all, as each listed body is
//! swept on its own, and a body it leaves out meets no obstacle's box, so has no hit;
//! with no bullet an impact changes its own body alone; the sleep's islands and least
//! timers do not depend on the order of its invocations (`sleep.wgsl`).

pub(crate) mod layout;
mod sleep;

use layout::{
    ContinuousBodyGpu, ContinuousColliderGpu, ContinuousParamsGpu, SWEPT_BODY_BYTES,
    StaticObstacleGpu,
};
pub(in crate::gpu::world) use sleep::SleepBuffers;
use sleep::{
    CONTACT_WORDS, JOINT_PAIRS, SLEEP, SLEEP_PARAMS, SleepGpu, SleepParamsGpu, sleep_params,
};

use crate::gpu::layout::ShapeGpu;
use crate::gpu::plan::{Kernel, KernelMaker, Plan, RO, RW, Workgroups};
use crate::gpu::plumbing::GrowingBuffer;
use crate::gpu::world::resident::ResidentList;
use crate::shapes::shape::Shape;
use crate::world::World;
use crate::world::gpu_continuous::continuous_shapes;

/// The WGSL of the continuous stage: the layouts, the transform helpers, the bodies'
/// records (`bodies.wgsl`, the solver's), the box hash, the
/// host's angles (`u64.wgsl`, `soft_f64.wgsl`, `sin_cos.wgsl`), the narrow phase's pair
/// tests, the time of impact (`toi.wgsl`), the collision filter (`filter.wgsl`), then
/// `shaders/continuous.wgsl` and `sleep.wgsl`.
pub const CONTINUOUS_WGSL: &str = concat!(
    include_str!("../../../../shaders/layout.wgsl"),
    include_str!("../../../../shaders/transform.wgsl"),
    include_str!("../../../../shaders/bodies.wgsl"),
    include_str!("../../../../shaders/box_hash.wgsl"),
    include_str!("../../../../shaders/u64.wgsl"),
    include_str!("../../../../shaders/soft_f64.wgsl"),
    include_str!("../../../../shaders/sin_cos.wgsl"),
    include_str!("../../../../shaders/sat.wgsl"),
    include_str!("../../../../shaders/sat_circle.wgsl"),
    include_str!("../../../../shaders/sat_rounded.wgsl"),
    include_str!("../../../../shaders/toi.wgsl"),
    include_str!("../../../../shaders/filter.wgsl"),
    include_str!("../../../../shaders/continuous.wgsl"),
    include_str!("../../../../shaders/sleep.wgsl")
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
/// After the sleep's (sleep.rs): the swept list's workgroups and length.
const SWEPT_ARGS: u32 = 15;
/// Invocations per workgroup, as the kernels declare.
const WORKGROUP: u32 = 64;
/// Bytes of the hashes read back: the continuous stage's sum, count, poison flag and a
/// spare word; the sleep's sleepy flag and hash, and the wake's hash and count.
pub(super) const HASH_BYTES: u64 = 32;

/// The stage's pipelines.
struct Kernels {
    record_start: Kernel,
    sweep_bodies: Kernel,
    list_swept: Kernel,
    earliest_hits: Kernel,
    stop_at_impacts: Kernel,
    apply_impacts: Kernel,
    hash_moved: Kernel,
}

/// The wake's and the sleep's pipelines (`sleep.wgsl`).
struct SleepKernels {
    clear_wakes: Kernel,
    wake_contacts: Kernel,
    wake_joints: Kernel,
    wake_islands: Kernel,
    sleep_timers: Kernel,
    join_contacts: Kernel,
    join_joints: Kernel,
    least_timers: Kernel,
    kinematic_contacts: Kernel,
    kinematic_joints: Kernel,
    fall_asleep: Kernel,
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
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Kernels,
    sleep_kernels: SleepKernels,
    bodies: ResidentList<ContinuousBodyGpu>,
    pieces: ResidentList<ContinuousColliderGpu>,
    obstacles: ResidentList<StaticObstacleGpu>,
    shapes: ResidentList<ShapeGpu>,
    sweeps: GrowingBuffer,
    /// The swept list's dispatch (x, y, z workgroups) and length: `list_swept` writes it,
    /// `earliest_hits` and `stop_at_impacts` are dispatched from it (cleared each submit:
    /// `clear`).
    swept_args: wgpu::Buffer,
    pub(super) hash: wgpu::Buffer,
    /// Each body's timer and label, and each joint slot's bodies (the sleep's).
    sleep: ResidentList<SleepGpu>,
    joint_pairs: ResidentList<[u32; 2]>,
    sleep_scratch: Vec<SleepGpu>,
    /// This step, when the device wakes: the hash and count of the bodies it must wake
    /// (the host's `wake_touched`'s, where their records did not go up), and those bodies,
    /// whose states the solver's upload leaves to the wake (`woken_here`).
    wake: Option<[u32; 2]>,
    woken_here: Vec<u32>,
    /// Host staging; the static list's angles and the revision they were taken at, and
    /// the shapes the table was last made from.
    body_scratch: Vec<ContinuousBodyGpu>,
    piece_scratch: Vec<ContinuousColliderGpu>,
    obstacle_scratch: Vec<StaticObstacleGpu>,
    shape_scratch: Vec<ShapeGpu>,
    obstacles_at: Option<u64>,
    static_angles: Vec<f32>,
    shapes_of: Vec<Shape>,
    /// This step: the continuous stage's uniform and the sleep's, when the device runs
    /// them; the bytes their records took up; the hashes read back.
    params: Option<ContinuousParamsGpu>,
    sleep_params: Option<SleepParamsGpu>,
    pub(super) sent: u64,
    pub(super) device_hash: Option<[u32; 4]>,
    pub(super) device_sleep_hash: Option<u32>,
    /// Whether this step sweeps here (else only the sleep runs here, with continuous
    /// collision off).
    sweep: bool,
    /// Whether steps may run the stage here (`GpuWorld::set_continuous_on_device`).
    pub(crate) enabled: bool,
    /// Steps whose stage ran here and matched the host's, and steps swept by the host alone;
    /// steps whose hash did not match.
    pub(crate) steps: [u64; 2],
    pub(crate) misses: u64,
    /// The same of the sleep, and of the wake (`GpuWorld::wake_steps` says what each
    /// counts).
    pub(crate) sleep_steps: [u64; 2],
    pub(crate) sleep_misses: u64,
    pub(crate) wake_steps: [u64; 2],
    pub(crate) wake_misses: u64,
}

impl GpuContinuous {
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> GpuContinuous {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| GrowingBuffer::new(device, format!("wgpu-sat {what}"), storage);
        // From 128: the solver's pass holds its own (from 0) and the colouring's (from 64).
        let make = KernelMaker::new(device, 128);
        let module = make.module("continuous", CONTINUOUS_WGSL);
        let kernel =
            |entry, bindings: &[(u32, bool)]| make.kernel(&module, entry, bindings, PARAMS);
        let on_sleep =
            |entry, bindings: &[(u32, bool)]| make.kernel(&module, entry, bindings, SLEEP_PARAMS);
        let timers = [(SLEEP, RW), (BODIES, RO), (STATES, RW), (HASH, RW)];
        let on_contacts = [(CONTACT_WORDS, RO), (BODIES, RO), (SLEEP, RW), (HASH, RW)];
        let on_joints = [(JOINT_PAIRS, RO), (BODIES, RO), (SLEEP, RW), (HASH, RW)];
        GpuContinuous {
            device: device.clone(),
            queue: queue.clone(),
            kernels: Kernels {
                record_start: kernel("record_start", &[(SWEEPS, RW), (POSES, RW)]),
                sweep_bodies: kernel(
                    "sweep_bodies",
                    &[(SWEEPS, RW), (BODIES, RO), (POSES, RW), (TURNED, RO)],
                ),
                list_swept: kernel(
                    "list_swept",
                    &[(SWEEPS, RW), (SWEPT_ARGS, RW), (OBSTACLES, RO)],
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
            sleep_kernels: SleepKernels {
                clear_wakes: on_sleep("clear_wakes", &[(SLEEP, RW)]),
                wake_contacts: on_sleep(
                    "wake_contacts",
                    &[(CONTACT_WORDS, RO), (BODIES, RO), (SLEEP, RW)],
                ),
                wake_joints: on_sleep(
                    "wake_joints",
                    &[(JOINT_PAIRS, RO), (BODIES, RO), (SLEEP, RW)],
                ),
                wake_islands: on_sleep("wake_islands", &timers),
                sleep_timers: on_sleep("sleep_timers", &timers),
                join_contacts: on_sleep("join_contacts", &on_contacts),
                join_joints: on_sleep("join_joints", &on_joints),
                least_timers: on_sleep("least_timers", &[(BODIES, RO), (SLEEP, RW), (HASH, RW)]),
                kinematic_contacts: on_sleep("kinematic_contacts", &on_contacts),
                kinematic_joints: on_sleep("kinematic_joints", &on_joints),
                fall_asleep: on_sleep("fall_asleep", &timers),
            },
            bodies: ResidentList::new(buffer("continuous bodies")),
            pieces: ResidentList::new(buffer("continuous pieces")),
            obstacles: ResidentList::new(buffer("static obstacles")),
            shapes: ResidentList::new(buffer("continuous shapes")),
            sweeps: buffer("swept bodies"),
            swept_args: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat swept list's dispatch"),
                size: 16,
                usage: storage | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            }),
            hash: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat continuous and sleep hashes"),
                size: HASH_BYTES,
                usage: storage,
                mapped_at_creation: false,
            }),
            sleep: ResidentList::new(buffer("sleep records")),
            joint_pairs: ResidentList::new(buffer("joint body pairs")),
            sleep_scratch: Vec::new(),
            wake: None,
            woken_here: Vec::new(),
            body_scratch: Vec::new(),
            piece_scratch: Vec::new(),
            obstacle_scratch: Vec::new(),
            shape_scratch: Vec::new(),
            obstacles_at: None,
            static_angles: Vec::new(),
            shapes_of: Vec::new(),
            params: None,
            sleep_params: None,
            sent: 0,
            device_hash: None,
            device_sleep_hash: None,
            sweep: false,
            enabled: true,
            steps: [0; 2],
            misses: 0,
            sleep_steps: [0; 2],
            sleep_misses: 0,
            wake_steps: [0; 2],
            wake_misses: 0,
        }
    }

    /// Decides whether the next step runs the stage (and the sleep after it) on the device,
    /// and sends the stage's records where they changed. Returns the bytes sent.
    pub(in crate::gpu::world) fn prepare(&mut self, world: &World) -> u64 {
        (self.device_hash, self.device_sleep_hash) = (None, None);
        (self.params, self.sleep_params, self.wake) = (None, None, None);
        self.woken_here.clear();
        let bodies = world.body_transforms_len();
        // The sleep only where no stage before it runs on the host alone: with continuous
        // collision on, the device's continuous stage must run.
        let sweep = self.enabled && world.continuous_on_device();
        let sleep = self.enabled && world.sleeping() && (sweep || !world.continuous());
        if !(sweep || sleep) || bodies == 0 {
            return 0;
        }
        world.continuous_bodies(&mut self.body_scratch);
        world.continuous_pieces(&mut self.piece_scratch);
        if self.obstacles_at != Some(world.static_revision()) {
            world.static_angles(&mut self.static_angles);
            self.obstacles_at = Some(world.static_revision());
        }
        world.static_obstacles(&self.static_angles, &mut self.obstacle_scratch);
        if self.shapes_of != world.shape_list() {
            self.shapes_of.clear();
            self.shapes_of.extend_from_slice(world.shape_list());
            continuous_shapes(&self.shapes_of, &mut self.shape_scratch);
        }
        // Every binding must fit the device's binding size (a device of small bindings
        // sweeps and sleeps on the host alone).
        let (device, queue) = (&self.device, &self.queue);
        let cap = device.limits().max_storage_buffer_binding_size;
        let sizes = [
            bodies * SWEPT_BODY_BYTES,
            size_of_val(self.piece_scratch.as_slice()),
            size_of_val(self.obstacle_scratch.as_slice()),
            size_of_val(self.shape_scratch.as_slice()),
            bodies * size_of::<SleepGpu>(),
            size_of_val(world.joint_body_pairs()),
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
        let params = ContinuousParamsGpu {
            bodies: bodies as u32,
            statics: self.obstacle_scratch.len() as u32,
            shapes: self.shapes_of.len() as u32,
            never: 0,
        };
        self.params = Some(params);
        self.sweep = sweep;
        self.sleep_params = sleep.then(|| sleep_params(bodies as u32));
        sent
    }

    /// Whether this step runs the stage, or the sleep, on the device.
    pub(super) fn here(&self) -> bool {
        self.params.is_some()
    }

    /// Whether this step runs the sleep on the device.
    pub(super) fn sleeps(&self) -> bool {
        self.sleep_params.is_some()
    }

    /// Clears what the stage's and the sleep's kernels sum into, before the submit's
    /// passes, when either runs: the hashes, and the swept list's workgroups and length.
    pub(super) fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.here() {
            encoder.clear_buffer(&self.hash, 0, None);
            encoder.clear_buffer(&self.swept_args, 0, None);
        }
    }

    /// The hashes read back (`HASH_BYTES` of them), once the step is done.
    pub(super) fn read_hashes(&mut self, words: [u32; 8]) {
        if self.sweep {
            self.device_hash = Some([words[0], words[1], words[2], words[3]]);
        }
        if self.sleeps() {
            self.device_sleep_hash = Some(words[5]);
        }
    }

    /// Pushes `record_start` (the step's start poses), first in the solver's plan.
    pub(super) fn push_start<'a>(&'a self, plan: &mut Plan<'a>, poses: &'a wgpu::Buffer) {
        if let Some(params) = self.params.filter(|_| self.sweep) {
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
        let Some(params) = self.params.filter(|_| self.sweep) else {
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
        let list = [
            (SWEEPS, sweeps),
            (SWEPT_ARGS, &self.swept_args),
            (OBSTACLES, obstacles),
        ];
        plan.push(&k.list_swept, &list, params, n);
        let listed = Workgroups::Indirect(&self.swept_args, 0);
        let hits = [
            (SWEEPS, sweeps),
            (PIECES, pieces),
            (OBSTACLES, obstacles),
            (SHAPES, shapes),
        ];
        plan.push_with(&k.earliest_hits, &hits, params, listed);
        let stop = [
            (SWEEPS, sweeps),
            (OBSTACLES, obstacles),
            (SHAPES, shapes),
            (POSES, poses),
        ];
        plan.push_with(&k.stop_at_impacts, &stop, params, listed);
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
        self.sleep.forget();
        self.joint_pairs.forget();
        (self.params, self.sleep_params, self.wake) = (None, None, None);
        (self.device_hash, self.device_sleep_hash) = (None, None);
    }
}

/// Workgroups for one invocation per body.
fn groups(params: ContinuousParamsGpu) -> u32 {
    groups_of(params.bodies)
}

/// Workgroups for `n` invocations.
fn groups_of(n: u32) -> u32 {
    n.div_ceil(WORKGROUP)
}
