//! The GPU world's collision call in two submits, when its pair set is on the device
//! (`gpu/world/pairs.rs`): the colliders placed first, so that the pair set's fat boxes can
//! grow from their boxes; then, once the set is up to date, the narrow phase over the set's
//! pairs whose boxes overlap (`broad_phase/over_set.rs`), with no sweep of its own.
//!
//! ```text
//! place_first(colliders, boxes, transforms, owners)     World's collision stage: before
//!     check, room for the colliders and for the larger of the last set and the last
//!     pairs; submit: the colliders that changed (scatter), place_poses, place_boxes
//! the world's pair set on the device (fatten, the persistent pairs)    World::find_pairs
//! send_over_set(colliders, set)                          World's collision stage: collide
//!     set: the device's pair set when it is the world's (else None: the sweep, as send)
//!     submit: the colliders again only if a buffer they were in was replaced; over the
//!         set: hash_boxes, set_overlaps, scan, set_compact, pair_args; the narrow phase
//!     collect: as for send (the boxes' hash instead of their band entries, checked)
//! ```
//!
//! The pairs are those the world keeps anyway: a pair of the collision stage's own sweep
//! outside the world's set (of one body, filtered, static with static) is collided there
//! and dropped by the world's walk; here it is never collided, and the set's pairs whose
//! boxes overlap are exactly those of the sweep that the world keeps.

use super::GpuCollision;
use crate::collision::narrow_phase::Collider;
use crate::error::{Error, GpuError};
use crate::shapes::aabb::Aabb;

impl GpuCollision {
    /// The first half of [`send_placed`](Self::send_placed) for a world whose pair set is
    /// on the device: the colliders placed from `transforms` (see `send_placed`), in a
    /// submit of their own, and nothing collided yet: [`send_over_set`](Self::send_over_set)
    /// does that, then [`collect`](Self::collect).
    pub(crate) fn place_first(
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
        if colliders.len() >= 2 {
            self.guarded(|stage| stage.submit_placement(colliders))?;
            self.placed_early = true;
        }
        self.sent = Some(colliders.len());
        Ok(())
    }

    /// The second half: the narrow phase over the pairs of `set` (the device's pair set
    /// buffer and its pairs, ascending) whose boxes overlap, or, without a set, over the
    /// pairs of the stage's own sweep (as [`send`](Self::send)). `colliders` are those
    /// given to [`place_first`](Self::place_first).
    pub(crate) fn send_over_set(
        &mut self,
        colliders: &[Collider],
        set: Option<(wgpu::Buffer, usize)>,
    ) -> Result<(), Error> {
        if self.sent != Some(colliders.len()) {
            return Err(Error::Gpu(GpuError::NotSent));
        }
        if let Some((_, len)) = &set {
            self.set_room = self.set_room.max(*len);
        }
        self.set_calls[usize::from(set.is_none())] += 1;
        self.over_set = set;
        if colliders.len() >= 2 {
            self.guarded(|stage| {
                stage.pending = Some(stage.submit(colliders)?);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// How many calls [`send_over_set`](Self::send_over_set) has had: `[over a set, swept]`.
    pub(crate) fn set_calls(&self) -> [u64; 2] {
        self.set_calls
    }

    /// `place_first`'s submit: room for the call (so that the second submit replaces no
    /// buffer the colliders were placed in, unless its pairs need more), then the
    /// colliders' upload and placement.
    fn submit_placement(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        let n = colliders.len();
        self.sat.fit_colliders(n)?;
        if self.room == 0 {
            self.room = 2 * n;
        }
        let (most_pairs, most_records) = self.sat.max_pairs_and_records(n);
        let room = self
            .room
            .max(self.set_room)
            .min(most_pairs.min(self.broad.max_pairs()));
        let (_, boxes_lost) = self.broad.prepare_boxes(&self.boxes)?;
        let lost = self.sat.reserve_records(n, room, room.min(most_records)) || boxes_lost;
        let device = self.sat.device().clone();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-sat collision placement"),
        });
        let (uploaded, _) = self.record_colliders(&mut encoder, colliders, lost, false);
        self.sat.timings.uploaded_bytes += uploaded;
        self.sat.queue().submit([encoder.finish()]);
        Ok(())
    }
}
