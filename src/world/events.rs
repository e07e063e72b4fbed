//! Contact and sensor events: what began and ended touching in a step, and the hard hits.
//!
//! ```text
//! per persistent pair (pair_set/), after the narrow phase:
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

use crate::collision::manifold::{Contact, Manifold};
use crate::world::handle::{BodyId, ColliderId};

/// Two solid colliders began touching this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactBegin {
    /// The bodies, in the order of their colliders; the normal points from the first to the
    /// second.
    pub bodies: [BodyId; 2],
    /// The colliders, in ascending slot order, each of the body at the same position.
    pub colliders: [ColliderId; 2],
    /// The bodies' [`BodyDef::user_data`](crate::BodyDef::user_data), at the same positions.
    pub user_data: [u64; 2],
    /// The contact as this step's narrow phase found it: world-frame normal and points.
    pub manifold: Manifold,
}

/// Two solid colliders that touched stopped touching this step (or one of them was
/// filtered out of touching it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactEnd {
    /// The bodies, in the order of their colliders. A removed body's handle is stale by
    /// now: it still compares equal to the one [`World::add_body`](crate::World::add_body)
    /// returned.
    pub bodies: [BodyId; 2],
    /// The colliders, in ascending slot order, each of the body at the same position.
    pub colliders: [ColliderId; 2],
    /// The bodies' user data, at the same positions.
    pub user_data: [u64; 2],
}

/// A contact whose bodies approached faster than the hit threshold at the start of the step
/// (see [`World::set_hit_event_threshold`](crate::World::set_hit_event_threshold)), at the
/// point that approached fastest; or an impact of the continuous stage that fast, at the
/// middle of its contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactHit {
    /// The bodies, in the order of their colliders; the normal points from the first to the
    /// second.
    pub bodies: [BodyId; 2],
    /// The colliders, in ascending slot order, each of the body at the same position.
    pub colliders: [ColliderId; 2],
    /// The bodies' user data, at the same positions.
    pub user_data: [u64; 2],
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
    /// The sensor collider.
    pub sensor: ColliderId,
    /// The sensor's body.
    pub sensor_body: BodyId,
    /// The collider that entered or left it.
    pub visitor: ColliderId,
    /// The visitor's body.
    pub visitor_body: BodyId,
    /// The visitor body's user data.
    pub visitor_user_data: u64,
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
    /// Joints that broke (their force or torque passed their threshold), in joint order.
    pub joint_broken: &'a [crate::dynamics::joints::JointBroken],
}

/// The event lists of one step, kept between steps so that a warm world reuses them.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventLists {
    pub contact_begin: Vec<ContactBegin>,
    pub contact_end: Vec<ContactEnd>,
    pub contact_hit: Vec<ContactHit>,
    pub sensor_begin: Vec<SensorEvent>,
    pub sensor_end: Vec<SensorEvent>,
    pub joint_broken: Vec<crate::dynamics::joints::JointBroken>,
}

impl EventLists {
    pub fn clear(&mut self) {
        self.contact_begin.clear();
        self.contact_end.clear();
        self.contact_hit.clear();
        self.sensor_begin.clear();
        self.sensor_end.clear();
        self.joint_broken.clear();
    }

    pub fn view(&self) -> Events<'_> {
        Events {
            contact_begin: &self.contact_begin,
            contact_end: &self.contact_end,
            contact_hit: &self.contact_hit,
            sensor_begin: &self.sensor_begin,
            sensor_end: &self.sensor_end,
            joint_broken: &self.joint_broken,
        }
    }

    /// Records that collider pair `pair` began touching (`began` holds its contact) or
    /// stopped (`began` is `None`); `sensor` is which of the two is the sensor (0 or 1) when
    /// it is a sensor pair.
    pub fn record_change(
        &mut self,
        pair: [u32; 2],
        names: &Names,
        sensor: Option<usize>,
        began: Option<&Contact>,
    ) {
        let colliders = pair.map(|c| names.collider(c));
        let bodies = pair.map(|c| names.body(c));
        let user_data = pair.map(|c| names.user_data(c));
        match (sensor, began) {
            (Some(s), began) => {
                let event = SensorEvent {
                    sensor: colliders[s],
                    sensor_body: bodies[s],
                    visitor: colliders[1 - s],
                    visitor_body: bodies[1 - s],
                    visitor_user_data: user_data[1 - s],
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
                user_data,
                manifold: contact.manifold,
            }),
            (None, None) => self.contact_end.push(ContactEnd {
                bodies,
                colliders,
                user_data,
            }),
        }
    }
}

/// How the world names its slots in events: per collider slot its handle and body slot, per
/// body slot its handle and user data. A slot whose body was removed keeps the removed
/// body's names until it is reused, which is never before the step that reports its end.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    /// Per collider slot: its handle.
    pub collider_ids: Vec<ColliderId>,
    /// Per collider slot: its body's slot.
    pub collider_bodies: Vec<u32>,
    /// Per body slot: the handle of the body in it, or last in it.
    pub body_ids: Vec<BodyId>,
    /// Per body slot: its body's user data.
    pub user_data: Vec<u64>,
}

impl Names {
    pub fn collider(&self, c: u32) -> ColliderId {
        self.collider_ids[c as usize]
    }

    pub fn body(&self, c: u32) -> BodyId {
        self.body_ids[self.collider_bodies[c as usize] as usize]
    }

    pub fn user_data(&self, c: u32) -> u64 {
        self.user_data[self.collider_bodies[c as usize] as usize]
    }

    /// A hit event between collider slots `pair` (ascending), the normal pointing from the
    /// first's body to the second's.
    pub fn hit(&self, pair: [u32; 2], point: Vec2, normal: Vec2, speed: f32) -> ContactHit {
        ContactHit {
            bodies: pair.map(|c| self.body(c)),
            colliders: pair.map(|c| self.collider(c)),
            user_data: pair.map(|c| self.user_data(c)),
            point,
            normal,
            speed,
        }
    }
}
