//! The world's constraint colouring as a stage of its own ([`ConstraintColouring`]): the
//! colours `ConstraintGraph::colour` gives a step's contacts and joints, from their keys,
//! their bodies and which bodies move, step after step (a colour persists where it can).
//! It is the CPU twin of the GPU's colouring (`gpu::GpuColouring`,
//! `shaders/colouring.wgsl`), which must give every constraint the same colour.
//!
//! ```text
//! colour(contacts, joints, moving):
//!     check: contact keys ascend (first word below u32::MAX), joint slots ascend, bodies
//!            name a body of `moving`
//!     ConstraintGraph::colour: kept colours, then the new constraints greedily (joints in
//!            slot order, contacts in a shuffled order); see colouring.rs
//! colours(): per constraint (contacts, then joints) its colour, OVERFLOW or LEFT_OUT
//! order():   the constraints by colour, as the solver visits them
//! ranges(), joint_order(): per colour its contacts' range in order() and its joints' in
//!            joint_order() (the joint slots by colour): the solver's passes
//! ```

use std::ops::Range;

use super::colouring::{COLOUR_COUNT, ConstraintGraph, JOINT_KEY, UNSOLVED};
use crate::error::{BatchError, Error};

/// Colours before the overflow: a constraint's colour is below this, or [`OVERFLOW`], or
/// [`LEFT_OUT`].
pub const COLOURS: usize = COLOUR_COUNT;

/// The colour of a constraint that found no free colour: solved alone, after the colours.
pub const OVERFLOW: u8 = COLOUR_COUNT as u8;

/// The colour of a constraint neither of whose bodies moves: it is not solved at all.
pub const LEFT_OUT: u8 = UNSOLVED;

/// A contact to colour: its key (the pair of colliders in touch, `[low, high]`) and its two
/// bodies.
pub type ContactKey = ([u32; 2], [u32; 2]);

/// A joint to colour: its slot and its two bodies.
pub type JointKey = (u32, [u32; 2]);

/// The constraint colouring of the world's solver, step after step: each step's contacts
/// and joints get colours such that no two constraints of a colour share a moving body, a
/// constraint coloured last step keeps its colour where it can, and the new ones are
/// coloured greedily (joints in slot order, then contacts in an order shuffled from a fixed
/// seed). This is the colouring [`World::step`](crate::World::step) uses, given by itself,
/// as the reference of the GPU's (`gpu::GpuColouring`).
///
/// ```
/// use wgpu_sat::dynamics::{ConstraintColouring, LEFT_OUT};
/// let mut colouring = ConstraintColouring::new();
/// // Bodies 0 (static), 1 and 2: contacts between colliders 0-1 (bodies 0, 1) and 1-2
/// // (bodies 1, 2), and a joint in slot 0 between bodies 0 and 2.
/// let contacts = [([0, 1], [0, 1]), ([1, 2], [1, 2])];
/// let joints = [(0, [0, 2])];
/// colouring.colour(&contacts, &joints, &[false, true, true])?;
/// let colours = colouring.colours();
/// assert_ne!(colours[0], colours[1]); // both act on body 1
/// assert_ne!(colours[1], colours[2]); // both act on body 2
/// colouring.colour(&contacts, &joints, &[false, false, false])?;
/// assert!(colouring.colours().iter().all(|&c| c == LEFT_OUT)); // nothing moves
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ConstraintColouring {
    graph: ConstraintGraph,
}

impl ConstraintColouring {
    /// A colouring with no last step.
    pub fn new() -> ConstraintColouring {
        ConstraintColouring::default()
    }

    /// Colours a step's `contacts` (keys ascending) and `joints` (slots ascending) between
    /// bodies of which `moving` says which move. On an error (naming the first bad
    /// constraint) the last step's colours stay as they were.
    pub fn colour(
        &mut self,
        contacts: &[ContactKey],
        joints: &[JointKey],
        moving: &[bool],
    ) -> Result<(), Error> {
        check_colouring_input(contacts, joints, moving.len())?;
        self.graph.colour(
            moving.len(),
            contacts.iter().copied(),
            joints.iter().copied(),
            |body| moving[body as usize],
        );
        Ok(())
    }

    /// Per constraint of the last [`ConstraintColouring::colour`] (its contacts, then its
    /// joints): its colour, below [`COLOURS`], or [`OVERFLOW`], or [`LEFT_OUT`].
    pub fn colours(&self) -> &[u8] {
        self.graph.colours()
    }

    /// The constraint indices of the last [`ConstraintColouring::colour`] by colour,
    /// ascending within a colour, the overflow's last (the constraints left out are in
    /// none): the order the solver visits them in.
    pub fn order(&self) -> &[u32] {
        self.graph.solve_order().0
    }

    /// The coloured joints' slots of the last [`ConstraintColouring::colour`] by colour,
    /// ascending within a colour, the overflow's last: the order the solver visits them in.
    pub fn joint_order(&self) -> &[u32] {
        &self.graph.joint_order
    }

    /// Per colour of the last [`ConstraintColouring::colour`] (the overflow's last): its
    /// contacts' range in [`ConstraintColouring::order`] (the constraints of a colour are
    /// its contacts, then its joints) and its joints' in
    /// [`ConstraintColouring::joint_order`]. An empty range starts where the colour's
    /// constraints would.
    ///
    /// ```
    /// use wgpu_sat::dynamics::{ConstraintColouring, OVERFLOW};
    /// let mut colouring = ConstraintColouring::new();
    /// let contacts = [([0, 1], [0, 1]), ([1, 2], [1, 2])];
    /// colouring.colour(&contacts, &[(4, [0, 2])], &[false, true, true])?;
    /// let ranges = colouring.ranges();
    /// // Each contact alone in its colour; the joint shares the first with contact 0.
    /// assert_eq!(ranges[0], [0..1, 0..1]);
    /// assert_eq!(ranges[1], [2..3, 1..1]);
    /// assert_eq!(colouring.joint_order(), [4]);
    /// assert!(ranges[usize::from(OVERFLOW)].iter().all(|r| r.is_empty()));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn ranges(&self) -> [[Range<usize>; 2]; COLOURS + 1] {
        let (_, mut ranges) = self.graph.solve_order();
        // The graph leaves an empty colour's joint range at 0.
        let mut joints = 0;
        for [_, range] in &mut ranges {
            if range.start == range.end {
                *range = joints..joints;
            }
            joints = range.end;
        }
        ranges
    }
}

/// Checks a step's constraints for a colouring: contact keys ascending with a first word
/// below `u32::MAX` (that word is the joints'), joint slots ascending, every body below
/// `body_count`. Names the first constraint that fails, contacts first, then joints.
pub(crate) fn check_colouring_input(
    contacts: &[ContactKey],
    joints: &[JointKey],
    body_count: usize,
) -> Result<(), BatchError> {
    let keys = contacts.iter().copied().chain(
        joints
            .iter()
            .map(|&(slot, bodies)| ([JOINT_KEY, slot], bodies)),
    );
    let mut last: Option<[u32; 2]> = None;
    for (index, (key, bodies)) in keys.enumerate() {
        let reserved = index < contacts.len() && key[0] == JOINT_KEY;
        if reserved || last.is_some_and(|last| last >= key) {
            return Err(BatchError::UnsortedConstraint { index });
        }
        last = Some(key);
        if let Some(&body) = bodies.iter().find(|&&b| b as usize >= body_count) {
            return Err(BatchError::ConstraintBodyOutOfRange {
                constraint: index,
                body,
                body_count,
            });
        }
    }
    Ok(())
}
