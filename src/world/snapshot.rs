//! World snapshots: [`World::snapshot`] writes everything that decides the next steps into
//! a compact, versioned byte string, and [`World::from_snapshot`] makes a world of it that
//! steps to the same bits as the original. `docs/snapshot.md` gives the format field by
//! field; this file the format's constants and the writer, `snapshot_read.rs` the checked
//! reader, `snapshot_codec.rs` the byte level.
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
//!        lists for consistency; the first fault is a SnapshotError with its offset
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
//! solver s (last step's warm starts: colliders, feature ids, impulses; its colouring:
//!   each contact's and joint's colour and the bodies that moved, since colours persist and
//!   decide the solve order) / d (the colour groups, built again) / r (the rest)
//! joints s (slots, models, anchors, impulses, breaking thresholds, collide_connected, the
//!   per-body edge lists in their order) / d (ids, filtering and breakable counts)
//! static_colliders s (their order: the continuous stage sweeps in it)
//! start_centers, start_rotations, turned, moved, woken r; revision, queries r (new)
//! ```

use glam::Vec2;

use super::World;
use super::contacts::PairState;
use super::materials::Material;
use super::snapshot_codec::Writer;
use super::step::body_transform;
use crate::broad_phase::filter::Filter;
use crate::broad_phase::pair_set::FAT_MARGIN;
use crate::dynamics::body::Body;
use crate::dynamics::sleep::AWAKE;
use crate::dynamics::solver::{BodyForces, JointConstraint, JointModel, Spring};
use crate::shapes::aabb::Aabb;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::shape::Shape;
use crate::shapes::transform::{Transform, inv_mul_transforms};
use crate::world::handle::Slots;

/// The first bytes of every snapshot.
pub(super) const MAGIC: &[u8; 8] = b"WSATSNAP";
/// The format's version: a reader refuses a later one.
pub(super) const VERSION: u32 = 2;
/// Pairs a block of the pairs section holds (the last block the rest): blocks are read in
/// parallel, each from its own byte length, its first pair's index not a difference.
pub(super) const PAIR_BLOCK: usize = 2048;

/// How far a stored rotation `(cos, sin)` may be from unit length: what renormalised f32
/// rotations differ by, with room.
pub(super) const UNIT_TOLERANCE: f32 = 1e-4;

// Section tags, in their order.
pub(super) const SETTINGS: u8 = b'S';
pub(super) const SHAPES: u8 = b'H';
pub(super) const SLOTS: u8 = b'L';
pub(super) const BODIES: u8 = b'B';
pub(super) const VACANT: u8 = b'V';
pub(super) const STATICS: u8 = b'T';
pub(super) const PAIRS: u8 = b'P';
pub(super) const JOINTS: u8 = b'J';
pub(super) const END: u8 = b'E';

// Settings flags.
pub(super) const CONTINUOUS: u8 = 1;
pub(super) const RECYCLING: u8 = 2;
pub(super) const SLEEPING: u8 = 4;
pub(super) const CUSTOM_FORCES: u8 = 8;
pub(super) const HIT_THRESHOLD: u8 = 16;
pub(super) const HAS_SENSORS: u8 = 32;
pub(super) const HAS_FILTERS: u8 = 64;

// Body flags (a varint). Bits 0-1: the kind.
pub(super) const KIND_MASK: u32 = 3;
pub(super) const STATIC: u32 = 0;
pub(super) const KINEMATIC: u32 = 1;
pub(super) const DYNAMIC: u32 = 2;
pub(super) const BULLET: u32 = 1 << 2;
pub(super) const FIXED_ROTATION: u32 = 1 << 3;
pub(super) const USER_DATA: u32 = 1 << 4;
pub(super) const VELOCITY: u32 = 1 << 5;
pub(super) const PENDING_FORCE: u32 = 1 << 6;
pub(super) const MOTION_PARAMS: u32 = 1 << 7;
pub(super) const ASLEEP: u32 = 1 << 8;
pub(super) const TIMER: u32 = 1 << 9;
pub(super) const MASS_DATA: u32 = 1 << 10;

// Collider flags.
pub(super) const SENSOR: u8 = 1;
pub(super) const FILTER: u8 = 2;
pub(super) const MATERIAL: u8 = 4;
pub(super) const POSE: u8 = 8;
pub(super) const BOX: u8 = 16;
pub(super) const FAT: u8 = 32;
pub(super) const FAT_EMPTY: u8 = 64;

// Pair flags.
pub(super) const TOUCHING: u8 = 1;
pub(super) const KEPT: u8 = 2;
pub(super) const WARM: u8 = 4;
/// The warm start's feature ids are the kept manifold's (they are unless the pair's last
/// contact was not kept: a circle's, or one the narrow phase did not report again).
pub(super) const WARM_IDS_KEPT: u8 = 8;

// Shape kinds.
pub(super) const POLYGON: u8 = 0;
pub(super) const CIRCLE: u8 = 1;
pub(super) const CAPSULE: u8 = 2;
pub(super) const SEGMENT: u8 = 3;
pub(super) const CHAIN: u8 = 4;

impl World {
    /// The world's state as bytes: everything that decides the next steps (bodies,
    /// colliders and the shape table, materials, filters, sensors, joints with their warm
    /// starts, settings, sleep, the persistent pairs with their kept manifolds and the
    /// contacts' warm starts, the handles' generations and free lists). Little-endian and
    /// versioned, documented field by field in `docs/snapshot.md`: about 55 bytes a body,
    /// 40 a contact point (its warm start and the manifold recycling keeps) and 35 to 60 a
    /// joint. Writing one costs under half a step of the same world (`docs/snapshot.md`).
    ///
    /// [`World::from_snapshot`] makes a world of it that steps to the same bits as this one,
    /// and takes the same handles: a [`BodyId`](crate::BodyId) of this world names the
    /// same body there, a stale one stays stale. What the last step reported ([`World::events`],
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
        let mut memo = MassMemo::default();
        for b in (0..self.bodies.len()).filter(|&b| self.body_slots.is_live(b)) {
            self.write_body(&mut w, b, fat, &mut last_material, &mut memo);
        }
        w.u8(VACANT);
        for c in (0..self.colliders.len()).filter(|&c| !self.collider_slots.is_live(c)) {
            w.len(self.collider_bodies[c] as usize);
            w.len(self.colliders[c].shape as usize);
            let explicit_fat = fat.get(c).filter(|f| **f != Aabb::EMPTY);
            w.u8(flag8(self.sensors[c], SENSOR) | flag8(explicit_fat.is_some(), FAT));
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
        let flags = flag8(self.continuous, CONTINUOUS)
            | flag8(self.recycling, RECYCLING)
            | flag8(self.sleep.enabled, SLEEPING)
            | flag8(self.custom_forces, CUSTOM_FORCES)
            | flag8(self.hit_threshold.is_some(), HIT_THRESHOLD)
            | flag8(self.has_sensors, HAS_SENSORS)
            | flag8(self.has_filters, HAS_FILTERS);
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

    fn write_body(
        &self,
        w: &mut Writer,
        b: usize,
        fat: &[Aabb],
        last_material: &mut Material,
        memo: &mut MassMemo,
    ) {
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
            | flag32(self.user_data[b] != 0, USER_DATA)
            | flag32(velocity, VELOCITY)
            | flag32(pending, PENDING_FORCE)
            | flag32(!params.is_plain(), MOTION_PARAMS)
            | flag32(asleep, ASLEEP)
            | flag32(timer.to_bits() != 0, TIMER)
            | flag32(mass_explicit, MASS_DATA);
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
        let mut fat_boxes = Vec::new();
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
            let flags = flag8(self.sensors[c], SENSOR)
                | flag8(filter, FILTER)
                | flag8(new_material, MATERIAL)
                | flag8(pose, POSE)
                | flag8(boxed, BOX)
                | flag8(fat_explicit, FAT)
                | flag8(fat_empty, FAT_EMPTY);
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
                fat_boxes.push((*f, aabb.expanded(FAT_MARGIN)));
            }
        }
        // After the colliders: the reader predicts them from the tight boxes, which it
        // knows once it has the body's mass data and so its pose.
        for (f, prediction) in fat_boxes {
            write_box_near(w, &f, &prediction);
        }
    }

    /// The mass data of body `b` as its pieces and densities give it (what `add_body`
    /// computes): local centre, inverse mass and inertia, max and min extent; `None` when
    /// its pieces make no body shape. A body of one piece takes it from `memo` when a body
    /// of the same shape entry and density came before (scenes draw their bodies from a
    /// small palette: the computation is then once per entry, not once per body).
    pub(super) fn derived_mass(&self, b: usize, memo: &mut MassMemo) -> Option<Body> {
        let body = &self.bodies[b];
        let single = (body.collider_count == 1).then(|| {
            let c = body.first_collider as usize;
            (
                self.colliders[c].shape as usize,
                self.densities[c].to_bits(),
            )
        });
        let cached = single.and_then(|(shape, density)| {
            memo.entries
                .get(shape)
                .copied()
                .flatten()
                .filter(|e| e.0 == density)
        });
        let mass = match cached {
            Some((_, mass)) => mass,
            None => {
                let mass = self.piece_mass(b);
                if let Some((shape, density)) = single {
                    if memo.entries.len() <= shape {
                        memo.entries.resize(shape + 1, None);
                    }
                    memo.entries[shape] = Some((density, mass));
                }
                mass
            }
        }?;
        let dynamic = body.is_dynamic();
        Some(Body {
            local_center: mass.local_center,
            inv_mass: if dynamic { 1.0 / mass.mass } else { 0.0 },
            inv_inertia: if dynamic { 1.0 / mass.inertia } else { 0.0 },
            max_extent: mass.max_extent,
            min_extent: mass.min_extent,
            ..body.clone()
        })
    }

    /// [`World::derived_mass`] before the body's kind makes it inverse masses.
    fn piece_mass(&self, b: usize) -> Option<PieceMass> {
        let body = &self.bodies[b];
        let (mass, max_extent) = self.body_mass(b);
        let pieces: Vec<Shape> = body
            .colliders(&self.next_collider)
            .map(|c| self.shapes[self.colliders[c].shape as usize])
            .collect();
        let min_extent = BodyShape::compound(pieces).ok()?.min_extent();
        Some(PieceMass {
            local_center: if mass.center.is_finite() {
                mass.center
            } else {
                Vec2::ZERO
            },
            mass: mass.mass,
            inertia: mass.inertia,
            max_extent,
            min_extent,
        })
    }

    fn write_pairs(&self, w: &mut Writer, pairs: &[[u32; 2]], data: &[PairState]) {
        w.len(pairs.len());
        let (colours, _, moving) = self.solver.colouring();
        let mut warm = self
            .solver
            .warm_starts()
            .zip(colours.iter().copied())
            .peekable();
        let mut last_a = 0;
        let mut block_at = 0;
        for (k, (&[a, b], state)) in pairs.iter().zip(data).enumerate() {
            if k % PAIR_BLOCK == 0 {
                // The block's byte length, filled in once it is written.
                patch_block_length(w, block_at);
                block_at = w.bytes.len();
                w.u32(0);
                last_a = 0;
            }
            // Contacts (and so warm starts) are a subsequence of the pairs, in their order.
            let start = warm.next_if(|s| s.0.0 == [a, b]);
            let ids_kept = match (&state.kept, &start) {
                (Some(kept), Some(((_, count, ids, ..), _))) => {
                    kept.count == *count
                        && kept.points[..*count as usize]
                            .iter()
                            .map(|p| p.id)
                            .eq(ids[..*count as usize].iter().copied())
                }
                _ => false,
            };
            let flags = flag8(state.touching, TOUCHING)
                | flag8(state.kept.is_some(), KEPT)
                | flag8(start.is_some(), WARM)
                | flag8(ids_kept, WARM_IDS_KEPT);
            w.len((a - last_a) as usize);
            w.len((b - a - 1) as usize);
            last_a = a;
            w.u8(flags);
            if let Some(kept) = &state.kept {
                let now = self.relative_pose([a, b]);
                let (then, now) = (transform_floats(&kept.relative), transform_floats(&now));
                for (v, p) in then.into_iter().zip(now) {
                    w.f32_near(v, p);
                }
                w.vec2(kept.normal);
                w.f32(kept.depth);
                w.u8(kept.count as u8);
                let mut last_id = 0;
                for p in &kept.points[..kept.count as usize] {
                    w.vec2(p.point);
                    w.f32_near(p.depth, kept.depth);
                    write_id(w, p.id, &mut last_id);
                }
            }
            if let Some(((_, count, ids, normal, tangent), colour)) = start {
                w.u8(count as u8);
                w.u8(colour);
                let mut last_id = 0;
                for k in 0..count as usize {
                    if !ids_kept {
                        write_id(w, ids[k], &mut last_id);
                    }
                    w.f32(normal[k]);
                    w.f32(tangent[k]);
                }
            }
        }
        patch_block_length(w, block_at);
        debug_assert!(
            warm.next().is_none(),
            "a warm start of a pair not in the pair set"
        );
        w.len(moving.len());
        for &bits in moving {
            w.u64(bits);
        }
    }

    /// B's collider pose in A's collider frame now: what a kept manifold's pose is
    /// written against. A vacant collider's pose counts as the identity (the reader does
    /// not restore it: nothing reads it).
    pub(super) fn relative_pose(&self, pair: [u32; 2]) -> Transform {
        let [a, b] = pair.map(|c| {
            let c = c as usize;
            if self.collider_slots.is_live(c) {
                self.colliders[c].transform
            } else {
                Transform::IDENTITY
            }
        });
        inv_mul_transforms(&a, &b)
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
                | flag8(force.is_finite(), 2)
                | flag8(torque.is_finite(), 4);
            w.u8(flags);
            for limit in [force, torque].into_iter().filter(|l| l.is_finite()) {
                w.f32(limit);
            }
            write_model(w, &c.model);
            // Zeros (a joint without a motor, limits or a spring has most) by a flag each.
            let values = joint_impulses(c);
            let present = values.iter().enumerate().fold(0u8, |bits, (k, v)| {
                bits | u8::from(v.iter().any(|x| x.to_bits() != 0)) << k
            });
            w.u8(present);
            for v in values.iter().filter(|v| v.iter().any(|x| x.to_bits() != 0)) {
                for &x in v.iter() {
                    w.f32(x);
                }
            }
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
        // The joints as the last step coloured them (they share the contacts' colouring;
        // one may have been removed since): slots ascending as differences, their bodies
        // then, and their colours.
        let (_, joints, _) = self.solver.colouring();
        let joints: Vec<(u32, [u32; 2], u8)> = joints.collect();
        w.len(joints.len());
        let mut last = 0;
        for (slot, [a, b], colour) in joints {
            w.len((slot - last) as usize);
            w.len(a as usize);
            w.len(b as usize);
            w.u8(colour);
            last = slot;
        }
    }
}

/// A body's mass data from its pieces, before its kind decides the inverse masses.
#[derive(Clone, Copy)]
pub(super) struct PieceMass {
    local_center: Vec2,
    mass: f32,
    inertia: f32,
    max_extent: f32,
    min_extent: f32,
}

/// The mass data of one-piece bodies by shape entry: per entry the density (its bits) it
/// was computed for and the result (`None`: no body shape).
#[derive(Default)]
pub(super) struct MassMemo {
    entries: Vec<Option<(u32, Option<PieceMass>)>>,
}

/// A joint's accumulated impulses and last force and torque, in the format's order; a
/// scalar is a one-element slice.
fn joint_impulses(c: &JointConstraint) -> [Vec<f32>; 7] {
    [
        vec![c.linear_impulse.x, c.linear_impulse.y],
        vec![c.spring_impulse],
        vec![c.motor_impulse],
        vec![c.lower_impulse],
        vec![c.upper_impulse],
        vec![c.force.x, c.force.y],
        vec![c.torque],
    ]
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

/// Writes the byte length of the block of pairs whose length field is at `at` (0: no block
/// yet, the header comes first).
fn patch_block_length(w: &mut Writer, at: usize) {
    if at > 0 {
        let length = (w.bytes.len() - at - 4) as u32;
        w.bytes[at..at + 4].copy_from_slice(&length.to_le_bytes());
    }
}

/// A feature id as a varint of its bits changed from the point before's (0 for the
/// first): a manifold's two points share their edges and differ in the end.
fn write_id(w: &mut Writer, id: u32, last: &mut u32) {
    w.varint(u64::from(id ^ *last));
    *last = id;
}

fn write_box_near(w: &mut Writer, b: &Aabb, prediction: &Aabb) {
    for (v, p) in box_floats(b).into_iter().zip(box_floats(prediction)) {
        w.f32_near(v, p);
    }
}

pub(super) fn box_floats(b: &Aabb) -> [f32; 4] {
    [b.min.x, b.min.y, b.max.x, b.max.y]
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
    let opts = |l: bool, m: bool, s: bool| u8::from(l) | flag8(m, 2) | flag8(s, 4);
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
                | flag8(limits[1].is_some(), 2)
                | flag8(spring.is_some(), 4)
                | flag8(rigid, 8);
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
            w.u8(u8::from(linear.is_some()) | flag8(angular.is_some(), 2));
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

/// `bit` when `on`, else 0: one flag of a flags byte.
fn flag8(on: bool, bit: u8) -> u8 {
    if on { bit } else { 0 }
}

/// `bit` when `on`, else 0: one flag of a flags varint.
fn flag32(on: bool, bit: u32) -> u32 {
    if on { bit } else { 0 }
}

fn material_floats(m: &Material) -> [f32; 4] {
    [m.friction, m.restitution, m.density, m.tangent_speed]
}

/// Bit for bit: a derived value replaces a stored one only when nothing, not even the
/// sign of a zero, would change.
fn same_floats(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

pub(super) fn transform_floats(t: &Transform) -> [f32; 4] {
    let (p, r) = (t.translation(), t.rotation());
    [p.x, p.y, r.x, r.y]
}

fn same_transform(a: &Transform, b: &Transform) -> bool {
    same_floats(&transform_floats(a), &transform_floats(b))
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
