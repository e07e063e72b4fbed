//! A scene of the shapes a game is built of: terrain as one chain, capsules, rounded boxes,
//! circles and sharp boxes raining onto it.

use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::add;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::world::{BodyDef, World};

/// Half the width of the playground's valley.
const HALF_WIDTH: f32 = 30.0;

/// The terrain's height at `x`: rolling hills about y = 0, 1.5 high at most.
fn terrain(x: f32) -> f32 {
    // The crate's own sine: a scene is the same bits on every platform.
    let sin = |a: f32| crate::math::sin_cos(a).0;
    1.0 * sin(0.35 * x) + 0.5 * sin(0.9 * x + 1.0)
}

/// `bodies` capsules, rounded boxes, circles and boxes (a quarter each, drawn from `seed`)
/// falling onto rolling terrain made of one chain: down the right wall, along the hills
/// from right to left, up the left wall, so that its free side (on the right of the way
/// the points run) faces the valley. Bodies sliding over the hills meet no seam.
pub fn playground(bodies: usize, seed: u64) -> World {
    let mut world = World::default();
    let top = 12.0 + bodies as f32 / 40.0;
    let mut outline = vec![Vec2::new(HALF_WIDTH, top)];
    let steps = 120;
    for k in 0..=steps {
        let x = HALF_WIDTH - 2.0 * HALF_WIDTH * k as f32 / steps as f32;
        outline.push(Vec2::new(x, terrain(x)));
    }
    outline.push(Vec2::new(-HALF_WIDTH, top));
    match BodyShape::chain(&outline, false) {
        Ok(chain) => add(&mut world, BodyDef::fixed(chain, Vec2::ZERO)),
        Err(e) => unreachable!("playground terrain rejected: {e}"),
    }

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let per_row = 40;
    for i in 0..bodies {
        let (column, row) = (i % per_row, i / per_row);
        let x = -HALF_WIDTH + 1.5 + (2.0 * HALF_WIDTH - 3.0) * column as f32 / per_row as f32;
        let position = Vec2::new(x + rng.random_range(-0.2..0.2), 4.0 + 1.4 * row as f32);
        let shape = game_shape(i, rng.random_range(0.25..0.45));
        let def = BodyDef {
            angle: rng.random_range(0.0..std::f32::consts::TAU),
            ..BodyDef::dynamic(shape, position)
        };
        add(&mut world, def);
    }
    world
}

/// The `i`-th of the shapes a game is built of, reaching about `size` from its centre: a
/// capsule, a rounded box, a circle and a sharp box in turn.
pub(super) fn game_shape(i: usize, size: f32) -> BodyShape {
    match i % 4 {
        0 => match Capsule::new(Vec2::new(-size, 0.0), Vec2::new(size, 0.0), 0.5 * size) {
            Ok(capsule) => capsule.into(),
            Err(e) => unreachable!("scene capsule rejected: {e}"),
        },
        1 => match Polygon::rectangle(size, 0.7 * size).with_radius(0.3 * size) {
            Ok(rounded) => rounded.into(),
            Err(e) => unreachable!("scene rounded box rejected: {e}"),
        },
        2 => match Circle::new(size) {
            Ok(circle) => circle.into(),
            Err(e) => unreachable!("scene circle rejected: {e}"),
        },
        _ => Polygon::rectangle(size, size).into(),
    }
}
