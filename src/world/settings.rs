//! World-wide settings: gravity, substeps, the speed limit, sleeping, contact recycling,
//! the continuous stage and the hit event threshold. Each setter checks its value and
//! returns an error naming it, leaving the setting as it was.
//!
//! The settings are one part of the world ([`Settings`]): what the setters change and the
//! step reads, and nothing the step writes. The snapshot's settings section saves them
//! (`snapshot/write/mod.rs`, `snapshot/read/settings.rs`), every value checked as its
//! setter checks it when read. (Sleeping's switch lives with the sleep stage, which reads
//! it every step.)

use glam::Vec2;

use super::World;
use super::limits::{
    DEFAULT_MAX_LINEAR_SPEED, MAX_LINEAR_SPEED_LIMIT, MAX_SUBSTEPS, check_gravity,
};
use crate::dynamics::solver::Substeps;
use crate::error::{Error, WorldError};

/// The world's settings, each within the range its setter checks.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// Units per second squared ([`World::set_gravity`]).
    pub gravity: Vec2,
    /// Solver substeps per step, 1 to `MAX_SUBSTEPS` ([`World::set_substeps`]).
    pub substeps: usize,
    /// Whether the continuous stage runs ([`World::set_continuous`]).
    pub continuous: bool,
    /// The speed cap, positive and at most `MAX_LINEAR_SPEED_LIMIT`
    /// ([`World::set_max_linear_speed`]).
    pub max_linear_speed: f32,
    /// The approach speed from which a contact reports a hit event, if any
    /// ([`World::set_hit_event_threshold`]).
    pub hit_threshold: Option<f32>,
    /// Whether contacts of pairs that barely moved keep their manifold
    /// ([`World::set_contact_recycling`]).
    pub recycling: bool,
}

impl Settings {
    /// A new world's settings: `gravity`, 4 substeps, the continuous stage and recycling
    /// on, the default speed cap, no hit events.
    pub fn new(gravity: Vec2) -> Settings {
        Settings {
            gravity,
            substeps: 4,
            continuous: true,
            max_linear_speed: DEFAULT_MAX_LINEAR_SPEED,
            hit_threshold: None,
            recycling: true,
        }
    }

    /// What the solver reads of them.
    pub fn substeps(&self) -> Substeps {
        Substeps {
            count: self.substeps,
            gravity: self.gravity,
            max_linear_speed: self.max_linear_speed,
        }
    }
}

impl World {
    /// Gravity, units per second squared.
    pub fn gravity(&self) -> Vec2 {
        self.settings.gravity
    }

    /// Solver substeps per step (default 4).
    pub fn substeps(&self) -> usize {
        self.settings.substeps
    }

    /// Sets the solver substeps per step, from 1 to [`MAX_SUBSTEPS`]; anything else is an
    /// error naming it, and leaves the setting as it was.
    pub fn set_substeps(&mut self, substeps: usize) -> Result<(), Error> {
        if !(1..=MAX_SUBSTEPS).contains(&substeps) {
            return Err(Error::World(WorldError::InvalidSetting {
                name: "substeps",
                value: substeps as f32,
                rule: "from 1 to MAX_SUBSTEPS (64)",
            }));
        }
        self.settings.substeps = substeps;
        Ok(())
    }

    /// The fastest a body's centre of mass moves, units per second (default
    /// [`DEFAULT_MAX_LINEAR_SPEED`]). Faster velocities, given or reached, are scaled down to
    /// it, keeping their direction, as in Box2D; spin is held to
    /// [`MAX_ROTATION_PER_SUBSTEP`](crate::world::MAX_ROTATION_PER_SUBSTEP).
    pub fn max_linear_speed(&self) -> f32 {
        self.settings.max_linear_speed
    }

    /// Sets [`World::max_linear_speed`](crate::World::max_linear_speed): positive and at most [`MAX_LINEAR_SPEED_LIMIT`],
    /// else an error naming it. Bodies faster than the new limit are slowed to it on the
    /// next step.
    pub fn set_max_linear_speed(&mut self, speed: f32) -> Result<(), Error> {
        if !(speed > 0.0 && speed <= MAX_LINEAR_SPEED_LIMIT) {
            return Err(Error::World(WorldError::InvalidSetting {
                name: "max_linear_speed",
                value: speed,
                rule: "positive and at most MAX_LINEAR_SPEED_LIMIT (1e6)",
            }));
        }
        self.settings.max_linear_speed = speed;
        Ok(())
    }

    /// Sets the gravity, units per second squared: each component at most
    /// [`MAX_COORDINATE`](crate::world::MAX_COORDINATE) in magnitude, else an error naming it.
    pub fn set_gravity(&mut self, gravity: Vec2) -> Result<(), Error> {
        check_gravity(gravity)?;
        self.settings.gravity = gravity;
        // Resting bodies rest under the old gravity only.
        self.sleep.wake_all(&mut self.bodies);
        Ok(())
    }

    /// Whether islands of resting bodies may fall asleep ([`World::set_sleeping`](crate::World::set_sleeping)).
    pub fn sleeping(&self) -> bool {
        self.sleep.enabled()
    }

    /// Turns sleeping on (the default) or off; off wakes every body. With it on, an island
    /// of touching dynamic bodies whose every body has moved slower than [`SLEEP_SPEED`]
    /// for [`TIME_TO_SLEEP`] stops being simulated (velocities 0; its contacts stay) until
    /// an awake body touches it, or [`World::wake`](crate::World::wake), [`World::set_velocity`](crate::World::set_velocity) or
    /// [`World::set_gravity`](crate::World::set_gravity) wakes it. Box2D's benchmark scenes run with it off.
    ///
    /// [`SLEEP_SPEED`]: crate::world::SLEEP_SPEED
    /// [`TIME_TO_SLEEP`]: crate::world::TIME_TO_SLEEP
    pub fn set_sleeping(&mut self, enabled: bool) {
        self.sleep.set_enabled(enabled, &mut self.bodies);
    }

    /// Whether contact recycling is on ([`World::set_contact_recycling`](crate::World::set_contact_recycling)).
    pub fn contact_recycling(&self) -> bool {
        self.settings.recycling
    }

    /// Turns contact recycling on (the default) or off. On, a pair of polygons whose relative
    /// pose has turned less than [`RECYCLE_ANGLE`](crate::world::RECYCLE_ANGLE), and whose contact
    /// points have moved less than [`RECYCLE_TRANSLATION`](crate::world::RECYCLE_TRANSLATION) with
    /// it, since its manifold was computed keeps that manifold, carried to the current
    /// poses, and does not go to the narrow phase ([`StepStats::recycled`](crate::StepStats::recycled) counts them): a
    /// settled pile or pyramid sends few pairs to it, and a GPU narrow phase uploads only
    /// those. A pair with a circle is
    /// collided every step either way (its normal turns as the pieces slide). Off, every
    /// pair is collided every step.
    pub fn set_contact_recycling(&mut self, enabled: bool) {
        self.settings.recycling = enabled;
    }

    /// Whether the continuous stage sweeps fast bodies and bullets (default on).
    pub fn continuous(&self) -> bool {
        self.settings.continuous
    }

    /// Turns the continuous stage on or off. Off, a body that moves more than its own
    /// thickness plus an obstacle's in one step can pass through the obstacle.
    pub fn set_continuous(&mut self, enabled: bool) {
        self.settings.continuous = enabled;
    }

    /// Hit events: with `Some(speed)`, each step reports in [`Events::contact_hit`](crate::Events::contact_hit) the
    /// contacts whose bodies approached faster than `speed` (units per second) at the start
    /// of the step and that the solver pushed apart, at their fastest point (Box2D's rule);
    /// `None` (the default) reports none and costs nothing. A speed that is negative or not
    /// finite is an error naming it.
    pub fn set_hit_event_threshold(&mut self, speed: Option<f32>) -> Result<(), Error> {
        if let Some(v) = speed {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::World(WorldError::InvalidSetting {
                    name: "hit_event_threshold",
                    value: v,
                    rule: "finite and 0 or more",
                }));
            }
        }
        self.settings.hit_threshold = speed;
        Ok(())
    }

    /// The hit event threshold ([`World::set_hit_event_threshold`](crate::World::set_hit_event_threshold)).
    pub fn hit_event_threshold(&self) -> Option<f32> {
        self.settings.hit_threshold
    }
}
