//! The GPU world's use of its [`GpuColouring`]: each step the host colours too, and the
//! device colours from its own last step while that step is the host's last (the host
//! colouring's stamps say so); else the host's colours are taken as the device's last step.
//!
//! ```text
//! colour_step(view): the step's constraints (as ContactSolver::match_and_colour lists
//!     them) and moving bodies from the view
//!     the device's last step is the host's last: up, and the passes for the solver's pass
//!         (push), then finish_step once they ran
//!     else: seed: the host's colours of this step become the device's last; the host's
//!         order is this step's
//! forget(): a step failed on the device; the next takes the host's again
//! ```

use super::GpuColouring;
use crate::dynamics::solver::{BodyState, JointModel, StepView};
use crate::error::Error;

impl GpuColouring {
    /// Makes `keys` with `colours` (per constraint, as the host's colouring gave them) the
    /// last step's, as if the device had coloured them: after the host's and the device's
    /// colourings may have parted (the world edited, a step solved on the host).
    pub(crate) fn seed(&mut self, keys: impl Iterator<Item = [u32; 2]>, colours: &[u8]) {
        self.words.clear();
        for (key, &colour) in keys.zip(colours) {
            self.words.extend([key[0], key[1], u32::from(colour), 0]);
        }
        let previous = &mut self.previous[self.current];
        let bytes = (4 * self.words.len().max(1)) as u64;
        // The list it replaces is gone with it: nothing else reads it.
        previous.reserve(&self.device, bytes, u64::MAX);
        self.queue
            .write_buffer(&previous.buffer, 0, bytemuck::cast_slice(&self.words));
        self.previous_count = colours.len();
        self.sent = 4 * self.words.len() as u64;
    }

    /// The GPU world's colouring of the step `view` holds, which the host has coloured
    /// too: when this colouring's last step is the host's last (their stamps agree), the
    /// step's input goes up and `true` says that the caller pushes the passes into its own
    /// ([`GpuColouring::push`]), binds [`GpuColouring::order_buffer`] as the solve order,
    /// and calls [`GpuColouring::finish_step`] once they ran. Else the host's colours
    /// become the device's last step, for the next, and the host's order is this step's
    /// (`false`).
    pub(crate) fn colour_step(&mut self, view: &StepView<'_, '_>) -> Result<bool, Error> {
        let motion = &*view.motion;
        let mut contacts = std::mem::take(&mut self.step_contacts);
        let mut joints = std::mem::take(&mut self.step_joints);
        let mut moving = std::mem::take(&mut self.step_moving);
        contacts.clear();
        contacts.extend(
            (view.contacts.iter().zip(view.records.iter())).map(|(c, r)| ([c.a, c.b], r.bodies())),
        );
        // As `ContactSolver::match_and_colour` lists them: a filter joint takes no colour.
        joints.clear();
        joints.extend(
            (motion.joints.iter().enumerate())
                .filter(|(_, j)| j.live && !matches!(j.model, JointModel::Filter))
                .map(|(slot, j)| (slot as u32, j.bodies)),
        );
        moving.clear();
        moving.extend(motion.states.iter().map(BodyState::moves));
        let [last, this] = view.stamps();
        let on_device = self.follows == Some(last);
        self.on_device = on_device;
        // Until this step is done here, the device's last step is no host colouring's.
        self.follows = None;
        let result = if on_device {
            self.prepare(&contacts, &joints, &moving)
        } else {
            let keys = (contacts.iter().map(|c| c.0))
                .chain(joints.iter().map(|&(slot, _)| [u32::MAX, slot]));
            self.seed(keys, view.constraint_colours());
            Ok(false)
        };
        (self.step_contacts, self.step_joints, self.step_moving) = (contacts, joints, moving);
        match result {
            Ok(true) => self.pending = Some(this),
            Ok(false) => self.follows = Some(this),
            Err(_) => {}
        }
        result
    }

    /// The passes [`GpuColouring::colour_step`] asked for ran (pushed into the caller's
    /// pass): this step is the device's last.
    pub(crate) fn finish_step(&mut self) {
        if let Some(stamp) = self.pending.take() {
            self.finish();
            self.follows = Some(stamp);
        }
    }

    /// Forgets the last step: the next [`GpuColouring::colour_step`] takes the host's.
    pub(crate) fn forget(&mut self) {
        self.follows = None;
        self.pending = None;
    }
}
