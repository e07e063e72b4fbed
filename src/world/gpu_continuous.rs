//! What the GPU world's continuous stage and sleep (`gpu/world/continuous/`,
//! `shaders/continuous.wgsl`, `sleep.wgsl`) read of the world, in their layouts, and the
//! hash of what the host's own continuous stage moved, which the device's is held to.
//!
//! ```text
//! continuous_on_device: continuous collision on, and no bullet (a bullet's impacts push
//!     other dynamic bodies, an ordered sequence the device does not run)
//! continuous_bodies:    per body slot: centre of mass, extents, colliders, kind
//! continuous_pieces:    per collider slot: shape, next collider, sensor, filter, restitution
//! static_obstacles:     per position of the static list: the collider's pose, angle, box,
//!                       shape, filter, restitution and body (the angles, an atan2 each,
//!                       from static_angles, which change with static_revision alone)
//! sleep_records, joint_body_pairs, body_motion: the sleep's timers and labels, the joints'
//!                       bodies, the bodies' states and poses
//! continuous_shapes:    the shape table, then each shape's core, then each shape's probe
//!                       (a zeroed entry: none)
//! moved_hash:           the sum of moved_hash over the bodies the last step's continuous
//!                       stage moved, and their count
//! ```

use glam::Vec2;

use super::World;
use crate::dynamics::continuous::{core, probe};
use crate::dynamics::state::BodyState;
use crate::gpu::layout::ShapeGpu;
use crate::gpu::world::continuous::layout::{
    ContinuousBodyGpu, ContinuousColliderGpu, PIECE_SENSOR, SWEPT_BULLET, SWEPT_DYNAMIC,
    SWEPT_KINEMATIC, StaticObstacleGpu, moved_hash, words,
};
use crate::shapes::shape::Shape;

impl World {
    /// Whether the next step's continuous stage may run on the device: it is on, and no
    /// body is a bullet.
    pub(crate) fn continuous_on_device(&self) -> bool {
        self.settings.continuous && !self.bodies.records.iter().any(|b| b.is_bullet)
    }

    /// Each body slot's sleep timer and island label.
    pub(crate) fn sleep_records(&self) -> (&[f32], &[u32]) {
        (&self.sleep.timers, &self.sleep.islands)
    }

    /// Each joint slot's bodies (`[u32::MAX; 2]`: vacant).
    pub(crate) fn joint_body_pairs(&self) -> &[[u32; 2]] {
        self.joints.pair_list()
    }

    /// Each body slot's record for the stage, into `out` (replaced).
    pub(crate) fn continuous_bodies(&self, out: &mut Vec<ContinuousBodyGpu>) {
        out.clear();
        out.extend(self.bodies.records.iter().map(|b| {
            let flag = |on: bool, bit: u32| if on { bit } else { 0 };
            let flags = flag(b.is_dynamic(), SWEPT_DYNAMIC)
                | flag(b.is_bullet, SWEPT_BULLET)
                | flag(b.is_kinematic, SWEPT_KINEMATIC);
            ContinuousBodyGpu {
                local_center: b.local_center.to_array(),
                max_extent: b.max_extent,
                min_extent: b.min_extent,
                first_collider: b.first_collider,
                flags,
                collider_count: b.collider_count,
                inv_mass: b.inv_mass,
            }
        }));
    }

    /// Each collider slot's record as a swept piece, into `out` (replaced).
    pub(crate) fn continuous_pieces(&self, out: &mut Vec<ContinuousColliderGpu>) {
        let c = &self.colliders;
        out.clear();
        out.extend((0..c.records.len()).map(|k| ContinuousColliderGpu {
            shape: c.records[k].shape,
            next: c.next[k],
            flags: u32::from(c.sensors[k]) * PIECE_SENSOR,
            group: c.filters[k].group_index,
            category: words(c.filters[k].category_bits),
            mask: words(c.filters[k].mask_bits),
            restitution: c.surfaces[k].restitution,
            _pad: [0; 3],
        }));
    }

    /// The static list's revision: [`World::static_angles`] change with it alone (a
    /// static collider's pose and box do; its filter and material may change without it).
    pub(crate) fn static_revision(&self) -> u64 {
        self.colliders.static_revision
    }

    /// Each position of the static list's angle (`Transform::angle`), into `out` (replaced).
    pub(crate) fn static_angles(&self, out: &mut Vec<f32>) {
        let c = &self.colliders;
        out.clear();
        out.extend((c.statics.iter()).map(|&k| c.records[k as usize].transform.angle()));
    }

    /// Each position of the static list as an obstacle, with its angle from `angles`
    /// ([`World::static_angles`] at this static revision), into `out` (replaced).
    pub(crate) fn static_obstacles(&self, angles: &[f32], out: &mut Vec<StaticObstacleGpu>) {
        let c = &self.colliders;
        out.clear();
        out.extend(c.statics.iter().zip(angles).map(|(&k, &angle)| {
            let k = k as usize;
            let (record, aabb) = (&c.records[k], &c.aabbs[k]);
            StaticObstacleGpu {
                translation: record.transform.translation().to_array(),
                rotation: record.transform.rotation().to_array(),
                box_min: aabb.min.to_array(),
                box_max: aabb.max.to_array(),
                category: words(c.filters[k].category_bits),
                mask: words(c.filters[k].mask_bits),
                angle,
                shape: record.shape,
                body: self.names.collider_bodies[k],
                group: c.filters[k].group_index,
                restitution: c.surfaces[k].restitution,
                _pad: [0; 3],
            }
        }));
    }

    /// The world's shape table.
    pub(crate) fn shape_list(&self) -> &[Shape] {
        &self.shapes.list
    }

    /// Each body slot's velocity state, centre of mass and rotation.
    pub(crate) fn body_motion(&self) -> (&[BodyState], &[Vec2], &[Vec2]) {
        let b = &self.bodies;
        (&b.states, &b.centers, &b.rotations)
    }

    /// The sum of `moved_hash` over the bodies the last step's continuous stage moved, and
    /// how many it moved.
    pub(crate) fn moved_hash(&self) -> [u32; 2] {
        let b = &self.bodies;
        let moved = self.continuous_moved();
        let sum = moved.iter().fold(0u32, |sum, &i| {
            let (c, q) = (b.centers[i].to_array(), b.rotations[i].to_array());
            sum.wrapping_add(moved_hash(i, c, q, &b.states[i]))
        });
        [sum, moved.len() as u32]
    }
}

/// `shapes` as the stage's table, into `out` (replaced): each shape, then each shape's core,
/// then each shape's probe (`dynamics::continuous::core` and `probe`; zeroed, a count of 0,
/// where it has none).
pub(crate) fn continuous_shapes(shapes: &[Shape], out: &mut Vec<ShapeGpu>) {
    out.clear();
    out.extend(shapes.iter().map(ShapeGpu::from));
    let entry = |stand_in: Option<Shape>| match stand_in {
        Some(shape) => ShapeGpu::from(&shape),
        None => bytemuck::Zeroable::zeroed(),
    };
    out.extend(shapes.iter().map(|s| entry(core(s))));
    out.extend(shapes.iter().map(|s| entry(probe(s))));
}
