//! Generational handles: [`BodyId`] and [`ColliderId`], and the slot allocator behind them.
//!
//! ```text
//! a handle = (world, index, generation)
//! add:    take a free slot (or a new one at the end); its generation is its current one
//! remove: the slot's generation += 1 and the slot is free for the next add
//! check:  world == this world, index < slots, generation == the slot's and the slot is live
//! ```
//!
//! A handle kept past its body's removal names a slot whose generation has moved on: it is
//! refused with an error naming it, never taken for the body that reuses the slot. A slot
//! whose generation would wrap is retired, never handed out again, so no handle can ever be
//! mistaken for a later one. The world number tells a handle from another world apart (a
//! clone of a world keeps its number: the same handles name the same bodies in both).

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

/// Names a body of a [`World`](crate::World): returned by
/// [`World::add_body`](crate::World::add_body), taken by every per-body call. Once the body
/// is removed the handle is stale: every call refuses it with an error naming it (or, for
/// the plain readers such as [`World::transform`](crate::World::transform), returns the
/// documented value for a stale handle), even after another body took the slot.
///
/// Handles order by slot index then generation; within one world that is the order of
/// [`World::bodies`](crate::World::bodies).
///
/// With the `serde` feature a handle is written as its world number, slot and generation,
/// as a [`JointDef`](crate::JointDef) holds it. It names a body of that world in this
/// process only: after loading saved definitions into a new world, map each saved handle
/// to the body made from its definition (by [`BodyId::index`], say, when the bodies were
/// saved in slot order), as `tests/serde.rs` does.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BodyId {
    world: u32,
    index: u32,
    generation: u32,
}

/// Names one collider (one convex piece of a body) of a [`World`](crate::World); stale
/// once its body is removed, as [`BodyId`] is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ColliderId {
    world: u32,
    index: u32,
    generation: u32,
}

/// Names a joint of a [`World`](crate::World): returned by
/// [`World::add_joint`](crate::World::add_joint); stale once the joint, or one of its
/// bodies, is removed, as [`BodyId`] is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JointId {
    world: u32,
    index: u32,
    generation: u32,
}

macro_rules! handle_methods {
    ($name:ident, $what:literal) => {
        impl $name {
            pub(crate) fn new(world: u32, index: u32, generation: u32) -> Self {
                $name {
                    world,
                    index,
                    generation,
                }
            }

            #[doc = concat!("The ", $what, "'s slot: a dense index, from 0 to the world's slot count, that a")]
            #[doc = concat!("removed ", $what, "'s successor may take again (with another generation).")]
            /// Handy to key a caller's own arrays; to name the body, keep the handle.
            pub fn index(self) -> usize {
                self.index as usize
            }

            /// How many times the slot was vacated before this handle was made.
            pub fn generation(self) -> u32 {
                self.generation
            }

            /// The number of the world that made the handle.
            pub fn world(self) -> u32 {
                self.world
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    concat!($what, " {}v{} (world {})"),
                    self.index, self.generation, self.world
                )
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($what, " {}v{}"), self.index, self.generation)
            }
        }
    };
}

handle_methods!(BodyId, "body");
handle_methods!(ColliderId, "collider");
handle_methods!(JointId, "joint");

/// Why a handle was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleReason {
    /// The handle was made by another world.
    OtherWorld,
    /// Its slot was never handed out by this world.
    NeverMade,
    /// It was removed (its slot may hold another body or collider now, with another
    /// generation).
    Removed,
}

impl fmt::Display for StaleReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StaleReason::OtherWorld => "it belongs to another world",
            StaleReason::NeverMade => "this world never made it",
            StaleReason::Removed => "it was removed",
        })
    }
}

/// A number per world, so that a handle of one world is refused by another.
pub(crate) fn next_world_number() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The slots of one kind of handle: a generation per slot, which slots are live, and the
/// free ones (reused last-freed first). Warm, it allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slots {
    pub(crate) generations: Vec<u32>,
    pub(crate) live: Vec<bool>,
    pub(crate) free: Vec<u32>,
    /// Removed, not yet free (see `remove`), and retired for good.
    pub(crate) removed: Vec<u32>,
    pub(crate) retired: Vec<u32>,
    pub(crate) live_count: usize,
}

impl Slots {
    /// A slot for a new item: a free one, else a new one at the end. Returns the slot and
    /// its generation.
    pub fn take(&mut self) -> (u32, u32) {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.generations.push(0);
                self.live.push(false);
                (self.generations.len() - 1) as u32
            }
        };
        self.live[slot as usize] = true;
        self.live_count += 1;
        (slot, self.generations[slot as usize])
    }

    /// Removes a live slot's item: its generation moves on, so handles to it go stale at
    /// once, but the slot is not handed out again before `release_removed`. A slot at the
    /// last generation is retired instead: never handed out again.
    pub fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        debug_assert!(self.live[s], "removing a slot that is not live");
        self.live[s] = false;
        self.live_count -= 1;
        match self.generations[s].checked_add(1) {
            Some(next) => {
                self.generations[s] = next;
                self.removed.push(slot);
            }
            None => self.retired.push(slot),
        }
    }

    /// Makes the slots removed so far free for new items.
    pub fn release_removed(&mut self) {
        self.free.append(&mut self.removed);
    }

    /// Whether `slot` at `generation` is live; else why not.
    pub fn check(&self, slot: u32, generation: u32) -> Result<(), StaleReason> {
        let Some(&g) = self.generations.get(slot as usize) else {
            return Err(StaleReason::NeverMade);
        };
        let live = self.live[slot as usize];
        match generation.cmp(&g) {
            std::cmp::Ordering::Less => Err(StaleReason::Removed),
            std::cmp::Ordering::Greater => Err(StaleReason::NeverMade),
            std::cmp::Ordering::Equal if live => Ok(()),
            // A free slot's generation was never handed out; a retired slot's was, last.
            std::cmp::Ordering::Equal if self.retired.contains(&slot) => Err(StaleReason::Removed),
            std::cmp::Ordering::Equal => Err(StaleReason::NeverMade),
        }
    }

    /// Whether a slot holds a live item.
    pub fn is_live(&self, slot: usize) -> bool {
        self.live.get(slot).copied().unwrap_or(false)
    }

    /// The generation a slot's live item has (meaningful for live slots).
    pub fn generation(&self, slot: usize) -> u32 {
        self.generations[slot]
    }

    /// Per slot, whether it is live.
    pub fn live_flags(&self) -> &[bool] {
        &self.live
    }

    /// Slots in all, live or not.
    pub fn len(&self) -> usize {
        self.generations.len()
    }

    /// Live slots.
    pub fn live_count(&self) -> usize {
        self.live_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_slot_comes_back_with_a_new_generation_and_the_old_one_is_refused() {
        let mut slots = Slots::default();
        let (a, ga) = slots.take();
        let (b, _) = slots.take();
        assert_ne!(a, b);
        slots.remove(a);
        assert_eq!(slots.check(a, ga), Err(StaleReason::Removed));
        let (d, _) = slots.take();
        assert_ne!(d, a, "a removed slot waits for release_removed");
        slots.release_removed();
        let (c, gc) = slots.take();
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(gc, ga + 1);
        assert_eq!(slots.check(a, ga), Err(StaleReason::Removed));
        assert_eq!(slots.check(c, gc), Ok(()));
        assert_eq!(slots.check(c, gc + 1), Err(StaleReason::NeverMade));
        assert_eq!(slots.check(7, 0), Err(StaleReason::NeverMade));
        assert_eq!(slots.live_count(), 3);
    }

    #[test]
    fn a_slot_at_the_last_generation_is_retired() {
        let mut slots = Slots::default();
        let (a, _) = slots.take();
        slots.generations[a as usize] = u32::MAX;
        slots.remove(a);
        slots.release_removed();
        let (b, gb) = slots.take();
        assert_ne!(a, b, "a retired slot is never handed out again");
        assert_eq!(gb, 0);
        assert_eq!(slots.check(a, u32::MAX), Err(StaleReason::Removed));
    }
}
