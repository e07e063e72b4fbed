//! What the world accepts: the ranges of masses, coordinates, speeds, time steps and
//! substeps, and the checks that turn a value outside them into an error naming it.

use glam::Vec2;

use crate::body_shape::MassProperties;
use crate::error::Error;

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

/// The largest [`World::set_max_linear_speed`](crate::World::set_max_linear_speed) takes, units per second: 2,500 times the
/// default, room for worlds in millimetres, while speed times [`MASS_RANGE`]'s upper end
/// stays far from f32's limit.
pub const MAX_LINEAR_SPEED_LIMIT: f32 = 1e6;

/// The range of [`World::step`](crate::World::step)'s time step, seconds. Below a microsecond the substep's
/// inverse that the soft contacts use grows past 1e6 and rounding dominates; above ten
/// seconds a body at the speed limit crosses 4,000 units in one step, and no contact would be
/// seen in between.
pub const TIME_STEP_RANGE: std::ops::RangeInclusive<f32> = 1e-6..=10.0;

/// The most solver substeps [`World::set_substeps`](crate::World::set_substeps) takes.
pub const MAX_SUBSTEPS: usize = 64;

pub(super) fn check(
    field: &'static str,
    value: f32,
    ok: bool,
    rule: &'static str,
) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidBody { field, value, rule })
    }
}

/// A gravity the step can integrate: each component finite and at most
/// [`MAX_COORDINATE`](crate::world::MAX_COORDINATE), so that a substep's change of velocity stays finite.
pub(super) fn check_gravity(gravity: Vec2) -> Result<(), Error> {
    for value in [gravity.x, gravity.y] {
        if !value.is_finite() || value.abs() > MAX_COORDINATE {
            return Err(Error::InvalidSetting {
                name: "gravity",
                value,
                rule: "finite and at most MAX_COORDINATE (1e12) a component",
            });
        }
    }
    Ok(())
}

/// Both components finite; the error names the first that is not.
pub(super) fn check_vec(field: &'static str, v: Vec2) -> Result<(), Error> {
    check(field, v.x, v.x.is_finite(), "finite")?;
    check(field, v.y, v.y.is_finite(), "finite")
}

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
