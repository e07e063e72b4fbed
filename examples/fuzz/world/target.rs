//! The target itself: the ops generated from the bytes, and each one run and checked
//! against the world's history.

use arbitrary::{Result, Unstructured};
use wgpu_sat::error::{JointError, WorldError};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, ColliderId, CpuNarrowPhase, Error, JointDef, JointId, Polygon, World,
    world::BodyType, world::MAX_COORDINATE, world::MAX_LINEAR_SPEED_LIMIT, world::MAX_SUBSTEPS,
    world::Material, world::StaleReason, world::TIME_STEP_RANGE,
};

use crate::Target;
use crate::hostile;
use crate::world_model::{Model, check_stale};

use super::checks::{
    CHECKED_FIELDS, all_finite, angular_ok, bad_field, gravity_ok, linear_ok, material_ok, push,
    query,
};
use super::generate::{body_def, material, mostly, pick};
use super::{Handle, Op, Pick, WorldInput, WorldTarget};

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
