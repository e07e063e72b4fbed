//! Collision filtering: which colliders may touch at all, decided in the broad phase before
//! any narrow-phase work.
//!
//! ```text
//! should_collide(a, b):
//!     a.group == b.group != 0  -> group > 0        // a shared group always (> 0) or never (< 0)
//!     else a.mask & b.category != 0  and  b.mask & a.category != 0   // each accepts the other
//! ```
//!
//! This is the rule Box2D's filters follow (categories and masks of 64 bits, and a group
//! index that overrides them), so a scene's filters carry over unchanged. A pair the rule
//! rejects never becomes a persistent pair: it costs nothing past the broad phase.
//!
//! Before the filters, the bodies' types decide ([`types_pair`]): a dynamic body's
//! colliders pair with any body's; a kinematic or static body's only with a dynamic body's,
//! or, where one of the two colliders is a sensor, with a kinematic body's too.

/// The category every collider is in unless its filter says otherwise: bit 0.
pub const DEFAULT_CATEGORY: u64 = 1;

/// What a collider is and what it touches.
///
/// ```
/// # use wgpu_sat::{glam::Vec2, BodyDef, Filter, Polygon, World};
/// const PLAYER: u64 = 1 << 1;
/// const DEBRIS: u64 = 1 << 2;
/// let mut world = World::default();
/// // Debris touches everything but other debris.
/// let debris = Filter { category_bits: DEBRIS, mask_bits: !DEBRIS, group_index: 0 };
/// let a = world.add_body(&BodyDef { filter: debris, ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO) })?;
/// let b = world.add_body(&BodyDef { filter: debris, ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.2, 0.0)) })?;
/// world.step(1.0 / 60.0, &mut wgpu_sat::CpuNarrowPhase::new())?;
/// assert_eq!(world.contacts().len(), 0, "two pieces of debris pass through each other");
/// // From the next step on, `a` is a player, which debris does touch.
/// world.set_filter(a, Filter { category_bits: PLAYER, ..Filter::default() })?;
/// world.step(1.0 / 60.0, &mut wgpu_sat::CpuNarrowPhase::new())?;
/// assert_eq!(world.contacts().len(), 1);
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Filter {
    /// The categories the collider is in: one bit each, at least one.
    pub category_bits: u64,
    /// The categories it touches. Two colliders touch only when each one's mask holds one
    /// of the other's categories.
    pub mask_bits: u64,
    /// Colliders of one non-zero group always touch (a positive group) or never touch (a
    /// negative one), whatever their categories and masks: the pieces of a ragdoll, say, in
    /// one negative group. 0 is no group.
    pub group_index: i32,
}

impl Default for Filter {
    /// In [`DEFAULT_CATEGORY`], touching every category, in no group.
    fn default() -> Filter {
        Filter {
            category_bits: DEFAULT_CATEGORY,
            mask_bits: u64::MAX,
            group_index: 0,
        }
    }
}

impl Filter {
    /// Whether colliders with filters `self` and `other` may touch (see the module header).
    pub fn should_collide(&self, other: &Filter) -> bool {
        if self.group_index == other.group_index && self.group_index != 0 {
            return self.group_index > 0;
        }
        self.mask_bits & other.category_bits != 0 && other.mask_bits & self.category_bits != 0
    }
}

/// What moves a body (see [`BodyDef`](crate::BodyDef)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BodyType {
    /// Never moves: infinite mass, no velocity ([`BodyDef::fixed`](crate::BodyDef::fixed)).
    Static,
    /// Moves by its velocity alone: infinite mass
    /// ([`BodyDef::kinematic`](crate::BodyDef::kinematic)).
    Kinematic,
    /// Moved by gravity, forces and contacts: mass from its density.
    Dynamic,
}

/// Whether colliders of bodies of types `a` and `b` may pair, `sensor` when one of the two
/// is a sensor: one body dynamic, or a sensor on or against a kinematic body (a sensor
/// reports the kinematic bodies that enter it; two bodies that never move need no
/// contact). The world asks it of its bodies' records (`dynamics::body::bodies_pair`,
/// the same rule on the records' flags).
pub(crate) fn types_pair(a: BodyType, b: BodyType, sensor: bool) -> bool {
    use BodyType::{Dynamic, Kinematic};
    a == Dynamic || b == Dynamic || (sensor && (a == Kinematic || b == Kinematic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_and_masks_must_accept_each_other() {
        let a = Filter {
            category_bits: 0b01,
            mask_bits: 0b10,
            group_index: 0,
        };
        let b = Filter {
            category_bits: 0b10,
            mask_bits: 0b01,
            group_index: 0,
        };
        assert!(a.should_collide(&b) && b.should_collide(&a));
        // b no longer accepts a: neither way touches.
        let b_deaf = Filter { mask_bits: 0, ..b };
        assert!(!a.should_collide(&b_deaf) && !b_deaf.should_collide(&a));
        assert!(
            !a.should_collide(&a),
            "a's mask does not hold its own category"
        );
    }

    #[test]
    fn a_shared_group_overrides_the_masks() {
        let deaf = Filter {
            mask_bits: 0,
            group_index: 3,
            ..Filter::default()
        };
        assert!(
            deaf.should_collide(&deaf),
            "a positive group always touches"
        );
        let never = Filter {
            group_index: -3,
            ..Filter::default()
        };
        assert!(
            !never.should_collide(&never),
            "a negative group never touches"
        );
        // Different groups fall back to the masks.
        assert!(never.should_collide(&Filter::default()));
        assert!(!deaf.should_collide(&Filter::default()));
    }
}
