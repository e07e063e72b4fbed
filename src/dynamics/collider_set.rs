//! The colliders, one part of the world: a struct of arrays indexed by collider slot (one
//! collider per convex piece of a body), with what the broad phase, the narrow phase, the
//! contacts and the continuous stage read of them.
//!
//! ```text
//! per collider slot:  slots     generation, live flag (`handle.rs`)
//!                     records   shape table entry and world pose (the narrow phase's input)
//!                     next      the next collider of its body (`Body::colliders`)
//!                     aabbs     world box (empty for a removed collider)
//!                     filters, sensors, surfaces, densities
//! statics:            the colliders of static bodies, the continuous stage's obstacles,
//!                     with a count of their changes (`static_revision`)
//! ```
//!
//! `has_sensors` and `has_filters` say whether any collider is a sensor or has a filter
//! other than the default (set on adding one, never cleared before a snapshot is read):
//! without, the broad phase and the pair passes skip those tests.

use crate::broad_phase::filter::Filter;
use crate::collision::narrow_phase::Collider;
use crate::dynamics::solver::ColliderSurface;
use crate::shapes::aabb::Aabb;
use crate::world::handle::Slots;

/// The world's colliders (see the module header).
#[derive(Clone, Debug, Default)]
pub(crate) struct ColliderSet {
    pub slots: Slots,
    pub records: Vec<Collider>,
    /// Per collider slot: the next collider of its body (`Body::colliders`).
    pub next: Vec<u32>,
    pub aabbs: Vec<Aabb>,
    /// Per collider: its collision filter, and whether it is a sensor.
    pub filters: Vec<Filter>,
    pub sensors: Vec<bool>,
    /// Per collider: its material as the contacts read it, and its density.
    pub surfaces: Vec<ColliderSurface>,
    pub densities: Vec<f32>,
    pub has_sensors: bool,
    pub has_filters: bool,
    /// Colliders of static bodies: the obstacles every fast body is swept against.
    pub statics: Vec<u32>,
    /// Counts the changes to the static colliders (added, removed, moved): the continuous
    /// stage's tree over them is built again when it finds another count.
    pub static_revision: u64,
}
