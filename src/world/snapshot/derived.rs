//! What the snapshot computes rather than stores, when the computation gives the stored
//! bits: the writer compares, and flags or predicts; the reader computes the same. Both
//! sides call the functions here, so that the two computations cannot drift apart.
//!
//! ```text
//! mass data  derived_mass(b): from the body's pieces and densities, as add_body computes
//!            it; written only when it differs (a flag), remembered per shape entry for
//!            one-piece bodies (MassMemo: scenes draw bodies from a small palette)
//! kept pose  relative_pose(pair): B's collider pose in A's collider frame now; a kept
//!            manifold's pose is written as its floats' differences from it
//! floats     transform_floats, box_floats: the order in which a predicted pose's or box's
//!            floats are written
//! ```

use glam::Vec2;

use crate::dynamics::body::Body;
use crate::shapes::aabb::Aabb;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::shape::Shape;
use crate::shapes::transform::{Transform, inv_mul_transforms};
use crate::world::World;

/// A body's mass data from its pieces, before its kind decides the inverse masses.
#[derive(Clone, Copy)]
struct PieceMass {
    local_center: Vec2,
    mass: f32,
    inertia: f32,
    max_extent: f32,
    min_extent: f32,
}

/// The mass data of one-piece bodies by shape entry: per entry the density (its bits) it
/// was computed for and the result (`None`: no body shape).
#[derive(Default)]
pub(super) struct MassMemo {
    entries: Vec<Option<(u32, Option<PieceMass>)>>,
}

impl World {
    /// The mass data of body `b` as its pieces and densities give it (what `add_body`
    /// computes): local centre, inverse mass and inertia, max and min extent; `None` when
    /// its pieces make no body shape. A body of one piece takes it from `memo` when a body
    /// of the same shape entry and density came before (scenes draw their bodies from a
    /// small palette: the computation is then once per entry, not once per body).
    pub(super) fn derived_mass(&self, b: usize, memo: &mut MassMemo) -> Option<Body> {
        let body = &self.bodies.records[b];
        let single = (body.collider_count == 1).then(|| {
            let c = body.first_collider as usize;
            (
                self.colliders.records[c].shape as usize,
                self.colliders.densities[c].to_bits(),
            )
        });
        let cached = single.and_then(|(shape, density)| {
            memo.entries
                .get(shape)
                .copied()
                .flatten()
                .filter(|e| e.0 == density)
        });
        let mass = match cached {
            Some((_, mass)) => mass,
            None => {
                let mass = self.piece_mass(b);
                if let Some((shape, density)) = single {
                    if memo.entries.len() <= shape {
                        memo.entries.resize(shape + 1, None);
                    }
                    memo.entries[shape] = Some((density, mass));
                }
                mass
            }
        }?;
        let dynamic = body.is_dynamic();
        Some(Body {
            local_center: mass.local_center,
            inv_mass: if dynamic { 1.0 / mass.mass } else { 0.0 },
            inv_inertia: if dynamic { 1.0 / mass.inertia } else { 0.0 },
            max_extent: mass.max_extent,
            min_extent: mass.min_extent,
            ..body.clone()
        })
    }

    /// [`World::derived_mass`] before the body's kind makes it inverse masses.
    fn piece_mass(&self, b: usize) -> Option<PieceMass> {
        let body = &self.bodies.records[b];
        let (mass, max_extent) = self.body_mass(b);
        let pieces: Vec<Shape> = body
            .colliders(&self.colliders.next)
            .map(|c| self.shapes.list[self.colliders.records[c].shape as usize])
            .collect();
        let min_extent = BodyShape::compound(pieces).ok()?.min_extent();
        Some(PieceMass {
            local_center: if mass.center.is_finite() {
                mass.center
            } else {
                Vec2::ZERO
            },
            mass: mass.mass,
            inertia: mass.inertia,
            max_extent,
            min_extent,
        })
    }

    /// B's collider pose in A's collider frame now: what a kept manifold's pose is
    /// written against. A vacant collider's pose counts as the identity (the reader does
    /// not restore it: nothing reads it).
    pub(super) fn relative_pose(&self, pair: [u32; 2]) -> Transform {
        let [a, b] = pair.map(|c| {
            let c = c as usize;
            if self.colliders.slots.is_live(c) {
                self.colliders.records[c].transform
            } else {
                Transform::IDENTITY
            }
        });
        inv_mul_transforms(&a, &b)
    }
}

/// A pose's floats in the order a snapshot writes them: translation, then rotation.
pub(super) fn transform_floats(t: &Transform) -> [f32; 4] {
    let (p, r) = (t.translation(), t.rotation());
    [p.x, p.y, r.x, r.y]
}

/// A box's floats in the order a snapshot writes them: min, then max.
pub(super) fn box_floats(b: &Aabb) -> [f32; 4] {
    [b.min.x, b.min.y, b.max.x, b.max.y]
}
