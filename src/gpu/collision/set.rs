//! The GPU world's collision call in two submits, when its pair set is on the device
//! (`gpu/world/pairs.rs`): the colliders placed first, so that the pair set's fat boxes can
//! grow from their boxes; then, once the set is up to date and the world's recycling pass
//! has picked the pairs that need a fresh manifold, the narrow phase over those pairs of the
//! set (`broad_phase/over_set.rs`, a bit a pair sent up), with no sweep of its own.
//!
//! ```text
//! place_first(colliders, boxes, transforms, owners)     World's collision stage: before
//!     check, room for the colliders and for the larger of the last set and the last
//!     pairs; submit: the colliders that changed (scatter), place_poses, place_boxes
//! the world's pair set on the device (fatten, the persistent pairs)    World::find_pairs
//! World::sort_out_recycled                              the fresh pairs (host)
//! send_over_set(colliders, set)                          World's collision stage: collide
//!     set: the device's pair set when it is the world's (else None: the sweep, as send),
//!         and a bit per pair of it: fresh (World::fresh_slot_bits)
//!     submit: the colliders again only if a buffer they were in was replaced; over the
//!         set: the bits up, hash_boxes, set_fresh, scan, set_compact, pair_args; the
//!         narrow phase
//!     collect: as for send (the boxes' hash instead of their band entries, checked)
//! ```
//!
//! The contacts are those the world keeps: a pair of the collision stage's own sweep that
//! is not fresh (of one body, filtered, static with static, recycled) is collided there and
//! dropped by the world's walk; here it is never collided, nor read back. The set is the
//! world's list, so the world's slot `k` is the set's pair `k`.

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
        self.begin_placed(colliders, boxes, transforms, owners)?;
        if colliders.len() >= 2 {
            self.guarded(|stage| stage.submit_placement(colliders))?;
            self.placed_early = true;
        }
        self.sent = Some(colliders.len());
        Ok(())
    }

    /// The second half: the narrow phase over the pairs of `set` (the device's pair set
    /// buffer and its pairs, ascending) whose bit [`fresh_bits`](Self::fresh_bits) sets, or,
    /// without a set, over the pairs of the stage's own sweep (as [`send`](Self::send)).
    /// `colliders` are those given to [`place_first`](Self::place_first).
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

    /// The bits `send_over_set` takes: one per pair of the set, 32 to a word, the low bit
    /// first, set for each pair the world's recycling pass sent to the narrow phase
    /// (`World::fresh_slot_bits` fills them).
    pub(crate) fn fresh_bits(&mut self) -> &mut Vec<u32> {
        &mut self.fresh_bits
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
