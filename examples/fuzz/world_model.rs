//! What the `world` target knows of its world, kept beside it, and the checks that compare
//! the two: the handles it was given, which are live and which removed, each body's user
//! data and colliders, and the pairs that touch as the events said.
//!
//! ```text
//! add:     a handle never seen before, of this world; its colliders new, each naming it
//! remove:  the handle and its colliders are stale at once (StaleBody / StaleCollider
//!          naming them, reason Removed; NaN, false or nothing from the plain readers),
//!          and no query finds them
//! step:    begins, hits and contacts name live bodies only; an end may name a body removed
//!          since the last step (its pairs end then), never one removed before; every end
//!          closes an open begin, and the open solid pairs are the step's contacts; each
//!          event's user data is its body's; no query names a removed body
//! ```
//!
//! A stale call must change nothing: the live bodies' poses, velocities and sleep read the
//! same before and after it.

use std::collections::{BTreeSet, HashMap, HashSet};
use wgpu_sat::error::WorldError;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Aabb, BodyId, ColliderId, Error, Filter, World, query::WorldRayHit, world::StaleReason,
};

/// What the harness recorded of one body when it was added.
struct Known {
    user_data: u64,
    colliders: Vec<ColliderId>,
    is_sensor: bool,
}

/// The harness's view of a world: every handle it was given, and the open pairs.
#[derive(Default)]
pub struct Model {
    /// Live bodies, in the order they were added.
    pub live: Vec<BodyId>,
    /// Removed bodies, in the order they were removed.
    pub removed: Vec<BodyId>,
    known: HashMap<BodyId, Known>,
    /// Every collider ever handed out, with its body.
    owner: HashMap<ColliderId, BodyId>,
    /// Removed since the last `Ok` step: that step may still end their pairs.
    removed_since_step: HashSet<BodyId>,
    /// Solid collider pairs that began and have not ended, sorted within the pair.
    open_contacts: BTreeSet<[ColliderId; 2]>,
    /// Sensor pairs, `[sensor, visitor]`, that began and have not ended.
    open_sensors: BTreeSet<[ColliderId; 2]>,
}

/// A pair of colliders in ascending order, to compare pairs however they were listed.
fn sorted(mut pair: [ColliderId; 2]) -> [ColliderId; 2] {
    pair.sort();
    pair
}

/// The bits of everything a stale call could change, per live body: a changed value, even
/// NaN for NaN, shows.
fn state(world: &World) -> Vec<(BodyId, [u32; 7], bool)> {
    world
        .bodies()
        .map(|b| {
            let x = world.transform(b);
            let v = world.linear_velocity(b);
            let bits = [
                x.translation().x,
                x.translation().y,
                x.rotation().x,
                x.rotation().y,
                v.x,
                v.y,
                world.angular_velocity(b),
            ]
            .map(f32::to_bits);
            (b, bits, world.is_awake(b))
        })
        .collect()
}

impl Model {
    /// The user data the harness gives the `n`-th body it adds: distinct for every body
    /// (an odd multiplier is a bijection on `u64`), and far from 0 and from each other.
    pub fn user_data_for(n: usize) -> u64 {
        (n as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The user data of a body the harness added (live or removed).
    fn user_data(&self, body: BodyId) -> Option<u64> {
        self.known.get(&body).map(|k| k.user_data)
    }

    /// The colliders a body had when it was added.
    pub fn colliders(&self, body: BodyId) -> &[ColliderId] {
        self.known.get(&body).map_or(&[], |k| &k.colliders)
    }

    /// Records a body `add_body` just returned and checks its handle and colliders.
    pub fn added(
        &mut self,
        world: &World,
        body: BodyId,
        user_data: u64,
        is_sensor: bool,
    ) -> Result<(), String> {
        if self.known.contains_key(&body) {
            return Err(format!("add_body handed out {body:?} a second time"));
        }
        if let Some(other) = self.live.first().or(self.removed.first())
            && other.world() != body.world()
        {
            return Err(format!(
                "add_body's handles name two worlds: {body:?} and {other:?}"
            ));
        }
        if !world.contains(body) {
            return Err(format!(
                "World::contains({body:?}) is false just after add_body"
            ));
        }
        match world.body(body) {
            Ok(b) if b.id() == body && b.user_data() == user_data => {}
            Ok(b) => {
                return Err(format!(
                    "World::body({body:?}) reads as {:?} with user data {} (given {user_data})",
                    b.id(),
                    b.user_data()
                ));
            }
            Err(e) => return Err(format!("World::body({body:?}) just after add_body: {e}")),
        }
        if world.user_data(body) != Some(user_data) {
            return Err(format!(
                "World::user_data({body:?}) is {:?}, given {user_data}",
                world.user_data(body)
            ));
        }
        let colliders: Vec<ColliderId> = world.body_colliders(body).collect();
        if colliders.is_empty() || colliders.len() != world.body_pieces(body).len() {
            return Err(format!(
                "{body:?} has {} colliders for {} pieces",
                colliders.len(),
                world.body_pieces(body).len()
            ));
        }
        for &c in &colliders {
            if self.owner.insert(c, body).is_some() {
                return Err(format!("add_body handed out {c:?} a second time"));
            }
            if world.collider_body(c).ok() != Some(body) {
                return Err(format!(
                    "collider {c:?} of {body:?} says {:?}",
                    world.collider_body(c)
                ));
            }
            if world.is_sensor(c) != Some(is_sensor) {
                return Err(format!(
                    "collider {c:?} of {body:?}: is_sensor {:?}, defined {is_sensor}",
                    world.is_sensor(c)
                ));
            }
        }
        self.live.push(body);
        self.known.insert(
            body,
            Known {
                user_data,
                colliders,
                is_sensor,
            },
        );
        self.check_bodies(world)
    }

    /// Removes a live body from the world and checks that it is gone at once: stale
    /// everywhere, uncounted, found by no query.
    pub fn remove(&mut self, world: &mut World, body: BodyId) -> Result<(), String> {
        let before = world.body_count();
        if let Err(e) = world.remove_body(body) {
            return Err(format!("remove_body({body:?}) of a live body: {e}"));
        }
        if world.body_count() != before - 1 {
            return Err(format!(
                "remove_body left the body count at {} (was {before})",
                world.body_count()
            ));
        }
        self.live.retain(|&b| b != body);
        self.removed.push(body);
        self.removed_since_step.insert(body);
        let colliders = self.colliders(body).to_vec();
        check_stale(world, body, StaleReason::Removed, &colliders)?;
        self.check_bodies(world)?;
        self.check_queries(world)
    }

    /// `World::bodies` lists the live bodies the harness knows, in slot order, as many as
    /// `World::body_count`.
    fn check_bodies(&self, world: &World) -> Result<(), String> {
        let listed: Vec<BodyId> = world.bodies().collect();
        if listed.len() != world.body_count() {
            return Err(format!(
                "World::bodies lists {} bodies, body_count says {}",
                listed.len(),
                world.body_count()
            ));
        }
        if listed.windows(2).any(|w| w[0].index() >= w[1].index()) {
            return Err(format!("World::bodies is not in slot order: {listed:?}"));
        }
        let mut expected = self.live.clone();
        expected.sort();
        if listed != expected {
            return Err(format!(
                "World::bodies lists {listed:?}, the live bodies are {expected:?}"
            ));
        }
        Ok(())
    }

    /// A body named by an event or a contact of the last step: known to the harness, and
    /// carrying `collider` (as the harness recorded it) and `user_data` (if given).
    fn check_named(
        &self,
        what: &str,
        body: BodyId,
        collider: ColliderId,
        user_data: Option<u64>,
    ) -> Result<(), String> {
        if self.owner.get(&collider) != Some(&body) {
            return Err(format!(
                "{what} pairs {collider:?} with {body:?}; it is a collider of {:?}",
                self.owner.get(&collider)
            ));
        }
        if let Some(data) = user_data
            && Some(data) != self.user_data(body)
        {
            return Err(format!(
                "{what} gives {body:?} user data {data}; it has {:?}",
                self.user_data(body)
            ));
        }
        Ok(())
    }

    /// After an `Ok` step: the events, contacts and queries name the right bodies.
    pub fn stepped(&mut self, world: &World) -> Result<(), String> {
        let events = world.events();
        let live = |b: BodyId| world.contains(b);
        let just_removed = |b: BodyId| self.removed_since_step.contains(&b);
        let solid = |b: BodyId| self.known.get(&b).is_some_and(|k| !k.is_sensor);
        for e in events.contact_end {
            for k in 0..2 {
                self.check_named(
                    "a contact end",
                    e.bodies[k],
                    e.colliders[k],
                    Some(e.user_data[k]),
                )?;
            }
            if let Some(&b) = e.bodies.iter().find(|&&b| !live(b) && !just_removed(b)) {
                return Err(format!(
                    "a contact end names {b:?}, removed before the last step: {e:?}"
                ));
            }
            if !self.open_contacts.remove(&sorted(e.colliders)) {
                return Err(format!("a contact end without a begin: {e:?}"));
            }
        }
        for e in events.contact_begin {
            for k in 0..2 {
                self.check_named(
                    "a contact begin",
                    e.bodies[k],
                    e.colliders[k],
                    Some(e.user_data[k]),
                )?;
            }
            if let Some(&b) = e.bodies.iter().find(|&&b| !live(b)) {
                return Err(format!("a contact begin names removed {b:?}: {e:?}"));
            }
            if !e.bodies.iter().all(|&b| solid(b)) {
                return Err(format!("a contact begin names a sensor: {e:?}"));
            }
            if !self.open_contacts.insert(sorted(e.colliders)) {
                return Err(format!("a second contact begin for one pair: {e:?}"));
            }
        }
        for e in events.contact_hit {
            for k in 0..2 {
                self.check_named("a hit", e.bodies[k], e.colliders[k], Some(e.user_data[k]))?;
            }
            if let Some(&b) = e.bodies.iter().find(|&&b| !live(b)) {
                return Err(format!("a hit names removed {b:?}: {e:?}"));
            }
        }
        for (ended, list) in [(true, events.sensor_end), (false, events.sensor_begin)] {
            for e in list {
                let kind = if ended {
                    "a sensor end"
                } else {
                    "a sensor begin"
                };
                self.check_named(kind, e.sensor_body, e.sensor, None)?;
                self.check_named(kind, e.visitor_body, e.visitor, Some(e.visitor_user_data))?;
                if solid(e.sensor_body) {
                    return Err(format!("{kind} whose sensor is solid: {e:?}"));
                }
                // An end may name a body removed since the last step; nothing else may.
                let may_name = |b: BodyId| live(b) || (ended && just_removed(b));
                let named = [e.sensor_body, e.visitor_body];
                let stale = named.into_iter().find(|&b| !may_name(b));
                if let Some(b) = stale {
                    return Err(format!("{kind} names {b:?}, removed before: {e:?}"));
                }
                let key = [e.sensor, e.visitor];
                let consistent = if ended {
                    self.open_sensors.remove(&key)
                } else {
                    self.open_sensors.insert(key)
                };
                if !consistent {
                    return Err(format!("{kind} that does not pair up: {e:?}"));
                }
            }
        }
        // The step has ended every pair of the bodies removed before it.
        for body in self.removed_since_step.drain() {
            let colliders = &self.known[&body].colliders;
            let open = self.open_contacts.iter().chain(&self.open_sensors);
            if let Some(pair) = open
                .into_iter()
                .find(|p| p.iter().any(|c| colliders.contains(c)))
            {
                return Err(format!(
                    "pair {pair:?} of removed {body:?} did not end in the step after its removal"
                ));
            }
        }
        self.check_contacts(world)?;
        self.check_bodies(world)?;
        self.check_queries(world)
    }

    /// The last step's contacts: between live solid bodies, named as their collider slots
    /// are, and exactly the solid pairs the events left open.
    fn check_contacts(&self, world: &World) -> Result<(), String> {
        let by_slot = world.collider_contacts();
        let named: Vec<_> = world.contacts().collect();
        if named.len() != by_slot.len() {
            return Err(format!(
                "World::contacts has {} contacts, collider_contacts {}",
                named.len(),
                by_slot.len()
            ));
        }
        let mut pairs = BTreeSet::new();
        for (c, slots) in named.iter().zip(by_slot) {
            for k in 0..2 {
                self.check_named("a contact", c.bodies[k], c.colliders[k], None)?;
            }
            if let Some(&b) = c.bodies.iter().find(|&&b| !world.contains(b)) {
                return Err(format!("a contact of the last step names removed {b:?}"));
            }
            let ids = [slots.a, slots.b].map(|s| world.collider_id(s as usize));
            if ids != [Some(c.colliders[0]), Some(c.colliders[1])] {
                return Err(format!(
                    "contact {:?} is between slots {} and {}, which hold {ids:?}",
                    c.colliders, slots.a, slots.b
                ));
            }
            if !pairs.insert(sorted(c.colliders)) {
                return Err(format!("two contacts for pair {:?}", c.colliders));
            }
        }
        if pairs != self.open_contacts {
            let extra: Vec<_> = pairs.difference(&self.open_contacts).collect();
            let missing: Vec<_> = self.open_contacts.difference(&pairs).collect();
            return Err(format!(
                "the contacts are not the pairs begun and not ended: contacts without a \
                 begin {extra:?}, begun pairs without a contact {missing:?}"
            ));
        }
        Ok(())
    }

    /// Queries name live bodies and colliders only, and a box over everything finds every
    /// live collider.
    pub fn check_queries(&self, world: &World) -> Result<(), String> {
        let live_collider = |c: ColliderId| {
            self.owner
                .get(&c)
                .is_some_and(|&b| world.contains(b) && self.live.contains(&b))
        };
        let everything = Aabb::new(Vec2::splat(-f32::MAX), Vec2::splat(f32::MAX));
        let mut found = Vec::new();
        world
            .colliders_in_aabb(&everything, &Filter::default(), &mut found)
            .map_err(|e| format!("colliders_in_aabb over everything: {e}"))?;
        let mut expected: Vec<ColliderId> = self
            .live
            .iter()
            .flat_map(|&b| self.colliders(b).iter().copied())
            .collect();
        expected.sort();
        if found != expected {
            return Err(format!(
                "colliders_in_aabb over everything found {found:?}, the live colliders are \
                 {expected:?}"
            ));
        }
        let mut hits: Vec<WorldRayHit> = Vec::new();
        for &body in self.live.iter().take(8) {
            let point = world.center_of_mass(body);
            if let Some(b) = world.body_at(point)
                && !self.live.contains(&b)
            {
                return Err(format!("body_at({point}) names {b:?}, not live"));
            }
            world
                .colliders_at(point, &Filter::default(), &mut found)
                .map_err(|e| format!("colliders_at({point}): {e}"))?;
            if let Some(c) = found.iter().find(|&&c| !live_collider(c)) {
                return Err(format!("colliders_at({point}) names {c:?}, not live"));
            }
            let (origin, translation) = (point - Vec2::new(30.0, 0.01), Vec2::new(60.0, 0.0));
            if let Some((b, _)) = world.cast_ray(origin, translation)
                && !self.live.contains(&b)
            {
                return Err(format!("cast_ray from {origin} names {b:?}, not live"));
            }
            world
                .cast_ray_all(origin, translation, &Filter::default(), &mut hits)
                .map_err(|e| format!("cast_ray_all from {origin}: {e}"))?;
            for h in &hits {
                if !live_collider(h.collider) || self.owner.get(&h.collider) != Some(&h.body) {
                    return Err(format!("cast_ray_all from {origin} hit {h:?}, not live"));
                }
            }
        }
        Ok(())
    }
}

/// Every call with a stale or foreign body handle, and with its colliders' handles: an
/// error naming that handle and `reason`, or (the plain readers) a panic naming the
/// handle; never another body's data, and the world unchanged.
pub fn check_stale(
    world: &mut World,
    body: BodyId,
    reason: StaleReason,
    colliders: &[ColliderId],
) -> Result<(), String> {
    let names_it = |r: Result<(), Error>| match r {
        Err(Error::World(WorldError::StaleBody {
            body: b,
            reason: why,
        })) => b == body && why == reason,
        _ => false,
    };
    let before = (world.body_count(), state(world));
    let fail = |what: &str| Err(format!("{what} with {body:?} (stale: {reason})"));
    if world.contains(body) {
        return fail("World::contains is true");
    }
    if !names_it(world.body(body).map(|_| ())) {
        return fail("World::body does not refuse it by name");
    }
    if !names_it(world.set_velocity(body, Vec2::ONE, 1.0)) {
        return fail("set_velocity does not refuse it by name");
    }
    if !names_it(world.wake(body)) {
        return fail("wake does not refuse it by name");
    }
    if !names_it(world.set_filter(body, Filter::default())) {
        return fail("set_filter does not refuse it by name");
    }
    if !names_it(world.apply_force(body, Vec2::ONE, Vec2::ZERO)) {
        return fail("apply_force does not refuse it by name");
    }
    if !names_it(world.apply_linear_impulse(body, Vec2::ONE, Vec2::ZERO)) {
        return fail("apply_linear_impulse does not refuse it by name");
    }
    if !names_it(world.apply_torque(body, 1.0)) || !names_it(world.apply_angular_impulse(body, 1.0))
    {
        return fail("apply_torque or apply_angular_impulse does not refuse it by name");
    }
    if !names_it(world.set_linear_damping(body, 1.0))
        || !names_it(world.set_gravity_scale(body, 1.0))
        || !names_it(world.set_fixed_rotation(body, true))
    {
        return fail("a motion setter does not refuse it by name");
    }
    if !names_it(world.set_transform(body, Vec2::ZERO, 0.0)) {
        return fail("set_transform does not refuse it by name");
    }
    if !names_it(world.set_body_type(body, wgpu_sat::world::BodyType::Static)) {
        return fail("set_body_type does not refuse it by name");
    }
    // Every plain reader panics naming the handle: none reads another body's data, or a
    // NaN in its place, through it.
    let readers: [(&str, &dyn Fn()); 21] = [
        ("body_type", &|| {
            std::hint::black_box(world.body_type(body));
        }),
        ("is_kinematic", &|| {
            std::hint::black_box(world.is_kinematic(body));
        }),
        ("fixed_rotation", &|| {
            std::hint::black_box(world.fixed_rotation(body));
        }),
        ("linear_damping", &|| {
            std::hint::black_box(world.linear_damping(body));
        }),
        ("angular_damping", &|| {
            std::hint::black_box(world.angular_damping(body));
        }),
        ("gravity_scale", &|| {
            std::hint::black_box(world.gravity_scale(body));
        }),
        ("transform", &|| {
            std::hint::black_box(world.transform(body));
        }),
        ("center_of_mass", &|| {
            std::hint::black_box(world.center_of_mass(body));
        }),
        ("linear_velocity", &|| {
            std::hint::black_box(world.linear_velocity(body));
        }),
        ("angular_velocity", &|| {
            std::hint::black_box(world.angular_velocity(body));
        }),
        ("mass", &|| {
            std::hint::black_box(world.mass(body));
        }),
        ("rotational_inertia", &|| {
            std::hint::black_box(world.rotational_inertia(body));
        }),
        ("friction", &|| {
            std::hint::black_box(world.friction(body));
        }),
        ("restitution", &|| {
            std::hint::black_box(world.restitution(body));
        }),
        ("is_static", &|| {
            std::hint::black_box(world.is_static(body));
        }),
        ("is_bullet", &|| {
            std::hint::black_box(world.is_bullet(body));
        }),
        ("is_awake", &|| {
            std::hint::black_box(world.is_awake(body));
        }),
        ("body_aabb", &|| {
            std::hint::black_box(world.body_aabb(body));
        }),
        ("body_pieces", &|| {
            std::hint::black_box(world.body_pieces(body).len());
        }),
        ("body_colliders", &|| {
            std::hint::black_box(world.body_colliders(body).len());
        }),
        ("user_data", &|| {
            std::hint::black_box(world.user_data(body));
        }),
    ];
    for (name, read) in readers {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
        let message = match outcome {
            Ok(()) => return fail(&format!("{name} reads it as a body")),
            Err(payload) => payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default(),
        };
        if !message.contains(&body.to_string()) {
            return fail(&format!("{name} panics with {message:?}, not naming it,"));
        }
    }
    for &c in colliders {
        let names_c = |r: Result<(), Error>| match r {
            Err(Error::World(WorldError::StaleCollider {
                collider,
                reason: why,
            })) => collider == c && why == reason,
            _ => false,
        };
        if !names_c(world.collider_body(c).map(|_| ())) {
            return fail(&format!("collider_body({c:?}) does not refuse it by name"));
        }
        if !names_c(world.set_material(c, wgpu_sat::world::Material::default()))
            || !names_c(world.material(c).map(|_| ()))
        {
            return fail(&format!(
                "set_material or material({c:?}) does not refuse it by name"
            ));
        }
        if !names_c(world.set_collider_filter(c, Filter::default())) {
            return fail(&format!(
                "set_collider_filter({c:?}) does not refuse it by name"
            ));
        }
        if world.collider_filter(c).is_some() || world.is_sensor(c).is_some() {
            return fail(&format!("collider_filter or is_sensor of {c:?} is Some"));
        }
    }
    if (world.body_count(), state(world)) != before {
        return fail("the world changed after the calls");
    }
    Ok(())
}
