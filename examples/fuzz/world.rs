//! Target `world`: arbitrary sequences of calls on a `World` stepped with the CPU narrow
//! phase: `add_body` with any `BodyDef` (NaN and infinite fields, any shape, sometimes a
//! sensor), `remove_body` of a live body, `set_velocity`, `wake` and `World::body` with live
//! handles and stale ones (removed bodies', another world's, and one a clone of the world
//! made), `step` with any `dt`, `set_substeps`, `set_gravity`, `set_max_linear_speed` and
//! `set_continuous`; kinematic bodies, damping, gravity scale and fixed rotation in the
//! definitions, forces, torques and impulses (`apply_*`), `set_transform`,
//! `set_body_type`, and materials (per piece in the definitions, conveyor tangent speeds,
//! `set_material`), with any values and handles.
//!
//! Invariants: a value outside its documented range is an `Err` and one inside it is not
//! (a body definition may also be refused for what follows from its shape: mass, inertia or
//! extent out of range); a rejected `add_body` leaves the body count as it was; the world is
//! still usable after every rejected call (a plain step succeeds); `World::body` of a live
//! handle agrees with the plain accessors; after every `Ok` step every body's transform,
//! velocities and bounding box are finite. Handles (see `world_model.rs`): a stale or
//! foreign handle is an error naming it (`StaleBody`, `StaleCollider`, with the reason) or
//! NaN, `false` or nothing from the plain readers, and changes nothing; no event, contact or
//! query result names a body removed before the step (an end may name one removed just
//! before it); `World::bodies` lists the live bodies, `body_count` of them.

use arbitrary::{Result, Unstructured};
use wgpu_sat::error::{JointError, WorldError};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, BodyShape, Circle, ColliderId, CpuNarrowPhase, Error, JointDef, JointId,
    Polygon, Shape, World, world::BodyType, world::MAX_ANGULAR_SPEED, world::MAX_COORDINATE,
    world::MAX_GRAVITY_SCALE, world::MAX_LINEAR_SPEED_LIMIT, world::MAX_SUBSTEPS, world::Material,
    world::StaleReason, world::TIME_STEP_RANGE,
};

use crate::Target;
use crate::hostile;
use crate::world_model::{Model, check_stale};

pub struct WorldTarget;

/// A body handle to call with, picked when the op runs (the bytes cannot know the world):
/// the `k`-th (modulo their count) of the live bodies in the order they were added, of the
/// removed bodies, or of the handles of another world.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    Live(u16),
    Removed(u16),
    Foreign(u16),
}

#[derive(Debug)]
pub enum Op {
    Add(Box<BodyDef>),
    Remove(Pick),
    SetVelocity {
        body: Pick,
        linear: Vec2,
        angular: f32,
    },
    Wake(Pick),
    Step {
        dt: f32,
    },
    Substeps(usize),
    Gravity(Vec2),
    MaxLinearSpeed(f32),
    Continuous(bool),
    Query {
        body: Pick,
    },
    /// A body added to a clone of the world: its handle names nothing in the world itself.
    AddToClone(Box<BodyDef>),
    /// One of the `apply_*` calls (`kind` modulo 5), or a damping or gravity scale setter
    /// (5 to 7), with `vector`, `point` and `scalar` as its values.
    Push {
        body: Pick,
        kind: u8,
        vector: Vec2,
        point: Vec2,
        scalar: f32,
    },
    Teleport {
        body: Pick,
        position: Vec2,
        angle: f32,
    },
    SetType {
        body: Pick,
        body_type: BodyType,
    },
    /// `set_material` on the body's piece `piece` (modulo its count).
    SetMaterial {
        body: Pick,
        piece: u8,
        material: Material,
    },
    /// A joint of kind `kind` (modulo 8) between two picked bodies, at `anchor` (and
    /// `other`, the distance joint's second anchor or the axis), with `limits` and a spring
    /// of `hertz` when `options` says so (bit 0 limits, bit 1 spring, bit 2 motor).
    Joint {
        bodies: [Pick; 2],
        kind: u8,
        anchor: Vec2,
        other: Vec2,
        limits: [f32; 2],
        hertz: f32,
        options: u8,
    },
    /// Removes the `k`-th (modulo their count) joint added so far, live or not.
    RemoveJoint(u16),
}

#[derive(Debug)]
pub struct WorldInput {
    pub gravity: Vec2,
    pub ops: Vec<Op>,
}

/// Mostly an ordinary value from `lo` to `hi`, sometimes any hostile float.
fn mostly(u: &mut Unstructured, lo: f32, hi: f32) -> Result<f32> {
    if u.ratio(1u8, 8)? {
        hostile::float(u)
    } else {
        hostile::uniform(u, lo, hi)
    }
}

/// A shape of ordinary size (a world of bodies from 1e-30 to 1e38 units tests one thing
/// only), or a hostile one now and then.
fn body_shape(u: &mut Unstructured) -> Result<BodyShape> {
    let tame = |u: &mut Unstructured| -> Result<Shape> {
        Ok(match u.int_in_range(0u8..=2)? {
            0 => Shape::Polygon(Polygon::rectangle(
                hostile::uniform(u, 0.05, 2.0)?,
                hostile::uniform(u, 0.05, 2.0)?,
            )),
            1 => Shape::Polygon(
                Polygon::regular(u.int_in_range(3..=8)?, hostile::uniform(u, 0.05, 2.0)?)
                    .unwrap_or_else(|_| Polygon::rectangle(0.5, 0.5)),
            ),
            _ => Shape::Circle(Circle::new(hostile::uniform(u, 0.05, 2.0)?).unwrap()),
        })
    };
    Ok(match u.int_in_range(0u8..=9)? {
        0..=5 => BodyShape::from(tame(u)?),
        6 => BodyShape::from(hostile::shape(u)?),
        7 => {
            let n = 1 + hostile::len(u, 3)?;
            let pieces = (0..n).map(|_| tame(u)).collect::<Result<Vec<_>>>()?;
            BodyShape::compound(pieces).unwrap()
        }
        _ => {
            // A concave outline of ordinary size: a star of up to 24 points.
            let n = u.int_in_range(3usize..=24)?;
            let depth = hostile::uniform(u, 0.0, 0.8)?;
            let r = hostile::uniform(u, 0.2, 2.0)?;
            let outline: Vec<Vec2> = (0..n)
                .map(|k| {
                    let a = std::f32::consts::TAU * k as f32 / n as f32;
                    Ok(r * (1.0 - depth * hostile::uniform(u, 0.0, 1.0)?) * Vec2::from_angle(a))
                })
                .collect::<Result<_>>()?;
            BodyShape::concave(&outline).unwrap_or_else(|_| BodyShape::from(tame(u).unwrap()))
        }
    })
}

/// A material of ordinary values, any hostile one now and then.
fn material(u: &mut Unstructured) -> Result<Material> {
    Ok(Material {
        friction: mostly(u, 0.0, 1.0)?,
        restitution: mostly(u, 0.0, 1.0)?,
        density: mostly(u, 0.1, 10.0)?,
        tangent_speed: mostly(u, -5.0, 5.0)?,
    })
}

/// Whether `set_material` and `add_body` take `m` for a piece of a body that is `dynamic`
/// or not (only a dynamic body's pieces need a density).
fn material_ok(m: &Material, dynamic: bool) -> bool {
    m.friction.is_finite()
        && m.friction >= 0.0
        && (0.0..=1.0).contains(&m.restitution)
        && (!dynamic || m.density.is_finite() && m.density > 0.0)
        && m.tangent_speed.abs() <= MAX_LINEAR_SPEED_LIMIT
}

/// Whether `add_body` and `set_velocity` take a velocity: within the table's speeds.
fn linear_ok(v: Vec2) -> bool {
    v.is_finite()
        && v.abs().max_element() <= MAX_LINEAR_SPEED_LIMIT
        && v.length() <= MAX_LINEAR_SPEED_LIMIT
}

fn angular_ok(w: f32) -> bool {
    w.abs() <= MAX_ANGULAR_SPEED
}

fn body_def(u: &mut Unstructured) -> Result<BodyDef> {
    let mut piece_materials = Vec::new();
    // Mostly none. (Bounded: an exhausted input answers every `ratio` with true.)
    for _ in 0..hostile::len(u, 3)? {
        // Now and then past the shape's pieces: an error naming the index.
        piece_materials.push((u.int_in_range(0..=3)?, material(u)?));
    }
    Ok(BodyDef {
        shape: body_shape(u)?,
        position: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angle: mostly(u, -4.0, 4.0)?,
        linear_velocity: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angular_velocity: mostly(u, -10.0, 10.0)?,
        density: mostly(u, 0.1, 10.0)?,
        friction: mostly(u, 0.0, 1.0)?,
        restitution: mostly(u, 0.0, 1.0)?,
        tangent_speed: mostly(u, -5.0, 5.0)?,
        piece_materials,
        // The bytes of two flags, as before BodyDef took a BodyType (so that the seeds
        // keep most of their meaning): static first, then kinematic.
        body_type: match (u.ratio(1u8, 4)?, u.ratio(1u8, 6)?) {
            (true, _) => BodyType::Static,
            (false, true) => BodyType::Kinematic,
            (false, false) => BodyType::Dynamic,
        },
        linear_damping: mostly(u, 0.0, 2.0)?,
        angular_damping: mostly(u, 0.0, 2.0)?,
        gravity_scale: mostly(u, -2.0, 2.0)?,
        fixed_rotation: u.ratio(1u8, 8)?,
        is_bullet: u.ratio(1u8, 6)?,
        // Filters are left at their defaults (the default filter lets every pair touch);
        // the `Add` op makes a body a sensor with a draw of its own.
        ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
    })
}

/// A handle to call with, mostly a live body's.
fn pick(u: &mut Unstructured, live_share: u8) -> Result<Pick> {
    let k = u.arbitrary()?;
    Ok(if u.int_in_range(0u8..=7)? < live_share {
        Pick::Live(k)
    } else if u.arbitrary()? {
        Pick::Removed(k)
    } else {
        Pick::Foreign(k)
    })
}

/// A picked handle, resolved against the world's history.
enum Handle {
    Live(BodyId),
    /// A handle the world must refuse, why, and its colliders' handles.
    Stale(BodyId, StaleReason, Vec<ColliderId>),
}

/// Handles of another world: two live bodies and a removed one (refused as another
/// world's, whatever became of them there).
fn foreign_handles() -> std::result::Result<Vec<(BodyId, Vec<ColliderId>)>, String> {
    let mut other = World::new(Vec2::ZERO);
    let mut handles = Vec::new();
    for x in [0.0, 3.0, 6.0] {
        let body = other
            .add_body(&BodyDef::dynamic(
                Polygon::rectangle(0.5, 0.5),
                Vec2::new(x, 0.0),
            ))
            .map_err(|e| format!("another world refused a plain box: {e}"))?;
        handles.push((body, other.body_colliders(body).collect()));
    }
    other
        .remove_body(handles[1].0)
        .map_err(|e| format!("another world could not remove a body: {e}"))?;
    Ok(handles)
}

impl Target for WorldTarget {
    type Input = WorldInput;

    fn name(&self) -> &'static str {
        "world"
    }

    fn weight(&self) -> u64 {
        // A sequence of up to 40 calls with steps: some hundred times a pair test.
        5
    }

    fn generate(&self, u: &mut Unstructured) -> Result<WorldInput> {
        let gravity = if u.ratio(1u8, 8)? {
            hostile::vec2(u)?
        } else {
            Vec2::new(0.0, -10.0)
        };
        let mut ops = Vec::new();
        for _ in 0..hostile::len(u, 40)? {
            ops.push(match u.int_in_range(0u8..=25)? {
                0..=3 => {
                    let mut def = body_def(u)?;
                    def.is_sensor = u.ratio(1u8, 10)?;
                    // Half the bodies crowd near the origin, so that bodies touch, and
                    // removals and stale handles meet contacts and their events.
                    if u.arbitrary()? {
                        def.position = Vec2::new(
                            hostile::uniform(u, -3.0, 3.0)?,
                            hostile::uniform(u, -2.0, 2.0)?,
                        );
                    }
                    Op::Add(Box::new(def))
                }
                4 => Op::SetVelocity {
                    body: pick(u, 6)?,
                    linear: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
                    angular: mostly(u, -10.0, 10.0)?,
                },
                5..=8 => Op::Step {
                    dt: if u.ratio(1u8, 4)? {
                        hostile::float(u)?
                    } else {
                        hostile::uniform(u, 0.001, 0.1)?
                    },
                },
                9 => Op::Substeps(match u.int_in_range(0u8..=3)? {
                    0 => u.arbitrary()?,
                    _ => u.int_in_range(0..=80)?,
                }),
                10 => Op::Continuous(u.arbitrary()?),
                11 => Op::Query { body: pick(u, 4)? },
                12 => Op::Gravity(if u.ratio(1u8, 2)? {
                    Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?)
                } else {
                    hostile::vec2(u)?
                }),
                13 => Op::MaxLinearSpeed(mostly(u, 1.0, 2000.0)?),
                14 | 15 => Op::Remove(pick(u, 6)?),
                16 => Op::Wake(pick(u, 5)?),
                17 => Op::AddToClone(Box::new(body_def(u)?)),
                18 | 19 => Op::Push {
                    body: pick(u, 6)?,
                    kind: u.int_in_range(0..=7)?,
                    vector: Vec2::new(mostly(u, -50.0, 50.0)?, mostly(u, -50.0, 50.0)?),
                    point: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
                    scalar: mostly(u, -10.0, 10.0)?,
                },
                20 => Op::Teleport {
                    body: pick(u, 6)?,
                    position: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
                    angle: mostly(u, -4.0, 4.0)?,
                },
                21 => Op::SetMaterial {
                    body: pick(u, 6)?,
                    piece: u.arbitrary()?,
                    material: material(u)?,
                },
                22 | 23 => Op::Joint {
                    bodies: [pick(u, 7)?, pick(u, 7)?],
                    kind: u.arbitrary()?,
                    anchor: Vec2::new(mostly(u, -3.0, 3.0)?, mostly(u, -2.0, 2.0)?),
                    other: Vec2::new(mostly(u, -3.0, 3.0)?, mostly(u, -2.0, 2.0)?),
                    limits: [mostly(u, -3.0, 0.0)?, mostly(u, 0.0, 3.0)?],
                    hertz: mostly(u, 0.0, 30.0)?,
                    options: u.arbitrary()?,
                },
                24 => Op::RemoveJoint(u.arbitrary()?),
                _ => Op::SetType {
                    body: pick(u, 6)?,
                    body_type: match u.int_in_range(0u8..=2)? {
                        0 => BodyType::Static,
                        1 => BodyType::Kinematic,
                        _ => BodyType::Dynamic,
                    },
                },
            });
        }
        Ok(WorldInput { gravity, ops })
    }

    fn check(&self, input: &WorldInput) -> std::result::Result<(), String> {
        let mut world = World::new(input.gravity);
        let mut narrow = CpuNarrowPhase::new();
        let mut model = Model::default();
        let foreign = foreign_handles()?;
        let mut adds = 0;
        let mut joints: Vec<JointId> = Vec::new();
        let resolve = |model: &Model, pick: Pick| -> Option<Handle> {
            let nth = |count: usize, k: u16| (count > 0).then(|| usize::from(k) % count);
            Some(match pick {
                Pick::Live(k) => Handle::Live(model.live[nth(model.live.len(), k)?]),
                Pick::Removed(k) => {
                    let body = model.removed[nth(model.removed.len(), k)?];
                    let colliders = model.colliders(body).to_vec();
                    Handle::Stale(body, StaleReason::Removed, colliders)
                }
                Pick::Foreign(k) => {
                    let (body, colliders) = &foreign[nth(foreign.len(), k)?];
                    Handle::Stale(*body, StaleReason::OtherWorld, colliders.clone())
                }
            })
        };
        for (k, op) in input.ops.iter().enumerate() {
            // The broken rule first, so that failures group by it; then where it broke.
            let at = |what: String| format!("{what}; at op {k}: {op:?}");
            let mut rejected = false;
            match op {
                Op::Add(def) => {
                    let before = world.body_count();
                    let bad = bad_field(def);
                    let user_data = Model::user_data_for(adds);
                    adds += 1;
                    let def = BodyDef {
                        user_data,
                        ..(**def).clone()
                    };
                    match world.add_body(&def) {
                        Ok(body) => {
                            if let Some(field) = bad {
                                return Err(at(format!("add_body accepted a bad {field}")));
                            }
                            // While nothing was removed, slots are handed out in order.
                            let in_order = !model.removed.is_empty() || body.index() == before;
                            if !in_order || world.body_count() != before + 1 {
                                return Err(at(format!(
                                    "add_body returned {body:?}, count {} (was {before})",
                                    world.body_count()
                                )));
                            }
                            model
                                .added(&world, body, user_data, def.is_sensor)
                                .map_err(at)?;
                            // "What is accepted stays finite" (World's documentation).
                            let x = world.transform(body);
                            let b = world.body_aabb(body);
                            if !(x.is_finite() && b.min.is_finite() && b.max.is_finite()) {
                                return Err(at(format!(
                                    "add_body accepted a body that is not finite: {x:?}, {b:?}"
                                )));
                            }
                        }
                        Err(e) => {
                            rejected = true;
                            if world.body_count() != before {
                                return Err(at(format!(
                                    "rejected add_body changed the body count to {}",
                                    world.body_count()
                                )));
                            }
                            // A valid definition may be refused only for what follows from
                            // its shape (mass or inertia out of range), not for a field
                            // this check finds in range.
                            if bad.is_none() {
                                if let Error::World(WorldError::InvalidBody { field, .. }) = e {
                                    if CHECKED_FIELDS.contains(&field) {
                                        return Err(at(format!(
                                            "add_body refused a valid {field}: {e}"
                                        )));
                                    }
                                } else {
                                    return Err(at(format!("add_body refused a valid body: {e}")));
                                }
                            }
                        }
                    }
                }
                Op::Remove(pick) => match resolve(&model, *pick) {
                    Some(Handle::Live(body)) => model.remove(&mut world, body).map_err(at)?,
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::SetVelocity {
                    body,
                    linear,
                    angular,
                } => {
                    let valid = linear_ok(*linear) && angular_ok(*angular);
                    match resolve(&model, *body) {
                        Some(Handle::Live(body)) => {
                            match world.set_velocity(body, *linear, *angular) {
                                Ok(()) if !valid => {
                                    return Err(at("set_velocity accepted a bad value".into()));
                                }
                                Ok(()) => {
                                    // A fixed rotation keeps the spin 0.
                                    let spin = if world.fixed_rotation(body) {
                                        0.0
                                    } else {
                                        *angular
                                    };
                                    if !world.is_static(body)
                                        && (world.linear_velocity(body) != *linear
                                            || world.angular_velocity(body) != spin)
                                    {
                                        return Err(at(
                                            "set_velocity did not set the velocity".into()
                                        ));
                                    }
                                }
                                Err(e) if valid => {
                                    return Err(at(format!(
                                        "set_velocity refused a valid value: {e}"
                                    )));
                                }
                                Err(_) => rejected = true,
                            }
                        }
                        Some(Handle::Stale(body, reason, _)) => {
                            rejected = true;
                            match world.set_velocity(body, *linear, *angular) {
                                Ok(()) => {
                                    return Err(at(format!(
                                        "set_velocity accepted stale {body:?}"
                                    )));
                                }
                                Err(Error::World(WorldError::StaleBody { body: b, reason: r }))
                                    if b == body && r == reason => {}
                                // A bad value may be named instead of the handle.
                                Err(_) if !valid => {}
                                Err(e) => {
                                    return Err(at(format!(
                                        "set_velocity refused stale {body:?} ({reason}) with {e}"
                                    )));
                                }
                            }
                        }
                        None => {}
                    }
                }
                Op::Wake(pick) => match resolve(&model, *pick) {
                    Some(Handle::Live(body)) => {
                        if let Err(e) = world.wake(body) {
                            return Err(at(format!("wake refused live {body:?}: {e}")));
                        }
                        if !world.is_static(body) && !world.is_awake(body) {
                            return Err(at(format!("{body:?} sleeps just after wake")));
                        }
                    }
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::Step { dt } => {
                    let dt_valid = TIME_STEP_RANGE.contains(dt);
                    let gravity_valid = gravity_ok(world.gravity());
                    match world.step(*dt, &mut narrow) {
                        Ok(_) if !(dt_valid && gravity_valid) => {
                            return Err(at("step accepted a bad dt or gravity".into()));
                        }
                        Ok(_) => {
                            all_finite(&world).map_err(at)?;
                            model.stepped(&world).map_err(at)?;
                        }
                        Err(Error::World(WorldError::InvalidTimeStep { .. })) if !dt_valid => {
                            rejected = true
                        }
                        Err(Error::World(WorldError::InvalidSetting {
                            name: "gravity", ..
                        })) if !gravity_valid => {
                            rejected = true;
                        }
                        Err(e) => return Err(at(format!("step failed: {e}"))),
                    }
                }
                Op::Substeps(n) => {
                    let valid = (1..=MAX_SUBSTEPS).contains(n);
                    match world.set_substeps(*n) {
                        Ok(()) if valid && world.substeps() == *n => {}
                        Err(_) if !valid => rejected = true,
                        other => return Err(at(format!("set_substeps gave {other:?}"))),
                    }
                }
                Op::Gravity(g) => match world.set_gravity(*g) {
                    Ok(()) if gravity_ok(*g) && world.gravity() == *g => {}
                    Err(_) if !gravity_ok(*g) => rejected = true,
                    other => return Err(at(format!("set_gravity gave {other:?}"))),
                },
                Op::MaxLinearSpeed(speed) => {
                    let valid = *speed > 0.0 && *speed <= MAX_LINEAR_SPEED_LIMIT;
                    match world.set_max_linear_speed(*speed) {
                        Ok(()) if valid => {}
                        Err(_) if !valid => rejected = true,
                        other => return Err(at(format!("set_max_linear_speed gave {other:?}"))),
                    }
                }
                Op::Continuous(on) => world.set_continuous(*on),
                Op::Query { body } => match resolve(&model, *body) {
                    Some(Handle::Live(body)) => query(&world, &model, body).map_err(at)?,
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::Push {
                    body,
                    kind,
                    vector,
                    point,
                    scalar,
                } => match resolve(&model, *body) {
                    Some(Handle::Live(body)) => {
                        push(&mut world, body, *kind, *vector, *point, *scalar).map_err(at)?;
                    }
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::Teleport {
                    body,
                    position,
                    angle,
                } => match resolve(&model, *body) {
                    Some(Handle::Live(body)) => {
                        let valid = position.is_finite()
                            && position.abs().max_element() <= MAX_COORDINATE
                            && angle.is_finite();
                        let before = world.transform(body);
                        match world.set_transform(body, *position, *angle) {
                            Ok(()) if !valid => {
                                return Err(at("set_transform accepted a bad pose".into()));
                            }
                            Ok(()) => {
                                let after = world.body_aabb(body);
                                if !(after.min.is_finite() && after.max.is_finite()) {
                                    return Err(at(format!("teleported to a box {after:?}")));
                                }
                            }
                            Err(Error::World(WorldError::InvalidBody { .. })) if !valid => {
                                rejected = true;
                                if world.transform(body) != before {
                                    return Err(at("a refused set_transform moved it".into()));
                                }
                            }
                            Err(e) => return Err(at(format!("set_transform gave {e}"))),
                        }
                    }
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::SetType { body, body_type } => match resolve(&model, *body) {
                    Some(Handle::Live(body)) => match world.set_body_type(body, *body_type) {
                        Ok(()) if world.body_type(body) == Some(*body_type) => {}
                        // Made dynamic, a shape may weigh outside MASS_RANGE.
                        Err(Error::World(WorldError::InvalidBody { field, .. }))
                            if *body_type == BodyType::Dynamic
                                && (field == "mass" || field == "rotational inertia") =>
                        {
                            rejected = true;
                        }
                        other => return Err(at(format!("set_body_type gave {other:?}"))),
                    },
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::SetMaterial {
                    body,
                    piece,
                    material,
                } => match resolve(&model, *body) {
                    Some(Handle::Live(body)) => {
                        let colliders: Vec<ColliderId> = world.body_colliders(body).collect();
                        let Some(&c) = colliders.get(usize::from(*piece) % colliders.len().max(1))
                        else {
                            return Err(at("a live body without colliders".into()));
                        };
                        let dynamic = world.body_type(body) == Some(BodyType::Dynamic);
                        let valid = material_ok(material, dynamic);
                        let before = world.material(c).map_err(|e| at(format!("{e}")))?;
                        let bits = |m: Material| {
                            [m.friction, m.restitution, m.density, m.tangent_speed]
                                .map(f32::to_bits)
                        };
                        match world.set_material(c, *material) {
                            Ok(()) if !valid => {
                                return Err(at("set_material accepted a bad material".into()));
                            }
                            Ok(()) => {
                                let now = world.material(c).map_err(|e| at(format!("{e}")))?;
                                if bits(now) != bits(*material) {
                                    return Err(at(format!("set_material then read {now:?}")));
                                }
                            }
                            // A valid density may weigh the body outside MASS_RANGE.
                            Err(Error::World(WorldError::InvalidMaterial { .. })) if !valid => {
                                rejected = true
                            }
                            Err(Error::World(WorldError::InvalidBody { field, .. }))
                                if dynamic
                                    && (field == "mass" || field == "rotational inertia") =>
                            {
                                rejected = true;
                            }
                            Err(e) => return Err(at(format!("set_material gave {e}"))),
                        }
                        let after = world.material(c).map_err(|e| at(format!("{e}")))?;
                        if rejected && bits(after) != bits(before) {
                            return Err(at("a refused set_material changed it".into()));
                        }
                    }
                    Some(Handle::Stale(body, reason, colliders)) => {
                        check_stale(&mut world, body, reason, &colliders).map_err(at)?;
                        rejected = true;
                    }
                    None => {}
                },
                Op::Joint {
                    bodies,
                    kind,
                    anchor,
                    other,
                    limits,
                    hertz,
                    options,
                } => {
                    let [Some(a), Some(b)] = bodies.map(|p| resolve(&model, p)) else {
                        continue;
                    };
                    let (a, b) = match (a, b) {
                        (Handle::Live(a), Handle::Live(b)) => (a, b),
                        (Handle::Stale(body, ..), _) | (_, Handle::Stale(body, ..)) => (body, body),
                    };
                    let mut def = match kind % 8 {
                        0 => JointDef::revolute(a, b, *anchor),
                        1 => JointDef::distance(a, b, *anchor, *other),
                        2 => JointDef::prismatic(a, b, *anchor, *other),
                        3 => JointDef::wheel(a, b, *anchor, *other),
                        4 => JointDef::weld(a, b, *anchor).with_weld_springs(*hertz, *hertz, 0.7),
                        5 => JointDef::motor(a, b).with_max_force(*hertz * 10.0),
                        6 => JointDef::mouse(a, b, *anchor).with_max_force(*hertz * 10.0),
                        _ => JointDef::filter(a, b),
                    };
                    if options & 1 != 0 {
                        def = def.with_limits(limits[0], limits[1]);
                    }
                    if options & 2 != 0 {
                        def = def.with_spring(*hertz, 0.5);
                    }
                    if options & 4 != 0 {
                        def = def.with_motor(limits[1], *hertz);
                    }
                    let live = world.contains(a) && world.contains(b);
                    match world.add_joint(&def) {
                        Ok(joint) if a != b => joints.push(joint),
                        Err(Error::World(WorldError::StaleBody { .. })) if !live => rejected = true,
                        Err(Error::Joint(JointError::JointToItself { .. })) if a == b => {
                            rejected = true
                        }
                        // Hostile numbers (NaN anchors, limits out of order or range, a
                        // negative spring) are refused by name.
                        Err(Error::Joint(JointError::InvalidJoint { .. })) => rejected = true,
                        other => return Err(at(format!("add_joint gave {other:?}"))),
                    }
                }
                Op::RemoveJoint(k) => {
                    let Some(&joint) = joints.get(usize::from(*k) % joints.len().max(1)) else {
                        continue;
                    };
                    let live = world.joints().any(|j| j == joint);
                    match world.remove_joint(joint) {
                        Ok(()) if live => {
                            if world.joints().any(|j| j == joint) {
                                return Err(at("a removed joint is still listed".into()));
                            }
                        }
                        // Removed before, or with one of its bodies.
                        Err(Error::Joint(JointError::StaleJoint { .. })) if !live => {
                            rejected = true
                        }
                        other => return Err(at(format!("remove_joint gave {other:?}"))),
                    }
                }
                Op::AddToClone(def) => {
                    let mut twin = world.clone();
                    if let Ok(body) = twin.add_body(def) {
                        // The twin keeps the world's number and names the world's bodies
                        // as it does; its new body's slot was never handed out here.
                        if let Some(&b) = model.live.iter().find(|&&b| {
                            twin.user_data(b) != world.user_data(b) || !twin.contains(b)
                        }) {
                            return Err(at(format!("a clone does not name {b:?} as its world")));
                        }
                        let colliders: Vec<ColliderId> = twin.body_colliders(body).collect();
                        check_stale(&mut world, body, StaleReason::NeverMade, &colliders)
                            .map_err(at)?;
                        rejected = true;
                    }
                }
            }
            if rejected {
                // Usable afterwards: an ordinary step goes through (or refuses only what
                // was already refused: gravity that is not finite).
                match world.step(1.0 / 60.0, &mut narrow) {
                    Ok(_) => {
                        all_finite(&world)
                            .map_err(|e| at(format!("after a rejected call, a step: {e}")))?;
                        model
                            .stepped(&world)
                            .map_err(|e| at(format!("after a rejected call, a step: {e}")))?;
                    }
                    Err(_) if !gravity_ok(world.gravity()) => {}
                    Err(e) => return Err(at(format!("after a rejected call, a step failed: {e}"))),
                }
            }
        }
        Ok(())
    }
}

/// The `BodyDef` fields `World::add_body` validates, and their rules.
const CHECKED_FIELDS: [&str; 11] = [
    "position",
    "angle",
    "linear_velocity",
    "angular_velocity",
    "friction",
    "restitution",
    "tangent_speed",
    "density",
    "linear_damping",
    "angular_damping",
    "gravity_scale",
];

/// One force, impulse or motion setting on a live body: an error exactly when a value is
/// not finite or out of its range (a finite force may also be refused past
/// `MAX_ACCELERATION`, naming "force" or "torque"), the velocity finite after it, and a
/// static or kinematic body's velocity unchanged by a force or impulse.
fn push(
    world: &mut World,
    body: BodyId,
    kind: u8,
    vector: Vec2,
    point: Vec2,
    scalar: f32,
) -> std::result::Result<(), String> {
    let moved_by_forces = !world.is_static(body) && !world.is_kinematic(body);
    let before = (world.linear_velocity(body), world.angular_velocity(body));
    let (name, result, valid) = match kind % 8 {
        0 => (
            "apply_force",
            world.apply_force(body, vector, point),
            vector.is_finite() && point.is_finite(),
        ),
        1 => (
            "apply_torque",
            world.apply_torque(body, scalar),
            scalar.is_finite(),
        ),
        2 => (
            "apply_linear_impulse",
            world.apply_linear_impulse(body, vector, point),
            vector.is_finite() && point.is_finite(),
        ),
        3 => (
            "apply_angular_impulse",
            world.apply_angular_impulse(body, scalar),
            scalar.is_finite(),
        ),
        4 => (
            "apply_force_to_center",
            world.apply_force_to_center(body, vector),
            vector.is_finite(),
        ),
        5 => (
            "set_linear_damping",
            world.set_linear_damping(body, scalar),
            scalar.is_finite() && scalar >= 0.0,
        ),
        6 => (
            "set_angular_damping",
            world.set_angular_damping(body, scalar),
            scalar.is_finite() && scalar >= 0.0,
        ),
        _ => (
            "set_gravity_scale",
            world.set_gravity_scale(body, scalar),
            scalar.abs() <= MAX_GRAVITY_SCALE,
        ),
    };
    match result {
        Ok(()) if !valid => return Err(format!("{name} accepted a bad value")),
        Ok(()) => {}
        Err(Error::World(WorldError::InvalidBody { .. })) if !valid => {}
        // A force, torque or impulse past what f32 integrates.
        Err(Error::World(WorldError::InvalidBody {
            field: "force" | "torque" | "impulse" | "angular_impulse",
            ..
        })) => {}
        Err(e) => return Err(format!("{name} refused a valid value: {e}")),
    }
    let after = (world.linear_velocity(body), world.angular_velocity(body));
    if !(after.0.is_finite() && after.1.is_finite()) {
        return Err(format!("{name} left the velocity {after:?}"));
    }
    if !moved_by_forces && kind % 8 < 5 && after != before {
        return Err(format!(
            "{name} changed a static or kinematic body's velocity"
        ));
    }
    Ok(())
}

/// A gravity `World::step` takes: finite, at most `MAX_COORDINATE` a component.
fn gravity_ok(g: Vec2) -> bool {
    g.is_finite() && g.abs().max_element() <= MAX_COORDINATE
}

/// The first field out of its documented range, if any.
fn bad_field(def: &BodyDef) -> Option<&'static str> {
    if !(def.position.is_finite() && def.position.abs().max_element() <= MAX_COORDINATE) {
        Some("position")
    } else if !def.angle.is_finite() {
        Some("angle")
    } else if !linear_ok(def.linear_velocity) {
        Some("linear_velocity")
    } else if !angular_ok(def.angular_velocity) {
        Some("angular_velocity")
    } else if !(def.friction.is_finite() && def.friction >= 0.0) {
        Some("friction")
    } else if !(0.0..=1.0).contains(&def.restitution) {
        Some("restitution")
    } else if !(def.linear_damping.is_finite() && def.linear_damping >= 0.0) {
        Some("linear_damping")
    } else if !(def.angular_damping.is_finite() && def.angular_damping >= 0.0) {
        Some("angular_damping")
    } else if !(def.gravity_scale.is_finite() && def.gravity_scale.abs() <= MAX_GRAVITY_SCALE) {
        Some("gravity_scale")
    } else if def.tangent_speed.abs() > MAX_LINEAR_SPEED_LIMIT || def.tangent_speed.is_nan() {
        Some("tangent_speed")
    } else if !(def.body_type != BodyType::Dynamic || def.density.is_finite() && def.density > 0.0)
    {
        Some("density")
    } else if (def.piece_materials.iter()).any(|(piece, _)| *piece >= def.shape.pieces().len()) {
        Some("piece index")
    } else if (def.piece_materials.iter())
        .any(|(_, m)| !material_ok(m, def.body_type == BodyType::Dynamic))
    {
        Some("piece material")
    } else {
        None
    }
}

/// After an `Ok` step: every body's pose, velocities and box are finite.
fn all_finite(world: &World) -> std::result::Result<(), String> {
    for id in world.bodies() {
        let body = world
            .body(id)
            .map_err(|e| format!("World::body({id:?}) of a listed body: {e}"))?;
        let x = body.transform();
        let v = body.linear_velocity();
        let w = body.angular_velocity();
        let b = body.aabb();
        if !(x.is_finite()
            && v.is_finite()
            && w.is_finite()
            && b.min.is_finite()
            && b.max.is_finite())
        {
            return Err(format!(
                "after an Ok step {id:?} is not finite: transform {x:?}, velocity {v}, \
                 angular {w}, aabb {b:?}"
            ));
        }
    }
    Ok(())
}

/// `World::body` with a live handle: `Ok`, with the same answers as the plain accessors,
/// the user data and colliders it was added with, each collider naming it.
fn query(world: &World, model: &Model, id: BodyId) -> std::result::Result<(), String> {
    let body = world
        .body(id)
        .map_err(|e| format!("World::body({id:?}) of a live body: {e}"))?;
    let bits = |v: wgpu_sat::glam::Vec2| v.to_array().map(f32::to_bits);
    let checks = [
        ("id", body.id() == id),
        ("user_data", Some(body.user_data()) == world.user_data(id)),
        ("transform", body.transform() == world.transform(id)),
        (
            "center_of_mass",
            bits(body.center_of_mass()) == bits(world.center_of_mass(id)),
        ),
        (
            "linear_velocity",
            bits(body.linear_velocity()) == bits(world.linear_velocity(id)),
        ),
        (
            "angular_velocity",
            body.angular_velocity().to_bits() == world.angular_velocity(id).to_bits(),
        ),
        ("mass", body.mass().to_bits() == world.mass(id).to_bits()),
        (
            "rotational_inertia",
            body.rotational_inertia().to_bits() == world.rotational_inertia(id).to_bits(),
        ),
        ("is_static", body.is_static() == world.is_static(id)),
        ("is_bullet", body.is_bullet() == world.is_bullet(id)),
        ("is_awake", body.is_awake() == world.is_awake(id)),
        ("aabb", body.aabb() == world.body_aabb(id)),
        ("colliders", body.colliders().eq(world.body_colliders(id))),
        (
            "pieces",
            body.pieces().count() == world.body_pieces(id).count(),
        ),
    ];
    if let Some((name, _)) = checks.iter().find(|(_, same)| !same) {
        return Err(format!(
            "World::body({id:?}).{name} disagrees with World::{name}: {:?} vs the accessors",
            (body.transform(), body.aabb(), body.mass())
        ));
    }
    if !body.colliders().eq(model.colliders(id).iter().copied()) {
        return Err(format!(
            "{id:?} has colliders {:?}, added with {:?}",
            body.colliders().collect::<Vec<_>>(),
            model.colliders(id)
        ));
    }
    for c in body.colliders() {
        if world.collider_body(c).ok() != Some(id) {
            return Err(format!(
                "collider {c:?} of {id:?} says {:?}",
                world.collider_body(c)
            ));
        }
    }
    let _ = world.body_at(body.center_of_mass());
    let _ = world.contacts().count();
    let _ = world.contact_impulses().count();
    Ok(())
}
