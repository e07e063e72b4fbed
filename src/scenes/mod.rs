//! Ready-made worlds, shared by the example, the benches and the tests.
//!
//! Lengths are in units where a box is 1 wide; gravity is 10 units per second squared
//! downwards.

use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::broad_phase::BroadPhase;
use crate::collision::narrow_phase::Collider;
use crate::shapes::aabb::Aabb;
use crate::shapes::body_shape::BodyShape;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::shapes::transform::Transform;
use crate::world::{BodyDef, World};

/// Half the thickness of grounds and walls.
const SLAB: f32 = 0.5;

mod benchmarks;
mod human;
mod joint_benchmarks;
mod joint_scenes;
mod level;
mod mouse_drag;
mod playground;

pub use benchmarks::{
    JUNKYARD_BODIES, compounds, junkyard, large_pyramid, many_pyramids, smash, washer,
};
pub use human::{BONES, Bone, Human, human, remove_human};
pub use joint_benchmarks::{
    JOINT_GRID_SIDE, RAIN_COLUMNS, RAIN_GROUP_SIZE, RAIN_ROWS, RainStep, SPINNER_BODIES,
    SPINNER_SPEED, TUMBLER_BODIES, TUMBLER_SPEED, add_rain_group, joint_grid, rain,
    rain_group_origin, rain_step, spinner, tumbler,
};
pub use joint_scenes::{CAR_SPEED, Car, JointScene, joints};
pub use level::{BELT_SPEED, LevelDriver, PUSH_SPEED, level, level_terrain, push_body_at};
pub use mouse_drag::{DRAG_FORCE_PER_MASS, MouseDrag};
pub use playground::playground;

/// The topmost dynamic body under a world point, as [`World::body_at`] picks it: what the
/// example's mouse grabs and its I key pushes (static and kinematic bodies are neither).
fn dynamic_body_at(world: &World, point: Vec2) -> Option<crate::BodyId> {
    world
        .body_at(point)
        .filter(|&b| world.body_type(b) == Some(crate::world::BodyType::Dynamic))
}

fn add(world: &mut World, def: BodyDef) {
    // The scenes build only valid definitions; a failure here is a bug in this file.
    if let Err(e) = world.add_body(&def) {
        unreachable!("scene body rejected: {e}");
    }
}

/// A pyramid of `rows` rows of unit boxes on a static ground: `rows` boxes at the bottom,
/// one at the top, `rows * (rows + 1) / 2` in all. The ground's top is at y = 0 and the
/// pyramid is centred on x = 0.
pub fn pyramid(rows: usize) -> World {
    let mut world = World::default();
    let half_width = 0.5 * rows as f32 + 5.0;
    add(
        &mut world,
        BodyDef::fixed(Polygon::rectangle(half_width, SLAB), Vec2::new(0.0, -SLAB)),
    );
    let cube = Polygon::rectangle(0.5, 0.5);
    for row in 0..rows {
        let count = rows - row;
        for i in 0..count {
            let x = i as f32 - 0.5 * (count as f32 - 1.0);
            let y = 0.5 + row as f32;
            add(&mut world, BodyDef::dynamic(cube, Vec2::new(x, y)));
        }
    }
    world
}

/// The inner width of the container of [`pile`] for `bodies` bodies: wide enough that the
/// settled pile is about half as tall as it is wide.
pub fn pile_width(bodies: usize) -> f32 {
    (1.1 * bodies as f32).sqrt().max(10.0)
}

/// `bodies` random convex polygons (3 to 8 vertices) and boxes, about 0.4 to 1 unit across,
/// in a grid above the floor of a walled container, falling in. The same seed gives the
/// same world. The container's floor top is at y = 0, its inner walls at
/// `x = ±pile_width(bodies) / 2`, and the walls rise above the highest body.
pub fn pile(bodies: usize, seed: u64) -> World {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // A palette of shapes, so the shape table stays small however many bodies there are.
    let palette: Vec<BodyShape> = (0..24)
        .map(|_| BodyShape::from(random_shape(&mut rng)))
        .collect();
    fill_container(bodies, &palette, &mut rng)
}

/// Like [`pile`], with every kind of body, drawn from a palette of 8 circles, 8 convex
/// polygons and boxes, and 5 concave outlines (L, U, T, arrow, star) split into convex
/// pieces: about 38 % circles, 38 % convex polygons, 24 % concave bodies.
pub fn mixed(bodies: usize, seed: u64) -> World {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut palette: Vec<BodyShape> = Vec::new();
    for _ in 0..8 {
        palette.push(BodyShape::from(random_shape(&mut rng)));
        let radius = rng.random_range(0.2..0.45);
        palette.push(BodyShape::from(circle(radius)));
    }
    for outline in concave_outlines() {
        match BodyShape::concave(&outline) {
            Ok(shape) => palette.push(shape),
            Err(e) => unreachable!("scene outline rejected: {e}"),
        }
    }
    fill_container(bodies, &palette, &mut rng)
}

/// A circle about the origin; the scenes pass only valid radii.
fn circle(radius: f32) -> Circle {
    match Circle::new(radius) {
        Ok(c) => c,
        Err(e) => unreachable!("scene circle rejected: {e}"),
    }
}

/// Concave outlines that fit in a circle of radius 0.5 about the origin, like the convex
/// shapes of [`pile`].
fn concave_outlines() -> Vec<Vec<Vec2>> {
    let p = |points: &[[f32; 2]]| points.iter().map(|&q| Vec2::from(q)).collect::<Vec<_>>();
    let star: Vec<Vec2> = (0..10)
        .map(|k| {
            let r = if k % 2 == 0 { 0.5 } else { 0.22 };
            r * crate::math::from_angle(
                std::f32::consts::FRAC_PI_2 + std::f32::consts::TAU * k as f32 / 10.0,
            )
        })
        .collect();
    vec![
        // L
        p(&[
            [-0.35, -0.35],
            [0.35, -0.35],
            [0.35, -0.1],
            [-0.1, -0.1],
            [-0.1, 0.35],
            [-0.35, 0.35],
        ]),
        // U
        p(&[
            [-0.35, -0.35],
            [0.35, -0.35],
            [0.35, 0.35],
            [0.15, 0.35],
            [0.15, -0.15],
            [-0.15, -0.15],
            [-0.15, 0.35],
            [-0.35, 0.35],
        ]),
        // T
        p(&[
            [-0.1, -0.35],
            [0.1, -0.35],
            [0.1, 0.15],
            [0.35, 0.15],
            [0.35, 0.35],
            [-0.35, 0.35],
            [-0.35, 0.15],
            [-0.1, 0.15],
        ]),
        // arrow head
        p(&[[0.0, 0.45], [0.4, -0.3], [0.0, -0.1], [-0.4, -0.3]]),
        star,
    ]
}

/// A walled container sized for `bodies`, and `bodies` bodies drawn from `palette` in a grid
/// above its floor, at random angles.
fn fill_container(bodies: usize, palette: &[BodyShape], rng: &mut ChaCha8Rng) -> World {
    let mut world = World::default();
    let width = pile_width(bodies);
    let spacing = 1.1;
    let columns = ((width / spacing).floor() as usize).max(1);
    let rows = bodies.div_ceil(columns);
    let top = 1.0 + spacing * rows as f32;
    let wall_height = top + 2.0;

    add(
        &mut world,
        BodyDef::fixed(
            Polygon::rectangle(0.5 * width + 2.0 * SLAB, SLAB),
            Vec2::new(0.0, -SLAB),
        ),
    );
    for side in [-1.0, 1.0] {
        add(
            &mut world,
            BodyDef::fixed(
                Polygon::rectangle(SLAB, 0.5 * wall_height),
                Vec2::new(side * (0.5 * width + SLAB), 0.5 * wall_height),
            ),
        );
    }

    let x0 = -0.5 * width + 0.5 * spacing;
    for k in 0..bodies {
        let (row, column) = (k / columns, k % columns);
        let jitter = Vec2::new(rng.random_range(-0.03..0.03), rng.random_range(-0.03..0.03));
        let position = Vec2::new(x0 + spacing * column as f32, 1.0 + spacing * row as f32) + jitter;
        let shape = palette[rng.random_range(0..palette.len())].clone();
        let mut def = BodyDef::dynamic(shape, position);
        def.angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
        add(&mut world, def);
    }
    world
}

/// A box one time in four, else a convex polygon of 3 to 8 vertices on a random ellipse;
/// every shape fits in a circle of radius 0.5 about its origin.
fn random_shape(rng: &mut ChaCha8Rng) -> Polygon {
    loop {
        if rng.random_bool(0.25) {
            return Polygon::rectangle(rng.random_range(0.2..0.35), rng.random_range(0.2..0.35));
        }
        let sides = rng.random_range(3..=8);
        let radii = Vec2::new(rng.random_range(0.3..0.5), rng.random_range(0.3..0.5));
        // Evenly spread angles with a little noise keep the corners well apart.
        let step = std::f32::consts::TAU / sides as f32;
        let points: Vec<Vec2> = (0..sides)
            .map(|k| {
                let a = step * (k as f32 + rng.random_range(-0.25..0.25));
                crate::math::from_angle(a) * radii
            })
            .collect();
        if let Ok(p) = Polygon::new(&points) {
            return p;
        }
    }
}

/// A narrow-phase workload: shapes, colliders and candidate pairs, as a step of a dense
/// scene would hand them over.
#[derive(Clone, Debug)]
pub struct NarrowPhaseBatch {
    /// The shape table (a palette of random 3- to 8-gons and boxes).
    pub shapes: Vec<Polygon>,
    /// Colliders scattered at random over a square.
    pub colliders: Vec<Collider>,
    /// Exactly the requested number of the broad phase's candidate pairs, ascending.
    pub pairs: Vec<[u32; 2]>,
}

/// A seeded batch of `pairs` candidate pairs (or as many as the scene has, for tiny
/// requests): colliders of about 1 unit at a density that gives about 5.5 candidate pairs
/// per collider, of which about two thirds overlap. The same seed gives the same batch.
pub fn narrow_phase_batch(pairs: usize, seed: u64) -> NarrowPhaseBatch {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shapes: Vec<Polygon> = (0..64).map(|_| random_shape(&mut rng)).collect();
    // Five colliders per unit area give about 5.5 candidate pairs per collider; ask for 10 %
    // more colliders than needed and keep the first `pairs` pairs.
    let count = (pairs / 5 + pairs / 40).max(8);
    let half = 0.5 * (count as f32 / 5.0).sqrt();
    let colliders: Vec<Collider> = (0..count)
        .map(|_| Collider {
            shape: rng.random_range(0..shapes.len() as u32),
            transform: Transform::new(
                Vec2::new(rng.random_range(-half..half), rng.random_range(-half..half)),
                rng.random_range(-std::f32::consts::PI..std::f32::consts::PI),
            ),
        })
        .collect();
    let aabbs: Vec<Aabb> = colliders
        .iter()
        .map(|c| shapes[c.shape as usize].aabb(&c.transform))
        .collect();
    let mut all = BroadPhase::new().find_pairs(&aabbs).to_vec();
    all.truncate(pairs);
    NarrowPhaseBatch {
        shapes,
        colliders,
        pairs: all,
    }
}
