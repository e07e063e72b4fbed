//! The writer of the pairs section: the persistent pairs of the pair set in their order,
//! with their kept manifolds (what recycling reuses) and the contacts' warm starts and
//! colours (contacts are a subsequence of the pairs, in the same order).
//!
//! ```text
//! removed colliders; pair count
//! per block of PAIR_BLOCK pairs: its byte length (u32, patched once written), then per
//!     pair: first collider (difference from the last pair's), second (difference - 1),
//!     flags (TOUCHING | KEPT | WARM | WARM_IDS_KEPT);
//!     KEPT: the pose as differences from the pose now, normal, depth, points with their
//!           depths (differences from the manifold's) and feature ids (bits changed)
//!     WARM: point count, colour, per point its feature id (unless WARM_IDS_KEPT: the
//!           kept manifold's), normal and tangent impulses
//! the moving bodies' bit words
//! ```
//!
//! Blocks, each with its length and its first pair written in full, so that the reader
//! reads them in parallel.

use super::super::codec::Writer;
use super::super::derived::transform_floats;
use super::super::{KEPT, PAIR_BLOCK, PAIRS, TOUCHING, WARM, WARM_IDS_KEPT};
use super::flag8;
use crate::world::World;
use crate::world::contact_set::PairState;

impl World {
    /// The pairs section: the colliders removed since the pair set's update, then the
    /// pairs in blocks of [`PAIR_BLOCK`], each pair with its flags, kept manifold and warm
    /// start, then the bodies the last step moved (a bit each).
    pub(super) fn write_pairs(
        &self,
        w: &mut Writer,
        pairs: &[[u32; 2]],
        data: &[PairState],
        removed: &[u32],
    ) {
        w.u8(PAIRS);
        w.len(removed.len());
        for &c in removed {
            w.len(c as usize);
        }
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
