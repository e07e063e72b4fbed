//! Time of impact: literature cases with hand-derived answers, sampled properties over random
//! sweeps (checked with `collide_shapes` and an independent f64 distance), and the GPU
//! kernel against the CPU reference.

use crate::common;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngSeed};
use rand::Rng;
use wgpu_sat::error::BatchError;
#[cfg(feature = "gpu")]
use wgpu_sat::error::GpuError;
use wgpu_sat::glam::{DVec2, Vec2};
#[cfg(feature = "gpu")]
use wgpu_sat::gpu::GpuTimeOfImpact;
use wgpu_sat::{
    Circle, Error, Polygon, Shape, Sweep, Transform, collide_shapes, collision::toi::SweptCollider,
    collision::toi::TimeOfImpact, collision::toi::time_of_impact_pairs,
    collision::toi::toi_tolerance, time_of_impact,
};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn boxed(hw: f32, hh: f32) -> Shape {
    Shape::from(Polygon::rectangle(hw, hh))
}

fn circle(r: f32) -> Shape {
    Shape::from(Circle::new(r).unwrap())
}

fn still(x: f32, y: f32, angle: f32) -> Sweep {
    Sweep::fixed(&Transform::new(v(x, y), angle))
}

/// A sweep about the local origin from `from` to `to`, turning from `a0` to `a1`.
fn moving(from: Vec2, to: Vec2, a0: f32, a1: f32) -> Sweep {
    Sweep {
        local_center: Vec2::ZERO,
        c0: from,
        c1: to,
        a0,
        a1,
    }
}

fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
    (a - b).length() <= tol
}

/// The overlap depth of the pair at fraction `t` of the sweep (0 when apart or touching).
fn depth_at(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, t: f32) -> f32 {
    collide_shapes(a, &sa.transform_at(t), b, &sb.transform_at(t)).map_or(0.0, |m| m.depth)
}

// ---------------------------------------------------------------------------------------
// An independent distance, in f64, from world vertices: not the code under test.

enum Placed {
    Polygon(Vec<DVec2>),
    Circle(DVec2, f64),
}

fn placed(shape: &Shape, x: &Transform) -> Placed {
    match shape {
        Shape::Polygon(p) => Placed::Polygon(common::world_vertices(p, x)),
        Shape::Circle(c) => {
            Placed::Circle(x.transform_point(c.center()).as_dvec2(), c.radius() as f64)
        }
        other => panic!("this test places polygons and circles only, not {other:?}"),
    }
}

fn point_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let u = ((p - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
    (p - (a + u * e)).length()
}

/// Distance from a point to a convex polygon's boundary, negative inside.
fn point_polygon(p: DVec2, poly: &[DVec2]) -> f64 {
    let inside = common::inside_margin(poly, p);
    if inside >= 0.0 {
        return -inside;
    }
    (0..poly.len())
        .map(|i| point_segment(p, poly[i], poly[(i + 1) % poly.len()]))
        .fold(f64::INFINITY, f64::min)
}

/// The distance between two placed shapes when apart, and a non-positive number when they
/// overlap (only its sign is meaningful then).
fn independent_distance(a: &Placed, b: &Placed) -> f64 {
    match (a, b) {
        (Placed::Polygon(p), Placed::Polygon(q)) => {
            if common::brute_force_overlap(p, q).0 {
                return -1.0;
            }
            let mut best = f64::INFINITY;
            for (poly, other) in [(p, q), (q, p)] {
                for &w in other {
                    for i in 0..poly.len() {
                        best = best.min(point_segment(w, poly[i], poly[(i + 1) % poly.len()]));
                    }
                }
            }
            best
        }
        (Placed::Polygon(p), Placed::Circle(c, r)) | (Placed::Circle(c, r), Placed::Polygon(p)) => {
            point_polygon(*c, p) - r
        }
        (Placed::Circle(c, r), Placed::Circle(d, s)) => (*c - *d).length() - r - s,
    }
}

fn distance_at(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, t: f32) -> f64 {
    independent_distance(
        &placed(a, &sa.transform_at(t)),
        &placed(b, &sb.transform_at(t)),
    )
}

// ---------------------------------------------------------------------------------------
// Literature cases.

#[test]
fn a_box_moving_straight_at_a_wall_hits_at_gap_over_speed() {
    // Wall: 0.2 thick at x = 0. Box: 1 x 1 from x = -3 to x = 1 (4 units per step), so its
    // right face (x = -2.5 + 4t) meets the wall's left face (x = -0.1) at t = 2.4 / 4 = 0.6.
    let wall = boxed(0.1, 2.0);
    let block = boxed(0.5, 0.5);
    let sw = still(0.0, 0.0, 0.0);
    let sb = moving(v(-3.0, 0.3), v(1.0, 0.3), 0.0, 0.0);
    let tol = toi_tolerance(&wall, &sw, &block, &sb);
    assert!(tol < 1e-3, "{tol}");

    let hit = time_of_impact(&wall, &sw, &block, &sb).expect("the box hits the wall");
    assert!(hit.t <= 0.6 && hit.t >= 0.6 - tol / 4.0, "{hit:?}");
    assert_eq!(
        hit.normal,
        v(-1.0, 0.0),
        "from the wall to the box, on its left"
    );
    // The gap at t, by hand: 2.4 - 4t.
    let gap = 2.4 - 4.0 * hit.t;
    assert!(
        (hit.separation - gap).abs() < 1e-5 && hit.separation >= 0.0 && hit.separation <= tol,
        "{hit:?}, gap {gap}"
    );

    // The other way round: same time, normal from the box to the wall.
    let back = time_of_impact(&block, &sb, &wall, &sw).unwrap();
    assert!((back.t - hit.t).abs() < 1e-6, "{back:?}");
    assert_eq!(back.normal, v(1.0, 0.0));
}

#[test]
fn rounded_polygons_meet_where_their_grown_surfaces_do() {
    // Two boxes of core half size 0.5 grown by 0.2 (faces at ±0.7), and a circle of radius
    // 0.3: a rounded box from x = -3 moving 4 units meets the rounded box at the origin when
    // its centre reaches x = -1.4 (t = 1.6 / 4), and the circle at x = 5 from the other side
    // when its centre reaches 5 - 1.0 (from x = 1 moving 4 more: t = 3.0 / 4).
    let rounded = Shape::from(Polygon::rectangle(0.5, 0.5).with_radius(0.2).unwrap());
    let ball = circle(0.3);
    let sr = still(0.0, 0.0, 0.0);
    let sb = moving(v(-3.0, 0.1), v(1.0, 0.1), 0.0, 0.0);
    let tol = toi_tolerance(&rounded, &sr, &rounded, &sb);
    let hit = time_of_impact(&rounded, &sr, &rounded, &sb).expect("the boxes meet");
    assert!(hit.t <= 0.4 && hit.t >= 0.4 - tol / 4.0, "{hit:?}");
    assert!(close(hit.normal, v(-1.0, 0.0), 1e-5), "{hit:?}");
    assert!((0.0..=tol).contains(&hit.separation), "{hit:?}");
    let sc = still(5.0, 0.1, 0.0);
    let sm = moving(v(1.0, 0.1), v(5.0, 0.1), 0.0, 0.0);
    let hit = time_of_impact(&ball, &sc, &rounded, &sm).expect("the box meets the ball");
    let tol = toi_tolerance(&ball, &sc, &rounded, &sm);
    assert!(hit.t <= 0.75 && hit.t >= 0.75 - tol / 4.0, "{hit:?}");
    assert!(close(hit.normal, v(-1.0, 0.0), 1e-5), "{hit:?}");
}

#[test]
fn a_box_moving_parallel_past_a_box_misses() {
    // Bottom face of the mover at y = 0.7, top of the other at 0.5: a 0.2 gap all the way.
    let a = boxed(0.5, 0.5);
    let b = boxed(0.5, 0.5);
    let sb = moving(v(-5.0, 1.2), v(5.0, 1.2), 0.0, 0.0);
    assert!(time_of_impact(&a, &still(0.0, 0.0, 0.0), &b, &sb).is_none());
    // The still box spinning a full turn reaches sqrt(0.5) = 0.707 from its centre, short of
    // a mover 1.0 above it: the rotation margins make the swept test inconclusive, and the
    // advancement must still conclude that they miss.
    let spin = moving(Vec2::ZERO, Vec2::ZERO, 0.0, std::f32::consts::TAU);
    let sb = moving(v(-5.0, 1.5), v(5.0, 1.5), 0.0, 0.0);
    assert!(time_of_impact(&a, &spin, &b, &sb).is_none());
    // ... and a mover 0.15 lower is clipped by the spinning corners.
    let sb = moving(v(-5.0, 1.15), v(5.0, 1.15), 0.0, 0.0);
    assert!(time_of_impact(&a, &spin, &b, &sb).is_some());
}

#[test]
fn a_diagonal_approach_meets_the_corner_region_where_the_slab_times_say() {
    // B moves by (-4, -4) from (3, 2.8). Its left face passes A's right face (x = 0.5) at
    // 2.5 - 4t = 0.5, t = 0.5; its bottom passes A's top at 2.3 - 4t = 0.5, t = 0.45. The
    // later slab decides: at t = 0.5 B spans y in [0.3, 1.3], overlapping A's [-0.5, 0.5],
    // so B's left face lands on A's top-right corner: normal +x.
    let a = boxed(0.5, 0.5);
    let b = boxed(0.5, 0.5);
    let sa = still(0.0, 0.0, 0.0);
    let sb = moving(v(3.0, 2.8), v(-1.0, -1.2), 0.0, 0.0);
    let tol = toi_tolerance(&a, &sa, &b, &sb);
    let hit = time_of_impact(&a, &sa, &b, &sb).unwrap();
    assert!(hit.t <= 0.5 && hit.t >= 0.5 - tol / 4.0, "{hit:?}");
    assert!(close(hit.normal, v(1.0, 0.0), 1e-6), "{hit:?}");

    // Exactly corner to corner, along the diagonal from (3, 3): both slabs close at t = 0.5
    // and the corners meet; the normal is the diagonal.
    let sb = moving(v(3.0, 3.0), v(-1.0, -1.0), 0.0, 0.0);
    let hit = time_of_impact(&a, &sa, &b, &sb).unwrap();
    assert!(hit.t <= 0.5 && hit.t >= 0.5 - tol / 4.0, "{hit:?}");
    assert!(close(hit.normal, v(1.0, 1.0).normalize(), 1e-3), "{hit:?}");
    assert!(hit.separation >= 0.0 && hit.separation <= tol, "{hit:?}");
}

#[test]
fn a_box_moving_onto_the_corner_of_a_diamond() {
    // A: a unit square turned 45 degrees, its right corner at (sqrt(0.5), 0). B's left face,
    // x = 2.5 - 4t, reaches that corner at t = (2.5 - sqrt(0.5)) / 4.
    let diamond = boxed(0.5, 0.5);
    let sa = still(0.0, 0.0, std::f32::consts::FRAC_PI_4);
    let b = boxed(0.5, 0.5);
    let sb = moving(v(3.0, 0.2), v(-1.0, 0.2), 0.0, 0.0);
    let tol = toi_tolerance(&diamond, &sa, &b, &sb);
    let expected = (2.5 - 0.5f32.sqrt()) / 4.0;
    let hit = time_of_impact(&diamond, &sa, &b, &sb).unwrap();
    assert!(
        hit.t <= expected + 1e-6 && hit.t >= expected - tol / 4.0,
        "{hit:?} vs {expected}"
    );
    assert!(close(hit.normal, v(1.0, 0.0), 1e-5), "{hit:?}");
}

#[test]
fn shapes_that_already_overlap_hit_at_t_zero_with_a_negative_separation() {
    // Two unit squares 0.75 apart overlap by 0.25 along x, whichever way they then move.
    let a = boxed(0.5, 0.5);
    for to in [v(5.0, 0.0), v(0.75, 0.0), v(-3.0, 2.0)] {
        let sb = moving(v(0.75, 0.0), to, 0.0, 1.0);
        let hit = time_of_impact(&a, &still(0.0, 0.0, 0.0), &a, &sb).unwrap();
        assert_eq!(hit.t, 0.0);
        assert!((hit.separation + 0.25).abs() < 1e-6, "{hit:?}");
        assert_eq!(hit.normal, v(1.0, 0.0));
    }
    // Circles 1 apart with radii 0.75 and 0.5: separation -0.25 along the centre line.
    let sb = moving(v(0.0, 1.0), v(0.0, 3.0), 0.0, 0.0);
    let hit = time_of_impact(&circle(0.75), &still(0.0, 0.0, 0.0), &circle(0.5), &sb).unwrap();
    assert_eq!(hit.t, 0.0);
    assert!((hit.separation + 0.25).abs() < 1e-6, "{hit:?}");
    assert!(close(hit.normal, v(0.0, 1.0), 1e-6), "{hit:?}");
}

#[test]
fn touching_at_the_start_is_a_hit_at_t_zero() {
    let a = boxed(0.5, 0.5);
    let sb = moving(v(1.0, 0.0), v(-1.0, 0.0), 0.0, 0.0);
    let hit = time_of_impact(&a, &still(0.0, 0.0, 0.0), &a, &sb).unwrap();
    assert_eq!(hit.t, 0.0);
    assert_eq!(hit.separation, 0.0);
    assert_eq!(hit.normal, v(1.0, 0.0));
}

#[test]
fn a_small_fast_box_does_not_tunnel_through_a_thin_wall() {
    // A 0.1-unit box moving 5 units per step at a 0.2-thick wall: it starts 2 units to the
    // left and ends 3 units to the right, so neither end of the step overlaps the wall.
    let wall = boxed(0.1, 2.0);
    let bullet = boxed(0.05, 0.05);
    let sw = still(0.0, 0.0, 0.0);
    let sb = moving(v(-2.0, 0.0), v(3.0, 0.0), 0.0, 0.0);
    assert_eq!(depth_at(&wall, &sw, &bullet, &sb, 0.0), 0.0);
    assert_eq!(depth_at(&wall, &sw, &bullet, &sb, 1.0), 0.0);
    let tol = toi_tolerance(&wall, &sw, &bullet, &sb);
    // First touch: the bullet's right face, x = -1.95 + 5t, at the wall's left face, x = -0.1.
    let expected = 1.85 / 5.0;
    let hit = time_of_impact(&wall, &sw, &bullet, &sb).expect("no tunnelling");
    assert!(
        hit.t <= expected && hit.t >= expected - tol / 5.0,
        "{hit:?} vs {expected}"
    );
    assert_eq!(hit.normal, v(-1.0, 0.0));
    // The same with the bullet spinning three turns on its way: still caught, no later than
    // the translating bullet's own contact time, and without overlap before it.
    let spinning = moving(v(-2.0, 0.0), v(3.0, 0.0), 0.0, 6.0 * std::f32::consts::PI);
    let hit = time_of_impact(&wall, &sw, &bullet, &spinning).expect("no tunnelling");
    // A spinning bullet reaches sqrt(2) * 0.05 ahead of its centre at most.
    let earliest = (1.9 - 0.05 * 2f32.sqrt()) / 5.0;
    assert!(
        hit.t >= earliest - 1e-3 && hit.t <= expected,
        "{hit:?}, earliest {earliest}"
    );
    assert!(distance_at(&wall, &sw, &bullet, &spinning, hit.t) >= 0.0);
}

#[test]
fn a_circle_meets_a_box_corner_at_the_root_of_the_quadratic() {
    // A circle of radius 0.3 on the line y = 0.7, moving 6 units to the right, passes 0.2
    // above a unit square's top face, so it strikes the top-left corner (-0.5, 0.5) when
    // (x + 0.5)² + 0.2² = 0.3², x = -3 + 6t: t = (2.5 - sqrt(0.05)) / 6.
    let square = boxed(0.5, 0.5);
    let ball = circle(0.3);
    let sa = still(0.0, 0.0, 0.0);
    let sb = moving(v(-3.0, 0.7), v(3.0, 0.7), 0.0, 0.0);
    let tol = toi_tolerance(&square, &sa, &ball, &sb);
    let root = (2.5 - 0.05f32.sqrt()) / 6.0;
    let hit = time_of_impact(&square, &sa, &ball, &sb).unwrap();
    assert!(hit.t <= root && hit.t >= root - 1e-4, "{hit:?} vs {root}");
    // At t, by hand: the distance from the corner to the centre, less the radius, and the
    // normal along that line.
    let centre = v(-3.0 + 6.0 * hit.t, 0.7);
    let offset = centre - v(-0.5, 0.5);
    let gap = offset.length() - 0.3;
    assert!(gap >= 0.0 && gap <= tol, "gap {gap}, tol {tol}");
    assert!((hit.separation - gap).abs() < 1e-5, "{hit:?}");
    assert!(close(hit.normal, offset.normalize(), 1e-4), "{hit:?}");
    // The circle first, the square second: same time, reversed normal.
    let back = time_of_impact(&ball, &sb, &square, &sa).unwrap();
    assert!((back.t - hit.t).abs() < 1e-6 && close(back.normal, -hit.normal, 1e-6));
    // 0.31 above the face: a miss.
    let sb = moving(v(-3.0, 0.81), v(3.0, 0.81), 0.0, 0.0);
    assert!(time_of_impact(&square, &sa, &ball, &sb).is_none());
}

#[test]
fn two_moving_circles_meet_at_the_root_of_the_quadratic() {
    // A (radius 0.5) moves from the origin to (-2, 0); B (radius 0.25) from (-4, 0.5) to
    // (4, 0.5). Relative to A, B moves from (-4, 0.5) by (10, 0): they touch when
    // (-4 + 10t)² + 0.5² = 0.75², t = (4 - sqrt(0.3125)) / 10.
    let a = circle(0.5);
    let b = circle(0.25);
    let sa = moving(Vec2::ZERO, v(-2.0, 0.0), 0.0, 0.0);
    let sb = moving(v(-4.0, 0.5), v(4.0, 0.5), 0.0, 0.0);
    let tol = toi_tolerance(&a, &sa, &b, &sb);
    let root = (4.0 - 0.3125f32.sqrt()) / 10.0;
    let hit = time_of_impact(&a, &sa, &b, &sb).unwrap();
    assert!(hit.t <= root && hit.t >= root - 1e-4, "{hit:?} vs {root}");
    let offset = v(-4.0 + 10.0 * hit.t, 0.5);
    let gap = offset.length() - 0.75;
    assert!(gap >= 0.0 && gap <= tol && (hit.separation - gap).abs() < 1e-5);
    assert!(close(hit.normal, offset.normalize(), 1e-4), "{hit:?}");
    // Offset 0.8 > 0.75: a miss.
    let sb = moving(v(-4.0, 0.8), v(4.0, 0.8), 0.0, 0.0);
    assert!(time_of_impact(&a, &sa, &b, &sb).is_none());
}

/// Dense sampling of a sweep with `collide_shapes`: the first sampled time that overlaps by
/// more than `tol`, and the deepest overlap sampled before `before`.
fn sample(
    a: &Shape,
    sa: &Sweep,
    b: &Shape,
    sb: &Sweep,
    samples: usize,
    tol: f32,
    before: f32,
) -> (Option<f32>, f32) {
    let mut first = None;
    let mut deepest_before = 0.0f32;
    for k in 0..samples {
        let t = k as f32 / (samples - 1) as f32;
        let depth = depth_at(a, sa, b, sb, t);
        if depth > tol && first.is_none() {
            first = Some(t);
        }
        if t < before {
            deepest_before = deepest_before.max(depth);
        }
    }
    (first, deepest_before)
}

#[test]
fn a_spinning_rod_sweeping_into_a_box_is_caught_conservatively() {
    // A rod 2 long, 0.04 thick, turning half a turn about its middle; a 0.4 box above it,
    // 0.5 to 0.9 up. The rod's right half swings up into the box's lower-right corner
    // (0.2, 0.5) at an angle near atan2(0.5, 0.2) = 1.19 rad, some 38% into the turn.
    let rod = boxed(1.0, 0.02);
    let block = boxed(0.2, 0.2);
    let sr = moving(Vec2::ZERO, Vec2::ZERO, 0.0, std::f32::consts::PI);
    let sb = still(0.0, 0.7, 0.0);
    let tol = toi_tolerance(&rod, &sr, &block, &sb);
    let hit = time_of_impact(&rod, &sr, &block, &sb).expect("the rod hits the box");
    let (first, deepest_before) = sample(&rod, &sr, &block, &sb, 4000, tol, hit.t);
    let first = first.expect("sampling sees the overlap");
    assert!(hit.t <= first, "{hit:?}, first overlap sampled at {first}");
    assert!(
        deepest_before <= tol,
        "overlap {deepest_before} before {hit:?}"
    );
    assert!(
        first - hit.t < 2e-3,
        "{hit:?} is loose: first overlap at {first}"
    );
    assert!((0.3..0.4).contains(&hit.t), "{hit:?}");
    assert!(hit.separation >= 0.0 && hit.separation <= tol, "{hit:?}");

    // The box moved out of reach (its bottom 1.15 above the pivot, the rod reaches sqrt(1 + 0.02²)):
    // sampling sees nothing, and neither does the time of impact.
    let far = still(0.0, 1.35, 0.0);
    assert_eq!(sample(&rod, &sr, &block, &far, 4000, 0.0, 0.0).0, None);
    assert!(time_of_impact(&rod, &sr, &block, &far).is_none());
}

// ---------------------------------------------------------------------------------------
// Properties over random shapes and sweeps.

/// Shapes of size 0.1 to 1.2: circles (a quarter, some off their local origin), thin rods,
/// boxes, and convex polygons of 3 to 8 vertices on ellipses (off the origin too).
fn shape() -> impl Strategy<Value = Shape> {
    shape_of_kind(0u8..8)
}

/// The polygons of [`shape`] only.
fn polygon() -> impl Strategy<Value = Shape> {
    shape_of_kind(2u8..8)
}

fn shape_of_kind(kinds: std::ops::Range<u8>) -> impl Strategy<Value = Shape> {
    (
        3usize..=8,
        prop::collection::vec(0.0f32..std::f32::consts::TAU, 8),
        0.1f32..1.2,
        0.1f32..1.2,
        kinds,
        -0.3f32..0.3,
        -0.3f32..0.3,
    )
        .prop_filter_map(
            "degenerate outline",
            |(n, mut angles, sx, sy, kind, cx, cy)| match kind {
                0 | 1 => Circle::with_center(v(cx, cy), sx).ok().map(Shape::from),
                2 => Some(Shape::from(Polygon::rectangle(
                    sx,
                    sy.min(sx * 0.1).max(0.02),
                ))),
                3 => Some(Shape::from(Polygon::rectangle(sx, sy))),
                _ => {
                    angles.truncate(n);
                    angles.sort_by(f32::total_cmp);
                    let points: Vec<Vec2> = angles
                        .iter()
                        .map(|&a| Vec2::from_angle(a) * v(sx, sy) + v(cx, cy))
                        .collect();
                    Polygon::new(&points).ok().map(Shape::from)
                }
            },
        )
}

/// A sweep starting within 3 units of the origin, moving up to 6 units and turning up to
/// 1.5 turns either way (a quarter of them not turning, a quarter not moving).
fn sweep() -> impl Strategy<Value = Sweep> {
    (
        (-3.0f32..3.0, -3.0f32..3.0),
        (-6.0f32..6.0, -6.0f32..6.0),
        -std::f32::consts::PI..std::f32::consts::PI,
        -9.5f32..9.5,
        (-0.3f32..0.3, -0.3f32..0.3),
        0u8..4,
    )
        .prop_map(|((x, y), (dx, dy), a0, turn, (lx, ly), kind)| {
            let c0 = v(x, y);
            let (dx, dy, turn) = match kind {
                0 => (dx, dy, 0.0),
                1 => (0.0, 0.0, turn),
                _ => (dx, dy, turn),
            };
            Sweep {
                local_center: v(lx, ly),
                c0,
                c1: c0 + v(dx, dy),
                a0,
                a1: a0 + turn,
            }
        })
}

fn check_sampled(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep) -> Result<(), TestCaseError> {
    let tol = toi_tolerance(a, sa, b, sb);
    let hit = time_of_impact(a, sa, b, sb);
    let before = hit.map_or(2.0, |h| h.t);
    let (first, deepest_before) = sample(a, sa, b, sb, 200, tol, before);
    if let Some(first) = first {
        let hit = hit.ok_or_else(|| {
            TestCaseError::fail(format!("overlap sampled at {first}, but no hit reported"))
        })?;
        prop_assert!(hit.t <= first, "{hit:?}, overlap sampled at {first}");
    }
    prop_assert!(
        deepest_before <= tol,
        "overlap {deepest_before} sampled before {hit:?}"
    );
    if let Some(h) = hit {
        prop_assert!((0.0..=1.0).contains(&h.t), "{h:?}");
        prop_assert!((h.normal.length() - 1.0).abs() < 1e-5, "{h:?}");
        let d = distance_at(a, sa, b, sb, h.t);
        if h.t > 0.0 {
            // Apart at t, and as far apart as reported (an f64 distance from world
            // vertices): within the tolerance, unless the iteration cap was reached.
            prop_assert!(h.separation >= 0.0, "{h:?}");
            prop_assert!(d >= -1e-6, "{h:?}: overlap {d} at t");
            prop_assert!(
                (d - h.separation as f64).abs() < 1e-4,
                "{h:?}: distance {d}"
            );
        } else {
            prop_assert!(h.separation <= tol, "{h:?}");
            prop_assert!(d <= tol as f64 + 1e-5, "{h:?}: distance {d}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config {
        cases: 3000,
        rng_seed: RngSeed::Fixed(0x70e),
        failure_persistence: None,
        ..Config::default()
    })]

    /// Sampling the sweep 200 times with `collide_shapes`: a sample that overlaps by more
    /// than the tolerance means a hit no later than it, and no sample before the hit
    /// overlaps.
    #[test]
    fn a_sampled_overlap_is_never_missed_nor_preceded(
        a in shape(), b in shape(), sa in sweep(), sb in sweep()
    ) {
        check_sampled(&a, &sa, &b, &sb)?;
    }

    /// Pure translation of two polygons: the swept SAT is exact, so the hit is within the
    /// tolerance of the first touching time, which bisection of an f64 overlap test finds.
    #[test]
    fn translating_polygons_hit_at_the_first_touching_time(
        a in polygon(), b in polygon(), sa in sweep(), sb in sweep()
    ) {
        let sa = Sweep { a1: sa.a0, ..sa };
        let sb = Sweep { a1: sb.a0, ..sb };
        let overlapping = |t: f32| distance_at(&a, &sa, &b, &sb, t) <= 0.0;
        let hit = time_of_impact(&a, &sa, &b, &sb);
        // The first overlapping time by sampling, then bisection.
        let first = (0..=1000).map(|k| k as f32 / 1000.0).find(|&t| overlapping(t));
        match (first, hit) {
            (None, _) => {}
            (Some(first), None) => {
                prop_assert!(false, "overlap from {first}, but no hit");
            }
            (Some(first), Some(h)) => {
                let (mut lo, mut hi) = ((first - 1e-3).max(0.0), first);
                if overlapping(lo) { hi = lo; }
                for _ in 0..30 {
                    let mid = 0.5 * (lo + hi);
                    if overlapping(mid) { hi = mid; } else { lo = mid; }
                }
                let speed = (sb.c1 - sb.c0 - (sa.c1 - sa.c0)).length();
                let tol = toi_tolerance(&a, &sa, &b, &sb);
                prop_assert!(h.t <= hi + 1e-6, "{h:?}, touching at {hi}");
                // Within the tolerance of the contact: the distance at t is at most tol, and
                // the time it takes to close it is bounded by that over the approach speed
                // along the normal (exact for a face contact under translation).
                let approach = -h.normal.dot(sb.c1 - sb.c0 - (sa.c1 - sa.c0));
                prop_assert!(h.separation <= tol, "{h:?}");
                if approach > 0.05 * speed && h.t > 0.0 {
                    prop_assert!(hi - h.t <= (tol + 1e-5) / approach + 1e-5,
                        "{h:?}, touching at {hi}, approach {approach}");
                }
            }
        }
    }

    /// Swapping A and B swaps nothing but the normal's sign.
    #[test]
    fn swapping_the_shapes_reverses_the_normal(
        a in shape(), b in shape(), sa in sweep(), sb in sweep()
    ) {
        let ab = time_of_impact(&a, &sa, &b, &sb);
        let ba = time_of_impact(&b, &sb, &a, &sa);
        let tol = toi_tolerance(&a, &sa, &b, &sb);
        match (ab, ba) {
            (Some(x), Some(y)) => {
                // Both are conservative and within the tolerance of contact.
                prop_assert!((x.t - y.t).abs() < 2e-3 || x.t.min(y.t) == 0.0, "{x:?} {y:?}");
                if x.separation.max(y.separation) <= tol && (x.t - y.t).abs() < 1e-4 {
                    prop_assert!(close(x.normal, -y.normal, 0.05), "{x:?} {y:?}");
                }
            }
            (None, None) => {}
            // Grazing: one side stops within the tolerance, the other passes.
            (Some(x), None) | (None, Some(x)) => {
                prop_assert!(x.separation >= 0.0 && x.separation <= tol, "{x:?}");
            }
        }
    }
}

/// Over many random pairs: how often the iteration cap is reached (then the separation
/// exceeds the tolerance), and that hits are common enough for the properties to bite.
#[test]
fn the_iteration_cap_is_rare_on_random_sweeps() {
    let mut runner = proptest::test_runner::TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(0xcab),
        ..Config::default()
    });
    let strategy = (shape(), shape(), sweep(), sweep());
    let (mut hits, mut capped, mut at_zero) = (0, 0, 0);
    let n = 20_000;
    for _ in 0..n {
        let (a, b, sa, sb) = strategy.new_tree(&mut runner).unwrap().current();
        if let Some(h) = time_of_impact(&a, &sa, &b, &sb) {
            hits += 1;
            at_zero += (h.t == 0.0) as usize;
            if h.separation > toi_tolerance(&a, &sa, &b, &sb) {
                capped += 1;
            }
        }
    }
    eprintln!("{n} pairs: {hits} hits ({at_zero} at t = 0), {capped} reached the cap");
    assert!(
        hits > n / 5 && hits - at_zero > n / 10,
        "{hits} hits, {at_zero} at 0"
    );
    assert!(
        capped * 100 <= hits,
        "{capped} of {hits} hits reached the cap"
    );
}

// ---------------------------------------------------------------------------------------
// Batches, validation, and the GPU.

fn shape_table(rng: &mut impl Rng) -> Vec<Shape> {
    let mut shapes: Vec<Shape> = (0..24)
        .map(|_| {
            let size = rng.random_range(0.15..1.0);
            Shape::from(common::random_polygon(rng, size))
        })
        .collect();
    for _ in 0..8 {
        let c = v(rng.random_range(-0.2..0.2), rng.random_range(-0.2..0.2));
        shapes.push(Shape::from(
            Circle::with_center(c, rng.random_range(0.1..0.8)).unwrap(),
        ));
    }
    // A thin wall and a bullet.
    shapes.push(boxed(0.05, 2.0));
    shapes.push(boxed(0.05, 0.05));
    shapes
}

/// `count` swept colliders in a 10 x 10 area moving up to 6 units and turning up to a turn
/// and a half, and `pairs` random pairs among them (a third of them in fixed poses).
fn random_sweeps(
    rng: &mut impl Rng,
    shapes: usize,
    count: usize,
    pairs: usize,
) -> (Vec<SweptCollider>, Vec<[u32; 2]>) {
    let sweeps: Vec<SweptCollider> = (0..count)
        .map(|_| {
            let c0 = v(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
            let a0 = rng.random_range(-3.0..3.0);
            let sweep = if rng.random_bool(0.33) {
                Sweep::fixed(&Transform::new(c0, a0))
            } else {
                let turn = if rng.random_bool(0.3) {
                    0.0
                } else {
                    rng.random_range(-9.5..9.5)
                };
                Sweep {
                    local_center: v(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3)),
                    c0,
                    c1: c0 + v(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0)),
                    a0,
                    a1: a0 + turn,
                }
            };
            SweptCollider {
                shape: rng.random_range(0..shapes as u32),
                sweep,
            }
        })
        .collect();
    let pairs = (0..pairs)
        .map(|_| {
            loop {
                let i = rng.random_range(0..count as u32);
                let j = rng.random_range(0..count as u32);
                if i != j {
                    break [i, j];
                }
            }
        })
        .collect();
    (sweeps, pairs)
}

/// The pairs whose swept bounding boxes overlap, the way a continuous-collision pass would
/// find them: each box bounds the shape at nine times of the step, grown by the most a
/// point can stray between two of them (a tenth of the turn times the sweep radius, plus a
/// tenth of the move). Each pair's order is swapped at random.
#[cfg(feature = "gpu")]
fn swept_pairs(rng: &mut impl Rng, shapes: &[Shape], sweeps: &[SweptCollider]) -> Vec<[u32; 2]> {
    let aabbs: Vec<wgpu_sat::Aabb> = sweeps
        .iter()
        .map(|c| {
            let shape = &shapes[c.shape as usize];
            let s = &c.sweep;
            let mut min = Vec2::splat(f32::INFINITY);
            let mut max = Vec2::splat(f32::NEG_INFINITY);
            for k in 0..=8 {
                let b = shape.aabb(&s.transform_at(k as f32 / 8.0));
                min = min.min(b.min);
                max = max.max(b.max);
            }
            let reach =
                (shape.bounding_radius() + (shape.centroid() - s.local_center).length()) * 2.0;
            let grow = 0.125 * ((s.a1 - s.a0).abs() * reach + (s.c1 - s.c0).length());
            wgpu_sat::Aabb::new(min - Vec2::splat(grow), max + Vec2::splat(grow))
        })
        .collect();
    wgpu_sat::BroadPhase::new()
        .find_pairs(&aabbs)
        .iter()
        .map(|&[a, b]| if rng.random_bool(0.5) { [a, b] } else { [b, a] })
        .collect()
}

#[test]
fn the_cpu_batch_matches_pair_by_pair_calls() {
    let mut rng = common::rng(5);
    let shapes = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, shapes.len(), 200, 2000);
    let batch = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
    assert_eq!(batch.len(), pairs.len());
    for (&[i, j], got) in pairs.iter().zip(&batch) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let expected = time_of_impact(
            &shapes[a.shape as usize],
            &a.sweep,
            &shapes[b.shape as usize],
            &b.sweep,
        );
        assert_eq!(*got, expected);
    }
    assert!(batch.iter().filter(|h| h.is_some()).count() > 100);
}

/// A backend's batch call: the CPU function or the GPU pass.
type Backend<'a> =
    dyn FnMut(&[SweptCollider], &[[u32; 2]]) -> Result<Vec<Option<TimeOfImpact>>, Error> + 'a;

/// Every bad input, with its specific error naming the item; `run` is either backend.
fn check_bad_inputs(shapes: &[Shape], run: &mut Backend<'_>) {
    assert_eq!(shapes.len(), 2);
    let good = vec![
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::IDENTITY),
        },
        SweptCollider {
            shape: 1,
            sweep: moving(v(-3.0, 0.0), v(3.0, 0.0), 0.0, 1.0),
        },
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::new(v(0.0, 10.0), 0.0)),
        },
    ];
    let pairs = [[0, 1], [1, 2], [2, 0]];

    let e = run(&good, &[[0, 1], [2, 3]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::PairIndexOutOfRange {
                pair: 1,
                index: 3,
                collider_count: 3
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("pair 1"), "{e}");

    let e = run(&good, &[[0, 1], [2, 2]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::SelfPair {
                pair: 1,
                collider: 2
            })
        ),
        "{e:?}"
    );

    let mut bad = good.clone();
    bad[2].shape = 5;
    let e = run(&bad, &pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider: 2,
                shape: 5,
                shape_count: 2
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("collider 2"), "{e}");

    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for sweep in [
        Sweep {
            c0: v(nan, 0.0),
            ..good[1].sweep
        },
        Sweep {
            c1: v(0.0, inf),
            ..good[1].sweep
        },
        Sweep {
            local_center: v(nan, 0.0),
            ..good[1].sweep
        },
        Sweep {
            a0: nan,
            ..good[1].sweep
        },
        Sweep {
            a1: -inf,
            ..good[1].sweep
        },
    ] {
        let mut bad = good.clone();
        bad[1].sweep = sweep;
        let e = run(&bad, &pairs).unwrap_err();
        assert!(
            matches!(e, Error::Batch(BatchError::NonFiniteSweep { collider: 1 })),
            "{sweep:?}: {e:?}"
        );
        assert!(e.to_string().contains("collider 1"), "{e}");
    }

    // Still works: the mover hits the box at the origin and nothing else.
    let hits = run(&good, &pairs).unwrap();
    assert!(
        hits[0].is_some() && hits[1].is_none() && hits[2].is_none(),
        "{hits:?}"
    );
    assert!(run(&good, &[]).unwrap().is_empty());
}

fn two_shapes() -> Vec<Shape> {
    vec![boxed(0.5, 0.5), circle(0.25)]
}

#[test]
fn bad_input_is_an_error_naming_the_item_on_the_cpu() {
    let shapes = two_shapes();
    check_bad_inputs(&shapes, &mut |s, p| time_of_impact_pairs(&shapes, s, p));
}

#[cfg(feature = "gpu")]
#[test]
fn bad_input_is_an_error_naming_the_item_on_the_gpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = two_shapes();
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    check_bad_inputs(&shapes, &mut |s, p| gpu.time_of_impact_pairs(s, p));
}

/// How a GPU result compares with the CPU's.
#[cfg(feature = "gpu")]
#[derive(Default, Debug)]
struct Parity {
    pairs: usize,
    hits: usize,
    /// One side hits and the other does not.
    disagree: usize,
    /// Both hit, `t` more than 1e-4 apart. Rare, and expected: when a distance lands within
    /// rounding of the tolerance, one side stops there and the other takes one more safe
    /// step, of about `(tol / 2) / approach`, long when the approach along the normal is slow.
    t_apart: usize,
    /// Both hit, normals more than 1e-3 apart.
    normal_apart: usize,
    max_t_difference: f32,
    max_normal_difference: f32,
}

#[cfg(feature = "gpu")]
impl Parity {
    /// At most one pair in 1,000 hit on one side only (grazing pairs, which `compare` has
    /// checked), and at most one hit in 200 with `t` or the normal apart.
    fn assert_close(&self) {
        assert!(self.disagree * 1000 <= self.pairs, "{self:?}");
        assert!(self.t_apart * 200 <= self.hits, "{self:?}");
        assert!(self.normal_apart * 200 <= self.hits, "{self:?}");
    }
}

#[cfg(feature = "gpu")]
fn compare(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    cpu: &[Option<TimeOfImpact>],
    gpu: &[Option<TimeOfImpact>],
) -> Parity {
    assert_eq!(cpu.len(), gpu.len());
    let mut p = Parity {
        pairs: pairs.len(),
        ..Parity::default()
    };
    for ((&[i, j], c), g) in pairs.iter().zip(cpu).zip(gpu) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let (sa, sb) = (&shapes[a.shape as usize], &shapes[b.shape as usize]);
        let tol = toi_tolerance(sa, &a.sweep, sb, &b.sweep);
        match (c, g) {
            (Some(c), Some(g)) => {
                p.hits += 1;
                let dt = (c.t - g.t).abs();
                let dn = (c.normal - g.normal).length();
                p.max_t_difference = p.max_t_difference.max(dt);
                p.max_normal_difference = p.max_normal_difference.max(dn);
                p.t_apart += (dt > 1e-4) as usize;
                p.normal_apart += (dn > 1e-3) as usize;
                // Whatever the rounding, both stay conservative: within the tolerance, or
                // short of it after the iteration cap.
                assert!(g.t >= 0.0 && g.t <= 1.0, "pair [{i}, {j}]: gpu {g:?}");
                assert!(
                    (c.separation - g.separation).abs() <= tol.max(1e-5)
                        || c.separation > tol
                        || g.separation > tol,
                    "pair [{i}, {j}]: cpu {c:?} gpu {g:?}"
                );
            }
            (None, None) => {}
            (Some(h), None) | (None, Some(h)) => {
                // Allowed only for grazing pairs: the side that hits stops within the
                // tolerance, at a point the other side passed at least `target` away.
                p.disagree += 1;
                assert!(
                    h.separation >= 0.0 && h.separation <= tol,
                    "pair [{i}, {j}]: cpu {c:?} gpu {g:?}"
                );
            }
        }
    }
    p
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_matches_the_cpu_on_random_swept_pairs() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut rng = common::rng(11);
    let shapes = shape_table(&mut rng);
    let (sweeps, _) = random_sweeps(&mut rng, shapes.len(), 700, 0);
    let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
    assert!(pairs.len() > 5000, "{} pairs", pairs.len());
    let p = cpu_against_gpu(&device, &queue, &shapes, &sweeps, &pairs);
    assert!(p.hits > 2000, "too few hits to compare: {p:?}");
    // Grazing pairs only, and few of them.
    p.assert_close();
}

/// Runs the batch through `time_of_impact_pairs` on the CPU and `GpuTimeOfImpact`, and
/// compares the two.
#[cfg(feature = "gpu")]
fn cpu_against_gpu(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
) -> Parity {
    let cpu = time_of_impact_pairs(shapes, sweeps, pairs).unwrap();
    let mut gpu = GpuTimeOfImpact::new(device, queue).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    let got = gpu.time_of_impact_pairs(sweeps, pairs).unwrap();
    let p = compare(shapes, sweeps, pairs, &cpu, &got);
    eprintln!("{p:?}");
    p
}

/// Per kind of the pair's shapes (`common::SHAPE_KINDS`), how many of `pairs` hit on both
/// sides: a pair counts for both its kinds.
#[cfg(feature = "gpu")]
fn hits_by_kind(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    cpu: &[Option<TimeOfImpact>],
    gpu: &[Option<TimeOfImpact>],
) -> [usize; 6] {
    let mut hits = [0; 6];
    for ((pair, c), g) in pairs.iter().zip(cpu).zip(gpu) {
        if c.is_some() && g.is_some() {
            for &k in pair {
                hits[common::shape_kind(&shapes[sweeps[k as usize].shape as usize])] += 1;
            }
        }
    }
    hits
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_matches_the_cpu_on_swept_pairs_of_every_kind_of_shape() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // Six shapes of each kind (sharp and rounded polygons, circles, capsules, segments, chain
    // links), swept pairs near the origin and far from it.
    let mut rng = common::rng(15);
    let shapes: Vec<Shape> = (0..36)
        .map(|i| common::random_shape_of_kind(&mut rng, i % 6))
        .collect();
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    for shift in [Vec2::ZERO, v(1000.0, -700.0)] {
        let (mut sweeps, _) = random_sweeps(&mut rng, shapes.len(), 700, 0);
        let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
        for s in &mut sweeps {
            s.sweep.c0 += shift;
            s.sweep.c1 += shift;
        }
        assert!(pairs.len() > 5000, "{} pairs", pairs.len());
        let cpu = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
        let got = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
        // `compare` asserts that both sides stay conservative on every pair, and that a pair
        // only one side hits is a grazing one (within the tolerance where it hits).
        let p = compare(&shapes, &sweeps, &pairs, &cpu, &got);
        let by_kind = hits_by_kind(&shapes, &sweeps, &pairs, &cpu, &got);
        eprintln!("shifted by {shift}: {p:?}, hits by kind {by_kind:?}");
        for (kind, &n) in common::SHAPE_KINDS.iter().zip(&by_kind) {
            assert!(n > 200, "only {n} hits with a {kind}: {by_kind:?}");
        }
        p.assert_close();
    }
}

#[cfg(feature = "gpu")]
#[test]
fn far_from_the_origin_the_gpu_still_matches() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut rng = common::rng(12);
    let shapes = shape_table(&mut rng);
    let (mut sweeps, _) = random_sweeps(&mut rng, shapes.len(), 500, 0);
    let pairs = swept_pairs(&mut rng, &shapes, &sweeps);
    for s in &mut sweeps {
        let shift = v(1000.0, -700.0);
        s.sweep.c0 += shift;
        s.sweep.c1 += shift;
    }
    let p = cpu_against_gpu(&device, &queue, &shapes, &sweeps, &pairs);
    assert!(p.hits > 500, "{p:?}");
    assert!(p.disagree * 200 <= p.pairs, "{p:?}");
    assert!(p.t_apart * 100 <= p.hits, "{p:?}");
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_literature_cases_and_warm_calls() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let shapes = vec![
        boxed(0.1, 2.0),
        boxed(0.05, 0.05),
        circle(0.3),
        boxed(0.5, 0.5),
    ];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: still(0.0, 0.0, 0.0),
        },
        SweptCollider {
            shape: 1,
            sweep: moving(v(-2.0, 0.0), v(3.0, 0.0), 0.0, 0.0),
        },
        SweptCollider {
            shape: 3,
            sweep: still(5.0, 0.0, 0.0),
        },
        SweptCollider {
            shape: 2,
            sweep: moving(v(2.0, 0.7), v(8.0, 0.7), 0.0, 0.0),
        },
    ];
    // The bullet and the wall (t = 1.85 / 5); the circle and the box at (5, 0) (the
    // corner root, shifted: t = (2.5 - sqrt(0.05)) / 6); the bullet and the far box: none.
    let pairs = [[0, 1], [2, 3], [1, 2]];
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let hits = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let wall = hits[0].expect("bullet hits the wall");
    assert!(wall.t <= 0.37 && wall.t > 0.37 - 1e-4, "{wall:?}");
    assert!(close(wall.normal, v(-1.0, 0.0), 1e-6), "{wall:?}");
    let corner = hits[1].expect("circle hits the corner");
    let root = (2.5 - 0.05f32.sqrt()) / 6.0;
    assert!(
        corner.t <= root + 1e-6 && corner.t > root - 1e-4,
        "{corner:?}"
    );
    assert!(hits[2].is_none(), "{hits:?}");

    // Warm calls reuse every buffer; the same table set again uploads nothing new.
    let mut rng = common::rng(13);
    let table = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, table.len(), 300, 3000);
    gpu.set_shape_table(&table).unwrap();
    gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let warm = gpu.buffers_created();
    let mut out = Vec::new();
    for n in [3000, 2000, 100, 2999] {
        gpu.set_shape_table(&table).unwrap();
        gpu.time_of_impact_pairs_into(&sweeps, &pairs[..n], &mut out)
            .unwrap();
        assert_eq!(out.len(), n);
        let cpu = time_of_impact_pairs(&table, &sweeps, &pairs[..n]).unwrap();
        let p = compare(&table, &sweeps, &pairs[..n], &cpu, &out);
        assert!(p.disagree * 100 <= n, "{p:?}");
    }
    assert_eq!(gpu.buffers_created(), warm, "a warm call created buffers");
}

#[cfg(feature = "gpu")]
#[test]
fn a_batch_larger_than_one_dispatch_is_split_and_keeps_pair_order() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let mut rng = common::rng(14);
    let shapes = shape_table(&mut rng);
    let (sweeps, pairs) = random_sweeps(&mut rng, shapes.len(), 1_500, 18_000);
    let mut gpu = GpuTimeOfImpact::new(&device, &queue).unwrap();
    gpu.set_shape_table(&shapes).unwrap();
    let per_dispatch = gpu.max_pairs();
    assert!(
        pairs.len() > 4 * per_dispatch,
        "{} pairs, {per_dispatch} per dispatch: the batch must need several dispatches",
        pairs.len()
    );
    let cpu = time_of_impact_pairs(&shapes, &sweeps, &pairs).unwrap();
    let got = gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap();
    let p = compare(&shapes, &sweeps, &pairs, &cpu, &got);
    eprintln!("{per_dispatch} pairs per dispatch: {p:?}");
    // Hits in every dispatch, so a result out of its place would show.
    for (k, chunk) in cpu.chunks(per_dispatch).enumerate() {
        assert!(
            chunk.iter().filter(|h| h.is_some()).count() > chunk.len() / 50,
            "dispatch {k} has too few hits to check the order"
        );
    }
    p.assert_close();

    // A bad pair in a later dispatch is still named by its place in the whole batch.
    let mut bad = pairs.clone();
    bad[3 * per_dispatch + 5] = [0, 9_999];
    let e = gpu.time_of_impact_pairs(&sweeps, &bad).unwrap_err();
    assert!(
        matches!(e, Error::Batch(BatchError::PairIndexOutOfRange { pair, index: 9_999, .. })
            if pair == 3 * per_dispatch + 5),
        "{e:?}"
    );

    // What cannot be split is still refused: more swept colliders than one binding holds.
    let (many, few_pairs) = random_sweeps(&mut rng, shapes.len(), 2_000, 100);
    let e = gpu.time_of_impact_pairs(&many, &few_pairs).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::TooLarge {
                what: "swept colliders",
                count: 2_000,
                max: 1_638
            })
        ),
        "{e:?}"
    );
    // And it stays usable.
    assert_eq!(gpu.time_of_impact_pairs(&sweeps, &pairs).unwrap(), got);
}
