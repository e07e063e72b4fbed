//! The reader of a live body: its record (flags, pose, then what the flags say is there),
//! its colliders (`colliders.rs`), then what derives from both. Every value is held to
//! what the world's own setters accept, and to the body's kind (only a dynamic body
//! sleeps, takes a pending force or has a mass).
//!
//! ```text
//! read_body(b):
//!     record:    flags (known bits, a kind of 0 to 2); centre; rotation (unit);
//!                velocity (MOTION_LIMIT) if VELOCITY; user data if USER_DATA;
//!                force and torque if PENDING_FORCE; gravity scale and dampings if
//!                MOTION_PARAMS (as their setters check them); island if ASLEEP (dynamic
//!                bodies only); timer if TIMER (>= 0); mass data if MASS_DATA (in
//!                MASS_RANGE when dynamic, zero otherwise); no pending force unless dynamic
//!     colliders: count (>= 1), each collider                     (colliders.rs)
//!     the Body:  kind, flags, first collider and the collider links
//!     mass data: the stored, or derived from the pieces (a body shape, in MASS_RANGE)
//!     motion:    force and torque times the inverse masses within MAX_ACCELERATION;
//!                centre, rotation, velocities, forces, sleep counts into the world
//!     colliders: poses and boxes from the body's pose, the fat boxes   (colliders.rs)
//! ```
//!
//! The checks run in that order, and the first fault is the error: a check that needs the
//! mass (the force's acceleration) waits for the colliders, which the derived mass needs.

use glam::Vec2;

use super::super::codec::Reader;
use super::super::{
    ASLEEP, BULLET, DYNAMIC, FIXED_ROTATION, KIND_MASK, KINEMATIC, MASS_DATA, MOTION_PARAMS,
    PENDING_FORCE, STATIC, TIMER, USER_DATA, VELOCITY,
};
use super::Loading;
use super::values::{at, non_negative, read_unit};
use crate::dynamics::body::Body;
use crate::dynamics::forces::BodyForces;
use crate::dynamics::solver::BodyMaterial;
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::world::limits::{
    GEOMETRY_LIMIT, MAX_ACCELERATION, MOTION_LIMIT, check_damping, check_gravity_scale,
};
use crate::world::materials::Material;

/// A body's record as read, before its colliders: what the rest of the body needs.
struct Record {
    /// The body flags (see `snapshot/mod.rs`).
    flags: u32,
    /// `STATIC`, `KINEMATIC` or `DYNAMIC`.
    kind: u32,
    /// The centre of mass in the world.
    center: Vec2,
    /// The rotation `(cos, sin)`.
    rotation: Vec2,
    /// The linear velocity (zero unless `VELOCITY`).
    linear: Vec2,
    /// The angular velocity (zero unless `VELOCITY`).
    angular: f32,
    /// The pending force and torque and the motion parameters.
    forces: BodyForces,
    /// Where the pending force starts: the faults of the force are reported there.
    force_at: usize,
    /// Whether the body sleeps.
    asleep: bool,
    /// The mass data when stored (`MASS_DATA`); else it is derived from the colliders.
    mass: Option<MassData>,
}

/// A body's mass data as [`Body`] holds it.
#[derive(Clone, Copy)]
struct MassData {
    /// The centre of mass in the body's frame.
    local_center: Vec2,
    /// The inverse mass (0 unless dynamic).
    inv_mass: f32,
    /// The inverse rotational inertia (0 unless dynamic).
    inv_inertia: f32,
    /// The farthest point of the body from its centre of mass.
    max_extent: f32,
    /// The body's smallest half-width.
    min_extent: f32,
}

impl Loading {
    /// Live body `b`: its record, its colliders, then what derives from both (mass data
    /// when not stored, the colliders' poses and boxes, the fat boxes). `fat`: the pair
    /// set's fat boxes, filled for the body's colliders; `last_material`: the material read
    /// last, which a collider without one takes.
    pub(super) fn read_body(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        fat: &mut [Aabb],
        last_material: &mut Material,
    ) -> Result<(), Error> {
        let record = self.read_record(r, b)?;
        let dynamic = record.kind == DYNAMIC;
        // Where the colliders begin: the faults of what derives from them are placed here.
        let count_at = r.offset;
        let count = self.read_colliders(r, b, dynamic, fat, last_material)?;
        self.link_colliders(b, &record, count);
        let mass = self.settle_mass(b, record.mass, dynamic, count_at)?;
        check_pending(&record, &mass)?;
        self.store_motion(b, &record, &mass);
        self.place_colliders(r, b, fat, count_at)
    }

    /// The body's record up to its colliders; writes its user data and sleep state.
    fn read_record(&mut self, r: &mut Reader<'_>, b: usize) -> Result<Record, Error> {
        let flags = read_body_flags(r)?;
        let kind = flags & KIND_MASK;
        let dynamic = kind == DYNAMIC;
        let center = r.vec2("body centre", GEOMETRY_LIMIT)?;
        let rotation = read_unit(r, "body rotation")?;
        let (linear, angular) = read_velocity(r, flags)?;
        if flags & USER_DATA != 0 {
            self.world.names.user_data[b] = r.u64("user data")?;
        }
        let (forces, force_at) = read_forces(r, flags)?;
        let asleep = self.read_sleep(r, b, flags, dynamic)?;
        let mass = read_mass_data(r, flags, dynamic)?;
        if !dynamic && (forces.force != Vec2::ZERO || forces.torque != 0.0) {
            return Reader::error_at(force_at, "a pending force on a body that is not dynamic");
        }
        Ok(Record {
            flags,
            kind,
            center,
            rotation,
            linear,
            angular,
            forces,
            force_at,
            asleep,
            mass,
        })
    }

    /// The sleep island (a dynamic body's only) and the sleep timer, when flagged, into the
    /// world; whether the body sleeps.
    fn read_sleep(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        flags: u32,
        dynamic: bool,
    ) -> Result<bool, Error> {
        let w = &mut self.world;
        let asleep = flags & ASLEEP != 0;
        if asleep {
            let island_at = r.offset;
            let island = r.index("sleep island", w.bodies.slots.len())?;
            if !dynamic {
                return Reader::error_at(island_at, "a body that is not dynamic sleeps");
            }
            w.sleep.islands[b] = island as u32;
        }
        if flags & TIMER != 0 {
            w.sleep.timers[b] = non_negative(r, "sleep timer")?;
        }
        Ok(asleep)
    }

    /// The body's record in the world: its kind and flags, its first collider and the
    /// links from each of its colliders to the next (`count` of them, as read into
    /// `self.pieces`).
    fn link_colliders(&mut self, b: usize, record: &Record, count: usize) {
        let (w, slots) = (&mut self.world, &self.pieces);
        let flags = record.flags;
        let mut body = Body {
            is_static: record.kind == STATIC,
            is_kinematic: record.kind == KINEMATIC,
            is_bullet: flags & BULLET != 0,
            fixed_rotation: flags & FIXED_ROTATION != 0,
            ..Body::vacant()
        };
        body.first_collider = slots[0].0 as u32;
        body.collider_count = count as u32;
        for pair in slots.windows(2) {
            w.colliders.next[pair[0].0] = pair[1].0 as u32;
        }
        w.bodies.records[b] = body;
    }

    /// The body's mass data, `stored` or else derived from its pieces (which must make a
    /// body shape, of a mass and inertia within `MASS_RANGE` when dynamic; faults at
    /// `count_at`), set on its record.
    fn settle_mass(
        &mut self,
        b: usize,
        stored: Option<MassData>,
        dynamic: bool,
        count_at: usize,
    ) -> Result<MassData, Error> {
        let w = &mut self.world;
        let mass = match stored {
            Some(m) => m,
            None => {
                let Some(d) = w.derived_mass(b, &mut self.memo) else {
                    return Reader::error_at(count_at, "the body's pieces make no body shape");
                };
                if dynamic {
                    let mass = 1.0 / d.inv_mass;
                    let inertia = 1.0 / d.inv_inertia;
                    let range = crate::world::MASS_RANGE;
                    if !(range.contains(&mass) && range.contains(&inertia)) {
                        return Reader::error_at(count_at, "the body's mass is outside MASS_RANGE");
                    }
                }
                MassData {
                    local_center: d.local_center,
                    inv_mass: d.inv_mass,
                    inv_inertia: d.inv_inertia,
                    max_extent: d.max_extent,
                    min_extent: d.min_extent,
                }
            }
        };
        let body = &mut w.bodies.records[b];
        body.local_center = mass.local_center;
        body.inv_mass = mass.inv_mass;
        body.inv_inertia = mass.inv_inertia;
        body.max_extent = mass.max_extent;
        body.min_extent = mass.min_extent;
        Ok(mass)
    }

    /// The body's motion into the world: pose, velocities (an inverse mass for the solver
    /// only when dynamic and awake), material, forces, and the sleep counts.
    fn store_motion(&mut self, b: usize, record: &Record, mass: &MassData) {
        let w = &mut self.world;
        let dynamic = record.kind == DYNAMIC;
        w.bodies.centers[b] = record.center;
        w.bodies.rotations[b] = record.rotation;
        w.bodies.states[b].linear_velocity = record.linear;
        w.bodies.states[b].angular_velocity = record.angular;
        w.bodies.states[b].inv_mass = if dynamic && !record.asleep {
            mass.inv_mass
        } else {
            0.0
        };
        w.bodies.materials[b] = BodyMaterial {
            inv_inertia: if w.bodies.records[b].fixed_rotation {
                0.0
            } else {
                mass.inv_inertia
            },
            max_extent: mass.max_extent,
        };
        w.bodies.forces[b] = record.forces;
        w.sleep.dynamic += usize::from(dynamic);
        w.sleep.asleep += usize::from(record.asleep);
    }
}

/// The body flags: no unknown bit, and a kind of 0 to 2.
fn read_body_flags(r: &mut Reader<'_>) -> Result<u32, Error> {
    let flags_at = r.offset;
    let flags = r.varint_u32("body flags")?;
    if flags >= MASS_DATA << 1 || flags & KIND_MASK == 3 {
        return Reader::error_at(
            flags_at,
            format!("body flags {flags:#x}: unknown bits or kind"),
        );
    }
    Ok(flags)
}

/// The linear and angular velocities, zero unless `VELOCITY`.
fn read_velocity(r: &mut Reader<'_>, flags: u32) -> Result<(Vec2, f32), Error> {
    let (mut linear, mut angular) = (Vec2::ZERO, 0.0);
    if flags & VELOCITY != 0 {
        linear = r.vec2("linear velocity", MOTION_LIMIT)?;
        angular = r.f32("angular velocity", MOTION_LIMIT)?;
    }
    Ok((linear, angular))
}

/// The pending force and torque (`PENDING_FORCE`) and the motion parameters
/// (`MOTION_PARAMS`: gravity scale and dampings, as their setters check them), and where
/// the force starts.
fn read_forces(r: &mut Reader<'_>, flags: u32) -> Result<(BodyForces, usize), Error> {
    let mut forces = BodyForces::default();
    let force_at = r.offset;
    if flags & PENDING_FORCE != 0 {
        forces.force = r.vec2("force", f32::MAX)?;
        forces.torque = r.f32("torque", f32::MAX)?;
    }
    let params_at = r.offset;
    if flags & MOTION_PARAMS != 0 {
        forces.gravity_scale = r.raw_f32("gravity scale")?;
        forces.linear_damping = r.raw_f32("linear damping")?;
        forces.angular_damping = r.raw_f32("angular damping")?;
        at(params_at, check_gravity_scale(forces.gravity_scale))?;
        at(
            params_at,
            check_damping("linear_damping", forces.linear_damping),
        )?;
        at(
            params_at,
            check_damping("angular_damping", forces.angular_damping),
        )?;
    }
    Ok((forces, force_at))
}

/// The stored mass data, when `MASS_DATA`: inverse mass and inertia within `MASS_RANGE`
/// (inverted) for a dynamic body, zero for another; extents of 0 or more.
fn read_mass_data(
    r: &mut Reader<'_>,
    flags: u32,
    dynamic: bool,
) -> Result<Option<MassData>, Error> {
    if flags & MASS_DATA == 0 {
        return Ok(None);
    }
    let mass_at = r.offset;
    let local_center = r.vec2("local centre", GEOMETRY_LIMIT)?;
    let inv_mass = r.f32("inverse mass", f32::MAX)?;
    let inv_inertia = r.f32("inverse inertia", f32::MAX)?;
    let max_extent = r.f32("max extent", GEOMETRY_LIMIT)?;
    let min_extent = r.f32("min extent", f32::INFINITY)?;
    let range = 1.0 / *crate::world::MASS_RANGE.end()..=1.0 / *crate::world::MASS_RANGE.start();
    let ok = if dynamic {
        range.contains(&inv_mass) && range.contains(&inv_inertia)
    } else {
        inv_mass == 0.0 && inv_inertia == 0.0
    };
    if !ok || max_extent < 0.0 || min_extent < 0.0 {
        return Reader::error_at(mass_at, "mass data out of range for the body's kind");
    }
    Ok(Some(MassData {
        local_center,
        inv_mass,
        inv_inertia,
        max_extent,
        min_extent,
    }))
}

/// The pending force and torque within `MAX_ACCELERATION` once divided by the mass (the
/// fault at the force's offset).
fn check_pending(record: &Record, mass: &MassData) -> Result<(), Error> {
    let forces = &record.forces;
    for value in [forces.force.x, forces.force.y] {
        if (value * mass.inv_mass).abs() > MAX_ACCELERATION {
            return Reader::error_at(record.force_at, "pending force past MAX_ACCELERATION");
        }
    }
    if (forces.torque * mass.inv_inertia).abs() > MAX_ACCELERATION {
        return Reader::error_at(record.force_at, "pending torque past MAX_ACCELERATION");
    }
    Ok(())
}
