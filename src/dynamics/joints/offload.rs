//! A prepared joint as an offloaded solver takes it ([`OffloadedJoint`]: the GPU world's,
//! `gpu/world/`), which joints it covers, and the impulses it writes back. The passes it
//! covers every joint kind with every option (a filter joint has nothing to solve and
//! takes no colour) (`shaders/joints.wgsl` is their twin, `soft_f64.wgsl` the joint
//! angle's).

// Only the GPU world offloads the joints: without the `gpu` feature this has no user.
#![cfg_attr(not(feature = "gpu"), allow(dead_code))]

use glam::Vec2;

use super::{JointConstraint, JointModel, impulse_bound};
use crate::dynamics::state::Softness;

/// A prepared joint as an offloaded solver takes it (the GPU world's, `gpu/world/`): what
/// the warm start, solve and relax passes of a joint read, in plain numbers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OffloadedJoint {
    /// 0: revolute; 1: distance; 2: weld; 3: prismatic; 4: wheel; 5: motor; 6: mouse.
    pub kind: u32,
    /// Both bodies stand still this step: nothing to solve.
    pub idle: bool,
    pub anchors: [Vec2; 2],
    pub delta_center: Vec2,
    pub inv_mass: [f32; 2],
    pub inv_inertia: [f32; 2],
    pub angular_mass: f32,
    /// The revolute joint's angle at the step's start.
    pub delta_angle: f32,
    /// The spring over the substep (`spring_softness`): the angle's (revolute, weld), the
    /// length's (distance) or the translation's (prismatic).
    pub spring: Softness,
    /// The weld's anchor spring, when it has one.
    pub linear_spring: Option<Softness>,
    /// The prismatic joint's axis, world frame at the step's start.
    pub axis: Vec2,
    /// Revolute, prismatic, wheel: the motor's speed and its bound over the substep
    /// (`drive_bound`); the motor joint's torque bound (speed 0).
    pub motor: Option<[f32; 2]>,
    /// The motor and mouse joints' bound on the point impulse over the substep.
    pub force_max: f32,
    /// Distance: the length, and whether it is held rigidly.
    pub length: f32,
    pub rigid: bool,
    /// Whether the spring acts: a revolute, weld (angular) or prismatic joint's whenever it
    /// has one, a distance joint's when its hertz is positive (as their solves ask).
    pub sprung: bool,
    /// The limits: the revolute joint's angle and the prismatic joint's translation (both or
    /// neither), the distance joint's length (each on its own).
    pub limits: [Option<f32>; 2],
    /// The accumulated impulses: point (or axial, in `x`), spring, motor, lower, upper.
    pub linear_impulse: Vec2,
    pub impulses: [f32; 4],
}

/// What an offloaded prepare stage reads of a joint to prepare it from its bodies' poses
/// and states (`prepare_joints` and the kinds' `prepare`): the twin of the host's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OffloadedFrame {
    /// The anchors in each body's frame.
    pub local_anchors: [Vec2; 2],
    /// Whether the joint angle at the step's start is prepared (`delta_angle`), and the
    /// angle it is measured from.
    pub angle: bool,
    pub reference_angle: f32,
    /// The prismatic and wheel joints' axis, in A's frame: `axis` is prepared from it.
    pub local_axis: Option<Vec2>,
    /// The mouse joint's target, world frame: its A side is the world there.
    pub target: Option<Vec2>,
}

impl JointConstraint {
    /// This joint as [`OffloadedJoint`], once prepared for a step of substep `h`; `None`
    /// for a filter joint (nothing to solve).
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
            delta_angle: p.delta_angle,
            spring: p.spring,
            linear_spring: None,
            axis: p.axis,
            motor: None,
            force_max: 0.0,
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
                limits,
                motor,
                spring,
                ..
            } => {
                joint.motor = motor
                    .map(|[speed, max_torque]| [speed, impulse_bound::drive_bound(h, max_torque)]);
                joint.sprung = spring.is_some();
                joint.limits =
                    limits.map_or([None; 2], |[lower, upper]| [Some(lower), Some(upper)]);
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
            JointModel::Weld {
                linear, angular, ..
            } => {
                joint.kind = 2;
                joint.sprung = angular.is_some();
                joint.linear_spring = linear.map(|_| p.linear_spring);
            }
            JointModel::Prismatic {
                limits,
                motor,
                spring,
                ..
            } => {
                joint.kind = 3;
                joint.motor = motor
                    .map(|[speed, max_force]| [speed, impulse_bound::drive_bound(h, max_force)]);
                joint.sprung = spring.is_some();
                joint.limits =
                    limits.map_or([None; 2], |[lower, upper]| [Some(lower), Some(upper)]);
            }
            JointModel::Wheel {
                limits,
                motor,
                spring,
                ..
            } => {
                joint.kind = 4;
                joint.motor = motor
                    .map(|[speed, max_torque]| [speed, impulse_bound::drive_bound(h, max_torque)]);
                joint.sprung = spring.is_some();
                joint.limits =
                    limits.map_or([None; 2], |[lower, upper]| [Some(lower), Some(upper)]);
            }
            JointModel::Motor {
                max_force,
                max_torque,
                ..
            } => {
                joint.kind = 5;
                joint.motor = Some([0.0, impulse_bound::drive_bound(h, max_torque)]);
                joint.force_max = impulse_bound::drive_bound(h, max_force);
            }
            JointModel::Mouse { max_force, .. } => {
                joint.kind = 6;
                joint.force_max = impulse_bound::drive_bound(h, max_force);
            }
            JointModel::Filter => return None,
        }
        Some(joint)
    }

    /// What an offloaded prepare stage reads of this joint besides its bodies and the
    /// static parts of [`OffloadedJoint`]: `None` for a joint it does not prepare (a
    /// filter joint, a vacant slot).
    pub(crate) fn offloaded_frame(&self) -> Option<OffloadedFrame> {
        if !self.live {
            return None;
        }
        let mut frame = OffloadedFrame {
            local_anchors: self.local_anchors,
            reference_angle: 0.0,
            angle: false,
            local_axis: None,
            target: None,
        };
        match self.model {
            JointModel::Revolute {
                reference_angle,
                limits,
                spring,
                ..
            } => {
                // The angle only for what reads it (revolute::prepare).
                frame.angle = limits.is_some() || spring.is_some();
                frame.reference_angle = reference_angle;
            }
            JointModel::Distance { .. } => {}
            JointModel::Weld {
                reference_angle, ..
            }
            | JointModel::Motor {
                reference_angle, ..
            } => (frame.angle, frame.reference_angle) = (true, reference_angle),
            JointModel::Prismatic {
                reference_angle,
                local_axis,
                ..
            } => {
                (frame.angle, frame.reference_angle) = (true, reference_angle);
                frame.local_axis = Some(local_axis);
            }
            JointModel::Wheel { local_axis, .. } => frame.local_axis = Some(local_axis),
            JointModel::Mouse { target, .. } => frame.target = Some(target),
            JointModel::Filter => return None,
        }
        Some(frame)
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
