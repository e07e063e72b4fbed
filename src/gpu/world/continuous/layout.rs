//! `#[repr(C)]` mirrors of `shaders/continuous.wgsl`'s structs, each pinned to its WGSL
//! size (the test below compares them with naga's), and the hash of the bodies the stage
//! moved, which the host computes over its own to check the device's.

use bytemuck::{Pod, Zeroable};

use crate::broad_phase::sort_sweep::box_hash;
use crate::dynamics::state::BodyState;

/// WGSL `ContinuousBody`: what the stage reads of a body (the host's, sent when it
/// changes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct ContinuousBodyGpu {
    /// The centre of mass in the body's frame.
    pub local_center: [f32; 2],
    /// `Body::max_extent` and `Body::min_extent`: the farthest point from the centre, and
    /// the thinnest piece's thickness scale.
    pub max_extent: f32,
    pub min_extent: f32,
    /// The body's first collider and how many it has; the others follow by
    /// [`ContinuousColliderGpu::next`], in the host's order (`Body::colliders`).
    pub first_collider: u32,
    /// [`SWEPT_DYNAMIC`], [`SWEPT_BULLET`], [`SWEPT_KINEMATIC`].
    pub flags: u32,
    pub collider_count: u32,
    /// `Body::inv_mass`: the solver's state takes it back when the body wakes (the sleep's).
    pub inv_mass: f32,
}
const _: () = assert!(size_of::<ContinuousBodyGpu>() == 32);

/// [`ContinuousBodyGpu::flags`]: a dynamic body (the others are never swept).
pub(crate) const SWEPT_DYNAMIC: u32 = 1;
/// [`ContinuousBodyGpu::flags`]: a bullet (a world with one is swept on the host).
pub(crate) const SWEPT_BULLET: u32 = 2;
/// [`ContinuousBodyGpu::flags`]: a kinematic body (its timer keeps islands awake: the
/// sleep's).
pub(crate) const SWEPT_KINEMATIC: u32 = 4;

/// WGSL `ContinuousCollider`: a collider as a swept piece: its shape, the next collider of
/// its body, whether it is a sensor, its filter and restitution.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct ContinuousColliderGpu {
    pub shape: u32,
    pub next: u32,
    /// [`PIECE_SENSOR`].
    pub flags: u32,
    pub group: i32,
    /// `Filter::category_bits` and `mask_bits`, as (low, high) words.
    pub category: [u32; 2],
    pub mask: [u32; 2],
    pub restitution: f32,
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<ContinuousColliderGpu>() == 48);

/// [`ContinuousColliderGpu::flags`]: a sensor, never swept.
pub(crate) const PIECE_SENSOR: u32 = 1;

/// WGSL `StaticObstacle`: the collider at one position of the world's static list, at its
/// pose (the collider's transform, and its angle as `Transform::angle` gives it: the sweep
/// that holds it still), with its box, filter, restitution and body.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct StaticObstacleGpu {
    pub translation: [f32; 2],
    pub rotation: [f32; 2],
    pub box_min: [f32; 2],
    pub box_max: [f32; 2],
    pub category: [u32; 2],
    pub mask: [u32; 2],
    pub angle: f32,
    pub shape: u32,
    pub body: u32,
    pub group: i32,
    pub restitution: f32,
    pub _pad: [u32; 3],
}
const _: () = assert!(size_of::<StaticObstacleGpu>() == 80);

/// A filter's 64-bit words as two `u32` (low, high): WGSL has no 64-bit integer.
pub(crate) fn words(bits: u64) -> [u32; 2] {
    [bits as u32, (bits >> 32) as u32]
}

/// WGSL `SweptBody`: the stage's record of a body, written and read by its kernels alone
/// (the host makes room for it and reads none of it).
pub(crate) const SWEPT_BODY_BYTES: usize = 120;

/// WGSL `ContinuousParams`: the uniform of the stage's dispatches.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct ContinuousParamsGpu {
    pub bodies: u32,
    /// Positions of the static list.
    pub statics: u32,
    /// Shapes in the table (their cores follow them there, then their probes).
    pub shapes: u32,
    /// Always 0: `keep()`'s flag (`shaders/transform.wgsl`).
    pub never: u32,
}
const _: () = assert!(size_of::<ContinuousParamsGpu>() == 16);

/// What `hash_moved` sums for body `i`, moved by the stage: its pose, then its velocity
/// and inverse mass, each as [`box_hash`] words (integer sums commute: the same in any
/// order).
pub(crate) fn moved_hash(i: usize, center: [f32; 2], rotation: [f32; 2], s: &BodyState) -> u32 {
    let i = i as u32;
    let pose = [center[0], center[1], rotation[0], rotation[1]].map(f32::to_bits);
    let velocity = [
        s.linear_velocity.x,
        s.linear_velocity.y,
        s.angular_velocity,
        s.inv_mass,
    ]
    .map(f32::to_bits);
    box_hash(2 * i, pose).wrapping_add(box_hash(2 * i + 1, velocity))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::world::wgsl_checks::{literals, struct_size, validated};

    #[test]
    fn the_mirrors_are_the_size_of_their_wgsl_structs() {
        let m = validated(super::super::CONTINUOUS_WGSL);
        for (name, size) in [
            ("ContinuousBody", size_of::<ContinuousBodyGpu>()),
            ("ContinuousCollider", size_of::<ContinuousColliderGpu>()),
            ("StaticObstacle", size_of::<StaticObstacleGpu>()),
            ("SweptBody", SWEPT_BODY_BYTES),
            ("ContinuousParams", size_of::<ContinuousParamsGpu>()),
            ("BodyState", size_of::<BodyState>()),
            ("SleepBody", size_of::<super::super::sleep::SleepGpu>()),
            (
                "SleepParams",
                size_of::<super::super::sleep::SleepParamsGpu>(),
            ),
        ] {
            assert_eq!(struct_size(&m, name), size, "{name}");
        }
    }

    #[test]
    fn the_wgsl_constants_are_the_hosts() {
        use crate::dynamics::continuous::{FAST_FRACTION, IMPACT_OVERLAP};
        use crate::dynamics::state::RESTITUTION_THRESHOLD;
        let m = validated(super::super::CONTINUOUS_WGSL);
        for (name, value) in [
            ("FAST_FRACTION", FAST_FRACTION),
            ("IMPACT_OVERLAP", IMPACT_OVERLAP),
            ("RESTITUTION_THRESHOLD", RESTITUTION_THRESHOLD),
        ] {
            assert_eq!(literals(&m, name), [naga::Literal::F32(value)], "{name}");
        }
        // The sleep's label of an awake body, which the wake writes and hashes.
        let awake = naga::Literal::U32(crate::dynamics::sleep::AWAKE);
        assert_eq!(literals(&m, "AWAKE"), [awake]);
    }

    #[test]
    fn the_collision_filter_is_defined_once_and_shared() {
        // filter.wgsl holds Filter::should_collide; the stages that filter pairs include it.
        for (file, source) in [
            (
                "pair_set.wgsl",
                include_str!("../../../../shaders/pair_set.wgsl"),
            ),
            (
                "continuous.wgsl",
                include_str!("../../../../shaders/continuous.wgsl"),
            ),
        ] {
            assert!(
                !source.contains("fn should_collide("),
                "{file} defines should_collide; it belongs in filter.wgsl"
            );
        }
        let filter = include_str!("../../../../shaders/filter.wgsl");
        let shared = [crate::gpu::PAIR_SET_WGSL, super::super::CONTINUOUS_WGSL];
        assert!(shared.iter().all(|source| source.contains(filter)));
    }
}
