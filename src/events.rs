//! Contact and sensor events: what began and ended touching in a step, and the hard hits.
//!
//! ```text
//! per persistent pair (pair_set.rs), after the narrow phase:
//!     now = a solid pair has a manifold (a point within SPECULATIVE_DISTANCE),
//!           a sensor pair overlaps (a point of positive depth)
//!     was = the pair's flag from the last step
//!     now and not was -> begin;  was and not now -> end;  flag = now
//! a pair leaving the set (fat boxes parted, filter changed) while its flag is set -> end
//! after the solve, per contact: the point that approached fastest, if faster than the
//!     hit threshold and pushed by the solver -> hit (Box2D's rule)
//! continuous stage: an impact it stopped faster than the threshold -> hit (its impulse
//!     stops the approach before any solver sees it)
//! ```
//!
//! A step's events are of the contacts its collision stages found, from the poses the last
//! step left (as Box2D's are): a body that enters a sensor during step n is seen entering
//! by step n + 1. The lists are in pair order (ascending collider pairs; a pair that left comes before the
//! pairs that stayed), whichever narrow phase ran the step, and are rebuilt each step into
//! buffers kept between steps: reading them allocates nothing. "Touching" is the contact
//! list's own test, as in Box2D: two solid colliders less than `SPECULATIVE_DISTANCE` apart
//! touch, so a begin can come a hair before the surfaces meet.

use glam::Vec2;

use crate::manifold::{Contact, Manifold};

/// Two solid colliders began touching this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactBegin {
    /// The bodies, in ascending order; the normal points from the first to the second.
    pub bodies: [usize; 2],
    /// The colliders (indices into [`World::colliders`](crate::World::colliders)), each of
    /// the body at the same position.
    pub colliders: [usize; 2],
    /// The contact as this step's narrow phase found it: world-frame normal and points.
    pub manifold: Manifold,
}

/// Two solid colliders that touched stopped touching this step (or one of them was
/// filtered out of touching it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactEnd {
    /// The bodies, in ascending order.
    pub bodies: [usize; 2],
    /// The colliders, each of the body at the same position.
    pub colliders: [usize; 2],
}

/// A contact whose bodies approached faster than the hit threshold at the start of the step
/// (see [`World::set_hit_event_threshold`](crate::World::set_hit_event_threshold)), at the
/// point that approached fastest; or an impact of the continuous stage that fast, at the
/// middle of its contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactHit {
    /// The bodies, in ascending order; the normal points from the first to the second.
    pub bodies: [usize; 2],
    /// The colliders, each of the body at the same position.
    pub colliders: [usize; 2],
    /// Where, world frame.
    pub point: Vec2,
    /// The contact normal, world frame, unit length.
    pub normal: Vec2,
    /// How fast the two bodies approached each other there, along the normal, units per
    /// second (positive).
    pub speed: f32,
}

/// A collider began or stopped overlapping a sensor collider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SensorEvent {
    /// The sensor collider, and its body.
    pub sensor: usize,
    /// The sensor's body.
    pub sensor_body: usize,
    /// The collider that entered or left it.
    pub visitor: usize,
    /// The visitor's body.
    pub visitor_body: usize,
}

/// The events of the last [`World::step`](crate::World::step), borrowed from the world.
///
/// ```
/// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
/// let mut world = World::default();
/// world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
/// let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 3.0)))?;
/// world.set_hit_event_threshold(Some(1.0))?;
/// let mut narrow = CpuNarrowPhase::new();
/// let (mut began, mut hits) = (0, 0);
/// for _ in 0..120 {
///     world.step(1.0 / 60.0, &mut narrow)?;
///     let events = world.events();
///     began += events.contact_begin.iter().filter(|e| e.bodies.contains(&crate_)).count();
///     hits += events.contact_hit.len();
/// }
/// assert_eq!(began, 1, "the crate lands once and stays");
/// assert!(hits >= 1, "landing at some 6 units per second is a hit");
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Events<'a> {
    /// Solid collider pairs that began touching.
    pub contact_begin: &'a [ContactBegin],
    /// Solid collider pairs that stopped touching.
    pub contact_end: &'a [ContactEnd],
    /// Contacts that approached faster than the hit threshold (none while it is off), in
    /// contact order, then the continuous stage's impacts.
    pub contact_hit: &'a [ContactHit],
    /// Colliders that began overlapping a sensor.
    pub sensor_begin: &'a [SensorEvent],
    /// Colliders that stopped overlapping a sensor.
    pub sensor_end: &'a [SensorEvent],
}

/// The event lists of one step, kept between steps so that a warm world reuses them.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventLists {
    pub contact_begin: Vec<ContactBegin>,
    pub contact_end: Vec<ContactEnd>,
    pub contact_hit: Vec<ContactHit>,
    pub sensor_begin: Vec<SensorEvent>,
    pub sensor_end: Vec<SensorEvent>,
}

impl EventLists {
    pub fn clear(&mut self) {
        self.contact_begin.clear();
        self.contact_end.clear();
        self.contact_hit.clear();
        self.sensor_begin.clear();
        self.sensor_end.clear();
    }

    pub fn view(&self) -> Events<'_> {
        Events {
            contact_begin: &self.contact_begin,
            contact_end: &self.contact_end,
            contact_hit: &self.contact_hit,
            sensor_begin: &self.sensor_begin,
            sensor_end: &self.sensor_end,
        }
    }

    /// Records that collider pair `pair` (of bodies `bodies`) began touching (`began` holds
    /// its contact) or stopped (`began` is `None`); `sensor` is which of the two is the
    /// sensor (0 or 1) when it is a sensor pair.
    pub fn record_change(
        &mut self,
        pair: [u32; 2],
        bodies: [u32; 2],
        sensor: Option<usize>,
        began: Option<&Contact>,
    ) {
        let colliders = pair.map(|c| c as usize);
        let bodies = bodies.map(|b| b as usize);
        match (sensor, began) {
            (Some(s), began) => {
                let event = SensorEvent {
                    sensor: colliders[s],
                    sensor_body: bodies[s],
                    visitor: colliders[1 - s],
                    visitor_body: bodies[1 - s],
                };
                if began.is_some() {
                    self.sensor_begin.push(event);
                } else {
                    self.sensor_end.push(event);
                }
            }
            (None, Some(contact)) => self.contact_begin.push(ContactBegin {
                bodies,
                colliders,
                manifold: contact.manifold,
            }),
            (None, None) => self.contact_end.push(ContactEnd { bodies, colliders }),
        }
    }
}
