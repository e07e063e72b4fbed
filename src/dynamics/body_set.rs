//! The bodies, one part of the world: a struct of arrays indexed by body slot, so that a
//! stage walks only the arrays it reads (the solver the poses and velocity states, the
//! broad phase the static records, the continuous stage the records and the poses).
//!
//! ```text
//! per body slot:  slots       generation, live flag (the handles' half, `handle.rs`)
//!                 records     the static record (`body.rs`): type, mass, its colliders
//!                 centers     centre of mass, world frame
//!                 rotations   rotation as (cos, sin)
//!                 states      velocity state as the solver advances it (`state.rs`)
//!                 materials   friction, restitution, inverse mass and inertia awake
//!                 forces      applied force and torque, gravity scale, damping
//! ```
//!
//! Invariants: every array has one entry per slot; a vacant slot holds `Body::vacant` (a
//! static body with no collider, which every stage passes over); `custom_forces` is set by
//! every change to a body's forces and cleared only by the step that finds none.

use glam::Vec2;

use crate::dynamics::body::Body;
use crate::dynamics::forces::BodyForces;
use crate::dynamics::state::{BodyMaterial, BodyState};
use crate::shapes::transform::{Transform, rotate};
use crate::world::handle::Slots;

/// The world's bodies (see the module header).
#[derive(Clone, Debug, Default)]
pub(crate) struct BodySet {
    pub slots: Slots,
    pub records: Vec<Body>,
    /// World-frame centre of mass of each body.
    pub centers: Vec<Vec2>,
    /// Rotation of each body as (cos, sin).
    pub rotations: Vec<Vec2>,
    pub states: Vec<BodyState>,
    pub materials: Vec<BodyMaterial>,
    /// Per body: forces applied since the last step, gravity scale, damping.
    pub forces: Vec<BodyForces>,
    /// Whether some body's `forces` may differ from the defaults: without, the solver adds
    /// gravity alone.
    pub custom_forces: bool,
}

impl BodySet {
    /// Body slots, live or vacant.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The pose of body slot `slot`'s local frame.
    #[inline]
    pub fn transform(&self, slot: usize) -> Transform {
        body_transform(
            &self.records[slot],
            self.centers[slot],
            self.rotations[slot],
        )
    }
}

/// The pose of a body's local frame from its centre of mass (world frame) and rotation.
#[inline]
pub(crate) fn body_transform(body: &Body, center: Vec2, rotation: Vec2) -> Transform {
    let origin = center - rotate(rotation, body.local_center);
    Transform::from_rotation(origin, rotation)
}
