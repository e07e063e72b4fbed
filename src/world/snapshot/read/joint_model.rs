//! The reader of a joint's model: its kind, its options, then the kind's fields, each
//! through the check `add_joint` makes of it (the table of `limits.rs`), so that a
//! snapshot gives no joint `add_joint` would refuse.
//!
//! ```text
//! kind (0 revolute, 1 distance, 2 weld, 3 prismatic, 4 wheel, 5 filter, 6 motor,
//! 7 mouse); options (limits 1, motor 2, spring 4; distance: lower 1, upper 2,
//! spring 4, rigid 8; weld: linear 1, angular 2), no bit the kind does not use;
//! then the fields in the kind's order (see write/joints.rs)
//! ```

use glam::Vec2;

use super::super::codec::Reader;
use super::values::{at, read_unit};
use crate::dynamics::solver::{JointModel, Spring};
use crate::error::Error;
use crate::world::limits::{
    LimitKind, MAX_JOINT_LENGTH, check_angle, check_joint, check_max_force, check_point,
    checked_limits, checked_motor, checked_spring,
};

/// A joint's f32 that `check` accepts (one of the checks `add_joint` makes, from the table
/// in `limits.rs`), else its error at the value's offset.
pub(super) fn read_checked(
    r: &mut Reader<'_>,
    field: &'static str,
    check: impl Fn(f32) -> Result<(), Error>,
) -> Result<f32, Error> {
    let at_value = r.offset;
    let v = r.raw_f32(field)?;
    at(at_value, check(v))?;
    Ok(v)
}

/// Two floats, unchecked (the caller checks them as a pair).
fn read_pair(r: &mut Reader<'_>, field: &str) -> Result<[f32; 2], Error> {
    Ok([r.raw_f32(field)?, r.raw_f32(field)?])
}

/// A spring, when `present`, as `add_joint` checks it.
fn read_spring(r: &mut Reader<'_>, present: bool) -> Result<Option<Spring>, Error> {
    if !present {
        return Ok(None);
    }
    let at_spring = r.offset;
    let [hertz, damping_ratio] = read_pair(r, "spring")?;
    let spring = crate::dynamics::joints::JointSpring {
        hertz,
        damping_ratio,
    };
    at(at_spring, checked_spring(Some(spring)))
}

/// A motor of a joint that turns (`angular`) or slides.
fn read_motor(r: &mut Reader<'_>, present: bool, angular: bool) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_motor = r.offset;
    let motor = read_pair(r, "motor")?;
    at(at_motor, checked_motor(motor, angular)).map(Some)
}

/// Limits of the given kind, when `present`, as `add_joint` checks them.
fn read_limits(
    r: &mut Reader<'_>,
    present: bool,
    kind: LimitKind,
) -> Result<Option<[f32; 2]>, Error> {
    if !present {
        return Ok(None);
    }
    let at_limits = r.offset;
    let limits = read_pair(r, "limits")?;
    at(at_limits, checked_limits(Some(limits), kind))
}

/// An angle, as `add_joint` checks it.
fn read_angle(r: &mut Reader<'_>, field: &'static str) -> Result<f32, Error> {
    read_checked(r, field, |angle| check_angle(field, angle))
}

/// A max force or torque (infinite: none given).
fn read_bound(r: &mut Reader<'_>, field: &'static str) -> Result<f32, Error> {
    read_checked(r, field, |v| check_max_force(field, v))
}

/// A joint's model: its kind, its options byte (no bit the kind does not use), then the
/// kind's fields, each as `add_joint` checks it.
pub(super) fn read_model(r: &mut Reader<'_>) -> Result<JointModel, Error> {
    let at_model = r.offset;
    let kind = r.u8("joint kind")?;
    let opts = r.u8("joint options")?;
    let (l, m, s) = (opts & 1 != 0, opts & 2 != 0, opts & 4 != 0);
    let most = match kind {
        1 => 15,
        2 => 3,
        0 | 3 | 4 => 7,
        _ => 0,
    };
    if opts > most {
        return Reader::error_at(at_model, format!("joint options {opts:#x}: unknown bits"));
    }
    let model = match kind {
        0 => JointModel::Revolute {
            reference_angle: read_angle(r, "reference angle")?,
            limits: read_limits(r, l, LimitKind::Angle)?,
            motor: read_motor(r, m, true)?,
            spring: read_spring(r, s)?,
        },
        1 => {
            // As add_joint makes it: the distance of two anchors within MAX_COORDINATE.
            let length = read_checked(r, "length", |v| {
                check_joint(
                    "length",
                    v,
                    (0.0..=MAX_JOINT_LENGTH).contains(&v),
                    "from 0 to MAX_JOINT_LENGTH (4e12)",
                )
            })?;
            let lower = if l {
                Some(r.raw_f32("lower limit")?)
            } else {
                None
            };
            let upper = if m {
                Some(r.raw_f32("upper limit")?)
            } else {
                None
            };
            let limits = match (lower, upper) {
                (Some(lo), Some(hi)) => {
                    at(at_model, checked_limits(Some([lo, hi]), LimitKind::Length))?;
                    [lower, upper]
                }
                (None, None) => [None, None],
                _ => return Reader::error_at(at_model, "a distance joint with one limit"),
            };
            JointModel::Distance {
                length,
                rigid: opts & 8 != 0,
                limits,
                spring: read_spring(r, s)?,
            }
        }
        2 => JointModel::Weld {
            reference_angle: read_angle(r, "reference angle")?,
            linear: read_spring(r, l)?,
            angular: read_spring(r, m)?,
        },
        3 => JointModel::Prismatic {
            reference_angle: read_angle(r, "reference angle")?,
            local_axis: read_unit(r, "joint axis")?,
            limits: read_limits(r, l, LimitKind::Slide)?,
            motor: read_motor(r, m, false)?,
            spring: read_spring(r, s)?,
        },
        4 => JointModel::Wheel {
            local_axis: read_unit(r, "joint axis")?,
            limits: read_limits(r, l, LimitKind::Slide)?,
            motor: read_motor(r, m, true)?,
            spring: read_spring(r, s)?,
        },
        5 => JointModel::Filter,
        6 => JointModel::Motor {
            reference_angle: read_angle(r, "reference angle")?,
            max_force: read_bound(r, "max_force")?,
            max_torque: read_bound(r, "max_torque")?,
        },
        7 => {
            let target_at = r.offset;
            let target = Vec2::from(read_pair(r, "target")?);
            at(target_at, check_point("target", target))?;
            let spring = read_spring(r, true)?.unwrap_or_default();
            JointModel::Mouse {
                target,
                spring,
                max_force: read_bound(r, "max_force")?,
            }
        }
        other => return Reader::error_at(at_model, format!("unknown joint kind {other}")),
    };
    Ok(model)
}
