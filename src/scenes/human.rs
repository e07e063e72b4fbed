//! Box2D's ragdoll (its `shared/human.c`), built from the same numbers: eleven capsule
//! bones joined by ten revolute joints with limits, a friction motor (speed 0, a small
//! max torque, so the limbs do not flail) and, if asked, a spring towards the rest pose.
//!
//! ```text
//!            head            joints (pivot height, limits in units of π):
//!             |                hip–torso 1.0 (−0.25, 0)     torso–head 1.4 (−0.3, 0.1)
//!   arm ─── torso ─── arm      hip–upper leg 0.9 (−0.05, 0.4)
//!   arm       |       arm      upper–lower leg 0.625 (−0.5, −0.02)
//!            hip               torso–upper arm 1.35 (−0.1, 0.8)
//!          /     \             upper–lower arm 1.1 (−0.2, 0.3) about a rest angle of
//!        leg     leg             0.25 π (the forearm's relaxed bend)
//!        leg     leg           (heights times the scale, above the feet's position)
//!      foot       foot
//! ```
//!
//! Bones are dynamic capsules of density 1 and friction 0.2, in category 2 touching
//! categories 1 and 2, in the negative group of the ragdoll's group index (its bones never
//! touch each other); each lower leg carries a foot (a rounded quadrilateral of friction
//! 0.05) that touches category 1 only, so ragdolls do not trip on each other's feet. The
//! head and forearms have a linear damping of 0.1. Box2D gives every bone a sleep
//! threshold of 0.1 units per second; the world's sleep speed here is one for all bodies
//! ([`crate::world::SLEEP_SPEED`], 0.05), so a ragdoll sleeps a little later than Box2D's.

use glam::Vec2;

use crate::broad_phase::filter::Filter;
use crate::dynamics::joints::JointDef;
use crate::error::Error;
use crate::shapes::capsule::Capsule;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::world::handle::{BodyId, JointId};
use crate::world::{BodyDef, Material, World};

/// The bones of a [`Human`], in the order Box2D creates them (`human.h`'s `BoneId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bone {
    /// The root: the only bone without a joint to a parent.
    Hip,
    /// Jointed to the hip.
    Torso,
    /// Jointed to the torso.
    Head,
    /// Jointed to the hip.
    UpperLeftLeg,
    /// Jointed to the upper left leg; carries the left foot.
    LowerLeftLeg,
    /// Jointed to the hip.
    UpperRightLeg,
    /// Jointed to the upper right leg; carries the right foot.
    LowerRightLeg,
    /// Jointed to the torso.
    UpperLeftArm,
    /// Jointed to the upper left arm.
    LowerLeftArm,
    /// Jointed to the torso.
    UpperRightArm,
    /// Jointed to the upper right arm.
    LowerRightArm,
}

/// The number of bones of a [`Human`].
pub const BONES: usize = 11;

impl Bone {
    /// Every bone, in creation order (the order of [`Human::bodies`]).
    pub const ALL: [Bone; BONES] = [
        Bone::Hip,
        Bone::Torso,
        Bone::Head,
        Bone::UpperLeftLeg,
        Bone::LowerLeftLeg,
        Bone::UpperRightLeg,
        Bone::LowerRightLeg,
        Bone::UpperLeftArm,
        Bone::LowerLeftArm,
        Bone::UpperRightArm,
        Bone::LowerRightArm,
    ];
}

/// One bone's numbers (lengths in units of the scale, angles in units of π).
struct BoneSpec {
    parent: Option<Bone>,
    /// Height of the body's origin above the human's position.
    height: f32,
    /// The capsule's ends (on the bone's vertical axis, from its origin) and radius.
    capsule: [f32; 3],
    /// The joint to the parent: the pivot's height, the limits, the rest angle.
    pivot: f32,
    limits: [f32; 2],
    rest: f32,
    /// The share of the friction torque its joint's motor gets.
    friction_scale: f32,
    linear_damping: f32,
    foot: bool,
}

/// A bone without a parent, rest angle or foot: the base of [`SPECS`]' entries.
const BASE: BoneSpec = BoneSpec {
    parent: None,
    height: 0.0,
    capsule: [0.0; 3],
    pivot: 0.0,
    limits: [0.0; 2],
    rest: 0.0,
    friction_scale: 1.0,
    linear_damping: 0.0,
    foot: false,
};

const UPPER_LEG: BoneSpec = BoneSpec {
    parent: Some(Bone::Hip),
    height: 0.775,
    capsule: [-0.125, 0.125, 0.06],
    pivot: 0.9,
    limits: [-0.05, 0.4],
    ..BASE
};

const LOWER_LEG: BoneSpec = BoneSpec {
    height: 0.475,
    capsule: [-0.155, 0.125, 0.045],
    pivot: 0.625,
    limits: [-0.5, -0.02],
    friction_scale: 0.5,
    foot: true,
    ..BASE
};

const UPPER_ARM: BoneSpec = BoneSpec {
    parent: Some(Bone::Torso),
    height: 1.225,
    capsule: [-0.125, 0.125, 0.035],
    pivot: 1.35,
    limits: [-0.1, 0.8],
    friction_scale: 0.5,
    ..BASE
};

const LOWER_ARM: BoneSpec = BoneSpec {
    height: 0.975,
    capsule: [-0.125, 0.125, 0.03],
    pivot: 1.1,
    limits: [-0.2, 0.3],
    rest: 0.25,
    friction_scale: 0.1,
    linear_damping: 0.1,
    ..BASE
};

/// Box2D's numbers, bone by bone, in [`Bone::ALL`]'s order.
const SPECS: [BoneSpec; BONES] = [
    BoneSpec {
        height: 0.95,
        capsule: [-0.02, 0.02, 0.095],
        ..BASE
    },
    BoneSpec {
        parent: Some(Bone::Hip),
        height: 1.2,
        capsule: [-0.135, 0.135, 0.09],
        pivot: 1.0,
        limits: [-0.25, 0.0],
        friction_scale: 0.5,
        ..BASE
    },
    BoneSpec {
        parent: Some(Bone::Torso),
        height: 1.475,
        capsule: [-0.038, 0.039, 0.075],
        pivot: 1.4,
        limits: [-0.3, 0.1],
        friction_scale: 0.25,
        linear_damping: 0.1,
        ..BASE
    },
    UPPER_LEG,
    BoneSpec {
        parent: Some(Bone::UpperLeftLeg),
        ..LOWER_LEG
    },
    UPPER_LEG,
    BoneSpec {
        parent: Some(Bone::UpperRightLeg),
        ..LOWER_LEG
    },
    UPPER_ARM,
    BoneSpec {
        parent: Some(Bone::UpperLeftArm),
        ..LOWER_ARM
    },
    UPPER_ARM,
    BoneSpec {
        parent: Some(Bone::UpperRightArm),
        ..LOWER_ARM
    },
];

/// A ragdoll made by [`human`]: its bodies and joints, by [`Bone`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Human {
    /// Each bone's body, in [`Bone::ALL`]'s order.
    pub bodies: [BodyId; BONES],
    /// Each bone's joint to its parent (`None` for the hip), in [`Bone::ALL`]'s order.
    pub joints: [Option<JointId>; BONES],
}

impl Human {
    /// The body of `bone`.
    pub fn body(&self, bone: Bone) -> BodyId {
        self.bodies[bone as usize]
    }

    /// The joint of `bone` to its parent (`None` for the hip).
    pub fn joint(&self, bone: Bone) -> Option<JointId> {
        self.joints[bone as usize]
    }
}

/// Adds Box2D's ragdoll to `world`, standing with its feet at `position`, `scale` times
/// Box2D's size (1: about 1.6 units tall). Every joint's motor holds against turning with
/// at most its bone's share of `friction_torque` times `scale` (Box2D's joint friction;
/// 0: none), and when `hertz` is above 0 a spring of `hertz` and `damping_ratio` pulls it
/// towards the rest pose. The bones are in the negative group `-group` (Box2D's group
/// index, 1 or more, one per ragdoll that must not touch itself: ragdolls of one group do
/// not touch each other either). Bodies and joints are added in Box2D's order (the hip
/// first, see [`Bone::ALL`]).
///
/// Errors (from [`World::add_body`] and [`World::add_joint`]): a scale that is not finite
/// and positive, a position out of range, a negative torque, hertz or damping ratio.
/// Bones already added stay in the world when a later one fails.
///
/// ```
/// # use wgpu_sat::{glam::Vec2, scenes::{human, Bone}, World};
/// let mut world = World::default();
/// let ragdoll = human(&mut world, Vec2::new(0.0, 2.0), 1.0, 0.05, 5.0, 0.5, 1)?;
/// assert_eq!(world.body_count(), 11);
/// assert_eq!(world.joint_count(), 10);
/// assert!(ragdoll.joint(Bone::Hip).is_none());
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn human(
    world: &mut World,
    position: Vec2,
    scale: f32,
    friction_torque: f32,
    hertz: f32,
    damping_ratio: f32,
    group: i32,
) -> Result<Human, Error> {
    let s = scale;
    let filter = Filter {
        category_bits: 2,
        mask_bits: 1 | 2,
        group_index: -group,
    };
    let foot_filter = Filter {
        mask_bits: 1,
        ..filter
    };
    let foot_corners = [
        Vec2::new(-0.03, -0.185),
        Vec2::new(0.11, -0.185),
        Vec2::new(0.11, -0.16),
        Vec2::new(-0.03, -0.14),
    ]
    .map(|p| s * p);
    let foot = Polygon::convex_hull(&foot_corners)?.with_radius(0.015 * s)?;
    let foot_material = Material {
        friction: 0.05,
        ..Material::default()
    };

    let mut bodies: Vec<BodyId> = Vec::with_capacity(BONES);
    let mut joints = [None; BONES];
    for (k, spec) in SPECS.iter().enumerate() {
        let [y0, y1, radius] = spec.capsule.map(|v| s * v);
        let capsule = Capsule::new(Vec2::new(0.0, y0), Vec2::new(0.0, y1), radius)?;
        let mut pieces = vec![Shape::Capsule(capsule)];
        if spec.foot {
            pieces.push(Shape::Polygon(foot));
        }
        let origin = position + Vec2::new(0.0, s * spec.height);
        let pivot = position + Vec2::new(0.0, s * spec.pivot);
        let rest = spec.rest * std::f32::consts::PI;
        // Box2D's joint takes a rest angle; ours takes the bodies' relative angle when it
        // is added. A bone with a rest angle is added turned by it about its pivot, joined,
        // then set upright, where Box2D builds it (the joint then holds the turn as rest).
        let turned = origin - pivot;
        let (sin, cos) = crate::math::sin_cos(rest);
        let turned = pivot
            + Vec2::new(
                cos * turned.x - sin * turned.y,
                sin * turned.x + cos * turned.y,
            );
        let def = BodyDef {
            friction: 0.2,
            linear_damping: spec.linear_damping,
            filter,
            angle: rest,
            piece_materials: if spec.foot {
                vec![(1, foot_material)]
            } else {
                Vec::new()
            },
            ..BodyDef::dynamic(
                crate::shapes::body_shape::BodyShape::compound(pieces)?,
                turned,
            )
        };
        let body = world.add_body(&def)?;
        if spec.foot {
            let foot = world.body_colliders(body).nth(1);
            if let Some(collider) = foot {
                world.set_collider_filter(collider, foot_filter)?;
            }
        }
        bodies.push(body);
        if let Some(parent) = spec.parent {
            let [lower, upper] = spec.limits.map(|v| v * std::f32::consts::PI);
            let mut joint = JointDef::revolute(bodies[parent as usize], body, pivot)
                .with_limits(lower, upper)
                .with_motor(0.0, spec.friction_scale * friction_torque * s);
            if hertz > 0.0 {
                joint = joint.with_spring(hertz, damping_ratio);
            }
            joints[k] = Some(world.add_joint(&joint)?);
        }
        if rest != 0.0 {
            world.set_transform(body, origin, 0.0)?;
        }
    }
    let mut ids = [bodies[0]; BONES];
    ids.copy_from_slice(&bodies);
    Ok(Human {
        bodies: ids,
        joints,
    })
}

/// Removes a ragdoll [`human`] added: its joints, then its bodies (as Box2D's
/// `DestroyHuman`). A bone already removed is an error naming it, and the bones before it
/// are gone.
pub fn remove_human(world: &mut World, human: &Human) -> Result<(), Error> {
    for joint in human.joints.iter().flatten() {
        world.remove_joint(*joint)?;
    }
    for &body in &human.bodies {
        world.remove_body(body)?;
    }
    Ok(())
}
