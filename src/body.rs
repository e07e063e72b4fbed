//! A body's static record ([`Body`]): what the world, the solver, the continuous stage and
//! sleeping keep per body. It lies below the world, so that those stages take body data
//! from here and know nothing of `World`.

use std::ops::Range;

use glam::Vec2;

/// Static properties of a body.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    /// Its colliders: `colliders[first_collider..first_collider + collider_count]`.
    pub first_collider: u32,
    pub collider_count: u32,
    /// Centre of mass in the local frame.
    pub local_center: Vec2,
    pub is_static: bool,
    pub is_bullet: bool,
    /// Farthest point of the body from its centre of mass.
    pub max_extent: f32,
    /// Thickness scale of its thinnest piece (see `BodyShape::min_extent`).
    pub min_extent: f32,
    /// Inverse mass and rotational inertia, 0 for a static body. The solver's state holds
    /// them too, and 0 while the body sleeps; these restore them when it wakes.
    pub inv_mass: f32,
    pub inv_inertia: f32,
}

impl Body {
    pub fn colliders(&self) -> Range<usize> {
        self.first_collider as usize..(self.first_collider + self.collider_count) as usize
    }
}
