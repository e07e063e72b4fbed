//! A small game level: one chain of terrain with hills and two pits, a platform shuttling
//! over the first pit, a paddle spinning over the hills, a conveyor belt, and capsules,
//! rounded boxes, boxes and circles dropped onto it all.
//!
//! ```text
//! level(seed):
//!     terrain   one open chain: down the right wall, along the ground from right to left
//!               (its free side, on the right of the way the points run, faces up), up the
//!               left wall; pits are cut in with slanted walls
//!     movers    two kinematic bodies, driven each step by LevelDriver::drive
//!     belt      a static box on the flat left end whose surface moves (tangent speed)
//!     bodies    rows of seeded shapes above everything, and two heavy crates
//! drive(world, time, dt):
//!     velocity = (scripted pose at time + dt - current pose) / dt
//!     so a step lands each mover on its script, and f32 drift never accumulates
//! ```

use std::f32::consts::{PI, TAU};

use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::playground::game_shape;
use crate::error::Error;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::polygon::Polygon;
use crate::world::handle::BodyId;
use crate::world::{BodyDef, World};

/// The walls' x: the level spans from the left wall to the right one.
const LEFT: f32 = -32.0;
const RIGHT: f32 = 28.0;
/// Height of the walls' tops.
const TOP: f32 = 14.0;
/// Ground samples per unit of x along the hills.
const SAMPLES_PER_UNIT: f32 = 2.0;
/// Below this x the ground is flat at y = 0 (the belt's stretch); the hills grow in over
/// the next `HILLS_RAMP` units.
const FLAT_UNTIL: f32 = -20.0;
const HILLS_RAMP: f32 = 6.0;
/// How far a pit's wall leans: its foot is this far inside the pit's rim.
const PIT_SLANT: f32 = 0.4;

/// A pit cut into the hills: rims at `left` and `right`, floor at `floor`.
#[derive(Clone, Copy)]
struct Pit {
    left: f32,
    right: f32,
    floor: f32,
}

/// The wide pit the platform crosses, and a narrow one that collects what falls in.
const PITS: [Pit; 2] = [
    Pit {
        left: -10.0,
        right: 0.0,
        floor: -4.5,
    },
    Pit {
        left: 15.0,
        right: 19.0,
        floor: -3.0,
    },
];

/// The platform: half extents, and how it shuttles over the first pit (a sine about the
/// pit's middle, this period, clear of the rims by `PLATFORM_CLEARANCE` at each end).
const PLATFORM_HALF: Vec2 = Vec2::new(1.6, 0.2);
const PLATFORM_PERIOD: f32 = 5.0;
const PLATFORM_CLEARANCE: f32 = 0.5;
/// The platform's top is this far above the higher rim, so nothing on it catches a rim.
const PLATFORM_LIFT: f32 = 0.3;

/// The paddle: a bar spinning clockwise about its middle, which stays `PADDLE_LIFT` above
/// the highest ground under its sweep.
const PADDLE_X: f32 = 7.0;
const PADDLE_HALF: Vec2 = Vec2::new(1.8, 0.25);
const PADDLE_SPIN: f32 = -1.2;
const PADDLE_LIFT: f32 = 1.9;

/// The conveyor belt: a static slab on the flat ground, its middle at this x.
const BELT_X: f32 = -25.0;
const BELT_HALF: Vec2 = Vec2::new(5.0, 0.3);
/// The belt's surface speed, units per second: positive carries what lies on it towards +x
/// (the hills), Box2D's sign for a tangent speed on a top face.
pub const BELT_SPEED: f32 = 2.0;

/// Dropped bodies: rows of this many, starting this high, this far apart.
const PER_ROW: usize = 24;
const ROWS: usize = 4;
const DROP_HEIGHT: f32 = 7.0;
const ROW_SPACING: f32 = 1.4;

/// What [`push_body_at`] adds to a body's speed, upwards, units per second: the impulse is
/// this times the body's mass, so a crate jumps as high as a pebble (about 2.5 units).
pub const PUSH_SPEED: f32 = 7.0;

/// The rolling hills before the pits are cut in: flat at y = 0 left of `FLAT_UNTIL`,
/// growing smoothly to their full height (1.45 at most) over `HILLS_RAMP`.
fn hills(x: f32) -> f32 {
    let t = ((x - FLAT_UNTIL) / HILLS_RAMP).clamp(0.0, 1.0);
    let ramp = t * t * (3.0 - 2.0 * t);
    ramp * (sin(0.35 * x) + 0.45 * sin(0.9 * x + 1.0))
}

/// The ground's outline from left to right (walls excluded): hill samples, and at each pit
/// its two rims and the two feet of its slanted walls.
fn ground_outline() -> Vec<Vec2> {
    let steps = ((RIGHT - LEFT) * SAMPLES_PER_UNIT) as usize;
    let mut points = Vec::with_capacity(steps + 1 + 4 * PITS.len());
    for k in 0..=steps {
        let x = LEFT + (RIGHT - LEFT) * k as f32 / steps as f32;
        let Some(pit) = PITS.iter().find(|p| x >= p.left && x <= p.right) else {
            points.push(Vec2::new(x, hills(x)));
            continue;
        };
        // Each pit once, at its first sample; the samples inside it are dropped.
        if points.last().is_none_or(|p| p.x < pit.left) {
            points.extend([
                Vec2::new(pit.left, hills(pit.left)),
                Vec2::new(pit.left + PIT_SLANT, pit.floor),
                Vec2::new(pit.right - PIT_SLANT, pit.floor),
                Vec2::new(pit.right, hills(pit.right)),
            ]);
        }
    }
    points
}

/// The height of [`level`]'s ground at `x`: the chain's outline, linear between its
/// vertices; at the flat ends beyond the walls, the end heights.
pub fn level_terrain(x: f32) -> f32 {
    let outline = ground_outline();
    let Some(i) = outline.iter().position(|p| p.x >= x) else {
        return outline.last().map_or(0.0, |p| p.y);
    };
    if i == 0 {
        return outline[0].y;
    }
    let (a, b) = (outline[i - 1], outline[i]);
    let t = (x - a.x) / (b.x - a.x);
    a.y + t * (b.y - a.y)
}

/// The kinematic bodies of [`level`] and their script: [`LevelDriver::drive`] sets their
/// velocities before each step so that they follow it.
#[derive(Clone, Copy, Debug)]
pub struct LevelDriver {
    /// The platform shuttling over the wide pit (kinematic).
    pub platform: BodyId,
    /// The paddle spinning over the hills (kinematic).
    pub paddle: BodyId,
    /// The conveyor belt (static): a slab on the flat left end, its surface moving at
    /// [`BELT_SPEED`] towards the hills.
    pub belt: BodyId,
    /// The terrain chain (static).
    pub terrain: BodyId,
}

impl LevelDriver {
    /// Where the script puts the platform's centre at `time` seconds: a sine across the
    /// wide pit, starting at its middle and heading right.
    pub fn platform_position(time: f32) -> Vec2 {
        let pit = PITS[0];
        let middle = 0.5 * (pit.left + pit.right);
        let amplitude = 0.5 * (pit.right - pit.left) - PLATFORM_HALF.x - PLATFORM_CLEARANCE;
        let y = hills(pit.left).max(hills(pit.right)) + PLATFORM_LIFT - PLATFORM_HALF.y;
        Vec2::new(middle + amplitude * sin(TAU * time / PLATFORM_PERIOD), y)
    }

    /// The paddle's angle at `time` seconds, in (-π, π]: a steady clockwise spin from 0.
    pub fn paddle_angle(time: f32) -> f32 {
        wrap_angle(PADDLE_SPIN * time)
    }

    /// Where the paddle turns: its centre, which never moves.
    pub fn paddle_pivot() -> Vec2 {
        let sweep = (0..=16).map(|k| PADDLE_X + PADDLE_HALF.x * (k as f32 / 8.0 - 1.0));
        let highest = sweep.map(level_terrain).fold(f32::MIN, f32::max);
        Vec2::new(PADDLE_X, highest + PADDLE_LIFT)
    }

    /// Sets the platform's and the paddle's velocities for a step of `dt` seconds from
    /// `time`: those that carry each from where it is to where the script has it at
    /// `time + dt`. Aiming at the script rather than at its derivative keeps the movers on
    /// it however long the level runs (no drift from summing f32 steps), and puts them back
    /// on it after anything moved them. An error only for handles not of this world.
    pub fn drive(&self, world: &mut World, time: f32, dt: f32) -> Result<(), Error> {
        let platform = world.transform(self.platform).translation();
        let linear = (Self::platform_position(time + dt) - platform) / dt;
        world.set_velocity(self.platform, linear, 0.0)?;
        let angle = world.transform(self.paddle).angle();
        let turn = wrap_angle(Self::paddle_angle(time + dt) - angle);
        world.set_velocity(self.paddle, Vec2::ZERO, turn / dt)
    }
}

/// `angle` brought into (-π, π].
fn wrap_angle(angle: f32) -> f32 {
    let wrapped = (angle + PI).rem_euclid(TAU) - PI;
    if wrapped <= -PI {
        wrapped + TAU
    } else {
        wrapped
    }
}

/// A body the scene builds; only valid definitions reach here.
fn add(world: &mut World, def: BodyDef) -> BodyId {
    match world.add_body(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("level body rejected: {e}"),
    }
}

/// A level to play in, the same for the same seed: terrain as one chain with hills and two
/// pits between walls (x from -32 to 28, ground about y = 0), a kinematic platform
/// shuttling over the wide pit, a kinematic paddle spinning over the hills, a static
/// conveyor belt on the flat left end, 96 capsules, rounded boxes, boxes and circles (a
/// quarter each, sized from `seed`) dropping from above, and two heavy crates. Call
/// [`LevelDriver::drive`] before each step to move the platform and the paddle.
pub fn level(seed: u64) -> (World, LevelDriver) {
    let mut world = World::default();
    let mut outline = vec![Vec2::new(RIGHT, TOP)];
    outline.extend(ground_outline().into_iter().rev());
    outline.push(Vec2::new(LEFT, TOP));
    let terrain = match BodyShape::chain(&outline, false) {
        Ok(chain) => add(&mut world, BodyDef::fixed(chain, Vec2::ZERO)),
        Err(e) => unreachable!("level terrain rejected: {e}"),
    };

    let platform = add(
        &mut world,
        BodyDef::kinematic(
            Polygon::rectangle(PLATFORM_HALF.x, PLATFORM_HALF.y),
            LevelDriver::platform_position(0.0),
        ),
    );
    let paddle = add(
        &mut world,
        BodyDef::kinematic(
            Polygon::rectangle(PADDLE_HALF.x, PADDLE_HALF.y),
            LevelDriver::paddle_pivot(),
        ),
    );
    // The conveyor: its top face moves at BELT_SPEED towards the hills (a tangent speed,
    // carried into every contact's friction).
    let belt = add(
        &mut world,
        BodyDef {
            tangent_speed: BELT_SPEED,
            ..BodyDef::fixed(
                Polygon::rectangle(BELT_HALF.x, BELT_HALF.y),
                Vec2::new(BELT_X, level_terrain(BELT_X) + BELT_HALF.y),
            )
        },
    );

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let span = RIGHT - LEFT - 3.0;
    for i in 0..PER_ROW * ROWS {
        let (column, row) = (i % PER_ROW, i / PER_ROW);
        let x = LEFT + 1.5 + span * (column as f32 + 0.5) / PER_ROW as f32;
        let y = DROP_HEIGHT + ROW_SPACING * row as f32;
        let position = Vec2::new(x + rng.random_range(-0.2..0.2), y);
        let shape = game_shape(i, rng.random_range(0.3..0.5));
        let def = BodyDef {
            angle: rng.random_range(0.0..TAU),
            ..BodyDef::dynamic(shape, position)
        };
        add(&mut world, def);
    }
    // Heavy crates, three times as dense as the rest: a push lifts them as high.
    for x in [-18.0, 24.0] {
        let def = BodyDef {
            density: 3.0,
            ..BodyDef::dynamic(
                Polygon::rectangle(0.8, 0.8),
                Vec2::new(x, DROP_HEIGHT + ROW_SPACING * ROWS as f32 + 1.0),
            )
        };
        add(&mut world, def);
    }

    (
        world,
        LevelDriver {
            platform,
            paddle,
            belt,
            terrain,
        },
    )
}

/// Pushes the dynamic body under the world point `point` upwards: an impulse of
/// [`PUSH_SPEED`] times its mass, applied at `point` (so off its centre it also spins).
/// Returns the body, or `None` (and does nothing) over empty space or a static or
/// kinematic body. The topmost body under the point is the one pushed, as
/// [`World::body_at`] picks it.
pub fn push_body_at(world: &mut World, point: Vec2) -> Result<Option<BodyId>, Error> {
    let Some(body) = super::dynamic_body_at(world, point) else {
        return Ok(None);
    };
    let impulse = world.mass(body) * PUSH_SPEED * Vec2::Y;
    world.apply_linear_impulse(body, impulse, point)?;
    Ok(Some(body))
}

/// The crate's own sine: the level is the same bits on every platform (see `crate::math`).
fn sin(angle: f32) -> f32 {
    crate::math::sin_cos(angle).0
}
