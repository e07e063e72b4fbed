//! Collision filters and sensors of the world's colliders. A changed filter takes effect at
//! the next step: the pair set tests the collider's pairs again (`PairSet::invalidate`).

use super::World;
use crate::error::Error;
use crate::filter::Filter;
use crate::manifold::Contact;

/// The filter if it names a category, else an error saying so: a collider in no category
/// could touch nothing, which is surely a mistake (a mask of 0 says "touch nothing" on
/// purpose, and is accepted).
pub(super) fn checked(filter: Filter) -> Result<Filter, Error> {
    if filter.category_bits == 0 {
        Err(Error::InvalidFilter {
            filter,
            rule: "category_bits must name at least one category (a bit set)",
        })
    } else {
        Ok(filter)
    }
}

impl World {
    /// Sets the collision filter of every collider of `body`; it takes effect from the next
    /// step, which drops the body's pairs the filter now refuses (with a contact end event
    /// for those that touched) and finds those it now allows. Wakes the body. An index out
    /// of range or a filter in no category is an error naming it.
    pub fn set_filter(&mut self, body: usize, filter: Filter) -> Result<(), Error> {
        if body >= self.bodies.len() {
            return Err(Error::BodyIndexOutOfRange {
                body,
                body_count: self.bodies.len(),
            });
        }
        let filter = checked(filter)?;
        for collider in self.bodies[body].colliders() {
            self.set_collider_filter(collider, filter)?;
        }
        Ok(())
    }

    /// Sets one collider's filter, as [`World::set_filter`] does a whole body's.
    pub fn set_collider_filter(&mut self, collider: usize, filter: Filter) -> Result<(), Error> {
        let Some(&body) = self.collider_bodies.get(collider) else {
            return Err(Error::ColliderIndexOutOfRange {
                collider,
                collider_count: self.colliders.len(),
            });
        };
        self.filters[collider] = checked(filter)?;
        self.has_filters |= filter != Filter::default();
        self.pair_set.invalidate(collider);
        // The body and all it touches wake: a body asleep on this one may lose its support.
        self.wake(body as usize);
        let c = collider as u32;
        for k in 0..self.collider_contacts.len() {
            let Contact { a, b, .. } = self.collider_contacts[k];
            if a == c || b == c {
                let other = if a == c { b } else { a };
                self.wake(self.collider_bodies[other as usize] as usize);
            }
        }
        Ok(())
    }

    /// A collider's filter, or `None` when there is no such collider.
    pub fn collider_filter(&self, collider: usize) -> Option<Filter> {
        self.filters.get(collider).copied()
    }

    /// Whether the collider is a sensor ([`BodyDef::is_sensor`]), or `None` when there is
    /// no such collider.
    pub fn is_sensor(&self, collider: usize) -> Option<bool> {
        self.sensors.get(collider).copied()
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
