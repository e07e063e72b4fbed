//! The reader of world snapshots ([`World::from_snapshot`]): the format of `snapshot.rs`
//! read back in its order, every value checked before the world takes it (see the module
//! notes of `snapshot.rs` and `docs/snapshot.md`, "Reading hostile bytes").

use std::mem::MaybeUninit;

use glam::Vec2;
use rayon::prelude::*;

use super::World;
use super::contacts::PairState;
use super::filters::checked as checked_filter;
use super::joints::VACANT_PAIR;
use super::limits::{
    GEOMETRY_LIMIT, LimitKind, MAX_ACCELERATION, MAX_COORDINATE, MAX_IMPULSE, MAX_JOINT_LENGTH,
    MAX_LINEAR_SPEED_LIMIT, MAX_SUBSTEPS, MOTION_LIMIT, check_angle, check_break, check_damping,
    check_gravity, check_gravity_scale, check_joint, check_max_force, check_point, checked_limits,
    checked_motor, checked_spring,
};
use super::materials::Material;
use super::snapshot::*;
use super::snapshot_codec::Reader;
use super::step::body_transform;
use crate::broad_phase::filter::Filter;
use crate::broad_phase::pair_set::{FAT_MARGIN, PairSet};
use crate::collision::manifold::ContactPoint;
use crate::collision::narrow_phase::Collider;
use crate::collision::recycle::KeptManifold;
use crate::dynamics::body::{Body, NO_COLLIDER};
use crate::dynamics::sleep::AWAKE;
use crate::dynamics::solver::{
    BodyForces, BodyMaterial, BodyState, ContactSolver, JointConstraint, JointModel, Spring,
    WarmStart,
};
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::shapes::segment::{ChainSegment, Segment};
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;
use crate::world::handle::{BodyId, ColliderId, JointId, Slots};

/// The contacts' colouring as the pairs section gives it, kept until the joints' colours
/// are read after the joints.
struct ContactColouring {
    warm: Vec<WarmStart>,
    /// Per warm start, its bodies.
    bodies: Vec<[u32; 2]>,
    colours: Vec<u8>,
    moving: Vec<u64>,
    /// Where the moving bodies' words begin: where a colouring that is not one is reported.
    words_at: usize,
}

/// The pair set's lists: fat boxes, pairs, their states, removed colliders.
type PairBuffers = (Vec<Aabb>, Vec<[u32; 2]>, Vec<PairState>, Vec<u32>);

/// What `from_snapshot` builds up before the world is whole.
struct Loading {
    world: World,
    /// Per collider slot: whether a live body claimed it.
    claimed: Vec<bool>,
    /// One-piece bodies' mass data by shape entry.
    memo: MassMemo,
    /// The world being restored over ([`World::restore_snapshot`]; a new one for
    /// [`World::from_snapshot`]): its lists' memory is filled again rather than fresh memory
    /// taken, whose first touch is a page fault each 4 KiB.
    spare: World,
    /// A body's pieces as read (slot, pose when not the body's, box when not the pose's),
    /// and those with an explicit fat box: kept from body to body.
    pieces: Vec<(usize, Option<Transform>, Option<Aabb>)>,
    fat_explicit: Vec<usize>,
}

/// `spare`'s memory (taken from it) holding `len` copies of `value`.
fn refill<T: Clone>(spare: &mut Vec<T>, len: usize, value: T) -> Vec<T> {
    let mut v = emptied(spare);
    v.resize(len, value);
    v
}

/// `spare`'s memory (taken from it), empty.
fn emptied<T>(spare: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(spare);
    v.clear();
    v
}

impl World {
    /// The world a [`World::snapshot`] was taken of: it steps to the same bits as the
    /// original would have, and takes the same handles (see [`World::snapshot`] for an
    /// example).
    ///
    /// Bytes that are truncated, corrupted, of another format or of a later version give
    /// [`SnapshotError`](crate::error::SnapshotError), naming what is wrong and the byte offset where it was found;
    /// never a panic, and never a world that turns non-finite: every number is checked
    /// against the limits the world's own setters enforce, every index against what it
    /// indexes, every shape through its constructor and every joint through
    /// [`World::add_joint`]'s checks.
    pub fn from_snapshot(bytes: &[u8]) -> Result<World, Error> {
        World::load(bytes, World::new(Vec2::ZERO))
    }

    /// [`World::from_snapshot`] into this world: it becomes the world the snapshot was
    /// taken of, reusing this world's memory for its bodies, colliders, pairs and contacts
    /// (a rollback loop restores a snapshot of the same world again and again: fresh memory
    /// would cost a page fault each 4 KiB on its first touch, and freeing the old world
    /// more). The result is the world `from_snapshot` gives, to the bit.
    ///
    /// On an error (the same as `from_snapshot`'s, naming the fault and its offset) this
    /// world is left empty, as `World::new(Vec2::ZERO)` makes one: no bodies, colliders
    /// or joints, default settings, a new world number; its handles are stale.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut world = World::default();
    /// world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
    /// let box_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0)))?;
    /// let mut narrow = CpuNarrowPhase::new();
    /// let saved = world.snapshot();
    /// let start = world.transform(box_);
    /// for _ in 0..20 {
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// world.restore_snapshot(&saved)?;
    /// assert_eq!(world.transform(box_), start);
    /// assert!(world.restore_snapshot(&saved[..10]).is_err());
    /// assert_eq!(world.body_count(), 0);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let spare = std::mem::replace(self, World::new(Vec2::ZERO));
        *self = World::load(bytes, spare)?;
        Ok(())
    }

    /// The world of `bytes`, in `spare`'s memory.
    fn load(bytes: &[u8], mut spare: World) -> Result<World, Error> {
        let mut r = Reader::new(bytes);
        let magic = r.take(MAGIC.len(), "magic")?;
        if magic != MAGIC {
            return Reader::error_at(
                0,
                format!("magic {magic:?}: not a world snapshot (expected \"WSATSNAP\")"),
            );
        }
        let at = r.offset;
        let version = r.u32("version")?;
        if version != VERSION {
            let what = if version > VERSION {
                format!("version {version} is later than this crate reads ({VERSION})")
            } else {
                format!("version {version} is unknown (this crate reads {VERSION})")
            };
            return Reader::error_at(at, what);
        }
        let number = r.u32("world number")?;
        let mut world = World::new(Vec2::ZERO);
        world.number = number;
        world.shape_index = std::mem::take(&mut spare.shape_index);
        world.shape_index.clear();
        let mut load = Loading {
            world,
            claimed: Vec::new(),
            memo: MassMemo::default(),
            spare,
            pieces: Vec::new(),
            fat_explicit: Vec::new(),
        };
        load.read_settings(&mut r)?;
        let free_shapes_at = load.read_shapes(&mut r)?;
        tag(&mut r, SLOTS, "slots")?;
        load.world.body_slots = read_slots(&mut r, "body")?;
        load.world.collider_slots = read_slots(&mut r, "collider")?;
        load.world.joints.slots = read_slots(&mut r, "joint")?;
        let colliders = load.world.collider_slots.len();
        let fat_len = r.varint("fat box count")?;
        if fat_len > colliders as u64 {
            return r.fail(format!(
                "fat box count {fat_len} is more than the {colliders} collider slots"
            ));
        }
        load.prepare_slots();
        tag(&mut r, BODIES, "bodies")?;
        let spare_pairs = std::mem::take(&mut load.spare.pair_set).into_buffers();
        let mut fat = spare_pairs.0;
        fat.resize(fat_len as usize, Aabb::EMPTY);
        let mut last_material = Material::default();
        for b in 0..load.world.body_slots.len() {
            if load.world.body_slots.is_live(b) {
                load.read_body(&mut r, b, &mut fat, &mut last_material)?;
            }
        }
        tag(&mut r, VACANT, "vacant colliders")?;
        for c in 0..colliders {
            if !load.world.collider_slots.is_live(c) {
                load.read_vacant_collider(&mut r, c, &mut fat)?;
            } else if !load.claimed[c] {
                return r.fail(format!("live collider slot {c} belongs to no body"));
            }
        }
        load.check_shape_users(free_shapes_at)?;
        load.read_statics(&mut r)?;
        let buffers = (fat, spare_pairs.1, spare_pairs.2, spare_pairs.3);
        let contacts = load.read_pairs(&mut r, buffers)?;
        load.read_joints(&mut r)?;
        load.read_colouring(&mut r, contacts)?;
        tag(&mut r, END, "end")?;
        if !r.at_end() {
            return r.fail(format!(
                "{} bytes past the end of the snapshot",
                r.remaining()
            ));
        }
        Ok(load.world)
    }
}

/// Checks the section tag `expected`.
fn tag(r: &mut Reader<'_>, expected: u8, section: &str) -> Result<(), Error> {
    let at = r.offset;
    let got = r.u8(section)?;
    if got != expected {
        return Reader::error_at(
            at,
            format!(
                "expected the {section} section (tag {:?}), found byte {got}",
                expected as char
            ),
        );
    }
    Ok(())
}

/// An error of the world's own checks, placed at `at`.
fn at<T>(at: usize, result: Result<T, Error>) -> Result<T, Error> {
    result.or_else(|e| Reader::error_at(at, e.to_string()))
}

fn read_slots(r: &mut Reader<'_>, what: &str) -> Result<Slots, Error> {
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
                return Reader::error_at(at, format!("{what} slot {s} is live or listed twice"));
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

fn read_unit(r: &mut Reader<'_>, field: &str) -> Result<Vec2, Error> {
    let at = r.offset;
    let v = r.vec2(field, 2.0)?;
    if (v.length_squared() - 1.0).abs() > UNIT_TOLERANCE {
        return Reader::error_at(at, format!("{field} = {v}: not of unit length"));
    }
    Ok(v)
}

/// A finite f32, 0 or more.
fn non_negative(r: &mut Reader<'_>, field: &str) -> Result<f32, Error> {
    let at = r.offset;
    let v = r.f32(field, f32::MAX)?;
    if v < 0.0 {
        return Reader::error_at(at, format!("{field} = {v}: must be 0 or more"));
    }
    Ok(v)
}

fn read_box_near(r: &mut Reader<'_>, field: &str, prediction: &Aabb) -> Result<Aabb, Error> {
    let at = r.offset;
    let [x0, y0, x1, y1] = box_floats(prediction);
    let b = Aabb::new(
        Vec2::new(
            r.f32_near(field, x0, GEOMETRY_LIMIT)?,
            r.f32_near(field, y0, GEOMETRY_LIMIT)?,
        ),
        Vec2::new(
            r.f32_near(field, x1, GEOMETRY_LIMIT)?,
            r.f32_near(field, y1, GEOMETRY_LIMIT)?,
        ),
    );
    if !(b.min.x <= b.max.x && b.min.y <= b.max.y) {
        return Reader::error_at(at, format!("{field}: min above max"));
    }
    Ok(b)
}

fn read_box(r: &mut Reader<'_>, field: &str) -> Result<Aabb, Error> {
    let at = r.offset;
    let b = Aabb::new(
        r.vec2(field, GEOMETRY_LIMIT)?,
        r.vec2(field, GEOMETRY_LIMIT)?,
    );
    if !(b.min.x <= b.max.x && b.min.y <= b.max.y) {
        return Reader::error_at(at, format!("{field}: min above max"));
    }
    Ok(b)
}

fn read_shape(r: &mut Reader<'_>) -> Result<Shape, Error> {
    let at = r.offset;
    let kind = r.u8("shape kind")?;
    let point = |r: &mut Reader<'_>| r.vec2("shape point", MAX_COORDINATE);
    let radius = |r: &mut Reader<'_>| r.f32("shape radius", MAX_COORDINATE);
    let shape = match kind {
        POLYGON => {
            let count = r.u8("polygon vertex count")? as usize;
            if !(3..=MAX_POLYGON_VERTICES).contains(&count) {
                return Reader::error_at(at, format!("polygon of {count} vertices"));
            }
            let mut points = [Vec2::ZERO; MAX_POLYGON_VERTICES];
            for p in points.iter_mut().take(count) {
                *p = point(r)?;
            }
            let rounding = radius(r)?;
            let polygon = Polygon::new(&points[..count]).and_then(|p| p.with_radius(rounding));
            Shape::Polygon(at_shape(at, polygon)?)
        }
        CIRCLE => {
            let center = point(r)?;
            let rad = radius(r)?;
            Shape::Circle(at_shape(at, Circle::with_center(center, rad))?)
        }
        CAPSULE => {
            let (a, b) = (point(r)?, point(r)?);
            let rad = radius(r)?;
            Shape::Capsule(at_shape(at, Capsule::new(a, b, rad))?)
        }
        SEGMENT => {
            let (a, b) = (point(r)?, point(r)?);
            Shape::Segment(at_shape(at, Segment::new(a, b))?)
        }
        CHAIN => {
            let (ga, a, b, gb) = (point(r)?, point(r)?, point(r)?, point(r)?);
            Shape::ChainSegment(at_shape(at, ChainSegment::new(ga, a, b, gb))?)
        }
        other => return Reader::error_at(at, format!("unknown shape kind {other}")),
    };
    if shape.bounding_radius() > MAX_COORDINATE
        || shape.aabb(&Transform::IDENTITY).size().max_element() > 2.0 * MAX_COORDINATE
    {
        return Reader::error_at(at, "shape larger than MAX_COORDINATE");
    }
    Ok(shape)
}

fn at_shape<T>(
    offset: usize,
    shape: Result<T, crate::shapes::polygon::ShapeError>,
) -> Result<T, Error> {
    shape.or_else(|e| Reader::error_at(offset, format!("invalid shape: {e}")))
}

impl Loading {
    fn read_settings(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, SETTINGS, "settings")?;
        let w = &mut self.world;
        let gravity_at = r.offset;
        w.gravity = Vec2::new(r.raw_f32("gravity")?, r.raw_f32("gravity")?);
        at(gravity_at, check_gravity(w.gravity))?;
        let substeps_at = r.offset;
        let substeps = r.varint("substeps")?;
        if !(1..=MAX_SUBSTEPS as u64).contains(&substeps) {
            return Reader::error_at(
                substeps_at,
                format!("substeps = {substeps}: must be from 1 to {MAX_SUBSTEPS}"),
            );
        }
        w.substeps = substeps as usize;
        let speed_at = r.offset;
        let speed = r.raw_f32("max_linear_speed")?;
        if !(speed > 0.0 && speed <= MAX_LINEAR_SPEED_LIMIT) {
            return Reader::error_at(
                speed_at,
                format!("max_linear_speed = {speed}: must be positive and at most 1e6"),
            );
        }
        w.max_linear_speed = speed;
        let flags = r.u8("settings flags")?;
        w.continuous = flags & CONTINUOUS != 0;
        w.recycling = flags & RECYCLING != 0;
        w.sleep.enabled = flags & SLEEPING != 0;
        w.custom_forces = flags & CUSTOM_FORCES != 0;
        w.has_sensors = flags & HAS_SENSORS != 0;
        w.has_filters = flags & HAS_FILTERS != 0;
        if flags & HIT_THRESHOLD != 0 {
            w.hit_threshold = Some(non_negative(r, "hit_event_threshold")?);
        }
        Ok(())
    }

    /// Reads the shape table and its free list (checked once the colliders are known);
    /// returns the offset of the free list.
    fn read_shapes(&mut self, r: &mut Reader<'_>) -> Result<usize, Error> {
        tag(r, SHAPES, "shapes")?;
        let count = r.count("shape count", 8)?;
        let mut shapes = emptied(&mut self.spare.shapes);
        shapes.reserve(count);
        for _ in 0..count {
            shapes.push(read_shape(r)?);
        }
        let w = &mut self.world;
        w.shapes = shapes;
        w.shape_users = refill(&mut self.spare.shape_users, count, 0);
        let at = r.offset;
        let free = r.count("free shape count", 1)?;
        for _ in 0..free {
            let s = r.index("free shape", count)?;
            w.free_shapes.push(s as u32);
        }
        Ok(at)
    }

    /// Sizes the per-slot arrays as vacant slots; the records fill the live ones.
    fn prepare_slots(&mut self) {
        let (w, spare) = (&mut self.world, &mut self.spare);
        let (bodies, colliders) = (w.body_slots.len(), w.collider_slots.len());
        w.body_ids = emptied(&mut spare.body_ids);
        w.body_ids.extend(
            (0..bodies).map(|s| BodyId::new(w.number, s as u32, slot_generation(&w.body_slots, s))),
        );
        w.user_data = refill(&mut spare.user_data, bodies, 0);
        w.bodies = refill(&mut spare.bodies, bodies, Body::vacant());
        w.centers = refill(&mut spare.centers, bodies, Vec2::ZERO);
        w.rotations = refill(&mut spare.rotations, bodies, Vec2::X);
        w.states = refill(
            &mut spare.states,
            bodies,
            BodyState {
                delta_rotation: Vec2::X,
                ..BodyState::default()
            },
        );
        w.materials = refill(
            &mut spare.materials,
            bodies,
            BodyMaterial {
                inv_inertia: 0.0,
                max_extent: 0.0,
            },
        );
        w.forces = refill(&mut spare.forces, bodies, BodyForces::default());
        w.sleep.timers = refill(&mut spare.sleep.timers, bodies, 0.0);
        w.sleep.islands = refill(&mut spare.sleep.islands, bodies, AWAKE);
        w.collider_ids = emptied(&mut spare.collider_ids);
        w.collider_ids.extend(
            (0..colliders).map(|s| {
                ColliderId::new(w.number, s as u32, slot_generation(&w.collider_slots, s))
            }),
        );
        w.next_collider = refill(&mut spare.next_collider, colliders, NO_COLLIDER);
        w.colliders = refill(
            &mut spare.colliders,
            colliders,
            Collider {
                shape: 0,
                transform: Transform::IDENTITY,
            },
        );
        w.collider_bodies = refill(&mut spare.collider_bodies, colliders, 0);
        w.filters = refill(&mut spare.filters, colliders, Filter::default());
        w.sensors = refill(&mut spare.sensors, colliders, false);
        w.surfaces = refill(
            &mut spare.surfaces,
            colliders,
            Material::default().surface(),
        );
        w.densities = refill(&mut spare.densities, colliders, 1.0);
        w.aabbs = refill(&mut spare.aabbs, colliders, Aabb::EMPTY);
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

    fn read_body(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        fat: &mut [Aabb],
        last_material: &mut Material,
    ) -> Result<(), Error> {
        let flags_at = r.offset;
        let flags = r.varint_u32("body flags")?;
        if flags >= MASS_DATA << 1 || flags & KIND_MASK == 3 {
            return Reader::error_at(
                flags_at,
                format!("body flags {flags:#x}: unknown bits or kind"),
            );
        }
        let kind = flags & KIND_MASK;
        let dynamic = kind == DYNAMIC;
        let w = &mut self.world;
        let center = r.vec2("body centre", GEOMETRY_LIMIT)?;
        let rotation = read_unit(r, "body rotation")?;
        let (mut linear, mut angular) = (Vec2::ZERO, 0.0);
        if flags & VELOCITY != 0 {
            linear = r.vec2("linear velocity", MOTION_LIMIT)?;
            angular = r.f32("angular velocity", MOTION_LIMIT)?;
        }
        if flags & USER_DATA != 0 {
            w.user_data[b] = r.u64("user data")?;
        }
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
        let asleep = flags & ASLEEP != 0;
        if asleep {
            let island_at = r.offset;
            let island = r.index("sleep island", w.body_slots.len())?;
            if !dynamic {
                return Reader::error_at(island_at, "a body that is not dynamic sleeps");
            }
            w.sleep.islands[b] = island as u32;
        }
        if flags & TIMER != 0 {
            w.sleep.timers[b] = non_negative(r, "sleep timer")?;
        }
        let mut record = Body {
            is_static: kind == STATIC,
            is_kinematic: kind == KINEMATIC,
            is_bullet: flags & BULLET != 0,
            fixed_rotation: flags & FIXED_ROTATION != 0,
            ..Body::vacant()
        };
        let explicit_mass = if flags & MASS_DATA != 0 {
            let mass_at = r.offset;
            let local_center = r.vec2("local centre", GEOMETRY_LIMIT)?;
            let inv_mass = r.f32("inverse mass", f32::MAX)?;
            let inv_inertia = r.f32("inverse inertia", f32::MAX)?;
            let max_extent = r.f32("max extent", GEOMETRY_LIMIT)?;
            let min_extent = r.f32("min extent", f32::INFINITY)?;
            let range =
                1.0 / *crate::world::MASS_RANGE.end()..=1.0 / *crate::world::MASS_RANGE.start();
            let ok = if dynamic {
                range.contains(&inv_mass) && range.contains(&inv_inertia)
            } else {
                inv_mass == 0.0 && inv_inertia == 0.0
            };
            if !ok || max_extent < 0.0 || min_extent < 0.0 {
                return Reader::error_at(mass_at, "mass data out of range for the body's kind");
            }
            Some((local_center, inv_mass, inv_inertia, max_extent, min_extent))
        } else {
            None
        };
        if !dynamic && (forces.force != Vec2::ZERO || forces.torque != 0.0) {
            return Reader::error_at(force_at, "a pending force on a body that is not dynamic");
        }

        // Colliders.
        let count_at = r.offset;
        let count = r.count("collider count", 3)?;
        if count == 0 || count > u32::MAX as usize {
            return Reader::error_at(count_at, "a live body without colliders");
        }
        let mut slots = emptied(&mut self.pieces);
        let mut fat_explicit = emptied(&mut self.fat_explicit);
        for piece in 0..count {
            let c_at = r.offset;
            let c = r.index("collider slot", w.collider_slots.len())?;
            if !w.collider_slots.is_live(c) || self.claimed[c] {
                return Reader::error_at(
                    c_at,
                    format!("collider slot {c} is vacant or claimed twice"),
                );
            }
            self.claimed[c] = true;
            let shape = r.index("collider shape", w.shapes.len())?;
            let cflags_at = r.offset;
            let cflags = r.u8("collider flags")?;
            let fat_flags = cflags & (FAT | FAT_EMPTY);
            if cflags >= FAT_EMPTY << 1
                || fat_flags == FAT | FAT_EMPTY
                || (fat_flags != 0 && c >= fat.len())
            {
                return Reader::error_at(
                    cflags_at,
                    format!("collider flags {cflags:#x}: unknown bits"),
                );
            }
            w.shape_users[shape] += 1;
            w.colliders[c].shape = shape as u32;
            w.collider_bodies[c] = b as u32;
            w.sensors[c] = cflags & SENSOR != 0;
            w.has_sensors |= w.sensors[c];
            if cflags & FILTER != 0 {
                let f_at = r.offset;
                let filter = Filter {
                    category_bits: r.u64("filter categories")?,
                    mask_bits: r.u64("filter mask")?,
                    group_index: r.u32("filter group")? as i32,
                };
                w.filters[c] = at(f_at, checked_filter(filter))?;
                w.has_filters |= filter != Filter::default();
            }
            if cflags & MATERIAL != 0 {
                let m_at = r.offset;
                let m = Material {
                    friction: r.raw_f32("friction")?,
                    restitution: r.raw_f32("restitution")?,
                    density: r.raw_f32("density")?,
                    tangent_speed: r.raw_f32("tangent speed")?,
                };
                at(m_at, m.check(piece, dynamic))?;
                *last_material = m;
            } else {
                let m_at = r.offset;
                at(m_at, last_material.check(piece, dynamic))?;
            }
            w.surfaces[c] = last_material.surface();
            w.densities[c] = last_material.density;
            let pose = if cflags & POSE != 0 {
                let t = r.vec2("collider position", GEOMETRY_LIMIT)?;
                let q = read_unit(r, "collider rotation")?;
                Some(Transform::from_parts(t, q))
            } else {
                None
            };
            let aabb = if cflags & BOX != 0 {
                Some(read_box(r, "collider box")?)
            } else {
                None
            };
            if cflags & FAT != 0 {
                // Read once the tight box is known (below).
            } else if cflags & FAT_EMPTY != 0 {
                fat[c] = Aabb::EMPTY;
            } else if c < fat.len() {
                // Marked derived: filled once the box is known.
                fat[c] = Aabb::new(Vec2::NAN, Vec2::NAN);
            }
            if cflags & FAT != 0 {
                fat_explicit.push(c);
            }
            slots.push((c, pose, aabb));
        }

        // The record, then what derives from it.
        record.first_collider = slots[0].0 as u32;
        record.collider_count = count as u32;
        for pair in slots.windows(2) {
            w.next_collider[pair[0].0] = pair[1].0 as u32;
        }
        w.bodies[b] = record;
        let (local_center, inv_mass, inv_inertia, max_extent, min_extent) = match explicit_mass {
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
                (
                    d.local_center,
                    d.inv_mass,
                    d.inv_inertia,
                    d.max_extent,
                    d.min_extent,
                )
            }
        };
        let body = &mut w.bodies[b];
        body.local_center = local_center;
        body.inv_mass = inv_mass;
        body.inv_inertia = inv_inertia;
        body.max_extent = max_extent;
        body.min_extent = min_extent;
        for value in [forces.force.x, forces.force.y] {
            if (value * inv_mass).abs() > MAX_ACCELERATION {
                return Reader::error_at(force_at, "pending force past MAX_ACCELERATION");
            }
        }
        if (forces.torque * inv_inertia).abs() > MAX_ACCELERATION {
            return Reader::error_at(force_at, "pending torque past MAX_ACCELERATION");
        }
        w.centers[b] = center;
        w.rotations[b] = rotation;
        w.states[b].linear_velocity = linear;
        w.states[b].angular_velocity = angular;
        w.states[b].inv_mass = if dynamic && !asleep { inv_mass } else { 0.0 };
        w.materials[b] = BodyMaterial {
            inv_inertia: if w.bodies[b].fixed_rotation {
                0.0
            } else {
                inv_inertia
            },
            max_extent,
        };
        w.forces[b] = forces;
        w.sleep.dynamic += usize::from(dynamic);
        w.sleep.asleep += usize::from(asleep);
        let transform = body_transform(&w.bodies[b], center, rotation);
        if !transform.is_finite() {
            return Reader::error_at(count_at, "the body's pose is not finite");
        }
        for &(c, pose, aabb) in &slots {
            let t = pose.unwrap_or(transform);
            w.colliders[c].transform = t;
            let shape = &w.shapes[w.colliders[c].shape as usize];
            w.aabbs[c] = aabb.unwrap_or_else(|| shape.aabb(&t));
            if fat.get(c).is_some_and(|f| f.min.x.is_nan()) {
                fat[c] = w.aabbs[c].expanded(FAT_MARGIN);
            }
        }
        for &c in &fat_explicit {
            fat[c] = read_box_near(r, "fat box", &w.aabbs[c].expanded(FAT_MARGIN))?;
        }
        self.pieces = slots;
        self.fat_explicit = fat_explicit;
        Ok(())
    }

    fn read_vacant_collider(
        &mut self,
        r: &mut Reader<'_>,
        c: usize,
        fat: &mut [Aabb],
    ) -> Result<(), Error> {
        let w = &mut self.world;
        w.collider_bodies[c] = r.index("vacant collider's body", w.body_slots.len())? as u32;
        w.colliders[c].shape = r.index("vacant collider's shape", w.shapes.len())? as u32;
        let flags_at = r.offset;
        let flags = r.u8("vacant collider flags")?;
        if flags & !(SENSOR | FAT) != 0 || (flags & FAT != 0 && c >= fat.len()) {
            return Reader::error_at(
                flags_at,
                format!("vacant collider flags {flags:#x}: unknown bits"),
            );
        }
        w.sensors[c] = flags & SENSOR != 0;
        if flags & FAT != 0 {
            fat[c] = read_box(r, "fat box")?;
        }
        Ok(())
    }

    /// Shape users counted from the live colliders; the free list must be exactly the
    /// entries no live collider uses, and the used entries distinct shapes (as the world
    /// shares them).
    fn check_shape_users(&mut self, free_at: usize) -> Result<(), Error> {
        let w = &mut self.world;
        let mut free = vec![false; w.shapes.len()];
        for &s in &w.free_shapes {
            if w.shape_users[s as usize] != 0 || free[s as usize] {
                return Reader::error_at(
                    free_at,
                    format!("free shape {s} is in use or listed twice"),
                );
            }
            free[s as usize] = true;
        }
        for (s, &users) in w.shape_users.iter().enumerate() {
            if users == 0 && !free[s] {
                return Reader::error_at(free_at, format!("shape {s} is unused but not free"));
            }
            if users > 0 {
                let key = super::body_def::shape_key(&w.shapes[s]);
                if w.shape_index.insert(key, s as u32).is_some() {
                    return Reader::error_at(free_at, format!("shape {s} repeats another entry"));
                }
            }
        }
        Ok(())
    }

    fn read_statics(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, STATICS, "static colliders")?;
        let w = &mut self.world;
        let count = r.count("static collider count", 1)?;
        let mut seen = vec![false; w.colliders.len()];
        for _ in 0..count {
            let at = r.offset;
            let c = r.index("static collider", w.colliders.len())?;
            let body = &w.bodies[w.collider_bodies[c] as usize];
            if !w.collider_slots.is_live(c) || !body.is_static || w.sensors[c] || seen[c] {
                return Reader::error_at(
                    at,
                    format!("collider {c} is no static obstacle, or listed twice"),
                );
            }
            seen[c] = true;
            w.static_colliders.push(c as u32);
        }
        let expected = (0..w.colliders.len())
            .filter(|&c| {
                w.collider_slots.is_live(c)
                    && w.bodies[w.collider_bodies[c] as usize].is_static
                    && !w.sensors[c]
            })
            .count();
        if expected != count {
            return r.fail(format!(
                "{count} static obstacles listed, {expected} in the world"
            ));
        }
        Ok(())
    }

    /// The pairs section, into `buffers` (the fat boxes as read, and the pair set's lists
    /// to fill: pairs, their states, removed colliders).
    fn read_pairs(
        &mut self,
        r: &mut Reader<'_>,
        buffers: PairBuffers,
    ) -> Result<ContactColouring, Error> {
        let (fat, mut pairs, mut data, mut removed) = buffers;
        tag(r, PAIRS, "pairs")?;
        let fat_len = fat.len();
        let removed_count = r.count("removed collider count", 1)?;
        removed.reserve(removed_count);
        for _ in 0..removed_count {
            removed.push(r.index("removed collider", fat_len)? as u32);
        }
        let count = r.count("pair count", 3)?;
        // The blocks' spans from their lengths, then the blocks over the pool, each into
        // its own stretch of the lists; the first fault in byte order is the error, as one
        // reading front to back would find it, whatever the thread count.
        let mut spans = Vec::with_capacity(count.div_ceil(PAIR_BLOCK));
        let mut scan_error = None;
        for _ in 0..count.div_ceil(PAIR_BLOCK) {
            let at = r.offset;
            let length = match r.u32("pair block length") {
                Ok(length) => length as usize,
                Err(e) => {
                    scan_error = Some(e);
                    break;
                }
            };
            if length > r.remaining() {
                scan_error = Reader::error_at::<()>(
                    at,
                    format!(
                        "pair block length {length}: past the {} bytes left",
                        r.remaining()
                    ),
                )
                .err();
                break;
            }
            spans.push((r.offset, r.offset + length));
            r.offset += length;
        }
        // Written in place by the blocks (each thread touches its own stretch's fresh
        // pages first), the lengths set once every block has filled its stretch.
        pairs.clear();
        data.clear();
        pairs.reserve(count);
        data.reserve(count);
        let world = &self.world;
        let bytes = r.bytes();
        let blocks: Vec<(FirstPair, Result<PairBlock, Error>)> = pairs.spare_capacity_mut()
            [..count]
            .par_chunks_mut(PAIR_BLOCK)
            .zip(data.spare_capacity_mut()[..count].par_chunks_mut(PAIR_BLOCK))
            .zip(spans.par_iter())
            .with_min_len(crate::parallel::min_len(1))
            .map(|((pairs, data), &span)| {
                let mut first = None;
                let block = read_pair_block(world, fat_len, bytes, span, pairs, data, &mut first);
                (first, block)
            })
            .collect();
        let mut last: Option<[u32; 2]> = None;
        let mut starts = 0;
        let mut read = Vec::with_capacity(blocks.len());
        for (first, block) in blocks {
            if let (Some((at, [a, b])), Some(l)) = (first, last) {
                if l >= [a, b] {
                    return Reader::error_at(at, format!("pair ({a}, {b}) out of order"));
                }
            }
            let block = block?;
            last = block.last;
            starts += block.warm.len();
            read.push(block);
        }
        if let Some(e) = scan_error {
            return Err(e);
        }
        // SAFETY: no block failed and none is missing (the scan found every span), and a
        // block that succeeds has written each slot of its stretch; the stretches cover
        // 0..count.
        unsafe {
            pairs.set_len(count);
            data.set_len(count);
        }
        let mut warm: Vec<WarmStart> = Vec::with_capacity(starts);
        let mut colours = Vec::with_capacity(starts);
        for block in read {
            warm.extend_from_slice(&block.warm);
            colours.extend_from_slice(&block.colours);
        }
        let w = &mut self.world;
        let words_at = r.offset;
        let words = r.count("moving body words", 8)?;
        if words > w.body_slots.len().div_ceil(64) {
            return Reader::error_at(
                words_at,
                format!(
                    "{words} words of moving bodies for {} bodies",
                    w.body_slots.len()
                ),
            );
        }
        let mut moving = Vec::with_capacity(words);
        for _ in 0..words {
            moving.push(r.u64("moving bodies")?);
        }
        let mut bodies = Vec::with_capacity(warm.len());
        for start in &warm {
            let pair = start.0.map(|c| w.collider_bodies[c as usize]);
            if pair.iter().any(|&b| b as usize >= 64 * words) {
                return Reader::error_at(
                    words_at,
                    format!(
                        "contact {:?}'s bodies past the moving bodies' words",
                        start.0
                    ),
                );
            }
            bodies.push(pair);
        }
        w.pair_set = PairSet::restored(fat, pairs, data, removed);
        Ok(ContactColouring {
            warm,
            bodies,
            colours,
            moving,
            words_at,
        })
    }

    /// The joints' colours as the last step gave them (a joint may have been removed since:
    /// its slot and bodies are the step's), and the solver from them and the contacts'.
    fn read_colouring(
        &mut self,
        r: &mut Reader<'_>,
        contacts: ContactColouring,
    ) -> Result<(), Error> {
        let ContactColouring {
            warm,
            mut bodies,
            mut colours,
            moving,
            words_at,
        } = contacts;
        let count = r.count("joint colour count", 4)?;
        let mut slots = Vec::with_capacity(count);
        for _ in 0..count {
            let at = r.offset;
            let step = r.varint("joint colour's slot")?;
            let slot = slots.last().map_or(0, |&s: &u32| u64::from(s)) + step;
            if slot > u64::from(u32::MAX) || (!slots.is_empty() && step == 0) {
                return Reader::error_at(at, format!("joint colour of slot {slot}: out of order"));
            }
            let bodies_at = r.offset;
            let pair = [
                r.varint("joint colour's body")?,
                r.varint("joint colour's body")?,
            ];
            if pair.iter().any(|&b| b >= 64 * moving.len() as u64) {
                return Reader::error_at(
                    bodies_at,
                    format!("joint {slot}'s bodies {pair:?} past the moving bodies' words"),
                );
            }
            slots.push(slot as u32);
            bodies.push(pair.map(|b| b as u32));
            colours.push(r.u8("joint colour")?);
        }
        let contact_count = warm.len();
        let spare = std::mem::take(&mut self.spare.solver);
        self.world.solver = ContactSolver::restored(warm, &slots, bodies, colours, moving, spare)
            .or_else(|k| {
            let what = if k < contact_count {
                format!("contact {k}'s colour is not a colouring")
            } else {
                format!(
                    "joint {}'s colour is not a colouring",
                    slots[k - contact_count]
                )
            };
            Reader::error_at(words_at, what)
        })?;
        Ok(())
    }

    fn read_joints(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, JOINTS, "joints")?;
        let w = &mut self.world;
        let bodies = w.body_slots.len();
        let mut touching = vec![0usize; bodies];
        for j in 0..w.joints.slots.len() {
            if !w.joints.slots.is_live(j) {
                continue;
            }
            let at_joint = r.offset;
            let a = r.index("joint body A", bodies)?;
            let b = r.index("joint body B", bodies)?;
            if a == b || !w.body_slots.is_live(a) || !w.body_slots.is_live(b) {
                return Reader::error_at(
                    at_joint,
                    format!("joint {j}'s bodies ({a}, {b}) are vacant or the same"),
                );
            }
            let anchors_at = r.offset;
            let anchors = [
                r.vec2("joint anchor", f32::MAX)?,
                r.vec2("joint anchor", f32::MAX)?,
            ];
            for anchor in anchors {
                at(anchors_at, check_point("anchor", anchor))?;
            }
            let flags_at = r.offset;
            let flags = r.u8("joint flags")?;
            if flags > 7 {
                return Reader::error_at(flags_at, format!("joint flags {flags:#x}: unknown bits"));
            }
            let mut breaking = [f32::INFINITY; 2];
            for (k, bit) in [2, 4].into_iter().enumerate() {
                if flags & bit != 0 {
                    let field = ["break_force", "break_torque"][k];
                    // An infinite threshold (never) is written as none.
                    let ok = |v: f32| {
                        check_break(field, v)?;
                        check_joint(field, v, v.is_finite(), "finite when written")
                    };
                    breaking[k] = read_checked(r, field, ok)?;
                }
            }
            let model = read_model(r)?;
            let mut c = JointConstraint::new([a as u32, b as u32], anchors, model);
            let present_at = r.offset;
            let present = r.u8("joint impulse flags")?;
            if present >= 1 << 7 {
                return Reader::error_at(
                    present_at,
                    format!("joint impulse flags {present:#x}: unknown bits"),
                );
            }
            let mut values = [[0.0; 2]; 7];
            for (k, v) in values.iter_mut().enumerate() {
                if present & (1 << k) != 0 {
                    // The impulses are held to MAX_IMPULSE as they accumulate; the force
                    // and torque are the last step's, as large as that made them.
                    let limit = if k < 5 { MAX_IMPULSE } else { f32::MAX };
                    let n = if k == 0 || k == 5 { 2 } else { 1 };
                    for x in v.iter_mut().take(n) {
                        *x = r.f32("joint impulse", limit)?;
                    }
                }
            }
            let [linear, spring, motor, lower, upper, force, torque] = values;
            c.linear_impulse = Vec2::from(linear);
            (c.spring_impulse, c.motor_impulse) = (spring[0], motor[0]);
            (c.lower_impulse, c.upper_impulse) = (lower[0], upper[0]);
            (c.force, c.torque) = (Vec2::from(force), torque[0]);
            let collide = flags & 1 != 0 && model != JointModel::Filter;
            let set = &mut w.joints;
            set.pairs[j] = c.bodies;
            set.constraints[j] = c;
            set.collide_connected[j] = collide;
            set.breaking[j] = breaking;
            set.filtering += usize::from(!collide);
            set.breakable += usize::from(breaking != [f32::INFINITY; 2]);
            touching[a] += 1;
            touching[b] += 1;
        }
        // The per-body lists, in their order (removing a body removes its joints from the
        // last of its list back: the order decides which slots come free first).
        let count = r.count("joint edge list count", 2)?;
        let set = &mut w.joints;
        set.edges = vec![Vec::new(); bodies];
        for _ in 0..count {
            let at_list = r.offset;
            let body = r.index("joint edge body", bodies)?;
            let len = r.count("joint edge count", 1)?;
            if !set.edges[body].is_empty() || len != touching[body] {
                return Reader::error_at(
                    at_list,
                    format!("body {body}'s joint list does not match its joints"),
                );
            }
            for _ in 0..len {
                let at_edge = r.offset;
                let j = r.index("joint edge", set.constraints.len())?;
                let c = &set.constraints[j];
                if !c.live
                    || !c.bodies.contains(&(body as u32))
                    || set.edges[body].contains(&(j as u32))
                {
                    return Reader::error_at(
                        at_edge,
                        format!("joint {j} is not one of body {body}'s"),
                    );
                }
                set.edges[body].push(j as u32);
            }
        }
        if let Some(body) = (0..bodies).find(|&b| set.edges[b].len() != touching[b]) {
            return r.fail(format!("body {body}'s joint list is missing"));
        }
        // Trailing empty lists were never made: a world sizes them as joints come.
        while set.edges.last().is_some_and(Vec::is_empty) {
            set.edges.pop();
        }
        Ok(())
    }
}

/// A block's first pair and its offset, when it has one that read.
type FirstPair = Option<(usize, [u32; 2])>;

/// What a block of pairs gives besides its pairs and states: its warm starts and their
/// colours, and its last pair.
struct PairBlock {
    warm: Vec<WarmStart>,
    colours: Vec<u8>,
    last: Option<[u32; 2]>,
}

/// The block of pairs in `bytes[start..end]`, into `pairs` and `data` (its stretch of the
/// lists), with its first pair and that pair's offset in `first`, known even when a later
/// one is at fault (the caller checks the order across blocks).
fn read_pair_block(
    world: &World,
    fat_len: usize,
    bytes: &[u8],
    (start, end): (usize, usize),
    pairs: &mut [MaybeUninit<[u32; 2]>],
    data: &mut [MaybeUninit<PairState>],
    first: &mut FirstPair,
) -> Result<PairBlock, Error> {
    let r = &mut Reader::new(&bytes[..end]);
    r.offset = start;
    let mut block = PairBlock {
        warm: Vec::with_capacity(pairs.len()),
        colours: Vec::with_capacity(pairs.len()),
        last: None,
    };
    for (slot, state) in pairs.iter_mut().zip(data.iter_mut()) {
        let at = r.offset;
        let da = r.varint("pair's first collider")?;
        let db = r.varint("pair's second collider")?;
        let a = u64::from(block.last.map_or(0, |l| l[0])) + da;
        let b = a + 1 + db;
        if b >= fat_len as u64 {
            return Reader::error_at(at, format!("pair ({a}, {b}) past the {fat_len} colliders"));
        }
        let pair = [a as u32, b as u32];
        if block.last.is_some_and(|l| l >= pair) {
            return Reader::error_at(at, format!("pair ({a}, {b}) out of order"));
        }
        if block.last.is_none() {
            *first = Some((at, pair));
        }
        block.last = Some(pair);
        let flags_at = r.offset;
        let flags = r.u8("pair flags")?;
        let ids_kept = flags & WARM_IDS_KEPT != 0;
        if flags & !(TOUCHING | KEPT | WARM | WARM_IDS_KEPT) != 0
            || (ids_kept && flags & (KEPT | WARM) != KEPT | WARM)
        {
            return Reader::error_at(flags_at, format!("pair flags {flags:#x}: unknown bits"));
        }
        let kept = if flags & KEPT != 0 {
            Some(read_kept(r, &world.relative_pose(pair))?)
        } else {
            None
        };
        if flags & WARM != 0 {
            let count_at = r.offset;
            let n = r.u8("warm start point count")?;
            let kept_count = kept.as_ref().map_or(0, |k| k.count);
            if !(1..=2).contains(&n) || (ids_kept && u32::from(n) != kept_count) {
                return Reader::error_at(count_at, format!("warm start of {n} points"));
            }
            let colour = r.u8("colour")?;
            let mut start: WarmStart = (pair, u32::from(n), [0; 2], [0.0; 2], [0.0; 2]);
            let mut last_id = 0;
            for k in 0..n as usize {
                start.2[k] = match &kept {
                    Some(kept) if ids_kept => kept.points[k].id,
                    _ => read_id(r, &mut last_id)?,
                };
                start.3[k] = r.f32("normal impulse", MAX_IMPULSE)?;
                start.4[k] = r.f32("tangent impulse", MAX_IMPULSE)?;
            }
            block.warm.push(start);
            block.colours.push(colour);
        }
        slot.write(pair);
        state.write(PairState {
            kept,
            touching: flags & TOUCHING != 0,
        });
    }
    if r.offset != end {
        return r.fail(format!(
            "the block of pairs ends at byte {end}, its pairs here"
        ));
    }
    Ok(block)
}

fn read_kept(r: &mut Reader<'_>, now: &Transform) -> Result<KeptManifold, Error> {
    let [x, y, c, s] = transform_floats(now);
    let translation = Vec2::new(
        r.f32_near("kept offset", x, GEOMETRY_LIMIT)?,
        r.f32_near("kept offset", y, GEOMETRY_LIMIT)?,
    );
    let rotation_at = r.offset;
    let rotation = Vec2::new(
        r.f32_near("kept rotation", c, 2.0)?,
        r.f32_near("kept rotation", s, 2.0)?,
    );
    if (rotation.length_squared() - 1.0).abs() > UNIT_TOLERANCE {
        return Reader::error_at(
            rotation_at,
            format!("kept rotation = {rotation}: not of unit length"),
        );
    }
    let normal = read_unit(r, "kept normal")?;
    let depth = r.f32("kept depth", GEOMETRY_LIMIT)?;
    let at = r.offset;
    let count = r.u8("kept point count")?;
    if !(1..=2).contains(&count) {
        return Reader::error_at(at, format!("kept manifold of {count} points"));
    }
    let mut points = [ContactPoint {
        point: Vec2::ZERO,
        depth: 0.0,
        id: 0,
    }; 2];
    let mut last_id = 0;
    for p in points.iter_mut().take(count as usize) {
        p.point = r.vec2("kept point", GEOMETRY_LIMIT)?;
        p.depth = r.f32_near("kept point depth", depth, GEOMETRY_LIMIT)?;
        p.id = read_id(r, &mut last_id)?;
    }
    // A one-point manifold repeats its point in the second slot (see `KeptManifold::keep`).
    if count == 1 {
        points[1] = points[0];
    }
    Ok(KeptManifold {
        relative: Transform::from_parts(translation, rotation),
        normal,
        depth,
        points,
        count: u32::from(count),
    })
}

/// A joint's f32 that `check` accepts (one of the checks `add_joint` makes, from the table
/// in `limits.rs`), else its error at the value's offset.
fn read_checked(
    r: &mut Reader<'_>,
    field: &'static str,
    check: impl Fn(f32) -> Result<(), Error>,
) -> Result<f32, Error> {
    let at_value = r.offset;
    let v = r.raw_f32(field)?;
    at(at_value, check(v))?;
    Ok(v)
}

fn read_pair(r: &mut Reader<'_>, field: &str) -> Result<[f32; 2], Error> {
    Ok([r.raw_f32(field)?, r.raw_f32(field)?])
}

fn read_spring(r: &mut Reader<'_>, present: bool) -> Result<Option<Spring>, Error> {
    if !present {
        return Ok(None);
    }
    let at_spring = r.offset;
    let [hertz, damping_ratio] = read_pair(r, "spring")?;
    let spring = crate::dynamics::joints::JointSpring {
        hertz,
        damping_ratio,
    };
    at(at_spring, checked_spring(Some(spring)))
}

/// A motor of a joint that turns (`angular`) or slides.
fn read_motor(r: &mut Reader<'_>, present: bool, angular: bool) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_motor = r.offset;
    let motor = read_pair(r, "motor")?;
    at(at_motor, checked_motor(motor, angular)).map(Some)
}

fn read_limits(
    r: &mut Reader<'_>,
    present: bool,
    kind: LimitKind,
) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_limits = r.offset;
    let limits = read_pair(r, "limits")?;
    at(at_limits, checked_limits(Some(limits), kind))
}

fn read_angle(r: &mut Reader<'_>, field: &'static str) -> Result<f32, Error> {
    read_checked(r, field, |angle| check_angle(field, angle))
}

/// A max force or torque (infinite: none given).
fn read_bound(r: &mut Reader<'_>, field: &'static str) -> Result<f32, Error> {
    read_checked(r, field, |v| check_max_force(field, v))
}

fn read_model(r: &mut Reader<'_>) -> Result<JointModel, Error> {
    let at_model = r.offset;
    let kind = r.u8("joint kind")?;
    let opts = r.u8("joint options")?;
    let (l, m, s) = (opts & 1 != 0, opts & 2 != 0, opts & 4 != 0);
    let most = match kind {
        1 => 15,
        2 => 3,
        0 | 3 | 4 => 7,
        _ => 0,
    };
    if opts > most {
        return Reader::error_at(at_model, format!("joint options {opts:#x}: unknown bits"));
    }
    let model = match kind {
        0 => JointModel::Revolute {
            reference_angle: read_angle(r, "reference angle")?,
            limits: read_limits(r, l, LimitKind::Angle)?,
            motor: read_motor(r, m, true)?,
            spring: read_spring(r, s)?,
        },
        1 => {
            // As add_joint makes it: the distance of two anchors within MAX_COORDINATE.
            let length = read_checked(r, "length", |v| {
                check_joint(
                    "length",
                    v,
                    (0.0..=MAX_JOINT_LENGTH).contains(&v),
                    "from 0 to MAX_JOINT_LENGTH (4e12)",
                )
            })?;
            let lower = if l {
                Some(r.raw_f32("lower limit")?)
            } else {
                None
            };
            let upper = if m {
                Some(r.raw_f32("upper limit")?)
            } else {
                None
            };
            let limits = match (lower, upper) {
                (Some(lo), Some(hi)) => {
                    at(at_model, checked_limits(Some([lo, hi]), LimitKind::Length))?;
                    [lower, upper]
                }
                (None, None) => [None, None],
                _ => return Reader::error_at(at_model, "a distance joint with one limit"),
            };
            JointModel::Distance {
                length,
                rigid: opts & 8 != 0,
                limits,
                spring: read_spring(r, s)?,
            }
        }
        2 => JointModel::Weld {
            reference_angle: read_angle(r, "reference angle")?,
            linear: read_spring(r, l)?,
            angular: read_spring(r, m)?,
        },
        3 => JointModel::Prismatic {
            reference_angle: read_angle(r, "reference angle")?,
            local_axis: read_unit(r, "joint axis")?,
            limits: read_limits(r, l, LimitKind::Slide)?,
            motor: read_motor(r, m, false)?,
            spring: read_spring(r, s)?,
        },
        4 => JointModel::Wheel {
            local_axis: read_unit(r, "joint axis")?,
            limits: read_limits(r, l, LimitKind::Slide)?,
            motor: read_motor(r, m, true)?,
            spring: read_spring(r, s)?,
        },
        5 => JointModel::Filter,
        6 => JointModel::Motor {
            reference_angle: read_angle(r, "reference angle")?,
            max_force: read_bound(r, "max_force")?,
            max_torque: read_bound(r, "max_torque")?,
        },
        7 => {
            let target_at = r.offset;
            let target = Vec2::from(read_pair(r, "target")?);
            at(target_at, check_point("target", target))?;
            let spring = read_spring(r, true)?.unwrap_or_default();
            JointModel::Mouse {
                target,
                spring,
                max_force: read_bound(r, "max_force")?,
            }
        }
        other => return Reader::error_at(at_model, format!("unknown joint kind {other}")),
    };
    Ok(model)
}

fn read_id(r: &mut Reader<'_>, last: &mut u32) -> Result<u32, Error> {
    let id = r.varint_u32("feature id")? ^ *last;
    *last = id;
    Ok(id)
}
