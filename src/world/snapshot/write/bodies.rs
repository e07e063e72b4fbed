//! The writer of a live body's record: its kind and flags, its pose, then what the flags
//! say is there (velocity, user data, pending force, motion parameters, sleep island and
//! timer, mass data when the pieces do not give its bits). Its colliders follow
//! (`colliders.rs`).
//!
//! ```text
//! flags (varint): kind | BULLET | FIXED_ROTATION | USER_DATA | VELOCITY | PENDING_FORCE
//!                 | MOTION_PARAMS | ASLEEP | TIMER | MASS_DATA
//! centre, rotation; then per flag, in this order: velocity, user data, force and torque,
//! gravity scale and dampings, island, timer, mass data; then the colliders
//! ```
//!
//! A value is left out by its bits, not its value: a -0 velocity is written, since read
//! back as +0 it would give another state hash.

use glam::Vec2;

use super::super::codec::Writer;
use super::super::derived::MassMemo;
use super::super::{
    ASLEEP, BULLET, DYNAMIC, FIXED_ROTATION, KINEMATIC, MASS_DATA, MOTION_PARAMS, PENDING_FORCE,
    STATIC, TIMER, USER_DATA, VELOCITY,
};
use super::same_floats;
use crate::dynamics::body::Body;
use crate::dynamics::forces::BodyForces;
use crate::dynamics::sleep::AWAKE;
use crate::shapes::aabb::Aabb;
use crate::world::World;
use crate::world::materials::Material;

impl World {
    /// A live body's record (flags, pose, then what the flags say is there), then its
    /// colliders. `fat`: the pair set's fat boxes; `last_material`: the material written
    /// last, which a collider of the same one does not repeat; `memo`: the mass data
    /// derived so far.
    pub(super) fn write_body(
        &self,
        w: &mut Writer,
        b: usize,
        fat: &[Aabb],
        last_material: &mut Material,
        memo: &mut MassMemo,
    ) {
        let body = &self.bodies.records[b];
        let state = &self.bodies.states[b];
        let forces = &self.bodies.forces[b];
        let kind = if body.is_static {
            STATIC
        } else if body.is_kinematic {
            KINEMATIC
        } else {
            DYNAMIC
        };
        // By bits, not value: a velocity of -0 is written (read back as +0 it would give
        // another state hash, and may round another way in the next step).
        let any_bits = |xs: [f32; 3]| xs.iter().any(|x| x.to_bits() != 0);
        let (v, f) = (state.linear_velocity, forces.force);
        let velocity = any_bits([v.x, v.y, state.angular_velocity]);
        let pending = any_bits([f.x, f.y, forces.torque]);
        let params = BodyForces {
            force: Vec2::ZERO,
            torque: 0.0,
            ..*forces
        };
        let asleep = self.sleep.islands[b] != AWAKE;
        let timer = self.sleep.timers[b];
        let derived = self.derived_mass(b, memo);
        let mass_explicit = derived.is_none_or(|d| !same_mass(&d, body));
        let flags = kind
            | flag32(body.is_bullet, BULLET)
            | flag32(body.fixed_rotation, FIXED_ROTATION)
            | flag32(self.names.user_data[b] != 0, USER_DATA)
            | flag32(velocity, VELOCITY)
            | flag32(pending, PENDING_FORCE)
            | flag32(!params.is_plain(), MOTION_PARAMS)
            | flag32(asleep, ASLEEP)
            | flag32(timer.to_bits() != 0, TIMER)
            | flag32(mass_explicit, MASS_DATA);
        w.varint(u64::from(flags));
        w.vec2(self.bodies.centers[b]);
        w.vec2(self.bodies.rotations[b]);
        if velocity {
            w.vec2(state.linear_velocity);
            w.f32(state.angular_velocity);
        }
        if self.names.user_data[b] != 0 {
            w.u64(self.names.user_data[b]);
        }
        if pending {
            w.vec2(forces.force);
            w.f32(forces.torque);
        }
        if !params.is_plain() {
            w.f32(forces.gravity_scale);
            w.f32(forces.linear_damping);
            w.f32(forces.angular_damping);
        }
        if asleep {
            w.len(self.sleep.islands[b] as usize);
        }
        if timer.to_bits() != 0 {
            w.f32(timer);
        }
        if mass_explicit {
            w.vec2(body.local_center);
            w.f32(body.inv_mass);
            w.f32(body.inv_inertia);
            w.f32(body.max_extent);
            w.f32(body.min_extent);
        }
        self.write_colliders(w, b, fat, last_material);
    }
}

/// Whether two bodies' mass data have the same bits: the reader's derived mass data may
/// then stand for the stored.
fn same_mass(a: &Body, b: &Body) -> bool {
    let floats = |x: &Body| {
        [
            x.local_center.x,
            x.local_center.y,
            x.inv_mass,
            x.inv_inertia,
            x.max_extent,
            x.min_extent,
        ]
    };
    same_floats(&floats(a), &floats(b))
}

/// `bit` when `on`, else 0: one flag of a flags varint.
fn flag32(on: bool, bit: u32) -> u32 {
    if on { bit } else { 0 }
}
