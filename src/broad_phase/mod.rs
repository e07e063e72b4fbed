//! The broad phase: which colliders' boxes overlap, so that the narrow phase sees only
//! those pairs.
//!
//! ```text
//! sweep.rs       BroadPhase: sweep-and-prune over a batch of boxes, in horizontal bands
//! pair_set.rs    the world's persistent pairs over fat boxes (FAT_MARGIN): a box that
//!                stays inside its fat box keeps its pairs, one that leaves is swept again
//! filter.rs      which colliders may pair at all (categories, masks, groups), decided here
//!                before any narrow-phase work
//! query_tree.rs  a bounding volume hierarchy over the colliders' boxes for the world's
//!                queries (rays, points, boxes, shape casts)
//! ```

pub(crate) mod filter;
pub(crate) mod pair_set;
pub(crate) mod query_tree;
mod sweep;

pub use pair_set::FAT_MARGIN;
pub use sweep::BroadPhase;
