//! Joints: the definitions a user gives ([`JointDef`], in `def.rs`) and the joints in the
//! soft step, solved as contacts are: prepared once per step, then per substep
//! warm-started, solved with a soft bias, and relaxed without it. One file per kind holds
//! its constraint, its prepare, its warm start and its solve:
//!
//! ```text
//! revolute.rs   a pin; the angle limited, driven or sprung
//! prismatic.rs  a slide along an axis fixed in A, no turn; limits, motor, spring
//! wheel.rs      a slide along an axis (the suspension), B turning freely; motor on the spin
//! distance.rs   the anchors' distance: rigid, a rope within limits, or a spring
//! weld.rs       B held at its pose relative to A, rigidly or through springs
//! motor.rs      B driven towards a target pose relative to A, within a max force and torque
//! mouse.rs      a point of B pulled towards a target through a spring; A takes nothing
//! filter.rs     nothing to solve: the bodies only stop colliding
//! parts.rs      what the kinds share: the per-step data, the two bodies' states, a part's
//!               impulse coefficients, the pin's 2x2 solve; slide.rs the slider's geometry
//! ```
//!
//! ```text
//! prepare (before the stages, joints in blocks over the pool): per joint, its anchors
//!     r_a, r_b from each body's centre of mass (world frame, the step's start), the
//!     centres' offset d0 = c_b - c_a, effective masses, then its kind's own (the angle
//!     since it was added, the axis, the springs' coefficients)
//! per substep, in each pass's colour stages beside the contacts of the colour (a colour's
//! joints in slot order, on any thread; the overflow's alone, one after another):
//!     anchors now: r = delta_rotation * r0; separation C = (c_b - c_a) now + r_b - r_a
//!     warm start: apply the accumulated impulses
//!     solve (bias on) / relax (bias off): the kind's parts, in its file's order
//!     every accumulated impulse held within ±MAX_IMPULSE as it accumulates (a motor's
//!     and a drive's within min(max force * h, MAX_IMPULSE), impulse_bound.rs): what was
//!     clamped off is not applied, so the bodies take exactly the warm start the joint keeps
//! ```
//!
//! Softness: the rigid parts (the pin, the rigid length, limits that are passed) push back
//! through the contacts' soft spring at twice the contact hertz (Box2D v3's joint
//! softness), with bias only in the solve pass; a limit not yet reached is speculative (its
//! gap may close within the substep, no more), as a speculative contact is. Springs use
//! their own hertz and damping ratio in both passes. Signs: impulses act on B and their
//! opposite on A; the angle is B's relative to A, counter-clockwise positive. Joints are
//! coloured with the contacts (`solver/colouring.rs`): the colours fix the order in which
//! they see each other's impulses, so the step stays the same bits on any thread count.

mod def;
mod distance;
mod filter;
mod impulse_bound;
mod motor;
mod mouse;
mod offload;
mod parts;
mod prismatic;
mod revolute;
mod slide;
mod weld;
mod wheel;

pub use def::{JointBroken, JointDef, JointFrame, JointId, JointKind, JointMotor, JointSpring};

use glam::Vec2;
use rayon::prelude::*;

use crate::dynamics::body::Body;
use crate::dynamics::state::{BodyMaterial, BodyState, Softness, StatePtr, clamp_speed_and_turn};
use crate::parallel;
use crate::shapes::transform::{inverse_rotate, rotate};
use parts::{Ends, Prepared, inverse_or_zero, warm_start_pin};

/// Damping ratio of the joints' rigid parts (Box2D v3's default joint damping ratio).
pub(crate) const JOINT_DAMPING_RATIO: f32 = 2.0;

/// A joint's spring, as the solver takes it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spring {
    pub hertz: f32,
    pub damping_ratio: f32,
}

/// What a joint holds, as the solver takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum JointModel {
    /// The anchors coincide; the relative angle (minus `reference_angle`, B's angle
    /// relative to A when the joint was made) is limited, driven or sprung.
    Revolute {
        reference_angle: f32,
        limits: Option<[f32; 2]>,
        /// Speed (radians per second), max torque.
        motor: Option<[f32; 2]>,
        spring: Option<Spring>,
    },
    /// The anchors' distance: `length` rigidly when `rigid`, else sprung towards it (if
    /// a spring) and held within `limits`.
    Distance {
        length: f32,
        rigid: bool,
        limits: [Option<f32>; 2],
        spring: Option<Spring>,
    },
    /// The anchors coincide and the angle stays 0, each rigidly (`None`) or through its
    /// spring.
    Weld {
        reference_angle: f32,
        linear: Option<Spring>,
        angular: Option<Spring>,
    },
    /// B's anchor on the axis through A's (`local_axis`, unit, in A's frame), at the
    /// relative angle it was made at; the translation along the axis limited, driven
    /// (speed, max force) or sprung.
    Prismatic {
        reference_angle: f32,
        local_axis: Vec2,
        limits: Option<[f32; 2]>,
        motor: Option<[f32; 2]>,
        spring: Option<Spring>,
    },
    /// B's anchor on the axis through A's, B free to turn; the translation limited and
    /// sprung (the suspension), the relative spin driven (speed, max torque).
    Wheel {
        local_axis: Vec2,
        limits: Option<[f32; 2]>,
        motor: Option<[f32; 2]>,
        spring: Option<Spring>,
    },
    /// Nothing to solve.
    Filter,
    /// B's centre of mass (its anchor) driven towards A's anchor, and the angle (minus
    /// `reference_angle`, the target) towards 0, each closing a share of its
    /// gap per substep, the accumulated impulses within `max_force` and `max_torque`.
    Motor {
        reference_angle: f32,
        max_force: f32,
        max_torque: f32,
    },
    /// B's anchor pulled towards `target` (world frame) by `spring`, with at most
    /// `max_force`; A takes nothing.
    Mouse {
        target: Vec2,
        spring: Spring,
        max_force: f32,
    },
}

/// A joint in the solver: bodies, anchors, model, and the impulses accumulated over the
/// last step (its warm start for the next).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointConstraint {
    /// Body slots, A then B.
    pub bodies: [u32; 2],
    /// The anchors in each body's local frame (the frame of its pieces).
    pub local_anchors: [Vec2; 2],
    pub model: JointModel,
    /// A vacant slot (a removed joint): passed over.
    pub live: bool,
    /// The point impulse (revolute), or the axial one in `x` (distance).
    pub linear_impulse: Vec2,
    pub spring_impulse: f32,
    pub motor_impulse: f32,
    pub lower_impulse: f32,
    pub upper_impulse: f32,
    /// The constraint force and torque on B over the last step (`finish_joints`).
    pub force: Vec2,
    pub torque: f32,
    prepared: Prepared,
}

impl JointConstraint {
    /// A joint with no impulses yet.
    pub fn new(bodies: [u32; 2], local_anchors: [Vec2; 2], model: JointModel) -> Self {
        JointConstraint {
            bodies,
            local_anchors,
            model,
            live: true,
            linear_impulse: Vec2::ZERO,
            spring_impulse: 0.0,
            motor_impulse: 0.0,
            lower_impulse: 0.0,
            upper_impulse: 0.0,
            force: Vec2::ZERO,
            torque: 0.0,
            prepared: Prepared::default(),
        }
    }

    /// A removed joint's slot.
    pub fn vacant() -> Self {
        JointConstraint {
            live: false,
            ..JointConstraint::new(
                [0, 0],
                [Vec2::ZERO; 2],
                JointModel::Revolute {
                    reference_angle: 0.0,
                    limits: None,
                    motor: None,
                    spring: None,
                },
            )
        }
    }
}

/// The angle of rotation `b` relative to rotation `a` (both `(cos, sin)`), in [-π, π]
/// (cheaply when it is small, as a step's turn is: see `math::atan2_small`).
pub(crate) fn relative_angle(a: Vec2, b: Vec2) -> f32 {
    let r = inverse_rotate(a, b);
    crate::math::atan2_small(r.y, r.x)
}

/// Each live joint's constraint force and torque on B from its accumulated impulses, which
/// act once per substep `h`: the impulse over `h`. A distance joint's acts along its axis
/// at the step's start.
pub(crate) fn finish_joints(joints: &mut [JointConstraint], h: f32) {
    let inv_h = 1.0 / h;
    // Each joint is written alone: the same bits on any number of threads.
    let live = joints
        .par_iter_mut()
        .with_min_len(parallel::min_len(JOINTS_PER_TASK));
    live.filter(|j| j.live).for_each(|joint| {
        let p = &joint.prepared;
        let angular =
            joint.spring_impulse + joint.motor_impulse + joint.lower_impulse - joint.upper_impulse;
        let (force, torque) = match joint.model {
            JointModel::Revolute { .. } | JointModel::Weld { .. } | JointModel::Mouse { .. } => {
                (joint.linear_impulse, angular)
            }
            JointModel::Distance { .. } => {
                let axis = (p.delta_center + p.anchors[1] - p.anchors[0]).normalize_or_zero();
                ((joint.linear_impulse.x + angular) * axis, 0.0)
            }
            JointModel::Prismatic { .. } | JointModel::Wheel { .. } => {
                let axial = joint.spring_impulse + joint.lower_impulse - joint.upper_impulse;
                let normal = joint.linear_impulse.x * p.axis.perp();
                if let JointModel::Prismatic { .. } = joint.model {
                    let along = (axial + joint.motor_impulse) * p.axis;
                    (along + normal, joint.linear_impulse.y)
                } else {
                    (axial * p.axis + normal, joint.motor_impulse)
                }
            }
            JointModel::Filter => (Vec2::ZERO, 0.0),
            JointModel::Motor { .. } => (joint.linear_impulse, joint.motor_impulse),
        };
        joint.force = inv_h * force;
        joint.torque = inv_h * torque;
    });
}

/// `angle` brought into [-π, π].
pub(super) fn unwind(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    if angle < -PI {
        angle + TAU
    } else if angle > PI {
        angle - TAU
    } else {
        angle
    }
}

/// What the joint passes read besides the joints and the bodies' states.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointStep {
    /// The substep, seconds.
    pub h: f32,
    /// The rigid parts' softness (twice the contact hertz).
    pub soft: Softness,
    /// The speed limits (see `clamp_speed_and_turn`).
    pub max_speed: f32,
    pub max_turn: f32,
}

/// Prepares every live joint for a step of substep `h` from the bodies' poses at its start.
pub(crate) fn prepare_joints(
    joints: &mut [JointConstraint],
    bodies: &[Body],
    materials: &[BodyMaterial],
    states: &[BodyState],
    centers: &[Vec2],
    rotations: &[Vec2],
    h: f32,
) {
    // Each joint reads the bodies and writes itself alone: the same bits on any number of
    // threads.
    let live = joints
        .par_iter_mut()
        .with_min_len(parallel::min_len(JOINTS_PER_TASK));
    live.filter(|j| j.live).for_each(|joint| {
        let [a, b] = joint.bodies.map(|i| i as usize);
        let anchor = |k: usize, i: usize| {
            rotate(
                rotations[i],
                joint.local_anchors[k] - bodies[i].local_center,
            )
        };
        let inv_mass = [states[a].inv_mass, states[b].inv_mass];
        let inv_inertia = [
            states[a].inv_inertia(&materials[a]),
            states[b].inv_inertia(&materials[b]),
        ];
        let anchors = [anchor(0, a), anchor(1, b)];
        let delta_center = centers[b] - centers[a];
        let mut p = Prepared {
            anchors,
            delta_center,
            delta_angle: 0.0,
            inv_mass,
            inv_inertia,
            angular_mass: inverse_or_zero(inv_inertia[0] + inv_inertia[1]),
            spring: Softness::default(),
            linear_spring: Softness::default(),
            axis: Vec2::ZERO,
            // A kinematic body moves with an inverse mass of 0: its joints still pull the
            // other body along, so only two bodies at rest leave a joint idle.
            idle: !states[a].moves()
                && !states[b].moves()
                && !bodies[a].is_kinematic
                && !bodies[b].is_kinematic,
        };
        let q = [rotations[a], rotations[b]];
        match joint.model {
            JointModel::Revolute {
                reference_angle,
                limits,
                spring,
                ..
            } => revolute::prepare(&mut p, q, reference_angle, limits, spring, h),
            JointModel::Distance { spring, .. } => distance::prepare(&mut p, spring, h),
            JointModel::Weld {
                reference_angle,
                linear,
                angular,
            } => weld::prepare(&mut p, q, reference_angle, [linear, angular], h),
            JointModel::Prismatic {
                reference_angle,
                local_axis,
                spring,
                ..
            } => prismatic::prepare(&mut p, q, reference_angle, local_axis, spring, h),
            JointModel::Wheel {
                local_axis, spring, ..
            } => wheel::prepare(&mut p, q[0], local_axis, spring, h),
            JointModel::Filter => filter::prepare(&mut p),
            JointModel::Motor {
                reference_angle, ..
            } => motor::prepare(&mut p, q, reference_angle),
            JointModel::Mouse { target, spring, .. } => {
                mouse::prepare(&mut p, centers[b], target, spring, h)
            }
        }
        joint.prepared = p;
    });
}

/// Joints per task of the prepare and finish passes: a joint's prepare is some 20 ns, so a
/// task of this many is long enough to be worth a steal.
const JOINTS_PER_TASK: usize = 1024;

/// Which joint pass to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum JointPass {
    WarmStart,
    Solve,
    Relax,
}

/// Runs `pass` over the joints in the slots `slots` (of the `joint_len` at `joints`), in
/// that order.
///
/// # Safety
/// Every slot is below `joint_len` and its joint's bodies index `states`; no other thread
/// touches these joints or their moving bodies meanwhile (the colouring: a colour's joints
/// share no moving body with each other or with its contacts), nor writes a body they read.
// Never inlined into the stage loop: there it cost joint_grid's step 1 % more instructions
// (callgrind), the loop's registers spilt around it.
#[inline(never)]
pub(crate) unsafe fn run_joints(
    pass: JointPass,
    (joints, joint_len): (*mut JointConstraint, usize),
    slots: &[u32],
    states: StatePtr,
    step: &JointStep,
) {
    for &slot in slots {
        debug_assert!((slot as usize) < joint_len);
        // SAFETY: the caller's promise: in bounds, and this thread's alone.
        let joint = unsafe { &mut *joints.add(slot as usize) };
        if !joint.live || joint.prepared.idle {
            continue;
        }
        let [a, b] = joint.bodies.map(|i| i as usize);
        // Worked on copies: a body that does not move (static, asleep, kinematic) may be an
        // end of several joints of a colour at once, on several threads, so it is only read;
        // a moving one is this joint's alone, and its copy is written back. (The solve
        // leaves a still body's velocity as it is: its inverse masses are zero.)
        // SAFETY: the caller's promise.
        let (mut state_a, mut state_b) = unsafe { (*states.get(a), *states.get(b)) };
        let mut ends = Ends {
            a: &mut state_a,
            b: &mut state_b,
        };
        match pass {
            JointPass::WarmStart => warm_start(joint, &mut ends),
            JointPass::Solve => solve(joint, &mut ends, step, true),
            JointPass::Relax => solve(joint, &mut ends, step, false),
        }
        // Held to the speed limits at once, as the contacts' levers are held to a body's
        // reach: a joint may pull a body far out of place within a step (two joints that
        // contradict each other, a mass ratio of 1e20), and its next push must not
        // overflow (found by `examples/fuzz`, world target).
        // Only the speed and the turn per substep, not the reach (a body's own extent):
        // these keep the next push finite, the stages' integration holds the rest, and
        // not reading the bodies' records here was 4% of joint_grid's step.
        clamp_speed_and_turn(ends.a, step.max_speed, step.max_turn);
        clamp_speed_and_turn(ends.b, step.max_speed, step.max_turn);
        // Only the velocities: a joint pass changes nothing else, and storing the copies
        // whole went through a stack array whose reload stalled on the narrower stores
        // before it (a quarter of this function's time on joint_grid).
        for (i, state) in [(a, &state_a), (b, &state_b)] {
            if state.moves() {
                // SAFETY: a moving body of this joint: no other thread touches it now.
                let body = unsafe { states.get_mut(i) };
                body.linear_velocity = state.linear_velocity;
                body.angular_velocity = state.angular_velocity;
            }
        }
    }
}

/// A pass's warm start of one joint, by its kind.
fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    match joint.model {
        JointModel::Revolute { .. } | JointModel::Weld { .. } | JointModel::Mouse { .. } => {
            warm_start_pin(joint, ends)
        }
        JointModel::Prismatic { .. } => prismatic::warm_start(joint, ends),
        JointModel::Wheel { .. } => wheel::warm_start(joint, ends),
        JointModel::Distance { .. } => distance::warm_start(joint, ends),
        JointModel::Motor { .. } => motor::warm_start(joint, ends),
        JointModel::Filter => {}
    }
}

/// A solve (`use_bias`) or relax pass over one joint, by its kind.
fn solve(joint: &mut JointConstraint, ends: &mut Ends<'_>, step: &JointStep, use_bias: bool) {
    match joint.model {
        JointModel::Revolute { .. } => revolute::solve(joint, ends, step, use_bias),
        JointModel::Weld { .. } => weld::solve(joint, ends, step, use_bias),
        JointModel::Prismatic { .. } => prismatic::solve(joint, ends, step, use_bias),
        JointModel::Wheel { .. } => wheel::solve(joint, ends, step, use_bias),
        JointModel::Distance { .. } => distance::solve(joint, ends, step, use_bias),
        JointModel::Motor { .. } => motor::solve(joint, ends, step),
        JointModel::Mouse { .. } => mouse::solve(joint, ends, step),
        JointModel::Filter => {}
    }
}
