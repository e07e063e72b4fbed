//! The GPU world's solver: the stages of `ContactSolver::step` (`src/dynamics/solver/`) run
//! as the kernels of `shaders/solver.wgsl`, `contacts.wgsl` and `joints.wgsl`, in one
//! submit (a compute pass per stage where the device has timestamp queries, each timed:
//! `timing.rs`), to the host's bits.
//!
//! ```text
//! run(view):
//!     up (upload.rs): the bodies' states, poses and infos the host changed since the
//!         last step (the rest stay on the device: resident.rs); the contacts' inputs
//!         (their bodies, colliders, material, points and feature ids: 72 bytes, where a
//!         constraint is 176; the colouring reads its input from them and the states
//!         too) and warm starts (16 bytes), unless the collision stage merged and matched
//!         the same on the device; the joints' definitions that changed (JointDefGpu,
//!         kept on the device), and the prepared joints only when the device does not
//!         hold the host's last step's (their impulses); the joints' colouring items that
//!         changed (colouring/step.rs, kept on the device and copied into the colouring's
//!         input there; with the host's last step when the device's is not that); the
//!         angles turned, zeroed
//!     the passes, in run_unscoped's order:
//!         the wake's, when the device sleeps (continuous/sleep.rs: the islands a contact
//!             or a joint touches woken, the bodies' inverse masses back in their states)
//!         the colouring's passes: the solve order, each colour's ranges and the
//!             workgroups of its passes, written on the device
//!         prepare_joints and hash_joints (when the device holds the last step's joints:
//!         the twin of the host's prepare, from the definitions, poses and states),
//!         clamp_bodies, unpack_contacts (the inputs into the constraints),
//!         prepare_contacts,
//!         per substep: integrate_velocities; warm start per colour (its joints, then its
//!             contacts, each dispatched indirectly over its range; the colours a
//!             constraint can take, as only the device knows which are empty
//!             (colours_to_dispatch); the overflow's in order, 64 a dispatch in one
//!             invocation, for as many as can overflow);
//!             solve (the same); integrate_positions (the last sets the poses); relax
//!         restitution (per colour), store_impulses (each contact's impulses held to
//!         MAX_IMPULSE, 16 bytes, then its hit measures, 16 bytes; with its key and
//!         feature ids, what the next step's match reads: `last`), store_joints (each
//!         joint's impulses: 24 bytes), settle_bodies; when the device runs them
//!         (continuous/), the states and poses copied to the readback, then the
//!         continuous stage and sleep; write_transforms
//!     back (read.rs, checked first: no colour undecided or past the dispatched ones):
//!         states, poses, angles turned, the stored impulses (and the hit measures when
//!         hit events are asked for), the joints' impulses, the colours (a byte a
//!         constraint), the prepared joints' hash, the continuous stage's and sleep's
//!         hashes (checked after the host's twins: `check_continuous`); a joint hash not the host's
//!         prepare's, or a wake's not the host's wake's, takes nothing, and the step runs
//!         again with the host's joints and records; else
//!         the solved (coloured) contacts' impulses and hit measures into their records,
//!         the solved joints' impulses, the colours to the host's graph
//! ```
//!
//! The host's twins of the device's pair set, recycling, merge, match, joint prepare,
//! continuous stage and sleep still run (the world keeps their results, and holds the
//! device to them), which is why the state and the impulses come back every step; the host
//! does not colour (it lists the constraints,
//! `ConstraintGraph::defer`, and takes the device's colours, so that a step the device
//! fails is coloured and solved on the host to the same bits). The transforms a
//! host draws from are written on the device from the device's poses.

mod colour_passes;
mod kernels;
mod read;
mod upload;

use colour_passes::ColourPasses;
pub use kernels::SOLVER_WGSL;
use kernels::{
    COLOUR_RANGES, CONSTRAINTS, CONTACT_INPUTS, INFOS, JOINT_DEFS, JOINT_HASH, JOINT_IMPULSES,
    JOINT_ORDER, JOINTS, Kernels, LAST, ORDER, POSES, STATES, STORED, TRANSFORMS, TURNED,
    WARM_STARTS, groups, transforms_buffer,
};
use read::Miss;

use super::colouring::{ColourBounds, GpuColouring};
use super::continuous::{GpuContinuous, HASH_BYTES, SleepBuffers, SolverBuffers};
use super::layout::{BodyInfoGpu, BodyPoseGpu, JointDefGpu, JointGpu, LAST_SUBSTEP};
use super::resident::ResidentList;
use super::timing::{GpuStepTimes, TIMED_PASSES, stage};
use crate::dynamics::solver::{OffloadedStages, SleepInput, StepView};
use crate::dynamics::state::BodyState;
use crate::error::{Error, GpuError};
use crate::gpu::contact_input::{ContactInputGpu, DeviceContacts, LastContacts, WarmStartGpu};
use crate::gpu::layout::BodyTransformGpu;
use crate::gpu::plan::{BindKey, PARAMS_SLOT, Plan, record_passes};
use crate::gpu::plumbing::{GrowingBuffer, KernelTimer, read_back};

/// The solver's stages on a wgpu device, and the buffers they use (grown as steps need,
/// reused after). The transforms buffer is made once, for the world's body slots.
pub(crate) struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Kernels,
    /// The bodies' states, poses and infos, kept on the device from step to step: a step
    /// sends the records the host changed since the last (`resident.rs`).
    states: ResidentList<BodyState>,
    poses: ResidentList<BodyPoseGpu>,
    infos: ResidentList<BodyInfoGpu>,
    constraints: GrowingBuffer,
    /// The contacts (`ContactInputGpu`), unpacked into `constraints` with their warm
    /// starts (`WarmStartGpu`): the host's (`contact_inputs`, `warm_starts`), or those the
    /// collision stage merged and matched on the device (`device_contacts`, each taken
    /// when the host's hash the same: `input_source` and `warm_source` then bind them).
    contact_inputs: GrowingBuffer,
    warm_starts: GrowingBuffer,
    device_contacts: Option<DeviceContacts>,
    input_source: Option<wgpu::Buffer>,
    warm_source: Option<wgpu::Buffer>,
    /// Steps whose contacts' inputs came from the device, and from the host; the same of
    /// their warm starts.
    pub(crate) input_steps: [u64; 2],
    pub(crate) warm_steps: [u64; 2],
    /// The store stage's compact records, one per contact: all that comes back of them.
    stored: GrowingBuffer,
    /// Each contact's key, feature ids and stored impulses (`LastContactGpu`), for the
    /// next step's match on the device; `last_len` of them, when the last step was
    /// solved here (`take_last`).
    last: GrowingBuffer,
    last_len: Option<usize>,
    turned: GrowingBuffer,
    joints: GrowingBuffer,
    /// Each joint's definition, kept on the device (`prepare_joints` prepares the joints
    /// from them when `joints` holds the host's last step: `resident_joints`, its count),
    /// and the prepared joints' hash.
    joint_defs: ResidentList<JointDefGpu>,
    joint_hash: wgpu::Buffer,
    resident_joints: Option<usize>,
    /// This step: whether the joints are prepared on the device, and the host's hash of
    /// its own; whether a step whose device's joints missed is solved again with the
    /// host's.
    joints_here: bool,
    host_joint_hash: u32,
    host_joints_only: bool,
    /// Whether steps prepare their joints on the device (`GpuWorld::set_joints_on_device`).
    pub(crate) joints_enabled: bool,
    /// Whether this step's inputs were sent (or found on the device): the counts above.
    uploaded: bool,
    /// Steps whose joints were prepared on the device, and sent by the host; steps whose
    /// device's joints were not the host's (solved again).
    pub(crate) joint_steps: [u64; 2],
    pub(crate) joint_misses: u64,
    /// Each joint's impulses (`store_joints`): all that comes back of the joints.
    joint_impulses: GrowingBuffer,
    transforms: wgpu::Buffer,
    params: GrowingBuffer,
    readback: GrowingBuffer,
    bind_groups: Vec<(BindKey, wgpu::BindGroup)>,
    /// Timestamps around each stage's pass, on devices that have them.
    timer: Option<KernelTimer>,
    /// The stage of each timed pass of the last step.
    pass_labels: Vec<u8>,
    /// The last step's passes, from the first's start to the last's end, by those
    /// timestamps.
    pub(crate) kernel_time: Option<std::time::Duration>,
    /// The last step's stages, by those timestamps (`collision` left at zero).
    pub(crate) stage_times: Option<GpuStepTimes>,
    /// Host staging, reused between steps.
    input_scratch: Vec<ContactInputGpu>,
    warm_scratch: Vec<WarmStartGpu>,
    pose_scratch: Vec<BodyPoseGpu>,
    info_scratch: Vec<BodyInfoGpu>,
    joint_scratch: Vec<JointGpu>,
    def_scratch: Vec<JointDefGpu>,
    /// Bytes the last step sent up and read back.
    pub(crate) bytes: [u64; 2],
    /// The constraints' colouring, solve order and colour ranges on the device
    /// (`colouring/`).
    colouring: GpuColouring,
    /// The continuous stage and sleep on the device (`continuous/`), run in the same submit.
    pub(crate) continuous: GpuContinuous,
}

impl GpuSolver {
    /// The kernels on `device`, with a transforms buffer for `slots` body slots.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue, slots: usize) -> GpuSolver {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| GrowingBuffer::new(device, format!("wgpu-sat {what}"), storage);
        let transforms = transforms_buffer(
            device,
            (slots.max(1) * size_of::<BodyTransformGpu>()) as u64,
        );
        GpuSolver {
            device: device.clone(),
            queue: queue.clone(),
            kernels: Kernels::new(device),
            states: ResidentList::new(buffer("body states")),
            poses: ResidentList::new(buffer("body poses")),
            infos: ResidentList::new(buffer("body infos")),
            constraints: buffer("contact constraints"),
            contact_inputs: buffer("contact inputs"),
            warm_starts: buffer("warm starts"),
            device_contacts: None,
            input_source: None,
            warm_source: None,
            input_steps: [0; 2],
            warm_steps: [0; 2],
            stored: buffer("stored impulses"),
            last: buffer("last contacts"),
            last_len: None,
            turned: buffer("angles turned"),
            joints: buffer("joints"),
            joint_defs: ResidentList::new(buffer("joint definitions")),
            joint_hash: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat prepared joints' hash"),
                size: 16,
                usage: storage,
                mapped_at_creation: false,
            }),
            resident_joints: None,
            joints_here: false,
            host_joint_hash: 0,
            uploaded: false,
            host_joints_only: false,
            joints_enabled: true,
            joint_steps: [0; 2],
            joint_misses: 0,
            joint_impulses: buffer("joint impulses"),
            transforms,
            params: GrowingBuffer::new(
                device,
                "wgpu-sat solver params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat solver readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            bind_groups: Vec::new(),
            timer: KernelTimer::with_queries(device, queue, 2 * TIMED_PASSES),
            pass_labels: Vec::new(),
            kernel_time: None,
            stage_times: None,
            input_scratch: Vec::new(),
            warm_scratch: Vec::new(),
            pose_scratch: Vec::new(),
            info_scratch: Vec::new(),
            joint_scratch: Vec::new(),
            def_scratch: Vec::new(),
            bytes: [0; 2],
            colouring: GpuColouring::new(device, queue),
            continuous: GpuContinuous::new(device, queue),
        }
    }

    /// The last step's contacts as this solver left them, when it solved that step (and
    /// nothing changed the world's contacts since: `GpuWorld::edit` drops them): the next
    /// step's warm starts can be matched from them on the device. Taken: a step that does
    /// not come through here leaves none.
    pub(crate) fn take_last(&mut self) -> Option<LastContacts> {
        let len = self.last_len.take()?;
        Some(LastContacts {
            buffer: self.last.buffer.clone(),
            len,
        })
    }

    /// The device's joints are no longer known to be the world's (an edit may have changed
    /// their impulses): the next step sends the host's.
    pub(crate) fn forget_joints(&mut self) {
        self.resident_joints = None;
    }

    /// Whether the last step's colouring started from the host's last step (sent up),
    /// rather than from the device's own.
    pub(crate) fn colouring_seeded(&self) -> bool {
        self.colouring.seeded
    }

    /// The body transforms, one [`BodyTransformGpu`] per body slot.
    pub(crate) fn transforms(&self) -> &wgpu::Buffer {
        &self.transforms
    }

    /// Writes `transforms` (one per body slot) to the transforms buffer, which is replaced
    /// by one twice as large (or more) when they outgrow it.
    pub(crate) fn set_transforms(&mut self, transforms: &[BodyTransformGpu]) {
        let bytes = size_of_val(transforms) as u64;
        if bytes > self.transforms.size() {
            self.transforms = transforms_buffer(&self.device, bytes.next_power_of_two());
        }
        self.queue
            .write_buffer(&self.transforms, 0, bytemuck::cast_slice(transforms));
    }

    /// Writes body slot `slot`'s transform.
    pub(crate) fn set_transform(&self, slot: usize, transform: &BodyTransformGpu) {
        let at = (slot * size_of::<BodyTransformGpu>()) as u64;
        self.queue
            .write_buffer(&self.transforms, at, bytemuck::bytes_of(transform));
    }
}

impl OffloadedStages for GpuSolver {
    fn take_contacts(&mut self, contacts: Option<DeviceContacts>) {
        self.device_contacts = contacts;
    }

    fn take_sleep(&mut self, input: &SleepInput<'_>) {
        self.continuous.take_sleep(input);
    }

    fn run(&mut self, view: &mut StepView<'_, '_>) -> Result<(), Error> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut result = self.run_unscoped(view);
        if let Ok(Some(miss)) = result {
            // The joints the device prepared, or the bodies it woke, were not the host's (an
            // adapter that rounds otherwise): the step again, with the host's joints sent,
            // from the host's records (the pass changed the device's).
            self.joint_misses += u64::from(miss == Miss::Joints);
            self.colouring.forget();
            self.states.forget();
            self.poses.forget();
            self.infos.forget();
            // The pass's sleep advanced the device's timers: the host's again.
            self.continuous.resend_sleep();
            self.host_joints_only = true;
            result = self.run_unscoped(view);
            self.host_joints_only = false;
        }
        // Where this step's inputs came from, once (also for a step the device then
        // failed, and the host solved).
        if self.uploaded {
            self.input_steps[usize::from(self.input_source.is_none())] += 1;
            self.warm_steps[usize::from(self.warm_source.is_none())] += 1;
            if !view.motion.joints.is_empty() {
                self.joint_steps[usize::from(!self.joints_here)] += 1;
            }
        }
        self.device_contacts = None;
        let result = result.map(|_| ());
        if result.is_err() {
            // The step is solved on the host: the device's colouring may not follow it,
            // and its bodies' records are unknown (the pass may have run in part).
            self.colouring.forget();
            self.states.forget();
            self.poses.forget();
            self.infos.forget();
            self.joint_defs.forget();
            self.continuous.forget();
        }
        match pollster::block_on(scope.pop()) {
            Some(error) => {
                // The contacts and joints the passes left are not known to be this step's.
                (self.last_len, self.resident_joints) = (None, None);
                Err(Error::Gpu(GpuError::Device(error.to_string())))
            }
            None => result,
        }
    }
}

impl GpuSolver {
    /// One try at the step: `Ok(Some(miss))` when what the device prepared or woke was not
    /// the host's (nothing of the view was written then).
    fn run_unscoped(&mut self, view: &mut StepView<'_, '_>) -> Result<Option<Miss>, Error> {
        // Until this step is solved here, the device holds no contacts of its own.
        (self.last_len, self.uploaded) = (None, false);
        // A step with nothing to read back (no body) has no colour either, nor a time.
        view.colours.clear();
        (self.kernel_time, self.stage_times) = (None, None);
        let coloured = self.colouring.colour_step(view)?;
        let bounds = if coloured {
            self.colouring.colours_to_dispatch(view)
        } else {
            ColourBounds::default()
        };
        self.upload(view)?;
        let layout = self.readback_layout(view, coloured);
        let bodies = view.motion.states.len();
        let contacts = view.contacts.len();
        let k = &self.kernels;
        let order = self.colouring.order_buffer();
        let [ranges, joint_order, solve_args] = self.colouring.solve_buffers();
        let (states, constraints) = (&self.states.buffer.buffer, &self.constraints.buffer);
        let poses = &self.poses.buffer.buffer;
        let (infos, turned) = (&self.infos.buffer.buffer, &self.turned.buffer);
        let mut plan = Plan::default();
        // The colour passes of each kind that has constraints (none when nothing is
        // coloured), their ranges and workgroups the device's.
        let mut colours = ColourPasses {
            args: solve_args,
            kinds: [false; 2],
            bounds,
        };
        // The contacts' inputs: the collision stage's merge, or the host's (upload.rs).
        let inputs = (self.input_source.as_ref()).unwrap_or(&self.contact_inputs.buffer);
        // The bodies a sleeping island's contacts and joints wake, first: the colouring
        // leaves out the constraints of bodies that do not move, and the solve moves them.
        plan.stage(stage::PREPARE);
        let wake = SleepBuffers {
            states,
            contacts: inputs,
        };
        self.continuous.push_wake(&mut plan, wake, contacts);
        if coloured {
            plan.stage(stage::COLOURING);
            // The colouring's passes first, in the same pass: the colour passes read the
            // order, the ranges and the workgroups they make. Its input is made from the
            // uploaded states and contact inputs before the clamp changes the states.
            self.colouring.push_input(&mut plan, states, inputs);
            self.colouring.push(&mut plan);
            let joints = self.colouring.step_joint_slots().next().is_some();
            colours.kinds = [joints, contacts > 0];
        }
        let body = [(STATES, states), (INFOS, infos)];
        let colour = [
            (STATES, states),
            (CONSTRAINTS, constraints),
            (ORDER, order),
            (COLOUR_RANGES, ranges),
        ];
        let joint = [
            (STATES, states),
            (JOINTS, &self.joints.buffer),
            (JOINT_ORDER, joint_order),
            (COLOUR_RANGES, ranges),
        ];
        let moving = [
            (STATES, states),
            (POSES, poses),
            (INFOS, infos),
            (TURNED, turned),
        ];
        let draw = [
            (POSES, poses),
            (INFOS, infos),
            (TRANSFORMS, &self.transforms),
        ];
        let prepare = [
            (STATES, states),
            (CONSTRAINTS, constraints),
            (POSES, poses),
            (INFOS, infos),
        ];
        let body_groups = groups(bodies);
        let body_params = |flags| Self::params(view, 0, bodies, flags);
        plan.stage(stage::PREPARE);
        // The poses the step starts from, for the continuous stage's sweeps.
        self.continuous.push_start(&mut plan, poses);
        let joint_slots = view.motion.joints.len();
        if self.joints_here {
            // The joints prepared here, before the clamp (they read the states' masses
            // and the poses, as the host's prepare does), and their hash.
            let params = Self::params(view, 0, joint_slots, 0);
            let prepare = [
                (JOINTS, &self.joints.buffer),
                (JOINT_DEFS, &self.joint_defs.buffer.buffer),
                (STATES, states),
                (POSES, poses),
            ];
            plan.push(&k.prepare_joints, &prepare, params, groups(joint_slots));
            let hash = [
                (JOINTS, &self.joints.buffer),
                (JOINT_HASH, &self.joint_hash),
            ];
            plan.push(&k.hash_joints, &hash, params, groups(joint_slots));
        }
        if bodies > 0 {
            plan.push(&k.clamp_bodies, &body, body_params(0), body_groups);
        }
        if contacts > 0 {
            let params = Self::params(view, 0, contacts, 0);
            let warm_starts = (self.warm_source.as_ref()).unwrap_or(&self.warm_starts.buffer);
            let unpack = [
                (CONTACT_INPUTS, inputs),
                (WARM_STARTS, warm_starts),
                (CONSTRAINTS, constraints),
            ];
            plan.push(&k.unpack_contacts, &unpack, params, groups(contacts));
            plan.push(&k.prepare_contacts, &prepare, params, groups(contacts));
        }
        for substep in 0..view.substeps {
            plan.stage(stage::INTEGRATE);
            if bodies > 0 {
                plan.push(&k.integrate_velocities, &body, body_params(0), body_groups);
            }
            plan.stage(stage::WARM_START);
            let warm_start = [(&k.joint_warm_start, &joint[..]), (&k.warm_start, &colour)];
            colours.push(&mut plan, warm_start, view);
            plan.stage(stage::SOLVE);
            let solve = [(&k.joint_solve, &joint[..]), (&k.solve, &colour)];
            colours.push(&mut plan, solve, view);
            let last = if substep + 1 == view.substeps {
                LAST_SUBSTEP
            } else {
                0
            };
            plan.stage(stage::INTEGRATE);
            if bodies > 0 {
                plan.push(
                    &k.integrate_positions,
                    &moving,
                    body_params(last),
                    body_groups,
                );
            }
            plan.stage(stage::RELAX);
            let relax = [(&k.joint_relax, &joint[..]), (&k.relax, &colour)];
            colours.push(&mut plan, relax, view);
        }
        plan.stage(stage::RESTITUTION);
        // No joint has a restitution pass: an empty joint range dispatches nothing.
        let no_joints: [(u32, &wgpu::Buffer); 0] = [];
        let restitution = [(&k.joint_relax, &no_joints[..]), (&k.restitution, &colour)];
        colours.push(&mut plan, restitution, view);
        plan.stage(stage::STORE);
        if contacts > 0 {
            let store = [
                (CONSTRAINTS, constraints),
                (STORED, &self.stored.buffer),
                (CONTACT_INPUTS, inputs),
                (LAST, &self.last.buffer),
            ];
            let params = Self::params(view, 0, contacts, 0);
            plan.push(&k.store_impulses, &store, params, groups(contacts));
        }
        if joint_slots > 0 {
            let store = [
                (JOINTS, &self.joints.buffer),
                (JOINT_IMPULSES, &self.joint_impulses.buffer),
            ];
            let params = Self::params(view, 0, joint_slots, 0);
            plan.push(&k.store_joints, &store, params, groups(joint_slots));
        }
        if bodies > 0 {
            let settle = [(STATES, states)];
            plan.push(&k.settle_bodies, &settle, body_params(0), body_groups);
        }
        let back = &self.readback.buffer;
        let (state_bytes, pose_bytes) = (layout.states, layout.poses);
        // The continuous stage and sleep change bodies after the solver: the host's twins
        // start from the solver's states and poses, which go back before they run.
        let early = self.continuous.here();
        if early {
            plan.copy(states, back, 0, state_bytes);
            plan.copy(poses, back, state_bytes, pose_bytes);
            plan.stage(stage::CONTINUOUS);
            let solver = SolverBuffers {
                poses,
                turned,
                states,
                infos,
            };
            self.continuous.push_stage(&mut plan, solver);
            let sleep = SleepBuffers {
                states,
                contacts: inputs,
            };
            self.continuous.push_sleep(&mut plan, sleep, contacts);
            plan.stage(stage::STORE);
        }
        if bodies > 0 {
            plan.push(&k.write_transforms, &draw, body_params(0), body_groups);
        }

        let device = &self.device;
        self.params
            .reserve(device, plan.dispatches.len() as u64 * PARAMS_SLOT, u64::MAX);
        let turned_bytes = layout.turned;
        let stored_bytes = layout.stored;
        let joint_bytes = layout.joints;
        let (packed, _) = self.colouring.packed_colours();
        let colour_bytes = layout.colours;
        let (total, stamps_at) = (layout.total, layout.stamps_at);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-sat solver"),
        });
        if turned_bytes > 0 {
            encoder.clear_buffer(turned, 0, Some(turned_bytes));
        }
        self.colouring.record_joint_items(&mut encoder);
        if self.joints_here {
            encoder.clear_buffer(&self.joint_hash, 0, None);
        }
        self.continuous.clear(&mut encoder);
        let params = &self.params;
        let uniforms;
        (self.pass_labels, uniforms) = record_passes(
            device,
            &self.queue,
            &mut encoder,
            params,
            &mut self.bind_groups,
            plan,
            self.timer.as_ref(),
        );
        self.bytes[0] += uniforms;
        // The states and poses first (copied in the plan already when the continuous stage
        // ran).
        let mut at = if early { state_bytes + pose_bytes } else { 0 };
        let solved = [(states, state_bytes), (poses, pose_bytes)];
        let solved = solved.into_iter().filter(|_| !early);
        for (from, bytes) in solved.chain([
            (turned, turned_bytes),
            (&self.stored.buffer, stored_bytes),
            (&self.joint_impulses.buffer, joint_bytes),
            (packed, colour_bytes),
        ]) {
            if bytes > 0 {
                encoder.copy_buffer_to_buffer(from, 0, back, at, bytes);
            }
            at += bytes;
        }
        if let Some(at) = layout.joint_hash_at {
            encoder.copy_buffer_to_buffer(&self.joint_hash, 0, back, at, 4);
        }
        if let Some(at) = layout.moved_hash_at {
            encoder.copy_buffer_to_buffer(&self.continuous.hash, 0, back, at, HASH_BYTES);
        }
        let timed = self.pass_labels.len();
        let read = match &self.timer {
            Some(timer) if timed > 0 => {
                timer.copy_first(&mut encoder, back, stamps_at, 2 * timed as u32);
                stamps_at + 16 * timed as u64
            }
            _ => total,
        };
        self.queue.submit([encoder.finish()]);
        // An error found after this (a validation error, a failed readback) makes `run`
        // forget the colouring's step again.
        self.colouring.finish_step();
        if read == 0 {
            self.last_len = Some(contacts);
            return Ok(None);
        }
        // Read in place from the mapping, record by record: nothing is allocated per step.
        let mut times = GpuStepTimes::default();
        let mut span = [u64::MAX, 0];
        let mut stored = Ok(());
        let mut missed = None;
        let mut moved = None;
        read_back(device, back, read, |data| {
            if let Some(timer) = &self.timer {
                let at = stamps_at as usize;
                for (i, &label) in self.pass_labels.iter().enumerate() {
                    let ticks: [u64; 2] =
                        bytemuck::pod_read_unaligned(&data[at + 16 * i..at + 16 * (i + 1)]);
                    times.add(label, timer.elapsed(ticks));
                    span = [span[0].min(ticks[0]), span[1].max(ticks[1])];
                }
            }
            if let Some(at) = layout.moved_hash_at.map(|at| at as usize) {
                let bytes = &data[at..at + HASH_BYTES as usize];
                let words = bytemuck::pod_read_unaligned::<[u32; 8]>(bytes);
                moved = Some(words);
                // Nothing taken: the step runs again, the bodies' records sent.
                if !self.continuous.wake_matches(&words) {
                    missed = Some(Miss::Wake);
                    return;
                }
            }
            if let Some(at) = layout.joint_hash_at.map(|at| at as usize) {
                let hash: u32 = bytemuck::pod_read_unaligned(&data[at..at + 4]);
                // Nothing taken: the step runs again with the host's joints.
                if hash != self.host_joint_hash {
                    missed = Some(Miss::Joints);
                    return;
                }
            }
            let sizes = [state_bytes, pose_bytes, turned_bytes, joint_bytes];
            stored = self.store(view, data, sizes, bounds);
        })?;
        if let Some(words) = moved {
            self.continuous.count_wake(&words);
        }
        if missed.is_some() {
            return Ok(missed);
        }
        stored?;
        if let Some(words) = moved {
            self.continuous.read_hashes(words);
        }
        self.colouring.set_last_colours(view.colours);
        // The store stage wrote each contact's `last` record: the next step's match; the
        // joints are the host's, their impulses the step's.
        self.last_len = Some(contacts);
        self.resident_joints = Some(joint_slots);
        // The device's states and poses are the step's results, as the host now holds them.
        let motion = &*view.motion;
        self.states.hold(motion.states.iter().copied());
        let poses = motion.centers.iter().zip(motion.rotations.iter());
        self.poses.hold(poses.map(|(c, q)| BodyPoseGpu {
            center: c.to_array(),
            rotation: q.to_array(),
        }));
        self.bytes[1] = total;
        let timed = self.timer.as_ref().filter(|_| !self.pass_labels.is_empty());
        self.kernel_time = timed.map(|timer| timer.elapsed(span));
        self.stage_times = timed.map(|_| times);
        Ok(None)
    }
}
