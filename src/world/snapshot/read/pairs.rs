//! The reader of the pairs section: the colliders removed since the pair set's update, the
//! persistent pairs with their kept manifolds and the contacts' warm starts and colours,
//! and the bodies the last step moved. The pair set is rebuilt from them; the warm starts
//! and colours wait for the joints' (`colouring.rs`).
//!
//! ```text
//! removed colliders (each below the fat box count); pair count
//! scan: each block's byte length (within the bytes left) -> its span
//! the blocks in parallel, each into its own stretch of the lists:
//!     per pair: (a, b) from the differences, past no collider, ascending;
//!               flags (known bits; WARM_IDS_KEPT only with KEPT and WARM)
//!               KEPT: pose near the pose now (unit rotation), normal (unit), depth,
//!                     1 or 2 points, their depths near the manifold's, their feature ids
//!               WARM: 1 or 2 points (the kept count when WARM_IDS_KEPT), colour, per
//!                     point its id, normal and tangent impulses (MAX_IMPULSE)
//!     the block ends where its length says
//! across blocks: ascending; the first fault in byte order is the error
//! moving bodies: words (at most one per 64 bodies); every contact's bodies within them
//! ```

use std::mem::MaybeUninit;

use glam::Vec2;
use rayon::prelude::*;

use super::super::codec::Reader;
use super::super::derived::transform_floats;
use super::super::{KEPT, PAIR_BLOCK, PAIRS, TOUCHING, UNIT_TOLERANCE, WARM, WARM_IDS_KEPT};
use super::Loading;
use super::colouring::ContactColouring;
use super::values::{read_unit, tag};
use crate::broad_phase::pair_set::PairSet;
use crate::collision::manifold::ContactPoint;
use crate::collision::recycle::KeptManifold;
use crate::dynamics::solver::WarmStart;
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;
use crate::world::World;
use crate::world::contact_set::PairState;
use crate::world::limits::{GEOMETRY_LIMIT, MAX_IMPULSE};

/// The pair set's lists: fat boxes, pairs, their states, removed colliders.
type PairBuffers = (Vec<Aabb>, Vec<[u32; 2]>, Vec<PairState>, Vec<u32>);

impl Loading {
    /// The pairs section, into `buffers` (the fat boxes as read, and the pair set's lists
    /// to fill: pairs, their states, removed colliders).
    pub(super) fn read_pairs(
        &mut self,
        r: &mut Reader<'_>,
        buffers: PairBuffers,
    ) -> Result<ContactColouring, Error> {
        let (fat, mut pairs, mut data, mut removed) = buffers;
        tag(r, PAIRS, "pairs")?;
        let fat_len = fat.len();
        let removed_count = r.count("removed collider count", 1)?;
        removed.reserve(removed_count);
        for _ in 0..removed_count {
            removed.push(r.index("removed collider", fat_len)? as u32);
        }
        let count = r.count("pair count", 3)?;
        // The blocks' spans from their lengths, then the blocks over the pool, each into
        // its own stretch of the lists; the first fault in byte order is the error, as one
        // reading front to back would find it, whatever the thread count.
        let (spans, scan_error) = scan_blocks(r, count);
        // Written in place by the blocks (each thread touches its own stretch's fresh
        // pages first), the lengths set once every block has filled its stretch.
        pairs.clear();
        data.clear();
        pairs.reserve(count);
        data.reserve(count);
        let world = &self.world;
        let bytes = r.bytes();
        let blocks: Vec<(FirstPair, Result<PairBlock, Error>)> = pairs.spare_capacity_mut()
            [..count]
            .par_chunks_mut(PAIR_BLOCK)
            .zip(data.spare_capacity_mut()[..count].par_chunks_mut(PAIR_BLOCK))
            .zip(spans.par_iter())
            .with_min_len(crate::parallel::min_len(1))
            .map(|((pairs, data), &span)| {
                let mut first = None;
                let block = read_pair_block(world, fat_len, bytes, span, pairs, data, &mut first);
                (first, block)
            })
            .collect();
        let mut last: Option<[u32; 2]> = None;
        let mut starts = 0;
        let mut read = Vec::with_capacity(blocks.len());
        for (first, block) in blocks {
            if let (Some((at, [a, b])), Some(l)) = (first, last) {
                if l >= [a, b] {
                    return Reader::error_at(at, format!("pair ({a}, {b}) out of order"));
                }
            }
            let block = block?;
            last = block.last;
            starts += block.warm.len();
            read.push(block);
        }
        if let Some(e) = scan_error {
            return Err(e);
        }
        // SAFETY: no block failed and none is missing (the scan found every span), and a
        // block that succeeds has written each slot of its stretch; the stretches cover
        // 0..count.
        unsafe {
            pairs.set_len(count);
            data.set_len(count);
        }
        let mut warm: Vec<WarmStart> = Vec::with_capacity(starts);
        let mut colours = Vec::with_capacity(starts);
        for block in read {
            warm.extend_from_slice(&block.warm);
            colours.extend_from_slice(&block.colours);
        }
        let contacts = self.read_moving(r, warm, colours)?;
        self.world.contacts.pairs = PairSet::restored(fat, pairs, data, removed);
        Ok(contacts)
    }

    /// The bodies the last step moved (a bit each: at most one 64-bit word per 64 body
    /// slots), and each warm start's bodies, which must lie within those words: with the
    /// warm starts and their colours, the contacts' colouring.
    fn read_moving(
        &self,
        r: &mut Reader<'_>,
        warm: Vec<WarmStart>,
        colours: Vec<u8>,
    ) -> Result<ContactColouring, Error> {
        let w = &self.world;
        let words_at = r.offset;
        let words = r.count("moving body words", 8)?;
        if words > w.bodies.slots.len().div_ceil(64) {
            return Reader::error_at(
                words_at,
                format!(
                    "{words} words of moving bodies for {} bodies",
                    w.bodies.slots.len()
                ),
            );
        }
        let mut moving = Vec::with_capacity(words);
        for _ in 0..words {
            moving.push(r.u64("moving bodies")?);
        }
        let mut bodies = Vec::with_capacity(warm.len());
        for start in &warm {
            let pair = start.0.map(|c| w.names.collider_bodies[c as usize]);
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
        Ok(ContactColouring {
            warm,
            bodies,
            colours,
            moving,
            words_at,
        })
    }
}

/// The pair blocks' spans `(start, end)` in the bytes, from their lengths, and the fault
/// that ended the scan early (a length cut short, or past the bytes left), if one did: the
/// caller reports it after the faults of the blocks before it.
fn scan_blocks(r: &mut Reader<'_>, count: usize) -> (Vec<(usize, usize)>, Option<Error>) {
    let mut spans = Vec::with_capacity(count.div_ceil(PAIR_BLOCK));
    let mut scan_error = None;
    for _ in 0..count.div_ceil(PAIR_BLOCK) {
        let at = r.offset;
        let length = match r.u32("pair block length") {
            Ok(length) => length as usize,
            Err(e) => {
                scan_error = Some(e);
                break;
            }
        };
        if length > r.remaining() {
            scan_error = Reader::error_at::<()>(
                at,
                format!(
                    "pair block length {length}: past the {} bytes left",
                    r.remaining()
                ),
            )
            .err();
            break;
        }
        spans.push((r.offset, r.offset + length));
        r.offset += length;
    }
    (spans, scan_error)
}

/// A block's first pair and its offset, when it has one that read.
type FirstPair = Option<(usize, [u32; 2])>;

/// What a block of pairs gives besides its pairs and states: its warm starts and their
/// colours, and its last pair.
struct PairBlock {
    /// The block's warm starts, in pair order.
    warm: Vec<WarmStart>,
    /// Each warm start's colour.
    colours: Vec<u8>,
    /// The block's last pair.
    last: Option<[u32; 2]>,
}

/// The block of pairs in `bytes[start..end]`, into `pairs` and `data` (its stretch of the
/// lists), with its first pair and that pair's offset in `first`, known even when a later
/// one is at fault (the caller checks the order across blocks).
fn read_pair_block(
    world: &World,
    fat_len: usize,
    bytes: &[u8],
    (start, end): (usize, usize),
    pairs: &mut [MaybeUninit<[u32; 2]>],
    data: &mut [MaybeUninit<PairState>],
    first: &mut FirstPair,
) -> Result<PairBlock, Error> {
    let r = &mut Reader::new(&bytes[..end]);
    r.offset = start;
    let mut block = PairBlock {
        warm: Vec::with_capacity(pairs.len()),
        colours: Vec::with_capacity(pairs.len()),
        last: None,
    };
    for (slot, state) in pairs.iter_mut().zip(data.iter_mut()) {
        let at = r.offset;
        let da = r.varint("pair's first collider")?;
        let db = r.varint("pair's second collider")?;
        let a = u64::from(block.last.map_or(0, |l| l[0])) + da;
        let b = a + 1 + db;
        if b >= fat_len as u64 {
            return Reader::error_at(at, format!("pair ({a}, {b}) past the {fat_len} colliders"));
        }
        let pair = [a as u32, b as u32];
        if block.last.is_some_and(|l| l >= pair) {
            return Reader::error_at(at, format!("pair ({a}, {b}) out of order"));
        }
        if block.last.is_none() {
            *first = Some((at, pair));
        }
        block.last = Some(pair);
        let flags_at = r.offset;
        let flags = r.u8("pair flags")?;
        let ids_kept = flags & WARM_IDS_KEPT != 0;
        if flags & !(TOUCHING | KEPT | WARM | WARM_IDS_KEPT) != 0
            || (ids_kept && flags & (KEPT | WARM) != KEPT | WARM)
        {
            return Reader::error_at(flags_at, format!("pair flags {flags:#x}: unknown bits"));
        }
        let kept = if flags & KEPT != 0 {
            Some(read_kept(r, &world.relative_pose(pair))?)
        } else {
            None
        };
        if flags & WARM != 0 {
            let count_at = r.offset;
            let n = r.u8("warm start point count")?;
            let kept_count = kept.as_ref().map_or(0, |k| k.count);
            if !(1..=2).contains(&n) || (ids_kept && u32::from(n) != kept_count) {
                return Reader::error_at(count_at, format!("warm start of {n} points"));
            }
            let colour = r.u8("colour")?;
            let mut start: WarmStart = (pair, u32::from(n), [0; 2], [0.0; 2], [0.0; 2]);
            let mut last_id = 0;
            for k in 0..n as usize {
                start.2[k] = match &kept {
                    Some(kept) if ids_kept => kept.points[k].id,
                    _ => read_id(r, &mut last_id)?,
                };
                start.3[k] = r.f32("normal impulse", MAX_IMPULSE)?;
                start.4[k] = r.f32("tangent impulse", MAX_IMPULSE)?;
            }
            block.warm.push(start);
            block.colours.push(colour);
        }
        slot.write(pair);
        state.write(PairState {
            kept,
            touching: flags & TOUCHING != 0,
        });
    }
    if r.offset != end {
        return r.fail(format!(
            "the block of pairs ends at byte {end}, its pairs here"
        ));
    }
    Ok(block)
}

/// A kept manifold, its pose read as differences from `now`, the pair's pose now.
fn read_kept(r: &mut Reader<'_>, now: &Transform) -> Result<KeptManifold, Error> {
    let [x, y, c, s] = transform_floats(now);
    let translation = Vec2::new(
        r.f32_near("kept offset", x, GEOMETRY_LIMIT)?,
        r.f32_near("kept offset", y, GEOMETRY_LIMIT)?,
    );
    let rotation_at = r.offset;
    let rotation = Vec2::new(
        r.f32_near("kept rotation", c, 2.0)?,
        r.f32_near("kept rotation", s, 2.0)?,
    );
    if (rotation.length_squared() - 1.0).abs() > UNIT_TOLERANCE {
        return Reader::error_at(
            rotation_at,
            format!("kept rotation = {rotation}: not of unit length"),
        );
    }
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
    let mut last_id = 0;
    for p in points.iter_mut().take(count as usize) {
        p.point = r.vec2("kept point", GEOMETRY_LIMIT)?;
        p.depth = r.f32_near("kept point depth", depth, GEOMETRY_LIMIT)?;
        p.id = read_id(r, &mut last_id)?;
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

/// A feature id from its bits changed from the point before's (`last`; 0 for the first).
fn read_id(r: &mut Reader<'_>, last: &mut u32) -> Result<u32, Error> {
    let id = r.varint_u32("feature id")? ^ *last;
    *last = id;
    Ok(id)
}
