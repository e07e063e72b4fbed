//! The broad phase: which colliders' boxes overlap, so that the narrow phase sees only
//! those pairs.
//!
//! ```text
//! sweep.rs       BroadPhase: sweep-and-prune over a batch of boxes, in horizontal bands
//! pair_set/      the world's persistent pairs over fat boxes (FAT_MARGIN): a box that
//!                stays inside its fat box keeps its pairs, one that leaves is swept again
//! persistent.rs  the persistent pairs as changes (begun, ended), filters asked of every
//!                pair: the CPU twin of the GPU broad phase's persistent face
//!                (`shaders/pair_set.wgsl`)
//! filter.rs      which colliders may pair at all (categories, masks, groups), decided here
//!                before any narrow-phase work
//! query_tree.rs  a bounding volume hierarchy over the colliders' boxes for the world's
//!                queries (rays, points, boxes, shape casts)
//! lbvh.rs        a linear BVH from Morton codes (Karras 2012), walked once per box: the
//!                GPU broad phase's other candidate (`shaders/lbvh.wgsl`), measured
//! sort_sweep.rs  sort-based sweep and prune, the CPU twin of the GPU broad phase
//!                (`shaders/sort_sweep.wgsl`), on radix_sort.rs and scan.rs, the twins of
//!                `radix_sort.wgsl` and `scan.wgsl`
//! ```

pub(crate) mod filter;
pub(crate) mod lbvh;
pub(crate) mod pair_set;
pub(crate) mod persistent;
pub(crate) mod query_tree;
pub(crate) mod radix_sort;
pub(crate) mod scan;
pub(crate) mod sort_sweep;
pub(crate) mod sweep;

pub use lbvh::lbvh_pairs;
pub use pair_set::FAT_MARGIN;
pub use persistent::{PairChanges, PairFilter, PersistentPairs};
pub use sort_sweep::sort_sweep;
pub use sweep::BroadPhase;
