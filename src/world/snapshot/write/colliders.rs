//! The writer of colliders: a live body's, after its record (`bodies.rs`); then the vacant
//! slots' and the list of static obstacles, each a section of its own.
//!
//! ```text
//! count; per collider: slot, shape entry, flags
//!        (SENSOR | FILTER | MATERIAL | POSE | BOX | FAT | FAT_EMPTY), then per flag:
//!        filter, material (when not the last written), pose (when not the body's),
//!        box (when not the shape's at the pose)
//! then the explicit fat boxes, each as differences from the tight box grown by the margin
//! ```
//!
//! The fat boxes come last: the reader predicts them from the tight boxes, which it knows
//! only once it has the body's mass data and so its pose.

use super::super::codec::Writer;
use super::super::derived::{box_floats, transform_floats};
use super::super::{BOX, FAT, FAT_EMPTY, FILTER, MATERIAL, POSE, SENSOR, STATICS, VACANT};
use super::{flag8, same_floats};
use crate::broad_phase::filter::Filter;
use crate::broad_phase::pair_set::FAT_MARGIN;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;
use crate::world::World;
use crate::world::materials::Material;

impl World {
    /// Body `b`'s colliders in its order: per collider its slot, shape and flags, then
    /// what the flags say is there; after them the fat boxes that are not the tight box
    /// grown by the margin, as differences from that.
    pub(super) fn write_colliders(
        &self,
        w: &mut Writer,
        b: usize,
        fat: &[Aabb],
        last_material: &mut Material,
    ) {
        let body = &self.bodies.records[b];
        w.len(body.collider_count as usize);
        let transform = self.bodies.transform(b);
        let mut fat_boxes = Vec::new();
        for c in body.colliders(&self.colliders.next) {
            let collider = &self.colliders.records[c];
            let material = Material {
                friction: self.colliders.surfaces[c].friction,
                restitution: self.colliders.surfaces[c].restitution,
                density: self.colliders.densities[c],
                tangent_speed: self.colliders.surfaces[c].tangent_speed,
            };
            let new_material =
                !same_floats(&material_floats(&material), &material_floats(last_material));
            let pose = !same_transform(&collider.transform, &transform);
            let shape = &self.shapes.list[collider.shape as usize];
            let aabb = self.colliders.aabbs[c];
            let boxed = !same_box(&aabb, &shape.aabb(&collider.transform));
            // A collider whose pairs are to be tested again has an empty fat box
            // (`PairSet::invalidate`).
            let fat_box = fat.get(c);
            let fat_empty = fat_box == Some(&Aabb::EMPTY);
            let fat_explicit =
                !fat_empty && fat_box.is_some_and(|f| !same_box(f, &aabb.expanded(FAT_MARGIN)));
            let filter = self.colliders.filters[c] != Filter::default();
            let flags = flag8(self.colliders.sensors[c], SENSOR)
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
                let f = &self.colliders.filters[c];
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

    /// The vacant colliders' section: per vacant slot the body and shape it last had, its
    /// sensor flag and its fat box when the pair set still has one.
    pub(super) fn write_vacant_colliders(&self, w: &mut Writer, fat: &[Aabb]) {
        w.u8(VACANT);
        for c in (0..self.colliders.records.len()).filter(|&c| !self.colliders.slots.is_live(c)) {
            w.len(self.names.collider_bodies[c] as usize);
            w.len(self.colliders.records[c].shape as usize);
            let explicit_fat = fat.get(c).filter(|f| **f != Aabb::EMPTY);
            w.u8(flag8(self.colliders.sensors[c], SENSOR) | flag8(explicit_fat.is_some(), FAT));
            if let Some(f) = explicit_fat {
                write_box(w, f);
            }
        }
    }

    /// The static obstacles in their order (the continuous stage sweeps in it).
    pub(super) fn write_statics(&self, w: &mut Writer) {
        w.u8(STATICS);
        w.len(self.colliders.statics.len());
        for &c in &self.colliders.statics {
            w.len(c as usize);
        }
    }
}

/// A fat box as differences from its prediction, the tight box grown by the margin.
fn write_box_near(w: &mut Writer, b: &Aabb, prediction: &Aabb) {
    for (v, p) in box_floats(b).into_iter().zip(box_floats(prediction)) {
        w.f32_near(v, p);
    }
}

/// A box as its min and max corners.
fn write_box(w: &mut Writer, b: &Aabb) {
    w.vec2(b.min);
    w.vec2(b.max);
}

/// A material's floats in the order a snapshot writes them.
fn material_floats(m: &Material) -> [f32; 4] {
    [m.friction, m.restitution, m.density, m.tangent_speed]
}

/// Whether two poses have the same bits: the body's pose may then stand for the
/// collider's.
fn same_transform(a: &Transform, b: &Transform) -> bool {
    same_floats(&transform_floats(a), &transform_floats(b))
}

/// Whether two boxes have the same bits: the derived box may then stand for the stored.
fn same_box(a: &Aabb, b: &Aabb) -> bool {
    same_floats(
        &[a.min.x, a.min.y, a.max.x, a.max.y],
        &[b.min.x, b.min.y, b.max.x, b.max.y],
    )
}
