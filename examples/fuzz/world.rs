//! Target `world`: arbitrary sequences of calls on a `World` stepped with the CPU narrow
//! phase: `add_body` with any `BodyDef` (NaN and infinite fields, any shape), `set_velocity`
//! (indices out of range included), `step` with any `dt`, `set_substeps`, `set_continuous`,
//! and the accessors.
//!
//! Invariants: a bad value is an `Err` (and a rejected `add_body` leaves the body count as it
//! was); a valid body definition is accepted unless its mass properties cannot be held; the
//! world is still usable after every rejected call (a plain step succeeds); after every `Ok`
//! step every body's transform, velocities and bounding box are finite.

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyShape, Circle, CpuNarrowPhase, Error, Polygon, Shape, World};

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
    })
}

impl Target for WorldTarget {
    type Input = WorldInput;

    fn name(&self) -> &'static str {
        "world"
    }

    fn weight(&self) -> u64 {
        2
    }

    fn generate(&self, u: &mut Unstructured) -> Result<WorldInput> {
        let gravity = if u.ratio(1u8, 8)? {
            hostile::vec2(u)?
        } else {
            Vec2::new(0.0, -10.0)
        };
        let mut ops = Vec::new();
        for _ in 0..hostile::len(u, 24)? {
            ops.push(match u.int_in_range(0u8..=11)? {
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
                9 => Op::Substeps(u.int_in_range(0..=16)?),
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
                    let valid = dt.is_finite() && *dt > 0.0;
                    match world.step(*dt, &mut narrow) {
                        Ok(_) if !valid => return Err(at("step accepted a bad dt".into())),
                        Ok(_) => all_finite(&world).map_err(at)?,
                        Err(Error::InvalidTimeStep { .. }) if !valid => rejected = true,
                        // Gravity that is not finite may be refused at the step.
                        Err(e) if !input.gravity.is_finite() => {
                            let _ = e;
                            rejected = true;
                        }
                        Err(e) => return Err(at(format!("step failed: {e}"))),
                    }
                }
                Op::Substeps(n) => world.set_substeps(*n),
                Op::Continuous(on) => world.set_continuous(*on),
                Op::Query { body } => query(&world, *body).map_err(at)?,
            }
            if rejected {
                // Usable afterwards: an ordinary step goes through (or refuses only what
                // was already refused: gravity that is not finite).
                match world.step(1.0 / 60.0, &mut narrow) {
                    Ok(_) => all_finite(&world)
                        .map_err(|e| at(format!("after a rejected call, a step: {e}")))?,
                    Err(_) if !input.gravity.is_finite() => {}
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

/// The first field out of its documented range, if any.
fn bad_field(def: &BodyDef) -> Option<&'static str> {
    if !def.position.is_finite() {
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
        // Where `world.body(i)` lands, read these through the `BodyRef` it returns.
        let x = world.transform(i);
        let v = world.linear_velocity(i);
        let w = world.angular_velocity(i);
        let b = world.body_aabb(i);
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

/// Every accessor on one body. Today's accessors panic on an index out of range (as
/// documented), so only in-range indices reach them.
fn query(world: &World, body: usize) -> std::result::Result<(), String> {
    // TODO(world.body): `world.body(body)` must be `None` out of range and a `BodyRef` in
    // range; switch to it when it lands, and query out-of-range indices too.
    if body >= world.body_count() {
        return Ok(());
    }
    let _ = world.transform(body);
    let _ = world.center_of_mass(body);
    let _ = world.mass(body);
    let _ = world.rotational_inertia(body);
    let _ = world.is_static(body);
    let _ = world.is_bullet(body);
    let _ = world.body_pieces(body).count();
    let colliders = world.body_colliders(body);
    for c in colliders {
        if world.collider_body(c) != body {
            return Err(format!(
                "collider {c} of body {body} says body {}",
                world.collider_body(c)
            ));
        }
    }
    let _ = world.body_at(world.center_of_mass(body));
    let _ = world.contacts().count();
    let _ = world.contact_impulses().count();
    Ok(())
}
