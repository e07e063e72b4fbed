//! World snapshots: [`World::snapshot`] writes everything that decides the next steps into
//! a compact, versioned byte string, and [`World::from_snapshot`] makes a world of it that
//! steps to the same bits as the original. `docs/snapshot.md` gives the format field by
//! field; `snapshot_codec.rs` the byte level.
//!
//! ```text
//! write: header (magic, version, world number); settings; shape table; the slots of
//!        bodies, colliders and joints (generations, live flags, free lists); per live
//!        body its record and its colliders'; the vacant colliders; the static obstacles;
//!        the persistent pairs with their kept manifolds and warm starts; the joints
//! what is derived is not written: a flag says "as recomputed" where the writer found the
//!        recomputation gives the same bits (mass data from shapes and densities, collider
//!        poses and boxes from the body's pose, fat boxes from the tight ones, a material
//!        equal to the previous collider's), and the value is written otherwise
//! read:  the same order; every float checked (finite, within the world's own limits),
//!        every index against what it indexes, every count against the bytes left, every
//!        shape through its constructor, every joint through add_joint's checks, the slot
//!        lists for consistency; the first fault is an Error::Snapshot with its offset
//! ```
//!
//! `struct World`, field by field (s: saved, d: derived on load, r: scratch or cache,
//! rebuilt or refilled by the next step or query, o: output of the last step, not kept):
//!
//! ```text
//! number s (handles stay valid)          body_slots, collider_slots s (generations, free,
//! body_ids, collider_ids d (slots)          removed, retired lists, in their order)
//! user_data s (flag when 0)              next_collider d (per body, its colliders in order)
//! gravity, substeps, continuous,         shapes s (table, free entries included: vacant
//!   max_linear_speed, recycling,            colliders may name them); shape_users d;
//!   hit_threshold, custom_forces,           shape_index d; free_shapes s (order kept)
//!   has_sensors, has_filters s           bodies s (kind, flags; mass data d when the
//! centers, rotations s (bits)               recomputation matches its bits, else s)
//! states s (velocities; inv_mass d:      materials d (inv_inertia from the body record and
//!   dynamic, awake), deltas d (reset       fixed rotation, max_extent)
//!   by the step's first pass)            forces s (pending force and torque, gravity scale,
//! colliders s/d (shape s, pose d when      damping, each flagged when default)
//!   it is the body's, else s)            collider_bodies s; filters s (flag when default);
//! sensors s; surfaces, densities s       aabbs d when the pose gives them, else s
//!   (flag when the previous collider's)  broad_boxes r; candidates r; contact_scratch r
//! pair_set s (fat boxes, d when they are the tight box grown by the margin; pairs with
//!   touching flag and kept manifold; colliders removed since the update) / r (tree,
//!   degrees, lists in turn)
//! collider_contacts, events o (empty after load: World::contacts and World::events tell
//!   the last step's, which the restored world has not run)
//! contacts_next, slot_*, blocks, block_count, fresh_pairs, fresh_kept, recycled r
//! events_next r (empty: a step that failed just before the snapshot loses its pending
//!   end events)
//! sleep s (enabled, per body timer and island) / d (counts) / r (union-find scratch)
//! solver s (last step's warm starts: colliders, feature ids, impulses) / r (the rest)
//! joints s (slots, models, anchors, impulses, breaking thresholds, collide_connected, the
//!   per-body edge lists in their order) / d (ids, filtering and breakable counts)
//! static_colliders s (their order: the continuous stage sweeps in it)
//! start_centers, start_rotations, turned, moved, woken r; revision, queries r (new)
//! ```

use glam::Vec2;

use super::World;
use super::contacts::PairState;
use super::filters::checked as checked_filter;
use super::forces::MAX_ACCELERATION;
use super::joints::{check, check_point, checked_limits, checked_spring};
use super::limits::{MAX_COORDINATE, MAX_LINEAR_SPEED_LIMIT, MAX_SUBSTEPS, check_gravity};
use super::materials::Material;
use super::motion::{check_damping, check_gravity_scale};
use super::snapshot_codec::{Reader, Writer};
use super::step::body_transform;
use crate::aabb::Aabb;
use crate::body::{Body, NO_COLLIDER};
use crate::body_shape::BodyShape;
use crate::capsule::Capsule;
use crate::circle::Circle;
use crate::error::Error;
use crate::filter::Filter;
use crate::handle::{BodyId, ColliderId, JointId, Slots};
use crate::manifold::ContactPoint;
use crate::narrow_phase::Collider;
use crate::pair_set::{FAT_MARGIN, PairSet};
use crate::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::recycle::KeptManifold;
use crate::segment::{ChainSegment, Segment};
use crate::shape::Shape;
use crate::sleep::AWAKE;
use crate::solver::{
    BodyForces, BodyMaterial, BodyState, ContactSolver, JointConstraint, JointModel, Spring,
    WarmStart,
};
use crate::transform::Transform;

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"WSATSNAP";
/// The format's version: a reader refuses a later one.
const VERSION: u32 = 1;

/// Geometric values (points, boxes, kept manifolds' offsets): twice the world's coordinate
/// limit, room for a body's centre at the limit plus its reach.
const GEOMETRY_LIMIT: f32 = 2.0 * MAX_COORDINATE;
/// Velocities and impulses: far past anything the solver makes (a mass of 1e24 at the
/// speed limit), far below where their squares overflow.
const MOTION_LIMIT: f32 = 1e18;
/// How far a stored rotation `(cos, sin)` may be from unit length: what renormalised f32
/// rotations differ by, with room.
const UNIT_TOLERANCE: f32 = 1e-4;

// Section tags, in their order.
const SETTINGS: u8 = b'S';
const SHAPES: u8 = b'H';
const SLOTS: u8 = b'L';
const BODIES: u8 = b'B';
const VACANT: u8 = b'V';
const STATICS: u8 = b'T';
const PAIRS: u8 = b'P';
const JOINTS: u8 = b'J';
const END: u8 = b'E';

// Settings flags.
const CONTINUOUS: u8 = 1;
const RECYCLING: u8 = 2;
const SLEEPING: u8 = 4;
const CUSTOM_FORCES: u8 = 8;
const HIT_THRESHOLD: u8 = 16;
const HAS_SENSORS: u8 = 32;
const HAS_FILTERS: u8 = 64;

// Body flags (a varint). Bits 0-1: the kind.
const KIND_MASK: u32 = 3;
const STATIC: u32 = 0;
const KINEMATIC: u32 = 1;
const DYNAMIC: u32 = 2;
const BULLET: u32 = 1 << 2;
const FIXED_ROTATION: u32 = 1 << 3;
const USER_DATA: u32 = 1 << 4;
const VELOCITY: u32 = 1 << 5;
const PENDING_FORCE: u32 = 1 << 6;
const MOTION_PARAMS: u32 = 1 << 7;
const ASLEEP: u32 = 1 << 8;
const TIMER: u32 = 1 << 9;
const MASS_DATA: u32 = 1 << 10;

// Collider flags.
const SENSOR: u8 = 1;
const FILTER: u8 = 2;
const MATERIAL: u8 = 4;
const POSE: u8 = 8;
const BOX: u8 = 16;
const FAT: u8 = 32;
const FAT_EMPTY: u8 = 64;

// Pair flags.
const TOUCHING: u8 = 1;
const KEPT: u8 = 2;
const WARM: u8 = 4;

// Shape kinds.
const POLYGON: u8 = 0;
const CIRCLE: u8 = 1;
const CAPSULE: u8 = 2;
const SEGMENT: u8 = 3;
const CHAIN: u8 = 4;

impl World {
    /// The world's state as bytes: everything that decides the next steps (bodies,
    /// colliders and the shape table, materials, filters, sensors, joints with their warm
    /// starts, settings, sleep, the persistent pairs with their kept manifolds and the
    /// contacts' warm starts, the handles' generations and free lists). Little-endian and
    /// versioned, documented field by field in `docs/snapshot.md`; some 40 to 60 bytes a
    /// body plus some 20 a contact point.
    ///
    /// [`World::from_snapshot`] makes a world of it that steps to the same bits as this one,
    /// and takes the same handles: a [`BodyId`] of this world names the same body there, a
    /// stale one stays stale. What the last step reported ([`World::events`],
    /// [`World::contacts`]) is not kept: the restored world reports nothing until it steps.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut world = World::default();
    /// world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
    /// let box_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0)))?;
    /// let mut narrow = CpuNarrowPhase::new();
    /// for _ in 0..20 {
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// let bytes = world.snapshot();
    /// let mut restored = World::from_snapshot(&bytes)?;
    /// for _ in 0..60 {
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    ///     restored.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// assert_eq!(restored.transform(box_), world.transform(box_));
    /// assert!(World::from_snapshot(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn snapshot(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.u32(self.number);
        self.write_settings(&mut w);
        self.write_shapes(&mut w);
        w.u8(SLOTS);
        for slots in [&self.body_slots, &self.collider_slots, &self.joints.slots] {
            write_slots(&mut w, slots);
        }
        let (fat, pairs, data, removed) = self.pair_set.saved();
        w.len(fat.len());
        w.u8(BODIES);
        let mut last_material = Material::default();
        for b in (0..self.bodies.len()).filter(|&b| self.body_slots.is_live(b)) {
            self.write_body(&mut w, b, fat, &mut last_material);
        }
        w.u8(VACANT);
        for c in (0..self.colliders.len()).filter(|&c| !self.collider_slots.is_live(c)) {
            w.len(self.collider_bodies[c] as usize);
            w.len(self.colliders[c].shape as usize);
            let explicit_fat = fat.get(c).filter(|f| **f != Aabb::EMPTY);
            w.u8(u8::from(self.sensors[c]) * SENSOR | u8::from(explicit_fat.is_some()) * FAT);
            if let Some(f) = explicit_fat {
                write_box(&mut w, f);
            }
        }
        w.u8(STATICS);
        w.len(self.static_colliders.len());
        for &c in &self.static_colliders {
            w.len(c as usize);
        }
        w.u8(PAIRS);
        w.len(removed.len());
        for &c in removed {
            w.len(c as usize);
        }
        self.write_pairs(&mut w, pairs, data);
        self.write_joints(&mut w);
        w.u8(END);
        w.bytes
    }

    fn write_settings(&self, w: &mut Writer) {
        w.u8(SETTINGS);
        w.vec2(self.gravity);
        w.len(self.substeps);
        w.f32(self.max_linear_speed);
        let flags = u8::from(self.continuous) * CONTINUOUS
            | u8::from(self.recycling) * RECYCLING
            | u8::from(self.sleep.enabled) * SLEEPING
            | u8::from(self.custom_forces) * CUSTOM_FORCES
            | u8::from(self.hit_threshold.is_some()) * HIT_THRESHOLD
            | u8::from(self.has_sensors) * HAS_SENSORS
            | u8::from(self.has_filters) * HAS_FILTERS;
        w.u8(flags);
        if let Some(t) = self.hit_threshold {
            w.f32(t);
        }
    }

    fn write_shapes(&self, w: &mut Writer) {
        w.u8(SHAPES);
        w.len(self.shapes.len());
        for shape in &self.shapes {
            write_shape(w, shape);
        }
        w.len(self.free_shapes.len());
        for &s in &self.free_shapes {
            w.len(s as usize);
        }
    }

    fn write_body(&self, w: &mut Writer, b: usize, fat: &[Aabb], last_material: &mut Material) {
        let body = &self.bodies[b];
        let state = &self.states[b];
        let forces = &self.forces[b];
        let kind = if body.is_static {
            STATIC
        } else if body.is_kinematic {
            KINEMATIC
        } else {
            DYNAMIC
        };
        let velocity = state.linear_velocity != Vec2::ZERO || state.angular_velocity != 0.0;
        let pending = forces.force != Vec2::ZERO || forces.torque != 0.0;
        let params = BodyForces {
            force: Vec2::ZERO,
            torque: 0.0,
            ..*forces
        };
        let asleep = self.sleep.islands[b] != AWAKE;
        let timer = self.sleep.timers[b];
        let derived = self.derived_mass(b);
        let mass_explicit = derived.is_none_or(|d| !same_mass(&d, body));
        let flags = kind
            | u32::from(body.is_bullet) * BULLET
            | u32::from(body.fixed_rotation) * FIXED_ROTATION
            | u32::from(self.user_data[b] != 0) * USER_DATA
            | u32::from(velocity) * VELOCITY
            | u32::from(pending) * PENDING_FORCE
            | u32::from(!params.is_plain()) * MOTION_PARAMS
            | u32::from(asleep) * ASLEEP
            | u32::from(timer.to_bits() != 0) * TIMER
            | u32::from(mass_explicit) * MASS_DATA;
        w.varint(u64::from(flags));
        w.vec2(self.centers[b]);
        w.vec2(self.rotations[b]);
        if velocity {
            w.vec2(state.linear_velocity);
            w.f32(state.angular_velocity);
        }
        if self.user_data[b] != 0 {
            w.u64(self.user_data[b]);
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
        w.len(body.collider_count as usize);
        let transform = body_transform(body, self.centers[b], self.rotations[b]);
        for c in body.colliders(&self.next_collider) {
            let collider = &self.colliders[c];
            let material = Material {
                friction: self.surfaces[c].friction,
                restitution: self.surfaces[c].restitution,
                density: self.densities[c],
                tangent_speed: self.surfaces[c].tangent_speed,
            };
            let new_material =
                !same_floats(&material_floats(&material), &material_floats(last_material));
            let pose = !same_transform(&collider.transform, &transform);
            let shape = &self.shapes[collider.shape as usize];
            let aabb = self.aabbs[c];
            let boxed = !same_box(&aabb, &shape.aabb(&collider.transform));
            // A collider whose pairs are to be tested again has an empty fat box
            // (`PairSet::invalidate`).
            let fat_box = fat.get(c);
            let fat_empty = fat_box == Some(&Aabb::EMPTY);
            let fat_explicit =
                !fat_empty && fat_box.is_some_and(|f| !same_box(f, &aabb.expanded(FAT_MARGIN)));
            let filter = self.filters[c] != Filter::default();
            let flags = u8::from(self.sensors[c]) * SENSOR
                | u8::from(filter) * FILTER
                | u8::from(new_material) * MATERIAL
                | u8::from(pose) * POSE
                | u8::from(boxed) * BOX
                | u8::from(fat_explicit) * FAT
                | u8::from(fat_empty) * FAT_EMPTY;
            w.len(c);
            w.len(collider.shape as usize);
            w.u8(flags);
            if filter {
                let f = &self.filters[c];
                w.u64(f.category_bits);
                w.u64(f.mask_bits);
                w.u32(f.group_index as u32);
            }
            if new_material {
                for v in material_floats(&material) {
                    w.f32(v);
                }
                *last_material = material;
            }
            if pose {
                w.vec2(collider.transform.translation());
                w.vec2(collider.transform.rotation());
            }
            if boxed {
                write_box(w, &aabb);
            }
            if let (true, Some(f)) = (fat_explicit, fat_box) {
                write_box(w, f);
            }
        }
    }

    /// The mass data of body `b` as its pieces and densities give it (what `add_body`
    /// computes): local centre, inverse mass and inertia, max and min extent; `None` when
    /// its pieces make no body shape.
    fn derived_mass(&self, b: usize) -> Option<Body> {
        let body = &self.bodies[b];
        let (mass, max_extent) = self.body_mass(b);
        let pieces: Vec<Shape> = body
            .colliders(&self.next_collider)
            .map(|c| self.shapes[self.colliders[c].shape as usize])
            .collect();
        let min_extent = BodyShape::compound(pieces).ok()?.min_extent();
        let dynamic = body.is_dynamic();
        Some(Body {
            local_center: if mass.center.is_finite() {
                mass.center
            } else {
                Vec2::ZERO
            },
            inv_mass: if dynamic { 1.0 / mass.mass } else { 0.0 },
            inv_inertia: if dynamic { 1.0 / mass.inertia } else { 0.0 },
            max_extent,
            min_extent,
            ..body.clone()
        })
    }

    fn write_pairs(&self, w: &mut Writer, pairs: &[[u32; 2]], data: &[PairState]) {
        w.len(pairs.len());
        let (colours, moving) = self.solver.colouring();
        let mut warm = self
            .solver
            .warm_starts()
            .zip(colours.iter().copied())
            .peekable();
        let mut last_a = 0;
        for (&[a, b], state) in pairs.iter().zip(data) {
            // Contacts (and so warm starts) are a subsequence of the pairs, in their order.
            let start = warm.next_if(|s| s.0.0 == [a, b]);
            let flags = u8::from(state.touching) * TOUCHING
                | u8::from(state.kept.is_some()) * KEPT
                | u8::from(start.is_some()) * WARM;
            w.len((a - last_a) as usize);
            w.len((b - a - 1) as usize);
            last_a = a;
            w.u8(flags);
            if let Some(kept) = &state.kept {
                w.vec2(kept.relative.translation());
                w.vec2(kept.relative.rotation());
                w.vec2(kept.normal);
                w.f32(kept.depth);
                w.u8(kept.count as u8);
                for p in &kept.points[..kept.count as usize] {
                    w.vec2(p.point);
                    w.f32(p.depth);
                    w.u32(p.id);
                }
            }
            if let Some(((_, count, ids, normal, tangent), colour)) = start {
                w.u8(count as u8);
                w.u8(colour);
                for k in 0..count as usize {
                    w.u32(ids[k]);
                    w.f32(normal[k]);
                    w.f32(tangent[k]);
                }
            }
        }
        debug_assert!(
            warm.next().is_none(),
            "a warm start of a pair not in the pair set"
        );
        w.len(moving.len());
        for &bits in moving {
            w.u64(bits);
        }
    }

    fn write_joints(&self, w: &mut Writer) {
        w.u8(JOINTS);
        let set = &self.joints;
        for j in (0..set.constraints.len()).filter(|&j| set.slots.is_live(j)) {
            let c = &set.constraints[j];
            w.len(c.bodies[0] as usize);
            w.len(c.bodies[1] as usize);
            w.vec2(c.local_anchors[0]);
            w.vec2(c.local_anchors[1]);
            let [force, torque] = set.breaking[j];
            let flags = u8::from(set.collide_connected[j])
                | u8::from(force.is_finite()) * 2
                | u8::from(torque.is_finite()) * 4;
            w.u8(flags);
            for limit in [force, torque].into_iter().filter(|l| l.is_finite()) {
                w.f32(limit);
            }
            write_model(w, &c.model);
            w.vec2(c.linear_impulse);
            for v in [
                c.spring_impulse,
                c.motor_impulse,
                c.lower_impulse,
                c.upper_impulse,
            ] {
                w.f32(v);
            }
            w.vec2(c.force);
            w.f32(c.torque);
        }
        let edges: Vec<(usize, &Vec<u32>)> = set
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_empty())
            .collect();
        w.len(edges.len());
        for (body, list) in edges {
            w.len(body);
            w.len(list.len());
            for &j in list {
                w.len(j as usize);
            }
        }
    }
}

fn write_slots(w: &mut Writer, slots: &Slots) {
    w.len(slots.generations.len());
    for (g, &live) in slots.generations.iter().zip(&slots.live) {
        w.varint(u64::from(*g) << 1 | u64::from(live));
    }
    for list in [&slots.free, &slots.removed, &slots.retired] {
        w.len(list.len());
        for &s in list {
            w.len(s as usize);
        }
    }
}

fn write_box(w: &mut Writer, b: &Aabb) {
    w.vec2(b.min);
    w.vec2(b.max);
}

fn write_shape(w: &mut Writer, shape: &Shape) {
    match shape {
        Shape::Polygon(p) => {
            w.u8(POLYGON);
            w.u8(p.vertices().len() as u8);
            for &v in p.vertices() {
                w.vec2(v);
            }
            w.f32(p.radius());
        }
        Shape::Circle(c) => {
            w.u8(CIRCLE);
            w.vec2(c.center());
            w.f32(c.radius());
        }
        Shape::Capsule(c) => {
            w.u8(CAPSULE);
            w.vec2(c.a());
            w.vec2(c.b());
            w.f32(c.radius());
        }
        Shape::Segment(s) => {
            w.u8(SEGMENT);
            w.vec2(s.a());
            w.vec2(s.b());
        }
        Shape::ChainSegment(s) => {
            w.u8(CHAIN);
            w.vec2(s.ghost_a());
            w.vec2(s.segment().a());
            w.vec2(s.segment().b());
            w.vec2(s.ghost_b());
        }
    }
}

fn write_option_pair(w: &mut Writer, v: Option<[f32; 2]>) {
    if let Some([a, b]) = v {
        w.f32(a);
        w.f32(b);
    }
}

fn write_spring(w: &mut Writer, s: Option<Spring>) {
    if let Some(s) = s {
        w.f32(s.hertz);
        w.f32(s.damping_ratio);
    }
}

fn write_model(w: &mut Writer, model: &JointModel) {
    // Tag, then an options byte (limits 1, motor 2, spring 4, and per kind below), then
    // the kind's fields.
    let opts = |l: bool, m: bool, s: bool| u8::from(l) | u8::from(m) * 2 | u8::from(s) * 4;
    match *model {
        JointModel::Revolute {
            reference_angle,
            limits,
            motor,
            spring,
        } => {
            w.u8(0);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.f32(reference_angle);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Distance {
            length,
            rigid,
            limits,
            spring,
        } => {
            w.u8(1);
            let o = u8::from(limits[0].is_some())
                | u8::from(limits[1].is_some()) * 2
                | u8::from(spring.is_some()) * 4
                | u8::from(rigid) * 8;
            w.u8(o);
            w.f32(length);
            for l in limits.into_iter().flatten() {
                w.f32(l);
            }
            write_spring(w, spring);
        }
        JointModel::Weld {
            reference_angle,
            linear,
            angular,
        } => {
            w.u8(2);
            w.u8(u8::from(linear.is_some()) | u8::from(angular.is_some()) * 2);
            w.f32(reference_angle);
            write_spring(w, linear);
            write_spring(w, angular);
        }
        JointModel::Prismatic {
            reference_angle,
            local_axis,
            limits,
            motor,
            spring,
        } => {
            w.u8(3);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.f32(reference_angle);
            w.vec2(local_axis);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Wheel {
            local_axis,
            limits,
            motor,
            spring,
        } => {
            w.u8(4);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.vec2(local_axis);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Filter => {
            w.u8(5);
            w.u8(0);
        }
        JointModel::Motor {
            reference_angle,
            max_force,
            max_torque,
        } => {
            w.u8(6);
            w.u8(0);
            w.f32(reference_angle);
            w.f32(max_force);
            w.f32(max_torque);
        }
        JointModel::Mouse {
            target,
            spring,
            max_force,
        } => {
            w.u8(7);
            w.u8(0);
            w.vec2(target);
            write_spring(w, Some(spring));
            w.f32(max_force);
        }
    }
}

fn material_floats(m: &Material) -> [f32; 4] {
    [m.friction, m.restitution, m.density, m.tangent_speed]
}

/// Bit for bit: a derived value replaces a stored one only when nothing, not even the
/// sign of a zero, would change.
fn same_floats(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn same_transform(a: &Transform, b: &Transform) -> bool {
    let parts = |t: &Transform| {
        let (p, r) = (t.translation(), t.rotation());
        [p.x, p.y, r.x, r.y]
    };
    same_floats(&parts(a), &parts(b))
}

fn same_box(a: &Aabb, b: &Aabb) -> bool {
    same_floats(
        &[a.min.x, a.min.y, a.max.x, a.max.y],
        &[b.min.x, b.min.y, b.max.x, b.max.y],
    )
}

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

// ---------------------------------------------------------------------------------------
// Reading.

/// What `from_snapshot` builds up before the world is whole.
struct Loading {
    world: World,
    /// Per collider slot: whether a live body claimed it.
    claimed: Vec<bool>,
}

impl World {
    /// The world a [`World::snapshot`] was taken of: it steps to the same bits as the
    /// original would have, and takes the same handles (see [`World::snapshot`] for an
    /// example).
    ///
    /// Bytes that are truncated, corrupted, of another format or of a later version give
    /// [`Error::Snapshot`], naming what is wrong and the byte offset where it was found;
    /// never a panic, and never a world that turns non-finite: every number is checked
    /// against the limits the world's own setters enforce, every index against what it
    /// indexes, every shape through its constructor and every joint through
    /// [`World::add_joint`]'s checks.
    pub fn from_snapshot(bytes: &[u8]) -> Result<World, Error> {
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
        let mut load = Loading {
            world,
            claimed: Vec::new(),
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
        let mut fat = vec![Aabb::EMPTY; fat_len as usize];
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
        load.read_pairs(&mut r, fat)?;
        load.read_joints(&mut r)?;
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
        let v = r.varint(&format!("{what} slot generation"))?;
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
            let s = r.index(&format!("{what} {name} slot"), len)?;
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
        || shape.aabb(&Transform::IDENTITY).size().max_element() > GEOMETRY_LIMIT
    {
        return Reader::error_at(at, "shape larger than MAX_COORDINATE");
    }
    Ok(shape)
}

fn at_shape<T>(offset: usize, shape: Result<T, crate::polygon::ShapeError>) -> Result<T, Error> {
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
        let mut shapes = Vec::with_capacity(count);
        for _ in 0..count {
            shapes.push(read_shape(r)?);
        }
        let w = &mut self.world;
        w.shapes = shapes;
        w.shape_users = vec![0; count];
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
        let w = &mut self.world;
        let (bodies, colliders) = (w.body_slots.len(), w.collider_slots.len());
        w.body_ids = (0..bodies)
            .map(|s| BodyId::new(w.number, s as u32, slot_generation(&w.body_slots, s)))
            .collect();
        w.user_data = vec![0; bodies];
        w.bodies = vec![Body::vacant(); bodies];
        w.centers = vec![Vec2::ZERO; bodies];
        w.rotations = vec![Vec2::X; bodies];
        w.states = vec![
            BodyState {
                delta_rotation: Vec2::X,
                ..BodyState::default()
            };
            bodies
        ];
        w.materials = vec![
            BodyMaterial {
                inv_inertia: 0.0,
                max_extent: 0.0,
            };
            bodies
        ];
        w.forces = vec![BodyForces::default(); bodies];
        w.sleep.timers = vec![0.0; bodies];
        w.sleep.islands = vec![AWAKE; bodies];
        w.collider_ids = (0..colliders)
            .map(|s| ColliderId::new(w.number, s as u32, slot_generation(&w.collider_slots, s)))
            .collect();
        w.next_collider = vec![NO_COLLIDER; colliders];
        w.colliders = vec![
            Collider {
                shape: 0,
                transform: Transform::IDENTITY,
            };
            colliders
        ];
        w.collider_bodies = vec![0; colliders];
        w.filters = vec![Filter::default(); colliders];
        w.sensors = vec![false; colliders];
        w.surfaces = vec![Material::default().surface(); colliders];
        w.densities = vec![1.0; colliders];
        w.aabbs = vec![Aabb::EMPTY; colliders];
        self.claimed = vec![false; colliders];
        let joints = w.joints.slots.len();
        w.joints.ids = (0..joints)
            .map(|s| JointId::new(w.number, s as u32, slot_generation(&w.joints.slots, s)))
            .collect();
        w.joints.constraints = vec![JointConstraint::vacant(); joints];
        w.joints.collide_connected = vec![true; joints];
        w.joints.breaking = vec![[f32::INFINITY; 2]; joints];
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
        let mut slots = Vec::with_capacity(count);
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
                fat[c] = read_box(r, "fat box")?;
            } else if cflags & FAT_EMPTY != 0 {
                fat[c] = Aabb::EMPTY;
            } else if c < fat.len() {
                // Marked derived: filled once the box is known.
                fat[c] = Aabb::new(Vec2::NAN, Vec2::NAN);
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
        let derived = w.derived_mass(b);
        let (local_center, inv_mass, inv_inertia, max_extent, min_extent) = match explicit_mass {
            Some(m) => m,
            None => {
                let Some(d) = derived else {
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
        for (c, pose, aabb) in slots {
            let t = pose.unwrap_or(transform);
            w.colliders[c].transform = t;
            let shape = &w.shapes[w.colliders[c].shape as usize];
            w.aabbs[c] = aabb.unwrap_or_else(|| shape.aabb(&t));
            if fat.get(c).is_some_and(|f| f.min.x.is_nan()) {
                fat[c] = w.aabbs[c].expanded(FAT_MARGIN);
            }
        }
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

    fn read_pairs(&mut self, r: &mut Reader<'_>, fat: Vec<Aabb>) -> Result<(), Error> {
        tag(r, PAIRS, "pairs")?;
        let fat_len = fat.len();
        let removed_count = r.count("removed collider count", 1)?;
        let mut removed = Vec::with_capacity(removed_count);
        for _ in 0..removed_count {
            removed.push(r.index("removed collider", fat_len)? as u32);
        }
        let count = r.count("pair count", 3)?;
        let mut pairs = Vec::with_capacity(count);
        let mut data = Vec::with_capacity(count);
        let mut warm: Vec<WarmStart> = Vec::new();
        let mut colours = Vec::new();
        let mut last: Option<[u32; 2]> = None;
        for _ in 0..count {
            let at = r.offset;
            let da = r.varint("pair's first collider")?;
            let db = r.varint("pair's second collider")?;
            let a = u64::from(last.map_or(0, |l| l[0])) + da;
            let b = a + 1 + db;
            if b >= fat_len as u64 {
                return Reader::error_at(
                    at,
                    format!("pair ({a}, {b}) past the {fat_len} colliders"),
                );
            }
            let pair = [a as u32, b as u32];
            if last.is_some_and(|l| l >= pair) {
                return Reader::error_at(at, format!("pair ({a}, {b}) out of order"));
            }
            last = Some(pair);
            let flags_at = r.offset;
            let flags = r.u8("pair flags")?;
            if flags & !(TOUCHING | KEPT | WARM) != 0 {
                return Reader::error_at(flags_at, format!("pair flags {flags:#x}: unknown bits"));
            }
            let kept = if flags & KEPT != 0 {
                Some(read_kept(r)?)
            } else {
                None
            };
            if flags & WARM != 0 {
                let count_at = r.offset;
                let n = r.u8("warm start point count")?;
                if !(1..=2).contains(&n) {
                    return Reader::error_at(count_at, format!("warm start of {n} points"));
                }
                let colour = r.u8("colour")?;
                let mut start: WarmStart = (pair, u32::from(n), [0; 2], [0.0; 2], [0.0; 2]);
                for k in 0..n as usize {
                    start.2[k] = r.u32("feature id")?;
                    start.3[k] = r.f32("normal impulse", MOTION_LIMIT)?;
                    start.4[k] = r.f32("tangent impulse", MOTION_LIMIT)?;
                }
                warm.push(start);
                colours.push(colour);
            }
            pairs.push(pair);
            data.push(PairState {
                kept,
                touching: flags & TOUCHING != 0,
            });
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
        w.solver = ContactSolver::restored(warm, bodies, colours, moving).or_else(|k| {
            Reader::error_at(words_at, format!("contact {k}'s colour is not a colouring"))
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
                    let limit_at = r.offset;
                    let limit = r.raw_f32("break threshold")?;
                    at(
                        limit_at,
                        check(
                            "break threshold",
                            limit,
                            limit.is_finite() && limit >= 0.0,
                            "finite and 0 or more",
                        ),
                    )?;
                    breaking[k] = limit;
                }
            }
            let model = read_model(r)?;
            let mut c = JointConstraint::new([a as u32, b as u32], anchors, model);
            c.linear_impulse = r.vec2("joint impulse", MOTION_LIMIT)?;
            c.spring_impulse = r.f32("joint impulse", MOTION_LIMIT)?;
            c.motor_impulse = r.f32("joint impulse", MOTION_LIMIT)?;
            c.lower_impulse = r.f32("joint impulse", MOTION_LIMIT)?;
            c.upper_impulse = r.f32("joint impulse", MOTION_LIMIT)?;
            c.force = r.vec2("joint force", f32::MAX)?;
            c.torque = r.f32("joint torque", f32::MAX)?;
            let collide = flags & 1 != 0 && model != JointModel::Filter;
            let set = &mut w.joints;
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

fn read_kept(r: &mut Reader<'_>) -> Result<KeptManifold, Error> {
    let translation = r.vec2("kept offset", GEOMETRY_LIMIT)?;
    let rotation = read_unit(r, "kept rotation")?;
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
    for p in points.iter_mut().take(count as usize) {
        p.point = r.vec2("kept point", GEOMETRY_LIMIT)?;
        p.depth = r.f32("kept point depth", GEOMETRY_LIMIT)?;
        p.id = r.u32("kept feature id")?;
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

fn read_pair(r: &mut Reader<'_>, field: &str) -> Result<[f32; 2], Error> {
    Ok([r.raw_f32(field)?, r.raw_f32(field)?])
}

fn read_spring(r: &mut Reader<'_>, present: bool) -> Result<Option<Spring>, Error> {
    if !present {
        return Ok(None);
    }
    let at_spring = r.offset;
    let [hertz, damping_ratio] = read_pair(r, "spring")?;
    let spring = crate::joint::JointSpring {
        hertz,
        damping_ratio,
    };
    at(at_spring, checked_spring(Some(spring)))
}

fn read_motor(r: &mut Reader<'_>, present: bool) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_motor = r.offset;
    let [speed, max_torque] = read_pair(r, "motor")?;
    at(
        at_motor,
        check("motor speed", speed, speed.is_finite(), "finite"),
    )?;
    let ok = max_torque.is_finite() && max_torque >= 0.0;
    at(
        at_motor,
        check("motor max_torque", max_torque, ok, "finite and 0 or more"),
    )?;
    Ok(Some([speed, max_torque]))
}

fn read_limits(
    r: &mut Reader<'_>,
    present: bool,
    range: [f32; 2],
) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_limits = r.offset;
    let limits = read_pair(r, "limits")?;
    at(
        at_limits,
        checked_limits(Some(limits), range, "within range"),
    )
}

fn read_angle(r: &mut Reader<'_>, field: &str) -> Result<f32, Error> {
    use std::f32::consts::PI;
    let at_angle = r.offset;
    let angle = r.raw_f32(field)?;
    at(
        at_angle,
        check(
            "angle",
            angle,
            angle.is_finite() && (-PI..=PI).contains(&angle),
            "finite and within [-π, π]",
        ),
    )?;
    Ok(angle)
}

fn read_model(r: &mut Reader<'_>) -> Result<JointModel, Error> {
    use std::f32::consts::PI;
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
            limits: read_limits(r, l, [-PI, PI])?,
            motor: read_motor(r, m)?,
            spring: read_spring(r, s)?,
        },
        1 => {
            let length = non_negative(r, "length")?;
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
                    at(
                        at_model,
                        checked_limits(
                            Some([lo, hi]),
                            [0.0, f32::INFINITY],
                            "finite and 0 or more",
                        ),
                    )?;
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
            limits: read_limits(r, l, [f32::MIN, f32::MAX])?,
            motor: read_motor(r, m)?,
            spring: read_spring(r, s)?,
        },
        4 => JointModel::Wheel {
            local_axis: read_unit(r, "joint axis")?,
            limits: read_limits(r, l, [f32::MIN, f32::MAX])?,
            motor: read_motor(r, m)?,
            spring: read_spring(r, s)?,
        },
        5 => JointModel::Filter,
        6 => {
            let reference_angle = read_angle(r, "reference angle")?;
            let bounds_at = r.offset;
            let [max_force, max_torque] = read_pair(r, "motor bounds")?;
            for v in [max_force, max_torque] {
                at(
                    bounds_at,
                    check("max_force", v, !v.is_nan() && v >= 0.0, "0 or more"),
                )?;
            }
            JointModel::Motor {
                reference_angle,
                max_force,
                max_torque,
            }
        }
        7 => {
            let target_at = r.offset;
            let target = Vec2::from(read_pair(r, "target")?);
            at(target_at, check_point("target", target))?;
            let spring = read_spring(r, true)?.unwrap_or_default();
            let force_at = r.offset;
            let max_force = r.raw_f32("max_force")?;
            at(
                force_at,
                check(
                    "max_force",
                    max_force,
                    !max_force.is_nan() && max_force >= 0.0,
                    "0 or more",
                ),
            )?;
            JointModel::Mouse {
                target,
                spring,
                max_force,
            }
        }
        other => return Reader::error_at(at_model, format!("unknown joint kind {other}")),
    };
    Ok(model)
}
