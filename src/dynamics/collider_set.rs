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
//! A collider's surface (`ColliderSurface`: friction, restitution, tangent speed) is what
//! the contact solver mixes per contact; it lives here, with the colliders, below the solver.
//!
//! `has_sensors` and `has_filters` say whether any collider is a sensor or has a filter
//! other than the default (set on adding one, never cleared before a snapshot is read):
//! without, the broad phase and the pair passes skip those tests.

use crate::broad_phase::filter::Filter;
use crate::collision::narrow_phase::Collider;
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

/// What of a collider's material the contacts read (its density is the world's business):
/// validated by the world, so finite, friction 0 or more and restitution from 0 to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ColliderSurface {
    pub friction: f32,
    pub restitution: f32,
    /// Speed of the surface along `right_perp(outward normal)` (see the module notes).
    pub tangent_speed: f32,
}

impl ColliderSurface {
    /// The material of a contact between colliders of surfaces `self` and `other`, mixed as
    /// Box2D mixes them. The friction's geometric mean is the product of roots: the root of
    /// the product overflows to infinity for two frictions past 1.8e19.
    #[inline]
    pub fn mix(&self, other: &ColliderSurface) -> ColliderSurface {
        ColliderSurface {
            friction: self.friction.sqrt() * other.friction.sqrt(),
            restitution: self.restitution.max(other.restitution),
            tangent_speed: self.tangent_speed + other.tangent_speed,
        }
    }
}
