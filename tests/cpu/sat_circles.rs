//! The CPU reference for circles (`collide_shapes` with a circle on either side, and
//! `collide_circles`): literature cases with hand-derived expectations, then property tests
//! against the exact f64 distance from the circle's centre to the other shape.

use crate::common;

use common::strategies::{circle, polygon, transform};
use common::{closest_point, signed_distance, world_center, world_vertices};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{
    Circle, Manifold, Polygon, Shape, Transform, collide_shapes, collision::CIRCLE_FEATURE,
    collision::collide_circle_polygon, collision::collide_circles,
    collision::collide_polygon_circle, collision::feature_id,
};

/// The flip bit of a feature id (see `feature_id`).
const FLIP: u32 = 1 << 24;

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn at(x: f32, y: f32, angle: f32) -> Transform {
    Transform::new(v(x, y), angle)
}

fn ball(radius: f32) -> Circle {
    Circle::new(radius).unwrap()
}

/// The index of the polygon's face with outward normal `n` (local frame).
fn face(p: &Polygon, n: Vec2) -> usize {
    p.normals()
        .iter()
        .position(|m| (*m - n).length() < 1e-6)
        .unwrap_or_else(|| panic!("no face with normal {n}"))
}

/// The index of the polygon's vertex at `at` (local frame).
fn vertex(p: &Polygon, at: Vec2) -> usize {
    p.vertices()
        .iter()
        .position(|w| (*w - at).length() < 1e-6 * at.length().max(1.0))
        .unwrap_or_else(|| panic!("no vertex at {at}"))
}

/// What a single-point manifold should be.
struct Expected {
    normal: Vec2,
    depth: f32,
    point: Vec2,
    id: u32,
}

/// Checks `collide_shapes(a, b)` against `e` within `tol` (relative to the depth for the
/// depth, absolute for the normal and, scaled by `size`, for the point), then the reversed
/// call: normal negated, same depth and point, id differing in the flip bit alone (or not at
/// all for two circles, which have no reference face).
fn check(a: &Shape, ta: &Transform, b: &Shape, tb: &Transform, e: &Expected, size: f32) {
    let tol = 1e-5;
    let m = collide_shapes(a, ta, b, tb).expect("the shapes overlap");
    let check_one = |m: &Manifold, normal: Vec2| {
        assert!(
            (m.normal - normal).length() <= tol,
            "normal {} expected {normal}: {m:?}",
            m.normal
        );
        assert!(
            (m.depth - e.depth).abs() <= tol * e.depth,
            "depth {} expected {}: {m:?}",
            m.depth,
            e.depth
        );
        assert_eq!(m.points().len(), 1, "{m:?}");
        let p = m.points()[0];
        assert!(
            (p.point - e.point).length() <= tol * size,
            "point {} expected {}: {m:?}",
            p.point,
            e.point
        );
        assert_eq!(p.depth, m.depth, "{m:?}");
    };
    check_one(&m, e.normal);
    assert_eq!(
        m.points()[0].id,
        e.id,
        "id {:#x} expected {:#x}",
        m.points()[0].id,
        e.id
    );
    let r = collide_shapes(b, tb, a, ta).expect("the reversed shapes overlap");
    check_one(&r, -e.normal);
    let circles = matches!((a, b), (Shape::Circle(_), Shape::Circle(_)));
    let flip = if circles { 0 } else { FLIP };
    assert_eq!(
        r.points()[0].id ^ m.points()[0].id,
        flip,
        "ids {:#x} and {:#x}",
        m.points()[0].id,
        r.points()[0].id
    );
}

/// A transform that puts the local point `local` at the world point `world`, turned by
/// `angle`.
fn placing(local: Vec2, world: Vec2, angle: f32) -> Transform {
    Transform::new(world - Vec2::from_angle(angle).rotate(local), angle)
}

#[test]
fn circle_resting_on_a_box_face() {
    // A ball of radius 0.5 sunk 0.1 into the top face (y = 0.5) of a 4 x 1 ground box.
    let ground = Polygon::rectangle(2.0, 0.5);
    let top = face(&ground, Vec2::Y);
    let e = Expected {
        normal: Vec2::Y,
        depth: 0.1,
        // Halfway between the ball's lowest point (0.3, 0.4) and the face.
        point: v(0.3, 0.45),
        id: feature_id(false, top, CIRCLE_FEATURE, 0),
    };
    let (g, b) = (Shape::from(ground), Shape::from(ball(0.5)));
    check(&g, &Transform::IDENTITY, &b, &at(0.3, 0.9, 1.0), &e, 1.0);

    // The same scene turned by 0.7 rad about the origin and moved to (3, -2).
    let turn = Transform::new(v(3.0, -2.0), 0.7);
    let e = Expected {
        normal: turn.rotate(Vec2::Y),
        depth: 0.1,
        point: turn.transform_point(v(0.3, 0.45)),
        id: e.id,
    };
    let ball_at = Transform::new(turn.transform_point(v(0.3, 0.9)), -2.0);
    check(&g, &turn, &b, &ball_at, &e, 1.0);
}

#[test]
fn circle_in_a_vertex_voronoi_region() {
    // Box corner (1, 1); the centre (1.3, 1.4) is 0.5 away along (0.6, 0.8), outside both
    // face slabs. Radius 0.6: depth 0.1 along the vertex-to-centre axis (the faces would
    // give 0.3 and 0.2).
    let square = Polygon::rectangle(1.0, 1.0);
    let corner = vertex(&square, v(1.0, 1.0));
    let axis = v(0.6, 0.8);
    let e = Expected {
        normal: axis,
        depth: 0.1,
        // Halfway between the corner and the ball's deepest point: corner - 0.05 axis.
        point: v(1.0, 1.0) - 0.05 * axis,
        id: feature_id(false, corner, CIRCLE_FEATURE, 1),
    };
    let s = Shape::from(square);
    check(
        &s,
        &Transform::IDENTITY,
        &Shape::from(ball(0.6)),
        &at(1.3, 1.4, 0.0),
        &e,
        1.0,
    );

    // Rotated and moved, with a circle whose centre is off its local origin.
    let turn = Transform::new(v(-4.0, 2.5), -2.2);
    let off = Circle::with_center(v(0.2, -0.1), 0.6).unwrap();
    let off_at = placing(off.center(), turn.transform_point(v(1.3, 1.4)), 0.9);
    let e = Expected {
        normal: turn.rotate(axis),
        depth: 0.1,
        point: turn.transform_point(v(1.0, 1.0) - 0.05 * axis),
        id: e.id,
    };
    check(&s, &turn, &Shape::from(off), &off_at, &e, 1.0);
}

#[test]
fn circle_centre_inside_the_polygon_takes_the_deepest_face() {
    // Inside a 2 x 2 box, the centre (0.7, 0.2) is 0.3 from the right face, 0.8 from the top.
    // Radius 0.5: depth 0.3 + 0.5 along +x; the ball's deepest point is (0.2, 0.2), 0.8
    // behind the face, so the point is halfway: (0.6, 0.2).
    let square = Polygon::rectangle(1.0, 1.0);
    let e = Expected {
        normal: Vec2::X,
        depth: 0.8,
        point: v(0.6, 0.2),
        id: feature_id(false, face(&square, Vec2::X), CIRCLE_FEATURE, 0),
    };
    check(
        &Shape::from(square),
        &Transform::IDENTITY,
        &Shape::from(ball(0.5)),
        &at(0.7, 0.2, 0.0),
        &e,
        1.0,
    );

    // The 3-4-5 right triangle; its hypotenuse lies on 3x + 4y = 12 (normal (0.6, 0.8)).
    let triangle = Polygon::new(&[v(0.0, 0.0), v(4.0, 0.0), v(0.0, 3.0)]).unwrap();
    let t = Shape::from(triangle);
    // Centre (1, 0.5): 0.5 above the bottom, 1 from the left side, 1.4 from the hypotenuse.
    // Radius 0.25: depth 0.75 along -y; deepest point (1, 0.75), halfway point (1, 0.375).
    let e = Expected {
        normal: -Vec2::Y,
        depth: 0.75,
        point: v(1.0, 0.375),
        id: feature_id(false, face(&triangle, -Vec2::Y), CIRCLE_FEATURE, 0),
    };
    check(
        &t,
        &Transform::IDENTITY,
        &Shape::from(ball(0.25)),
        &at(1.0, 0.5, 0.0),
        &e,
        4.0,
    );
    // Centre (2.5, 1): 0.1 below the hypotenuse. Depth 0.35 along (0.6, 0.8); deepest point
    // (2.35, 0.8), halfway point 0.175 further along the normal: (2.455, 0.94).
    let hypotenuse = v(0.6, 0.8);
    let e = Expected {
        normal: hypotenuse,
        depth: 0.35,
        point: v(2.455, 0.94),
        id: feature_id(false, face(&triangle, hypotenuse), CIRCLE_FEATURE, 0),
    };
    check(
        &t,
        &Transform::IDENTITY,
        &Shape::from(ball(0.25)),
        &at(2.5, 1.0, 0.0),
        &e,
        4.0,
    );
}

#[test]
fn circle_centre_exactly_on_a_vertex() {
    // The vertex-to-centre axis has no direction; the two faces meeting at the corner give
    // the same depth, the radius. Either may win, and the point is then r/2 inside that face.
    let square = Polygon::rectangle(1.0, 1.0);
    let s = Shape::from(square);
    let r = 0.25;
    let m = collide_shapes(
        &s,
        &Transform::IDENTITY,
        &Shape::from(ball(r)),
        &at(1.0, 1.0, 0.0),
    )
    .unwrap();
    assert!((m.depth - r).abs() <= 1e-6, "{m:?}");
    assert!(m.normal == Vec2::X || m.normal == Vec2::Y, "{m:?}");
    let p = m.points()[0];
    assert!(
        (p.point - (v(1.0, 1.0) - 0.5 * r * m.normal)).length() <= 1e-6,
        "{m:?}"
    );
    assert_eq!(
        p.id,
        feature_id(false, face(&square, m.normal), CIRCLE_FEATURE, 0)
    );

    // Turned, the centre lands on the corner only up to rounding; the answer barely moves.
    let turn = Transform::new(v(10.0, -3.0), 1.1);
    let m = collide_shapes(
        &s,
        &turn,
        &Shape::from(ball(r)),
        &Transform::new(turn.transform_point(v(1.0, 1.0)), 0.0),
    )
    .unwrap();
    assert!((m.depth - r).abs() <= 1e-5, "{m:?}");
    let local = turn.inverse_rotate(m.normal);
    assert!(
        local.x >= -1e-5 && local.y >= -1e-5,
        "normal out of the corner's cone: {m:?}"
    );

    // A hair outside along the diagonal, the vertex axis takes over: depth r - |offset|.
    let d = 0.01;
    let e = Expected {
        normal: v(1.0, 1.0).normalize(),
        depth: r - d * std::f32::consts::SQRT_2,
        point: v(1.0, 1.0) - 0.5 * (r - d * std::f32::consts::SQRT_2) * v(1.0, 1.0).normalize(),
        id: feature_id(false, vertex(&square, v(1.0, 1.0)), CIRCLE_FEATURE, 1),
    };
    check(
        &s,
        &Transform::IDENTITY,
        &Shape::from(ball(r)),
        &at(1.0 + d, 1.0 + d, 0.0),
        &e,
        1.0,
    );
}

#[test]
fn rolling_over_a_corner_the_normal_turns_smoothly() {
    // A ball of radius 0.5 whose centre runs 0.4 above the top face of a 2 x 2 box, across
    // the corner (1, 1): the normal turns from the face's (0, 1) towards the corner's axis
    // without a jump, and the depth is 0.5 minus the distance to the box throughout.
    let square = Shape::from(Polygon::rectangle(1.0, 1.0));
    let b = Shape::from(ball(0.5));
    let step = 1e-4;
    let mut last: Option<Vec2> = None;
    for k in -100..=100 {
        let u = k as f32 * step;
        let m = collide_shapes(&square, &Transform::IDENTITY, &b, &at(1.0 + u, 1.4, 0.0)).unwrap();
        let distance = if u > 0.0 {
            (u * u + 0.16f32).sqrt()
        } else {
            0.4
        };
        let expected = if u > 0.0 {
            v(u, 0.4) / distance
        } else {
            Vec2::Y
        };
        assert!((m.normal - expected).length() <= 1e-5, "u {u}: {m:?}");
        assert!((m.depth - (0.5 - distance)).abs() <= 1e-6, "u {u}: {m:?}");
        if let Some(last) = last {
            // The axis turns by about step / 0.4 per step.
            assert!(
                (m.normal - last).length() <= 1.5 * step / 0.4,
                "u {u}: {m:?}"
            );
        }
        last = Some(m.normal);
    }
}

#[test]
fn circle_touching_a_polygon_does_not_collide() {
    let ground = Shape::from(Polygon::rectangle(2.0, 0.5));
    let ball = |r| Shape::from(ball(r));
    let id = Transform::IDENTITY;
    // On the top face (y = 0.5).
    assert!(collide_shapes(&ground, &id, &ball(0.5), &at(0.3, 1.0, 0.0)).is_none());
    assert!(collide_shapes(&ball(0.5), &at(0.3, 1.0, 0.0), &ground, &id).is_none());
    assert!(collide_shapes(&ground, &id, &ball(0.5), &at(0.3, 0.9999, 0.0)).is_some());
    // On the corner (2, 0.5), from (0.375, 0.5) away: 0.625 exactly, all in binary fractions.
    let r = 0.625;
    assert!(collide_shapes(&ground, &id, &ball(r), &at(2.375, 1.0, 0.0)).is_none());
    assert!(collide_shapes(&ball(r), &at(2.375, 1.0, 0.0), &ground, &id).is_none());
    assert!(collide_shapes(&ground, &id, &ball(r), &at(2.3749, 0.9999, 0.0)).is_some());
    // Touching the corner of boxes at Pythagorean offsets scaled by powers of two: every
    // coordinate and the distance are exact in f32. (Computed as the difference of two
    // projections as large as the box, rounding made some of these overlap by 2e-7.)
    for (a, b, c) in [
        (3.0, 4.0, 5.0),
        (5.0, 12.0, 13.0),
        (8.0, 15.0, 17.0),
        (12.0, 5.0, 13.0),
    ] {
        for scale in [0.0625f32, 0.25, 0.5, 1.0, 2.0] {
            for (w, h) in [(1.0f32, 1.0f32), (2.0, 0.5), (0.75, 1.25), (1.5, 0.25)] {
                let boxed = Shape::from(Polygon::rectangle(w, h));
                let centre = at(w + a * scale, h + b * scale, 0.0);
                let r = c * scale;
                assert!(
                    collide_shapes(&boxed, &id, &ball(r), &centre).is_none(),
                    "box {w} x {h}, offset ({a}, {b}) x {scale}"
                );
                let m = collide_shapes(&boxed, &id, &ball(r * (1.0 + 1e-5)), &centre).unwrap();
                assert!((m.depth - 1e-5 * r).abs() <= 2e-7 * r, "{m:?}");
            }
        }
    }
    // Well apart, beyond a face and beyond a corner.
    assert!(collide_shapes(&ground, &id, &ball(0.5), &at(0.0, -1.5, 0.0)).is_none());
    assert!(collide_shapes(&ground, &id, &ball(0.5), &at(2.4, 0.9, 0.0)).is_none());
}

#[test]
fn circles_overlapping_touching_separated_and_concentric() {
    // Radii 0.75 and 0.5; centres (0.375, 0.5) apart: distance 0.625, along (0.6, 0.8).
    let (a, b) = (ball(0.75), ball(0.5));
    let (sa, sb) = (Shape::from(a), Shape::from(b));
    let axis = v(0.6, 0.8);
    let e = Expected {
        normal: axis,
        depth: 0.625,
        // A's surface at 0.75 along the axis, B's at 0.625 - 0.5 = 0.125: halfway 0.4375.
        point: 0.4375 * axis,
        id: feature_id(false, CIRCLE_FEATURE, CIRCLE_FEATURE, 0),
    };
    check(&sa, &at(0.0, 0.0, 1.0), &sb, &at(0.375, 0.5, -0.3), &e, 1.0);

    // The same with both centres off their local origins and turned frames.
    let oa = Circle::with_center(v(0.5, 0.0), 0.75).unwrap();
    let ob = Circle::with_center(v(0.0, -0.25), 0.5).unwrap();
    let ta = placing(oa.center(), v(1.0, 1.5), std::f32::consts::FRAC_PI_2);
    let tb = placing(ob.center(), v(1.375, 2.0), 2.5);
    let e = Expected {
        point: v(1.0, 1.5) + 0.4375 * axis,
        ..e
    };
    check(&Shape::from(oa), &ta, &Shape::from(ob), &tb, &e, 1.0);

    // Touching (1.25 = 0.75 + 0.5) and separated.
    let id = Transform::IDENTITY;
    assert!(collide_circles(&a, &id, &b, &at(0.75, 1.0, 0.0)).is_none());
    assert!(collide_circles(&b, &at(0.75, 1.0, 0.0), &a, &id).is_none());
    assert!(collide_circles(&a, &id, &b, &at(0.7499, 1.0, 0.0)).is_some());
    assert!(collide_circles(&a, &id, &b, &at(3.0, 4.0, 0.0)).is_none());

    // Concentric: no preferred direction, so A's local y axis; depth 1.25, and the point
    // halfway between A's surface (0.75 along the normal) and B's far side (-0.5): 0.125.
    let ta = at(2.0, -1.0, 0.4);
    let m = collide_circles(&a, &ta, &b, &at(2.0, -1.0, 3.0)).unwrap();
    let n = ta.rotate(Vec2::Y);
    assert!((m.normal - n).length() <= 1e-6, "{m:?}");
    assert!((m.depth - 1.25).abs() <= 1e-6, "{m:?}");
    assert!((m.points()[0].point - (v(2.0, -1.0) + 0.125 * n)).length() <= 1e-6);
}

#[test]
fn the_named_entry_points_agree_with_the_dispatcher() {
    let square = Polygon::rectangle(1.0, 1.0);
    let b = ball(0.6);
    let (tp, tc) = (at(0.2, -0.1, 0.3), at(1.4, 1.1, 0.0));
    let pc = collide_polygon_circle(&square, &tp, &b, &tc);
    assert!(pc.is_some());
    assert_eq!(pc, collide_shapes(&square.into(), &tp, &b.into(), &tc));
    assert_eq!(
        collide_circle_polygon(&b, &tc, &square, &tp),
        collide_shapes(&b.into(), &tc, &square.into(), &tp)
    );
    assert_eq!(
        collide_circles(&b, &tc, &b, &tp),
        collide_shapes(&b.into(), &tc, &b.into(), &tp)
    );
}

#[test]
fn tiny_and_huge_scales_give_the_same_answers_scaled() {
    for scale in [1e-3f32, 1e3] {
        let ground = Polygon::rectangle(2.0 * scale, 0.5 * scale);
        let e = Expected {
            normal: Vec2::Y,
            depth: 0.1 * scale,
            point: v(0.3, 0.45) * scale,
            id: feature_id(false, face(&ground, Vec2::Y), CIRCLE_FEATURE, 0),
        };
        let far = Transform::new(v(7.0, -3.0) * scale, 0.0);
        let shift = |p: Vec2| p + far.translation();
        let e = Expected {
            point: shift(e.point),
            ..e
        };
        let ball_at = Transform::new(shift(v(0.3, 0.9) * scale), 0.0);
        check(
            &Shape::from(ground),
            &far,
            &Shape::from(ball(0.5 * scale)),
            &ball_at,
            &e,
            scale,
        );

        let square = Polygon::rectangle(scale, scale);
        let axis = v(0.6, 0.8);
        let e = Expected {
            normal: axis,
            depth: 0.1 * scale,
            point: (v(1.0, 1.0) - 0.05 * axis) * scale,
            id: feature_id(false, vertex(&square, v(scale, scale)), CIRCLE_FEATURE, 1),
        };
        check(
            &Shape::from(square),
            &Transform::IDENTITY,
            &Shape::from(ball(0.6 * scale)),
            &at(1.3 * scale, 1.4 * scale, 0.0),
            &e,
            scale,
        );

        let (a, b) = (ball(0.75 * scale), ball(0.5 * scale));
        let e = Expected {
            normal: axis,
            depth: 0.625 * scale,
            point: 0.4375 * scale * axis,
            id: feature_id(false, CIRCLE_FEATURE, CIRCLE_FEATURE, 0),
        };
        check(
            &Shape::from(a),
            &Transform::IDENTITY,
            &Shape::from(b),
            &at(0.375 * scale, 0.5 * scale, 0.0),
            &e,
            scale,
        );
    }
}

// Properties: against the exact (f64) signed distance from the circle's centre to the
// polygon, computed from the f32 world vertices independently of SAT.

/// Verdicts closer than this to touching are left out: f32 rounding of the poses (about
/// 1e-7 of coordinates near 3) decides them.
const RAW_MARGIN: f64 = 1e-5;
/// A step comfortably above f32 rounding at this scale, used to nudge poses.
const NUDGE: f32 = 1e-4;

fn config() -> Config {
    Config {
        cases: 4000,
        rng_seed: RngSeed::Fixed(0xc1c1e),
        failure_persistence: None,
        ..Config::default()
    }
}

fn moved(t: &Transform, by: Vec2) -> Transform {
    Transform::from_rotation(t.translation() + by, t.rotation())
}

/// The polygon's world vertices, the circle's world centre and radius, and the exact signed
/// distance from the centre to the polygon (negative inside).
fn setup(p: &Polygon, tp: &Transform, c: &Circle, tc: &Transform) -> (Vec<DVec2>, DVec2, f64, f64) {
    let wp = world_vertices(p, tp);
    let centre = world_center(c, tc);
    let d = signed_distance(&wp, centre);
    (wp, centre, c.radius() as f64, d)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn polygon_circle_overlap_agrees_with_the_exact_distance(p in polygon(), tp in transform(), c in circle(), tc in transform()) {
        let (_, _, r, d) = setup(&p, &tp, &c, &tc);
        prop_assume!((d - r).abs() > RAW_MARGIN);
        prop_assert_eq!(collide_polygon_circle(&p, &tp, &c, &tc).is_some(), d < r, "distance {} radius {}", d, r);
        prop_assert_eq!(collide_circle_polygon(&c, &tc, &p, &tp).is_some(), d < r);
    }

    #[test]
    fn polygon_circle_depth_is_the_true_penetration(p in polygon(), tp in transform(), c in circle(), tc in transform()) {
        let Some(m) = collide_polygon_circle(&p, &tp, &c, &tc) else { return Ok(()) };
        let (_, _, r, d) = setup(&p, &tp, &c, &tc);
        // The minimum translation: out through the nearest face when the centre is inside
        // (r + its distance to the boundary), away from the nearest point otherwise (r - d).
        let penetration = r - d;
        prop_assert!((m.depth as f64 - penetration).abs() <= 1e-5,
            "depth {} penetration {} (distance {}, radius {})", m.depth, penetration, d, r);
        // Outside, the normal runs from the nearest point of the polygon to the centre.
        if d > 1e-3 {
            let (wp, centre, _, _) = setup(&p, &tp, &c, &tc);
            let axis = (centre - closest_point(&wp, centre)) / d;
            prop_assert!((m.normal.as_dvec2() - axis).length() <= 1e-4, "{:?}, axis {}", m, axis);
        }
        prop_assert!((m.normal.length() - 1.0).abs() < 1e-5);
        prop_assert_eq!(m.points().len(), 1);
    }

    #[test]
    fn moving_the_circle_by_the_mtv_separates_it(p in polygon(), tp in transform(), c in circle(), tc in transform()) {
        let Some(m) = collide_polygon_circle(&p, &tp, &c, &tc) else { return Ok(()) };
        let out = moved(&tc, m.normal * (m.depth + NUDGE));
        let (_, _, r, d) = setup(&p, &tp, &c, &out);
        prop_assert!(d >= r + 0.5 * NUDGE as f64, "distance {} radius {} after the MTV {:?}", d, r, m);
        prop_assert!(collide_polygon_circle(&p, &tp, &c, &out).is_none());
        // Any shorter move along the normal leaves them overlapping.
        let short = m.depth - NUDGE;
        prop_assume!(short > 0.0);
        let part = moved(&tc, m.normal * short);
        let (_, _, r, d) = setup(&p, &tp, &c, &part);
        prop_assert!(d < r, "separated by a move of {} < depth {}", short, m.depth);
        prop_assert!(collide_polygon_circle(&p, &tp, &c, &part).is_some());
    }

    #[test]
    fn the_contact_point_lies_between_the_surfaces(p in polygon(), tp in transform(), c in circle(), tc in transform()) {
        let Some(m) = collide_polygon_circle(&p, &tp, &c, &tc) else { return Ok(()) };
        let (wp, centre, r, _) = setup(&p, &tp, &c, &tc);
        let point = m.points()[0].point.as_dvec2();
        let half = 0.5 * m.depth as f64 + 1e-5;
        // Half the depth from the circle's surface along the normal, and within half the
        // depth of the polygon's boundary (inside it, or beyond a corner by that much).
        prop_assert!((point.distance(centre) - r).abs() <= half, "{:?} from the circle", m);
        prop_assert!(signed_distance(&wp, point).abs() <= half, "{:?} from the polygon", m);
        prop_assert_eq!(m.points()[0].depth, m.depth);
    }

    #[test]
    fn swapping_polygon_and_circle_flips_normal_and_id_only(p in polygon(), tp in transform(), c in circle(), tc in transform()) {
        let pc = collide_shapes(&p.into(), &tp, &c.into(), &tc);
        let cp = collide_shapes(&c.into(), &tc, &p.into(), &tp);
        prop_assert_eq!(pc.is_some(), cp.is_some());
        let (Some(pc), Some(cp)) = (pc, cp) else { return Ok(()) };
        prop_assert_eq!(pc.normal, -cp.normal);
        prop_assert_eq!(pc.depth, cp.depth);
        prop_assert_eq!(pc.points()[0].point, cp.points()[0].point);
        prop_assert_eq!(pc.points()[0].id ^ cp.points()[0].id, FLIP);
    }

    #[test]
    fn circles_agree_with_the_exact_distance(a in circle(), ta in transform(), b in circle(), tb in transform()) {
        let (ca, cb) = (world_center(&a, &ta), world_center(&b, &tb));
        let gap = ca.distance(cb) - (a.radius() + b.radius()) as f64;
        prop_assume!(gap.abs() > RAW_MARGIN);
        let m = collide_circles(&a, &ta, &b, &tb);
        prop_assert_eq!(m.is_some(), gap < 0.0);
        let Some(m) = m else { return Ok(()) };
        prop_assert!((m.depth as f64 + gap).abs() <= 1e-5, "depth {} gap {}", m.depth, gap);
        if ca.distance(cb) > 1e-3 {
            let axis = (cb - ca).normalize();
            prop_assert!((m.normal.as_dvec2() - axis).length() <= 1e-5, "{:?} axis {}", m, axis);
        }
        // Moving B by the MTV separates them, just.
        let out = world_center(&b, &moved(&tb, m.normal * (m.depth + NUDGE)));
        let after = ca.distance(out) - (a.radius() + b.radius()) as f64;
        prop_assert!(after > 0.0 && after < 2.0 * NUDGE as f64, "gap {} after the MTV", after);
        // Swapped: the normal flips, the rest stays.
        let r = collide_circles(&b, &tb, &a, &ta).unwrap();
        prop_assert!((r.depth - m.depth).abs() <= 1e-6 * m.depth.max(1.0));
        if ca.distance(cb) > 1e-3 {
            prop_assert!((r.normal + m.normal).length() <= 1e-5);
        }
        prop_assert_eq!(r.points()[0].id, m.points()[0].id);
    }
}
