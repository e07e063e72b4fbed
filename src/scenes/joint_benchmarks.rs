//! Box2D v3's joint benchmark scenes (its `shared/benchmarks.c`): `joint_grid`, `tumbler`,
//! `spinner` (and `rain`, whose ragdolls are [`super::human`]), built from the same numbers.
//! The comparison in `benches/common/box2d.rs` rebuilds each in Box2D from our world,
//! joints included, so both engines step the same bodies and joints.
//!
//! A Box2D "ground" body without shapes (an anchor for joints) has no counterpart here: a
//! body needs a shape. It stands in as a static circle of radius 0.1 at the same place,
//! in a filter that touches nothing ([`Filter`] mask 0), so it never makes a pair.

use glam::Vec2;

use super::{add, circle};
use crate::body_shape::BodyShape;
use crate::capsule::Capsule;
use crate::filter::Filter;
use crate::handle::BodyId;
use crate::joint::JointDef;
use crate::polygon::Polygon;
use crate::shape::Shape;
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
    let wall = |half: Vec2, center: Vec2| {
        let corners = [
            center - half,
            center + Vec2::new(half.x, -half.y),
            center + half,
            center + Vec2::new(-half.x, half.y),
        ];
        match Polygon::new(&corners) {
            Ok(p) => Shape::Polygon(p),
            Err(e) => unreachable!("scene wall rejected: {e}"),
        }
    };
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
    let hub = Vec2::new(0.0, 10.0);
    let drum = add_body(
        &mut world,
        BodyDef {
            density: 50.0,
            ..BodyDef::dynamic(drum, hub)
        },
    );
    add_joint(
        &mut world,
        JointDef::revolute(ground, drum, hub).with_motor(TUMBLER_SPEED, 1e8),
    );

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
    let hub = Vec2::new(0.0, 12.0);
    let paddle = add_body(
        &mut world,
        BodyDef {
            friction: 0.0,
            ..BodyDef::dynamic(paddle, hub)
        },
    );
    add_joint(
        &mut world,
        JointDef::revolute(ground, paddle, hub).with_motor(SPINNER_SPEED, f32::MAX),
    );

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
pub(super) fn add_joint(world: &mut World, def: JointDef) -> crate::joint::JointId {
    match world.add_joint(&def) {
        Ok(id) => id,
        Err(e) => unreachable!("scene joint rejected: {e}"),
    }
}
