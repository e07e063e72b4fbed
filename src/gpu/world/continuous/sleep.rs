//! Sleep on the device (`shaders/sleep.wgsl`, the twin of `Sleep::update`), run after the
//! continuous stage in the solver's submit, and held to the host's by a hash of every
//! body's timer and label.
//!
//! The wake before the solve (`Sleep::wake_touched`'s twin) runs first in the same submit,
//! held to the host's by a hash of the bodies it woke, checked before the step's results
//! are taken (they were solved with the bodies it woke).
//!
//! ```text
//! take_sleep, inside the step (after the host woke what it wakes before the solve): each
//!     body's timer and label up where they changed (8 of SleepGpu's 16 bytes are the
//!     host's), but the bodies the host's wake_touched woke, which the device wakes
//!     itself (their held records changed as the wake changes them: hold_changed; the
//!     solver's upload does the same of their states), the joints' body pairs where they
//!     changed, the step's dt
//! push_wake, first in the solver's plan (every step the device sleeps, a body asleep or
//!     not: the plan keeps its shape): clear_wakes, wake_contacts, wake_joints,
//!     wake_islands (which hashes the bodies it woke)
//! wake_matches, on the readback: the device woke the bodies the host did (else the step
//!     runs again, everything of the bodies sent: GpuSolver::run)
//! push_sleep: sleep_timers, join_contacts, join_joints, least_timers, kinematic_contacts,
//!     kinematic_joints, fall_asleep (which also hashes)
//! check_sleep, after the host's Sleep::update: the host's hash against the device's
//! ```
//!
//! The device sleeps its bodies only where the host's stages before it ran on the device
//! too: with continuous collision on, the device's continuous stage must have run (the
//! host's alone moves bodies the device's sleep would not see).

use bytemuck::{Pod, Zeroable};

use super::{BODIES, GpuContinuous, HASH, STATES, groups_of};
use crate::broad_phase::sort_sweep::box_hash;
use crate::dynamics::sleep::{AWAKE, SLEEP_SPEED, TIME_TO_SLEEP};
use crate::dynamics::solver::SleepInput;
use crate::gpu::plan::Plan;
use crate::world::World;

/// WGSL `SleepBody`: a body's timer and island label (the host's), then the union-find's
/// parent and least timer (the kernels' scratch, sent as zeros).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct SleepGpu {
    pub timer: f32,
    pub island: u32,
    pub _scratch: [u32; 2],
}
const _: () = assert!(size_of::<SleepGpu>() == 16);

/// WGSL `SleepParams`: the uniform of the sleep's dispatches.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct SleepParamsGpu {
    pub bodies: u32,
    pub contacts: u32,
    pub joints: u32,
    /// The step's length: each timer's increment.
    pub dt: f32,
    /// `SLEEP_SPEED` squared, as the host computes it.
    pub limit: f32,
    pub time_to_sleep: f32,
    /// Always 0: `keep()`'s flag.
    pub never: u32,
    pub _pad: u32,
}
const _: () = assert!(size_of::<SleepParamsGpu>() == 32);

/// What the hash of the sleep sums for body `i`: its timer's bits and its label.
pub(crate) fn sleep_hash(i: usize, timer: f32, island: u32) -> u32 {
    box_hash(i as u32, [timer.to_bits(), island, 0, 0])
}

/// What the hash of the wake sums for body `i`, woken.
pub(crate) fn wake_hash(i: usize) -> u32 {
    box_hash(i as u32, [AWAKE, 0, 0, 0])
}

/// The sleep's bindings (after `continuous.wgsl`'s) and its uniform's.
pub(super) const SLEEP: u32 = 11;
pub(super) const CONTACT_WORDS: u32 = 12;
pub(super) const JOINT_PAIRS: u32 = 13;
pub(super) const SLEEP_PARAMS: (u32, usize) = (14, size_of::<SleepParamsGpu>());

/// The solver's buffers the sleep reads and writes: the states, and the contacts' inputs
/// (their bodies).
pub(in crate::gpu::world) struct SleepBuffers<'a> {
    pub(in crate::gpu::world) states: &'a wgpu::Buffer,
    pub(in crate::gpu::world) contacts: &'a wgpu::Buffer,
}

impl GpuContinuous {
    /// Inside the step, before the solve: each body's timer and label, and the joints' body
    /// pairs, up where they changed, when the device sleeps this step.
    ///
    /// The bodies the host's `wake_touched` woke are woken on the device, where their
    /// records are there (a record sent up is the host's, awake already).
    pub(in crate::gpu::world) fn take_sleep(&mut self, input: &SleepInput<'_>) {
        let Some(params) = self.sleep_params.as_mut() else {
            // The host wakes alone (its wakes go up with the records).
            self.wake_steps[1] += u64::from(input.touch_woken.is_some_and(|w| !w.is_empty()));
            return;
        };
        self.sleep_scratch.clear();
        self.sleep_scratch
            .extend(sleep_records(input.timers, input.islands));
        // The wake's changes held, so that the write sends nothing for its bodies.
        for &body in input.touch_woken.unwrap_or_default() {
            self.sleep.hold_changed(body as usize, |record| {
                (record.timer, record.island) = (0.0, AWAKE);
            });
        }
        let cap = self.device.limits().max_storage_buffer_binding_size;
        let (device, queue) = (&self.device, &self.queue);
        let sent = (self.sleep).write(device, queue, &self.sleep_scratch, cap);
        // Every record sent (none held, or all changed): every body is as the host left it,
        // awake where it woke, and the device wakes none.
        let sent_all = sent == size_of_val(self.sleep_scratch.as_slice()) as u64;
        self.sent += sent + (self.joint_pairs).write(device, queue, input.joint_pairs, cap);
        params.dt = input.dt;
        params.joints = input.joint_pairs.len() as u32;
        // The wake runs every step the device sleeps, so that the plan keeps its shape (its
        // uniforms and bind groups are reused by position) whether a body sleeps or not.
        self.woken_here.clear();
        match input.touch_woken {
            // The host's wake went up with the records.
            Some(woken) if sent_all => self.wake_steps[1] += u64::from(!woken.is_empty()),
            Some(woken) => self.woken_here.extend_from_slice(woken),
            None => {}
        }
        let hash = (self.woken_here.iter()).fold(0u32, |sum, &body| {
            sum.wrapping_add(wake_hash(body as usize))
        });
        self.wake = Some([hash, self.woken_here.len() as u32]);
    }

    /// The bodies the device wakes this step (the solver's upload leaves their states'
    /// inverse masses to it).
    pub(in crate::gpu::world) fn woken_here(&self) -> &[u32] {
        &self.woken_here
    }

    /// Pushes the wake's passes, first in the solver's plan, when the device sleeps this
    /// step; `contacts` of the solver's contact inputs.
    pub(in crate::gpu::world) fn push_wake<'a>(
        &'a self,
        plan: &mut Plan<'a>,
        solver: SleepBuffers<'a>,
        contacts: usize,
    ) {
        let (Some(mut params), Some(_)) = (self.sleep_params, self.wake) else {
            return;
        };
        params.contacts = contacts as u32;
        let k = &self.sleep_kernels;
        let (sleep, bodies) = (&self.sleep.buffer.buffer, &self.bodies.buffer.buffer);
        let pairs = &self.joint_pairs.buffer.buffer;
        let body = groups_of(params.bodies);
        plan.push(&k.clear_wakes, &[(SLEEP, sleep)], params, body);
        let on_contacts = [
            (CONTACT_WORDS, solver.contacts),
            (BODIES, bodies),
            (SLEEP, sleep),
        ];
        plan.push(
            &k.wake_contacts,
            &on_contacts,
            params,
            groups_of(contacts as u32),
        );
        let on_joints = [(JOINT_PAIRS, pairs), (BODIES, bodies), (SLEEP, sleep)];
        plan.push(&k.wake_joints, &on_joints, params, groups_of(params.joints));
        let wake = [
            (SLEEP, sleep),
            (BODIES, bodies),
            (STATES, solver.states),
            (HASH, &self.hash),
        ];
        plan.push(&k.wake_islands, &wake, params, body);
    }

    /// Whether the device's wake, if it ran this step, woke the bodies the host's did
    /// (`words`: the hashes read back).
    pub(in crate::gpu::world) fn wake_matches(&self, words: &[u32; 8]) -> bool {
        self.wake.is_none_or(|host| [words[6], words[7]] == host)
    }

    /// Counts the step's wake, from the hashes read back.
    pub(in crate::gpu::world) fn count_wake(&mut self, words: &[u32; 8]) {
        if self.wake.is_some() {
            let same = self.wake_matches(words);
            self.wake_steps[usize::from(!same)] += 1;
            self.wake_misses += u64::from(!same);
        }
    }

    /// Sends this step's timers and labels again, whole: a pass that ran the sleep changed
    /// the device's, and the step runs again (`GpuSolver::run`). Nor does the device wake
    /// in that run: the host's records, sent, are awake already.
    pub(in crate::gpu::world) fn resend_sleep(&mut self) {
        self.wake = None;
        self.woken_here.clear();
        if self.sleep_params.is_some() {
            self.sleep.forget();
            let cap = self.device.limits().max_storage_buffer_binding_size;
            let (device, queue) = (&self.device, &self.queue);
            self.sent += (self.sleep).write(device, queue, &self.sleep_scratch, cap);
        }
    }

    /// Pushes the sleep's passes, after the continuous stage's, when it runs this step.
    pub(in crate::gpu::world) fn push_sleep<'a>(
        &'a self,
        plan: &mut Plan<'a>,
        solver: SleepBuffers<'a>,
        contacts: usize,
    ) {
        let Some(mut params) = self.sleep_params else {
            return;
        };
        params.contacts = contacts as u32;
        let k = &self.sleep_kernels;
        let (sleep, bodies) = (&self.sleep.buffer.buffer, &self.bodies.buffer.buffer);
        let (hash, pairs) = (&self.hash, &self.joint_pairs.buffer.buffer);
        let body = groups_of(params.bodies);
        let (over_contacts, over_joints) = (groups_of(contacts as u32), groups_of(params.joints));
        let timers = [
            (SLEEP, sleep),
            (BODIES, bodies),
            (STATES, solver.states),
            (HASH, hash),
        ];
        plan.push(&k.sleep_timers, &timers, params, body);
        let on_contacts = [
            (CONTACT_WORDS, solver.contacts),
            (BODIES, bodies),
            (SLEEP, sleep),
            (HASH, hash),
        ];
        let on_joints = [
            (JOINT_PAIRS, pairs),
            (BODIES, bodies),
            (SLEEP, sleep),
            (HASH, hash),
        ];
        plan.push(&k.join_contacts, &on_contacts, params, over_contacts);
        plan.push(&k.join_joints, &on_joints, params, over_joints);
        let least = [(BODIES, bodies), (SLEEP, sleep), (HASH, hash)];
        plan.push(&k.least_timers, &least, params, body);
        plan.push(&k.kinematic_contacts, &on_contacts, params, over_contacts);
        plan.push(&k.kinematic_joints, &on_joints, params, over_joints);
        plan.push(&k.fall_asleep, &timers, params, body);
    }

    /// After the host's sleep: whether the device's, if it ran this step, left every
    /// body's timer and label as the host's did (`None`: the host slept alone).
    pub(in crate::gpu::world) fn check_sleep(&mut self, world: &World) -> Option<bool> {
        let Some(device) = self.device_sleep_hash.take() else {
            self.sleep_steps[1] += 1;
            return None;
        };
        let (timers, islands) = world.sleep_records();
        let host = (timers.iter().zip(islands).enumerate()).fold(0u32, |sum, (i, (&t, &l))| {
            sum.wrapping_add(sleep_hash(i, t, l))
        });
        let same = device == host;
        self.sleep_steps[usize::from(!same)] += 1;
        self.sleep_misses += u64::from(!same);
        if same {
            // The device's records are the host's now.
            self.sleep.hold(sleep_records(timers, islands));
        } else {
            self.sleep.forget();
        }
        Some(same)
    }
}

/// Each body's record from its timer and label.
fn sleep_records<'a>(
    timers: &'a [f32],
    islands: &'a [u32],
) -> impl ExactSizeIterator<Item = SleepGpu> + 'a {
    timers
        .iter()
        .zip(islands)
        .map(|(&timer, &island)| SleepGpu {
            timer,
            island,
            _scratch: [0; 2],
        })
}

/// The sleep's constants as the host has them, for the params.
pub(super) fn sleep_params(bodies: u32) -> SleepParamsGpu {
    SleepParamsGpu {
        bodies,
        limit: SLEEP_SPEED * SLEEP_SPEED,
        time_to_sleep: TIME_TO_SLEEP,
        ..SleepParamsGpu::zeroed()
    }
}
