//! What the last step found: the shape table, the colliders' poses, the contacts (between
//! colliders, and mapped to bodies), their impulses, and the events.

use super::World;
use crate::events::Events;
use crate::manifold::Contact;
use crate::narrow_phase::Collider;
use crate::shape::Shape;

impl World {
    /// The shape table: each distinct piece once, as the narrow phase receives it;
    /// [`Collider::shape`] indexes it.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// What began, ended and hit in the last step (see [`Events`]): contact begin and end
    /// between solid colliders, hits, and sensor begin and end. Borrowed, not copied: the
    /// lists are rebuilt by each step into buffers the world keeps.
    pub fn events(&self) -> Events<'_> {
        self.events.view()
    }

    /// Every piece of every body as a collider (shape index and pose) as of the end of the
    /// last step: what a renderer draws. A body's colliders are contiguous
    /// ([`World::body_colliders`]) and all carry the body's pose.
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The contacts found by the last step between bodies: `a` and `b` are body indices and
    /// normals point from `a` to `b`. A pair of bodies has one contact per pair of pieces
    /// in touch (a box resting in a U-shaped body touches two or three of its pieces).
    /// Pieces less than [`SPECULATIVE_DISTANCE`](crate::SPECULATIVE_DISTANCE) apart count: such a contact is speculative,
    /// its depths negative (minus the gap); a resting contact stays about at depth 0.
    /// They are [`World::collider_contacts`] with the collider indices replaced by their
    /// bodies', in the same order (colliders are numbered in body order, so `a < b` still).
    pub fn contacts(&self) -> impl ExactSizeIterator<Item = Contact> + '_ {
        self.collider_contacts.iter().map(|c| Contact {
            a: self.collider_bodies[c.a as usize],
            b: self.collider_bodies[c.b as usize],
            manifold: c.manifold,
        })
    }

    /// The same contacts between colliders (indices into [`World::colliders`]), as the
    /// narrow phase returned them.
    pub fn collider_contacts(&self) -> &[Contact] {
        &self.collider_contacts
    }

    /// The accumulated normal impulse of each contact point of the last step, in the order
    /// of [`World::contacts`] and their points.
    pub fn contact_impulses(&self) -> impl Iterator<Item = f32> + '_ {
        self.solver.normal_impulses()
    }
}
