//! The reader of the slots section (bodies, colliders, joints: generations, live flags,
//! free, removed and retired lists), and the per-slot arrays sized from it, every slot
//! vacant until a record fills it.
//!
//! ```text
//! per kind: count; per slot a varint (generation << 1 | live);
//!           the free, removed and retired lists: count, slots
//! every vacant slot in exactly one list: free and removed with a generation > 0,
//! retired at u32::MAX; the handles (ids) from the generations
//! ```

use glam::Vec2;

use super::super::codec::Reader;
use super::{Loading, emptied, refill};
use crate::broad_phase::filter::Filter;
use crate::collision::narrow_phase::Collider;
use crate::dynamics::body::{Body, NO_COLLIDER};
use crate::dynamics::forces::BodyForces;
use crate::dynamics::sleep::AWAKE;
use crate::dynamics::solver::{BodyMaterial, BodyState, JointConstraint};
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;
use crate::world::handle::{BodyId, ColliderId, JointId, Slots};
use crate::world::joints::VACANT_PAIR;
use crate::world::materials::Material;

impl Loading {
    /// Sizes the per-slot arrays as vacant slots; the records fill the live ones.
    pub(super) fn prepare_slots(&mut self) {
        let (w, spare) = (&mut self.world, &mut self.spare);
        let (bodies, colliders) = (w.bodies.slots.len(), w.colliders.slots.len());
        w.names.body_ids = emptied(&mut spare.names.body_ids);
        w.names.body_ids.extend(
            (0..bodies)
                .map(|s| BodyId::new(w.number, s as u32, slot_generation(&w.bodies.slots, s))),
        );
        w.names.user_data = refill(&mut spare.names.user_data, bodies, 0);
        w.bodies.records = refill(&mut spare.bodies.records, bodies, Body::vacant());
        w.bodies.centers = refill(&mut spare.bodies.centers, bodies, Vec2::ZERO);
        w.bodies.rotations = refill(&mut spare.bodies.rotations, bodies, Vec2::X);
        w.bodies.states = refill(
            &mut spare.bodies.states,
            bodies,
            BodyState {
                delta_rotation: Vec2::X,
                ..BodyState::default()
            },
        );
        w.bodies.materials = refill(
            &mut spare.bodies.materials,
            bodies,
            BodyMaterial {
                inv_inertia: 0.0,
                max_extent: 0.0,
            },
        );
        w.bodies.forces = refill(&mut spare.bodies.forces, bodies, BodyForces::default());
        w.sleep.timers = refill(&mut spare.sleep.timers, bodies, 0.0);
        w.sleep.islands = refill(&mut spare.sleep.islands, bodies, AWAKE);
        w.names.collider_ids = emptied(&mut spare.names.collider_ids);
        w.names.collider_ids.extend(
            (0..colliders).map(|s| {
                ColliderId::new(w.number, s as u32, slot_generation(&w.colliders.slots, s))
            }),
        );
        w.colliders.next = refill(&mut spare.colliders.next, colliders, NO_COLLIDER);
        w.colliders.records = refill(
            &mut spare.colliders.records,
            colliders,
            Collider {
                shape: 0,
                transform: Transform::IDENTITY,
            },
        );
        w.names.collider_bodies = refill(&mut spare.names.collider_bodies, colliders, 0);
        w.colliders.filters = refill(&mut spare.colliders.filters, colliders, Filter::default());
        w.colliders.sensors = refill(&mut spare.colliders.sensors, colliders, false);
        w.colliders.surfaces = refill(
            &mut spare.colliders.surfaces,
            colliders,
            Material::default().surface(),
        );
        w.colliders.densities = refill(&mut spare.colliders.densities, colliders, 1.0);
        w.colliders.aabbs = refill(&mut spare.colliders.aabbs, colliders, Aabb::EMPTY);
        self.claimed = refill(&mut self.claimed, colliders, false);
        let joints = w.joints.slots.len();
        w.joints.ids = (0..joints)
            .map(|s| JointId::new(w.number, s as u32, slot_generation(&w.joints.slots, s)))
            .collect();
        w.joints.constraints = refill(
            &mut spare.joints.constraints,
            joints,
            JointConstraint::vacant(),
        );
        w.joints.pairs = refill(&mut spare.joints.pairs, joints, VACANT_PAIR);
        w.joints.collide_connected = refill(&mut spare.joints.collide_connected, joints, true);
        w.joints.breaking = refill(&mut spare.joints.breaking, joints, [f32::INFINITY; 2]);
    }
}

impl Slots {
    /// One kind's slots (`what`: "body", "collider", "joint"): generations and live flags,
    /// then the three lists of vacant slots.
    pub(super) fn read_snapshot(r: &mut Reader<'_>, what: &str) -> Result<Slots, Error> {
        let len = r.count(&format!("{what} slot count"), 1)?;
        let mut slots = Slots::default();
        for _ in 0..len {
            let at = r.offset;
            let v = r.varint("slot generation")?;
            let generation = u32::try_from(v >> 1)
                .or_else(|_| Reader::error_at(at, format!("{what} slot generation past u32")))?;
            slots.generations.push(generation);
            slots.live.push(v & 1 == 1);
        }
        slots.live_count = slots.live.iter().filter(|&&l| l).count();
        // Every vacant slot is in exactly one list: free (for the next add), removed (freed at
        // the next step) or retired (its generation spent).
        let mut listed = vec![false; len];
        for list in 0..3 {
            let name = ["free", "removed", "retired"][list];
            let count = r.count(&format!("{what} {name} list"), 1)?;
            let mut entries = Vec::with_capacity(count);
            for _ in 0..count {
                let at = r.offset;
                let s = r.index(name, len)?;
                if slots.live[s] || listed[s] {
                    return Reader::error_at(
                        at,
                        format!("{what} slot {s} is live or listed twice"),
                    );
                }
                let g = slots.generations[s];
                let ok = if list == 2 { g == u32::MAX } else { g > 0 };
                if !ok {
                    return Reader::error_at(
                        at,
                        format!("{what} slot {s}'s generation {g} does not fit the {name} list"),
                    );
                }
                listed[s] = true;
                entries.push(s as u32);
            }
            match list {
                0 => slots.free = entries,
                1 => slots.removed = entries,
                _ => slots.retired = entries,
            }
        }
        if let Some(s) = (0..len).find(|&s| !slots.live[s] && !listed[s]) {
            return r.fail(format!("vacant {what} slot {s} is in no list"));
        }
        Ok(slots)
    }
}

/// The handle a slot's last (or current) occupant had: a vacant slot's generation moved
/// on when it was removed, unless it was retired.
fn slot_generation(slots: &Slots, s: usize) -> u32 {
    let g = slots.generations[s];
    if slots.live[s] || g == u32::MAX {
        g
    } else {
        g - 1
    }
}
