//! What the last step found: the shape table, the colliders' poses, the contacts (between
//! colliders, and mapped to bodies), their impulses, and the events.

use super::World;
use crate::collision::manifold::{Contact, Manifold};
use crate::collision::narrow_phase::Collider;
use crate::shapes::shape::Shape;
use crate::world::events::Events;
use crate::world::handle::{BodyId, ColliderId};

impl World {
    /// The shape table: each distinct piece once, as the narrow phase receives it;
    /// [`Collider::shape`] indexes it.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes.list
    }

    /// What began, ended and hit in the last step (see [`Events`]): contact begin and end
    /// between solid colliders, hits, and sensor begin and end. Borrowed, not copied: the
    /// lists are rebuilt by each step into buffers the world keeps.
    pub fn events(&self) -> Events<'_> {
        self.contacts.events.view()
    }

    /// Every collider slot as a collider (shape index and pose) as of the end of the last
    /// step: what the narrow phase receives, and what a renderer draws. A slot whose body was
    /// removed holds its last collider until a new body takes it: skip the slots for which
    /// [`World::collider_id`] is `None` (or draw [`World::bodies`]' colliders, through
    /// [`World::body_colliders`]). All the colliders of a body carry the body's pose.
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders.records
    }

    /// The contacts found by the last step, between bodies and their colliders; normals
    /// point from the first to the second. A pair of bodies has one contact per pair of
    /// pieces in touch (a box resting in a U-shaped body touches two or three of its
    /// pieces). Pieces less than [`SPECULATIVE_DISTANCE`](crate::world::SPECULATIVE_DISTANCE) apart
    /// count: such a contact is speculative, its depths negative (minus the gap); a resting
    /// contact stays about at depth 0. They are [`World::collider_contacts`], named, in the
    /// same order. A body removed since the step is still in them, by its now stale handle,
    /// until the next step.
    pub fn contacts(&self) -> impl ExactSizeIterator<Item = WorldContact> + '_ {
        let names = &self.names;
        self.contacts.list.iter().map(move |c| WorldContact {
            bodies: [names.body(c.a), names.body(c.b)],
            colliders: [names.collider(c.a), names.collider(c.b)],
            manifold: c.manifold,
        })
    }

    /// The same contacts between collider slots (indices into [`World::colliders`];
    /// [`World::collider_id`] names them), as the narrow phase returned them.
    pub fn collider_contacts(&self) -> &[Contact] {
        &self.contacts.list
    }

    /// The accumulated normal impulse of each contact point of the last step, in the order
    /// of [`World::contacts`] and their points.
    pub fn contact_impulses(&self) -> impl Iterator<Item = f32> + '_ {
        self.solver.normal_impulses()
    }
}

/// A contact of the last step between two bodies ([`World::contacts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldContact {
    /// The bodies; the normal points from the first to the second.
    pub bodies: [BodyId; 2],
    /// The colliders in touch, each of the body at the same position.
    pub colliders: [ColliderId; 2],
    /// Normal, depth and points, world frame.
    pub manifold: Manifold,
}
