//! Making a body: [`BodyDef`], what a body is made of, and [`World::add_body`], which checks
//! it, places its pieces in the shape table (one entry per distinct piece, shared between
//! bodies) and adds its colliders.

use glam::Vec2;

use super::World;
use super::body_type::BodyType;
use super::filters::checked;
use super::limits::{
    MAX_COORDINATE, TANGENT_SPEED_RULE, check, check_damping, check_gravity_scale, check_mass,
    check_vec, check_velocity, density_ok, tangent_speed_ok,
};
use super::materials::Material;
use crate::broad_phase::filter::Filter;
use crate::collision::narrow_phase::Collider;
use crate::dynamics::body::{Body, NO_COLLIDER};
use crate::dynamics::forces::BodyForces;
use crate::dynamics::solver::{BodyMaterial, BodyState};
use crate::error::Error;
use crate::error::WorldError;
use crate::shapes::body_shape::{BodyShape, combined_mass};
use crate::world::handle::{BodyId, ColliderId};

/// How to make a body: its shape, pose, velocity and material.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BodyDef {
    /// The shape: one convex shape or several convex pieces, in the body's local frame.
    pub shape: BodyShape,
    /// World position of the shape's local origin.
    pub position: Vec2,
    /// Rotation in radians, counter-clockwise.
    pub angle: f32,
    /// Velocity of the centre of mass, units per second: at most
    /// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) long (the step then
    /// clamps it to [`World::max_linear_speed`]).
    pub linear_velocity: Vec2,
    /// Radians per second, counter-clockwise: at most
    /// [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED) in magnitude.
    pub angular_velocity: f32,
    /// Mass per unit area of every piece that [`BodyDef::piece_materials`] does not give
    /// its own; mass and rotational inertia follow from the pieces. Must be positive for a
    /// dynamic body; ignored for a static one.
    pub density: f32,
    /// Coulomb friction coefficient of every piece without its own material, 0 or more; a
    /// contact uses the geometric mean of its two colliders'.
    pub friction: f32,
    /// Bounciness of every piece without its own material, from 0 (none) to 1; a contact
    /// uses the larger of its two colliders'.
    pub restitution: f32,
    /// Surface speed of every piece without its own material, a conveyor belt (see
    /// [`Material::tangent_speed`]); 0 by default.
    pub tangent_speed: f32,
    /// Pieces of their own material, as (index into the shape's
    /// [`pieces`](BodyShape::pieces), material); the other pieces take the fields above
    /// ([`BodyDef::material`]). The last entry for a piece wins. Empty by default; see
    /// [`BodyDef::with_piece_material`].
    pub piece_materials: Vec<(usize, Material)>,
    /// What moves the body ([`BodyDef::dynamic`], [`BodyDef::fixed`] and
    /// [`BodyDef::kinematic`] set it):
    /// - [`BodyType::Dynamic`]: gravity, forces and contacts, with a mass from its density;
    /// - [`BodyType::Static`]: nothing; it never moves (infinite mass): grounds and walls;
    /// - [`BodyType::Kinematic`]: its velocity alone ([`BodyDef::linear_velocity`],
    ///   [`World::set_velocity`]): a platform or a paddle a script drives. Its mass is
    ///   infinite (density is ignored): it pushes dynamic bodies and is never pushed,
    ///   gravity does not act on it, and it makes no contact with static or other kinematic
    ///   bodies (sensors do see it). It wakes what it touches, and keeps it awake, while it
    ///   moves.
    pub body_type: BodyType,
    /// Slows the body's linear velocity as `dv/dt = -linear_damping * v`, per second, 0
    /// (the default) or more: air drag, or a top-down game's ground friction. Applied as
    /// Box2D applies it (see [`World::set_linear_damping`]).
    pub linear_damping: f32,
    /// Slows the body's spin likewise, per second, 0 (the default) or more.
    pub angular_damping: f32,
    /// Multiplies the world's gravity for this body (default 1; 0 floats, -1 falls up).
    /// Finite and at most [`MAX_GRAVITY_SCALE`](crate::world::MAX_GRAVITY_SCALE) in
    /// magnitude.
    pub gravity_scale: f32,
    /// The body never turns: contacts, torques and impulses leave its spin 0 (a character
    /// standing upright). Its rotational inertia is still reported as its shape's.
    pub fixed_rotation: bool,
    /// A bullet is swept against dynamic bodies as well as static ones every step, so that
    /// it cannot pass through anything (see [`World::step`]). Other bodies are swept only
    /// against static bodies, and only in steps where they move far for their size.
    pub is_bullet: bool,
    /// Which colliders the body's pieces may touch (see [`Filter`]); by default every
    /// other. Change it later with [`World::set_filter`].
    pub filter: Filter,
    /// A sensor's pieces detect the colliders that overlap them ([`World::events`]'s
    /// `sensor_begin` and `sensor_end`) and never push back: no contact, no impulse, no
    /// obstacle for the continuous stage. Any body may be one; a dynamic sensor still falls
    /// under gravity (through everything), and a static sensor sees no static body (pairs
    /// of two static bodies are never made). Sensors do not detect each other, and a sensor's
    /// [`Filter`] decides what it sees, as any collider's decides what it touches.
    pub is_sensor: bool,
    /// Anything the application wants to find the body by (an entity id, an index into its
    /// own tables): carried on the body ([`World::user_data`]) and in its events.
    pub user_data: u64,
}

impl BodyDef {
    /// A dynamic body of density 1, friction 0.6, no restitution, at rest at `position`.
    /// `shape` is a [`Polygon`](crate::Polygon), a [`Circle`](crate::Circle), a
    /// [`Shape`](crate::Shape) or a [`BodyShape`].
    pub fn dynamic(shape: impl Into<BodyShape>, position: Vec2) -> BodyDef {
        BodyDef {
            shape: shape.into(),
            position,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
            tangent_speed: 0.0,
            piece_materials: Vec::new(),
            body_type: BodyType::Dynamic,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            fixed_rotation: false,
            is_bullet: false,
            filter: Filter::default(),
            is_sensor: false,
            user_data: 0,
        }
    }

    /// A static body at `position`.
    pub fn fixed(shape: impl Into<BodyShape>, position: Vec2) -> BodyDef {
        BodyDef {
            body_type: BodyType::Static,
            ..BodyDef::dynamic(shape, position)
        }
    }

    /// A kinematic body at rest at `position` (see [`BodyDef::body_type`]): give it a
    /// velocity in [`BodyDef::linear_velocity`] or with [`World::set_velocity`].
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut world = World::default();
    /// let platform = world.add_body(&BodyDef {
    ///     linear_velocity: Vec2::new(1.0, 0.0),
    ///     ..BodyDef::kinematic(Polygon::rectangle(2.0, 0.25), Vec2::ZERO)
    /// })?;
    /// world.step(1.0 / 60.0, &mut CpuNarrowPhase::new())?;
    /// // Moved by its velocity, not by gravity.
    /// assert!((world.center_of_mass(platform) - Vec2::new(1.0 / 60.0, 0.0)).length() < 1e-5);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn kinematic(shape: impl Into<BodyShape>, position: Vec2) -> BodyDef {
        BodyDef {
            body_type: BodyType::Kinematic,
            ..BodyDef::dynamic(shape, position)
        }
    }

    /// The material of every piece without its own: the body's density, friction,
    /// restitution and tangent speed.
    pub fn material(&self) -> Material {
        Material {
            friction: self.friction,
            restitution: self.restitution,
            density: self.density,
            tangent_speed: self.tangent_speed,
        }
    }

    /// The body's density, friction, restitution and tangent speed set from `material`:
    /// the material of every piece without its own.
    pub fn with_material(self, material: Material) -> BodyDef {
        BodyDef {
            density: material.density,
            friction: material.friction,
            restitution: material.restitution,
            tangent_speed: material.tangent_speed,
            ..self
        }
    }

    /// Piece `piece` of the shape (an index into [`BodyShape::pieces`]) made of `material`
    /// instead of the body's: a wheel of rubber on a body of steel, one moving belt of a
    /// machine. [`World::add_body`] checks the index and the material.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, BodyShape, Polygon, Shape, World, world::Material};
    /// let square = |x: f32| Polygon::new(&[
    ///     Vec2::new(x, 0.0), Vec2::new(x + 1.0, 0.0), Vec2::new(x + 1.0, 1.0), Vec2::new(x, 1.0),
    /// ]);
    /// let pieces = vec![Shape::Polygon(square(0.0)?), Shape::Polygon(square(1.0)?)];
    /// let heavy_top = Material { density: 10.0, ..Material::default() };
    /// let def = BodyDef::dynamic(BodyShape::compound(pieces)?, Vec2::ZERO)
    ///     .with_piece_material(1, heavy_top);
    /// let mut world = World::default();
    /// let body = world.add_body(&def)?;
    /// assert_eq!(world.mass(body), 1.0 + 10.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_piece_material(mut self, piece: usize, material: Material) -> BodyDef {
        self.piece_materials.push((piece, material));
        self
    }

    /// Each piece's material: the body's, then the overrides in order. An error names a
    /// piece out of range or a field out of range.
    fn resolved_materials(&self) -> Result<Vec<Material>, Error> {
        let pieces = self.shape.pieces().len();
        let mut materials = vec![self.material(); pieces];
        for &(piece, material) in &self.piece_materials {
            if piece >= pieces {
                return Err(Error::World(WorldError::PieceOutOfRange { piece, pieces }));
            }
            material.check(piece, self.is_dynamic())?;
            materials[piece] = material;
        }
        Ok(materials)
    }

    /// Whether contacts and gravity move the body: neither static nor kinematic.
    fn is_dynamic(&self) -> bool {
        self.body_type == BodyType::Dynamic
    }

    /// Whether the body never moves.
    fn is_static(&self) -> bool {
        self.body_type == BodyType::Static
    }
}

impl World {
    /// Adds a body and returns its handle. Errors name the field that is out of range, and a
    /// rejected body leaves the world as it was:
    /// - position, angle, friction and density must be finite; friction 0 or more,
    ///   restitution from 0 to 1, density positive for a dynamic body;
    /// - the linear velocity at most
    ///   [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) (1e6) long, the
    ///   angular velocity at most [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED)
    ///   (1e8) in magnitude, and the tangent speed at most `MAX_LINEAR_SPEED_LIMIT` in
    ///   magnitude (the table of ranges in `world::limits`, which the snapshot reader
    ///   shares);
    ///   damping finite and 0 or more, gravity scale finite and at most
    ///   [`MAX_GRAVITY_SCALE`](crate::world::MAX_GRAVITY_SCALE) in magnitude;
    /// - each of [`BodyDef::piece_materials`] names a piece of the shape
    ///   ([`WorldError::PieceOutOfRange`]) and holds a valid [`Material`]
    ///   ([`WorldError::InvalidMaterial`], naming the piece);
    /// - the position's coordinates and the shape's reach from its origin at most
    ///   [`MAX_COORDINATE`];
    /// - a dynamic body's mass and rotational inertia (from its density and shape) within
    ///   [`MASS_RANGE`](crate::world::MASS_RANGE), so a density of 1e30 is rejected rather
    ///   than let its impulses overflow into its neighbours.
    ///
    /// A speed within those ranges is accepted as given, and the step clamps it to
    /// [`World::max_linear_speed`] (and the spin to a quarter turn per substep) as Box2D
    /// clamps speeds; a faster one is refused, not clamped, since no step would keep it.
    pub fn add_body(&mut self, def: &BodyDef) -> Result<BodyId, Error> {
        let filter = checked(def.filter)?;
        check_vec("position", def.position)?;
        for value in [def.position.x, def.position.y] {
            check(
                "position",
                value,
                value.abs() <= MAX_COORDINATE,
                "at most MAX_COORDINATE (1e12) from the origin",
            )?;
        }
        check("angle", def.angle, def.angle.is_finite(), "finite")?;
        let (v, w) = (def.linear_velocity, def.angular_velocity);
        check_velocity(v, w)?;
        let f = def.friction;
        check(
            "friction",
            f,
            f.is_finite() && f >= 0.0,
            "finite and 0 or more",
        )?;
        let r = def.restitution;
        check("restitution", r, (0.0..=1.0).contains(&r), "from 0 to 1")?;
        let s = def.tangent_speed;
        check("tangent_speed", s, tangent_speed_ok(s), TANGENT_SPEED_RULE)?;
        check_damping("linear_damping", def.linear_damping)?;
        check_damping("angular_damping", def.angular_damping)?;
        check_gravity_scale(def.gravity_scale)?;
        if def.is_dynamic() {
            let d = def.density;
            check(
                "density",
                d,
                density_ok(d),
                "finite and positive for a dynamic body",
            )?;
        }
        if !def.is_static() {
            let area = def.shape.area();
            check(
                "shape area",
                area,
                area > 0.0,
                "positive for a dynamic body: segments and chains have no area, so they \
                 belong on static bodies",
            )?;
        }
        let reach = def.shape.max_extent(Vec2::ZERO);
        check(
            "shape extent",
            reach,
            reach <= MAX_COORDINATE,
            "at most MAX_COORDINATE (1e12) from the shape's origin",
        )?;

        let materials = def.resolved_materials()?;
        // A static or kinematic body's mass is never used; unit density, where a piece's
        // could not weigh it, keeps the centre defined (as `World::body_mass` weighs it).
        let pieces = def.shape.pieces();
        let mass = combined_mass(pieces.iter().zip(&materials).map(|(piece, m)| {
            (
                piece,
                if density_ok(m.density) {
                    m.density
                } else {
                    1.0
                },
            )
        }));
        if def.is_dynamic() {
            check_mass(&mass)?;
        }
        // A static body's centre only places its pose; a shape whose area rounds to zero in
        // f32 (a circle of radius 1e-44, say) has no area-weighted centre (0 / 0), and its
        // own origin serves. A dynamic body got here only with a mass in MASS_RANGE.
        let center = if mass.center.is_finite() {
            mass.center
        } else {
            Vec2::ZERO
        };
        let rotation = crate::math::from_angle(def.angle);
        let (inv_mass, inv_inertia, linear_velocity, mut angular_velocity) = if def.is_static() {
            (0.0, 0.0, Vec2::ZERO, 0.0)
        } else if def.body_type == BodyType::Kinematic {
            (0.0, 0.0, v, w)
        } else {
            (1.0 / mass.mass, 1.0 / mass.inertia, v, w)
        };
        if def.fixed_rotation {
            angular_velocity = 0.0;
        }
        let (slot, generation) = self.bodies.slots.take();
        let index = slot as usize;
        let id = BodyId::new(self.number, slot, generation);
        let max_extent = def.shape.max_extent(center);
        // The collider slots first: the body's record names the first of them.
        let collider_slots: Vec<u32> = pieces
            .iter()
            .map(|_| self.colliders.slots.take().0)
            .collect();
        put(
            &mut self.bodies.records,
            index,
            Body {
                first_collider: collider_slots.first().copied().unwrap_or(NO_COLLIDER),
                collider_count: pieces.len() as u32,
                local_center: center,
                is_static: def.is_static(),
                is_kinematic: def.body_type == BodyType::Kinematic,
                // A kinematic body goes where its velocity takes it: nothing stops it at a
                // time of impact (see `continuous.rs`).
                is_bullet: def.is_bullet && def.is_dynamic(),
                fixed_rotation: def.fixed_rotation,
                max_extent,
                min_extent: def.shape.min_extent(),
                inv_mass,
                inv_inertia,
            },
        );
        self.sleep.add_body(index, def.is_dynamic());
        let center = def.position + crate::shapes::transform::rotate(rotation, center);
        put(&mut self.bodies.centers, index, center);
        put(&mut self.bodies.rotations, index, rotation);
        let state = BodyState {
            linear_velocity,
            angular_velocity,
            delta_position: Vec2::ZERO,
            delta_rotation: Vec2::X,
            inv_mass,
        };
        put(&mut self.bodies.states, index, state);
        let material = BodyMaterial {
            inv_inertia: if def.fixed_rotation { 0.0 } else { inv_inertia },
            max_extent,
        };
        put(&mut self.bodies.materials, index, material);
        let forces = BodyForces {
            gravity_scale: def.gravity_scale,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            ..BodyForces::default()
        };
        self.bodies.custom_forces |= !forces.is_plain();
        put(&mut self.bodies.forces, index, forces);
        put(&mut self.names.body_ids, index, id);
        put(&mut self.names.user_data, index, def.user_data);
        let transform = self.bodies.transform(index);
        // Poses and boxes stay current between steps (body_at reads them; step starts from them).
        for (k, piece) in pieces.iter().enumerate() {
            let shape = self.shapes.share(piece);
            let c = collider_slots[k] as usize;
            put(&mut self.colliders.aabbs, c, piece.aabb(&transform));
            // A sensor is no obstacle.
            if def.is_static() && !def.is_sensor {
                self.colliders.statics.push(c as u32);
                self.colliders.static_revision += 1;
            }
            put(
                &mut self.colliders.records,
                c,
                Collider { shape, transform },
            );
            put(&mut self.names.collider_bodies, c, slot);
            let generation = self.colliders.slots.generation(c);
            put(
                &mut self.names.collider_ids,
                c,
                ColliderId::new(self.number, c as u32, generation),
            );
            let next = collider_slots.get(k + 1).copied().unwrap_or(NO_COLLIDER);
            put(&mut self.colliders.next, c, next);
            put(&mut self.colliders.filters, c, filter);
            put(&mut self.colliders.surfaces, c, materials[k].surface());
            put(&mut self.colliders.densities, c, materials[k].density);
            put(&mut self.colliders.sensors, c, def.is_sensor);
            self.colliders.has_sensors |= def.is_sensor;
            self.colliders.has_filters |= filter != Filter::default();
        }
        self.revision += 1;
        Ok(id)
    }
}

/// Writes `value` into slot `slot` of a per-slot array: a new slot is the next one at the
/// end (slots are handed out in order), a reused one is overwritten.
fn put<T>(values: &mut Vec<T>, slot: usize, value: T) {
    if slot == values.len() {
        values.push(value);
    } else {
        values[slot] = value;
    }
}
