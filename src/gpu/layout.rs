//! `#[repr(C)]` mirrors of the storage and uniform structs of `shaders/sat.wgsl` and
//! `shaders/toi.wgsl`.
//!
//! Each struct matches its WGSL twin byte for byte (WGSL's alignment rules: `vec2<f32>`
//! aligns to 8, a struct to its largest member); the padding is spelled out and a
//! compile-time assert pins every size.

use bytemuck::{Pod, Zeroable};

use crate::collision::manifold::{ContactPoint, Manifold};
use crate::collision::toi::{Sweep, SweptCollider, TimeOfImpact, reduced_start_angle};
use crate::query::ray::RayHit;
use crate::shapes::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// WGSL `Shape`: one shape of the table, in its local frame. A polygon has `count` 3 to 8;
/// a circle has `count` 1, its centre in every vertex slot, zero normals and its radius in
/// `radius`. Capsules, segments and rounded polygons ([`KIND_ROUNDED`]) and chain links
/// ([`KIND_CHAIN`]) are a core of 2 to 8 vertices and the `rounding` radius; a chain link
/// holds its ghost vertices in vertex slots 2 and 3.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ShapeGpu {
    /// Counter-clockwise vertices; entries past `count` repeat vertex 0.
    pub vertices: [[f32; 2]; MAX_POLYGON_VERTICES],
    /// Outward unit edge normals; entries past `count` repeat normal 0.
    pub normals: [[f32; 2]; MAX_POLYGON_VERTICES],
    /// Number of vertices, 3 to 8; 1 for a circle.
    pub count: u32,
    /// A polygon's centroid-to-vertex radius (it scales the reference-face tie tolerance),
    /// or a circle's radius.
    pub radius: f32,
    /// The rounding radius of the rounded narrow phase (0 for a sharp polygon or a
    /// segment; a circle's radius).
    pub rounding: f32,
    /// Which narrow phase: [`KIND_SHARP`], [`KIND_ROUNDED`] or [`KIND_CHAIN`].
    pub kind: u32,
}
const _: () = assert!(size_of::<ShapeGpu>() == 144);

/// [`ShapeGpu::kind`] of a sharp polygon or a circle: the polygon kernel path.
pub const KIND_SHARP: u32 = 0;
/// [`ShapeGpu::kind`] of a capsule, a segment or a rounded polygon: a core and a radius.
pub const KIND_ROUNDED: u32 = 1;
/// [`ShapeGpu::kind`] of a chain link: a segment with its ghost vertices.
pub const KIND_CHAIN: u32 = 2;

impl From<&Polygon> for ShapeGpu {
    /// The polygon as stored, unused slots repeating vertex 0 and normal 0 (see the note at
    /// the top of `sat.wgsl`).
    fn from(polygon: &Polygon) -> Self {
        let (vertices, normals, count) = polygon.raw();
        ShapeGpu {
            vertices: vertices.map(|v| v.to_array()),
            normals: normals.map(|n| n.to_array()),
            count: count as u32,
            radius: polygon.bounding_radius(),
            rounding: polygon.radius(),
            kind: if polygon.radius() > 0.0 {
                KIND_ROUNDED
            } else {
                KIND_SHARP
            },
        }
    }
}

impl From<&Shape> for ShapeGpu {
    fn from(shape: &Shape) -> Self {
        match shape {
            Shape::Polygon(polygon) => ShapeGpu::from(polygon),
            Shape::Circle(circle) => ShapeGpu {
                vertices: [circle.center().to_array(); MAX_POLYGON_VERTICES],
                normals: [[0.0; 2]; MAX_POLYGON_VERTICES],
                count: 1,
                radius: circle.radius(),
                rounding: circle.radius(),
                kind: KIND_SHARP,
            },
            Shape::Capsule(_) | Shape::Segment(_) | Shape::ChainSegment(_) => {
                let core = shape.rounded();
                let mut vertices = core.vertices.map(|v| v.to_array());
                let mut kind = KIND_ROUNDED;
                if let Shape::ChainSegment(link) = shape {
                    vertices[2] = link.ghost_a().to_array();
                    vertices[3] = link.ghost_b().to_array();
                    kind = KIND_CHAIN;
                }
                ShapeGpu {
                    vertices,
                    normals: core.normals.map(|n| n.to_array()),
                    count: core.count as u32,
                    // Half the length, as `Rounded::segment` computes it, so that the
                    // kernel's `radius + rounding` is the CPU's `scale` to the bit (the
                    // tolerances are relative to it).
                    radius: crate::collision::rounded::half_length(
                        core.vertices[0],
                        core.vertices[1],
                    ),
                    rounding: core.radius,
                    kind,
                }
            }
        }
    }
}

/// WGSL `Pose`: a collider's transform, 16 bytes, the only per-collider upload of a step.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PoseGpu {
    /// World position of the local origin.
    pub translation: [f32; 2],
    /// `(cos, sin)` of the angle, exactly as [`Transform::rotation`] holds them, so both
    /// narrow phases rotate with the same numbers.
    pub rotation: [f32; 2],
}
const _: () = assert!(size_of::<PoseGpu>() == 16);

impl From<&Transform> for PoseGpu {
    fn from(t: &Transform) -> Self {
        PoseGpu {
            translation: t.translation().to_array(),
            rotation: t.rotation().to_array(),
        }
    }
}

/// WGSL `Params`, the uniform of one dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ParamsGpu {
    /// Pairs in this dispatch.
    pub pair_count: u32,
    /// Word offset of the first pair in the `indices` buffer; the words before it hold the
    /// shape index of each collider, so it equals the collider count.
    pub pair_offset: u32,
    /// Records the `contacts` buffer can hold.
    pub contact_capacity: u32,
    /// The speculative distance (`NarrowPhase::set_speculative_distance`), world units.
    pub speculative_distance: f32,
}
const _: () = assert!(size_of::<ParamsGpu>() == 16);

/// WGSL `ContactPointOut`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContactPointGpu {
    /// World-frame point.
    pub point: [f32; 2],
    /// Penetration at the point, positive.
    pub depth: f32,
    /// Feature id, as [`ContactPoint::id`]; [`NO_POINT`] marks an unused second slot.
    pub id: u32,
}
const _: () = assert!(size_of::<ContactPointGpu>() == 16);

/// The id of an unused contact point slot.
pub const NO_POINT: u32 = u32::MAX;

/// Set in the first word of an uploaded pair (in the `indices` buffer, after the collider
/// shape ids) that was given circle first and is written polygon first: the kernel tests a
/// circle against a polygon in the polygon's frame, as the CPU does, and flips the result
/// back. Collider indices stay far below this bit (a binding holds fewer than 2^31 poses).
pub const SWAPPED: u32 = 1 << 31;

/// WGSL `ContactOut`: one overlapping pair, 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContactGpu {
    /// Unit normal from A to B, world frame.
    pub normal: [f32; 2],
    /// Depth of the minimum translation vector.
    pub depth: f32,
    /// Index of the pair within its dispatch.
    pub pair: u32,
    /// One or two points; the second's id is [`NO_POINT`] when there is one.
    pub points: [ContactPointGpu; 2],
}
const _: () = assert!(size_of::<ContactGpu>() == 48);

impl ContactGpu {
    /// The manifold this record holds.
    pub fn manifold(&self) -> Manifold {
        let point = |p: &ContactPointGpu| ContactPoint {
            point: p.point.into(),
            depth: p.depth,
            id: p.id,
        };
        let points = [point(&self.points[0]), point(&self.points[1])];
        let count = if self.points[1].id == NO_POINT { 1 } else { 2 };
        Manifold::new(self.normal.into(), self.depth, &points[..count])
    }
}

/// WGSL `Contacts` header: the number of records appended, before the records themselves.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContactsHeaderGpu {
    /// Records written by the last dispatch.
    pub count: u32,
    /// Padding: keeps the records 16-byte aligned, as WGSL lays out `array<ContactOut>`
    /// after a 4-byte `atomic<u32>` (the records align to 8; 16 keeps copies tidy).
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<ContactsHeaderGpu>() == 16);

/// WGSL `Sweep` (`shaders/toi.wgsl`): a body's motion over one step, as [`Sweep`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SweepGpu {
    /// Centre of rotation in the local frame.
    pub local_center: [f32; 2],
    /// World position of the centre at `t = 0`.
    pub c0: [f32; 2],
    /// World position of the centre at `t = 1`.
    pub c1: [f32; 2],
    /// Angle at `t = 0`, radians.
    pub a0: f32,
    /// Angle at `t = 1`, radians (not wrapped).
    pub a1: f32,
}
const _: () = assert!(size_of::<SweepGpu>() == 32);

impl From<&Sweep> for SweepGpu {
    fn from(s: &Sweep) -> Self {
        // The start angle reduced here, exactly as the CPU's `Sweep::shifted` does: the
        // kernel's sin and cos are not accurate far outside [-pi, pi] (see
        // `reduced_start_angle`); the kernel's own `shifted` then leaves it as it is.
        let (a0, a1) = reduced_start_angle(s.a0, s.a1);
        SweepGpu {
            local_center: s.local_center.to_array(),
            c0: s.c0.to_array(),
            c1: s.c1.to_array(),
            a0,
            a1,
        }
    }
}

/// WGSL `SweptCollider`: a shape index and its sweep, 40 bytes per body of a
/// time-of-impact batch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SweptColliderGpu {
    /// The motion.
    pub sweep: SweepGpu,
    /// Index into the shape table.
    pub shape: u32,
    /// Padding to the struct's 8-byte alignment.
    pub _pad: u32,
}
const _: () = assert!(size_of::<SweptColliderGpu>() == 40);

impl From<&SweptCollider> for SweptColliderGpu {
    fn from(c: &SweptCollider) -> Self {
        SweptColliderGpu {
            sweep: SweepGpu::from(&c.sweep),
            shape: c.shape,
            _pad: 0,
        }
    }
}

/// The `t` of a [`TimeOfImpactGpu`] record whose pair does not hit.
pub const NO_HIT: f32 = -1.0;

/// WGSL `TimeOfImpactOut`: the result of one pair, a fixed 16-byte record per pair, in
/// pair order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct TimeOfImpactGpu {
    /// Unit normal from A to B at `t`, world frame.
    pub normal: [f32; 2],
    /// Fraction of the step, or [`NO_HIT`] when the pair does not hit.
    pub t: f32,
    /// Distance between the shapes at `t` (negative: overlapping at `t = 0`).
    pub separation: f32,
}
const _: () = assert!(size_of::<TimeOfImpactGpu>() == 16);

impl TimeOfImpactGpu {
    /// The result this record holds.
    pub fn time_of_impact(&self) -> Option<TimeOfImpact> {
        (self.t >= 0.0).then(|| TimeOfImpact {
            t: self.t,
            normal: self.normal.into(),
            separation: self.separation,
        })
    }
}

/// WGSL `ToiParams`, the uniform of one time-of-impact dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ToiParamsGpu {
    /// Pairs in this dispatch.
    pub pair_count: u32,
    /// Always 0: the flag of `keep()` (`shaders/transform.wgsl`), which the kernel cannot
    /// know, so that the driver fuses no product into a sum and the kernel rounds as the
    /// CPU does.
    pub never: u32,
    /// Padding to 16 bytes, the smallest uniform binding.
    pub _pad: [u32; 2],
}
const _: () = assert!(size_of::<ToiParamsGpu>() == 16);

/// The `fraction` of a [`RayHitGpu`] record whose pair does not hit.
pub const NO_RAY_HIT: f32 = -1.0;

/// WGSL `RayPair` (`shaders/ray.wgsl`): one (ray, collider) pair of a ray batch, the ray
/// inline and the collider's shape index beside its pose index, 24 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RayPairGpu {
    /// The ray's start, world frame.
    pub origin: [f32; 2],
    /// The ray's translation (its end minus its start), world frame.
    pub translation: [f32; 2],
    /// The collider: an index into the poses.
    pub collider: u32,
    /// The collider's shape: an index into the shape table.
    pub shape: u32,
}
const _: () = assert!(size_of::<RayPairGpu>() == 24);

/// WGSL `RayHitOut`: the result of one pair, a fixed 16-byte record per pair, in pair
/// order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RayHitGpu {
    /// The shape's outward unit normal at the hit, world frame.
    pub normal: [f32; 2],
    /// The fraction of the ray, or [`NO_RAY_HIT`].
    pub fraction: f32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}
const _: () = assert!(size_of::<RayHitGpu>() == 16);

impl RayHitGpu {
    /// The hit this record holds for the ray from `origin` along `translation`: the point
    /// is computed here, as `cast_ray` computes it.
    pub fn hit(&self, origin: glam::Vec2, translation: glam::Vec2) -> Option<RayHit> {
        (self.fraction >= 0.0).then(|| RayHit {
            fraction: self.fraction,
            point: origin + self.fraction * translation,
            normal: self.normal.into(),
        })
    }
}

/// WGSL `RayParams`, the uniform of one ray dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RayParamsGpu {
    /// Pairs in this dispatch.
    pub pair_count: u32,
    /// Padding to 16 bytes, the smallest uniform binding.
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<RayParamsGpu>() == 16);

/// A box of the GPU broad phase (`shaders/sort_sweep.wgsl`, a `vec4<f32>`): the world-frame
/// corners of an [`Aabb`](crate::Aabb).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct AabbGpu {
    /// Lower-left corner.
    pub min: [f32; 2],
    /// Upper-right corner.
    pub max: [f32; 2],
}
const _: () = assert!(size_of::<AabbGpu>() == 16);

impl From<&crate::shapes::aabb::Aabb> for AabbGpu {
    fn from(b: &crate::shapes::aabb::Aabb) -> Self {
        AabbGpu {
            min: b.min.to_array(),
            max: b.max.to_array(),
        }
    }
}

/// WGSL `ColliderUpdate` (`shaders/scatter.wgsl`): one collider whose pose, box or shape
/// changed since the device last had it, 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ColliderUpdateGpu {
    /// The collider's index.
    pub index: u32,
    /// Its shape's index in the table.
    pub shape: u32,
    /// Padding: the pose starts 16-byte aligned, as WGSL lays out a `vec4`.
    pub _pad: [u32; 2],
    /// Its pose.
    pub pose: PoseGpu,
    /// Its box (grown by half the speculative distance).
    pub aabb: AabbGpu,
}
const _: () = assert!(size_of::<ColliderUpdateGpu>() == 48);

/// WGSL `ScatterParams` (`shaders/scatter.wgsl`): how many updates a dispatch applies.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ScatterParamsGpu {
    /// Updates in the batch.
    pub count: u32,
    /// Padding to WGSL's 16-byte uniform size.
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<ScatterParamsGpu>() == 16);

/// WGSL `PlaceParams` (`shaders/place.wgsl`): the colliders placed from their bodies'
/// transforms on the device, in the GPU world's collision stage.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PlaceParamsGpu {
    /// Colliders.
    pub count: u32,
    /// Always 0: the flag of the WGSL's `keep()`, which the compiler cannot know.
    pub never: u32,
    /// Half the speculative distance (`0.5 * margin`, as the host computes it).
    pub half_margin: f32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}
const _: () = assert!(size_of::<PlaceParamsGpu>() == 16);

/// The owner of a collider that `place.wgsl` does not place (`UNPLACED` there): the host
/// sends its pose (a removed collider keeps its last).
pub const UNPLACED: u32 = u32::MAX;

/// WGSL `ScanParams` (`shaders/scan.wgsl`), the uniform of one scan dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ScanParamsGpu {
    /// Counts in this level.
    pub len: u32,
    /// Padding to 16 bytes, the smallest uniform binding.
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<ScanParamsGpu>() == 16);

/// WGSL `RadixParams` (`shaders/radix_sort.wgsl`), the uniform of one radix pass dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RadixParamsGpu {
    /// Items sorted.
    pub len: u32,
    /// The digit's lowest bit.
    pub shift: u32,
    /// Tiles of 256 items: the stride of the digit-major counts.
    pub tiles: u32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}
const _: () = assert!(size_of::<RadixParamsGpu>() == 16);

/// WGSL `SweepParams` (`shaders/sort_sweep.wgsl`), the uniform of one sweep dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SweepParamsGpu {
    /// Boxes, or pairs for `pair_keys` and `gather_pairs`.
    pub len: u32,
    /// `pair_keys`: the key: 0 the first box, 1 the second, 2 both (first above second).
    pub side: u32,
    /// `pair_keys`: 1 when item `k` names pair `k`.
    pub first: u32,
    /// `pair_keys`: bits of a box index.
    pub bits: u32,
    /// The y bands (`Bands` of `src/broad_phase/sweep.rs`): the height of band 0's
    /// bottom, world frame.
    pub origin: f32,
    /// One over a band's height.
    pub inv_height: f32,
    /// How many bands there are.
    pub band_count: u32,
    /// `band_entries`: how many entries there are.
    pub entry_count: u32,
    /// Room for pairs: `sweep_write` writes none past it, and the pair passes take the
    /// first `min(total, capacity)` pairs.
    pub capacity: u32,
    /// `pair_args`: the most workgroups a dispatch has in one dimension (the device's
    /// limit); the narrow phase's dispatch takes rows of them past that.
    pub row_groups: u32,
    /// Padding to WGSL's 16-byte struct size.
    pub _pad: [u32; 2],
}
const _: () = assert!(size_of::<SweepParamsGpu>() == 48);

/// WGSL `PairDispatch` (`shaders/sort_sweep.wgsl`): what `pair_args` writes, the narrow
/// phase's indirect dispatch over the pairs the sweep found.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PairDispatchGpu {
    /// Workgroups of the narrow phase, as `dispatch_workgroups_indirect` reads them: one
    /// row, or rows of the most a dimension takes.
    pub workgroups: [u32; 3],
    /// The pairs it takes: the total, within the room.
    pub pairs: u32,
    /// The sweep's total: above the room, the call runs again with more.
    pub total: u32,
    /// The band entries the device's boxes span (`entry_total`): the host sized the
    /// sweep for its own count, and a device that placed the boxes itself (the GPU
    /// world's colliders) must have found as many.
    pub entries: u32,
    /// Over the GPU world's pair set, with the fresh pairs decided on the device: the
    /// hash of those it found (`gpu/collision/recycle/`), for the host to hold to its
    /// own; else 0.
    pub fresh_hash: u32,
    /// Then the hash of the world's contact list's manifolds merged on the device
    /// (`gpu/collision/recycle/`), for the host to hold to its own list's; else 0.
    pub merge_hash: u32,
    /// Then the hash of their warm starts matched on the device from the last step's
    /// contacts (`gpu/collision/recycle/`), for the host to hold to its own match's; else
    /// 0.
    pub warm_hash: u32,
    /// Padding to the struct's 16-byte alignment (its `vec3` workgroups').
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<PairDispatchGpu>() == 48);

/// WGSL `PairFilter` (`shaders/pair_set.wgsl`): a collider's filter for the persistent
/// pairs, 32 bytes. The 64-bit category and mask are split into (low, high) words: WGSL has
/// no 64-bit integers.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PairFilterGpu {
    /// `Filter::category_bits`, low word first.
    pub category: [u32; 2],
    /// `Filter::mask_bits`, low word first.
    pub mask: [u32; 2],
    /// `Filter::group_index`.
    pub group: i32,
    /// The body: colliders of one body never pair.
    pub body: u32,
    /// The body's type and the sensor flag: [`PAIR_DYNAMIC`], [`PAIR_KINEMATIC`] (neither:
    /// static), [`PAIR_SENSOR`].
    pub kind: u32,
    /// Padding to the struct's 8-byte alignment.
    pub _pad: u32,
}
const _: () = assert!(size_of::<PairFilterGpu>() == 32);

/// [`PairFilterGpu::kind`]: the body is dynamic.
pub const PAIR_DYNAMIC: u32 = 1;
/// [`PairFilterGpu::kind`]: the body is kinematic.
pub const PAIR_KINEMATIC: u32 = 2;
/// [`PairFilterGpu::kind`]: the collider is a sensor.
pub const PAIR_SENSOR: u32 = 4;

impl From<&crate::broad_phase::PairFilter> for PairFilterGpu {
    fn from(f: &crate::broad_phase::PairFilter) -> Self {
        let words = |bits: u64| [bits as u32, (bits >> 32) as u32];
        PairFilterGpu {
            category: words(f.filter.category_bits),
            mask: words(f.filter.mask_bits),
            group: f.filter.group_index,
            body: f.body,
            kind: match f.body_type {
                crate::BodyType::Dynamic => PAIR_DYNAMIC,
                crate::BodyType::Kinematic => PAIR_KINEMATIC,
                crate::BodyType::Static => 0,
            } | if f.sensor { PAIR_SENSOR } else { 0 },
            _pad: 0,
        }
    }
}

/// WGSL `FatUpdate` (`shaders/pair_set.wgsl`): a fat box that changed since the device last
/// had it, 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FatUpdateGpu {
    /// The collider.
    pub index: u32,
    /// Padding: the box is 16-byte aligned.
    pub _pad: [u32; 3],
    /// Its fat box.
    pub aabb: AabbGpu,
}
const _: () = assert!(size_of::<FatUpdateGpu>() == 32);

/// WGSL `PairSetParams` (`shaders/pair_set.wgsl`), the uniform of one persistent-pairs
/// dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct PairSetParamsGpu {
    /// Items the dispatch takes.
    pub len: u32,
    /// `change_flags`: pairs in the old set.
    pub old_count: u32,
    /// `change_flags`: how many pairs the sweep found (the new set's size is the keep
    /// flags' scan at that index).
    pub found: u32,
    /// `change_flags`: 0 the new set against the old, 1 the old against the new.
    pub side: u32,
    /// `keep_flags`: the kept-apart body pairs.
    pub apart: u32,
    /// Padding to 32 bytes (a uniform's size is a multiple of 16).
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<PairSetParamsGpu>() == 32);

/// WGSL `LbvhParams` (`shaders/lbvh.wgsl`), the uniform of one LBVH dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct LbvhParamsGpu {
    /// Boxes (leaves).
    pub len: u32,
    /// Padding: `low` is 8-byte aligned.
    pub _pad0: u32,
    /// The lowest box centre, world frame.
    pub low: [f32; 2],
    /// Morton steps per world unit on each axis.
    pub scale: [f32; 2],
    /// Padding to WGSL's 16-byte struct size.
    pub _pad1: [u32; 2],
}
const _: () = assert!(size_of::<LbvhParamsGpu>() == 32);

/// WGSL `Node` (`shaders/lbvh.wgsl`): a node of the LBVH, 16 bytes. An internal node's
/// children (node indices) and leaf range; a leaf's box index (in `left` and `right`) and
/// its sorted position (as `first` and `last`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct LbvhNodeGpu {
    /// The left child, or a leaf's box.
    pub left: u32,
    /// The right child, or a leaf's box.
    pub right: u32,
    /// The first leaf (sorted position) under the node.
    pub first: u32,
    /// The last leaf under the node.
    pub last: u32,
}
const _: () = assert!(size_of::<LbvhNodeGpu>() == 16);

/// WGSL `BodyTransform` (`shaders/solver.wgsl`): what a host draws a [`GpuWorld`]'s body
/// with, one per body slot in [`GpuWorld::transforms`]: a point `local` of the body's frame
/// (the frame its shapes are given in) is at `rotate(rotation, local) + origin` in the world,
/// with `rotation = (cos angle, sin angle)`, as [`World::transform`](crate::World::transform)
/// gives it. A removed body's slot keeps its last transform.
///
/// [`GpuWorld`]: crate::gpu::GpuWorld
/// [`GpuWorld::transforms`]: crate::gpu::GpuWorld::transforms
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyTransformGpu {
    /// World frame: where the body's frame origin is.
    pub origin: [f32; 2],
    /// `(cos, sin)` of the body's angle.
    pub rotation: [f32; 2],
}
const _: () = assert!(size_of::<BodyTransformGpu>() == 16);

impl From<&Transform> for BodyTransformGpu {
    fn from(t: &Transform) -> Self {
        BodyTransformGpu {
            origin: t.translation().to_array(),
            rotation: t.rotation().to_array(),
        }
    }
}
