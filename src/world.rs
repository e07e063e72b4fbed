//! The simulation: rigid bodies made of convex pieces (polygons, circles, or the pieces of
//! a concave outline), stepped through the collision pipeline and the contact solver.
//!
//! ```text
//! step(dt, narrow_phase):
//!     AABB of every collider (one collider per piece of a body)          (CPU)
//!     persistent pairs over fat boxes (pair_set.rs), minus pairs within one body, pairs of
//!         two static bodies, of two sensors, and pairs their Filters refuse
//!     recycled manifolds where a pair barely moved; narrow_phase.collide_pairs for the
//!         rest                                      (CPU or GPU: same contacts)
//!     events: begin/end per pair from its touching flag (sensor pairs: overlap; they
//!         make no contact)
//!     solver: each contact between colliders acts on their bodies (a body's pieces move
//!             as one); prepare constraints (warm-started by feature id), then per substep
//!             gravity, warm start, solve, integrate positions, relax; then restitution;
//!             contacts that approached faster than the hit threshold -> hit events
//!     continuous: bullets and bodies that moved far for their size are swept from their
//!             start pose to their end pose; one that would pass into an obstacle stops at
//!             the time of impact (see continuous.rs); its fast impacts -> hit events
//!     sleep: islands at rest fall asleep (sleep.rs)
//! queries (world/queries.rs): a bounding volume hierarchy over the colliders' boxes,
//!     refitted (or built anew) by the first query after the colliders moved
//! ```
//!
//! Frames: each body has a centre of mass (world frame) and a rotation; its pieces stay in
//! the local frame they were given, and [`World::transform`] maps that frame to the world.
//! The read accessors that take a body index (`transform`, `linear_velocity`, ...) panic
//! when it is out of range, as slice indexing does; [`World::body`] is their `get`-style
//! twin, which returns `None` instead, and every call that changes the world
//! ([`World::add_body`], [`World::set_velocity`], [`World::step`]) returns an error.
//!
//! What the world accepts, and what it does with extreme values (see [`World::add_body`]):
//! every input must be finite; speeds are clamped as Box2D clamps them (to
//! [`World::max_linear_speed`], and a quarter turn per substep), never rejected; a body
//! whose mass or rotational inertia falls outside [`MASS_RANGE`] (a density of 1e30, say),
//! or whose position or size exceeds [`MAX_COORDINATE`], is rejected, since f32 cannot
//! simulate it next to ordinary bodies. What is accepted stays finite.

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use glam::Vec2;
use rayon::prelude::*;

use crate::aabb::Aabb;
use crate::body::{Body, BodyRef};
use crate::body_shape::BodyShape;
use crate::continuous::{Motion, Obstacles, StepStart, solve_continuous};
use crate::error::Error;
use crate::events::{ContactHit, EventLists, Events};
use crate::filter::Filter;
use crate::manifold::{Contact, ContactPoint, Manifold};
use crate::narrow_phase::{Collider, NarrowPhase, NarrowPhaseTimings};
use crate::pair_set::PairSet;
use crate::recycle::KeptManifold;
use crate::shape::Shape;
use crate::sleep::Sleep;
use crate::solver::{BodyMaterial, BodyMotion, BodyState, ContactSolver, Substeps};
use crate::transform::Transform;

mod queries;

pub use queries::{WorldRayHit, WorldShapeHit};

/// The range a dynamic body's mass and rotational inertia must lie in. Impulses scale with
/// them: at 1e24 and a speed of some hundreds of units per second, the solver's products stay
/// below 1e30, far from f32's limit of 3.4e38, and at 1e-24 their inverses do too. An
/// ordinary body of density 1 and a size from 1e-5 to 1e5 units lies well inside.
pub const MASS_RANGE: std::ops::RangeInclusive<f32> = 1e-24..=1e24;

/// The largest coordinate a body's position, and the farthest reach of its shape from its
/// origin, may have. At 1e12 the spacing of f32 values is about 65,000 units: no motion of
/// one step survives the rounding there, and a square of two such coordinates is still far
/// below f32's range.
pub const MAX_COORDINATE: f32 = 1e12;

/// How far apart two pieces may be and still have a contact, world units: four times the
/// solver's linear slop (0.005), Box2D v3's value. A contact within it is speculative (its
/// depth is minus the gap): the solver lets the bodies close the gap within the step but not
/// pass it. Resting bodies pushed out to the surface so keep their contact, and its warm-
/// started impulse, from step to step, which is what lets a 100-row pyramid stand; a body
/// approaching at up to `SPECULATIVE_DISTANCE / dt` (1.2 units per second at 60 Hz) is
/// stopped at the surface instead of inside it.
pub const SPECULATIVE_DISTANCE: f32 = 4.0 * crate::solver::LINEAR_SLOP;

/// The default of [`World::max_linear_speed`], units per second: Box2D v3's default (400
/// meters per second), which no scene of bodies about one unit large reaches on purpose.
pub const DEFAULT_MAX_LINEAR_SPEED: f32 = 400.0;

/// The largest [`World::set_max_linear_speed`] takes, units per second: 2,500 times the
/// default, room for worlds in millimetres, while speed times [`MASS_RANGE`]'s upper end
/// stays far from f32's limit.
pub const MAX_LINEAR_SPEED_LIMIT: f32 = 1e6;

/// The range of [`World::step`]'s time step, seconds. Below a microsecond the substep's
/// inverse that the soft contacts use grows past 1e6 and rounding dominates; above ten
/// seconds a body at the speed limit crosses 4,000 units in one step, and no contact would be
/// seen in between.
pub const TIME_STEP_RANGE: std::ops::RangeInclusive<f32> = 1e-6..=10.0;

/// The most solver substeps [`World::set_substeps`] takes.
pub const MAX_SUBSTEPS: usize = 64;

/// How to make a body: its shape, pose, velocity and material.
#[derive(Clone, Debug)]
pub struct BodyDef {
    /// The shape: one convex shape or several convex pieces, in the body's local frame.
    pub shape: BodyShape,
    /// World position of the shape's local origin.
    pub position: Vec2,
    /// Rotation in radians, counter-clockwise.
    pub angle: f32,
    /// Velocity of the centre of mass, units per second.
    pub linear_velocity: Vec2,
    /// Radians per second, counter-clockwise.
    pub angular_velocity: f32,
    /// Mass per unit area; mass and rotational inertia follow from the shape. Must be
    /// positive for a dynamic body; ignored for a static one.
    pub density: f32,
    /// Coulomb friction coefficient, 0 or more; a contact uses the geometric mean of its
    /// two bodies'.
    pub friction: f32,
    /// Bounciness from 0 (none) to 1; a contact uses the larger of its two bodies'.
    pub restitution: f32,
    /// A static body never moves (infinite mass): grounds and walls.
    pub is_static: bool,
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
}

impl BodyDef {
    /// A dynamic body of density 1, friction 0.6, no restitution, at rest at `position`.
    /// `shape` is a [`Polygon`](crate::Polygon), a [`Circle`](crate::Circle), a
    /// [`Shape`] or a [`BodyShape`].
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
            is_static: false,
            is_bullet: false,
            filter: Filter::default(),
            is_sensor: false,
        }
    }

    /// A static body at `position`.
    pub fn fixed(shape: impl Into<BodyShape>, position: Vec2) -> BodyDef {
        BodyDef {
            is_static: true,
            ..BodyDef::dynamic(shape, position)
        }
    }
}

/// What one [`World::step`] did and how long each stage took.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepStats {
    /// Bodies in the world.
    pub bodies: usize,
    /// Dynamic bodies awake after the step (see [`World::set_sleeping`]).
    pub awake_bodies: usize,
    /// Colliders: one per convex piece of every body.
    pub colliders: usize,
    /// Candidate collider pairs from the broad phase: pairs whose boxes, grown by half the
    /// speculative distance, overlap (pairs within one body and pairs of two static bodies
    /// excluded).
    pub pairs: usize,
    /// The persistent pairs: colliders whose fat boxes ([`FAT_MARGIN`] beyond their
    /// boxes) overlap. A pair stays in the set from the step its fat boxes meet until the
    /// step they part; the candidates above are those of them whose boxes overlap.
    ///
    /// [`FAT_MARGIN`]: crate::FAT_MARGIN
    pub persistent_pairs: usize,
    /// Colliders whose box left its fat box this step (each new collider counts once): the
    /// broad phase swept the fat boxes again only when this is not 0.
    pub proxy_moves: usize,
    /// Of the candidates, pairs whose last manifold was recycled instead of going to the narrow
    /// phase (see [`World::set_contact_recycling`]); the narrow phase saw the others.
    pub recycled: usize,
    /// Pairs that overlap: the narrow phase's manifolds.
    pub contacts: usize,
    /// Contact points over all manifolds.
    pub contact_points: usize,
    /// Poses, AABBs and the broad phase.
    pub broad_phase: Duration,
    /// The narrow phase, as the caller sees it.
    pub narrow_phase: Duration,
    /// The narrow phase's own breakdown, where it has one (the GPU's upload, dispatch and
    /// readback).
    pub narrow_phase_detail: Option<NarrowPhaseTimings>,
    /// Contact solver and integration.
    pub solver: Duration,
    /// Bodies swept for continuous collision this step (bullets, and fast bodies).
    pub swept_bodies: usize,
    /// Swept bodies stopped at a time of impact.
    pub impacts: usize,
    /// The continuous collision stage.
    pub continuous: Duration,
}

/// Hashable identity of a shape, for sharing one shape table entry between bodies.
type ShapeKey = [u32; 33];

fn shape_key(shape: &Shape) -> ShapeKey {
    let mut key = [0u32; 33];
    match shape {
        Shape::Polygon(p) => {
            key[0] = p.vertices().len() as u32;
            for (k, v) in p.vertices().iter().enumerate() {
                key[1 + 2 * k] = v.x.to_bits();
                key[2 + 2 * k] = v.y.to_bits();
            }
        }
        // Count 1 marks a circle, as on the GPU.
        Shape::Circle(c) => {
            key[0] = 1;
            key[1] = c.center().x.to_bits();
            key[2] = c.center().y.to_bits();
            key[3] = c.radius().to_bits();
        }
    }
    key
}

/// A world of rigid polygon bodies. Cloning it clones the whole state, so two narrow phases
/// can be compared from the same starting point.
#[derive(Clone, Debug)]
pub struct World {
    gravity: Vec2,
    substeps: usize,
    continuous: bool,
    max_linear_speed: f32,
    shapes: Vec<Shape>,
    shape_index: HashMap<ShapeKey, u32>,
    bodies: Vec<Body>,
    /// World-frame centre of mass of each body.
    centers: Vec<Vec2>,
    /// Rotation of each body as (cos, sin).
    rotations: Vec<Vec2>,
    states: Vec<BodyState>,
    materials: Vec<BodyMaterial>,
    /// One collider per piece; a body's colliders are contiguous, in body order.
    colliders: Vec<Collider>,
    collider_bodies: Vec<u32>,
    /// Per collider: its collision filter, and whether it is a sensor.
    filters: Vec<Filter>,
    sensors: Vec<bool>,
    /// Whether any collider is a sensor, or has a filter other than the default: without,
    /// the broad phase and the pair passes skip those tests.
    has_sensors: bool,
    has_filters: bool,
    /// Per collider.
    aabbs: Vec<Aabb>,
    /// `aabbs` grown by half the speculative distance each, as the broad phase sees them
    /// (scratch, rebuilt each step).
    broad_boxes: Vec<Aabb>,
    /// The persistent pairs (fat boxes overlap), each with its manifold as the narrow phase
    /// last computed it, for recycling (`None` when it found none).
    pair_set: PairSet<PairState>,
    /// This step's candidate pairs: those of `pair_set` whose `broad_boxes` overlap.
    candidates: usize,
    /// The narrow phase's contacts, between colliders ([`World::contacts`] maps them to
    /// bodies on the fly).
    collider_contacts: Vec<Contact>,
    /// Where the narrow phase writes (scratch).
    contact_scratch: Vec<Contact>,
    /// This step's contacts while they are merged; swapped with `collider_contacts` only
    /// when the narrow phase succeeded, so a failed step leaves the last step's in place.
    contacts_next: Vec<Contact>,
    /// Per slot of `pair_set` this step (scratch): what became of the pair
    /// (`SlotOutcome`), and its contact where it was recycled, or where a fresh one began
    /// touching (the begin event carries it).
    slot_outcomes: Vec<SlotOutcome>,
    slot_contacts: Vec<Contact>,
    /// Per slot of `pair_set` this step (scratch): whether the pair began or stopped
    /// touching (`Change`).
    slot_changes: Vec<Change>,
    /// The last step's events, and the next step's while it runs (a pair that leaves the
    /// set before a step fails keeps its end event there for the step that succeeds).
    events: EventLists,
    events_next: EventLists,
    /// See [`World::set_hit_event_threshold`].
    hit_threshold: Option<f32>,
    /// This step's blocks of `SLOTS_PER_TASK` slots (scratch; the first `block_count` are
    /// in use).
    blocks: Vec<SlotBlock>,
    block_count: usize,
    /// The pairs that go to the narrow phase, block after block, and what is kept of each
    /// report for recycling (scratch).
    fresh_pairs: Vec<[u32; 2]>,
    fresh_kept: Vec<Option<KeptManifold>>,
    recycled: usize,
    /// See [`World::set_contact_recycling`].
    recycling: bool,
    sleep: Sleep,
    solver: ContactSolver,
    /// Colliders of static bodies: the obstacles every fast body is swept against.
    static_colliders: Vec<u32>,
    /// Scratch of the continuous stage: poses at the start of the step, the angle each
    /// body turned during it, and the bodies it moved.
    start_centers: Vec<Vec2>,
    start_rotations: Vec<Vec2>,
    turned: Vec<f32>,
    moved: Vec<usize>,
    /// Counts the changes to the colliders' poses (steps and added bodies): a query finding
    /// the query tree at another revision brings it up to date first.
    revision: u64,
    queries: queries::QueryCache,
}

impl Default for World {
    fn default() -> Self {
        World::new(Vec2::new(0.0, -10.0))
    }
}

fn check(field: &'static str, value: f32, ok: bool, rule: &'static str) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidBody { field, value, rule })
    }
}

/// A gravity the step can integrate: each component finite and at most
/// [`MAX_COORDINATE`], so that a substep's change of velocity stays finite.
fn check_gravity(gravity: Vec2) -> Result<(), Error> {
    for value in [gravity.x, gravity.y] {
        if !value.is_finite() || value.abs() > MAX_COORDINATE {
            return Err(Error::InvalidSetting {
                name: "gravity",
                value,
                rule: "finite and at most MAX_COORDINATE (1e12) a component",
            });
        }
    }
    Ok(())
}

/// Both components finite; the error names the first that is not.
fn check_vec(field: &'static str, v: Vec2) -> Result<(), Error> {
    check(field, v.x, v.x.is_finite(), "finite")?;
    check(field, v.y, v.y.is_finite(), "finite")
}

impl World {
    /// An empty world with the given gravity (units per second squared). A gravity that is
    /// not finite, or past [`MAX_COORDINATE`], makes [`World::step`] return an error naming it
    /// ([`World::set_gravity`] checks at once).
    pub fn new(gravity: Vec2) -> World {
        World {
            gravity,
            substeps: 4,
            continuous: true,
            max_linear_speed: DEFAULT_MAX_LINEAR_SPEED,
            shapes: Vec::new(),
            shape_index: HashMap::new(),
            bodies: Vec::new(),
            centers: Vec::new(),
            rotations: Vec::new(),
            states: Vec::new(),
            materials: Vec::new(),
            colliders: Vec::new(),
            collider_bodies: Vec::new(),
            filters: Vec::new(),
            sensors: Vec::new(),
            has_sensors: false,
            has_filters: false,
            aabbs: Vec::new(),
            broad_boxes: Vec::new(),
            pair_set: PairSet::default(),
            candidates: 0,
            collider_contacts: Vec::new(),
            contact_scratch: Vec::new(),
            contacts_next: Vec::new(),
            fresh_pairs: Vec::new(),
            fresh_kept: Vec::new(),
            slot_outcomes: Vec::new(),
            slot_contacts: Vec::new(),
            slot_changes: Vec::new(),
            events: EventLists::default(),
            events_next: EventLists::default(),
            hit_threshold: None,
            blocks: Vec::new(),
            block_count: 0,
            recycled: 0,
            recycling: true,
            sleep: Sleep::default(),
            solver: ContactSolver::default(),
            static_colliders: Vec::new(),
            start_centers: Vec::new(),
            start_rotations: Vec::new(),
            turned: Vec::new(),
            moved: Vec::new(),
            revision: 0,
            queries: queries::QueryCache::default(),
        }
    }

    /// Adds a body and returns its index. Errors name the field that is out of range, and a
    /// rejected body leaves the world as it was:
    /// - position, angle, velocities, friction and density must be finite; friction 0 or
    ///   more, restitution from 0 to 1, density positive for a dynamic body;
    /// - the position's coordinates and the shape's reach from its origin at most
    ///   [`MAX_COORDINATE`];
    /// - a dynamic body's mass and rotational inertia (from its density and shape) within
    ///   [`MASS_RANGE`], so a density of 1e30 is rejected rather than let its impulses
    ///   overflow into its neighbours.
    ///
    /// Any finite speed is accepted; the step clamps it to [`World::max_linear_speed`] (and
    /// the spin to a quarter turn per substep) as Box2D clamps speeds.
    pub fn add_body(&mut self, def: &BodyDef) -> Result<usize, Error> {
        let filter = def.filter.checked()?;
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
        let v = def.linear_velocity;
        check_vec("linear_velocity", v)?;
        let w = def.angular_velocity;
        check("angular_velocity", w, w.is_finite(), "finite")?;
        let f = def.friction;
        check(
            "friction",
            f,
            f.is_finite() && f >= 0.0,
            "finite and 0 or more",
        )?;
        let r = def.restitution;
        check("restitution", r, (0.0..=1.0).contains(&r), "from 0 to 1")?;
        if !def.is_static {
            let d = def.density;
            check(
                "density",
                d,
                d.is_finite() && d > 0.0,
                "finite and positive for a dynamic body",
            )?;
        }
        let reach = def.shape.max_extent(Vec2::ZERO);
        check(
            "shape extent",
            reach,
            reach <= MAX_COORDINATE,
            "at most MAX_COORDINATE (1e12) from the shape's origin",
        )?;

        // A static body's mass is never used; unit density keeps the centre defined.
        let density = if def.is_static { 1.0 } else { def.density };
        let mass = def.shape.mass_properties(density);
        if !def.is_static {
            check(
                "mass",
                mass.mass,
                MASS_RANGE.contains(&mass.mass),
                "within MASS_RANGE (1e-24 to 1e24): change the density",
            )?;
            check(
                "rotational inertia",
                mass.inertia,
                MASS_RANGE.contains(&mass.inertia),
                "within MASS_RANGE (1e-24 to 1e24): change the density",
            )?;
        }
        // A static body's centre only places its pose; a shape whose area rounds to zero in
        // f32 (a circle of radius 1e-44, say) has no area-weighted centre (0 / 0), and its
        // own origin serves. A dynamic body got here only with a mass in MASS_RANGE.
        let center = if mass.center.is_finite() {
            mass.center
        } else {
            Vec2::ZERO
        };
        let rotation = Vec2::from_angle(def.angle);
        let (inv_mass, inv_inertia, linear_velocity, angular_velocity) = if def.is_static {
            (0.0, 0.0, Vec2::ZERO, 0.0)
        } else {
            (1.0 / mass.mass, 1.0 / mass.inertia, v, w)
        };
        let index = self.bodies.len();
        let max_extent = def.shape.max_extent(center);
        self.bodies.push(Body {
            first_collider: self.colliders.len() as u32,
            collider_count: def.shape.pieces().len() as u32,
            local_center: center,
            is_static: def.is_static,
            is_bullet: def.is_bullet && !def.is_static,
            max_extent,
            min_extent: def.shape.min_extent(),
            inv_mass,
            inv_inertia,
        });
        self.sleep.add_body(def.is_static);
        self.centers
            .push(def.position + crate::transform::rotate(rotation, center));
        self.rotations.push(rotation);
        self.states.push(BodyState {
            linear_velocity,
            angular_velocity,
            delta_position: Vec2::ZERO,
            delta_rotation: Vec2::X,
            inv_mass,
        });
        self.materials.push(BodyMaterial {
            friction: def.friction,
            restitution: def.restitution,
            inv_inertia,
            max_extent,
        });
        let transform = self.transform(index);
        // Poses and boxes stay current between steps (body_at reads them; step starts from them).
        for piece in def.shape.pieces() {
            let shape = *self.shape_index.entry(shape_key(piece)).or_insert_with(|| {
                self.shapes.push(*piece);
                (self.shapes.len() - 1) as u32
            });
            self.aabbs.push(piece.aabb(&transform));
            // A sensor is no obstacle.
            if def.is_static && !def.is_sensor {
                self.static_colliders.push(self.colliders.len() as u32);
            }
            self.colliders.push(Collider { shape, transform });
            self.collider_bodies.push(index as u32);
            self.filters.push(filter);
            self.sensors.push(def.is_sensor);
            self.has_sensors |= def.is_sensor;
            self.has_filters |= filter != Filter::default();
        }
        self.revision += 1;
        Ok(index)
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The pose of body `body`'s local frame (the frame its shape was given in).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn transform(&self, body: usize) -> Transform {
        body_transform(&self.bodies[body], self.centers[body], self.rotations[body])
    }

    /// The body's convex pieces, in its local frame, in the order of the
    /// [`BodyShape::pieces`] it was made from (as the shape table holds them).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_pieces(&self, body: usize) -> impl ExactSizeIterator<Item = &Shape> + '_ {
        self.colliders[self.bodies[body].colliders()]
            .iter()
            .map(|c| &self.shapes[c.shape as usize])
    }

    /// The body's colliders: indices into [`World::colliders`], one per piece, in the order
    /// of [`BodyShape::pieces`].
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_colliders(&self, body: usize) -> Range<usize> {
        self.bodies[body].colliders()
    }

    /// The body a collider belongs to.
    ///
    /// # Panics
    /// If `collider` is not below the number of [`World::colliders`];
    /// [`World::collider_owner`] returns `None` instead.
    pub fn collider_body(&self, collider: usize) -> usize {
        self.collider_bodies[collider] as usize
    }

    /// The body a collider belongs to, or `None` when there is no such collider.
    pub fn collider_owner(&self, collider: usize) -> Option<usize> {
        self.collider_bodies.get(collider).map(|&b| b as usize)
    }

    /// Body `body`, or `None` when it is not below [`World::body_count`]: the `get`-style
    /// form of the per-body accessors, which panic on an index out of range.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World};
    /// let mut world = World::default();
    /// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::Y))?;
    /// assert_eq!(world.body(crate_).map(|b| b.transform().translation()), Some(Vec2::Y));
    /// assert!(world.body(crate_ + 1).is_none());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn body(&self, body: usize) -> Option<BodyRef<'_>> {
        (body < self.bodies.len()).then(|| BodyRef::new(self, body))
    }

    /// The body's bounding box as of the end of the last step (all its pieces).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn body_aabb(&self, body: usize) -> Aabb {
        self.aabbs[self.bodies[body].colliders()]
            .iter()
            .copied()
            .reduce(|a, b| a.union(&b))
            .unwrap_or_default()
    }

    /// The shape table: each distinct piece once, as the narrow phase receives it;
    /// [`Collider::shape`] indexes it.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Whether the body is static.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_static(&self, body: usize) -> bool {
        self.bodies[body].is_static
    }

    /// Whether the body is a bullet (see [`BodyDef::is_bullet`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_bullet(&self, body: usize) -> bool {
        self.bodies[body].is_bullet
    }

    /// World position of the body's centre of mass.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn center_of_mass(&self, body: usize) -> Vec2 {
        self.centers[body]
    }

    /// The body's mass (density times area, summed over its pieces); infinite for a
    /// static body.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn mass(&self, body: usize) -> f32 {
        1.0 / self.bodies[body].inv_mass
    }

    /// The body's rotational inertia about its centre of mass; infinite for a static body.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn rotational_inertia(&self, body: usize) -> f32 {
        1.0 / self.bodies[body].inv_inertia
    }

    /// The body's friction coefficient ([`BodyDef::friction`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn friction(&self, body: usize) -> f32 {
        self.materials[body].friction
    }

    /// The body's restitution ([`BodyDef::restitution`]).
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn restitution(&self, body: usize) -> f32 {
        self.materials[body].restitution
    }

    /// Velocity of the body's centre of mass.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn linear_velocity(&self, body: usize) -> Vec2 {
        self.states[body].linear_velocity
    }

    /// Angular velocity, radians per second.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn angular_velocity(&self, body: usize) -> f32 {
        self.states[body].angular_velocity
    }

    /// Sets a dynamic body's velocity (a static body stays at rest); the next step clamps
    /// it like every speed (see [`World::max_linear_speed`]). A body index out of range or a
    /// non-finite value is an error naming it.
    pub fn set_velocity(&mut self, body: usize, linear: Vec2, angular: f32) -> Result<(), Error> {
        if body >= self.bodies.len() {
            return Err(Error::BodyIndexOutOfRange {
                body,
                body_count: self.bodies.len(),
            });
        }
        check_vec("linear_velocity", linear)?;
        check("angular_velocity", angular, angular.is_finite(), "finite")?;
        if !self.bodies[body].is_static {
            self.sleep.wake(body, &self.bodies, &mut self.states);
            self.states[body].linear_velocity = linear;
            self.states[body].angular_velocity = angular;
        }
        Ok(())
    }

    /// Gravity, units per second squared.
    pub fn gravity(&self) -> Vec2 {
        self.gravity
    }

    /// Solver substeps per step (default 4).
    pub fn substeps(&self) -> usize {
        self.substeps
    }

    /// Sets the solver substeps per step, from 1 to [`MAX_SUBSTEPS`]; anything else is an
    /// error naming it, and leaves the setting as it was.
    pub fn set_substeps(&mut self, substeps: usize) -> Result<(), Error> {
        if !(1..=MAX_SUBSTEPS).contains(&substeps) {
            return Err(Error::InvalidSetting {
                name: "substeps",
                value: substeps as f32,
                rule: "from 1 to MAX_SUBSTEPS (64)",
            });
        }
        self.substeps = substeps;
        Ok(())
    }

    /// The fastest a body's centre of mass moves, units per second (default
    /// [`DEFAULT_MAX_LINEAR_SPEED`]). Faster velocities, given or reached, are scaled down to
    /// it, keeping their direction, as in Box2D; spin is held to
    /// [`MAX_ROTATION_PER_SUBSTEP`](crate::MAX_ROTATION_PER_SUBSTEP).
    pub fn max_linear_speed(&self) -> f32 {
        self.max_linear_speed
    }

    /// Sets [`World::max_linear_speed`]: positive and at most [`MAX_LINEAR_SPEED_LIMIT`],
    /// else an error naming it. Bodies faster than the new limit are slowed to it on the
    /// next step.
    pub fn set_max_linear_speed(&mut self, speed: f32) -> Result<(), Error> {
        if !(speed > 0.0 && speed <= MAX_LINEAR_SPEED_LIMIT) {
            return Err(Error::InvalidSetting {
                name: "max_linear_speed",
                value: speed,
                rule: "positive and at most MAX_LINEAR_SPEED_LIMIT (1e6)",
            });
        }
        self.max_linear_speed = speed;
        Ok(())
    }

    /// Sets the gravity, units per second squared: each component at most
    /// [`MAX_COORDINATE`] in magnitude, else an error naming it.
    pub fn set_gravity(&mut self, gravity: Vec2) -> Result<(), Error> {
        check_gravity(gravity)?;
        self.gravity = gravity;
        // Resting bodies rest under the old gravity only.
        self.sleep.wake_all(&self.bodies, &mut self.states);
        Ok(())
    }

    /// Whether islands of resting bodies may fall asleep ([`World::set_sleeping`]).
    pub fn sleeping(&self) -> bool {
        self.sleep.enabled()
    }

    /// Turns sleeping on (the default) or off; off wakes every body. With it on, an island
    /// of touching dynamic bodies whose every body has moved slower than [`SLEEP_SPEED`]
    /// for [`TIME_TO_SLEEP`] stops being simulated (velocities 0; its contacts stay) until
    /// an awake body touches it, or [`World::wake`], [`World::set_velocity`] or
    /// [`World::set_gravity`] wakes it. Box2D's benchmark scenes run with it off.
    ///
    /// [`SLEEP_SPEED`]: crate::SLEEP_SPEED
    /// [`TIME_TO_SLEEP`]: crate::TIME_TO_SLEEP
    pub fn set_sleeping(&mut self, enabled: bool) {
        self.sleep
            .set_enabled(enabled, &self.bodies, &mut self.states);
    }

    /// Whether the body is simulated: false while it sleeps (see [`World::set_sleeping`]),
    /// and always for a static body, which never moves.
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`]; [`World::body`] is the form that
    /// returns `None` instead.
    pub fn is_awake(&self, body: usize) -> bool {
        !self.bodies[body].is_static && !self.sleep.is_asleep(body)
    }

    /// Wakes the body and the island it sleeps with, and restarts its rest timer, so it
    /// sleeps again only after resting [`TIME_TO_SLEEP`] more. Nothing for a static body.
    ///
    /// [`TIME_TO_SLEEP`]: crate::TIME_TO_SLEEP
    ///
    /// # Panics
    /// If `body` is not below [`World::body_count`].
    pub fn wake(&mut self, body: usize) {
        if !self.bodies[body].is_static {
            self.sleep.wake(body, &self.bodies, &mut self.states);
        }
    }

    /// Whether contact recycling is on ([`World::set_contact_recycling`]).
    pub fn contact_recycling(&self) -> bool {
        self.recycling
    }

    /// Turns contact recycling on (the default) or off. On, a pair of polygons whose relative
    /// pose has turned less than [`RECYCLE_ANGLE`](crate::RECYCLE_ANGLE), and whose contact
    /// points have moved less than [`RECYCLE_TRANSLATION`](crate::RECYCLE_TRANSLATION) with
    /// it, since its manifold was computed keeps that manifold, carried to the current
    /// poses, and does not go to the narrow phase ([`StepStats::recycled`] counts them): a
    /// settled pile or pyramid sends few pairs to it, and a GPU narrow phase uploads only
    /// those. A pair with a circle is
    /// collided every step either way (its normal turns as the pieces slide). Off, every
    /// pair is collided every step.
    pub fn set_contact_recycling(&mut self, enabled: bool) {
        self.recycling = enabled;
    }

    /// Whether the continuous stage sweeps fast bodies and bullets (default on).
    pub fn continuous(&self) -> bool {
        self.continuous
    }

    /// Turns the continuous stage on or off. Off, a body that moves more than its own
    /// thickness plus an obstacle's in one step can pass through the obstacle.
    pub fn set_continuous(&mut self, enabled: bool) {
        self.continuous = enabled;
    }

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
        let filter = filter.checked()?;
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
        self.filters[collider] = filter.checked()?;
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

    /// Hit events: with `Some(speed)`, each step reports in [`Events::contact_hit`] the
    /// contacts whose bodies approached faster than `speed` (units per second) at the start
    /// of the step and that the solver pushed apart, at their fastest point (Box2D's rule);
    /// `None` (the default) reports none and costs nothing. A speed that is negative or not
    /// finite is an error naming it.
    pub fn set_hit_event_threshold(&mut self, speed: Option<f32>) -> Result<(), Error> {
        if let Some(v) = speed {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::InvalidSetting {
                    name: "hit_event_threshold",
                    value: v,
                    rule: "finite and 0 or more",
                });
            }
        }
        self.hit_threshold = speed;
        Ok(())
    }

    /// The hit event threshold ([`World::set_hit_event_threshold`]).
    pub fn hit_event_threshold(&self) -> Option<f32> {
        self.hit_threshold
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
    /// Pieces less than [`SPECULATIVE_DISTANCE`] apart count: such a contact is speculative,
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

    /// Advances the world by `dt` seconds: broad phase, `narrow_phase`, solver. CPU and GPU
    /// narrow phases give the same step. `dt` must lie in [`TIME_STEP_RANGE`] and the
    /// gravity given to [`World::new`] be finite, else an error names them.
    ///
    /// When the narrow phase fails (a GPU device lost, out of memory, a validation error),
    /// the error is returned and the world is exactly as it was before the call: nothing of
    /// the step is applied, and the caller can step again with another narrow phase
    /// ([`CpuNarrowPhase`](crate::CpuNarrowPhase)) without losing a body or a contact.
    pub fn step(
        &mut self,
        dt: f32,
        narrow_phase: &mut dyn NarrowPhase,
    ) -> Result<StepStats, Error> {
        if !TIME_STEP_RANGE.contains(&dt) {
            return Err(Error::InvalidTimeStep { dt });
        }
        check_gravity(self.gravity)?;
        // Poses and boxes are current: add_body and the end of the last step keep them so.
        let start = Instant::now();
        // Each box grown by half the speculative distance: two colliders pair up when their
        // boxes come within the whole distance, so the narrow phase sees every pair it could
        // report a speculative contact for.
        self.broad_boxes.clear();
        self.broad_boxes.extend(
            self.aabbs
                .iter()
                .map(|b| b.expanded(0.5 * SPECULATIVE_DISTANCE)),
        );
        let (bodies, owner) = (&self.bodies, &self.collider_bodies);
        let (filters, sensors) = (&self.filters, &self.sensors);
        let (has_filters, has_sensors) = (self.has_filters, self.has_sensors);
        let proxy_moves = self.pair_set.update(&self.broad_boxes, |[a, b]| {
            let (a, b) = (a as usize, b as usize);
            let (body_a, body_b) = (owner[a] as usize, owner[b] as usize);
            body_a != body_b
                && !(bodies[body_a].is_static && bodies[body_b].is_static)
                && !(has_sensors && sensors[a] && sensors[b])
                && (!has_filters || filters[a].should_collide(&filters[b]))
        });
        // Pairs that left the set while touching end here (kept for the step that
        // succeeds, should this one fail).
        for &(pair, state) in self.pair_set.dropped() {
            if state.touching {
                let sensor = sensor_side(&self.sensors, pair);
                let bodies = pair.map(|c| owner[c as usize]);
                self.events_next.record_change(pair, bodies, sensor, None);
            }
        }
        let broad_done = Instant::now();

        self.sort_out_recycled();

        // Cheap when the narrow phase already holds this table (see `set_shape_table`).
        // Nothing above changed the world (the pairs are scratch): an error here leaves it
        // as it was, last step's contacts included, since they are only replaced on success.
        narrow_phase.set_shape_table(&self.shapes)?;
        narrow_phase.set_speculative_distance(SPECULATIVE_DISTANCE)?;
        narrow_phase.collide_pairs_into(
            &self.colliders,
            &self.fresh_pairs,
            &mut self.contact_scratch,
        )?;
        self.merge_contacts();
        self.record_pair_events();
        // A body woken here takes part in this step's solve.
        self.sleep.wake_touched(
            &self.collider_contacts,
            &self.collider_bodies,
            &self.bodies,
            &mut self.states,
        );
        let narrow_done = Instant::now();

        // The continuous stage sweeps from these poses.
        if self.continuous {
            self.start_centers.clone_from(&self.centers);
            self.start_rotations.clone_from(&self.rotations);
        }
        self.turned.clear();
        self.turned.resize(self.bodies.len(), 0.0);
        if rayon::current_num_threads() > 1 && rayon::current_thread_index().is_none() {
            // Called from outside the rayon pool: hand the solver and the collider update to
            // the pool as one job, so that their parallel passes start from a worker.
            // Otherwise each would send its own job in and put this thread to sleep until
            // it is done, and wake the workers again (measured on large_pyramid, two
            // threads: 0.44 ms a step more for the solver alone); rayon also allocates a
            // queue block per 63 jobs sent in from outside.
            rayon::scope(|_| self.solve_and_update(dt));
        } else {
            self.solve_and_update(dt);
        }
        let solve_done = Instant::now();
        if let Some(threshold) = self.hit_threshold {
            self.record_hits(threshold);
        }

        self.moved.clear();
        let continuous = if !self.continuous {
            Default::default()
        } else {
            solve_continuous(
                &StepStart {
                    centers: &self.start_centers,
                    rotations: &self.start_rotations,
                    turned: &self.turned,
                },
                &Obstacles {
                    bodies: &self.bodies,
                    shapes: &self.shapes,
                    colliders: &self.colliders,
                    collider_bodies: &self.collider_bodies,
                    aabbs: &self.aabbs,
                    static_colliders: &self.static_colliders,
                    filters: &self.filters,
                    sensors: &self.sensors,
                },
                &mut Motion {
                    centers: &mut self.centers,
                    rotations: &mut self.rotations,
                    states: &mut self.states,
                    materials: &self.materials,
                },
                &mut self.moved,
                (self.hit_threshold, &mut self.events_next.contact_hit),
            )
        };
        for k in 0..self.moved.len() {
            self.update_body_colliders(self.moved[k]);
        }
        self.sleep.update(
            dt,
            &self.collider_contacts,
            &self.collider_bodies,
            &self.bodies,
            &mut self.states,
        );
        let continuous_done = Instant::now();
        self.revision += 1;
        // The step succeeded: its events become the world's, and the old lists are next.
        std::mem::swap(&mut self.events, &mut self.events_next);
        self.events_next.clear();

        Ok(StepStats {
            bodies: self.bodies.len(),
            awake_bodies: self.sleep.awake_count(),
            colliders: self.colliders.len(),
            pairs: self.candidates,
            persistent_pairs: self.pair_set.pairs().len(),
            proxy_moves,
            recycled: self.recycled,
            contacts: self.collider_contacts.len(),
            contact_points: self
                .collider_contacts
                .iter()
                .map(|c| c.manifold.points().len())
                .sum(),
            broad_phase: broad_done - start,
            narrow_phase: narrow_done - broad_done,
            narrow_phase_detail: narrow_phase.timings(),
            solver: solve_done - narrow_done,
            swept_bodies: continuous.swept,
            impacts: continuous.impacts,
            continuous: continuous_done - solve_done,
        })
    }

    /// The solver's step over this step's contacts, then every collider's pose and box.
    fn solve_and_update(&mut self, dt: f32) {
        self.solver.step(
            dt,
            &Substeps {
                count: self.substeps,
                gravity: self.gravity,
                max_linear_speed: self.max_linear_speed,
            },
            &self.collider_contacts,
            &self.collider_bodies,
            &mut BodyMotion {
                bodies: &self.bodies,
                materials: &self.materials,
                centers: &mut self.centers,
                rotations: &mut self.rotations,
                states: &mut self.states,
                turned: &mut self.turned,
            },
            self.hit_threshold.is_some(),
        );
        self.update_colliders();
    }

    /// Sorts out this step's persistent pairs, block by block of slots over the rayon pool:
    /// those whose boxes do not overlap are no candidates; of the others, those whose kept
    /// manifold is recycled have their contact in `slot_contacts`, and the rest go to the
    /// narrow phase (`fresh_pairs`, in ascending pair order as the pair set holds them; each
    /// block lists its own). Each slot is written by its block alone: the same bits on any
    /// threads.
    fn sort_out_recycled(&mut self) {
        let sorting = SortOut {
            boxes: &self.broad_boxes,
            colliders: &self.colliders,
            recycling: self.recycling,
            sensors: &self.sensors,
            has_sensors: self.has_sensors,
        };
        let (pairs, states) = self.pair_set.pairs_and_data_mut();
        let filler = Contact {
            a: 0,
            b: 0,
            manifold: Manifold::new(
                Vec2::X,
                0.0,
                &[ContactPoint {
                    point: Vec2::ZERO,
                    depth: 0.0,
                    id: 0,
                }],
            ),
        };
        self.slot_outcomes.resize(pairs.len(), SlotOutcome::Apart);
        self.slot_contacts.resize(pairs.len(), filler);
        self.slot_changes.resize(pairs.len(), Change::Same);
        self.block_count = pairs.len().div_ceil(SLOTS_PER_TASK);
        if self.blocks.len() < self.block_count {
            // Grown only: a block's list of fresh slots is kept, so a warm world allocates
            // nothing here.
            self.blocks
                .resize_with(self.block_count, SlotBlock::default);
        }
        pairs
            .par_chunks(SLOTS_PER_TASK)
            .zip(states.par_chunks(SLOTS_PER_TASK))
            .zip(self.slot_outcomes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.slot_contacts.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.slot_changes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.blocks[..self.block_count].par_iter_mut())
            .enumerate()
            .for_each(
                |(index, (((((pairs, states), outcomes), contacts), changes), block))| {
                    let slots = SlotsOut {
                        outcomes,
                        contacts,
                        changes,
                    };
                    let first = (index * SLOTS_PER_TASK) as u32;
                    sorting.sort_out_block(first, pairs, states, slots, block);
                },
            );
        self.fresh_pairs.clear();
        self.recycled = 0;
        self.candidates = 0;
        for block in &self.blocks[..self.block_count] {
            let fresh = block.fresh.iter().map(|&slot| pairs[slot as usize]);
            self.fresh_pairs.extend(fresh);
            let recycled = block.recycled + block.recycled_sensors;
            self.recycled += recycled;
            self.candidates += recycled + block.fresh.len();
        }
    }

    /// Gathers this step's contacts, recycled and fresh, in slot order (which is pair order)
    /// into the world's list, and keeps each fresh pair's manifold (or its absence) in its
    /// slot of the pair set.
    ///
    /// The narrow phase reports a subset of `fresh_pairs`, in their order. A walk over the
    /// blocks' fresh slots matches each to its report (a slot without one is apart), and so
    /// counts each block's contacts: their prefix sum is where each block's contacts go.
    /// The matched reports are kept for recycling, over the rayon pool in even runs. Then
    /// the blocks, over the pool, each take their recycled contacts from their slots and
    /// their fresh ones (with what was kept of them) straight from the narrow phase's
    /// list, in slot order.
    fn merge_contacts(&mut self) {
        let (fresh, colliders) = (&self.contact_scratch, &self.colliders);
        let (pairs, states) = self.pair_set.pairs_and_data_mut();
        let (sensors, has_sensors) = (&self.sensors, self.has_sensors);
        let is_sensor =
            |[a, b]: [u32; 2]| has_sensors && (sensors[a as usize] || sensors[b as usize]);
        let blocks = &mut self.blocks[..self.block_count];
        let (mut next, mut total) = (0, 0);
        for block in blocks.iter_mut() {
            block.reported = next;
            block.out_start = total;
            total += block.recycled;
            for &slot in &block.fresh {
                let slot = slot as usize;
                if fresh.get(next).is_some_and(|c| [c.a, c.b] == pairs[slot]) {
                    next += 1;
                    self.slot_outcomes[slot] = if is_sensor(pairs[slot]) {
                        SlotOutcome::FreshSensor
                    } else {
                        total += 1;
                        SlotOutcome::Fresh
                    };
                } else {
                    let state = &mut states[slot];
                    self.slot_outcomes[slot] = SlotOutcome::Apart;
                    self.slot_changes[slot] = Change::of(state.touching, false);
                    block.changed |= state.touching;
                    state.kept = None;
                }
            }
        }

        // Each report kept for recycling, over the rayon pool in even runs of reports:
        // fresh pairs crowd into some blocks of slots (a settling pyramid's lower rows), and
        // keeping them block by block left one thread most of the work. A circle's normal
        // turns as the other piece slides along it: recycling assumes flat features (see
        // recycle.rs), so pairs with a circle keep nothing and are collided afresh every
        // step (a circle's manifold is the cheapest to compute anyway). Only the reports
        // the walk matched are read: a narrow phase that broke its contract may have added
        // others, with any indices (`tests/world_faults.rs`).
        const REPORTS_PER_TASK: usize = 512;
        let shapes = &self.shapes;
        let curved = |i: u32| {
            let shape = colliders[i as usize].shape as usize;
            matches!(shapes[shape], Shape::Circle(_))
        };
        // The walk moves on only at a match: the first `next` reports are the matched ones.
        self.fresh_kept.resize(next, None);
        self.fresh_kept
            .par_chunks_mut(REPORTS_PER_TASK)
            .zip(fresh[..next].par_chunks(REPORTS_PER_TASK))
            .for_each(|(kept, reports)| {
                for (kept, c) in kept.iter_mut().zip(reports) {
                    let flat = !curved(c.a) && !curved(c.b);
                    *kept = flat.then(|| KeptManifold::keep(c, colliders));
                }
            });

        self.contacts_next.clear();
        self.contacts_next.reserve(total);
        let out = ContactsOut(self.contacts_next.as_mut_ptr());
        let fresh_kept = &self.fresh_kept;
        states
            .par_chunks_mut(SLOTS_PER_TASK)
            .zip(self.slot_outcomes.par_chunks(SLOTS_PER_TASK))
            .zip(self.slot_contacts.par_chunks_mut(SLOTS_PER_TASK))
            .zip(self.slot_changes.par_chunks_mut(SLOTS_PER_TASK))
            .zip(blocks.par_iter_mut())
            .for_each(|((((states, outcomes), contacts), changes), block)| {
                let (mut k, mut next) = (block.out_start, block.reported);
                let each = states.iter_mut().zip(outcomes).zip(contacts).zip(changes);
                for (((state, outcome), contact), change) in each {
                    let c = match outcome {
                        SlotOutcome::Recycled => contact,
                        SlotOutcome::Fresh | SlotOutcome::FreshSensor => {
                            let c = &fresh[next];
                            state.kept = fresh_kept[next];
                            next += 1;
                            let sensor = *outcome == SlotOutcome::FreshSensor;
                            *change = Change::of(state.touching, !sensor || overlaps(c));
                            block.changed |= *change != Change::Same;
                            if *change == Change::Began {
                                // The begin event carries it (`record_pair_events`).
                                *contact = *c;
                            }
                            if sensor {
                                continue;
                            }
                            c
                        }
                        SlotOutcome::Apart | SlotOutcome::Sensor => continue,
                    };
                    // SAFETY: the walk above counted this block's slots of outcome
                    // `Recycled` and `Fresh` (those written here), and gave it the indices
                    // out_start.. up to that count: below the next block's out_start (or
                    // `total`), so disjoint between blocks and within the capacity
                    // reserved above.
                    unsafe { out.write(k, *c) };
                    k += 1;
                }
            });
        // SAFETY: every index below `total` was written above (the blocks' ranges tile it),
        // and `Contact` is `Copy`: nothing to drop.
        unsafe { self.contacts_next.set_len(total) };
        std::mem::swap(&mut self.collider_contacts, &mut self.contacts_next);
        // The lists take turns: keep the spare one as large as the one in use, so that a
        // warm world does not allocate when its contact count alternates between steps.
        self.contacts_next.reserve(self.collider_contacts.len());
    }

    /// The begin and end events of this step's pairs, in pair order, from the changes the
    /// recycling pass and `merge_contacts` found; each changed pair's touching flag is
    /// brought up to date. Only the blocks of slots `merge_contacts` saw a change in are
    /// scanned: a settled world's cost nothing here.
    fn record_pair_events(&mut self) {
        let (pairs, states) = self.pair_set.pairs_and_data_mut();
        let blocks = self.blocks[..self.block_count].iter().enumerate();
        let changed_blocks = blocks.filter(|(_, b)| b.changed);
        let changed_slots = changed_blocks.flat_map(|(block, _)| {
            let start = block * SLOTS_PER_TASK;
            start..(start + SLOTS_PER_TASK).min(pairs.len())
        });
        for slot in changed_slots {
            let change = self.slot_changes[slot];
            if change == Change::Same {
                continue;
            }
            let pair = pairs[slot];
            let began = change == Change::Began;
            states[slot].touching = began;
            let bodies = pair.map(|c| self.collider_bodies[c as usize]);
            let sensor = sensor_side(&self.sensors, pair);
            let contact = began.then_some(&self.slot_contacts[slot]);
            self.events_next
                .record_change(pair, bodies, sensor, contact);
        }
    }

    /// This step's hit events: per contact the solver pushed, the point that approached
    /// fastest, when faster than `threshold`.
    fn record_hits(&mut self, threshold: f32) {
        for (k, point, speed) in self.solver.hits(threshold) {
            let c = &self.collider_contacts[k];
            self.events_next.contact_hit.push(ContactHit {
                bodies: [c.a, c.b].map(|i| self.collider_bodies[i as usize] as usize),
                colliders: [c.a as usize, c.b as usize],
                point: c.manifold.points()[point].point,
                normal: c.manifold.normal,
                speed,
            });
        }
    }

    /// Poses and AABBs of every collider from the bodies' centres and rotations, collider by
    /// collider over the rayon pool (each is written alone: the same bits on any threads).
    fn update_colliders(&mut self) {
        /// Colliders per task: a pose and a box each, about 0.1 µs.
        const COLLIDERS_PER_TASK: usize = 1024;
        let (bodies, centers, rotations) = (&self.bodies, &self.centers, &self.rotations);
        let (shapes, owner) = (&self.shapes, &self.collider_bodies);
        self.colliders
            .par_iter_mut()
            .zip(self.aabbs.par_iter_mut())
            .zip(owner.par_iter())
            .with_min_len(COLLIDERS_PER_TASK)
            .for_each(|((collider, aabb), &body)| {
                let b = body as usize;
                let transform = body_transform(&bodies[b], centers[b], rotations[b]);
                collider.transform = transform;
                *aabb = shapes[collider.shape as usize].aabb(&transform);
            });
    }

    /// Poses and AABBs of one body's colliders.
    fn update_body_colliders(&mut self, body: usize) {
        let transform = self.transform(body);
        for c in self.bodies[body].colliders() {
            let collider = &mut self.colliders[c];
            collider.transform = transform;
            self.aabbs[c] = self.shapes[collider.shape as usize].aabb(&transform);
        }
    }
}

/// Pair slots per block of `World::sort_out_recycled` and `World::merge_contacts` (and of
/// `record_pair_events`, which scans the blocks a change was seen in): a box test and a
/// recycling test each, about 20 ns on large_pyramid, so a block is some 40 µs of work,
/// and 15,000 pairs make 8 blocks to share between threads.
const SLOTS_PER_TASK: usize = 2048;

/// What the recycling pass reads of the world.
struct SortOut<'a> {
    boxes: &'a [Aabb],
    colliders: &'a [Collider],
    recycling: bool,
    sensors: &'a [bool],
    has_sensors: bool,
}

/// A block's slots the recycling pass writes.
struct SlotsOut<'a> {
    outcomes: &'a mut [SlotOutcome],
    contacts: &'a mut [Contact],
    changes: &'a mut [Change],
}

impl SortOut<'_> {
    /// Sorts out one block of pairs (slots `first..`): see `World::sort_out_recycled`.
    fn sort_out_block(
        &self,
        first: u32,
        pairs: &[[u32; 2]],
        states: &[PairState],
        slots: SlotsOut<'_>,
        block: &mut SlotBlock,
    ) {
        block.fresh.clear();
        // Counted in locals and written to the block once.
        let (mut recycled, mut recycled_sensors, mut changed) = (0, 0, false);
        let each = (pairs.iter().zip(states))
            .zip(slots.outcomes)
            .zip(slots.contacts)
            .zip(slots.changes);
        for (k, ((((&[a, b], state), outcome), contact), change)) in each.enumerate() {
            let sensor = self.has_sensors && (self.sensors[a as usize] || self.sensors[b as usize]);
            let kept = state.kept.as_ref().filter(|_| self.recycling);
            (*outcome, *change) = if !self.boxes[a as usize].overlaps(&self.boxes[b as usize]) {
                (SlotOutcome::Apart, Change::of(state.touching, false))
            } else if kept.is_some_and(|m| m.recycle_into(a, b, self.colliders, contact)) {
                let now = !sensor || overlaps(contact);
                if sensor {
                    recycled_sensors += 1;
                    (SlotOutcome::Sensor, Change::of(state.touching, now))
                } else {
                    recycled += 1;
                    (SlotOutcome::Recycled, Change::of(state.touching, now))
                }
            } else {
                // Decided once the narrow phase has run (`World::merge_contacts`).
                block.fresh.push(first + k as u32);
                (SlotOutcome::Fresh, Change::Same)
            };
            changed |= *change != Change::Same;
        }
        (block.recycled, block.recycled_sensors) = (recycled, recycled_sensors);
        block.changed = changed;
    }
}

/// One block of pair slots in this step's recycling and merge passes. A cache line of its
/// own: neighbouring blocks are worked on by different threads at once.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
struct SlotBlock {
    /// Its slots that go to the narrow phase, in order.
    fresh: Vec<u32>,
    /// How many of its slots had their manifold recycled: contacts, and sensor pairs.
    recycled: usize,
    recycled_sensors: usize,
    /// Where the narrow phase's reports for its fresh slots begin in its list.
    reported: usize,
    /// Where its contacts begin in this step's list.
    out_start: usize,
    /// Whether a pair in it began or stopped touching.
    changed: bool,
}

/// Where the blocks of `World::merge_contacts` write their contacts, shared between them.
struct ContactsOut(*mut Contact);

// SAFETY: the blocks write disjoint indices (see `World::merge_contacts`).
unsafe impl Send for ContactsOut {}
// SAFETY: as above.
unsafe impl Sync for ContactsOut {}

impl ContactsOut {
    /// Writes `contact` at index `k`.
    ///
    /// # Safety
    /// `k` is within the buffer's capacity, and no other thread writes it meanwhile.
    unsafe fn write(&self, k: usize, contact: Contact) {
        // SAFETY: the caller's promise.
        unsafe { self.0.add(k).write(contact) }
    }
}

/// What became of a persistent pair this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotOutcome {
    /// Its boxes do not overlap: no candidate.
    Apart,
    /// Its kept manifold was recycled: its contact is in `slot_contacts`.
    Recycled,
    /// It goes to the narrow phase; after it (see `World::merge_contacts`), a pair the
    /// narrow phase reported a contact for (one it did not is `Apart`).
    Fresh,
    /// A sensor pair whose kept manifold was recycled into `slot_contacts`: it makes
    /// events, not a contact.
    Sensor,
    /// A sensor pair the narrow phase reported a manifold for.
    FreshSensor,
}

/// What the world keeps per persistent pair.
#[derive(Clone, Copy, Debug, Default)]
struct PairState {
    /// Its manifold as the narrow phase last computed it, for recycling (`None` when it
    /// found none).
    kept: Option<KeptManifold>,
    /// Whether it touched after the last step (a sensor pair: overlapped): what its next
    /// begin or end event is measured against.
    touching: bool,
}

/// Whether a pair began or stopped touching this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Same,
    Began,
    Ended,
}

impl Change {
    fn of(was: bool, now: bool) -> Change {
        match (was, now) {
            (false, true) => Change::Began,
            (true, false) => Change::Ended,
            _ => Change::Same,
        }
    }
}

/// Whether a sensor pair's contact is an overlap: a point of positive depth. (A
/// speculative point, apart by less than `SPECULATIVE_DISTANCE`, is not.)
fn overlaps(contact: &Contact) -> bool {
    contact.manifold.points().iter().any(|p| p.depth > 0.0)
}

/// Which collider of `pair` is the sensor (0 or 1), if either is. (Sensors never pair
/// with sensors.)
fn sensor_side(sensors: &[bool], pair: [u32; 2]) -> Option<usize> {
    pair.iter().position(|&c| sensors[c as usize])
}

/// The pose of a body's local frame from its centre of mass (world frame) and rotation.
fn body_transform(body: &Body, center: Vec2, rotation: Vec2) -> Transform {
    let origin = center - crate::transform::rotate(rotation, body.local_center);
    Transform::from_rotation(origin, rotation)
}
