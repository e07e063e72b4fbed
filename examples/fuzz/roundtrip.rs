//! Target `roundtrip`: every world the API builds and steps saves a snapshot that it reads
//! back. An input is a sequence of calls a rollback game might make, with hostile values:
//! bodies of every kind (velocities, damping, gravity scale, density up to `f32::MAX`,
//! NaN and infinities among them), joints of every kind with every option (limits, motor
//! speed and torque, spring, max force and torque, break thresholds) drawn ordinary, huge
//! or not finite, removals of bodies that still have joints, joints removed, the runtime
//! setters (velocity, forces and impulses, damping, teleports, body type, fixed rotation,
//! materials, motor speed and targets, world settings) with junk, steps, and round trips:
//! `World::snapshot`, then `World::from_snapshot` (or `restore_snapshot` into the last
//! round trip's world), at any point, right after an add included.
//!
//! Invariants: the world's own snapshot is never refused; the world read back has the
//! state hash of the original, and the two, stepped on side by side, keep equal hashes
//! after every step (the input goes on with the world read back, through the same
//! handles); a refused call (any `Err`) leaves the world's snapshot bytes as they were;
//! after every step every body's pose and velocities are finite.
//!
//! The same module is the property test `tests/cpu/snapshot_roundtrip.rs` (proptest drives
//! the bytes there and shrinks a failure); `Tally` counts what the inputs did, so the test
//! can say how many worlds, joints and round trips it ran and fail if the generator stops
//! reaching them.

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::Vec2;
use wgpu_sat::world::{
    BodyType, MAX_ANGULAR_SPEED, MAX_COORDINATE, MAX_GRAVITY_SCALE, MAX_JOINT_LENGTH,
    MAX_LINEAR_SPEED_LIMIT, Material,
};
use wgpu_sat::{BodyDef, BodyId, BodyShape, Circle, CpuNarrowPhase, JointDef, Polygon, World};

use crate::hostile;

/// The joint kinds, in the order `Op::AddJoint::kind` picks them (and `Tally::joints`
/// counts them).
pub const JOINT_KINDS: [&str; 8] = [
    "revolute",
    "distance",
    "prismatic",
    "wheel",
    "weld",
    "motor",
    "mouse",
    "filter",
];

#[derive(Debug)]
pub enum Op {
    AddBody(Box<BodyDef>),
    /// A joint of `JOINT_KINDS[kind % 8]` between the live bodies `bodies` (modulo their
    /// count); `options` bits: 0 limits, 1 motor, 2 spring, 3 max force, 4 max torque,
    /// 5 break force, 6 break torque, 7 collide connected.
    AddJoint {
        bodies: [u16; 2],
        kind: u8,
        anchor: Vec2,
        other: Vec2,
        limits: [f32; 2],
        motor: [f32; 2],
        spring: [f32; 2],
        bounds: [f32; 2],
        breaks: [f32; 2],
        options: u8,
    },
    /// Removes a live body, one with joints when `jointed` and there is one.
    RemoveBody {
        body: u16,
        jointed: bool,
    },
    RemoveJoint(u16),
    SetVelocity {
        body: u16,
        linear: Vec2,
        angular: f32,
    },
    /// One of `apply_force`, `apply_torque`, `apply_linear_impulse`,
    /// `apply_angular_impulse`, `apply_force_to_center`, `set_linear_damping`,
    /// `set_angular_damping`, `set_gravity_scale`, `set_fixed_rotation`, `set_transform`,
    /// `set_body_type`, `set_material` (`kind` modulo 12).
    BodySetter {
        body: u16,
        kind: u8,
        vector: Vec2,
        point: Vec2,
        scalar: f32,
        material: Material,
    },
    /// `set_motor_speed`, `set_motor_target` or `set_joint_target` (`kind` modulo 3) on a
    /// live joint.
    JointSetter {
        joint: u16,
        kind: u8,
        vector: Vec2,
        scalar: f32,
    },
    /// `set_gravity`, `set_max_linear_speed`, `set_substeps`, `set_hit_event_threshold`,
    /// `set_sleeping`, `set_continuous` (`kind` modulo 6).
    Setting {
        kind: u8,
        vector: Vec2,
        scalar: f32,
    },
    Step {
        count: u8,
        dt: f32,
    },
    /// A snapshot read back, then both worlds stepped `steps` times; `restore` reads it
    /// into the last round trip's world instead of a new one.
    RoundTrip {
        steps: u8,
        restore: bool,
    },
}

#[derive(Debug)]
pub struct RoundTripInput {
    pub gravity: Vec2,
    pub ops: Vec<Op>,
}

/// What one input (or many, summed) did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub worlds: u64,
    pub bodies: u64,
    pub bodies_refused: u64,
    /// Accepted joints, by `JOINT_KINDS`.
    pub joints: [u64; 8],
    pub joints_refused: u64,
    /// Bodies removed while joints still held them.
    pub removed_under_joints: u64,
    pub setters: u64,
    pub setters_refused: u64,
    pub steps: u64,
    pub round_trips: u64,
    /// Round trips taken right after a body or joint was added, before any step.
    pub round_trips_before_a_step: u64,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.worlds += other.worlds;
        self.bodies += other.bodies;
        self.bodies_refused += other.bodies_refused;
        for (a, b) in self.joints.iter_mut().zip(other.joints) {
            *a += b;
        }
        self.joints_refused += other.joints_refused;
        self.removed_under_joints += other.removed_under_joints;
        self.setters += other.setters;
        self.setters_refused += other.setters_refused;
        self.steps += other.steps;
        self.round_trips += other.round_trips;
        self.round_trips_before_a_step += other.round_trips_before_a_step;
    }
}

/// A value for an option or a body field. A tame draw is ordinary (from `lo` to `hi`) or,
/// one time in six, at the edge of its range in the world's table (`edge` times 0.5 to 1,
/// either sign: the values that push the solver hardest and must still round-trip); a
/// hostile draw is one of those half the time, else huge and finite (1e6 to `f32::MAX`),
/// the issue's ±1e30, or any hostile float (NaN, infinities, subnormals, ...).
fn wild(u: &mut Unstructured, tame: bool, [lo, hi, edge]: [f32; 3]) -> Result<f32> {
    let class = if tame {
        u.int_in_range(0u8..=5)?
    } else {
        u.int_in_range(0u8..=11)?
    };
    let sign =
        |u: &mut Unstructured, x: f32| -> Result<f32> { Ok(if u.arbitrary()? { -x } else { x }) };
    Ok(match class {
        0..=4 | 6..=8 => hostile::uniform(u, lo, hi)?,
        5 => {
            let x = edge * hostile::uniform(u, 0.5, 1.0)?;
            if lo < 0.0 { sign(u, x)? } else { x }
        }
        9 => {
            let exponent = hostile::uniform(u, 6.0, 38.53)?;
            let magnitude = 10f32.powf(exponent).min(f32::MAX);
            sign(u, magnitude)?
        }
        10 => sign(u, 1e30)?,
        _ => hostile::float(u)?,
    })
}

fn wild_vec(u: &mut Unstructured, tame: bool, range: [f32; 3]) -> Result<Vec2> {
    Ok(Vec2::new(wild(u, tame, range)?, wild(u, tame, range)?))
}

// Ordinary ranges and table edges (see `world::limits`) of the fields drawn.
const SPEED: [f32; 3] = [-10.0, 10.0, MAX_LINEAR_SPEED_LIMIT];
const SPIN: [f32; 3] = [-10.0, 10.0, MAX_ANGULAR_SPEED];
const DAMPING: [f32; 3] = [0.0, 1.0, 1e6];
const GRAVITY_SCALE: [f32; 3] = [-2.0, 2.0, MAX_GRAVITY_SCALE];
// A piece of about 0.1 to 2 square units weighs up to MASS_RANGE's end at this density.
const DENSITY: [f32; 3] = [0.1, 10.0, 1e24];
const FRICTION: [f32; 3] = [0.0, 1.0, 1e6];
const ANGLE: [f32; 3] = [-4.0, 4.0, 1e6];
const LIMIT: [f32; 3] = [-3.0, 3.0, MAX_JOINT_LENGTH];
const MOTOR_SPEED: [f32; 3] = [-5.0, 5.0, MAX_ANGULAR_SPEED];
// Box2D's scenes give FLT_MAX for "no bound".
const FORCE: [f32; 3] = [0.0, 100.0, f32::MAX];
const HERTZ: [f32; 3] = [0.0, 10.0, 1e6];
const RATIO: [f32; 3] = [0.0, 1.0, 1e3];
const BREAK: [f32; 3] = [0.0, 1000.0, 1e30];
const PUSH: [f32; 3] = [-50.0, 50.0, 1e6];
const SCALAR: [f32; 3] = [-10.0, 10.0, 1e6];
const TANGENT: [f32; 3] = [-5.0, 5.0, MAX_LINEAR_SPEED_LIMIT];
const SETTING: [f32; 3] = [1.0, 1000.0, MAX_LINEAR_SPEED_LIMIT];
const GRAVITY: [f32; 3] = [-20.0, 20.0, MAX_COORDINATE];

/// A point near the bodies (so that joints and contacts act) or, now and then, anywhere.
fn near(u: &mut Unstructured) -> Result<Vec2> {
    if u.ratio(1u8, 8)? {
        hostile::vec2(u)
    } else {
        Ok(Vec2::new(
            hostile::uniform(u, -3.0, 3.0)?,
            hostile::uniform(u, -1.0, 4.0)?,
        ))
    }
}

fn body_def(u: &mut Unstructured) -> Result<BodyDef> {
    let size = hostile::uniform(u, 0.2, 1.0)?;
    let shape: BodyShape = match u.int_in_range(0u8..=2)? {
        0 => Polygon::rectangle(size, 0.5 * size).into(),
        1 => Circle::new(size)
            .map_err(|_| arbitrary::Error::IncorrectFormat)?
            .into(),
        _ => Polygon::regular(6, size)
            .map_err(|_| arbitrary::Error::IncorrectFormat)?
            .into(),
    };
    let position = near(u)?;
    let mut def = match u.int_in_range(0u8..=5)? {
        0 => BodyDef::fixed(shape, position),
        1 => BodyDef::kinematic(shape, position),
        _ => BodyDef::dynamic(shape, position),
    };
    let tame = u.ratio(2u8, 3)?;
    def.angle = wild(u, tame, ANGLE)?;
    def.linear_velocity = wild_vec(u, tame, SPEED)?;
    def.angular_velocity = wild(u, tame, SPIN)?;
    def.linear_damping = wild(u, tame, DAMPING)?;
    def.angular_damping = wild(u, tame, DAMPING)?;
    def.gravity_scale = wild(u, tame, GRAVITY_SCALE)?;
    def.density = wild(u, tame, DENSITY)?;
    def.friction = wild(u, tame, FRICTION)?;
    def.tangent_speed = wild(u, tame, TANGENT)?;
    def.restitution = hostile::uniform(u, 0.0, 1.0)?;
    def.fixed_rotation = u.ratio(1u8, 8)?;
    def.is_bullet = u.ratio(1u8, 8)?;
    Ok(def)
}

fn material(u: &mut Unstructured, tame: bool) -> Result<Material> {
    Ok(Material {
        friction: wild(u, tame, FRICTION)?,
        restitution: hostile::uniform(u, 0.0, 1.0)?,
        density: wild(u, tame, DENSITY)?,
        tangent_speed: wild(u, tame, TANGENT)?,
    })
}

/// Limits in order half the time (or equal, as `[1e30, 1e30]` is), as drawn otherwise.
fn limits(u: &mut Unstructured, tame: bool) -> Result<[f32; 2]> {
    let mut l = [wild(u, tame, LIMIT)?, wild(u, tame, LIMIT)?];
    match u.int_in_range(0u8..=3)? {
        0 | 1 => l.sort_by(f32::total_cmp),
        2 => l[1] = l[0],
        _ => {}
    }
    Ok(l)
}

pub fn generate(u: &mut Unstructured) -> Result<RoundTripInput> {
    let gravity = if u.ratio(1u8, 8)? {
        wild_vec(u, false, GRAVITY)?
    } else {
        Vec2::new(0.0, -10.0)
    };
    let mut ops = Vec::new();
    // A few bodies first, so that joints have something to join.
    for _ in 0..u.int_in_range(2..=5)? {
        ops.push(Op::AddBody(Box::new(body_def(u)?)));
    }
    for _ in 0..u.int_in_range(4..=48)? {
        let tame = u.ratio(2u8, 3)?;
        let op = match u.int_in_range(0u8..=23)? {
            0..=3 => Op::AddBody(Box::new(body_def(u)?)),
            4..=8 => Op::AddJoint {
                bodies: [u.arbitrary()?, u.arbitrary()?],
                kind: u.arbitrary()?,
                anchor: near(u)?,
                other: near(u)?,
                limits: limits(u, tame)?,
                motor: [wild(u, tame, MOTOR_SPEED)?, wild(u, tame, FORCE)?],
                spring: [wild(u, tame, HERTZ)?, wild(u, tame, RATIO)?],
                bounds: [wild(u, tame, FORCE)?, wild(u, tame, FORCE)?],
                breaks: [wild(u, tame, BREAK)?, wild(u, tame, BREAK)?],
                options: u.arbitrary()?,
            },
            9 | 10 => Op::RemoveBody {
                body: u.arbitrary()?,
                jointed: u.ratio(2u8, 3)?,
            },
            11 => Op::RemoveJoint(u.arbitrary()?),
            12 => Op::SetVelocity {
                body: u.arbitrary()?,
                linear: wild_vec(u, tame, SPEED)?,
                angular: wild(u, tame, SPIN)?,
            },
            13 | 14 => Op::BodySetter {
                body: u.arbitrary()?,
                kind: u.arbitrary()?,
                vector: wild_vec(u, tame, PUSH)?,
                point: near(u)?,
                scalar: wild(u, tame, SCALAR)?,
                material: material(u, tame)?,
            },
            15 => Op::JointSetter {
                joint: u.arbitrary()?,
                kind: u.arbitrary()?,
                vector: wild_vec(u, tame, LIMIT)?,
                scalar: wild(u, tame, MOTOR_SPEED)?,
            },
            16 => Op::Setting {
                kind: u.arbitrary()?,
                vector: wild_vec(u, tame, GRAVITY)?,
                scalar: wild(u, tame, SETTING)?,
            },
            17..=20 => Op::Step {
                count: u.int_in_range(1..=30)?,
                dt: if u.ratio(1u8, 4)? {
                    hostile::uniform(u, 1e-4, 0.1)?
                } else {
                    1.0 / 60.0
                },
            },
            _ => Op::RoundTrip {
                steps: u.int_in_range(1..=4)?,
                restore: u.arbitrary()?,
            },
        };
        ops.push(op);
    }
    Ok(RoundTripInput { gravity, ops })
}

/// The `k`-th (modulo their count) of `items`.
fn nth<T: Copy>(items: &[T], k: u16) -> Option<T> {
    (!items.is_empty()).then(|| items[usize::from(k) % items.len()])
}

fn joint_def(op: &Op, bodies: &[BodyId]) -> Option<(usize, JointDef)> {
    let Op::AddJoint {
        bodies: picks,
        kind,
        anchor,
        other,
        limits,
        motor,
        spring,
        bounds,
        breaks,
        options,
    } = op
    else {
        return None;
    };
    let [a, b] = [nth(bodies, picks[0])?, nth(bodies, picks[1])?];
    let kind = usize::from(*kind % 8);
    let mut def = match kind {
        0 => JointDef::revolute(a, b, *anchor),
        1 => JointDef::distance(a, b, *anchor, *other),
        2 => JointDef::prismatic(a, b, *anchor, *other),
        3 => JointDef::wheel(a, b, *anchor, *other),
        4 => JointDef::weld(a, b, *anchor).with_weld_springs(spring[0], spring[0], spring[1]),
        5 => JointDef::motor(a, b),
        6 => JointDef::mouse(a, b, *anchor),
        _ => JointDef::filter(a, b),
    };
    let bit = |k: u8| options & (1 << k) != 0;
    if bit(0) {
        def = def.with_limits(limits[0], limits[1]);
    }
    if bit(1) {
        def = def.with_motor(motor[0], motor[1]);
    }
    if bit(2) {
        def = def.with_spring(spring[0], spring[1]);
    }
    if bit(3) {
        def = def.with_max_force(bounds[0]);
    }
    if bit(4) {
        def = def.with_max_torque(bounds[1]);
    }
    if bit(5) {
        def = def.with_break_force(breaks[0]);
    }
    if bit(6) {
        def = def.with_break_torque(breaks[1]);
    }
    def.collide_connected = bit(7);
    Some((kind, def))
}

/// Every body's pose and velocities finite.
fn all_finite(world: &World) -> std::result::Result<(), String> {
    for body in world.bodies() {
        let x = world.transform(body);
        let (v, w) = (world.linear_velocity(body), world.angular_velocity(body));
        if !(x.is_finite() && v.is_finite() && w.is_finite()) {
            return Err(format!("{body:?} is not finite: {x:?}, {v}, {w}"));
        }
    }
    Ok(())
}

/// A call on the world: `Ok(true)` when it was accepted, `Ok(false)` when refused (and the
/// world's snapshot is what it was), `Err` when a refused call changed the world.
fn call<E: std::fmt::Display>(
    world: &mut World,
    what: &str,
    f: impl FnOnce(&mut World) -> std::result::Result<(), E>,
) -> std::result::Result<bool, String> {
    let before = world.snapshot();
    match f(world) {
        Ok(()) => Ok(true),
        Err(e) if world.snapshot() == before => {
            let _ = e.to_string();
            Ok(false)
        }
        Err(e) => Err(format!("a refused {what} changed the world ({e})")),
    }
}

pub fn check(input: &RoundTripInput) -> std::result::Result<Tally, String> {
    let mut tally = Tally {
        worlds: 1,
        ..Tally::default()
    };
    let mut world = World::new(Vec2::new(0.0, -10.0));
    // A hostile gravity is refused by set_gravity, and the world keeps the default.
    let _ = world.set_gravity(input.gravity);
    let mut narrow = CpuNarrowPhase::new();
    let mut kept: Option<World> = None;
    let mut since_step = false;
    for (k, op) in input.ops.iter().enumerate() {
        let at = |what: String| format!("{what}; at op {k}: {op:?}");
        let bodies: Vec<BodyId> = world.bodies().collect();
        match op {
            Op::AddBody(def) => {
                match world.add_body(def) {
                    Ok(_) => tally.bodies += 1,
                    Err(_) => tally.bodies_refused += 1,
                }
                since_step = true;
            }
            Op::AddJoint { .. } => {
                let Some((kind, def)) = joint_def(op, &bodies) else {
                    continue;
                };
                let added =
                    call(&mut world, "add_joint", |w| w.add_joint(&def).map(|_| ())).map_err(at)?;
                if added {
                    tally.joints[kind] += 1;
                } else {
                    tally.joints_refused += 1;
                }
                since_step = true;
            }
            Op::RemoveBody { body, jointed } => {
                let jointed_bodies: Vec<BodyId> = world
                    .joints()
                    .filter_map(|j| world.joint_bodies(j))
                    .flatten()
                    .collect();
                let has_joints = |b: BodyId| jointed_bodies.contains(&b);
                let with_joints: Vec<BodyId> =
                    bodies.iter().copied().filter(|&b| has_joints(b)).collect();
                let pool = if *jointed && !with_joints.is_empty() {
                    &with_joints
                } else {
                    &bodies
                };
                let Some(body) = nth(pool, *body) else {
                    continue;
                };
                tally.removed_under_joints += u64::from(has_joints(body));
                world
                    .remove_body(body)
                    .map_err(|e| at(format!("remove_body of a live body: {e}")))?;
            }
            Op::RemoveJoint(j) => {
                let joints: Vec<_> = world.joints().collect();
                if let Some(joint) = nth(&joints, *j) {
                    world
                        .remove_joint(joint)
                        .map_err(|e| at(format!("remove_joint of a live joint: {e}")))?;
                }
            }
            Op::SetVelocity {
                body,
                linear,
                angular,
            } => {
                let Some(body) = nth(&bodies, *body) else {
                    continue;
                };
                let ok = call(&mut world, "set_velocity", |w| {
                    w.set_velocity(body, *linear, *angular)
                })
                .map_err(at)?;
                tally.setters += 1;
                tally.setters_refused += u64::from(!ok);
            }
            Op::BodySetter {
                body,
                kind,
                vector,
                point,
                scalar,
                material,
            } => {
                let Some(body) = nth(&bodies, *body) else {
                    continue;
                };
                let (v, p, s) = (*vector, *point, *scalar);
                let ok = call(&mut world, "body setter", |w| match kind % 12 {
                    0 => w.apply_force(body, v, p),
                    1 => w.apply_torque(body, s),
                    2 => w.apply_linear_impulse(body, v, p),
                    3 => w.apply_angular_impulse(body, s),
                    4 => w.apply_force_to_center(body, v),
                    5 => w.set_linear_damping(body, s),
                    6 => w.set_angular_damping(body, s),
                    7 => w.set_gravity_scale(body, s),
                    8 => w.set_fixed_rotation(body, s > 0.0),
                    9 => w.set_transform(body, p, s),
                    10 => {
                        let kind = match v.x.to_bits() % 3 {
                            0 => BodyType::Static,
                            1 => BodyType::Kinematic,
                            _ => BodyType::Dynamic,
                        };
                        w.set_body_type(body, kind)
                    }
                    _ => {
                        let first = w.body_colliders(body).next();
                        match first {
                            Some(c) => w.set_material(c, *material),
                            None => Ok(()),
                        }
                    }
                })
                .map_err(at)?;
                tally.setters += 1;
                tally.setters_refused += u64::from(!ok);
            }
            Op::JointSetter {
                joint,
                kind,
                vector,
                scalar,
            } => {
                let joints: Vec<_> = world.joints().collect();
                let Some(joint) = nth(&joints, *joint) else {
                    continue;
                };
                let ok = call(&mut world, "joint setter", |w| match kind % 3 {
                    0 => w.set_motor_speed(joint, *scalar),
                    1 => w.set_motor_target(joint, *vector, *scalar),
                    _ => w.set_joint_target(joint, *vector),
                })
                .map_err(at)?;
                tally.setters += 1;
                tally.setters_refused += u64::from(!ok);
            }
            Op::Setting {
                kind,
                vector,
                scalar,
            } => {
                let ok = call(&mut world, "setting", |w| match kind % 6 {
                    0 => w.set_gravity(*vector),
                    1 => w.set_max_linear_speed(*scalar),
                    2 => w.set_substeps(scalar.abs().min(100.0) as usize),
                    3 => w.set_hit_event_threshold(Some(*scalar)),
                    4 => {
                        w.set_sleeping(*scalar > 0.0);
                        Ok(())
                    }
                    _ => {
                        w.set_continuous(*scalar > 0.0);
                        Ok(())
                    }
                })
                .map_err(at)?;
                tally.setters += 1;
                tally.setters_refused += u64::from(!ok);
            }
            Op::Step { count, dt } => {
                for _ in 0..*count {
                    world
                        .step(*dt, &mut narrow)
                        .map_err(|e| at(format!("step: {e}")))?;
                    all_finite(&world).map_err(at)?;
                    tally.steps += 1;
                }
                since_step = false;
            }
            Op::RoundTrip { steps, restore } => {
                let fresh = if *restore { kept.take() } else { None };
                let copy =
                    round_trip(&mut world, fresh, *steps, &mut narrow, &mut tally).map_err(at)?;
                tally.round_trips_before_a_step += u64::from(since_step);
                // The input goes on with the world read back; the original is memory for
                // the next `restore`.
                kept = Some(std::mem::replace(&mut world, copy));
                since_step = false;
            }
        }
    }
    round_trip(&mut world, kept, 2, &mut narrow, &mut tally)?;
    Ok(tally)
}

/// The snapshot of `world` read back (into `memory` when given), then both stepped `steps`
/// times at 60 Hz with equal state hashes throughout; returns the world read back.
fn round_trip(
    world: &mut World,
    memory: Option<World>,
    steps: u8,
    narrow: &mut CpuNarrowPhase,
    tally: &mut Tally,
) -> std::result::Result<World, String> {
    let bytes = world.snapshot();
    let copy = match memory {
        Some(mut memory) => memory.restore_snapshot(&bytes).map(|()| memory),
        None => World::from_snapshot(&bytes),
    };
    let mut copy = copy.map_err(|e| format!("the world's own snapshot was refused: {e}"))?;
    tally.round_trips += 1;
    let same = |a: &World, b: &World, when: String| {
        if a.state_hash() == b.state_hash() {
            Ok(())
        } else {
            Err(format!("the world read back differs {when}"))
        }
    };
    same(world, &copy, "as read".into())?;
    for k in 0..steps {
        world
            .step(1.0 / 60.0, narrow)
            .map_err(|e| format!("step: {e}"))?;
        copy.step(1.0 / 60.0, narrow)
            .map_err(|e| format!("step of the world read back: {e}"))?;
        all_finite(world)?;
        tally.steps += 1;
        same(world, &copy, format!("after {} steps", k + 1))?;
    }
    Ok(copy)
}
