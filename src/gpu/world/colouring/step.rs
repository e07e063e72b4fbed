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
//!     up, and the passes for the solver's pass (push), then finish_step once they ran
//! forget(): a step failed on the device; the next is seeded
//! ```

use super::GpuColouring;
use crate::dynamics::solver::{JointModel, StepView};
use crate::error::Error;

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
        4 * self.words.len() as u64
    }

    /// The GPU world's colouring of the step `view` holds: the joints' items go up (and,
    /// when this colouring's last step is not the host graph's last, the host's last step
    /// first), and `true` says that the caller pushes the passes into its own
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

    /// The passes [`GpuColouring::colour_step`] asked for ran (pushed into the caller's
    /// pass): this step is the device's last.
    pub(crate) fn finish_step(&mut self) {
        if let Some(stamp) = self.pending.take() {
            self.finish();
            self.follows = Some(stamp);
        }
    }

    /// Forgets the last step: the next [`GpuColouring::colour_step`] is seeded.
    pub(crate) fn forget(&mut self) {
        self.follows = None;
        self.pending = None;
    }
}
