//! Joints at play, in one scene for the window example: a swinging chain, a loaded bridge,
//! ragdolls and a car on wheel joints driving over hills.
//!
//! ```text
//! joints():
//!     terrain  one open chain: down the right wall, along the ground from right to left
//!              (its free side faces up), up the left wall; flat on the left, hills on
//!              the right
//!     chain    capsule links pinned end to end (revolute joints) from a static peg,
//!              let go level with it: it swings down and on
//!     bridge   planks pinned end to end between two static pillars, the deck exactly as
//!              long as the gap (so it sags only as far as its joints give), with boxes
//!              and balls dropped on it
//!     ragdolls Box2D's human (scenes::human), standing on the flat ground
//!     car      a chassis and two wheels on wheel joints: the suspension is each joint's
//!              spring (along the chassis's up axis, within limits), the drive its motor;
//!              it starts at the foot of the hills with the motor running forward
//! ```
//!
//! Signs: a wheel joint's motor drives the wheel's spin relative to the chassis,
//! counter-clockwise positive, so driving towards +x is a negative speed ([`Car::drive`]
//! takes a throttle with +x positive instead).

use std::f32::consts::PI;

use glam::Vec2;

use crate::dynamics::joints::JointDef;
use crate::error::Error;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::world::handle::{BodyId, JointId};
use crate::world::{BodyDef, World};

use super::human::{Human, human};

/// The walls' x, and their tops' height.
const LEFT: f32 = -38.0;
const RIGHT: f32 = 32.0;
const TOP: f32 = 14.0;
/// Ground samples per unit of x.
const SAMPLES_PER_UNIT: f32 = 2.0;
/// The ground is flat at y = 0 left of this x; the hills grow in over `HILLS_RAMP`.
const HILLS_FROM: f32 = 2.0;
const HILLS_RAMP: f32 = 8.0;

/// The chain's peg (a static box of this half size) and its links: capsules this long
/// (centre to centre of their end caps) and this thick (radius).
const CHAIN_PEG: Vec2 = Vec2::new(-30.0, 12.0);
const CHAIN_PEG_HALF: f32 = 0.25;
const CHAIN_LINKS: usize = 14;
const LINK_LENGTH: f32 = 0.5;
const LINK_RADIUS: f32 = 0.125;

/// The bridge: the pillars' inner faces, the deck's height (the planks' middle line) and
/// its planks' count and half thickness.
const BRIDGE_FROM: f32 = -21.0;
const BRIDGE_TO: f32 = -7.0;
const BRIDGE_DECK: f32 = 5.0;
const BRIDGE_PLANKS: usize = 14;
const PLANK_HALF_HEIGHT: f32 = 0.2;
/// The crates and balls dropped on the deck.
const BRIDGE_LOADS: usize = 7;
/// Half the pillars' width.
const PILLAR_HALF_WIDTH: f32 = 0.5;

/// Where the ragdolls stand (their feet's x), dropped from a little above the ground.
const RAGDOLLS_AT: [f32; 3] = [-4.5, -2.5, -0.5];

/// The car: where its chassis starts (x), the wheels' radius and their centres in the
/// chassis's frame, the suspension (hertz, damping ratio, travel either way), the motor's
/// speed at full throttle (radians per second: 4 units per second on the ground) and its
/// torque.
const CAR_START: f32 = 5.0;
const WHEEL_RADIUS: f32 = 0.4;
const WHEEL_OFFSETS: [Vec2; 2] = [Vec2::new(-0.95, -0.45), Vec2::new(0.95, -0.45)];
const SUSPENSION_HERTZ: f32 = 5.0;
const SUSPENSION_DAMPING: f32 = 0.7;
const SUSPENSION_TRAVEL: f32 = 0.25;
/// The car's wheels' top speed, radians per second.
pub const CAR_SPEED: f32 = 10.0;
const CAR_TORQUE: f32 = 12.0;

/// The ground's height at `x` (walls aside): flat at 0 left of the hills, which grow in
/// smoothly to about 1.4 high.
fn ground(x: f32) -> f32 {
    let t = ((x - HILLS_FROM) / HILLS_RAMP).clamp(0.0, 1.0);
    let ramp = t * t * (3.0 - 2.0 * t);
    let u = x - HILLS_FROM;
    ramp * (1.1 * sin(0.3 * u - 0.5 * PI) + 0.2 * sin(1.1 * u) + 1.1)
}

/// The car of [`joints`]: a chassis on two wheels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Car {
    /// The body.
    pub chassis: BodyId,
    /// Back (-x) and front (+x) wheels.
    pub wheels: [BodyId; 2],
    /// The wheel joints (chassis A, wheel B), with the suspension and the motor.
    pub axles: [JointId; 2],
}

impl Car {
    /// Drives both wheels at `throttle` (clamped to [-1, 1]) times [`CAR_SPEED`]:
    /// positive towards +x, negative back; 0 brakes (the motors hold the wheels still,
    /// with their max torque). An error only for a car not of this world.
    pub fn drive(&self, world: &mut World, throttle: f32) -> Result<(), Error> {
        // Rolling towards +x turns a wheel clockwise: a negative spin.
        let speed = -CAR_SPEED * throttle.clamp(-1.0, 1.0);
        for axle in self.axles {
            world.set_motor_speed(axle, speed)?;
        }
        Ok(())
    }
}

/// The parts of [`joints`], for the example's keys and the tests.
#[derive(Clone, Debug, PartialEq)]
pub struct JointScene {
    /// The terrain chain (static).
    pub terrain: BodyId,
    /// The peg the chain hangs from (static), its links from the peg out, and the
    /// joints: the first pins the first link to the peg, the others each link to the
    /// one before.
    pub chain_peg: BodyId,
    /// See `chain_peg`.
    pub chain_links: Vec<BodyId>,
    /// See `chain_peg`.
    pub chain_joints: Vec<JointId>,
    /// The bridge's planks from left to right, and its joints: left pillar to the first
    /// plank, plank to plank, the last plank to the right pillar.
    pub bridge_planks: Vec<BodyId>,
    /// See `bridge_planks`.
    pub bridge_joints: Vec<JointId>,
    /// The height of the deck's middle line as built (where the planks rest unloaded).
    pub bridge_deck: f32,
    /// The ragdolls, Box2D's [`human`]s.
    pub ragdolls: Vec<Human>,
    /// The car.
    pub car: Car,
}

/// A joint the scene builds; only valid definitions reach here.
fn join(world: &mut World, def: JointDef) -> JointId {
    match world.add_joint(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("scene joint rejected: {e}"),
    }
}

/// A body the scene builds, returning its handle.
fn body(world: &mut World, def: BodyDef) -> BodyId {
    match world.add_body(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("scene body rejected: {e}"),
    }
}

/// A capsule along x, `length` between its caps' centres, about the origin.
fn capsule(length: f32, radius: f32) -> Capsule {
    let half = Vec2::new(0.5 * length, 0.0);
    match Capsule::new(-half, half, radius) {
        Ok(c) => c,
        Err(e) => unreachable!("scene capsule rejected: {e}"),
    }
}

/// The scene of joints (see the module's header): terrain between walls at x = -38 and
/// 32 (flat at y = 0 up to x = 2, hills beyond), a chain of 14 capsule links let go level
/// with its peg at (-30, 12), a bridge of 14 planks at y = 5 between pillars at x = -21
/// and -7 with seven loads dropped on it, three ragdolls, and a car at x = 5 with its motor
/// running forward. Always the same world.
pub fn joints() -> (World, JointScene) {
    let mut world = World::default();
    let terrain = add_terrain(&mut world);
    let (chain_peg, chain_links, chain_joints) = add_chain(&mut world);
    let (bridge_planks, bridge_joints) = add_bridge(&mut world);
    let ragdolls = RAGDOLLS_AT
        .iter()
        .zip(1..)
        .map(|(&x, group)| add_ragdoll(&mut world, Vec2::new(x, ground(x) + 0.05), group))
        .collect();
    let car = add_car(&mut world);
    let scene = JointScene {
        terrain,
        chain_peg,
        chain_links,
        chain_joints,
        bridge_planks,
        bridge_joints,
        bridge_deck: BRIDGE_DECK,
        ragdolls,
        car,
    };
    (world, scene)
}

fn add_terrain(world: &mut World) -> BodyId {
    let steps = ((RIGHT - LEFT) * SAMPLES_PER_UNIT) as usize;
    let mut outline = vec![Vec2::new(RIGHT, TOP)];
    outline.extend((0..=steps).map(|k| {
        let x = RIGHT - (RIGHT - LEFT) * k as f32 / steps as f32;
        Vec2::new(x, ground(x))
    }));
    outline.push(Vec2::new(LEFT, TOP));
    match BodyShape::chain(&outline, false) {
        Ok(chain) => body(world, BodyDef::fixed(chain, Vec2::ZERO)),
        Err(e) => unreachable!("joint scene terrain rejected: {e}"),
    }
}

/// The peg, the links laid out from it towards +x, and the pins.
fn add_chain(world: &mut World) -> (BodyId, Vec<BodyId>, Vec<JointId>) {
    let peg = body(
        world,
        BodyDef::fixed(
            Polygon::rectangle(CHAIN_PEG_HALF, CHAIN_PEG_HALF),
            CHAIN_PEG,
        ),
    );
    let link = capsule(LINK_LENGTH, LINK_RADIUS);
    let mut links = Vec::with_capacity(CHAIN_LINKS);
    let mut pins = Vec::with_capacity(CHAIN_LINKS);
    let mut previous = peg;
    for k in 0..CHAIN_LINKS {
        let pin = CHAIN_PEG + Vec2::new(LINK_LENGTH * k as f32, 0.0);
        let def = BodyDef {
            // A little air drag, so the swing dies down over a minute, not never.
            linear_damping: 0.05,
            ..BodyDef::dynamic(link, pin + Vec2::new(0.5 * LINK_LENGTH, 0.0))
        };
        let id = body(world, def);
        pins.push(join(world, JointDef::revolute(previous, id, pin)));
        links.push(id);
        previous = id;
    }
    (peg, links, pins)
}

/// Two pillars, the planks pinned across the gap between them, and the loads above.
fn add_bridge(world: &mut World) -> (Vec<BodyId>, Vec<JointId>) {
    let pillar = Polygon::rectangle(PILLAR_HALF_WIDTH, 0.5 * BRIDGE_DECK);
    let pillars = [
        BRIDGE_FROM - PILLAR_HALF_WIDTH,
        BRIDGE_TO + PILLAR_HALF_WIDTH,
    ]
    .map(|x| {
        body(
            world,
            BodyDef::fixed(pillar, Vec2::new(x, 0.5 * BRIDGE_DECK)),
        )
    });
    let length = (BRIDGE_TO - BRIDGE_FROM) / BRIDGE_PLANKS as f32;
    let plank = Polygon::rectangle(0.5 * length, PLANK_HALF_HEIGHT);
    let mut planks = Vec::with_capacity(BRIDGE_PLANKS);
    let mut pins = Vec::with_capacity(BRIDGE_PLANKS + 1);
    let mut previous = pillars[0];
    for k in 0..BRIDGE_PLANKS {
        let left = BRIDGE_FROM + length * k as f32;
        let id = body(
            world,
            BodyDef::dynamic(plank, Vec2::new(left + 0.5 * length, BRIDGE_DECK)),
        );
        let pin = Vec2::new(left, BRIDGE_DECK);
        pins.push(join(world, JointDef::revolute(previous, id, pin)));
        planks.push(id);
        previous = id;
    }
    let end = Vec2::new(BRIDGE_TO, BRIDGE_DECK);
    pins.push(join(world, JointDef::revolute(previous, pillars[1], end)));

    // The loads: crates and balls spread along the deck, dropped from just above it.
    let span = BRIDGE_TO - BRIDGE_FROM;
    for k in 0..BRIDGE_LOADS {
        let x = BRIDGE_FROM + span * (k as f32 + 0.5) / BRIDGE_LOADS as f32;
        let at = Vec2::new(x, BRIDGE_DECK + 1.5 + 0.3 * k as f32);
        let shape: BodyShape = if k % 2 == 0 {
            Polygon::rectangle(0.45, 0.45).into()
        } else {
            match Circle::new(0.4) {
                Ok(ball) => ball.into(),
                Err(e) => unreachable!("scene ball rejected: {e}"),
            }
        };
        body(world, BodyDef::dynamic(shape, at));
    }
    (planks, pins)
}

/// Box2D's ragdoll ([`human`]) standing with its feet at `feet`, in its own filter group
/// `group` (its bones never touch each other), its joints held by a little friction and a
/// soft spring towards the rest pose (Box2D's ragdoll sample's 0.03, 5 Hz, 0.5), so that it
/// slumps rather than flails.
fn add_ragdoll(world: &mut World, feet: Vec2, group: i32) -> Human {
    match human(world, feet, 1.0, 0.03, 5.0, 0.5, group) {
        Ok(h) => h,
        Err(e) => unreachable!("scene ragdoll rejected: {e}"),
    }
}

/// The car at `CAR_START` on the ground, wheels on the ground, motors running forward.
fn add_car(world: &mut World) -> Car {
    let hull = [
        [-1.4, -0.35],
        [1.4, -0.35],
        [1.4, 0.1],
        [0.2, 0.75],
        [-1.0, 0.75],
        [-1.4, 0.3],
    ]
    .map(Vec2::from);
    let hull = match Polygon::new(&hull).and_then(|p| p.with_radius(0.05)) {
        Ok(p) => p,
        Err(e) => unreachable!("car hull rejected: {e}"),
    };
    // Lowest wheel bottom just above the ground under either wheel.
    let x = CAR_START;
    let lift = WHEEL_OFFSETS
        .iter()
        .map(|o| ground(x + o.x) - o.y + WHEEL_RADIUS)
        .fold(f32::MIN, f32::max);
    let at = Vec2::new(x, lift + 0.05);
    let chassis = body(world, BodyDef::dynamic(hull, at));
    let tyre = match Circle::new(WHEEL_RADIUS) {
        Ok(c) => c,
        Err(e) => unreachable!("car wheel rejected: {e}"),
    };
    let mut wheels = [chassis; 2];
    let mut axles = Vec::with_capacity(2);
    for (k, offset) in WHEEL_OFFSETS.into_iter().enumerate() {
        let def = BodyDef {
            density: 2.0,
            friction: 1.2,
            ..BodyDef::dynamic(tyre, at + offset)
        };
        wheels[k] = body(world, def);
        let axle = JointDef::wheel(chassis, wheels[k], at + offset, Vec2::Y)
            .with_spring(SUSPENSION_HERTZ, SUSPENSION_DAMPING)
            .with_limits(-SUSPENSION_TRAVEL, SUSPENSION_TRAVEL)
            .with_motor(-CAR_SPEED, CAR_TORQUE);
        axles.push(join(world, axle));
    }
    Car {
        chassis,
        wheels,
        axles: [axles[0], axles[1]],
    }
}

/// The crate's own sine: the scene is the same bits on every platform.
fn sin(angle: f32) -> f32 {
    crate::math::sin_cos(angle).0
}
