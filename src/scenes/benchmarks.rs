//! Box2D v3's benchmark scenes (its `shared/benchmarks.c`), built from the same numbers:
//! the comparison in `benches/common/box2d/` rebuilds each in Box2D from our world, so
//! both engines step the same bodies. Where a scene needs what the crate does not have yet,
//! the function says what stands in for it.
//!
//! Sleeping: Box2D turns it off in `large_pyramid` and `many_pyramids` and leaves it on
//! (its default, as ours) in the others; each function says which, and the comparison
//! follows [`World::sleeping`] in both engines.

use glam::Vec2;

use super::{SLAB, add, pyramid};
use crate::shapes::body_shape::BodyShape;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::world::{BodyDef, World};

/// The 100-row pyramid of 5,050 boxes that Box2D benchmarks as "large pyramid".
pub fn large_pyramid() -> World {
    pyramid(100)
}

/// Box2D's "many pyramids" benchmark scene: 20 rows of 20 pyramids, each 10 rows of unit
/// boxes (55 boxes; 22,000 in all), every row of pyramids on a ground of its own, the
/// grounds 11 units apart (the lowest one's top at y = 0) and 220 wide. Box2D's grounds are
/// segments; here each is a static box 0.2 thick with its top where the segment lies, so
/// that the pyramid below (10 high) stays 0.8 clear of it. Sleeping belongs to the
/// caller: Box2D runs this scene with sleeping off.
pub fn many_pyramids() -> World {
    const ROWS: usize = 20;
    const COLUMNS: usize = 20;
    const BASE: usize = 10;
    // A pyramid is BASE wide and has a box's width of gap on each side.
    let spacing = BASE as f32 + 1.0;
    let half_width = 0.5 * COLUMNS as f32 * spacing;
    let half_thickness = 0.1;
    let mut world = World::default();
    for row in 0..ROWS {
        let ground_y = row as f32 * spacing;
        add(
            &mut world,
            BodyDef::fixed(
                Polygon::rectangle(half_width, half_thickness),
                Vec2::new(0.0, ground_y - half_thickness),
            ),
        );
    }
    let cube = Polygon::rectangle(0.5, 0.5);
    for row in 0..ROWS {
        let ground_y = row as f32 * spacing;
        for column in 0..COLUMNS {
            // Centre of the pyramid's leftmost bottom box.
            let left = -half_width + 1.0 + column as f32 * spacing;
            for level in 0..BASE {
                for i in level..BASE {
                    let x = left + 0.5 * level as f32 + (i - level) as f32;
                    let y = ground_y + 0.5 + level as f32;
                    add(&mut world, BodyDef::dynamic(cube, Vec2::new(x, y)));
                }
            }
        }
    }
    world
}

/// Box2D's "smash": without gravity, a heavy box (8 units wide, density 8) at 40 units per
/// second into a wall of 120 x 80 boxes 0.4 wide that touch their neighbours, 9,601 bodies:
/// a burst of new pairs when it strikes (after about 70 steps), then a spreading cloud.
/// Sleeping stays on. Box2D builds the wall asleep; a body here starts awake, so the wall
/// (at rest, touching) falls asleep after `TIME_TO_SLEEP` and the comparison builds Box2D's
/// awake too, for the same work on both sides.
pub fn smash() -> World {
    let mut world = World::new(Vec2::ZERO);
    add(
        &mut world,
        BodyDef {
            density: 8.0,
            linear_velocity: Vec2::new(40.0, 0.0),
            ..BodyDef::dynamic(Polygon::rectangle(4.0, 4.0), Vec2::new(-20.0, 0.0))
        },
    );
    const COLUMNS: usize = 120;
    const ROWS: usize = 80;
    let size = 0.4;
    let brick = Polygon::rectangle(0.5 * size, 0.5 * size);
    for i in 0..COLUMNS {
        for j in 0..ROWS {
            let position = Vec2::new(
                i as f32 * size + 30.0,
                (j as f32 - 0.5 * ROWS as f32) * size,
            );
            add(&mut world, BodyDef::dynamic(brick, position));
        }
    }
    world
}

/// Box2D's "compounds": 3,000 bodies of two triangles each (20 columns by 150 rows,
/// alternately shifted by a quarter unit) raining into a container of 281 boxes (a floor 81
/// wide, walls 100 high), all one static body. Box2D's container also has a segment from
/// (-800, -80) to (800, -80) to catch what spills out; here a static box 1,600 wide and 0.2
/// thick has its top there. Friction 0.5; sleeping stays on.
pub fn compounds() -> World {
    let mut world = World::default();
    let mut container = yard(40, 100);
    container.push(offset_box(Vec2::new(800.0, 0.1), Vec2::new(0.0, -80.1)));
    let container = match BodyShape::compound(container) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene container rejected: {e}"),
    };
    add(&mut world, BodyDef::fixed(container, Vec2::ZERO));

    let triangle = |points: [Vec2; 3]| match Polygon::new(&points) {
        Ok(polygon) => Shape::Polygon(polygon),
        Err(e) => unreachable!("scene triangle rejected: {e}"),
    };
    let left = triangle([
        Vec2::new(-1.0, 0.0),
        Vec2::new(0.5, 1.0),
        Vec2::new(0.0, 2.0),
    ]);
    let right = triangle([
        Vec2::new(1.0, 0.0),
        Vec2::new(-0.5, 1.0),
        Vec2::new(0.0, 2.0),
    ]);
    let body = match BodyShape::compound(vec![left, right]) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene compound rejected: {e}"),
    };
    const COLUMNS: usize = 20;
    const ROWS: usize = 150;
    let (spacing, extra_y, start_y) = (2.0, 0.25, 5.0);
    let center_x = spacing * COLUMNS as f32 / 2.0 - 1.0;
    let center_y = 1.15 / 2.0;
    let mut side = 0.25;
    for i in 0..COLUMNS {
        let x = i as f32 * spacing - center_x;
        for j in 0..ROWS {
            let y = j as f32 * (spacing + extra_y) + center_y + start_y;
            add(
                &mut world,
                BodyDef {
                    friction: 0.5,
                    ..BodyDef::dynamic(body.clone(), Vec2::new(x + side, y))
                },
            );
            side = -side;
        }
    }
    world
}

/// Box2D's "washer": 8,100 small boxes (0.2 wide, 90 x 90 in a square grid) inside a drum
/// of radius 16 to 18 with four paddles reaching in to 14, turned at 25 degrees a second as a
/// kinematic body about (0, 10) (and drifting at (0.001, -0.002) units a second, as Box2D's
/// does). The drum is 40 convex pieces of one body: 36 arcs of 10 degrees, each widened by a
/// degree at both ends so neighbours overlap, and a paddle every 90 degrees. Hit events on,
/// at Box2D's default threshold (1 unit per second); sleeping stays on.
pub fn washer() -> World {
    let mut world = World::default();
    if let Err(e) = world.set_hit_event_threshold(Some(1.0)) {
        unreachable!("scene threshold rejected: {e}");
    }
    let (r0, r1, r2) = (14.0f32, 16.0f32, 18.0f32);
    let step = std::f32::consts::PI / 18.0;
    let at = crate::math::from_angle;
    let mut drum = Vec::new();
    for i in 0..36 {
        let (start, end) = (i as f32 * step, (i + 1) as f32 * step);
        let (a1, a2) = (at(start - 0.1 * step), at(end + 0.1 * step));
        drum.push(hull(&[r1 * a1, r2 * a1, r1 * a2, r2 * a2]).into());
        if i % 9 == 0 {
            let (u1, u2) = (at(start), at(end));
            drum.push(hull(&[r0 * u1, r1 * u1, r0 * u2, r1 * u2]).into());
        }
    }
    add(
        &mut world,
        BodyDef {
            angular_velocity: 25.0f32.to_radians(),
            linear_velocity: Vec2::new(0.001, -0.002),
            ..BodyDef::kinematic(compound(drum), Vec2::new(0.0, 10.0))
        },
    );
    const GRID: usize = 90;
    let half = 0.1;
    let square = Polygon::rectangle(half, half);
    let start = -1.1 * half * GRID as f32;
    for i in 0..GRID {
        let y = start + 10.0 + 2.1 * half * i as f32;
        for j in 0..GRID {
            let x = start + 2.1 * half * j as f32;
            add(&mut world, BodyDef::dynamic(square, Vec2::new(x, y)));
        }
    }
    world
}

/// The bodies of [`junkyard`]: the ground, 8,000 pentagons, the pusher (the last).
pub const JUNKYARD_BODIES: usize = 1 + 200 * 40 + 1;

/// Box2D's "junkyard": 8,000 pentagons (radius 0.25; 200 columns by 40 rows, alternately
/// shifted by 0.1) falling into a yard 160 wide with walls 50 high (one static body of 261
/// boxes), and a kinematic pusher (4 wide, 8 high) that the caller drives along the floor:
/// Box2D's step function sets its target to x = 60 sin(0.2 t) each step (see the
/// comparison's `benches/common/box2d/`). The pentagon's corners are Box2D's: angles
/// k·π(√5 − 1), k = 0..5 (a golden-angle spiral), hulled. Sleeping stays on.
pub fn junkyard() -> World {
    let mut world = World::default();
    add(
        &mut world,
        BodyDef::fixed(compound(yard(80, 50)), Vec2::ZERO),
    );

    let radius = 0.25;
    let golden = std::f32::consts::PI * (5.0f32.sqrt() - 1.0);
    let corners: Vec<Vec2> = (0..5)
        .map(|k| radius * crate::math::from_angle(golden * k as f32))
        .collect();
    let pentagon = hull(&corners);
    let mut side = -0.1;
    for i in 0..200 {
        let x = 1.5 * (2.0 * i as f32 - 200.0) * radius;
        for j in 0..40 {
            let y = 4.0 * j as f32 * radius + 15.0;
            add(
                &mut world,
                BodyDef::dynamic(pentagon, Vec2::new(x + side, y)),
            );
            side = -side;
        }
    }
    let pusher = compound(vec![offset_box(Vec2::new(2.0, 4.0), Vec2::new(0.0, 4.0))]);
    add(&mut world, BodyDef::kinematic(pusher, Vec2::ZERO));
    world
}

/// Box2D's container of unit tiles, as its `compounds` and `junkyard` build it: a floor of
/// boxes 1.1 wide and 1 high centred at x = -half_width..=half_width (y = 0), and at each end
/// a wall of `wall_height` boxes 1 wide and 1.1 high centred at y = 1, 2, ... Neighbours
/// overlap by a tenth, so nothing falls between them.
fn yard(half_width: usize, wall_height: usize) -> Vec<Shape> {
    let half_width = half_width as i32;
    let floor = (-half_width..=half_width)
        .map(|x| offset_box(Vec2::new(0.55, SLAB), Vec2::new(x as f32, 0.0)));
    let walls = [-half_width, half_width].into_iter().flat_map(|x| {
        (1..=wall_height)
            .map(move |y| offset_box(Vec2::new(SLAB, 0.55), Vec2::new(x as f32, y as f32)))
    });
    floor.chain(walls).collect()
}

/// An axis-aligned box of half extents `half` about `center` (a piece of a larger body).
pub(super) fn offset_box(half: Vec2, center: Vec2) -> Shape {
    let corners = [
        center - half,
        center + Vec2::new(half.x, -half.y),
        center + half,
        center + Vec2::new(-half.x, half.y),
    ];
    Shape::Polygon(hull(&corners))
}

/// The convex hull of `points`; the scenes pass only valid point sets.
fn hull(points: &[Vec2]) -> Polygon {
    match Polygon::convex_hull(points) {
        Ok(polygon) => polygon,
        Err(e) => unreachable!("scene polygon rejected: {e}"),
    }
}

/// A body of the convex `pieces`; the scenes pass at least one.
fn compound(pieces: Vec<Shape>) -> BodyShape {
    match BodyShape::compound(pieces) {
        Ok(shape) => shape,
        Err(e) => unreachable!("scene body rejected: {e}"),
    }
}
