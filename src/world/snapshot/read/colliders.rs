//! The reader of colliders: a live body's, inside its record (`bodies.rs`), then their poses,
//! boxes and fat boxes once the body's pose is known; the vacant colliders' section; the
//! list of static obstacles. Every slot is claimed once, by a live body or as vacant.
//!
//! ```text
//! read_colliders: count (>= 1); per collider: slot (live, not claimed yet), shape entry,
//!     flags (known bits; FAT and FAT_EMPTY not both, neither past the fat boxes), then
//!     filter (as set_filter checks it) if FILTER, material (as add_body checks it;
//!     else the last one read, checked for this piece) if MATERIAL, pose if POSE, box if
//!     BOX
//! place_colliders (after the mass data): the body's pose finite; each pose (the body's
//!     unless stored), box (the shape's at the pose unless stored), fat box (the box
//!     grown by the margin unless empty or stored); then the stored fat boxes, as
//!     differences from that
//! read_vacant_colliders: per vacant slot its last body and shape, flags, fat box; every
//!     live slot claimed by a body
//! read_statics: the static, non-sensor colliders, each once, all of them, in their order
//! ```

use glam::Vec2;

use super::super::codec::Reader;
use super::super::derived::box_floats;
use super::super::{BOX, FAT, FAT_EMPTY, FILTER, MATERIAL, POSE, SENSOR, STATICS, VACANT};
use super::Loading;
use super::values::{at, read_unit, tag};
use crate::broad_phase::filter::Filter;
use crate::broad_phase::pair_set::FAT_MARGIN;
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;
use crate::world::filters::checked as checked_filter;
use crate::world::limits::GEOMETRY_LIMIT;
use crate::world::materials::Material;

impl Loading {
    /// Body `b`'s colliders, into the world and `self.pieces` (with their stored poses and
    /// boxes) and `self.fat_explicit` (those whose fat box is stored, read after the
    /// colliders); their count.
    pub(super) fn read_colliders(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        dynamic: bool,
        fat: &mut [Aabb],
        last_material: &mut Material,
    ) -> Result<usize, Error> {
        let count_at = r.offset;
        let count = r.count("collider count", 3)?;
        if count == 0 || count > u32::MAX as usize {
            return Reader::error_at(count_at, "a live body without colliders");
        }
        self.pieces.clear();
        self.fat_explicit.clear();
        for piece in 0..count {
            self.read_collider(r, b, piece, dynamic, fat, last_material)?;
        }
        Ok(count)
    }

    /// Body `b`'s collider number `piece`.
    fn read_collider(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        piece: usize,
        dynamic: bool,
        fat: &mut [Aabb],
        last_material: &mut Material,
    ) -> Result<(), Error> {
        let w = &mut self.world;
        let c_at = r.offset;
        let c = r.index("collider slot", w.colliders.slots.len())?;
        if !w.colliders.slots.is_live(c) || self.claimed[c] {
            return Reader::error_at(
                c_at,
                format!("collider slot {c} is vacant or claimed twice"),
            );
        }
        self.claimed[c] = true;
        let shape = r.index("collider shape", w.shapes.list.len())?;
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
        w.shapes.users[shape] += 1;
        w.colliders.records[c].shape = shape as u32;
        w.names.collider_bodies[c] = b as u32;
        w.colliders.sensors[c] = cflags & SENSOR != 0;
        w.colliders.has_sensors |= w.colliders.sensors[c];
        if cflags & FILTER != 0 {
            let filter = read_filter(r)?;
            w.colliders.filters[c] = filter;
            w.colliders.has_filters |= filter != Filter::default();
        }
        read_material(r, cflags & MATERIAL != 0, piece, dynamic, last_material)?;
        w.colliders.surfaces[c] = last_material.surface();
        w.colliders.densities[c] = last_material.density;
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
            // Read once the tight box is known (`place_colliders`).
        } else if cflags & FAT_EMPTY != 0 {
            fat[c] = Aabb::EMPTY;
        } else if c < fat.len() {
            // Marked derived: filled once the box is known.
            fat[c] = Aabb::new(Vec2::NAN, Vec2::NAN);
        }
        if cflags & FAT != 0 {
            self.fat_explicit.push(c);
        }
        self.pieces.push((c, pose, aabb));
        Ok(())
    }

    /// Body `b`'s colliders placed, once its mass data gives its pose (not finite: a fault
    /// at `count_at`): each one's pose, box and derived fat box, then the stored fat
    /// boxes, read as differences from the tight box grown by the margin.
    pub(super) fn place_colliders(
        &mut self,
        r: &mut Reader<'_>,
        b: usize,
        fat: &mut [Aabb],
        count_at: usize,
    ) -> Result<(), Error> {
        let w = &mut self.world;
        let transform = w.bodies.transform(b);
        if !transform.is_finite() {
            return Reader::error_at(count_at, "the body's pose is not finite");
        }
        for &(c, pose, aabb) in &self.pieces {
            let t = pose.unwrap_or(transform);
            w.colliders.records[c].transform = t;
            let shape = &w.shapes.list[w.colliders.records[c].shape as usize];
            w.colliders.aabbs[c] = aabb.unwrap_or_else(|| shape.aabb(&t));
            if fat.get(c).is_some_and(|f| f.min.x.is_nan()) {
                fat[c] = w.colliders.aabbs[c].expanded(FAT_MARGIN);
            }
        }
        for &c in &self.fat_explicit {
            fat[c] = read_box_near(r, "fat box", &w.colliders.aabbs[c].expanded(FAT_MARGIN))?;
        }
        Ok(())
    }

    /// The vacant colliders' section: each vacant slot's last body, shape, sensor flag and
    /// fat box; a live slot that no body claimed is a fault.
    pub(super) fn read_vacant_colliders(
        &mut self,
        r: &mut Reader<'_>,
        fat: &mut [Aabb],
    ) -> Result<(), Error> {
        tag(r, VACANT, "vacant colliders")?;
        for c in 0..self.world.colliders.slots.len() {
            if !self.world.colliders.slots.is_live(c) {
                self.read_vacant_collider(r, c, fat)?;
            } else if !self.claimed[c] {
                return r.fail(format!("live collider slot {c} belongs to no body"));
            }
        }
        Ok(())
    }

    /// Vacant collider slot `c`.
    fn read_vacant_collider(
        &mut self,
        r: &mut Reader<'_>,
        c: usize,
        fat: &mut [Aabb],
    ) -> Result<(), Error> {
        let w = &mut self.world;
        w.names.collider_bodies[c] =
            r.index("vacant collider's body", w.bodies.slots.len())? as u32;
        w.colliders.records[c].shape =
            r.index("vacant collider's shape", w.shapes.list.len())? as u32;
        let flags_at = r.offset;
        let flags = r.u8("vacant collider flags")?;
        if flags & !(SENSOR | FAT) != 0 || (flags & FAT != 0 && c >= fat.len()) {
            return Reader::error_at(
                flags_at,
                format!("vacant collider flags {flags:#x}: unknown bits"),
            );
        }
        w.colliders.sensors[c] = flags & SENSOR != 0;
        if flags & FAT != 0 {
            fat[c] = read_box(r, "fat box")?;
        }
        Ok(())
    }

    /// The static obstacles in their order: each a live, static, non-sensor collider,
    /// listed once, and every such collider listed.
    pub(super) fn read_statics(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, STATICS, "static colliders")?;
        let w = &mut self.world;
        let count = r.count("static collider count", 1)?;
        let mut seen = vec![false; w.colliders.records.len()];
        for _ in 0..count {
            let at = r.offset;
            let c = r.index("static collider", w.colliders.records.len())?;
            let body = &w.bodies.records[w.names.collider_bodies[c] as usize];
            if !w.colliders.slots.is_live(c) || !body.is_static || w.colliders.sensors[c] || seen[c]
            {
                return Reader::error_at(
                    at,
                    format!("collider {c} is no static obstacle, or listed twice"),
                );
            }
            seen[c] = true;
            w.colliders.statics.push(c as u32);
        }
        let expected = (0..w.colliders.records.len())
            .filter(|&c| {
                w.colliders.slots.is_live(c)
                    && w.bodies.records[w.names.collider_bodies[c] as usize].is_static
                    && !w.colliders.sensors[c]
            })
            .count();
        if expected != count {
            return r.fail(format!(
                "{count} static obstacles listed, {expected} in the world"
            ));
        }
        Ok(())
    }
}

/// A collider's filter, as `set_filter` checks it.
fn read_filter(r: &mut Reader<'_>) -> Result<Filter, Error> {
    let f_at = r.offset;
    let filter = Filter {
        category_bits: r.u64("filter categories")?,
        mask_bits: r.u64("filter mask")?,
        group_index: r.u32("filter group")? as i32,
    };
    at(f_at, checked_filter(filter))
}

/// A collider's material into `last_material` when `present`; either way the material
/// checked for this piece of the body (`add_body`'s checks).
fn read_material(
    r: &mut Reader<'_>,
    present: bool,
    piece: usize,
    dynamic: bool,
    last_material: &mut Material,
) -> Result<(), Error> {
    if present {
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
    Ok(())
}

/// A box as its min and max corners, within `GEOMETRY_LIMIT`, min not above max.
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

/// A box as differences from `prediction`, within `GEOMETRY_LIMIT`, min not above max.
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
