//! The reader of the settings section: gravity, substeps and the speed cap, each held to
//! the range its setter enforces; the flags; the hit threshold when flagged.
//!
//! ```text
//! SETTINGS, gravity (checked as set_gravity does), substeps (1 to MAX_SUBSTEPS),
//! max_linear_speed (positive, at most 1e6), flags, hit threshold if HIT_THRESHOLD (>= 0)
//! ```

use glam::Vec2;

use super::super::codec::Reader;
use super::super::{
    CONTINUOUS, CUSTOM_FORCES, HAS_FILTERS, HAS_SENSORS, HIT_THRESHOLD, RECYCLING, SETTINGS,
    SLEEPING,
};
use super::Loading;
use super::values::{at, non_negative, tag};
use crate::error::Error;
use crate::world::limits::{MAX_LINEAR_SPEED_LIMIT, MAX_SUBSTEPS, check_gravity};

impl Loading {
    /// The settings section, into the world.
    pub(super) fn read_settings(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, SETTINGS, "settings")?;
        let w = &mut self.world;
        let gravity_at = r.offset;
        w.settings.gravity = Vec2::new(r.raw_f32("gravity")?, r.raw_f32("gravity")?);
        at(gravity_at, check_gravity(w.settings.gravity))?;
        let substeps_at = r.offset;
        let substeps = r.varint("substeps")?;
        if !(1..=MAX_SUBSTEPS as u64).contains(&substeps) {
            return Reader::error_at(
                substeps_at,
                format!("substeps = {substeps}: must be from 1 to {MAX_SUBSTEPS}"),
            );
        }
        w.settings.substeps = substeps as usize;
        let speed_at = r.offset;
        let speed = r.raw_f32("max_linear_speed")?;
        if !(speed > 0.0 && speed <= MAX_LINEAR_SPEED_LIMIT) {
            return Reader::error_at(
                speed_at,
                format!("max_linear_speed = {speed}: must be positive and at most 1e6"),
            );
        }
        w.settings.max_linear_speed = speed;
        let flags = r.u8("settings flags")?;
        w.settings.continuous = flags & CONTINUOUS != 0;
        w.settings.recycling = flags & RECYCLING != 0;
        w.sleep.enabled = flags & SLEEPING != 0;
        w.bodies.custom_forces = flags & CUSTOM_FORCES != 0;
        w.colliders.has_sensors = flags & HAS_SENSORS != 0;
        w.colliders.has_filters = flags & HAS_FILTERS != 0;
        if flags & HIT_THRESHOLD != 0 {
            w.settings.hit_threshold = Some(non_negative(r, "hit_event_threshold")?);
        }
        Ok(())
    }
}
