//! The collision stage's colliders on their way up: the host's boxes (`send_boxes`), or, for
//! the GPU world, placed on the device from its bodies' transforms (`send_placed`, and
//! `place.rs`); and the recording of their upload (those that changed, `scatter.rs`) and
//! placement that every submit starts with.

use super::GpuCollision;
use crate::collision::narrow_phase::Collider;
use crate::error::{Error, GpuError};
use crate::gpu::place::PlacedBoxes;
use crate::gpu::scatter::{ColliderBuffers, Upload};
use crate::shapes::aabb::Aabb;

impl GpuCollision {
    /// [`send`](Self::send) over the boxes the caller has (the world's tight boxes, one per
    /// collider), each grown by half the speculative distance; a box that is not valid (a
    /// removed collider's empty one) is replaced by the collider's own, and its pairs are
    /// the caller's to drop.
    pub(crate) fn send_boxes(
        &mut self,
        colliders: &[Collider],
        boxes: &[Aabb],
    ) -> Result<(), Error> {
        self.begin(colliders)?;
        self.grow_boxes(colliders, boxes);
        self.send_boxes_ready(colliders)
    }

    /// [`send_boxes`](Self::send_boxes) for the GPU world, whose colliders' poses are
    /// their bodies' transforms in `transforms` (one `BodyTransformGpu` per body slot,
    /// current: the host's, to the bit): `owners` names each collider's body slot
    /// (`UNPLACED` for a removed collider), and the device places the colliders from
    /// them, so that those that moved are not sent (`place.rs`). `colliders` and `boxes`
    /// are still the host's, which the sweep is fitted to.
    pub(crate) fn send_placed(
        &mut self,
        colliders: &[Collider],
        boxes: &[Aabb],
        transforms: &wgpu::Buffer,
        owners: impl IntoIterator<Item = u32>,
    ) -> Result<(), Error> {
        self.begin_placed(colliders, boxes, transforms, owners)?;
        self.send_boxes_ready(colliders)
    }

    /// The start of a call whose colliders the device places from `transforms` (see
    /// [`send_placed`](Self::send_placed)): checked, their boxes grown, their owners kept.
    pub(super) fn begin_placed(
        &mut self,
        colliders: &[Collider],
        boxes: &[Aabb],
        transforms: &wgpu::Buffer,
        owners: impl IntoIterator<Item = u32>,
    ) -> Result<(), Error> {
        self.begin(colliders)?;
        self.grow_boxes(colliders, boxes);
        self.owners.clear();
        self.owners.extend(owners);
        if self.owners.len() != colliders.len() {
            return Err(Error::Gpu(GpuError::Device(format!(
                "{} owners for {} colliders",
                self.owners.len(),
                colliders.len()
            ))));
        }
        self.place_from = Some(transforms.clone());
        Ok(())
    }

    /// The boxes this call placed on the device from the transforms, while its submit
    /// waits to be collected (or `place_first` placed them): `None` when it placed none
    /// (no transforms given, fewer than two colliders, collected already). On a placement
    /// miss (see [`placement_misses`](Self::placement_misses)) they are not the host's
    /// boxes.
    pub(crate) fn placed_boxes(&self) -> Option<PlacedBoxes> {
        self.place_from.as_ref()?;
        if self.pending.is_none() && !self.placed_early {
            return None;
        }
        Some(PlacedBoxes {
            boxes: self.broad.boxes_buffer().clone(),
            owners: self.placed.owners_buffer().clone(),
        })
    }

    /// How many calls have had the boxes the device placed span other band entries than
    /// the host's boxes, or (over a set) hash otherwise, and ran again with the host's
    /// sent. None where the adapter gives the host's bits.
    pub(crate) fn placement_misses(&self) -> u64 {
        self.placement_misses
    }

    /// `self.boxes`: `boxes` each grown by half the speculative distance; a box that is
    /// not valid (a removed collider's empty one) replaced by the collider's own.
    pub(super) fn grow_boxes(&mut self, colliders: &[Collider], boxes: &[Aabb]) {
        let (shapes, margin) = (self.sat.shapes(), self.sat.speculative_distance());
        self.boxes.clear();
        self.boxes.extend(colliders.iter().zip(boxes).map(|(c, b)| {
            if b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all() {
                b.expanded(0.5 * margin)
            } else {
                shapes[c.shape as usize]
                    .aabb(&c.transform)
                    .expanded(0.5 * margin)
            }
        }));
    }

    /// Records in `encoder` the colliders' upload (those that changed, or all of them when
    /// `lost`) and, for the GPU world, their placement from the transforms (`place.rs`),
    /// timed from the first timestamp when `timed`; returns the bytes queued and whether
    /// the placement took that timestamp.
    pub(super) fn record_colliders(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        colliders: &[Collider],
        lost: bool,
        timed: bool,
    ) -> (u64, bool) {
        let device = self.sat.device().clone();
        let cap = self.sat.max_binding();
        let placed = self.place_from.as_ref().map(|_| &self.owners[..]);
        let upload = self.resident.plan(colliders, &self.boxes, placed, lost);
        let to = ColliderBuffers {
            poses: self.sat.poses_buffer(),
            shape_ids: self.sat.indices_buffer(),
            boxes: self.broad.boxes_buffer(),
        };
        let queue = self.sat.queue();
        let mut uploaded = match upload {
            Upload::Whole => self.resident.write_whole(queue, to),
            Upload::Changed(_) => self
                .resident
                .record_changed(&device, queue, encoder, to, cap),
        };
        let Some(transforms) = &self.place_from else {
            return (uploaded, false);
        };
        let from = (self.sat.shapes_buffer(), transforms);
        let first = match (&self.timer, timed) {
            (Some(t), true) => Some(t.pass(Some(0), None)),
            _ => None,
        };
        let timed_first = first.is_some();
        let half_margin = 0.5 * self.sat.speculative_distance();
        uploaded += self.placed.record(
            &device,
            queue,
            encoder,
            to,
            from,
            &self.owners,
            half_margin,
            first,
        );
        (uploaded, timed_first)
    }
}
