//! Collision filters and sensors of the world's colliders. A changed filter takes effect at
//! the next step: the pair set tests the collider's pairs again (`PairSet::invalidate`).

use super::World;
use crate::broad_phase::filter::Filter;
use crate::collision::manifold::Contact;
use crate::error::Error;
use crate::error::WorldError;
use crate::world::handle::{BodyId, ColliderId};

/// The filter if it names a category, else an error saying so: a collider in no category
/// could touch nothing, which is surely a mistake (a mask of 0 says "touch nothing" on
/// purpose, and is accepted).
pub(super) fn checked(filter: Filter) -> Result<Filter, Error> {
    if filter.category_bits == 0 {
        Err(Error::World(WorldError::InvalidFilter {
            filter,
            rule: "category_bits must name at least one category (a bit set)",
        }))
    } else {
        Ok(filter)
    }
}

impl World {
    /// Sets the collision filter of every collider of `body`; it takes effect from the next
    /// step, which drops the body's pairs the filter now refuses (with a contact end event
    /// for those that touched) and finds those it now allows. Wakes the body. A stale handle
    /// or a filter in no category is an error naming it.
    pub fn set_filter(&mut self, body: BodyId, filter: Filter) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        let filter = checked(filter)?;
        let bodies = &self.bodies.records;
        for c in bodies[slot].colliders(&self.colliders.next) {
            self.colliders.filters[c] = filter;
            self.contacts.pairs.invalidate(c);
        }
        self.colliders.has_filters |= filter != Filter::default();
        self.wake_touching(slot);
        Ok(())
    }

    /// Sets one collider's filter, as [`World::set_filter`] does a whole body's.
    pub fn set_collider_filter(
        &mut self,
        collider: ColliderId,
        filter: Filter,
    ) -> Result<(), Error> {
        let c = self.collider_slot(collider)?;
        self.colliders.filters[c] = checked(filter)?;
        self.colliders.has_filters |= filter != Filter::default();
        self.contacts.pairs.invalidate(c);
        self.wake_touching(self.names.collider_bodies[c] as usize);
        Ok(())
    }

    /// Wakes the body in `slot` and every body its last step's contacts touch: a body
    /// asleep on this one may lose its support.
    pub(super) fn wake_touching(&mut self, slot: usize) {
        self.wake_slot(slot);
        let s = slot as u32;
        for k in 0..self.contacts.list.len() {
            let Contact { a, b, .. } = self.contacts.list[k];
            let (body_a, body_b) = (
                self.names.collider_bodies[a as usize],
                self.names.collider_bodies[b as usize],
            );
            if body_a == s || body_b == s {
                let other = if body_a == s { body_b } else { body_a };
                self.wake_slot(other as usize);
            }
        }
    }

    /// A collider's filter, or `None` for a stale handle.
    pub fn collider_filter(&self, collider: ColliderId) -> Option<Filter> {
        let c = self.collider_slot(collider).ok()?;
        Some(self.colliders.filters[c])
    }

    /// Whether the collider is a sensor ([`BodyDef::is_sensor`](crate::BodyDef::is_sensor)),
    /// or `None` for a stale handle.
    pub fn is_sensor(&self, collider: ColliderId) -> Option<bool> {
        let c = self.collider_slot(collider).ok()?;
        Some(self.colliders.sensors[c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_in_no_category_is_an_error_naming_it() {
        let none = Filter {
            category_bits: 0,
            ..Filter::default()
        };
        let e = checked(none).unwrap_err();
        assert!(e.to_string().contains("category_bits"), "{e}");
        assert!(checked(Filter::default()).is_ok());
    }
}
