//! `#[repr(C)]` mirrors of the GPU world's solver structs (`shaders/solver.wgsl`), each
//! pinned to its WGSL size; the public one a host draws with, `BodyTransformGpu`, is in
//! [`gpu::layout`](crate::gpu::layout). The body state needs no mirror: the solver's own
//! `BodyState` (32 bytes, `src/dynamics/state.rs`) is WGSL's `BodyState` byte for byte.

use bytemuck::{Pod, Zeroable};

use glam::Vec2;

use crate::broad_phase::sort_sweep::box_hash;
use crate::dynamics::solver::JointConstraint;
use crate::dynamics::state::BodyState;

const _: () = assert!(size_of::<BodyState>() == 32);

/// WGSL `BodyPose`: a body's centre of mass (world frame) and rotation `(cos, sin)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct BodyPoseGpu {
    pub center: [f32; 2],
    pub rotation: [f32; 2],
}
const _: () = assert!(size_of::<BodyPoseGpu>() == 16);

/// WGSL `BodyInfo`: what the stages read of a body besides its state and pose.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct BodyInfoGpu {
    /// The centre of mass in the body's frame.
    pub local_center: [f32; 2],
    /// The body's own inverse rotational inertia (`BodyMaterial::inv_inertia`).
    pub inv_inertia: f32,
    /// `BodyMaterial::max_extent`: the longest lever a contact acts on.
    pub lever_extent: f32,
    /// `Body::max_extent`: the spin clamp's reach.
    pub body_extent: f32,
    /// Bit 0 ([`KINEMATIC`]): the body is kinematic.
    pub flags: u32,
    pub gravity_scale: f32,
    /// Counter-clockwise, applied since the last step.
    pub torque: f32,
    /// World frame, through the centre of mass, applied since the last step.
    pub force: [f32; 2],
    pub linear_damping: f32,
    pub angular_damping: f32,
}
const _: () = assert!(size_of::<BodyInfoGpu>() == 48);

/// [`BodyInfoGpu::flags`]: the body is kinematic (it moves by its velocity, with zero
/// inverse mass).
pub(crate) const KINEMATIC: u32 = 1;

/// WGSL `ConstraintPoint`: one manifold point of a contact constraint. The host writes
/// `point`, `depth` and the warm start; `prepare_contacts` the rest.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct ConstraintPointGpu {
    /// World frame.
    pub point: [f32; 2],
    /// The point minus each centre of mass, world frame, at the step's start.
    pub anchor_a: [f32; 2],
    pub anchor_b: [f32; 2],
    /// Positive when overlapping.
    pub depth: f32,
    pub base_separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: f32,
    /// The warm start in, the accumulated impulses out.
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    /// The largest normal impulse one pass applied (hit events).
    pub max_normal_impulse: f32,
    /// The normal velocity at the step's start, negative when approaching.
    pub relative_velocity: f32,
}
const _: () = assert!(size_of::<ConstraintPointGpu>() == 56);

/// WGSL `Constraint`: one contact constraint, in contact order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct ConstraintGpu {
    pub bodies: [u32; 2],
    /// From A to B, world frame.
    pub normal: [f32; 2],
    pub friction: f32,
    pub restitution: f32,
    pub tangent_speed: f32,
    /// Points in the manifold, 1 or 2.
    pub count: u32,
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
    /// Bit 0: A moves; bit 1: B moves.
    pub moving: u32,
    pub inv_mass_a: f32,
    pub inv_inertia_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_b: f32,
    pub points: [ConstraintPointGpu; 2],
}
const _: () = assert!(size_of::<ConstraintGpu>() == 176);

/// WGSL `Joint` (`shaders/joints.wgsl`): one joint as `prepare_joints` left it, with its
/// accumulated impulses (read back after the step).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct JointGpu {
    pub bodies: [u32; 2],
    /// [`JOINT_REVOLUTE`], [`JOINT_DISTANCE`], [`JOINT_WELD`], [`JOINT_PRISMATIC`],
    /// [`JOINT_WHEEL`], [`JOINT_MOTOR_KIND`] or [`JOINT_MOUSE`].
    pub kind: u32,
    /// [`JOINT_IDLE`], [`JOINT_MOTOR`], [`JOINT_RIGID`], [`JOINT_SPRUNG`],
    /// [`JOINT_LOWER`], [`JOINT_UPPER`], [`JOINT_LINEAR_SPRING`].
    pub flags: u32,
    /// From each body's centre of mass, world frame, at the step's start.
    pub anchor_a: [f32; 2],
    pub anchor_b: [f32; 2],
    pub delta_center: [f32; 2],
    pub inv_mass: [f32; 2],
    pub inv_inertia: [f32; 2],
    pub angular_mass: f32,
    pub length: f32,
    /// The spring (the angle's or the length's): bias rate, mass scale, impulse scale.
    pub spring: [f32; 3],
    pub motor_speed: f32,
    /// The motor's bound over the substep.
    pub motor_max: f32,
    /// The limits: the revolute joint's angle, the distance joint's length.
    pub lower: f32,
    pub upper: f32,
    /// The joint angle at the step's start (revolute, weld, prismatic).
    pub delta_angle: f32,
    pub linear_impulse: [f32; 2],
    /// Spring, motor, lower, upper.
    pub impulses: [f32; 4],
    /// The weld's anchor spring: bias rate, mass scale, impulse scale.
    pub linear_spring: [f32; 3],
    /// The motor and mouse joints' bound on the point impulse over the substep.
    pub force_max: f32,
    /// The prismatic joint's axis, world frame at the step's start.
    pub axis: [f32; 2],
}
const _: () = assert!(size_of::<JointGpu>() == 144);

/// [`JointGpu::kind`]: a revolute joint.
pub(crate) const JOINT_REVOLUTE: u32 = 0;
/// [`JointGpu::kind`]: a distance joint.
pub(crate) const JOINT_DISTANCE: u32 = 1;
/// [`JointGpu::kind`]: a weld joint.
pub(crate) const JOINT_WELD: u32 = 2;
/// [`JointGpu::kind`]: a prismatic joint.
pub(crate) const JOINT_PRISMATIC: u32 = 3;
/// [`JointGpu::kind`]: a wheel joint.
pub(crate) const JOINT_WHEEL: u32 = 4;
/// [`JointGpu::kind`]: a motor joint.
pub(crate) const JOINT_MOTOR_KIND: u32 = 5;
/// [`JointGpu::kind`]: a mouse joint.
pub(crate) const JOINT_MOUSE: u32 = 6;
/// [`JointGpu::flags`]: both bodies stand still this step.
pub(crate) const JOINT_IDLE: u32 = 1;
/// [`JointGpu::flags`]: the revolute joint has a motor.
pub(crate) const JOINT_MOTOR: u32 = 2;
/// [`JointGpu::flags`]: the distance is held rigidly.
pub(crate) const JOINT_RIGID: u32 = 4;
/// [`JointGpu::flags`]: the joint has a spring (a distance joint's, of positive hertz).
pub(crate) const JOINT_SPRUNG: u32 = 8;
/// [`JointGpu::flags`]: a lower limit (a revolute joint's limits set both bits).
pub(crate) const JOINT_LOWER: u32 = 16;
/// [`JointGpu::flags`]: an upper limit.
pub(crate) const JOINT_UPPER: u32 = 32;
/// [`JointGpu::flags`]: the weld's anchor spring.
pub(crate) const JOINT_LINEAR_SPRING: u32 = 64;

/// [`JointDefGpu::flags`], besides the static bits of [`JointGpu::flags`]: body A is
/// kinematic.
pub(crate) const DEF_KINEMATIC_A: u32 = 1 << 16;
/// [`JointDefGpu::flags`]: body B is kinematic.
pub(crate) const DEF_KINEMATIC_B: u32 = 1 << 17;
/// [`JointDefGpu::flags`]: the joint angle at the step's start is prepared.
pub(crate) const DEF_ANGLE: u32 = 1 << 18;
/// [`JointDefGpu::flags`]: the slot has nothing to prepare (vacant, a filter joint): its
/// joint is zeros, marked idle.
pub(crate) const DEF_NONE: u32 = 1 << 19;
/// The bits of [`JointGpu::flags`] that a [`JointDefGpu`] carries (all but idle, which the
/// bodies' states decide each step).
const STATIC_FLAGS: u32 =
    JOINT_MOTOR | JOINT_RIGID | JOINT_SPRUNG | JOINT_LOWER | JOINT_UPPER | JOINT_LINEAR_SPRING;

/// WGSL `JointDef` (`shaders/joint_prepare.wgsl`): what the device prepares a joint from, besides
/// its bodies' poses and states and its impulses of the last step, 112 bytes. It changes
/// only with the joint, its bodies' mass and type, and the substep: kept on the device and
/// sent when it changes (`prepare_joints` then writes the joint's [`JointGpu`] there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct JointDefGpu {
    pub bodies: [u32; 2],
    pub kind: u32,
    /// The static bits of [`JointGpu::flags`], and `DEF_*`.
    pub flags: u32,
    /// Each anchor from its body's centre of mass, in the body's frame.
    pub arms: [[f32; 2]; 2],
    /// Each body's own inverse inertia (the solver's is zero while it does not move).
    pub inertia: [f32; 2],
    /// The prismatic and wheel joints' axis, in A's frame.
    pub local_axis: [f32; 2],
    /// The mouse joint's target, world frame.
    pub target: [f32; 2],
    pub reference_angle: f32,
    /// [`JointGpu`]'s fields of the same names, as the host prepared them.
    pub length: f32,
    pub spring: [f32; 3],
    pub motor_speed: f32,
    pub motor_max: f32,
    pub lower: f32,
    pub upper: f32,
    pub linear_spring: [f32; 3],
    pub force_max: f32,
    pub _pad: u32,
}
const _: () = assert!(size_of::<JointDefGpu>() == 112);

/// The definition of `joint`, whose record the host prepared as `record` (`joint_gpu`),
/// between bodies whose centres of mass (body frame), own inverse inertias and kinematic
/// flags `body` gives.
pub(crate) fn joint_def_gpu(
    joint: &JointConstraint,
    record: &JointGpu,
    body: impl Fn(u32) -> ([f32; 2], f32, bool),
) -> JointDefGpu {
    let Some(frame) = joint.offloaded_frame() else {
        return JointDefGpu {
            flags: DEF_NONE,
            ..JointDefGpu::zeroed()
        };
    };
    let [
        (center_a, inertia_a, kinematic_a),
        (center_b, inertia_b, kinematic_b),
    ] = joint.bodies.map(&body);
    let flag = |on: bool, bit: u32| if on { bit } else { 0 };
    let arm = |k: usize, center: [f32; 2]| (frame.local_anchors[k] - Vec2::from(center)).to_array();
    JointDefGpu {
        bodies: joint.bodies,
        kind: record.kind,
        flags: (record.flags & STATIC_FLAGS)
            | flag(kinematic_a, DEF_KINEMATIC_A)
            | flag(kinematic_b, DEF_KINEMATIC_B)
            | flag(frame.angle, DEF_ANGLE),
        arms: [arm(0, center_a), arm(1, center_b)],
        inertia: [inertia_a, inertia_b],
        local_axis: frame.local_axis.unwrap_or_default().to_array(),
        target: frame.target.unwrap_or_default().to_array(),
        reference_angle: frame.reference_angle,
        length: record.length,
        spring: record.spring,
        motor_speed: record.motor_speed,
        motor_max: record.motor_max,
        lower: record.lower,
        upper: record.upper,
        linear_spring: record.linear_spring,
        force_max: record.force_max,
        _pad: 0,
    }
}

/// The hash of joint `k`'s record that `hash_joints` sums over the device's prepared
/// joints (`joint_prepare.wgsl`'s `prepared_hash`): [`box_hash`] folded over its 36 words.
pub(crate) fn prepared_hash(k: u32, j: &JointGpu) -> u32 {
    let words: &[u32; 36] = bytemuck::cast_ref(j);
    (words.chunks_exact(4)).fold(k, |h, w| box_hash(h, [w[0], w[1], w[2], w[3]]))
}

/// WGSL `JointImpulses` (`shaders/joints.wgsl`): a joint's accumulated impulses, all the
/// host reads back of it (`store_joints`; a [`JointGpu`] is 144 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct JointImpulsesGpu {
    pub linear_impulse: [f32; 2],
    /// Spring, motor, lower, upper.
    pub impulses: [f32; 4],
}
const _: () = assert!(size_of::<JointImpulsesGpu>() == 24);

/// WGSL `Stored`: two values per point of a contact, what the store stage keeps of a
/// contact constraint and all the host reads back of it: per contact its impulses, per
/// point (normal, tangent) held to `MAX_IMPULSE`; after them, per contact its hit
/// measures, per point (approach speed, largest normal impulse of one pass), read back
/// only when hit events are asked for.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct StoredGpu {
    pub per_point: [[f32; 2]; 2],
}
const _: () = assert!(size_of::<StoredGpu>() == 16);

/// WGSL `SolverParams`: one dispatch's uniform.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct SolverParamsGpu {
    /// The substep, seconds, and its inverse.
    pub h: f32,
    pub inv_h: f32,
    pub gravity: [f32; 2],
    pub max_speed: f32,
    /// Radians per second.
    pub max_turn: f32,
    /// A body pass: 0 and the body count; a colour pass: its range in the order.
    pub first: u32,
    pub count: u32,
    /// (bias rate, mass scale, impulse scale).
    pub soft: [f32; 3],
    pub half_speculative: f32,
    pub static_soft: [f32; 3],
    /// [`CUSTOM_FORCES`], [`OVERFLOW`], [`LAST_SUBSTEP`].
    pub flags: u32,
    /// Always 0 (keep()'s flag).
    pub never: u32,
    /// The joints' rigid softness: (bias rate, mass scale, impulse scale).
    pub joint_soft: [f32; 3],
}
const _: () = assert!(size_of::<SolverParamsGpu>() == 80);

/// [`SolverParamsGpu::flags`]: some body has forces, damping or a gravity scale.
pub(crate) const CUSTOM_FORCES: u32 = 1;
/// [`SolverParamsGpu::flags`]: the overflow colour, solved in one invocation, in order,
/// [`OVERFLOW_CHUNK`] constraints a dispatch from [`SolverParamsGpu::count`] on.
pub(crate) const OVERFLOW: u32 = 2;
/// The overflow's constraints one dispatch solves (one invocation, in order): lavapipe ends
/// an invocation's loops after 65,535 iterations in all (docs/reliability.md), and a
/// revolute joint's pass, the longest, runs some 140 (its soft-f64 division and angle),
/// so 64 stay far within it; a dispatch (some 5 microseconds on an H200) is small beside
/// 64 constraints solved one after another.
pub(crate) const OVERFLOW_CHUNK: usize = 64;
/// [`SolverParamsGpu::flags`]: the last substep, which sets the poses.
pub(crate) const LAST_SUBSTEP: u32 = 4;

/// WGSL `ColourParams` (`shaders/colouring.wgsl`): one dispatch's uniform.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct ColourParamsGpu {
    /// Constraints (the contacts, then the joints), and the contacts among them.
    pub count: u32,
    pub contacts: u32,
    pub bodies: u32,
    /// Words of moving bits at the head of the input.
    pub moving_words: u32,
    /// Constraints coloured last step.
    pub previous: u32,
    /// A round's number (from 1), or the rounds before a finisher.
    pub round: u32,
    /// Items of the dispatch (a serial kernel's chunk: its length), and the chunk's first.
    pub len: u32,
    pub first: u32,
}
const _: () = assert!(size_of::<ColourParamsGpu>() == 32);

/// A joint as `joints.wgsl` takes it: a slot the passes never visit (vacant, a filter
/// joint) is zeros, marked idle.
pub(crate) fn joint_gpu(joint: &JointConstraint, h: f32) -> JointGpu {
    let Some(j) = joint.live.then(|| joint.offloaded(h)).flatten() else {
        return JointGpu {
            flags: JOINT_IDLE,
            ..JointGpu::zeroed()
        };
    };
    let flag = |on: bool, bit: u32| if on { bit } else { 0 };
    let [min, max] = j.limits;
    let [motor_speed, motor_max] = j.motor.unwrap_or([0.0; 2]);
    JointGpu {
        bodies: joint.bodies,
        kind: [
            JOINT_REVOLUTE,
            JOINT_DISTANCE,
            JOINT_WELD,
            JOINT_PRISMATIC,
            JOINT_WHEEL,
            JOINT_MOTOR_KIND,
            JOINT_MOUSE,
        ][j.kind as usize],
        flags: flag(j.idle, JOINT_IDLE)
            | flag(j.motor.is_some(), JOINT_MOTOR)
            | flag(j.rigid, JOINT_RIGID)
            | flag(j.sprung, JOINT_SPRUNG)
            | flag(min.is_some(), JOINT_LOWER)
            | flag(max.is_some(), JOINT_UPPER)
            | flag(j.linear_spring.is_some(), JOINT_LINEAR_SPRING),
        anchor_a: j.anchors[0].to_array(),
        anchor_b: j.anchors[1].to_array(),
        delta_center: j.delta_center.to_array(),
        inv_mass: j.inv_mass,
        inv_inertia: j.inv_inertia,
        angular_mass: j.angular_mass,
        length: j.length,
        spring: [
            j.spring.bias_rate,
            j.spring.mass_scale,
            j.spring.impulse_scale,
        ],
        motor_speed,
        motor_max,
        lower: min.unwrap_or(0.0),
        upper: max.unwrap_or(0.0),
        delta_angle: j.delta_angle,
        linear_spring: j
            .linear_spring
            .map_or([0.0; 3], |s| [s.bias_rate, s.mass_scale, s.impulse_scale]),
        force_max: j.force_max,
        axis: j.axis.to_array(),
        linear_impulse: j.linear_impulse.to_array(),
        impulses: j.impulses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::contact_input::{ContactInputGpu, LastContactGpu, WarmStartGpu};
    use crate::gpu::layout::BodyTransformGpu;
    use crate::gpu::world::SOLVER_WGSL;
    use crate::gpu::world::wgsl_checks::{literals, struct_size, validated};

    fn module() -> naga::Module {
        validated(SOLVER_WGSL)
    }

    #[test]
    fn solver_wgsl_validates_and_its_structs_match_their_mirrors() {
        let m = module();
        let size = |name: &str| struct_size(&m, name);
        for (name, rust) in [
            ("BodyState", size_of::<BodyState>()),
            ("BodyPose", size_of::<BodyPoseGpu>()),
            ("BodyInfo", size_of::<BodyInfoGpu>()),
            ("BodyTransform", size_of::<BodyTransformGpu>()),
            ("ConstraintPoint", size_of::<ConstraintPointGpu>()),
            ("Constraint", size_of::<ConstraintGpu>()),
            ("ContactInput", size_of::<ContactInputGpu>()),
            ("WarmStart", size_of::<WarmStartGpu>()),
            ("LastContact", size_of::<LastContactGpu>()),
            ("SolverParams", size_of::<SolverParamsGpu>()),
            ("Joint", size_of::<JointGpu>()),
            ("Stored", size_of::<StoredGpu>()),
            ("JointImpulses", size_of::<JointImpulsesGpu>()),
            ("JointDef", size_of::<JointDefGpu>()),
        ] {
            assert_eq!(size(name), rust, "{name}");
        }
    }

    /// The constants `solver.wgsl` repeats are the Rust side's.
    #[test]
    fn solver_constants_match_the_rust_side() {
        use crate::dynamics::solver::MAX_PUSH_SPEED;
        use crate::dynamics::state::{
            MAX_ANGULAR_SPEED, MAX_IMPULSE, MAX_LINEAR_SPEED_LIMIT, RESTITUTION_THRESHOLD,
        };
        let m = module();
        let value = |name: &str| match literals(&m, name)[..] {
            [naga::Literal::F32(v)] => v,
            ref other => panic!("{name}: {other:?}"),
        };
        for (name, rust) in [
            ("MAX_LINEAR_SPEED_LIMIT", MAX_LINEAR_SPEED_LIMIT),
            ("MAX_ANGULAR_SPEED", MAX_ANGULAR_SPEED),
            ("MAX_PUSH_SPEED", MAX_PUSH_SPEED),
            ("RESTITUTION_THRESHOLD", RESTITUTION_THRESHOLD),
            ("MAX_IMPULSE", MAX_IMPULSE),
        ] {
            assert_eq!(value(name).to_bits(), rust.to_bits(), "{name}");
        }
        assert_eq!(
            literals(&m, "OVERFLOW_CHUNK"),
            [naga::Literal::U32(OVERFLOW_CHUNK as u32)]
        );
        for (name, rust) in [
            ("DEF_KINEMATIC_A", DEF_KINEMATIC_A),
            ("DEF_KINEMATIC_B", DEF_KINEMATIC_B),
            ("DEF_ANGLE", DEF_ANGLE),
            ("DEF_NONE", DEF_NONE),
            ("IDLE", JOINT_IDLE),
            ("MOTOR", JOINT_MOTOR),
            ("RIGID", JOINT_RIGID),
            ("SPRUNG", JOINT_SPRUNG),
            ("LOWER", JOINT_LOWER),
            ("UPPER", JOINT_UPPER),
            ("LINEAR_SPRING", JOINT_LINEAR_SPRING),
        ] {
            assert_eq!(literals(&m, name), [naga::Literal::U32(rust)], "{name}");
        }
    }

    /// Each helper of `solver.wgsl` with a Rust twin has it, under the same name, in the
    /// solver's files.
    #[test]
    fn every_solver_step_has_its_rust_twin_name() {
        let m = module();
        let rust = [
            include_str!("../../dynamics/solver/mod.rs"),
            include_str!("../../dynamics/solver/stages.rs"),
            include_str!("../../dynamics/solver/contact_simd.rs"),
            include_str!("../../dynamics/state.rs"),
            include_str!("../../dynamics/forces.rs"),
            include_str!("../../dynamics/joints/mod.rs"),
            include_str!("../../dynamics/joints/parts.rs"),
            include_str!("../../dynamics/joints/impulse_bound.rs"),
            include_str!("../../dynamics/joints/slide.rs"),
            include_str!("../../math.rs"),
        ]
        .concat();
        for name in [
            "clamp_velocity",
            "clamp_length",
            "max_spin",
            "integrate_forces",
            "integrate_rotation",
            "lever",
            "relative_velocity",
            "apply",
            "gather",
            "scatter",
            "accumulate",
            "accumulate_vec",
            "clamp_positive",
            "inverse_or_zero",
            "scales",
            "rigid",
            "one_sided",
            "solve_k",
            "solve22",
            "warm_start_pin",
            "angular_motor",
            "clamp_speed_and_turn",
            "run_joints",
            "relative_angle",
            "unwind",
            "atan2_small",
            "atan_unit",
            "solve_point",
            "slide",
            "slide_spring",
            "slide_limits",
            "clamp_drive",
        ] {
            assert!(
                m.functions
                    .iter()
                    .any(|(_, f)| f.name.as_deref() == Some(name)),
                "solver.wgsl lacks fn {name}"
            );
            assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
        }
        // The joints' prepare is a kernel of its own, named as the host's stage.
        assert!(m.entry_points.iter().any(|e| e.name == "prepare_joints"));
        assert!(rust.contains("fn prepare_joints("));
    }
}
