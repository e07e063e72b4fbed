//! The GPU world's collision call in two submits, when its pair set is on the device
//! (`gpu/world/pairs.rs`): the colliders placed first, so that the pair set's fat boxes can
//! grow from their boxes; then, once the set is up to date, the narrow phase over the
//! set's pairs that need a fresh manifold (`broad_phase/over_set.rs`), with no sweep of
//! its own: the device's recycling pass picks them (`recycle/`), held to the world's.
//!
//! ```text
//! place_first(colliders, boxes, transforms, owners)     World's collision stage: before
//!     check, room for the colliders and for the larger of the last set and the last
//!     pairs; submit: the colliders that changed (scatter), place_poses, place_boxes
//! the world's pair set on the device (fatten, the persistent pairs)    World::find_pairs
//! World::sort_out_recycled                              the fresh pairs (host)
//! send_over_set(colliders, set, world)                   World's collision stage: collide
//!     set: the device's pair set when it is the world's (else None: the sweep, as send);
//!         the world's list, its kept manifolds and a bit per pair of it: fresh
//!         (World::fresh_slot_bits)
//!     submit: the colliders again only if a buffer they were in was replaced; over the
//!         set: hash_boxes; the fresh pairs flagged by the device's recycling pass (or the
//!         world's bits up, set_fresh), scan, set_compact, pair_args; the narrow phase;
//!         the fresh pairs' manifolds kept, the contacts merged (recycle/)
//!     collect: as for send (the boxes' hash instead of their band entries, checked; and
//!         the fresh pairs' hash, held to the world's)
//! ```
//!
//! The contacts are those the world keeps: a pair of the collision stage's own sweep that
//! is not fresh (of one body, filtered, static with static, recycled) is collided there and
//! dropped by the world's walk; here it is never collided, nor read back. The set is the
//! world's list, so the world's slot `k` is the set's pair `k`.

use super::{GpuCollision, SetKept};
use crate::collision::narrow_phase::Collider;
use crate::error::{Error, GpuError};
use crate::gpu::contact_input::{DeviceContacts, LastContacts};
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
    /// buffer and its pairs, ascending: `world`'s list) that need a fresh manifold, as the
    /// device's recycling pass decides them (held to those whose bit
    /// [`fresh_bits`](Self::fresh_bits) sets), or, without a set, over the pairs of the
    /// stage's own sweep (as [`send`](Self::send)). `colliders` are those given to
    /// [`place_first`](Self::place_first).
    pub(crate) fn send_over_set(
        &mut self,
        colliders: &[Collider],
        set: Option<(wgpu::Buffer, usize)>,
        world: &SetKept<'_>,
    ) -> Result<(), Error> {
        if self.sent != Some(colliders.len()) {
            return Err(Error::Gpu(GpuError::NotSent));
        }
        match &set {
            Some((_, len)) if self.recycling.enabled && *len == world.pairs.len() => {
                self.set_room = self.set_room.max(*len);
                let (device, queue) = (self.sat.device(), self.sat.queue());
                let cap = self.sat.max_binding();
                (self.recycling).begin(device, queue, world, &self.fresh_bits, cap);
                self.sat.timings.uploaded_bytes += self.recycling.sent;
            }
            Some((_, len)) => {
                self.set_room = self.set_room.max(*len);
                // The world's kept manifolds change without the device's.
                self.recycling.invalidate();
            }
            None => self.recycling.invalidate(),
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

    /// How many calls over a set took their fresh pairs `[from the device's recycling
    /// pass, from the world's bits]`, and how many missed (the device found other pairs
    /// than the world's, and the call took its bits after all: counted with the second).
    pub(crate) fn recycle_calls(&self) -> ([u64; 2], u64) {
        (self.recycling.counts, self.recycling.misses)
    }

    /// Whether calls over a set decide their fresh pairs on the device (by default) or
    /// take the world's bits.
    pub(crate) fn set_recycling_on_device(&mut self, on: bool) {
        self.recycling.enabled = on;
        self.recycling.invalidate();
    }

    /// The last call's contact list's inputs on the device, when its fresh pairs were
    /// decided there: a solver takes them if the world's list hashes the same.
    pub(crate) fn device_contacts(&self) -> Option<DeviceContacts> {
        self.recycling.contacts()
    }

    /// The device's kept manifolds are no longer the world's (an edit changed them).
    pub(crate) fn invalidate_kept(&mut self) {
        self.recycling.invalidate();
    }

    /// The last step's contacts as the device's solver left them (`None`: it did not
    /// solve that step), from which the next call matches its contacts' warm starts on
    /// the device when it merges its list there.
    pub(crate) fn set_last_contacts(&mut self, last: Option<LastContacts>) {
        self.recycling.last = last;
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
