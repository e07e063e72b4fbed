//! What the world accepts and what it holds: one table of ranges for every number a body,
//! a joint or a setting may have, and the checks that turn a value outside them into an
//! error naming it. `add_body`, `add_joint`, every setter and the snapshot reader check
//! through these functions, so a world the API built is one the reader reads.
//!
//! ```text
//! bodies   position, anchors, targets  |x| <= MAX_COORDINATE (1e12) a coordinate
//!          mass, rotational inertia     MASS_RANGE (1e-24 to 1e24), dynamic bodies
//!          linear velocity (given)      length <= MAX_LINEAR_SPEED_LIMIT (1e6)
//!          angular velocity (given)     |w| <= MAX_ANGULAR_SPEED (1e8)
//!          force, torque (pending)      force / mass <= MAX_ACCELERATION (1e12) a component
//!          damping                      finite, >= 0
//!          gravity scale                |s| <= MAX_GRAVITY_SCALE (1e6)
//! joints   angle limits, targets        [-pi, pi]
//!          length and slide limits      |x| <= MAX_JOINT_LENGTH (4e12); lengths >= 0
//!          motor speed                  |s| <= MAX_ANGULAR_SPEED (revolute, wheel), or
//!                                       MAX_LINEAR_SPEED_LIMIT (prismatic)
//!          max force, torque            >= 0 (infinity, or none: no bound)
//!          spring hertz, damping ratio  finite, >= 0
//!          break force, torque          >= 0 (infinite: never breaks)
//!          tangent speed (materials)    |s| <= MAX_LINEAR_SPEED_LIMIT
//! stored   positions, boxes             |x| <= GEOMETRY_LIMIT (1e18), where the step may
//!                                       carry a body (the reader's bound)
//!          velocities                   |v| <= MOTION_LIMIT (1e18) (the reader's bound)
//! solver   accumulated impulses         clamped to |j| <= MAX_IMPULSE (1e25), contacts' and
//!                                       joints' alike
//! ```
//!
//! A value given outside its range is refused, naming the field, the value and the range,
//! and the world is unchanged. The step keeps what it computes within the table: speeds are
//! clamped (`World::max_linear_speed`, a quarter turn per substep) and impulses to
//! `MAX_IMPULSE`, so no step reaches a state its snapshot cannot hold.

use glam::Vec2;

use crate::dynamics::joints::JointSpring;
use crate::dynamics::solver::Spring;
use crate::error::Error;
use crate::error::{JointError, WorldError};
use crate::shapes::body_shape::MassProperties;

/// The range a dynamic body's mass and rotational inertia must lie in. Impulses scale with
/// them: at 1e24 and a speed of some hundreds of units per second, the solver's products stay
/// below 1e30, far from f32's limit of 3.4e38, and at 1e-24 their inverses do too. An
/// ordinary body of density 1 and a size from 1e-5 to 1e5 units lies well inside.
pub const MASS_RANGE: std::ops::RangeInclusive<f32> = 1e-24..=1e24;

/// The largest coordinate a body's position, and the farthest reach of its shape from its
/// origin, may have. At 1e12 the spacing of f32 values is about 65,000 units: no motion of
/// one step survives the rounding there, and a square of two such coordinates is still far
/// below f32's range.
pub const MAX_COORDINATE: f32 = 1e12;

/// The default of [`World::max_linear_speed`](crate::World::max_linear_speed), units per second: Box2D v3's default (400
/// meters per second), which no scene of bodies about one unit large reaches on purpose.
pub const DEFAULT_MAX_LINEAR_SPEED: f32 = 400.0;

/// The largest [`World::set_max_linear_speed`](crate::World::set_max_linear_speed) takes,
/// the longest velocity a body may be given, and the fastest a prismatic motor drives
/// (defined with the solver, which also holds every body to it within a substep).
pub use crate::dynamics::state::MAX_LINEAR_SPEED_LIMIT;

/// The fastest spin a body may be given, and the fastest a revolute or wheel motor drives
/// (defined with the solver, which also holds every body to it within a substep).
pub use crate::dynamics::state::MAX_ANGULAR_SPEED;

/// The range of [`World::step`](crate::World::step)'s time step, seconds. Below a microsecond the substep's
/// inverse that the soft contacts use grows past 1e6 and rounding dominates; above ten
/// seconds a body at the speed limit crosses 4,000 units in one step, and no contact would be
/// seen in between.
pub const TIME_STEP_RANGE: std::ops::RangeInclusive<f32> = 1e-6..=10.0;

/// The most solver substeps [`World::set_substeps`](crate::World::set_substeps) takes.
pub const MAX_SUBSTEPS: usize = 64;

/// The most acceleration an applied force or torque may give a body, in units (radians)
/// per second squared a component: the bound the world's gravity has (see
/// [`MAX_COORDINATE`]), so that a substep's change of velocity stays finite.
pub const MAX_ACCELERATION: f32 = 1e12;

/// The largest gravity scale a body takes, in magnitude: with gravity at most
/// [`MAX_COORDINATE`] a component, a substep's change of velocity stays far inside f32 (the
/// speed clamp then holds it), while a million times gravity is more than any scene means.
pub const MAX_GRAVITY_SCALE: f32 = 1e6;

/// The longest length a joint holds, and the largest magnitude of a distance, prismatic or
/// wheel joint's limits: two anchors within [`MAX_COORDINATE`] of the origin are at most
/// 2.9e12 apart, and past that the limit could never be reached.
pub const MAX_JOINT_LENGTH: f32 = 4.0 * MAX_COORDINATE;

/// The most any accumulated impulse of the solver may reach (defined with the solver,
/// which holds every impulse to it; listed here with the rest of the table).
pub use crate::dynamics::state::MAX_IMPULSE;

/// The farthest from the origin a stored coordinate may be (a body's centre, a box, a kept
/// contact point: what the snapshot reader accepts). Bodies are placed within
/// [`MAX_COORDINATE`]; the step carries them on at most `max_linear_speed * dt` a step, and at
/// the highest limits (1e6 units per second, steps of 10 s) a body needs 1e11 steps to get
/// from there to here, where the squares of coordinates are still finite.
pub(super) const GEOMETRY_LIMIT: f32 = 1e18;

/// The fastest a stored velocity may be (what the snapshot reader accepts). A given one is
/// within [`MAX_LINEAR_SPEED_LIMIT`] and [`MAX_ANGULAR_SPEED`]; the solver ends the step with
/// every speed clamped to the world's limits, and the continuous stage's impacts after it
/// add at most a few times the speed at which two bodies met, far below this.
pub(super) const MOTION_LIMIT: f32 = 1e18;

/// An error naming a body field unless `ok`.
pub(super) fn check(
    field: &'static str,
    value: f32,
    ok: bool,
    rule: &'static str,
) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::World(WorldError::InvalidBody { field, value, rule }))
    }
}

/// A gravity the step can integrate: each component finite and at most
/// [`MAX_COORDINATE`], so that a substep's change of velocity stays finite.
pub(super) fn check_gravity(gravity: Vec2) -> Result<(), Error> {
    for value in [gravity.x, gravity.y] {
        if !value.is_finite() || value.abs() > MAX_COORDINATE {
            return Err(Error::World(WorldError::InvalidSetting {
                name: "gravity",
                value,
                rule: "finite and at most MAX_COORDINATE (1e12) a component",
            }));
        }
    }
    Ok(())
}

/// Both components finite; the error names the first that is not.
pub(super) fn check_vec(field: &'static str, v: Vec2) -> Result<(), Error> {
    check(field, v.x, v.x.is_finite(), "finite")?;
    check(field, v.y, v.y.is_finite(), "finite")
}

/// Whether a body may hold `v` as its linear velocity when given it: finite and at most
/// [`MAX_LINEAR_SPEED_LIMIT`] long. (Each component is tested first, so the length's
/// squares cannot overflow.)
pub(super) fn linear_speed_ok(v: Vec2) -> bool {
    v.is_finite()
        && v.abs().max_element() <= MAX_LINEAR_SPEED_LIMIT
        && v.length() <= MAX_LINEAR_SPEED_LIMIT
}

/// Whether a body may hold `w` as its spin when given it: at most [`MAX_ANGULAR_SPEED`].
pub(super) fn angular_speed_ok(w: f32) -> bool {
    w.abs() <= MAX_ANGULAR_SPEED
}

/// The component of `v` an error reports: one that is not finite, else the larger.
pub(super) fn worst_component(v: Vec2) -> f32 {
    if !v.x.is_finite() || (v.y.is_finite() && v.x.abs() >= v.y.abs()) {
        v.x
    } else {
        v.y
    }
}

/// A velocity a body is given ([`BodyDef`](crate::BodyDef), `set_velocity`): within
/// [`MAX_LINEAR_SPEED_LIMIT`] and [`MAX_ANGULAR_SPEED`], else an error naming it.
pub(super) fn check_velocity(linear: Vec2, angular: f32) -> Result<(), Error> {
    check(
        "linear_velocity",
        worst_component(linear),
        linear_speed_ok(linear),
        LINEAR_SPEED_RULE,
    )?;
    check(
        "angular_velocity",
        angular,
        angular_speed_ok(angular),
        ANGULAR_SPEED_RULE,
    )
}

/// The rule of a given linear velocity.
pub(super) const LINEAR_SPEED_RULE: &str = "finite and at most MAX_LINEAR_SPEED_LIMIT (1e6) long";
/// The rule of a given spin.
pub(super) const ANGULAR_SPEED_RULE: &str =
    "finite and at most MAX_ANGULAR_SPEED (1e8) in magnitude";

/// A surface's tangent speed (a conveyor belt): within [`MAX_LINEAR_SPEED_LIMIT`], since
/// friction drives what touches it to that speed within a substep, before the next clamp.
pub(super) fn tangent_speed_ok(speed: f32) -> bool {
    speed.abs() <= MAX_LINEAR_SPEED_LIMIT
}

/// The rule of a tangent speed.
pub(super) const TANGENT_SPEED_RULE: &str =
    "finite and at most MAX_LINEAR_SPEED_LIMIT (1e6) in magnitude";

/// A dynamic body's mass and rotational inertia within [`MASS_RANGE`], else an error
/// naming the one outside.
pub(super) fn check_mass(mass: &MassProperties) -> Result<(), Error> {
    let rule = "within MASS_RANGE (1e-24 to 1e24): change the density";
    check("mass", mass.mass, MASS_RANGE.contains(&mass.mass), rule)?;
    let inertia = mass.inertia;
    check(
        "rotational inertia",
        inertia,
        MASS_RANGE.contains(&inertia),
        rule,
    )
}

/// Whether a density can give a dynamic body its mass.
pub(super) fn density_ok(density: f32) -> bool {
    density.is_finite() && density > 0.0
}

/// A damping the solver can apply: finite, 0 or more (a negative one would add energy).
pub(super) fn check_damping(field: &'static str, damping: f32) -> Result<(), Error> {
    check(
        field,
        damping,
        damping.is_finite() && damping >= 0.0,
        "finite and 0 or more",
    )
}

/// A gravity scale within [`MAX_GRAVITY_SCALE`].
pub(super) fn check_gravity_scale(scale: f32) -> Result<(), Error> {
    check(
        "gravity_scale",
        scale,
        scale.abs() <= MAX_GRAVITY_SCALE,
        "finite and at most MAX_GRAVITY_SCALE (1e6) in magnitude",
    )
}

/// An error naming a joint field unless `ok` ([`check`]'s, as a joint's).
pub(super) fn check_joint(
    field: &'static str,
    value: f32,
    ok: bool,
    rule: &'static str,
) -> Result<(), Error> {
    check(field, value, ok, rule)
        .map_err(|_| Error::Joint(JointError::InvalidJoint { field, value, rule }))
}

/// A point (or axis) of a joint: finite and within `MAX_COORDINATE`, as a body's position
/// must be (a lever of 1e17 overflows the solver's products).
pub(super) fn check_point(field: &'static str, v: Vec2) -> Result<(), Error> {
    for value in [v.x, v.y] {
        let ok = value.is_finite() && value.abs() <= MAX_COORDINATE;
        check_joint(field, value, ok, "finite and at most MAX_COORDINATE (1e12)")?;
    }
    Ok(())
}

/// A joint angle (a reference angle, a motor joint's target): within [-π, π].
pub(super) fn check_angle(field: &'static str, angle: f32) -> Result<(), Error> {
    use std::f32::consts::PI;
    let ok = (-PI..=PI).contains(&angle);
    check_joint(field, angle, ok, "finite and within [-π, π]")
}

/// The spring as the solver takes it, once checked. Any finite hertz works: the solver
/// works the coefficients out in f64, and a spring stiffer than the substep acts rigid.
pub(super) fn checked_spring(spring: Option<JointSpring>) -> Result<Option<Spring>, Error> {
    let Some(s) = spring else { return Ok(None) };
    let rule = "finite and 0 or more";
    let ok = |v: f32| v.is_finite() && v >= 0.0;
    check_joint("spring hertz", s.hertz, ok(s.hertz), rule)?;
    check_joint(
        "spring damping_ratio",
        s.damping_ratio,
        ok(s.damping_ratio),
        rule,
    )?;
    Ok(Some(Spring {
        hertz: s.hertz,
        damping_ratio: s.damping_ratio,
    }))
}

/// What a joint's limits measure, and so their range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LimitKind {
    /// A revolute joint's angles: within [-π, π].
    Angle,
    /// A distance joint's lengths: from 0 to [`MAX_JOINT_LENGTH`].
    Length,
    /// A prismatic or wheel joint's translations: within ±[`MAX_JOINT_LENGTH`].
    Slide,
}

impl LimitKind {
    fn range(self) -> ([f32; 2], &'static str) {
        use std::f32::consts::PI;
        match self {
            LimitKind::Angle => ([-PI, PI], "finite and within [-π, π]"),
            LimitKind::Length => (
                [0.0, MAX_JOINT_LENGTH],
                "finite, from 0 to MAX_JOINT_LENGTH (4e12)",
            ),
            LimitKind::Slide => (
                [-MAX_JOINT_LENGTH, MAX_JOINT_LENGTH],
                "finite and at most MAX_JOINT_LENGTH (4e12) in magnitude",
            ),
        }
    }
}

/// The limits once checked: within their kind's range, and in order.
pub(super) fn checked_limits(
    limits: Option<[f32; 2]>,
    kind: LimitKind,
) -> Result<Option<[f32; 2]>, Error> {
    let Some([lower, upper]) = limits else {
        return Ok(None);
    };
    let (range, rule) = kind.range();
    let within = |v: f32| v >= range[0] && v <= range[1];
    check_joint("lower limit", lower, within(lower), rule)?;
    check_joint("upper limit", upper, within(upper), rule)?;
    check_joint(
        "lower limit",
        lower,
        lower <= upper,
        "at most the upper limit",
    )?;
    Ok(Some([lower, upper]))
}

/// A motor's `[speed, max torque]` once checked: the speed within
/// [`MAX_ANGULAR_SPEED`] (a joint that turns, `angular`) or [`MAX_LINEAR_SPEED_LIMIT`] (one
/// that slides), the max torque (or force) 0 or more.
pub(super) fn checked_motor(
    [speed, max_torque]: [f32; 2],
    angular: bool,
) -> Result<[f32; 2], Error> {
    check_motor_speed(speed, angular)?;
    check_max_force("motor max_torque", max_torque)?;
    Ok([speed, max_torque])
}

/// A motor's speed: radians per second within [`MAX_ANGULAR_SPEED`] for a joint that turns,
/// units per second within [`MAX_LINEAR_SPEED_LIMIT`] for one that slides.
pub(super) fn check_motor_speed(speed: f32, angular: bool) -> Result<(), Error> {
    let (ok, rule) = if angular {
        (
            speed.abs() <= MAX_ANGULAR_SPEED,
            "finite and at most MAX_ANGULAR_SPEED (1e8) in magnitude",
        )
    } else {
        (
            speed.abs() <= MAX_LINEAR_SPEED_LIMIT,
            "finite and at most MAX_LINEAR_SPEED_LIMIT (1e6) in magnitude",
        )
    };
    check_joint("motor speed", speed, ok, rule)
}

/// A max force or torque: 0 or more, infinity for no bound (Box2D's scenes give `FLT_MAX`).
/// However large, the solver holds the impulse it bounds to [`MAX_IMPULSE`].
pub(super) fn check_max_force(field: &'static str, value: f32) -> Result<(), Error> {
    check_joint(field, value, value >= 0.0, "0 or more (infinity: no bound)")
}

/// A break threshold: 0 or more (infinity: the joint never breaks).
pub(super) fn check_break(field: &'static str, value: f32) -> Result<(), Error> {
    check_joint(field, value, value >= 0.0, "0 or more")
}
