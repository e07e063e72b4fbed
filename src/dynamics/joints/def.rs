//! Joints: constraints between two bodies, described by a [`JointDef`] and added with
//! [`World::add_joint`](crate::World::add_joint).
//!
//! ```text
//! JointDef::revolute(a, b, world_anchor)        one point shared by both bodies; B turns
//!     .with_limits(lower, upper)                about it relative to A, within limits, driven
//!     .with_motor(speed, max_torque)            by a motor, or pulled back to the angle it
//!     .with_spring(hertz, damping_ratio)        had when added by an angular spring
//! JointDef::distance(a, b, anchor_a, anchor_b)  the anchors' distance held at its value when
//!     .with_limits(min, max)                    added (rigid), or free within [min, max] (a
//!     .with_spring(hertz, damping_ratio)        rope: min 0), or pulled towards it by a spring
//!                                               (and held within the limits)
//! JointDef::prismatic(a, b, anchor, axis)       B slides along the axis (fixed in A), does not
//!     .with_limits / with_motor / with_spring   turn; limits, motor (force) and spring on the
//!                                               translation
//! JointDef::wheel(a, b, anchor, axis)           B slides along the axis and turns freely: the
//!     .with_spring / with_motor / with_limits   spring is its suspension, the motor turns it
//! JointDef::filter(a, b)                        no constraint: a and b do not collide
//! JointDef::motor(a, b)                         B's centre and angle driven towards a target
//!     .with_max_force / with_max_torque         pose relative to A (World::set_motor_target)
//! JointDef::weld(a, b, world_anchor)            B held at its pose relative to A, rigidly or
//!     .with_weld_springs(linear_hz, angular_hz,   through springs (0 hertz: rigid)
//!                        damping_ratio)
//! JointDef::mouse(ground, body, target)         the body's point at `target` pulled towards
//!     .with_spring(hertz, damping_ratio)        the target (World::set_joint_target) by a
//!     .with_max_force(force)                    spring (5 Hz, 0.7 by default), with at most
//!                                               the max force; the ground takes no force
//! any kind: .collide_connected(bool)            off by default: joined bodies do not collide
//! ```
//!
//! Frames: a definition takes its anchors in the world frame, as the bodies stand when the
//! joint is added; the world keeps them in each body's local frame from then on, and the
//! revolute joint's angle is B's angle relative to A minus the relative angle they had
//! when it was added (counter-clockwise positive). Units: radians, radians per second,
//! torques in force times length.

use glam::Vec2;

use crate::world::handle::BodyId;
pub use crate::world::handle::JointId;

/// A spring of a joint: its frequency (hertz, 0 or more: 0 means no spring force) and its
/// damping ratio (0 or more: 1 is critical damping).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JointSpring {
    /// Hertz.
    pub hertz: f32,
    /// 1 is critical.
    pub damping_ratio: f32,
}

/// A joint's motor: the relative speed it drives (radians per second for a revolute or wheel
/// joint, at most [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED) in magnitude; units
/// per second along a prismatic joint's axis, at most
/// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT)) and the most torque (or
/// force) it may apply to reach it, 0 or more (infinity: no bound).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JointMotor {
    /// The target relative speed.
    pub speed: f32,
    /// The largest torque (or force) the motor may apply, 0 or more (infinity: no bound).
    pub max_torque: f32,
}

/// What kind of joint a [`JointDef`] makes, with its kind's own geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum JointKind {
    /// A pin: the anchor points of both bodies coincide.
    Revolute,
    /// The anchor points keep their distance (or a distance within the limits).
    Distance {
        /// B's anchor, world frame, when the joint is added (A's is the definition's
        /// anchor).
        anchor_b: Vec2,
    },
    /// B keeps its pose relative to A: the anchors coincide and the relative angle stays.
    Weld {
        /// The stiffness of the anchors' hold, hertz: 0 is rigid.
        linear_hertz: f32,
        /// The stiffness of the angle's hold, hertz: 0 is rigid.
        angular_hertz: f32,
        /// The damping ratio of both springs (when soft).
        damping_ratio: f32,
    },
    /// B slides along an axis fixed in A (through the anchor) and does not turn relative
    /// to A; translation limits, a motor (speed along the axis, max force) and a spring.
    Prismatic {
        /// The axis, world frame as the bodies stand when the joint is added (any length
        /// but 0).
        axis: Vec2,
    },
    /// A wheel on a suspension: B's anchor slides along an axis fixed in A and B turns
    /// freely; the spring is the suspension (along the axis), the motor turns the wheel.
    Wheel {
        /// The suspension's axis, world frame when added (any length but 0).
        axis: Vec2,
    },
    /// No constraint: the joint only keeps its two bodies from colliding.
    Filter,
    /// B's centre of mass driven towards a point of A's frame and B's angle relative to A
    /// towards a target (at first, where they stand; see
    /// [`World::set_motor_target`](crate::World::set_motor_target)), with at most the max
    /// force and torque.
    Motor,
    /// B's point at the anchor is pulled towards a target point of the world (the anchor
    /// at first; see [`World::set_joint_target`](crate::World::set_joint_target)); A (a
    /// ground body, say) takes no force.
    Mouse,
}

/// How to make a joint: its two bodies, its kind and anchor, and its options. Build one with
/// [`JointDef::revolute`] or [`JointDef::distance`], then the `with_*` methods; give it to
/// [`World::add_joint`](crate::World::add_joint), which checks it.
///
/// ```
/// # use wgpu_sat::{glam::Vec2, BodyDef, JointDef, Polygon, World};
/// let mut world = World::default();
/// let ground = world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
/// let arm = world.add_body(&BodyDef::dynamic(Polygon::rectangle(1.0, 0.1), Vec2::new(1.0, 3.0)))?;
/// let hinge = JointDef::revolute(ground, arm, Vec2::new(0.0, 3.0))
///     .with_limits(-0.5, 0.5)
///     .with_motor(1.0, 50.0);
/// world.add_joint(&hinge)?;
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JointDef {
    /// The two bodies (distinct; either may be static or kinematic, not both).
    pub bodies: [BodyId; 2],
    /// The anchor, world frame: the pin of a revolute joint, A's end of a distance joint.
    pub anchor: Vec2,
    /// The kind, and its geometry.
    pub kind: JointKind,
    /// Whether the two bodies still collide with each other (false by default).
    pub collide_connected: bool,
    /// Lower and upper limits (lower at most upper): angles of a revolute joint (radians,
    /// within [-π, π]); lengths of a distance joint (0 to
    /// [`MAX_JOINT_LENGTH`](crate::world::MAX_JOINT_LENGTH)); translations of a prismatic or
    /// wheel joint (at most `MAX_JOINT_LENGTH` in magnitude). `None`: no limits.
    pub limits: Option<[f32; 2]>,
    /// The motor, if any (revolute, prismatic and wheel joints; see [`JointMotor`] for its
    /// ranges).
    pub motor: Option<JointMotor>,
    /// The spring, if any: hertz and damping ratio finite and 0 or more.
    pub spring: Option<JointSpring>,
    /// The most force the joint may apply (the mouse joint's pull, the motor joint's
    /// drive), 0 or more; `None` (or infinity): no bound. However large, the solver holds
    /// the joint's impulse to [`MAX_IMPULSE`](crate::world::MAX_IMPULSE).
    pub max_force: Option<f32>,
    /// The most torque the motor joint may apply, 0 or more; `None` (or infinity): no
    /// bound.
    pub max_torque: Option<f32>,
    /// The joint breaks (is removed, and reported in
    /// [`Events::joint_broken`](crate::Events::joint_broken)) after a step whose
    /// constraint force, or torque, was larger than these (0 or more); `None` (or
    /// infinity): unbreakable.
    pub break_force: Option<f32>,
    /// See `break_force`.
    pub break_torque: Option<f32>,
}

/// A live joint's geometry in its bodies' local frames, as the world keeps it
/// ([`World::joint_frame`](crate::World::joint_frame)): what a [`JointDef`]'s world-frame
/// anchors became when the joint was added, and what rebuilding the joint elsewhere (in
/// another engine, say) needs once the bodies have moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointFrame {
    /// A's anchor in A's local frame, B's in B's.
    pub local_anchors: [Vec2; 2],
    /// B's angle relative to A at which the joint's angle is 0 (revolute, weld,
    /// prismatic, and the motor joint's target); 0 for the other kinds.
    pub reference_angle: f32,
    /// The prismatic and wheel joints' axis, unit, in A's local frame; `Vec2::X` for the
    /// other kinds.
    pub local_axis: Vec2,
    /// The distance joint's rest length; 0 for the other kinds.
    pub length: f32,
}

/// A joint that broke in the last step: its force or torque passed its threshold
/// ([`JointDef::with_break_force`], [`JointDef::with_break_torque`]), and the step removed
/// it. Its handle is stale by now, and still compares equal to the one
/// [`World::add_joint`](crate::World::add_joint) returned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointBroken {
    /// The joint.
    pub joint: JointId,
    /// Its bodies, A then B.
    pub bodies: [BodyId; 2],
    /// Its constraint force on B in the step it broke, world frame.
    pub force: Vec2,
    /// Its constraint torque on B in that step.
    pub torque: f32,
}

impl JointDef {
    fn new(a: BodyId, b: BodyId, anchor: Vec2, kind: JointKind) -> JointDef {
        JointDef {
            bodies: [a, b],
            anchor,
            kind,
            collide_connected: false,
            limits: None,
            motor: None,
            spring: None,
            max_force: None,
            max_torque: None,
            break_force: None,
            break_torque: None,
        }
    }

    /// A revolute joint (a pin) between `a` and `b` at `world_anchor`: both bodies keep that
    /// point of theirs in the same place, and turn freely about it unless limited, driven or
    /// sprung.
    pub fn revolute(a: BodyId, b: BodyId, world_anchor: Vec2) -> JointDef {
        JointDef::new(a, b, world_anchor, JointKind::Revolute)
    }

    /// A distance joint between `a`'s point `world_anchor_a` and `b`'s point
    /// `world_anchor_b`: their distance when the joint is added is its rest length, held
    /// rigidly unless the joint gets limits or a spring.
    pub fn distance(a: BodyId, b: BodyId, world_anchor_a: Vec2, world_anchor_b: Vec2) -> JointDef {
        let kind = JointKind::Distance {
            anchor_b: world_anchor_b,
        };
        JointDef::new(a, b, world_anchor_a, kind)
    }

    /// A weld joint: B held at its pose relative to A (as they stand when it is added),
    /// about `world_anchor`; rigid unless given springs ([`JointDef::with_weld_springs`]).
    pub fn weld(a: BodyId, b: BodyId, world_anchor: Vec2) -> JointDef {
        let kind = JointKind::Weld {
            linear_hertz: 0.0,
            angular_hertz: 0.0,
            damping_ratio: 0.0,
        };
        JointDef::new(a, b, world_anchor, kind)
    }

    /// A prismatic joint: B slides along `world_axis` (world frame, any length but 0)
    /// through `world_anchor`, and keeps its angle relative to A. Its translation (B's
    /// anchor along the axis from A's) is 0 when added; limits, a motor (speed along the
    /// axis, and max force in place of torque) and a spring act on it.
    pub fn prismatic(a: BodyId, b: BodyId, world_anchor: Vec2, world_axis: Vec2) -> JointDef {
        let kind = JointKind::Prismatic { axis: world_axis };
        JointDef::new(a, b, world_anchor, kind)
    }

    /// A wheel joint: B (the wheel) at `world_anchor` slides along `world_axis` fixed in A
    /// (the car) and turns freely. `with_spring` is the suspension along the axis,
    /// `with_limits` its travel, `with_motor` drives the wheel's spin relative to A.
    pub fn wheel(a: BodyId, b: BodyId, world_anchor: Vec2, world_axis: Vec2) -> JointDef {
        let kind = JointKind::Wheel { axis: world_axis };
        JointDef::new(a, b, world_anchor, kind)
    }

    /// A motor joint: drives B's centre of mass towards a point fixed in A's frame, and
    /// B's angle relative to A towards a target angle, closing a fraction of the gap per
    /// substep with at most [`JointDef::with_max_force`] and
    /// [`JointDef::with_max_torque`]. The targets are where B stands when the joint is
    /// added; [`World::set_motor_target`](crate::World::set_motor_target) moves them.
    pub fn motor(a: BodyId, b: BodyId) -> JointDef {
        JointDef::new(a, b, Vec2::ZERO, JointKind::Motor)
    }

    /// The most torque the motor joint may apply, 0 or more.
    pub fn with_max_torque(mut self, torque: f32) -> JointDef {
        self.max_torque = Some(torque);
        self
    }

    /// A filter joint: no constraint, only keeps `a` and `b` from colliding.
    pub fn filter(a: BodyId, b: BodyId) -> JointDef {
        JointDef::new(a, b, Vec2::ZERO, JointKind::Filter)
    }

    /// A mouse joint: `body`'s point at `target` (world frame) pulled towards the target
    /// by a spring of 5 hertz and damping ratio 0.7 (change them with
    /// [`JointDef::with_spring`]), with at most [`JointDef::with_max_force`]. `ground` (any
    /// other body, a static one say) takes no force: it only names the joint's other end,
    /// and still collides with `body` (unlike other joints' bodies, by default).
    pub fn mouse(ground: BodyId, body: BodyId, target: Vec2) -> JointDef {
        // The ground is usually what the body rests on: the two still collide.
        JointDef::new(ground, body, target, JointKind::Mouse)
            .with_spring(5.0, 0.7)
            .collide_connected(true)
    }

    /// Makes a weld joint soft: its anchors held by a spring of `linear_hertz`, its angle
    /// by one of `angular_hertz` (0 for either: rigid), both of `damping_ratio`. (No
    /// effect on other kinds.)
    pub fn with_weld_springs(
        mut self,
        linear_hertz: f32,
        angular_hertz: f32,
        damping_ratio: f32,
    ) -> JointDef {
        if let JointKind::Weld { .. } = self.kind {
            self.kind = JointKind::Weld {
                linear_hertz,
                angular_hertz,
                damping_ratio,
            };
        }
        self
    }

    /// The most force the joint may apply (the mouse joint's pull), 0 or more.
    pub fn with_max_force(mut self, force: f32) -> JointDef {
        self.max_force = Some(force);
        self
    }

    /// Limits: the revolute joint's angle within `[lower, upper]` radians (within [-π, π]),
    /// or the distance joint's length within `[lower, upper]` (a rope: `0.0` and its
    /// length; the joint is then free within them, or sprung if it has a spring).
    pub fn with_limits(mut self, lower: f32, upper: f32) -> JointDef {
        self.limits = Some([lower, upper]);
        self
    }

    /// A motor that drives the revolute joint's relative spin (B's minus A's) towards
    /// `speed` radians per second with at most `max_torque`.
    pub fn with_motor(mut self, speed: f32, max_torque: f32) -> JointDef {
        self.motor = Some(JointMotor { speed, max_torque });
        self
    }

    /// A spring of `hertz` and `damping_ratio` towards the joint's rest state (the angle
    /// or length it had when added) in place of the rigid hold; for a mouse joint, its
    /// pull. The hertz is of the joint's own effective mass, as in Box2D: a revolute
    /// spring's stiffness is (2π hertz)² over the sum of the bodies' inverse rotational
    /// inertias (about their centres of mass), a distance spring's the same over the
    /// inverse effective mass along the joint. 0 hertz: no spring force.
    pub fn with_spring(mut self, hertz: f32, damping_ratio: f32) -> JointDef {
        self.spring = Some(JointSpring {
            hertz,
            damping_ratio,
        });
        self
    }

    /// Breaks the joint after a step whose constraint force on B is longer than `force`
    /// (0 or more).
    pub fn with_break_force(mut self, force: f32) -> JointDef {
        self.break_force = Some(force);
        self
    }

    /// Breaks the joint after a step whose constraint torque on B is larger than `torque`
    /// in magnitude (0 or more).
    pub fn with_break_torque(mut self, torque: f32) -> JointDef {
        self.break_torque = Some(torque);
        self
    }

    /// Whether the joined bodies collide with each other.
    pub fn collide_connected(mut self, collide: bool) -> JointDef {
        self.collide_connected = collide;
        self
    }
}
