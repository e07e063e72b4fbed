//! Per-collider materials ([`Material`]): friction, restitution, density and a conveyor
//! belt's tangent speed, one per piece of a body, given at creation
//! ([`BodyDef::with_piece_material`]) and read or changed later ([`World::material`],
//! [`World::set_material`]).
//!
//! ```text
//! add_body: every piece takes the body's own fields (BodyDef::material), then each
//!     override of BodyDef::piece_materials in turn (the last for a piece wins)
//! contact:  friction sqrt(fa * fb), restitution max(ra, rb), tangent speed sa + sb,
//!     mixed once per contact per step (solver/mod.rs has the tangent's sign)
//! mass:     sum over the pieces of density_i * area_i (body_shape.rs); a density change
//!     recomputes mass, centre and inertia, keeping the body's frame where it is and the
//!     velocity of its material points
//! ```
//!
//! [`BodyDef::with_piece_material`]: crate::BodyDef::with_piece_material

use glam::Vec2;

use super::World;
use super::limits::{
    MAX_ACCELERATION, TANGENT_SPEED_RULE, check_mass, density_ok, tangent_speed_ok,
};
use crate::dynamics::collider_set::ColliderSurface;
use crate::error::Error;
use crate::error::WorldError;
use crate::shapes::body_shape::{BodyShape, MassProperties, combined_mass};
use crate::world::handle::ColliderId;

/// What one piece of a body (one collider) is made of: how it rubs, bounces, weighs, and
/// whether its surface moves (a conveyor belt). [`Default`] is
/// [`BodyDef::dynamic`](crate::BodyDef::dynamic)'s: friction 0.6, restitution 0, density 1,
/// tangent speed 0.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Material {
    /// Coulomb friction coefficient, finite and 0 or more; a contact uses the geometric
    /// mean of its two colliders' (`sqrt(fa * fb)`).
    pub friction: f32,
    /// Bounciness from 0 (none) to 1; a contact uses the larger of its two colliders'.
    pub restitution: f32,
    /// Mass per unit area, finite and positive on a dynamic body's piece (ignored on a
    /// static or kinematic body's, which has no mass).
    pub density: f32,
    /// Speed of the piece's surface along itself, units per second, at most
    /// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) in magnitude: a
    /// conveyor belt. The surface moves clockwise round the piece, so on the top face of a floor a
    /// positive speed carries what rests on it towards +x (Box2D's sign). Friction drives
    /// the slip towards it, so a body on the belt reaches that speed and no more (as far
    /// as friction can hold it). Two touching pieces' speeds add.
    pub tangent_speed: f32,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            friction: 0.6,
            restitution: 0.0,
            density: 1.0,
            tangent_speed: 0.0,
        }
    }
}

impl Material {
    /// What the contacts read of it.
    pub(super) fn surface(&self) -> ColliderSurface {
        ColliderSurface {
            friction: self.friction,
            restitution: self.restitution,
            tangent_speed: self.tangent_speed,
        }
    }

    /// An error naming the first field out of range, for piece `piece` of a body that is
    /// `dynamic` or not (only a dynamic body's pieces need a density).
    pub(super) fn check(&self, piece: usize, dynamic: bool) -> Result<(), Error> {
        let fail = |field, value, rule| {
            Err(Error::World(WorldError::InvalidMaterial {
                piece,
                field,
                value,
                rule,
            }))
        };
        let f = self.friction;
        if !(f.is_finite() && f >= 0.0) {
            return fail("friction", f, "finite and 0 or more");
        }
        let r = self.restitution;
        if !(0.0..=1.0).contains(&r) {
            return fail("restitution", r, "from 0 to 1");
        }
        if dynamic && !density_ok(self.density) {
            return fail(
                "density",
                self.density,
                "finite and positive on a dynamic body's piece",
            );
        }
        if !tangent_speed_ok(self.tangent_speed) {
            return fail("tangent_speed", self.tangent_speed, TANGENT_SPEED_RULE);
        }
        Ok(())
    }
}

impl World {
    /// The material of a collider (one piece of a body: see
    /// [`World::body_colliders`]); an error names a stale or foreign handle.
    pub fn material(&self, collider: ColliderId) -> Result<Material, Error> {
        let c = self.collider_slot(collider)?;
        let surface = &self.colliders.surfaces[c];
        Ok(Material {
            friction: surface.friction,
            restitution: surface.restitution,
            density: self.colliders.densities[c],
            tangent_speed: surface.tangent_speed,
        })
    }

    /// Gives a collider a new material: its contacts mix it from the next step on. A new
    /// density on a dynamic body's piece recomputes the body's mass, centre of mass and
    /// rotational inertia from all its pieces, keeping its frame ([`World::transform`])
    /// where it is and the velocity of each of its points. The body wakes, and so do the
    /// bodies it touches (a belt that starts moving carries what sleeps on it).
    ///
    /// Errors, and nothing changes: a stale or foreign handle; a field out of range
    /// ([`WorldError::InvalidMaterial`], naming the piece, the field and its rule: see
    /// [`Material`]); a density that puts the body's mass or inertia outside
    /// [`MASS_RANGE`](crate::world::MASS_RANGE).
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World, world::Material};
    /// let mut world = World::default();
    /// let belt = world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.25), Vec2::ZERO))?;
    /// let collider = world.body_colliders(belt).next().unwrap();
    /// let moving = Material { tangent_speed: 2.0, ..world.material(collider)? };
    /// world.set_material(collider, moving)?;
    /// assert_eq!(world.material(collider)?.tangent_speed, 2.0);
    /// assert!(world.set_material(collider, Material { friction: -1.0, ..moving }).is_err());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn set_material(&mut self, collider: ColliderId, material: Material) -> Result<(), Error> {
        let c = self.collider_slot(collider)?;
        let slot = self.names.collider_bodies[c] as usize;
        let piece = self.bodies.records[slot]
            .colliders(&self.colliders.next)
            .position(|other| other == c)
            .unwrap_or(0);
        let dynamic = self.bodies.records[slot].is_dynamic();
        material.check(piece, dynamic)?;
        let old_density = self.colliders.densities[c];
        self.colliders.densities[c] = material.density;
        let reweighed = dynamic && material.density.to_bits() != old_density.to_bits();
        let mass = reweighed.then(|| self.body_mass(slot));
        if let Some(Err(error)) = mass.as_ref().map(|(mass, _)| check_mass(mass)) {
            self.colliders.densities[c] = old_density;
            return Err(error);
        }
        self.colliders.surfaces[c] = material.surface();
        // Awake first: a sleeping body's solver state holds no mass to replace.
        self.wake_touching(slot);
        if let Some((mass, max_extent)) = mass {
            self.set_mass(slot, &mass, max_extent);
        }
        Ok(())
    }

    /// The mass properties of the body in `slot` from its pieces' densities (a density that
    /// could not weigh a dynamic piece, kept for a static or kinematic body, counts as 1),
    /// and its farthest point from the centre of mass they give.
    pub(super) fn body_mass(&self, slot: usize) -> (MassProperties, f32) {
        let colliders = || self.bodies.records[slot].colliders(&self.colliders.next);
        let shape = |c: usize| &self.shapes.list[self.colliders.records[c].shape as usize];
        let mass = combined_mass(colliders().map(|c| {
            let density = self.colliders.densities[c];
            (shape(c), if density_ok(density) { density } else { 1.0 })
        }));
        let max_extent = colliders()
            .map(|c| BodyShape::from(*shape(c)).max_extent(mass.center))
            .fold(0.0, f32::max);
        (mass, max_extent)
    }

    /// Gives the awake dynamic body in `slot` the mass properties `mass` (checked) and its
    /// farthest point `max_extent`: its centre moves within its frame, which stays put, and
    /// its linear velocity becomes the new centre's (`v + w × (new centre − old centre)`),
    /// as Box2D updates it, held to the world's speed limit; a pending force or torque is
    /// held to what the new mass may take ([`MAX_ACCELERATION`](crate::world::MAX_ACCELERATION)).
    pub(super) fn set_mass(&mut self, slot: usize, mass: &MassProperties, max_extent: f32) {
        let rotation = self.bodies.rotations[slot];
        let record = &mut self.bodies.records[slot];
        let shift = crate::shapes::transform::rotate(rotation, mass.center - record.local_center);
        record.local_center = mass.center;
        record.inv_mass = 1.0 / mass.mass;
        record.inv_inertia = 1.0 / mass.inertia;
        record.max_extent = max_extent;
        self.bodies.materials[slot].max_extent = max_extent;
        self.bodies.centers[slot] += shift;
        let state = &mut self.bodies.states[slot];
        state.inv_mass = 1.0 / mass.mass;
        let v = state.linear_velocity + state.angular_velocity * Vec2::new(-shift.y, shift.x);
        // A spin about a centre moved far can make that fast: held to the world's speed
        // limit, as the next step's first pass would hold it, so that the world never
        // holds a velocity the table refuses.
        state.linear_velocity =
            crate::dynamics::solver::clamp_length(v, self.settings.max_linear_speed);
        // A force held for the next step may be more than the new mass can take.
        let (inv_mass, inv_inertia) = (1.0 / mass.mass, 1.0 / mass.inertia);
        let forces = &mut self.bodies.forces[slot];
        forces.force = Vec2::new(
            within_acceleration(forces.force.x, inv_mass),
            within_acceleration(forces.force.y, inv_mass),
        );
        forces.torque = within_acceleration(forces.torque, inv_inertia);
        self.refresh_inertia(slot);
    }
}

/// `value` (a component of a pending force, or a torque) scaled back, if need be, so that
/// `value * inverse` (its acceleration) is at most `MAX_ACCELERATION`, as `apply_force`
/// and the snapshot reader test it (the product, not a division: the bound's rounding is
/// theirs).
fn within_acceleration(value: f32, inverse: f32) -> f32 {
    if (value * inverse).abs() <= MAX_ACCELERATION {
        return value;
    }
    let mut held = (MAX_ACCELERATION / inverse).copysign(value);
    while (held * inverse).abs() > MAX_ACCELERATION {
        held *= 1.0 - f32::EPSILON;
    }
    held
}
