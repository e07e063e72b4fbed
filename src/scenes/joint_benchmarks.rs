//! Box2D v3's joint benchmark scenes (its `shared/benchmarks.c`): `joint_grid`, `tumbler`,
//! `spinner` and `rain` (ragdolls, [`super::human`], made and removed as it runs), built
//! from the same numbers.
//! The comparison in `benches/common/box2d/` rebuilds each in Box2D from our world,
//! joints included, so both engines step the same bodies and joints.
//!
//! A Box2D "ground" body without shapes (an anchor for joints) has no counterpart here: a
//! body needs a shape. It stands in as a static circle of radius 0.1 at the same place,
//! in a filter that touches nothing ([`Filter`] mask 0), so it never makes a pair.

use glam::Vec2;

use super::benchmarks::offset_box;
use super::human::{Human, human};
use super::{add, circle};
use crate::broad_phase::filter::Filter;
use crate::dynamics::joints::JointDef;
use crate::error::Error;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::capsule::Capsule;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::world::handle::BodyId;
use crate::world::{BodyDef, World};

/// The side of [`joint_grid`]'s square grid of circles.
pub const JOINT_GRID_SIDE: usize = 100;

/// [`tumbler`]'s drum speed, radians per second: Box2D's 25 degrees a second.
pub const TUMBLER_SPEED: f32 = 25.0 * std::f32::consts::PI / 180.0;

/// [`spinner`]'s paddle speed, radians per second (Box2D's motor speed).
pub const SPINNER_SPEED: f32 = 5.0;

/// The bodies of [`spinner`]: the ground loop, the paddle, 6,076 capsules, circles and
/// boxes.
pub const SPINNER_BODIES: usize = 2 + 2 * 3038;

/// The bodies of [`tumbler`]: the ground anchor, the drum, 45 x 45 small boxes.
pub const TUMBLER_BODIES: usize = 2 + 45 * 45;

/// Box2D's "joint_grid": 100 x 100 circles of radius 0.4 (density 1) one unit apart, body
/// (k, i) at (k, -i), each pinned by revolute joints to its neighbour above (at the midpoint,
/// (k, 0.5 - i)) and to its left ((k - 0.5, -i)): 19,800 joints. The top row's seven
/// middle circles (k = 47..=53, i = 0) are static, so the net hangs from them. The circles
/// are in category 2 and touch every category but 2 (Box2D's filter): they never touch each
/// other, and there is nothing else, so the scene has joints and no contacts. Sleeping is
/// off, as Box2D's. Bodies in Box2D's order: column k, then row i.
pub fn joint_grid() -> World {
    let n = JOINT_GRID_SIDE;
    let mut world = World::default();
    world.set_sleeping(false);
    let filter = Filter {
        category_bits: 2,
        mask_bits: !2,
        group_index: 0,
    };
    let ball = circle(0.4);
    let mut bodies: Vec<BodyId> = Vec::with_capacity(n * n);
    for k in 0..n {
        for i in 0..n {
            let position = Vec2::new(k as f32, -(i as f32));
            let pinned = i == 0 && (n / 2 - 3..=n / 2 + 3).contains(&k);
            let def = if pinned {
                BodyDef::fixed(ball, position)
            } else {
                BodyDef::dynamic(ball, position)
            };
            let body = add_body(&mut world, BodyDef { filter, ..def });
            if i > 0 {
                let above = bodies[bodies.len() - 1];
                let pin = position + Vec2::new(0.0, 0.5);
                add_joint(&mut world, JointDef::revolute(above, body, pin));
            }
            if k > 0 {
                let left = bodies[bodies.len() - n];
                let pin = position - Vec2::new(0.5, 0.0);
                add_joint(&mut world, JointDef::revolute(left, body, pin));
            }
            bodies.push(body);
        }
    }
    world
}

/// Box2D's "tumbler": a square drum 20 wide (four walls 1 thick, density 50) about
/// (0, 10), dynamic, pinned there to the ground by a revolute joint whose motor turns it at
/// 25 degrees a second with at most 1e8 of torque, and 45 x 45 boxes 0.25 wide (density 1)
/// in a grid 0.4 apart inside it, from (-9, 1). The ground is the shapeless anchor of the
/// module header, at the origin. Sleeping stays on. Bodies: the ground, the drum, the boxes.
pub fn tumbler() -> World {
    let mut world = World::default();
    let ground = add_anchor(&mut world, Vec2::ZERO);
    let wall = offset_box;
    let walls = vec![
        wall(Vec2::new(0.5, 10.0), Vec2::new(10.0, 0.0)),
        wall(Vec2::new(0.5, 10.0), Vec2::new(-10.0, 0.0)),
        wall(Vec2::new(10.0, 0.5), Vec2::new(0.0, 10.0)),
        wall(Vec2::new(10.0, 0.5), Vec2::new(0.0, -10.0)),
    ];
    let drum = match BodyShape::compound(walls) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene drum rejected: {e}"),
    };
    let drum = BodyDef {
        density: 50.0,
        ..BodyDef::dynamic(drum, Vec2::new(0.0, 10.0))
    };
    add_motorised(&mut world, ground, drum, TUMBLER_SPEED, 1e8);

    const GRID: usize = 45;
    let square = Polygon::rectangle(0.125, 0.125);
    let start = -0.2 * GRID as f32;
    for i in 0..GRID {
        let y = start + 10.0 + 0.4 * i as f32;
        for j in 0..GRID {
            let x = start + 0.4 * j as f32;
            add(&mut world, BodyDef::dynamic(square, Vec2::new(x, y)));
        }
    }
    world
}

/// Box2D's "spinner": a closed chain of 360 points on a circle of radius 40 about (0, 32),
/// clockwise (a container; friction 0.1), a paddle (a box 0.8 by 40 rounded by 0.2,
/// friction 0) pinned at its centre (0, 12) to the ground by a revolute motor at 5 radians a
/// second with unbounded torque (`f32::MAX`), and 6,076 bodies of density 0.25, friction
/// 0.1 and restitution 0.1 in rows 0.5 apart from (-23, 2), x from -23 up to 23: capsules
/// (0.5 long, radius 0.25), circles (radius 0.35) and boxes (0.7 wide), in turn. Box2D
/// keeps the paddle awake (`enableSleep = false`); here it is awake while it turns, which
/// the motor keeps it doing. Sleeping stays on. Bodies: the loop, the paddle, the rest.
pub fn spinner() -> World {
    const POINTS: usize = 360;
    let mut world = World::default();
    let step = -std::f32::consts::TAU / POINTS as f32;
    let points: Vec<Vec2> = (0..POINTS)
        .map(|i| 40.0 * crate::math::from_angle(step * i as f32) + Vec2::new(0.0, 32.0))
        .collect();
    let chain = match BodyShape::chain(&points, true) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene chain rejected: {e}"),
    };
    let ground = add_body(
        &mut world,
        BodyDef {
            friction: 0.1,
            ..BodyDef::fixed(chain, Vec2::ZERO)
        },
    );
    let paddle = match Polygon::rectangle(0.4, 20.0).with_radius(0.2) {
        Ok(p) => p,
        Err(e) => unreachable!("scene paddle rejected: {e}"),
    };
    let paddle = BodyDef {
        friction: 0.0,
        ..BodyDef::dynamic(paddle, Vec2::new(0.0, 12.0))
    };
    add_motorised(&mut world, ground, paddle, SPINNER_SPEED, f32::MAX);

    let capsule: BodyShape = match Capsule::new(Vec2::new(-0.25, 0.0), Vec2::new(0.25, 0.0), 0.25) {
        Ok(c) => c.into(),
        Err(e) => unreachable!("scene capsule rejected: {e}"),
    };
    let shapes = [
        capsule,
        BodyShape::from(circle(0.35)),
        BodyShape::from(Polygon::rectangle(0.35, 0.35)),
    ];
    let (mut x, mut y) = (-23.0f32, 2.0f32);
    for i in 0..SPINNER_BODIES - 2 {
        add(
            &mut world,
            BodyDef {
                density: 0.25,
                friction: 0.1,
                restitution: 0.1,
                ..BodyDef::dynamic(shapes[i % 3].clone(), Vec2::new(x, y))
            },
        );
        x += 0.5;
        if x >= 23.0 {
            x = -23.0;
            y += 0.5;
        }
    }
    world
}

/// Rows of [`rain`]: five floors, a ragdoll group dropping onto each.
pub const RAIN_ROWS: usize = 5;

/// Columns of [`rain`]: forty groups a row.
pub const RAIN_COLUMNS: usize = 40;

/// Ragdolls in a group of [`rain`].
pub const RAIN_GROUP_SIZE: usize = 5;

/// [`rain`]'s floor tiles a row, less one (Box2D's `gridCount`).
const RAIN_GRID: usize = 500;

/// [`rain`]'s tile size.
const RAIN_TILE: f32 = 0.5;

/// Box2D's "rain" (its static world): five floors 45 apart (y = 0, 45, ..., 180), each 501
/// square tiles 0.5 wide from x = -125 to 125, all pieces of one static body. The rain
/// itself is its step function's: before step k, [`rain_step`] says which column of groups
/// to drop (and, once all forty are down, which to replace), [`rain_group_origin`] where,
/// and [`add_rain_group`] drops one. Sleeping stays on.
pub fn rain() -> World {
    let mut world = World::default();
    let half = 0.5 * RAIN_TILE;
    let tiles: Vec<Shape> = (0..RAIN_ROWS)
        .flat_map(|row| {
            (0..=RAIN_GRID).map(move |j| {
                let center = Vec2::new(
                    -0.5 * RAIN_GRID as f32 * RAIN_TILE + j as f32 * RAIN_TILE,
                    45.0 * row as f32,
                );
                offset_box(Vec2::splat(half), center)
            })
        })
        .collect();
    let floors = match BodyShape::compound(tiles) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene floors rejected: {e}"),
    };
    add_body(&mut world, BodyDef::fixed(floors, Vec2::ZERO));
    world
}

/// What [`rain`]'s step function does before step `k`: every eighth step (k a multiple of
/// 8) a column of groups, one per row; the first forty times, column 0, 1, ..., 39 is
/// dropped anew (`replace` false); after that the oldest column, 0, 1, ... round again, is
/// removed and dropped again (`replace` true). `None`: nothing this step.
pub fn rain_step(k: usize) -> Option<RainStep> {
    if !k.is_multiple_of(8) {
        return None;
    }
    let n = k / 8;
    Some(RainStep {
        column: n % RAIN_COLUMNS,
        replace: n >= RAIN_COLUMNS,
    })
}

/// One move of [`rain`]'s step function: in every row, the group of `column` is (removed,
/// if `replace`, and) dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RainStep {
    /// The column of groups, 0 to [`RAIN_COLUMNS`] - 1.
    pub column: usize,
    /// Whether the column's groups are there already, to be removed first.
    pub replace: bool,
}

/// Where [`rain`]'s group of `row` and `column` is dropped: the feet of its first ragdoll,
/// 40 above its floor, the 250-wide floor split into forty equal spans.
pub fn rain_group_origin(row: usize, column: usize) -> Vec2 {
    let span = RAIN_GRID as f32 * RAIN_TILE;
    let spacing = span / RAIN_COLUMNS as f32;
    Vec2::new(
        -0.5 * span + spacing * (column as f32 + 0.5),
        40.0 + 45.0 * row as f32,
    )
}

/// Drops a group of [`rain`]: [`RAIN_GROUP_SIZE`] ragdolls ([`super::human`], scale 1,
/// joint friction 0.05, springs of 5 hertz and damping ratio 0.5) 0.5 apart from
/// `origin` rightwards, in groups 1, 2, ... (each ragdoll's bones touch the others'
/// but not their own). Errors are [`super::human`]'s (an origin out of range).
pub fn add_rain_group(world: &mut World, origin: Vec2) -> Result<[Human; RAIN_GROUP_SIZE], Error> {
    let mut humans = Vec::with_capacity(RAIN_GROUP_SIZE);
    for i in 0..RAIN_GROUP_SIZE {
        let at = origin + Vec2::new(0.5 * i as f32, 0.0);
        humans.push(human(world, at, 1.0, 0.05, 5.0, 0.5, i as i32 + 1)?);
    }
    match humans.try_into() {
        Ok(group) => Ok(group),
        Err(_) => unreachable!("a group of RAIN_GROUP_SIZE ragdolls"),
    }
}

/// Adds `def`'s body pinned at its position to `ground` by a revolute joint whose motor
/// turns it at `speed` with at most `max_torque`.
fn add_motorised(world: &mut World, ground: BodyId, def: BodyDef, speed: f32, max_torque: f32) {
    let hub = def.position;
    let body = add_body(world, def);
    add_joint(
        world,
        JointDef::revolute(ground, body, hub).with_motor(speed, max_torque),
    );
}

/// A static anchor standing in for a Box2D body without shapes (see the module header).
pub(super) fn add_anchor(world: &mut World, position: Vec2) -> BodyId {
    let nothing = Filter {
        mask_bits: 0,
        ..Filter::default()
    };
    add_body(
        world,
        BodyDef {
            filter: nothing,
            ..BodyDef::fixed(circle(0.1), position)
        },
    )
}

/// Adds a body the scene built; a failure is a bug in the scene.
pub(super) fn add_body(world: &mut World, def: BodyDef) -> BodyId {
    match world.add_body(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("scene body rejected: {e}"),
    }
}

/// Adds a joint the scene built; a failure is a bug in the scene.
pub(super) fn add_joint(world: &mut World, def: JointDef) -> crate::dynamics::joints::JointId {
    match world.add_joint(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("scene joint rejected: {e}"),
    }
}
