//! A body's static record ([`Body`]): what the world, the solver, the continuous stage and
//! sleeping keep per body slot. It lies below the world, so that those stages take body
//! data from here and know nothing of `World`.
//!
//! A body's colliders are a list through the collider slots (`first_collider`, then each
//! slot's `next` entry), in the order of the pieces it was made of: slots freed by removed
//! bodies are reused one by one, so a body's colliders need not be neighbours.

use glam::Vec2;

use crate::broad_phase::filter::BodyType;

/// The end of a body's list of colliders.
pub(crate) const NO_COLLIDER: u32 = u32::MAX;

/// Static properties of a body.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    /// Its first collider slot (`NO_COLLIDER` for none: a removed body); `next` (per
    /// collider slot) leads to the others.
    pub first_collider: u32,
    pub collider_count: u32,
    /// Centre of mass in the local frame.
    pub local_center: Vec2,
    /// A static body never moves. A removed body's slot is static too, with no collider,
    /// until a new body takes it: every stage passes it over as it passes a wall.
    pub is_static: bool,
    /// A kinematic body moves by the velocity it is given and nothing else: infinite mass
    /// (inverse mass and inertia 0), no gravity, never pushed. Never also static.
    pub is_kinematic: bool,
    pub is_bullet: bool,
    /// The body does not turn: its solver inverse inertia is 0 (`BodyMaterial`).
    pub fixed_rotation: bool,
    /// Farthest point of the body from its centre of mass.
    pub max_extent: f32,
    /// Thickness scale of its thinnest piece (see `BodyShape::min_extent`).
    pub min_extent: f32,
    /// Inverse mass and rotational inertia, 0 for a static or kinematic body. The solver's state holds
    /// them too, and 0 while the body sleeps; these restore them when it wakes.
    pub inv_mass: f32,
    pub inv_inertia: f32,
}

impl Body {
    /// What a removed body's slot holds until it is reused.
    pub fn vacant() -> Body {
        Body {
            first_collider: NO_COLLIDER,
            collider_count: 0,
            local_center: Vec2::ZERO,
            is_static: true,
            is_kinematic: false,
            is_bullet: false,
            fixed_rotation: false,
            max_extent: 0.0,
            min_extent: 0.0,
            inv_mass: 0.0,
            inv_inertia: 0.0,
        }
    }

    /// Whether contacts and gravity move it: neither static nor kinematic.
    pub fn is_dynamic(&self) -> bool {
        !self.is_static && !self.is_kinematic
    }

    /// Its type, from its flags.
    pub fn body_type(&self) -> BodyType {
        if self.is_static {
            BodyType::Static
        } else if self.is_kinematic {
            BodyType::Kinematic
        } else {
            BodyType::Dynamic
        }
    }

    /// Its collider slots, in piece order, following `next` (per collider slot).
    pub fn colliders<'a>(&self, next: &'a [u32]) -> BodyColliders<'a> {
        BodyColliders::new(next, self.first_collider, self.collider_count)
    }
}

/// Whether colliders of bodies `a` and `b` (two bodies) make a pair, `sensor` telling
/// whether either collider is a sensor. A contact needs a body that contacts move: static
/// and kinematic bodies push nothing of each other (as two static bodies make no pair).
/// A sensor also sees a kinematic body from a static or kinematic one (a trigger zone sees
/// a moving platform); two static bodies never pair. `filter::types_pair`'s rule, on the
/// records' flags (the broad phase's hot loop asks it; a test holds the two to each other).
#[inline]
pub(crate) fn bodies_pair(a: &Body, b: &Body, sensor: bool) -> bool {
    a.is_dynamic() || b.is_dynamic() || (sensor && (a.is_kinematic || b.is_kinematic))
}

/// A body's collider slots: see [`Body::colliders`].
#[derive(Clone, Debug)]
pub(crate) struct BodyColliders<'a> {
    next: &'a [u32],
    at: u32,
    left: usize,
}

impl<'a> BodyColliders<'a> {
    /// The list of `count` slots from `first`, through `next`.
    pub fn new(next: &'a [u32], first: u32, count: u32) -> Self {
        BodyColliders {
            next,
            at: first,
            left: count as usize,
        }
    }
}

impl Iterator for BodyColliders<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        let at = self.at as usize;
        self.left -= 1;
        self.at = self.next[at];
        Some(at)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for BodyColliders<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad_phase::filter::types_pair;

    /// `bodies_pair` on the records' flags is `types_pair` on their types, for every two
    /// types, with a sensor and without.
    #[test]
    fn bodies_pair_is_the_filters_rule() {
        let of = |t: BodyType| Body {
            is_static: t == BodyType::Static,
            is_kinematic: t == BodyType::Kinematic,
            ..Body::vacant()
        };
        let types = [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic];
        let mut pairs = 0;
        for a in types {
            for b in types {
                for sensor in [false, true] {
                    let (ra, rb) = (of(a), of(b));
                    assert_eq!(ra.body_type(), a);
                    let expected = types_pair(a, b, sensor);
                    assert_eq!(
                        bodies_pair(&ra, &rb, sensor),
                        expected,
                        "{a:?} {b:?} {sensor}"
                    );
                    pairs += usize::from(expected);
                }
            }
        }
        // Dynamic with anything (5 of 9 type pairs, twice), and a sensor's kinematic pairs
        // (static-kinematic both ways, kinematic-kinematic).
        assert_eq!(pairs, 13);
    }
}
