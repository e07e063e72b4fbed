//! `#[repr(C)]` mirrors of the recycling pass's WGSL structs (`shaders/recycle.wgsl`),
//! each pinned to its WGSL size, and the host's twin of the fresh pairs' hash.

use bytemuck::{Pod, Zeroable};

use crate::broad_phase::sort_sweep::box_hash;
use crate::collision::recycle::KeptManifold;
use crate::gpu::layout::{ContactPointGpu, PoseGpu};

/// WGSL `Kept`: a pair's kept manifold ([`KeptManifold`]), the pair, and what the pair has
/// this step, 80 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct KeptGpu {
    pub(crate) pair: [u32; 2],
    /// B's collider pose in A's collider frame when the manifold was computed.
    pub(crate) relative: PoseGpu,
    /// The normal in A's frame.
    pub(crate) normal: [f32; 2],
    pub(crate) depth: f32,
    /// Points in use; 0 keeps nothing.
    pub(crate) count: u32,
    /// In A's frame; a one-point manifold repeats its point.
    pub(crate) points: [ContactPointGpu; 2],
    /// What the pair has this step (written on the device): no contact, a recycled one,
    /// or the index of its record.
    pub(crate) contact: u32,
    pub(crate) _pad: u32,
}
const _: () = assert!(size_of::<KeptGpu>() == 80);

impl KeptGpu {
    /// The record of `pair`, keeping `kept` (none: count 0).
    pub(crate) fn of(pair: [u32; 2], kept: Option<&KeptManifold>) -> KeptGpu {
        let Some(kept) = kept else {
            return KeptGpu {
                pair,
                ..KeptGpu::zeroed()
            };
        };
        KeptGpu {
            pair,
            relative: PoseGpu {
                translation: kept.relative.translation().to_array(),
                rotation: kept.relative.rotation().to_array(),
            },
            normal: kept.normal.to_array(),
            depth: kept.depth,
            count: kept.count,
            points: kept.points.map(|p| ContactPointGpu {
                point: p.point.to_array(),
                depth: p.depth,
                id: p.id,
            }),
            contact: 0,
            _pad: 0,
        }
    }
}

/// WGSL `RecycleParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct RecycleParamsGpu {
    pub(crate) len: u32,
    pub(crate) old_len: u32,
    pub(crate) recycling: u32,
    pub(crate) capacity: u32,
    pub(crate) translation: f32,
    pub(crate) angle: f32,
    pub(crate) never: u32,
    /// Contacts of the last step's list, which `match_warm_starts` searches.
    pub(crate) last_len: u32,
}
const _: () = assert!(size_of::<RecycleParamsGpu>() == 32);

/// WGSL `ColliderContact`: what a contact takes of one of its colliders, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub(crate) struct ColliderContactGpu {
    pub(crate) body: u32,
    /// The square root of its friction (`ColliderSurface::mix` multiplies two).
    pub(crate) friction_root: f32,
    pub(crate) restitution: f32,
    pub(crate) tangent_speed: f32,
}
const _: () = assert!(size_of::<ColliderContactGpu>() == 16);

/// The hash of the fresh pairs `bits` marks (a bit a pair of `pairs`, 32 to a word, the
/// low bit first): the wrapping sum over them of [`box_hash`] of the slot and the pair,
/// as `recycle_slots` sums it.
pub(crate) fn fresh_hash(bits: &[u32], pairs: &[[u32; 2]]) -> u32 {
    let mut sum = 0u32;
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let slot = w * 32 + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if let Some(&[a, b]) = pairs.get(slot) {
                sum = sum.wrapping_add(box_hash(slot as u32, [a, b, 0, 0]));
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::super::{HEAD_BYTES, RECYCLE_WGSL};
    use super::*;
    use crate::gpu::contact_input::ContactInputGpu;

    /// The size in bytes of struct `name` of `m`.
    fn struct_size(m: &naga::Module, name: &str) -> usize {
        let (_, ty) = (m.types.iter())
            .find(|(_, t)| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no struct {name}"));
        match ty.inner {
            naga::TypeInner::Struct { span, .. } => span as usize,
            _ => panic!("{name} is not a struct"),
        }
    }

    #[test]
    fn the_kept_records_and_params_match_their_mirrors() {
        let m = naga::front::wgsl::parse_str(RECYCLE_WGSL)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(RECYCLE_WGSL)));
        assert_eq!(struct_size(&m, "Kept"), size_of::<KeptGpu>());
        assert_eq!(
            struct_size(&m, "RecycleParams"),
            size_of::<RecycleParamsGpu>()
        );
        assert_eq!(
            struct_size(&m, "ContactInput"),
            size_of::<ContactInputGpu>()
        );
        let surface = struct_size(&m, "ColliderContact");
        assert_eq!(surface, size_of::<ColliderContactGpu>());
        // The head before the records: the hash and a pad word.
        let list = struct_size(&m, "KeptListIn");
        assert_eq!(list, HEAD_BYTES as usize + size_of::<KeptGpu>());
    }

    #[test]
    fn the_fresh_hash_sums_the_marked_slots_alone() {
        let pairs = [[0, 1], [0, 2], [1, 2], [3, 4], [5, 6]];
        // Slots 1 and 3 marked; bits past the pairs are ignored.
        let bits = [0b1000_1010];
        let sum = box_hash(1, [0, 2, 0, 0]).wrapping_add(box_hash(3, [3, 4, 0, 0]));
        assert_eq!(fresh_hash(&bits, &pairs), sum);
        assert_eq!(fresh_hash(&[0], &pairs), 0);
        // Another slot marked changes it.
        assert_ne!(fresh_hash(&[0b1001_1010], &pairs), sum);
    }
}
