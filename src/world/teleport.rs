//! Teleporting a body: [`World::set_transform`].
//!
//! ```text
//! set_transform(body, position, angle):
//!     check (stale handle, position or angle not finite or out of range: an error, nothing
//!         changes)
//!     wake the body and the bodies its last contacts touched (they may lose their support)
//!     new pose; its colliders' poses and boxes at once (queries see it there), and the
//!         pair set tests its colliders again at the next step (parted pairs end there)
//!     wake the bodies whose boxes overlap it at its new place
//! ```
//!
//! A teleport is no motion: the continuous stage sweeps from where the next step starts,
//! so the body does not sweep across the jump, and its velocity is kept.

use glam::Vec2;

use super::World;
use super::limits::{MAX_COORDINATE, check, check_vec};
use crate::error::Error;
use crate::world::handle::BodyId;

impl World {
    /// Moves the body so that its local origin is at `position`, turned by `angle`
    /// (radians, counter-clockwise), as [`BodyDef::position`](crate::BodyDef::position) and
    /// [`BodyDef::angle`](crate::BodyDef::angle) place a new one. Queries find it there at
    /// once; the next step finds its contacts there (and ends those it left). Its velocity
    /// is kept. It wakes, and so do the bodies it touched and those it now overlaps. Works
    /// on any body, static ones included. A stale handle, or a position or angle that is
    /// not finite (or a position past [`MAX_COORDINATE`]), is an error naming it, and the
    /// body stays where it was.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World};
    /// let mut world = World::default();
    /// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))?;
    /// world.set_transform(crate_, Vec2::new(10.0, 2.0), 0.0)?;
    /// let hit = world.cast_ray(Vec2::new(10.0, 10.0), Vec2::new(0.0, -20.0));
    /// assert_eq!(hit.map(|(body, _)| body), Some(crate_));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn set_transform(&mut self, body: BodyId, position: Vec2, angle: f32) -> Result<(), Error> {
        let slot = self.body_slot(body)?;
        check_vec("position", position)?;
        for value in [position.x, position.y] {
            let ok = value.abs() <= MAX_COORDINATE;
            check(
                "position",
                value,
                ok,
                "at most MAX_COORDINATE (1e12) from the origin",
            )?;
        }
        check("angle", angle, angle.is_finite(), "finite")?;
        self.wake_touching(slot);
        let rotation = crate::math::from_angle(angle);
        let local_center = self.bodies.records[slot].local_center;
        self.bodies.centers[slot] =
            position + crate::shapes::transform::rotate(rotation, local_center);
        self.bodies.rotations[slot] = rotation;
        self.update_body_colliders(slot);
        let colliders: Vec<usize> = self.bodies.records[slot]
            .colliders(&self.colliders.next)
            .collect();
        for &c in &colliders {
            self.contacts.pairs.invalidate(c);
        }
        self.revision += 1;
        // What it lands on: a dynamic or moving kinematic body would wake it at the next
        // step anyway, a static one would not.
        // One pass over the boxes, not the query tree: the revision just moved, so the
        // tree would be rebuilt (n log n) at every teleport between two steps, as a scene
        // that builds ragdolls bone by bone does (rain: 8% of its step).
        let mut overlapped = Vec::new();
        for &c in &colliders {
            let moved = self.colliders.aabbs[c];
            for (other, aabb) in self.colliders.aabbs.iter().enumerate() {
                if aabb.overlaps(&moved) && self.colliders.slots.is_live(other) {
                    overlapped.push(self.names.collider_bodies[other]);
                }
            }
        }
        for other in overlapped {
            self.wake_slot(other as usize);
        }
        Ok(())
    }
}
