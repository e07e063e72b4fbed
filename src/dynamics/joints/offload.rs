//! A prepared joint as an offloaded solver takes it ([`OffloadedJoint`]: the GPU world's,
//! `gpu/world/`), which joints it covers, and the impulses it writes back. The passes it
//! covers are the revolute pin with its motor and the distance joint (`joints.wgsl` is
//! their twin); a revolute joint's limits and spring, and the weld and prismatic joints,
//! read the joint angle, whose wide-turn path (`math::atan2`) is in f64, which WGSL lacks.

// Only the GPU world offloads the joints: without the `gpu` feature this has no user.
#![cfg_attr(not(feature = "gpu"), allow(dead_code))]

use glam::Vec2;

use super::{JointConstraint, JointModel, impulse_bound};
use crate::dynamics::state::Softness;

/// A prepared joint as an offloaded solver takes it (the GPU world's, `gpu/world/`): what
/// the warm start, solve and relax passes of a revolute pin (with its motor) and of a
/// distance joint read, in plain numbers. `None` for a joint those passes do not cover
/// there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OffloadedJoint {
    /// 0: a revolute pin, with a motor when `motor` is `Some`; 1: a distance joint.
    pub kind: u32,
    /// Both bodies stand still this step: nothing to solve.
    pub idle: bool,
    pub anchors: [Vec2; 2],
    pub delta_center: Vec2,
    pub inv_mass: [f32; 2],
    pub inv_inertia: [f32; 2],
    pub angular_mass: f32,
    /// The distance joint's spring over the substep (`spring_softness`).
    pub spring: Softness,
    /// Revolute: the motor's speed and its bound over the substep (`drive_bound`).
    pub motor: Option<[f32; 2]>,
    /// Distance: the length, rigid or not, a spring of positive hertz, and its limits.
    pub length: f32,
    pub rigid: bool,
    pub sprung: bool,
    pub limits: [Option<f32>; 2],
    /// The accumulated impulses: point (or axial, in `x`), spring, motor, lower, upper.
    pub linear_impulse: Vec2,
    pub impulses: [f32; 4],
}

impl JointConstraint {
    /// This joint as [`OffloadedJoint`], once prepared for a step of substep `h`; `None`
    /// for a kind or option the offloaded passes do not cover (see
    /// [`JointConstraint::offload_refusal`]).
    pub(crate) fn offloaded(&self, h: f32) -> Option<OffloadedJoint> {
        let p = &self.prepared;
        let mut joint = OffloadedJoint {
            kind: 0,
            idle: p.idle,
            anchors: p.anchors,
            delta_center: p.delta_center,
            inv_mass: p.inv_mass,
            inv_inertia: p.inv_inertia,
            angular_mass: p.angular_mass,
            spring: p.spring,
            motor: None,
            length: 0.0,
            rigid: false,
            sprung: false,
            limits: [None; 2],
            linear_impulse: self.linear_impulse,
            impulses: [
                self.spring_impulse,
                self.motor_impulse,
                self.lower_impulse,
                self.upper_impulse,
            ],
        };
        match self.model {
            JointModel::Revolute {
                limits: None,
                spring: None,
                motor,
                ..
            } => {
                joint.motor = motor
                    .map(|[speed, max_torque]| [speed, impulse_bound::drive_bound(h, max_torque)]);
            }
            JointModel::Distance {
                length,
                rigid,
                limits,
                spring,
            } => {
                joint.kind = 1;
                joint.length = length;
                joint.rigid = rigid;
                joint.sprung = spring.is_some_and(|s| s.hertz > 0.0);
                joint.limits = limits;
            }
            _ => return None,
        }
        Some(joint)
    }

    /// Why the offloaded passes cannot solve this joint, if they cannot.
    pub(crate) fn offload_refusal(&self) -> Option<&'static str> {
        match self.model {
            JointModel::Revolute {
                limits: None,
                spring: None,
                ..
            }
            | JointModel::Distance { .. }
            | JointModel::Filter => None,
            JointModel::Revolute { .. } => Some(
                "a revolute joint's limits and spring read the joint angle, whose wide-turn \
                 path (math::atan2) is in f64, which WGSL lacks",
            ),
            _ => Some("the GPU world solves revolute pins and motors and distance joints"),
        }
    }

    /// Writes back the accumulated impulses an offloaded pass left.
    pub(crate) fn set_offloaded_impulses(
        &mut self,
        linear: Vec2,
        [spring, motor, lower, upper]: [f32; 4],
    ) {
        self.linear_impulse = linear;
        self.spring_impulse = spring;
        self.motor_impulse = motor;
        self.lower_impulse = lower;
        self.upper_impulse = upper;
    }
}
