//! Joints in the soft step, solved as contacts are: prepared once per step, then per
//! substep warm-started, solved with a soft bias, and relaxed without it.
//!
//! ```text
//! prepare (before the stages, joints in blocks over the pool): per joint, its anchors
//!     r_a, r_b from each body's centre of mass (world frame, the step's start), the
//!     centres' offset d0 = c_b - c_a,
//!     the angle since it was added (skipped for a revolute joint without limits or a
//!     spring: nothing reads it), effective masses
//! per substep, in each pass's colour stages beside the contacts of the colour (a colour's
//! joints in slot order, on any thread; the overflow's alone, one after another):
//!     anchors now: r = delta_rotation * r0; separation C = (c_b - c_a) now + r_b - r_a
//!     warm start: apply the accumulated impulses
//!     solve (bias on) / relax (bias off):
//!       revolute: spring on the angle, motor (clamped to max torque * h), angle limits
//!                 (one-sided), then the point: K (2x2) impulse = -K^-1 (v_rel + bias C)
//!       distance: rigid: axial impulse on C = |d| - length; else the spring, then the
//!                 min and max limits (one-sided)
//!       weld:     the angle, then the point, each rigid or through its spring
//!       mouse:    B's anchor towards the target through its spring, the accumulated
//!                 impulse no longer than max force * h; A takes nothing
//!     every accumulated impulse held within ±MAX_IMPULSE as it accumulates (a motor's
//!     and a drive's within min(max force * h, MAX_IMPULSE)): what was clamped off is
//!     not applied, so the bodies take exactly the warm start the joint keeps
//! ```
//!
//! Softness: the rigid parts (the pin, the rigid length, limits that are passed) push back
//! through the contacts' soft spring at twice the contact hertz (Box2D v3's joint
//! softness), with bias only in the solve pass; a limit not yet reached is speculative (its
//! gap may close within the substep, no more), as a speculative contact is. Springs use
//! their own hertz and damping ratio in both passes. Signs: impulses act on B and their
//! opposite on A; the angle is B's relative to A, counter-clockwise positive. Joints are
//! coloured with the contacts (`colouring.rs`): the colours fix the order in which they see
//! each other's impulses, so the step stays the same bits on any thread count.

mod def;
mod impulse_bound;

pub use def::{JointBroken, JointDef, JointFrame, JointId, JointKind, JointMotor, JointSpring};

use glam::Vec2;
use rayon::prelude::*;

use crate::dynamics::body::Body;
use crate::dynamics::parallel;
use crate::dynamics::solver::contact_simd::StatePtr;
use crate::dynamics::solver::{
    BodyMaterial, BodyState, Softness, clamp_speed_and_turn, cross, cross_sv,
};
use crate::shapes::transform::{inverse_rotate, rotate};
use impulse_bound::{accumulate, accumulate_vec, clamp_drive, clamp_positive, drive_bound};

/// The share of its gap the motor joint closes per substep (Box2D's default correction
/// factor).
const MOTOR_CORRECTION: f32 = 0.3;

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
    /// `reference_angle`, the target) towards 0, each closing `MOTOR_CORRECTION` of its
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

/// The solver's per-step data of a joint, from `prepare`.
#[derive(Clone, Copy, Debug, Default)]
struct Prepared {
    /// Anchors from each body's centre of mass, world frame, at the step's start.
    anchors: [Vec2; 2],
    /// `c_b - c_a` at the step's start.
    delta_center: Vec2,
    /// The joint angle at the step's start, in [-π, π].
    delta_angle: f32,
    inv_mass: [f32; 2],
    inv_inertia: [f32; 2],
    /// The effective mass of the relative rotation. (Those along an axis are taken from
    /// the substep's geometry, not the step's start: a joint pulled far out of place
    /// within a step would otherwise push with a mass many times too large, and diverge.)
    angular_mass: f32,
    /// The joint's spring (the angle's, the length's, the mouse's pull).
    spring: Softness,
    /// The weld's anchor spring.
    linear_spring: Softness,
    /// The prismatic and wheel joints' axis, world frame at the step's start.
    axis: Vec2,
    /// Whether both bodies stand still this step (static, asleep): nothing to solve.
    idle: bool,
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
fn unwind(angle: f32) -> f32 {
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
        match joint.model {
            JointModel::Revolute {
                reference_angle,
                limits,
                spring,
                ..
            } => {
                // Only the limits and the spring read the angle; a plain pin or a motor
                // (velocity only) skips the arctangent, which was 4.5% of joint_grid's
                // step on two threads.
                if limits.is_some() || spring.is_some() {
                    let angle = relative_angle(rotations[a], rotations[b]) - reference_angle;
                    p.delta_angle = unwind(angle);
                }
                if let Some(s) = spring {
                    p.spring = spring_softness(s, h);
                }
            }
            JointModel::Distance { spring, .. } => {
                if let Some(s) = spring {
                    p.spring = spring_softness(s, h);
                }
            }
            JointModel::Weld {
                reference_angle,
                linear,
                angular,
            } => {
                let angle = relative_angle(rotations[a], rotations[b]) - reference_angle;
                p.delta_angle = unwind(angle);
                if let Some(s) = linear {
                    p.linear_spring = spring_softness(s, h);
                }
                if let Some(s) = angular {
                    p.spring = spring_softness(s, h);
                }
            }
            JointModel::Prismatic {
                local_axis, spring, ..
            }
            | JointModel::Wheel {
                local_axis, spring, ..
            } => {
                if let JointModel::Prismatic {
                    reference_angle, ..
                } = joint.model
                {
                    let angle = relative_angle(rotations[a], rotations[b]) - reference_angle;
                    p.delta_angle = unwind(angle);
                }
                p.axis = rotate(rotations[a], local_axis);
                if let Some(s) = spring {
                    p.spring = spring_softness(s, h);
                }
            }
            JointModel::Filter => p.idle = true,
            JointModel::Motor {
                reference_angle, ..
            } => {
                let angle = relative_angle(rotations[a], rotations[b]) - reference_angle;
                p.delta_angle = unwind(angle);
            }
            JointModel::Mouse { target, spring, .. } => {
                // The pull acts on B alone, from a fixed point: A's masses and motion
                // take no part, and the offset is from the target instead of A's centre.
                p.inv_mass[0] = 0.0;
                p.inv_inertia[0] = 0.0;
                p.anchors[0] = Vec2::ZERO;
                p.delta_center = centers[b] - target;
                p.spring = spring_softness(spring, h);
            }
        }
        joint.prepared = p;
    });
}

/// Joints per task of the prepare and finish passes: a joint's prepare is some 20 ns, so a
/// task of this many is long enough to be worth a steal.
const JOINTS_PER_TASK: usize = 1024;

/// A spring's coefficients over substep `h` (as `Softness::new`); a spring of 0 hertz
/// applies no force (its damping ratio alone would divide 0 by 0). Worked in f64: any
/// finite hertz and damping ratio are accepted, and at 1e25 hertz the f32 products
/// overflow (found by `examples/fuzz`, world target); the coefficients themselves stay
/// within f32 (a rigid spring's mass scale tends to 1, its bias rate to 1 / h).
fn spring_softness(spring: Spring, h: f32) -> Softness {
    if spring.hertz > 0.0 {
        let omega = std::f64::consts::TAU * f64::from(spring.hertz);
        let a1 = 2.0 * f64::from(spring.damping_ratio) + f64::from(h) * omega;
        let a2 = f64::from(h) * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: (omega / a1) as f32,
            mass_scale: (a2 * a3) as f32,
            impulse_scale: a3 as f32,
        }
    } else {
        Softness {
            bias_rate: 0.0,
            mass_scale: 0.0,
            impulse_scale: 1.0,
        }
    }
}

fn inverse_or_zero(k: f32) -> f32 {
    if k > 0.0 { 1.0 / k } else { 0.0 }
}

impl Prepared {
    /// The effective mass of an impulse along a line whose levers (`r × direction`) on A
    /// and B are `la` and `lb`.
    fn mass_along(&self, la: f32, lb: f32) -> f32 {
        let [ma, mb] = self.inv_mass;
        let [ia, ib] = self.inv_inertia;
        inverse_or_zero(ma + mb + ia * la * la + ib * lb * lb)
    }
}

/// The two bodies' states of a joint, to read and write.
struct Ends<'a> {
    a: &'a mut BodyState,
    b: &'a mut BodyState,
}

impl Ends<'_> {
    /// Applies `impulse` to B at `rb` and its opposite to A at `ra`.
    fn apply_linear(&mut self, p: &Prepared, [ra, rb]: [Vec2; 2], impulse: Vec2) {
        self.a.linear_velocity -= p.inv_mass[0] * impulse;
        self.a.angular_velocity -= p.inv_inertia[0] * cross(ra, impulse);
        self.b.linear_velocity += p.inv_mass[1] * impulse;
        self.b.angular_velocity += p.inv_inertia[1] * cross(rb, impulse);
    }

    /// Applies the angular `impulse` to B and its opposite to A.
    fn apply_angular(&mut self, p: &Prepared, impulse: f32) {
        self.a.angular_velocity -= p.inv_inertia[0] * impulse;
        self.b.angular_velocity += p.inv_inertia[1] * impulse;
    }

    /// The anchors now (turned by each body's rotation since the step began).
    fn anchors(&self, p: &Prepared) -> [Vec2; 2] {
        [
            rotate(self.a.delta_rotation, p.anchors[0]),
            rotate(self.b.delta_rotation, p.anchors[1]),
        ]
    }

    /// B's anchor minus A's now, world frame.
    fn separation(&self, p: &Prepared, [ra, rb]: [Vec2; 2]) -> Vec2 {
        self.b.delta_position - self.a.delta_position + p.delta_center + rb - ra
    }

    /// The velocity of B's anchor relative to A's.
    fn relative_velocity(&self, [ra, rb]: [Vec2; 2]) -> Vec2 {
        self.b.linear_velocity + cross_sv(self.b.angular_velocity, rb)
            - self.a.linear_velocity
            - cross_sv(self.a.angular_velocity, ra)
    }

    /// The joint angle now.
    fn angle(&self, p: &Prepared) -> f32 {
        unwind(p.delta_angle + relative_angle(self.a.delta_rotation, self.b.delta_rotation))
    }
}

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

fn warm_start(joint: &JointConstraint, ends: &mut Ends<'_>) {
    let p = &joint.prepared;
    let r = ends.anchors(p);
    match joint.model {
        // The mouse's A anchor is zero and A's masses are: its impulse lands on B alone.
        JointModel::Revolute { .. } | JointModel::Weld { .. } | JointModel::Mouse { .. } => {
            ends.apply_linear(p, r, joint.linear_impulse);
            let axial = joint.spring_impulse + joint.motor_impulse + joint.lower_impulse
                - joint.upper_impulse;
            ends.apply_angular(p, axial);
        }
        JointModel::Prismatic { .. } | JointModel::Wheel { .. } => {
            let s = slide(ends, p, r);
            let axial = joint.spring_impulse + joint.lower_impulse - joint.upper_impulse;
            let (axial, angular) = match joint.model {
                JointModel::Prismatic { .. } => {
                    (axial + joint.motor_impulse, joint.linear_impulse.y)
                }
                _ => (axial, joint.motor_impulse),
            };
            s.apply(ends, p, axial, joint.linear_impulse.x, angular);
        }
        JointModel::Filter => {}
        JointModel::Motor { .. } => {
            ends.apply_linear(p, r, joint.linear_impulse);
            ends.apply_angular(p, joint.motor_impulse);
        }
        JointModel::Distance { .. } => {
            let axis = ends.separation(p, r).normalize_or_zero();
            let axial = joint.linear_impulse.x + joint.spring_impulse + joint.lower_impulse
                - joint.upper_impulse;
            ends.apply_linear(p, r, axial * axis);
        }
    }
}

/// The coefficients `(bias rate, mass scale, impulse scale)` of a part's impulse
/// `-mass_scale * m * (cdot + bias_rate * C) - impulse_scale * accumulated`: a spring's in
/// both passes; a rigid part (`None`) the joint softness in the solve pass, and in the relax
/// pass none (plain velocity).
fn scales(step: &JointStep, spring: Option<&Softness>, use_bias: bool) -> (f32, f32, f32) {
    match spring {
        Some(s) => (s.bias_rate, s.mass_scale, s.impulse_scale),
        None if use_bias => (
            step.soft.bias_rate,
            step.soft.mass_scale,
            step.soft.impulse_scale,
        ),
        None => (0.0, 1.0, 0.0),
    }
}

/// As [`scales`] for a rigid part whose error is `c`, with the bias itself.
fn rigid(step: &JointStep, c: f32, use_bias: bool) -> (f32, f32, f32) {
    let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
    (rate * c, mass_scale, impulse_scale)
}

/// As [`rigid`] for a one-sided limit whose gap is `c` (positive: not reached): a gap may
/// close within the substep and no more (speculative), an overlap is pushed out softly.
fn one_sided(step: &JointStep, c: f32, use_bias: bool) -> (f32, f32, f32) {
    if c > 0.0 {
        (c / step.h, 1.0, 0.0)
    } else {
        rigid(step, c, use_bias)
    }
}

fn solve(joint: &mut JointConstraint, ends: &mut Ends<'_>, step: &JointStep, use_bias: bool) {
    let p = joint.prepared;
    match joint.model {
        JointModel::Revolute {
            limits,
            motor,
            spring,
            ..
        } => {
            // The angle moves only when positions are integrated, not within a solve: the
            // spring and the limits share one reading of it.
            let angle = if spring.is_some() || limits.is_some() {
                ends.angle(&p)
            } else {
                0.0
            };
            if spring.is_some() {
                let c = angle;
                let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
                let s = p.spring;
                let impulse = -s.mass_scale * p.angular_mass * (cdot + s.bias_rate * c)
                    - s.impulse_scale * joint.spring_impulse;
                let applied = accumulate(&mut joint.spring_impulse, impulse);
                ends.apply_angular(&p, applied);
            }
            if let Some(motor) = motor {
                angular_motor(joint, ends, step, motor);
            }
            if let Some([lower, upper]) = limits {
                let (bias, mass_scale, impulse_scale) = one_sided(step, angle - lower, use_bias);
                let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
                let impulse = -mass_scale * p.angular_mass * (cdot + bias)
                    - impulse_scale * joint.lower_impulse;
                let applied = clamp_positive(&mut joint.lower_impulse, impulse);
                ends.apply_angular(&p, applied);

                let (bias, mass_scale, impulse_scale) = one_sided(step, upper - angle, use_bias);
                let cdot = ends.a.angular_velocity - ends.b.angular_velocity;
                let impulse = -mass_scale * p.angular_mass * (cdot + bias)
                    - impulse_scale * joint.upper_impulse;
                let applied = clamp_positive(&mut joint.upper_impulse, impulse);
                ends.apply_angular(&p, -applied);
            }
            let r = ends.anchors(&p);
            let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
            let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
            solve_point(joint, ends, r, rhs, [mass_scale, impulse_scale]);
        }
        JointModel::Weld {
            linear, angular, ..
        } => {
            let spring = angular.map(|_| &p.spring);
            let (rate, mass_scale, impulse_scale) = scales(step, spring, use_bias);
            let c = ends.angle(&p);
            let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
            let impulse = -mass_scale * p.angular_mass * (cdot + rate * c)
                - impulse_scale * joint.spring_impulse;
            let applied = accumulate(&mut joint.spring_impulse, impulse);
            ends.apply_angular(&p, applied);

            let r = ends.anchors(&p);
            let spring = linear.map(|_| &p.linear_spring);
            let (rate, mass_scale, impulse_scale) = scales(step, spring, use_bias);
            let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
            solve_point(joint, ends, r, rhs, [mass_scale, impulse_scale]);
        }
        JointModel::Prismatic {
            limits,
            motor,
            spring,
            ..
        } => {
            let r = ends.anchors(&p);
            if spring.is_some() {
                slide_spring(joint, ends, r);
            }
            if let Some([speed, max_force]) = motor {
                let s = slide(ends, &p, r);
                let cdot = s.axial_speed(ends) - speed;
                let max = drive_bound(step.h, max_force);
                let old = joint.motor_impulse;
                joint.motor_impulse = (old - s.axial_mass * cdot).clamp(-max, max);
                s.apply(ends, &p, joint.motor_impulse - old, 0.0, 0.0);
            }
            if let Some(limits) = limits {
                slide_limits(joint, ends, step, r, limits, use_bias);
            }
            // The normal to the axis and the angle, as one 2x2 block.
            let s = slide(ends, &p, r);
            let cdot = Vec2::new(
                s.perp.dot(ends.b.linear_velocity - ends.a.linear_velocity)
                    + s.s2 * ends.b.angular_velocity
                    - s.s1 * ends.a.angular_velocity,
                ends.b.angular_velocity - ends.a.angular_velocity,
            );
            let (rate, mass_scale, impulse_scale) = scales(step, None, use_bias);
            let c = Vec2::new(s.perp.dot(s.d), ends.angle(&p));
            let [ma, mb] = p.inv_mass;
            let [ia, ib] = p.inv_inertia;
            let k11 = ma + mb + ia * s.s1 * s.s1 + ib * s.s2 * s.s2;
            let k12 = ia * s.s1 + ib * s.s2;
            // A body pair that cannot turn still slides: a unit angular mass keeps K whole.
            let k22 = if ia + ib == 0.0 { 1.0 } else { ia + ib };
            let Some(solved) = solve22([k11, k12, k22], cdot + rate * c) else {
                return;
            };
            let impulse = -mass_scale * solved - impulse_scale * joint.linear_impulse;
            let applied = accumulate_vec(&mut joint.linear_impulse, impulse);
            s.apply(ends, &p, 0.0, applied.x, applied.y);
        }
        JointModel::Wheel {
            limits,
            motor,
            spring,
            ..
        } => {
            let r = ends.anchors(&p);
            if let Some(motor) = motor {
                angular_motor(joint, ends, step, motor);
            }
            if spring.is_some() {
                slide_spring(joint, ends, r);
            }
            if let Some(limits) = limits {
                slide_limits(joint, ends, step, r, limits, use_bias);
            }
            let s = slide(ends, &p, r);
            let cdot = s.perp.dot(ends.b.linear_velocity - ends.a.linear_velocity)
                + s.s2 * ends.b.angular_velocity
                - s.s1 * ends.a.angular_velocity;
            let mass = p.mass_along(s.s1, s.s2);
            let (bias, mass_scale, impulse_scale) = rigid(step, s.perp.dot(s.d), use_bias);
            let impulse =
                -mass_scale * mass * (cdot + bias) - impulse_scale * joint.linear_impulse.x;
            let applied = accumulate(&mut joint.linear_impulse.x, impulse);
            s.apply(ends, &p, 0.0, applied, 0.0);
        }
        JointModel::Filter => {}
        JointModel::Motor {
            max_force,
            max_torque,
            ..
        } => {
            // The drive's target speed is its gap's share per substep, in both passes:
            // the relax pass would otherwise stop what the solve pass started.
            let rate = MOTOR_CORRECTION / step.h;
            let cdot = ends.b.angular_velocity - ends.a.angular_velocity;
            let max = drive_bound(step.h, max_torque);
            let old = joint.motor_impulse;
            let impulse = -p.angular_mass * (cdot + rate * ends.angle(&p));
            joint.motor_impulse = (old + impulse).clamp(-max, max);
            ends.apply_angular(&p, joint.motor_impulse - old);

            let r = ends.anchors(&p);
            let rhs = ends.relative_velocity(r) + rate * ends.separation(&p, r);
            let Some(solved) = solve_k(&p, r, rhs) else {
                return;
            };
            let old = joint.linear_impulse;
            joint.linear_impulse = clamp_drive(old - solved, drive_bound(step.h, max_force));
            ends.apply_linear(&p, r, joint.linear_impulse - old);
        }
        JointModel::Mouse { max_force, .. } => {
            let rb = rotate(ends.b.delta_rotation, p.anchors[1]);
            let r = [Vec2::ZERO, rb];
            let cdot = ends.b.linear_velocity + cross_sv(ends.b.angular_velocity, rb);
            let separation = ends.b.delta_position + p.delta_center + rb;
            let s = p.spring;
            let Some(solved) = solve_k(&p, r, cdot + s.bias_rate * separation) else {
                return;
            };
            let old = joint.linear_impulse;
            let impulse = -s.mass_scale * solved - s.impulse_scale * old;
            joint.linear_impulse = clamp_drive(old + impulse, drive_bound(step.h, max_force));
            ends.apply_linear(&p, r, joint.linear_impulse - old);
        }
        JointModel::Distance {
            length,
            rigid: is_rigid,
            limits: [min, max],
            spring,
        } => {
            let r = ends.anchors(&p);
            let d = ends.separation(&p, r);
            let (current, axis) = (d.length(), d.normalize_or_zero());
            let axial_speed = |ends: &Ends<'_>| axis.dot(ends.relative_velocity(r));
            let mass = p.mass_along(cross(r[0], axis), cross(r[1], axis));
            if is_rigid {
                let (bias, mass_scale, impulse_scale) = rigid(step, current - length, use_bias);
                let impulse = -mass_scale * mass * (axial_speed(ends) + bias)
                    - impulse_scale * joint.linear_impulse.x;
                let applied = accumulate(&mut joint.linear_impulse.x, impulse);
                ends.apply_linear(&p, r, applied * axis);
                return;
            }
            if spring.is_some_and(|s| s.hertz > 0.0) {
                let s = p.spring;
                let impulse =
                    -s.mass_scale * mass * (axial_speed(ends) + s.bias_rate * (current - length))
                        - s.impulse_scale * joint.spring_impulse;
                let applied = accumulate(&mut joint.spring_impulse, impulse);
                ends.apply_linear(&p, r, applied * axis);
            }
            if let Some(min) = min {
                let (bias, mass_scale, impulse_scale) = one_sided(step, current - min, use_bias);
                let impulse = -mass_scale * mass * (axial_speed(ends) + bias)
                    - impulse_scale * joint.lower_impulse;
                let applied = clamp_positive(&mut joint.lower_impulse, impulse);
                ends.apply_linear(&p, r, applied * axis);
            }
            if let Some(max) = max {
                let (bias, mass_scale, impulse_scale) = one_sided(step, max - current, use_bias);
                let impulse = -mass_scale * mass * (-axial_speed(ends) + bias)
                    - impulse_scale * joint.upper_impulse;
                let applied = clamp_positive(&mut joint.upper_impulse, impulse);
                ends.apply_linear(&p, r, -applied * axis);
            }
        }
    }
}

/// A slider's geometry now (prismatic and wheel joints): the axis turned with A, its
/// normal, B's anchor from A's, and the levers of an impulse along each.
struct Slide {
    axis: Vec2,
    perp: Vec2,
    d: Vec2,
    /// Levers along the axis (A, B) and along its normal.
    a1: f32,
    a2: f32,
    s1: f32,
    s2: f32,
    /// B's anchor along the axis from A's.
    translation: f32,
    /// The effective mass along the axis.
    axial_mass: f32,
}

fn slide(ends: &Ends<'_>, p: &Prepared, r @ [ra, rb]: [Vec2; 2]) -> Slide {
    let axis = rotate(ends.a.delta_rotation, p.axis);
    let perp = axis.perp();
    let d = ends.separation(p, r);
    let (a1, a2) = (cross(d + ra, axis), cross(rb, axis));
    Slide {
        axis,
        perp,
        d,
        a1,
        a2,
        s1: cross(d + ra, perp),
        s2: cross(rb, perp),
        translation: axis.dot(d),
        axial_mass: p.mass_along(a1, a2),
    }
}

impl Slide {
    /// B's speed along the axis relative to A.
    fn axial_speed(&self, ends: &Ends<'_>) -> f32 {
        self.axis
            .dot(ends.b.linear_velocity - ends.a.linear_velocity)
            + self.a2 * ends.b.angular_velocity
            - self.a1 * ends.a.angular_velocity
    }

    /// Applies impulses along the axis and its normal and an angular one to B, and their
    /// opposites to A.
    fn apply(&self, ends: &mut Ends<'_>, p: &Prepared, axial: f32, normal: f32, angular: f32) {
        let impulse = axial * self.axis + normal * self.perp;
        let la = axial * self.a1 + normal * self.s1 + angular;
        let lb = axial * self.a2 + normal * self.s2 + angular;
        ends.a.linear_velocity -= p.inv_mass[0] * impulse;
        ends.a.angular_velocity -= p.inv_inertia[0] * la;
        ends.b.linear_velocity += p.inv_mass[1] * impulse;
        ends.b.angular_velocity += p.inv_inertia[1] * lb;
    }
}

/// A slider's translation held within `[lower, upper]` (one-sided each, as the distance
/// joint's limits).
fn slide_limits(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    r: [Vec2; 2],
    [lower, upper]: [f32; 2],
    use_bias: bool,
) {
    let p = joint.prepared;
    let s = slide(ends, &p, r);
    let (bias, mass_scale, impulse_scale) = one_sided(step, s.translation - lower, use_bias);
    let impulse = -mass_scale * s.axial_mass * (s.axial_speed(ends) + bias)
        - impulse_scale * joint.lower_impulse;
    let applied = clamp_positive(&mut joint.lower_impulse, impulse);
    s.apply(ends, &p, applied, 0.0, 0.0);

    let (bias, mass_scale, impulse_scale) = one_sided(step, upper - s.translation, use_bias);
    let impulse = -mass_scale * s.axial_mass * (-s.axial_speed(ends) + bias)
        - impulse_scale * joint.upper_impulse;
    let applied = clamp_positive(&mut joint.upper_impulse, impulse);
    s.apply(ends, &p, -applied, 0.0, 0.0);
}

/// `K^-1 rhs` for the point constraint's effective mass `K` (2x2) at anchors `ra`, `rb`;
/// `None` when `K` is singular (neither body moves).
fn solve_k(p: &Prepared, [ra, rb]: [Vec2; 2], rhs: Vec2) -> Option<Vec2> {
    let [ma, mb] = p.inv_mass;
    let [ia, ib] = p.inv_inertia;
    // K = (ma + mb) I + ia [ra]x^T [ra]x + ib [rb]x^T [rb]x, symmetric.
    let k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
    let k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    let k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
    solve22([k11, k12, k22], rhs)
}

/// `K^-1 rhs` for the symmetric `K = [[k11, k12], [k12, k22]]`; `None` when singular.
fn solve22([k11, k12, k22]: [f32; 3], rhs: Vec2) -> Option<Vec2> {
    let det = k11 * k22 - k12 * k12;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    Some(Vec2::new(k22 * rhs.x - k12 * rhs.y, k11 * rhs.y - k12 * rhs.x) / det)
}

/// A motor on the relative spin (`[speed, max torque]`): the accumulated impulse within
/// `max torque * h`.
fn angular_motor(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    step: &JointStep,
    [speed, max_torque]: [f32; 2],
) {
    let p = joint.prepared;
    let cdot = ends.b.angular_velocity - ends.a.angular_velocity - speed;
    let max = drive_bound(step.h, max_torque);
    let old = joint.motor_impulse;
    joint.motor_impulse = (old - p.angular_mass * cdot).clamp(-max, max);
    ends.apply_angular(&p, joint.motor_impulse - old);
}

/// A slider's spring on its translation (towards 0).
fn slide_spring(joint: &mut JointConstraint, ends: &mut Ends<'_>, r: [Vec2; 2]) {
    let p = joint.prepared;
    let s = slide(ends, &p, r);
    let sp = p.spring;
    let cdot = s.axial_speed(ends);
    let impulse = -sp.mass_scale * s.axial_mass * (cdot + sp.bias_rate * s.translation)
        - sp.impulse_scale * joint.spring_impulse;
    let applied = accumulate(&mut joint.spring_impulse, impulse);
    s.apply(ends, &p, applied, 0.0, 0.0);
}

/// A pin: B's anchor held on A's, `rhs` the relative velocity plus the bias; the impulse
/// is `-mass_scale K^-1 rhs - impulse_scale * accumulated`.
fn solve_point(
    joint: &mut JointConstraint,
    ends: &mut Ends<'_>,
    r: [Vec2; 2],
    rhs: Vec2,
    [mass_scale, impulse_scale]: [f32; 2],
) {
    let p = joint.prepared;
    let Some(solved) = solve_k(&p, r, rhs) else {
        return;
    };
    let impulse = -mass_scale * solved - impulse_scale * joint.linear_impulse;
    let applied = accumulate_vec(&mut joint.linear_impulse, impulse);
    ends.apply_linear(&p, r, applied);
}
