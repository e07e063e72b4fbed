//! Collision filters and sensors of the world's colliders. A changed filter takes effect at
//! the next step: the pair set tests the collider's pairs again (`PairSet::invalidate`).

use super::World;
use crate::broad_phase::filter::Filter;
use crate::collision::manifold::Contact;
use crate::error::Error;
use crate::error::WorldError;
use crate::world::handle::{BodyId, ColliderId};
use crate::world::joints::JointSet;

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

    /// Per collider slot, whether a live collider holds it (the GPU world's collision
    /// stage places exactly these on the device: `gpu_step.rs`).
    #[cfg(feature = "gpu")]
    pub(crate) fn collider_live_flags(&self) -> &[bool] {
        self.colliders.slots.live_flags()
    }

    /// The world's pair set as the persistent pairs' input (`broad_phase::persistent`, and
    /// the GPU's `pair_set.wgsl`): its fat boxes, and the rule `find_pairs` asks, as a
    /// [`PairFilter`] per collider slot and the body pairs the joints keep apart
    /// (ascending). With them, `PersistentPairs::update_fat` finds the world's set. A
    /// removed collider has no fat box: it gets a point of its own on the x axis (slot `c`
    /// at x = 2c) and a filter that accepts nothing (in no category, of no group).
    #[cfg(any(test, feature = "gpu"))]
    pub(crate) fn pair_input(
        &self,
        fat: &mut Vec<crate::shapes::aabb::Aabb>,
        filters: &mut Vec<crate::broad_phase::PairFilter>,
        apart: &mut Vec<[u32; 2]>,
    ) {
        use crate::broad_phase::PairFilter;
        use crate::broad_phase::filter::BodyType;
        use crate::shapes::aabb::Aabb;
        let nothing = Filter {
            category_bits: 0,
            mask_bits: 0,
            group_index: 0,
        };
        let (saved_fat, ..) = self.contacts.pairs.saved();
        fat.clear();
        filters.clear();
        for (c, &body) in self.names.collider_bodies.iter().enumerate() {
            let b = saved_fat.get(c).copied().unwrap_or(Aabb::EMPTY);
            let live = self.colliders.slots.is_live(c) && b.min.cmple(b.max).all();
            if live {
                fat.push(b);
                filters.push(PairFilter {
                    filter: self.colliders.filters[c],
                    body,
                    body_type: self.bodies.records[body as usize].body_type(),
                    sensor: self.colliders.sensors[c],
                });
            } else {
                // Points 2 apart (exact in f32 below 2^23 slots) overlap no other removed
                // collider's: at one shared point, every pair of them was a candidate the
                // sweep found and the filter refused (quadratic in the removed colliders).
                let point = glam::Vec2::new(2.0 * c as f32, 0.0);
                fat.push(Aabb::new(point, point));
                filters.push(PairFilter {
                    filter: nothing,
                    body,
                    body_type: BodyType::Static,
                    sensor: false,
                });
            }
        }
        apart.clear();
        apart.extend(self.joints.kept_apart());
        apart.sort_unstable();
        apart.dedup();
    }
}

/// The joints' part of the pair rule: the bodies a joint keeps from colliding.
impl JointSet {
    /// Whether a joint without `collide_connected` joins body slots `a` and `b`.
    #[inline]
    pub fn keeps_apart(&self, a: usize, b: usize) -> bool {
        self.filtering > 0
            && self.edges.get(a).is_some_and(|edges| {
                edges.iter().any(|&j| {
                    let j = j as usize;
                    !self.collide_connected[j] && self.constraints[j].bodies.contains(&(b as u32))
                })
            })
    }

    /// The body pairs (`[a, b]`, `a < b`) of the live joints that keep their bodies from
    /// colliding, in slot order: what `keeps_apart` asks, as a list.
    #[cfg(any(test, feature = "gpu"))]
    pub fn kept_apart(&self) -> impl Iterator<Item = [u32; 2]> + '_ {
        let pairs = self.pairs.iter().zip(&self.collide_connected);
        pairs
            .filter(|&(&pair, &collides)| !collides && pair != super::joints::VACANT_PAIR)
            .map(|(&[a, b], _)| [a.min(b), a.max(b)])
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::broad_phase::PersistentPairs;
    use crate::shapes::polygon::Polygon;
    use crate::{BodyDef, CpuNarrowPhase, JointDef};

    /// The world's rule as `pair_input` gives it finds the world's own pair set, step
    /// after step, in a world with every case of the rule: static, kinematic and dynamic
    /// bodies; static and kinematic sensors; a negative group; a mask that refuses a
    /// category; joints that keep their bodies apart and one that lets them collide;
    /// bodies removed and added between steps.
    #[test]
    fn the_pair_input_finds_the_worlds_pair_set() {
        let mut world = World::default();
        let rect = |w: f32, h: f32| Polygon::rectangle(w, h);
        let ground = BodyDef::fixed(rect(20.0, 0.5), Vec2::new(0.0, -0.5));
        world.add_body(&ground).unwrap();
        for def in [
            BodyDef::fixed(rect(1.0, 1.0), Vec2::new(-6.0, 1.0)),
            BodyDef::kinematic(rect(1.0, 1.0), Vec2::new(6.0, 1.0)),
        ] {
            let zone = BodyDef {
                is_sensor: true,
                ..def
            };
            world.add_body(&zone).unwrap();
        }
        let platform = world
            .add_body(&BodyDef::kinematic(rect(2.0, 0.2), Vec2::new(0.0, 3.0)))
            .unwrap();
        world
            .set_velocity(platform, Vec2::new(0.5, 0.0), 0.0)
            .unwrap();
        let ghost = Filter {
            group_index: -4,
            ..Filter::default()
        };
        let picky = Filter {
            category_bits: 1 << 3,
            mask_bits: !(1 << 3),
            group_index: 0,
        };
        let mut bodies = Vec::new();
        for k in 0..60 {
            let at = Vec2::new(-7.0 + 0.45 * (k % 30) as f32, 1.0 + 0.8 * (k / 30) as f32);
            let filter = [Filter::default(), ghost, picky][k % 3];
            let def = BodyDef {
                filter,
                ..BodyDef::dynamic(rect(0.2, 0.2), at)
            };
            bodies.push(world.add_body(&def).unwrap());
        }
        // A chain whose links may not collide, and one pair that may.
        for k in 0..8 {
            let (a, b) = (bodies[k], bodies[k + 1]);
            let anchor = Vec2::new(-7.0 + 0.45 * k as f32 + 0.225, 1.0);
            let joint = JointDef {
                collide_connected: k == 3,
                ..JointDef::revolute(a, b, anchor)
            };
            world.add_joint(&joint).unwrap();
        }
        let mut twin = PersistentPairs::new();
        let (mut fat, mut filters, mut apart) = (Vec::new(), Vec::new(), Vec::new());
        let mut narrow = CpuNarrowPhase::new();
        let (mut pairs_seen, mut sensor_pairs) = (0, 0);
        for step in 0..150 {
            if step == 60 {
                for &body in bodies.iter().skip(20).step_by(7) {
                    world.remove_body(body).unwrap();
                }
            }
            if step == 90 {
                for k in 0..10 {
                    let at = Vec2::new(-5.0 + k as f32, 4.0);
                    world
                        .add_body(&BodyDef::dynamic(rect(0.3, 0.3), at))
                        .unwrap();
                }
            }
            world.step(1.0 / 60.0, &mut narrow).unwrap();
            world.pair_input(&mut fat, &mut filters, &mut apart);
            assert_eq!(apart.len(), 7, "step {step}");
            let changes = twin.update_fat(&fat, &filters, &apart).unwrap();
            assert_eq!(changes.pairs, world.contacts.pairs.pairs().len());
            assert_eq!(twin.pairs(), world.contacts.pairs.pairs(), "step {step}");
            pairs_seen += twin.pairs().len();
            let sensor =
                |&[a, b]: &[u32; 2]| filters[a as usize].sensor || filters[b as usize].sensor;
            sensor_pairs += twin.pairs().iter().filter(|p| sensor(p)).count();
        }
        // The scene made pairs of every kind the test means to cover.
        assert!(
            pairs_seen > 150 * 60 && sensor_pairs > 0,
            "{pairs_seen} {sensor_pairs}"
        );
    }

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
