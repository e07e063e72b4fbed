//! The reader of the solver's colouring: the joints' colours (after the joints section),
//! joined with the contacts' (from the pairs section), make the solver again. Colours
//! persist from step to step and decide the solve order, so they are kept, not recomputed.
//!
//! ```text
//! count; per coloured joint: slot (difference, ascending), its two bodies (within the
//! moving bodies' words), colour
//! ContactSolver::restored(contacts, joints): each colour one the graph has, and no two
//! constraints of a colour sharing a moving body; else the first constraint that breaks
//! it is the fault, placed at the moving bodies' words
//! ```

use super::super::codec::Reader;
use super::Loading;
use crate::dynamics::solver::{ContactSolver, WarmStart};
use crate::error::Error;

/// The contacts' colouring as the pairs section gives it, kept until the joints' colours
/// are read after the joints.
pub(super) struct ContactColouring {
    /// The contacts' warm starts, in pair order.
    pub(super) warm: Vec<WarmStart>,
    /// Per warm start, its bodies.
    pub(super) bodies: Vec<[u32; 2]>,
    /// Per warm start, its colour.
    pub(super) colours: Vec<u8>,
    /// The bodies the last step moved, a bit each.
    pub(super) moving: Vec<u64>,
    /// Where the moving bodies' words begin: where a colouring that is not one is reported.
    pub(super) words_at: usize,
}

impl Loading {
    /// The joints' colours as the last step gave them (a joint may have been removed since:
    /// its slot and bodies are the step's), and the solver from them and the contacts'.
    pub(super) fn read_colouring(
        &mut self,
        r: &mut Reader<'_>,
        contacts: ContactColouring,
    ) -> Result<(), Error> {
        let ContactColouring {
            warm,
            mut bodies,
            mut colours,
            moving,
            words_at,
        } = contacts;
        let count = r.count("joint colour count", 4)?;
        let mut slots = Vec::with_capacity(count);
        for _ in 0..count {
            let at = r.offset;
            let step = r.varint("joint colour's slot")?;
            let slot = slots.last().map_or(0, |&s: &u32| u64::from(s)) + step;
            if slot > u64::from(u32::MAX) || (!slots.is_empty() && step == 0) {
                return Reader::error_at(at, format!("joint colour of slot {slot}: out of order"));
            }
            let bodies_at = r.offset;
            let pair = [
                r.varint("joint colour's body")?,
                r.varint("joint colour's body")?,
            ];
            if pair.iter().any(|&b| b >= 64 * moving.len() as u64) {
                return Reader::error_at(
                    bodies_at,
                    format!("joint {slot}'s bodies {pair:?} past the moving bodies' words"),
                );
            }
            slots.push(slot as u32);
            bodies.push(pair.map(|b| b as u32));
            colours.push(r.u8("joint colour")?);
        }
        let contact_count = warm.len();
        let spare = std::mem::take(&mut self.spare.solver);
        self.world.solver = ContactSolver::restored(warm, &slots, bodies, colours, moving, spare)
            .or_else(|k| {
            let what = if k < contact_count {
                format!("contact {k}'s colour is not a colouring")
            } else {
                format!(
                    "joint {}'s colour is not a colouring",
                    slots[k - contact_count]
                )
            };
            Reader::error_at(words_at, what)
        })?;
        Ok(())
    }
}
