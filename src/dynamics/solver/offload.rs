//! The solver's stages run somewhere other than the host's threads ([`OffloadedStages`]):
//! the GPU world's solver (`gpu/world/`) takes a step's stages, as [`StagePlan::run`]
//! would run them, from the view [`StepView`] gives, and writes back what they write.
//!
//! ```text
//! ContactSolver::step: match and colour, prepare the joints (host), then either
//!     StagePlan::run (host threads), or
//!     match and list the constraints (ConstraintGraph::defer), prepare the joints, then
//!     OffloadedStages::run(view): the colouring and the same stages elsewhere, the same
//!         bits; the host's graph takes the colours back
//!         (on an error: the colouring and StagePlan::run after all, and the error kept
//!         for the caller)
//! ```
//!
//! The view hands out the step's inputs as they are before the first stage (the records'
//! warm starts, the states before the clamp) and takes back the stages' outputs: states,
//! poses, the angle each body turned, the solved constraints' impulses and hit measures.
//! A constraint between two bodies that stay still is in no colour, and its record keeps
//! the match's warm start, as on the host.
//!
//! [`StagePlan::run`]: super::stages::StagePlan::run

// Only the GPU world offloads the stages: without the `gpu` feature the seam has no user.
#![cfg_attr(not(feature = "gpu"), allow(dead_code))]

use super::colouring::ConstraintGraph;
use super::stages::StepConstants;
use super::{BodyMotion, ContactImpulses, HitRecord};
use crate::collision::manifold::Contact;
use crate::dynamics::state::Softness;
use crate::error::Error;

/// Stages of a step run elsewhere, to the bits [`StagePlan::run`](super::stages::StagePlan::run)
/// gives on the host.
pub(crate) trait OffloadedStages: Send {
    /// Colours the step's constraints as `ConstraintGraph::colour` would, runs every
    /// stage of the step `view` describes, and writes the results back into it, the
    /// colours included. On an error nothing of the view need be written: the solver runs the stages on the
    /// host instead.
    fn run(&mut self, view: &mut StepView<'_, '_>) -> Result<(), Error>;

    /// The inputs of this step's contacts (manifold, bodies, material) as the collision
    /// stage made them on the device, when it did: [`run`](Self::run) takes them in place
    /// of the host's list's when the two hash the same (`gpu/collision/recycle/`).
    #[cfg(feature = "gpu")]
    fn take_contacts(&mut self, contacts: Option<crate::gpu::contact_input::DeviceContacts>) {
        let _ = contacts;
    }

    /// The sleep's state as the step's solve finds it (after the host woke what it wakes
    /// before the solve): stages that also sleep the bodies after the solve take it here.
    fn take_sleep(&mut self, input: &SleepInput<'_>) {
        let _ = input;
    }
}

/// What a step's sleep starts from (`Sleep::update`'s inputs besides the bodies and the
/// contacts): each body's timer and island label, each joint slot's bodies (`[u32::MAX;
/// 2]` for a vacant one), and the step's length; and what the wake before the solve did:
/// the bodies `Sleep::wake_touched` woke (`None`: no body slept, it looked at nothing).
pub(crate) struct SleepInput<'a> {
    pub timers: &'a [f32],
    pub islands: &'a [u32],
    pub joint_pairs: &'a [[u32; 2]],
    pub dt: f32,
    pub touch_woken: Option<&'a [u32]>,
}

/// One step of the solver as the offloaded stages see it.
pub(crate) struct StepView<'s, 'm> {
    pub substeps: usize,
    pub constants: StepConstants,
    /// The contact softness, and the stiffer one against a body that does not move.
    pub soft: Softness,
    pub static_soft: Softness,
    pub contacts: &'s [Contact],
    /// Per contact: its bodies, mixed material and warm start in; the accumulated impulses
    /// out (solved constraints only).
    pub records: &'s mut [ContactImpulses],
    /// Per contact, when hit events are asked for: the approach speed and largest normal
    /// impulse per point out (zeros stay for unsolved ones).
    pub hit_records: Option<&'s mut [HitRecord]>,
    /// The host's graph of the step's constraints, listed and not coloured
    /// (`ConstraintGraph::defer`): the stages colour them, from the colours of
    /// [`StepView::last_step`] (see [`StepView::stamps`]).
    pub graph: &'s ConstraintGraph,
    /// Out: per constraint (the contacts, then the coloured joints) the colour the stages
    /// gave it, which are the host's colouring's; the host's graph takes them.
    pub colours: &'s mut Vec<u8>,
    /// The joints' rigid softness (twice the contact hertz, `JOINT_DAMPING_RATIO`).
    pub joint_soft: Softness,
    pub motion: &'s mut BodyMotion<'m>,
}

impl StepView<'_, '_> {
    /// The last step's constraints' keys and colours (as the host's graph holds them): a
    /// colouring elsewhere that did not colour the last step itself starts from these.
    pub(crate) fn last_step(&self) -> (&[[u32; 2]], &[u8]) {
        self.graph.last_step()
    }

    /// The stamps of the host's last colouring and of this step's
    /// (`ConstraintGraph::stamps`): a GPU colouring whose last step is the host's last
    /// colours this one from its own last step.
    pub(crate) fn stamps(&self) -> [u64; 2] {
        self.graph.stamps()
    }
}

impl ContactImpulses {
    /// The two bodies of the contact, A's then B's.
    pub(crate) fn bodies(&self) -> [u32; 2] {
        self.bodies
    }

    /// The mixed (friction, restitution, tangent speed).
    pub(crate) fn material(&self) -> [f32; 3] {
        let m = &self.material;
        [m.friction, m.restitution, m.tangent_speed]
    }

    /// Per point: (normal, tangent) impulse, the warm start in and the solve's out.
    pub(crate) fn impulses(&self) -> [[f32; 2]; 2] {
        [0, 1].map(|p| [self.normal[p], self.tangent[p]])
    }

    /// Sets point `p`'s accumulated (normal, tangent) impulse.
    pub(crate) fn set_impulse(&mut self, p: usize, [normal, tangent]: [f32; 2]) {
        self.normal[p] = normal;
        self.tangent[p] = tangent;
    }
}
