//! Target `world`: arbitrary sequences of calls on a `World` stepped with the CPU narrow
//! phase: `add_body` with any `BodyDef` (NaN and infinite fields, any shape), `set_velocity`
//! (indices out of range included), `step` with any `dt`, `set_substeps`, `set_gravity`,
//! `set_max_linear_speed`, `set_continuous`, and `World::body` with any index.
//!
//! Invariants: a value outside its documented range is an `Err` and one inside it is not
//! (a body definition may also be refused for what follows from its shape: mass, inertia or
//! extent out of range); a rejected `add_body` leaves the body count as it was; the world is
//! still usable after every rejected call (a plain step succeeds); `World::body` is `None`
//! exactly out of range and agrees with the panicking accessors; after every `Ok` step every
//! body's transform, velocities and bounding box are finite.

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyShape, Circle, CpuNarrowPhase, Error, MAX_COORDINATE, MAX_LINEAR_SPEED_LIMIT,
    MAX_SUBSTEPS, Polygon, Shape, TIME_STEP_RANGE, World,
};

use crate::Target;
use crate::hostile;

pub struct WorldTarget;

#[derive(Debug)]
pub enum Op {
    Add(Box<BodyDef>),
    SetVelocity {
        body: usize,
        linear: Vec2,
        angular: f32,
    },
    Step {
        dt: f32,
    },
    Substeps(usize),
    Gravity(Vec2),
    MaxLinearSpeed(f32),
    Continuous(bool),
    Query {
        body: usize,
    },
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

fn body_def(u: &mut Unstructured) -> Result<BodyDef> {
    Ok(BodyDef {
        shape: body_shape(u)?,
        position: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angle: mostly(u, -4.0, 4.0)?,
        linear_velocity: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angular_velocity: mostly(u, -10.0, 10.0)?,
        density: mostly(u, 0.1, 10.0)?,
        friction: mostly(u, 0.0, 1.0)?,
        restitution: mostly(u, 0.0, 1.0)?,
        is_static: u.ratio(1u8, 4)?,
        is_bullet: u.ratio(1u8, 6)?,
        // Filters and sensors are left at their defaults, so that the saved inputs of
        // tests/fuzz_regressions.rs keep building the worlds they were found with.
        ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
    })
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
            ops.push(match u.int_in_range(0u8..=13)? {
                0..=3 => Op::Add(Box::new(body_def(u)?)),
                4 => Op::SetVelocity {
                    body: match u.int_in_range(0u8..=3)? {
                        0 => u.arbitrary()?,
                        _ => u.int_in_range(0..=12)?,
                    },
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
                12 => Op::Gravity(if u.ratio(1u8, 2)? {
                    Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?)
                } else {
                    hostile::vec2(u)?
                }),
                13 => Op::MaxLinearSpeed(mostly(u, 1.0, 2000.0)?),
                10 => Op::Continuous(u.arbitrary()?),
                _ => Op::Query {
                    body: match u.int_in_range(0u8..=3)? {
                        0 => u.arbitrary()?,
                        _ => u.int_in_range(0..=12)?,
                    },
                },
            });
        }
        Ok(WorldInput { gravity, ops })
    }

    fn check(&self, input: &WorldInput) -> std::result::Result<(), String> {
        let mut world = World::new(input.gravity);
        let mut narrow = CpuNarrowPhase::new();
        for (k, op) in input.ops.iter().enumerate() {
            // The broken rule first, so that failures group by it; then where it broke.
            let at = |what: String| format!("{what}; at op {k}: {op:?}");
            let mut rejected = false;
            match op {
                Op::Add(def) => {
                    let before = world.body_count();
                    let bad = bad_field(def);
                    match world.add_body(def) {
                        Ok(index) => {
                            if let Some(field) = bad {
                                return Err(at(format!("add_body accepted a bad {field}")));
                            }
                            if index != before || world.body_count() != before + 1 {
                                return Err(at(format!(
                                    "add_body returned {index}, count {} (was {before})",
                                    world.body_count()
                                )));
                            }
                            // "What is accepted stays finite" (World's documentation).
                            let body = world.body(index).expect("just added");
                            let (x, b) = (body.transform(), body.aabb());
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
                                if let Error::InvalidBody { field, .. } = e {
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
                Op::SetVelocity {
                    body,
                    linear,
                    angular,
                } => {
                    let valid =
                        *body < world.body_count() && linear.is_finite() && angular.is_finite();
                    match world.set_velocity(*body, *linear, *angular) {
                        Ok(()) if !valid => {
                            return Err(at("set_velocity accepted a bad value".into()));
                        }
                        Ok(()) => {
                            if !world.is_static(*body)
                                && (world.linear_velocity(*body) != *linear
                                    || world.angular_velocity(*body) != *angular)
                            {
                                return Err(at("set_velocity did not set the velocity".into()));
                            }
                        }
                        Err(e) if valid => {
                            return Err(at(format!("set_velocity refused a valid value: {e}")));
                        }
                        Err(_) => rejected = true,
                    }
                }
                Op::Step { dt } => {
                    let dt_valid = TIME_STEP_RANGE.contains(dt);
                    let gravity_valid = gravity_ok(world.gravity());
                    match world.step(*dt, &mut narrow) {
                        Ok(_) if !(dt_valid && gravity_valid) => {
                            return Err(at("step accepted a bad dt or gravity".into()));
                        }
                        Ok(_) => all_finite(&world).map_err(at)?,
                        Err(Error::InvalidTimeStep { .. }) if !dt_valid => rejected = true,
                        Err(Error::InvalidSetting {
                            name: "gravity", ..
                        }) if !gravity_valid => {
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
                Op::Query { body } => query(&world, *body).map_err(at)?,
            }
            if rejected {
                // Usable afterwards: an ordinary step goes through (or refuses only what
                // was already refused: gravity that is not finite).
                match world.step(1.0 / 60.0, &mut narrow) {
                    Ok(_) => all_finite(&world)
                        .map_err(|e| at(format!("after a rejected call, a step: {e}")))?,
                    Err(_) if !gravity_ok(world.gravity()) => {}
                    Err(e) => return Err(at(format!("after a rejected call, a step failed: {e}"))),
                }
            }
        }
        Ok(())
    }
}

/// The `BodyDef` fields `World::add_body` validates, and their rules.
const CHECKED_FIELDS: [&str; 7] = [
    "position",
    "angle",
    "linear_velocity",
    "angular_velocity",
    "friction",
    "restitution",
    "density",
];

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
    } else if !def.linear_velocity.is_finite() {
        Some("linear_velocity")
    } else if !def.angular_velocity.is_finite() {
        Some("angular_velocity")
    } else if !(def.friction.is_finite() && def.friction >= 0.0) {
        Some("friction")
    } else if !(0.0..=1.0).contains(&def.restitution) {
        Some("restitution")
    } else if !(def.is_static || def.density.is_finite() && def.density > 0.0) {
        Some("density")
    } else {
        None
    }
}

/// After an `Ok` step: every body's pose, velocities and box are finite.
fn all_finite(world: &World) -> std::result::Result<(), String> {
    for i in 0..world.body_count() {
        let Some(body) = world.body(i) else {
            return Err(format!("World::body({i}) is None below the body count"));
        };
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
                "after an Ok step body {i} is not finite: transform {x:?}, velocity {v}, \
                 angular {w}, aabb {b:?}"
            ));
        }
    }
    Ok(())
}

/// `World::body` with any index: `None` exactly out of range, and in range the same answers
/// as the panicking accessors (which are called only in range, as documented).
fn query(world: &World, index: usize) -> std::result::Result<(), String> {
    let Some(body) = world.body(index) else {
        if index < world.body_count() {
            return Err(format!("World::body({index}) is None below the body count"));
        }
        return Ok(());
    };
    if index >= world.body_count() {
        return Err(format!("World::body({index}) is Some past the body count"));
    }
    let bits = |v: wgpu_sat::glam::Vec2| v.to_array().map(f32::to_bits);
    let checks = [
        ("index", body.index() == index),
        ("transform", body.transform() == world.transform(index)),
        (
            "center_of_mass",
            bits(body.center_of_mass()) == bits(world.center_of_mass(index)),
        ),
        (
            "linear_velocity",
            bits(body.linear_velocity()) == bits(world.linear_velocity(index)),
        ),
        (
            "angular_velocity",
            body.angular_velocity().to_bits() == world.angular_velocity(index).to_bits(),
        ),
        ("mass", body.mass().to_bits() == world.mass(index).to_bits()),
        (
            "rotational_inertia",
            body.rotational_inertia().to_bits() == world.rotational_inertia(index).to_bits(),
        ),
        ("is_static", body.is_static() == world.is_static(index)),
        ("is_bullet", body.is_bullet() == world.is_bullet(index)),
        ("aabb", body.aabb() == world.body_aabb(index)),
        ("colliders", body.colliders() == world.body_colliders(index)),
        (
            "pieces",
            body.pieces().count() == world.body_pieces(index).count(),
        ),
    ];
    if let Some((name, _)) = checks.iter().find(|(_, same)| !same) {
        return Err(format!(
            "World::body({index}).{name} disagrees with World::{name}: {:?} vs the accessors",
            (body.transform(), body.aabb(), body.mass())
        ));
    }
    for c in body.colliders() {
        if world.collider_body(c) != index {
            return Err(format!(
                "collider {c} of body {index} says body {}",
                world.collider_body(c)
            ));
        }
    }
    let _ = world.body_at(body.center_of_mass());
    let _ = world.contacts().count();
    let _ = world.contact_impulses().count();
    Ok(())
}
