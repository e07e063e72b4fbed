//! Dragging a body with the mouse, physically: a mouse joint from a ground body to the
//! grabbed point, whose target follows the cursor.
//!
//! ```text
//! grab(world, point):    the dynamic body under the point (World::body_at); the ground is
//!                        the first static body, else any other body (the mouse joint's A
//!                        takes no force); JointDef::mouse(ground, body, point), its pull
//!                        at most DRAG_FORCE_PER_MASS × the body's mass
//! move_to(world, point): World::set_joint_target (only when the target moved, so a body
//!                        held still may fall asleep)
//! release(world):        World::remove_joint; the body keeps its velocity (a throw)
//! ```
//!
//! The pull is a spring of 5 hertz and damping ratio 0.7 (the mouse joint's defaults, as
//! Box2D's samples use): the body lags the cursor a little, pushes what is in its way
//! rather than passing through it, and a force bounded by its own weight times 100 (at a
//! gravity of 10) cannot fling a light body through a wall or lift a pile at once.

use glam::Vec2;

use crate::dynamics::joints::JointDef;
use crate::error::Error;
use crate::world::World;
use crate::world::handle::{BodyId, JointId};

/// The most force a drag pulls with, per unit of the dragged body's mass (Box2D's samples'
/// 1000): an acceleration of 1000 units per second squared, a hundred times gravity.
pub const DRAG_FORCE_PER_MASS: f32 = 1000.0;

/// A body held by the mouse: the mouse joint and what it joins. Made by
/// [`MouseDrag::grab`]; moved by [`MouseDrag::move_to`]; ended by [`MouseDrag::release`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MouseDrag {
    joint: JointId,
    body: BodyId,
    target: Vec2,
}

impl MouseDrag {
    /// Grabs the dynamic body under `point` (world frame) with a mouse joint whose target is
    /// `point`, pulling with at most [`DRAG_FORCE_PER_MASS`] times the body's mass.
    /// `None` over empty space, a static or kinematic body, or in a world where the body is
    /// alone (there is no other body to name as the joint's ground). An error only for a
    /// point that is not finite or beyond the world's coordinate limit.
    pub fn grab(world: &mut World, point: Vec2) -> Result<Option<MouseDrag>, Error> {
        let Some(body) = super::dynamic_body_at(world, point) else {
            return Ok(None);
        };
        // The ground takes no force from a mouse joint; a static one also keeps the
        // dragged body out of any other body's sleep island.
        let ground = world
            .bodies()
            .find(|&b| world.is_static(b))
            .or_else(|| world.bodies().find(|&b| b != body));
        let Some(ground) = ground else {
            return Ok(None);
        };
        let def = JointDef::mouse(ground, body, point)
            .with_max_force(DRAG_FORCE_PER_MASS * world.mass(body));
        let joint = world.add_joint(&def)?;
        Ok(Some(MouseDrag {
            joint,
            body,
            target: point,
        }))
    }

    /// Moves the target to `point` (world frame), waking the body; nothing when the
    /// target is already there. An error for a point that is not finite or out of range,
    /// or when the joint is gone (its body was removed).
    pub fn move_to(&mut self, world: &mut World, point: Vec2) -> Result<(), Error> {
        if point == self.target {
            return Ok(());
        }
        world.set_joint_target(self.joint, point)?;
        self.target = point;
        Ok(())
    }

    /// Lets go: removes the joint; the body keeps the velocity the pull gave it. Removing
    /// the body (or rebuilding the world) already removed the joint: that is no error.
    pub fn release(self, world: &mut World) {
        // A stale handle means the joint is gone already, which is what was asked.
        let _ = world.remove_joint(self.joint);
    }

    /// The body held.
    pub fn body(&self) -> BodyId {
        self.body
    }

    /// The mouse joint.
    pub fn joint(&self) -> JointId {
        self.joint
    }

    /// Where the body is pulled to, world frame.
    pub fn target(&self) -> Vec2 {
        self.target
    }
}
