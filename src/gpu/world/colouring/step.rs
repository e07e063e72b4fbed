//! The GPU world's use of its [`GpuColouring`]: the device colours every step, the host
//! only lists the constraints (`ConstraintGraph::defer`) and takes the colours back. The
//! device starts from its own last step while that step is the host graph's last (the
//! graph's stamps say so); else from the host graph's last step, sent up.
//!
//! ```text
//! colour_step(view): the step's joints (as ContactSolver::match_and_colour lists them)
//!     from the view; its contacts and moving bodies are read on the device from the
//!     solver's contact inputs and body states (colour_input)
//!     the device's last step is not the host's last (the first step, a snapshot restored,
//!         a step solved on the host): seed: the host's last step up, as the device's
//!     prepare_on_device: the joints' items kept on the device (those that changed up),
//!         room for the passes
//!     then the caller: record_joint_items (the items copied to their place in the
//!         input, after the contacts'), push_input (colour_input over the solver's
//!         buffers) and push into
//!         the solver's pass; the colour passes bind solve_buffers; the readback takes
//!         packed_colours; finish_step once they ran
//! forget(): a step failed on the device; the next is seeded
//! ```

use super::{CONTACT_WORDS, GpuColouring, INPUT_OUT, STATE_WORDS, groups};
use crate::dynamics::COLOURS;
use crate::dynamics::solver::{JointKey, JointModel, StepView};
use crate::error::Error;
use crate::gpu::plan::Plan;
use crate::gpu::world::layout::ColourParamsGpu;

impl GpuColouring {
    /// Makes `keys` with `colours` (per constraint, as the host's colouring gave them) the
    /// last step's, as if the device had coloured them: after the host's and the device's
    /// colourings may have parted (the world edited, a step solved on the host). Returns
    /// the bytes sent.
    pub(crate) fn seed(&mut self, keys: &[[u32; 2]], colours: &[u8]) -> u64 {
        self.words.clear();
        for (key, &colour) in keys.iter().zip(colours) {
            self.words.extend([key[0], key[1], u32::from(colour), 0]);
        }
        let previous = &mut self.previous[self.current];
        let bytes = (4 * self.words.len().max(1)) as u64;
        // The list it replaces is gone with it: nothing else reads it.
        previous.reserve(&self.device, bytes, u64::MAX);
        self.queue
            .write_buffer(&previous.buffer, 0, bytemuck::cast_slice(&self.words));
        self.previous_count = colours.len();
        self.previous_colours = colours_in_use(colours);
        4 * self.words.len() as u64
    }

    /// The GPU world's colouring of the step `view` holds: the joints' items that changed
    /// go up (and, when this colouring's last step is not the host graph's last, the
    /// host's last step first), and `true` says that the caller records
    /// [`GpuColouring::record_joint_items`] and pushes the passes into its own
    /// ([`GpuColouring::push_input`], with the solver's states and contact inputs, which
    /// hold the rest of the input; then [`GpuColouring::push`]), binds
    /// [`GpuColouring::order_buffer`] and [`GpuColouring::solve_buffers`], and calls
    /// [`GpuColouring::finish_step`] once they ran; `false`, that the step has no
    /// constraint to colour.
    pub(crate) fn colour_step(&mut self, view: &StepView<'_, '_>) -> Result<bool, Error> {
        let motion = &*view.motion;
        let mut joints = std::mem::take(&mut self.step_joints);
        // As `ContactSolver::match_and_colour` lists them: a filter joint takes no colour.
        joints.clear();
        joints.extend(
            (motion.joints.iter().enumerate())
                .filter(|(_, j)| j.live && !matches!(j.model, JointModel::Filter))
                .map(|(slot, j)| (slot as u32, j.bodies)),
        );
        let [last, this] = view.stamps();
        self.seeded = self.follows != Some(last);
        // Until this step is done here, the device's last step is no host colouring's.
        self.follows = None;
        let seed = if self.seeded {
            let (keys, colours) = view.last_step();
            self.seed(keys, colours)
        } else {
            0
        };
        let bodies = motion.states.len();
        let result = self.prepare_on_device(view.contacts.len(), &joints, bodies);
        self.sent += seed;
        self.step_joints = joints;
        match result {
            Ok(true) => self.pending = Some(this),
            Ok(false) => self.follows = Some(this),
            Err(_) => {}
        }
        result
    }

    /// The slots of the step's coloured joints, in constraint order (after the contacts).
    pub(crate) fn step_joint_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.step_joints.iter().map(|&(slot, _)| slot)
    }

    /// Records in `encoder`, before the step's passes: the joints' items copied from where
    /// the device keeps them to their place in this step's input (after its contacts').
    pub(crate) fn record_joint_items(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some((at, bytes)) = self.joint_copy.filter(|&(_, bytes)| bytes > 0) {
            let items = &self.joint_items.buffer.buffer;
            encoder.copy_buffer_to_buffer(items, 0, &self.input.buffer, at, bytes);
        }
    }

    /// The passes [`GpuColouring::colour_step`] asked for ran (pushed into the caller's
    /// pass): this step is the device's last.
    pub(crate) fn finish_step(&mut self) {
        if let Some(stamp) = self.pending.take() {
            self.finish();
            self.follows = Some(stamp);
        }
    }

    /// The colours of the step that ran last (per constraint, read back): how many it used
    /// is what the next step's kept colours stay below ([`GpuColouring::colours_to_dispatch`]).
    pub(crate) fn set_last_colours(&mut self, colours: &[u8]) {
        self.previous_colours = colours_in_use(colours);
    }

    /// What the solver's colour passes dispatch for the step of `view`, after
    /// [`GpuColouring::colour_step`]: the colours its colouring can use, and the overflow's
    /// chunks for as many constraints as can end there, so that colours no constraint can
    /// take cost no dispatch (on an H200 a dispatch costs some 5 microseconds however
    /// little it does; a pile uses about half the colours, and none overflows).
    ///
    /// The bounds: a constraint that keeps its colour keeps one of the last step's, below
    /// the last step's count; one coloured afresh takes the lowest colour that the other
    /// constraints on its moving bodies lack (`ConstraintColouring`'s greedy and the
    /// device's), which is at most how many of them there are, its bodies' constraints
    /// counted for the moving ones (`BodyState::moves`, the bit the device reads); and it
    /// overflows only when they hold every colour, so only when they are at least
    /// `COLOURS`. The counts are over every constraint of the step, those left out too, so
    /// they can only be too large. The solver checks the colours that come back against
    /// them.
    pub(crate) fn colours_to_dispatch(&mut self, view: &StepView<'_, '_>) -> ColourBounds {
        let mut degrees = std::mem::take(&mut self.degrees);
        let states = &view.motion.states;
        let contacts = || view.records.iter().map(|r| r.bodies());
        let joints = || self.step_joints.iter().map(|&(_, bodies)| bodies);
        degrees.clear();
        degrees.resize(states.len(), 0);
        for [a, b] in contacts().chain(joints()) {
            degrees[a as usize] += 1;
            degrees[b as usize] += 1;
        }
        let others = |body: u32| {
            let moves = states[body as usize].moves();
            if moves {
                degrees[body as usize] as usize - 1
            } else {
                0
            }
        };
        let mut bounds = ColourBounds {
            colours: self.previous_colours,
            overflow: [0; 2],
        };
        let mut tally = |kind: usize, [a, b]: [u32; 2]| {
            let others = others(a) + others(b);
            bounds.colours = bounds.colours.max(others + 1);
            bounds.overflow[kind] += usize::from(others >= COLOURS);
        };
        // The overflow's kinds in `ColourPasses`' order: joints, contacts.
        joints().for_each(|pair| tally(0, pair));
        contacts().for_each(|pair| tally(1, pair));
        bounds.colours = bounds.colours.min(COLOURS);
        self.degrees = degrees;
        bounds
    }

    /// Forgets the last step: the next [`GpuColouring::colour_step`] is seeded.
    pub(crate) fn forget(&mut self) {
        self.follows = None;
        self.pending = None;
        self.joint_items.forget();
    }

    /// The GPU world's step: `contacts` contacts between `bodies` bodies, whose keys and
    /// bodies the device reads from the solver's contact inputs and whose moving bits from
    /// its body states ([`GpuColouring::push_input`]), and the `joints` (slots ascending),
    /// sent up. The host made them all, in order, so they are not checked again. Returns
    /// whether there are passes to run.
    pub(in crate::gpu) fn prepare_on_device(
        &mut self,
        contacts: usize,
        joints: &[JointKey],
        bodies: usize,
    ) -> Result<bool, Error> {
        self.start(contacts, bodies, joints, None)
    }

    /// The solve order of the last [`GpuColouring::colour`] on the device, for a kernel of
    /// the host's (the GPU world's solver reads it): one `u32` constraint index per
    /// constraint, by colour, ascending within a colour, the overflow's after the colours
    /// and the constraints left out last.
    pub fn order_buffer(&self) -> &wgpu::Buffer {
        &self.order.buffer
    }

    /// The device's buffers of the last step's solve: per colour the ranges (four `u32`: its
    /// contacts' first place and count in [`GpuColouring::order_buffer`], its joints' in
    /// the joint order), the joint order (joint slots by colour), and the solver's
    /// workgroups per colour (six `u32`: the contacts' then the joints' three words of
    /// `dispatch_workgroups_indirect`, for kernels of 64 invocations; one invocation for the
    /// overflow's).
    pub(in crate::gpu) fn solve_buffers(&self) -> [&wgpu::Buffer; 3] {
        [&self.ranges, &self.joint_order.buffer, &self.solve_args]
    }

    /// The last step's colours, four to a `u32` (the first constraint's in the low byte),
    /// and their bytes: what the GPU world reads back each step.
    pub(in crate::gpu) fn packed_colours(&self) -> (&wgpu::Buffer, u64) {
        (&self.packed.buffer, 4 * self.count.div_ceil(4) as u64)
    }

    /// Adds the pass that makes the GPU world's input (after
    /// [`GpuColouring::prepare_on_device`]) from the solver's body `states` and
    /// `contact_inputs`, before [`GpuColouring::push`]'s.
    pub(in crate::gpu) fn push_input<'a>(
        &'a self,
        plan: &mut Plan<'a>,
        states: &'a wgpu::Buffer,
        contact_inputs: &'a wgpu::Buffer,
    ) {
        let [contacts, bodies, moving_words] = self.shape;
        let params = ColourParamsGpu {
            count: self.count as u32,
            contacts: contacts as u32,
            bodies: bodies as u32,
            moving_words: moving_words as u32,
            ..ColourParamsGpu::default()
        };
        let bindings = [
            (INPUT_OUT, &self.input.buffer),
            (STATE_WORDS, states),
            (CONTACT_WORDS, contact_inputs),
        ];
        let items = moving_words.max(contacts);
        plan.push(&self.kernels.colour_input, &bindings, params, groups(items));
    }
}

/// How many colours `colours` (per constraint) use: one past the highest below the
/// overflow, 0 when none is.
fn colours_in_use(colours: &[u8]) -> usize {
    let coloured = colours.iter().filter(|&&c| usize::from(c) < COLOURS);
    coloured.max().map_or(0, |&c| usize::from(c) + 1)
}

/// What the solver's colour passes dispatch in a step
/// ([`GpuColouring::colours_to_dispatch`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ColourBounds {
    /// The colours from the first that a constraint can take: the others are not
    /// dispatched.
    pub(crate) colours: usize,
    /// The constraints that can end in the overflow: its joints, its contacts.
    pub(crate) overflow: [usize; 2],
}
