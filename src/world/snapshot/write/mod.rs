//! The writer of world snapshots ([`World::snapshot`]): the world's parts in the format's
//! order (see the notes of `snapshot/mod.rs`), each as compact as the reader can undo:
//! flags for what is zero, default or derived, differences for what is predicted.
//!
//! ```text
//! snapshot():  MAGIC, VERSION, world number
//!              settings; shape table and its free list               here
//!              slots of bodies, colliders, joints; fat box count     here
//!              per live body its record and its colliders            bodies.rs, colliders.rs
//!              the vacant colliders; the static obstacles            colliders.rs
//!              removed colliders; pairs in blocks; moving bodies     pairs.rs
//!              the joints; their edge lists; their colours           joints.rs
//!              END
//! ```
//!
//! The short parts (settings, shape table, slots) are here, with the helpers that several
//! parts use (`flag8`, `same_floats`).

mod bodies;
mod colliders;
mod joints;
mod pairs;

use super::codec::Writer;
use super::derived::MassMemo;
use super::{
    BODIES, CAPSULE, CHAIN, CIRCLE, CONTINUOUS, CUSTOM_FORCES, END, HAS_FILTERS, HAS_SENSORS,
    HIT_THRESHOLD, MAGIC, POLYGON, RECYCLING, SEGMENT, SETTINGS, SHAPES, SLEEPING, SLOTS, VERSION,
};
use crate::shapes::shape::Shape;
use crate::world::World;
use crate::world::handle::Slots;
use crate::world::materials::Material;
use crate::world::shape_table::ShapeTable;

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
        self.shapes.write_snapshot(&mut w);
        w.u8(SLOTS);
        for slots in [
            &self.bodies.slots,
            &self.colliders.slots,
            &self.joints.slots,
        ] {
            slots.write_snapshot(&mut w);
        }
        let (fat, pairs, data, removed) = self.contacts.pairs.saved();
        w.len(fat.len());
        w.u8(BODIES);
        let mut last_material = Material::default();
        let mut memo = MassMemo::default();
        for b in (0..self.bodies.len()).filter(|&b| self.bodies.slots.is_live(b)) {
            self.write_body(&mut w, b, fat, &mut last_material, &mut memo);
        }
        self.write_vacant_colliders(&mut w, fat);
        self.write_statics(&mut w);
        self.write_pairs(&mut w, pairs, data, removed);
        self.joints.write_snapshot(&mut w, &self.solver);
        w.u8(END);
        w.bytes
    }

    /// The settings section: gravity, substeps, the speed cap, the flags and the hit
    /// threshold when there is one.
    fn write_settings(&self, w: &mut Writer) {
        w.u8(SETTINGS);
        w.vec2(self.settings.gravity);
        w.len(self.settings.substeps);
        w.f32(self.settings.max_linear_speed);
        let flags = flag8(self.settings.continuous, CONTINUOUS)
            | flag8(self.settings.recycling, RECYCLING)
            | flag8(self.sleep.enabled, SLEEPING)
            | flag8(self.bodies.custom_forces, CUSTOM_FORCES)
            | flag8(self.settings.hit_threshold.is_some(), HIT_THRESHOLD)
            | flag8(self.colliders.has_sensors, HAS_SENSORS)
            | flag8(self.colliders.has_filters, HAS_FILTERS);
        w.u8(flags);
        if let Some(t) = self.settings.hit_threshold {
            w.f32(t);
        }
    }
}

impl ShapeTable {
    /// The shape table section: every entry, free ones included (vacant colliders may name
    /// them), and the free list in order.
    fn write_snapshot(&self, w: &mut Writer) {
        w.u8(SHAPES);
        w.len(self.list.len());
        for shape in &self.list {
            write_shape(w, shape);
        }
        w.len(self.free.len());
        for &s in &self.free {
            w.len(s as usize);
        }
    }
}

impl Slots {
    /// A slot list: per slot its generation and live flag in one varint, then the free,
    /// removed and retired lists in their order.
    fn write_snapshot(&self, w: &mut Writer) {
        w.len(self.generations.len());
        for (g, &live) in self.generations.iter().zip(&self.live) {
            w.varint(u64::from(*g) << 1 | u64::from(live));
        }
        for list in [&self.free, &self.removed, &self.retired] {
            w.len(list.len());
            for &s in list {
                w.len(s as usize);
            }
        }
    }
}

/// A shape as its kind and the points and radius its constructor takes.
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

/// `bit` when `on`, else 0: one flag of a flags byte.
fn flag8(on: bool, bit: u8) -> u8 {
    if on { bit } else { 0 }
}

/// Bit for bit: a derived value replaces a stored one only when nothing, not even the
/// sign of a zero, would change.
fn same_floats(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
