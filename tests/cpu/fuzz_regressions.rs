//! Inputs the fuzz harness (`cargo run --example fuzz`) found breaking a promise, each kept
//! as the concrete input that failed before its fix. The comment above each test names the
//! harness target and what it reported.

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Circle, Polygon, Shape, Sweep, Transform, collide, collide_shapes,
    collision::toi::toi_tolerance, time_of_impact,
};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn assert_unit(n: Vec2, what: &str) {
    assert!(
        n.is_finite() && (n.length() - 1.0).abs() <= 1e-6,
        "{what}: {n} has length {}",
        n.length()
    );
}

/// collide: a rotation pair near f32::MAX squared to inf, and the "finite" transform had a
/// zero rotation (not rigid); a pair near 1e-22 squared to subnormals and came out 1e-1
/// off unit length.
#[test]
fn from_rotation_of_a_huge_or_tiny_pair_is_rigid() {
    for rotation in [
        v(3e38, 3e38),
        v(-3.4028235e38, 1.0),
        v(1e-22, 1e-22),
        v(1e-30, -3e-31),
    ] {
        let x = Transform::from_rotation(Vec2::ZERO, rotation);
        assert!(x.is_finite(), "{rotation}: {x:?}");
        assert_unit(x.rotation(), &format!("from_rotation({rotation})"));
        let expected = rotation.as_dvec2().normalize();
        assert!(
            (x.rotation().as_dvec2() - expected).length() < 1e-6,
            "{x:?}"
        );
    }
    // The documented non-finite cases stay non-finite.
    assert!(!Transform::from_rotation(Vec2::ZERO, Vec2::ZERO).is_finite());
    assert!(!Transform::from_rotation(Vec2::ZERO, v(f32::INFINITY, 1.0)).is_finite());
}

/// collide (seed 1, input 538): a circle whose centre, placed, lies beyond f32::MAX gave a
/// manifold of depth inf and NaN points.
#[test]
fn a_contact_beyond_f32_range_is_none_not_infinite() {
    let circle = Shape::Circle(Circle::with_center(v(3.4028235e38, 7.064163), 3.711723).unwrap());
    let circle_at =
        Transform::from_rotation(v(-3.4028235e38, 1.4334406e17), v(-0.97060424, -0.24068122));
    let plank = Shape::Polygon(Polygon::rectangle(0.7177798, 0.13210346));
    let plank_at = Transform::from_rotation(Vec2::ZERO, v(0.7709463, 0.6369001));
    let m = collide_shapes(&circle, &circle_at, &plank, &plank_at);
    assert!(m.is_none(), "{m:?}");

    // Two polygons whose overlap lies past f32::MAX in the world frame.
    let big = Polygon::rectangle(1e38, 1e38);
    let m = collide(
        &big,
        &Transform::new(v(3e38, 0.0), 0.0),
        &big,
        &Transform::new(v(3.2e38, 0.0), 0.0),
    );
    if let Some(m) = m {
        assert!(
            m.depth.is_finite() && m.points().iter().all(|p| p.point.is_finite()),
            "{m:?}"
        );
    }
}

/// shapes: a regular octagon of radius 1e37 had area and polar moment NaN (inf - inf in
/// the cross products); they are inf, the true values being beyond f32.
#[test]
fn area_of_a_huge_polygon_is_infinite_not_nan() {
    let p = Polygon::regular(8, 1e37).unwrap();
    assert_eq!(p.area(), f32::INFINITY);
    assert_eq!(p.polar_moment(), f32::INFINITY);
    // Where f32 holds the area, it is right.
    let p = Polygon::regular(8, 1e18).unwrap();
    let expected = 2.0 * 2f64.sqrt() * 1e36;
    assert!(
        (f64::from(p.area()) - expected).abs() < 1e-5 * expected,
        "{}",
        p.area()
    );
    assert!(p.polar_moment().is_infinite());
}

/// shapes: `Polygon::rectangle` panicked on the smallest subnormal half sizes (finite,
/// positive and square, so not a documented panic): halving them in f32 rounded the four
/// corners onto one point.
#[test]
fn rectangle_of_the_smallest_subnormals_does_not_panic() {
    let tiny = f32::from_bits(1);
    let p = Polygon::rectangle(tiny, tiny);
    assert_eq!(p.vertices().len(), 4);
    for n in p.normals() {
        assert_unit(*n, "normal");
    }
    let p = Polygon::rectangle(f32::from_bits(3), f32::from_bits(2));
    assert_eq!(p.vertices().len(), 4);
}

/// collide (seed 1, input 92371): two circles 4e-23 apart, whose offset squares to a
/// subnormal: the normal came out 1.15 long.
#[test]
fn tiny_circles_meet_along_a_unit_normal() {
    let a = Shape::Circle(Circle::new(5.708013e-23).unwrap());
    let b = Shape::Circle(Circle::new(1.0398236e-38).unwrap());
    let m = collide_shapes(
        &a,
        &Transform::new(Vec2::ZERO, 2.8269),
        &b,
        &Transform::new(v(-1.0364723e-24, 4.3035464e-23), 0.5),
    )
    .expect("the small circle's centre is inside the other");
    assert_unit(m.normal, "circle normal");
    assert!(m.depth > 0.0 && m.depth.is_finite(), "{m:?}");
}

/// collide (seed 1, input 4680): a time of impact between a circle of radius 1e-21 and one
/// 4e-22 away had a normal 1e-3 off unit length (a distance from a subnormal square).
#[test]
fn time_of_impact_of_tiny_offsets_has_a_unit_normal() {
    let a = Shape::Circle(Circle::new(1.1084202e-21).unwrap());
    let b = Shape::Circle(Circle::new(3.0316317).unwrap());
    let sa = Sweep::fixed(&Transform::new(Vec2::ZERO, 2.6095982));
    let sb = Sweep::fixed(&Transform::new(v(4.1765967e-22, -1.598993e-22), -1.4246433));
    let hit = time_of_impact(&a, &sa, &b, &sb).expect("they overlap at the start");
    assert_eq!(hit.t, 0.0);
    assert_unit(hit.normal, "toi normal");
}

/// collide (seed 1, input 9): a sweep with an infinite local centre and a centre at
/// f32::MAX "hit" at t = 0 with a zero normal and a separation of 1.8e19.
#[test]
fn a_sweep_that_is_not_finite_has_no_time_of_impact() {
    let a = Shape::Polygon(Polygon::rectangle(0.5, 0.5));
    let sa = Sweep {
        local_center: Vec2::ZERO,
        c0: Vec2::ZERO,
        c1: v(0.81460285, -2.530785),
        a0: 2.4637218,
        a1: 3.6742196,
    };
    let sb = Sweep {
        local_center: v(f32::INFINITY, -1.1070423),
        c0: v(1.0, 0.0),
        c1: v(-9.909362, 3.4028235e38),
        a0: 7.0,
        a1: 2.552682,
    };
    assert_eq!(time_of_impact(&a, &sa, &a, &sb), None);
    let nan = Sweep { a1: f32::NAN, ..sa };
    assert_eq!(
        time_of_impact(&a, &nan, &a, &Sweep::fixed(&Transform::IDENTITY)),
        None
    );
}

/// collide (seed 1, input 1): a circle centred at f32::MAX in its local frame, turning 8
/// radians: the rotation margin overflowed, and the "hit" had a zero normal and an infinite
/// separation. A motion beyond f32's range cannot be swept: None.
#[test]
fn a_motion_beyond_f32_range_has_no_time_of_impact() {
    let a = Shape::Circle(Circle::with_center(v(4.148775, -2.4797435), 7.433518e-39).unwrap());
    let b = Shape::Circle(Circle::with_center(v(3.4028235e38, -1.6554508), 3.262458).unwrap());
    let sa = Sweep {
        local_center: Vec2::ZERO,
        c0: v(2.906981, -2.380453),
        c1: v(5.9619136, 1.7560387),
        a0: -1.7080948,
        a1: -10.059815,
    };
    let sb = Sweep {
        local_center: Vec2::ZERO,
        c0: v(1.7328911, -2.3087664),
        c1: v(-2.7165632, -2.2290382),
        a0: -1.0204623,
        a1: -8.988876,
    };
    let hit = time_of_impact(&a, &sa, &b, &sb);
    assert!(
        hit.is_none_or(|h| h.normal.is_finite() && h.separation.is_finite()),
        "{hit:?}"
    );
}

/// collide (seed 1, input 7247): a box starting at an angle of -27,336,612 radians, where
/// f32 angles are 2 radians apart, so its pose jumped instead of turning and the sweep
/// stopped at t = 5e-7 with the shapes 0.066 deep in each other.
#[test]
fn a_sweep_from_a_huge_start_angle_stops_before_overlap() {
    let ball = Shape::Circle(Circle::new(0.89271224).unwrap());
    let square = Shape::Polygon(Polygon::rectangle(0.5, 0.5));
    let sa = Sweep {
        local_center: Vec2::ZERO,
        c0: Vec2::ZERO,
        c1: Vec2::ZERO,
        a0: -2.841413,
        a1: -2.841413,
    };
    let sb = Sweep {
        local_center: v(4.110628, -9.286489),
        c0: v(8.603495, 7.7666893),
        c1: v(-4.760874e-5, -1.7329674),
        a0: -27336612.0,
        a1: 4.027009,
    };
    let tol = toi_tolerance(&ball, &sa, &square, &sb);
    if let Some(hit) = time_of_impact(&ball, &sa, &square, &sb) {
        assert!(
            hit.t == 0.0 || hit.separation >= -tol,
            "{hit:?}, tolerance {tol}"
        );
        assert_unit(hit.normal, "toi normal");
    }
}

/// collide (seed 1, input 171721): two bodies falling together to y = -3.4e38 in one step:
/// their relative displacement is small, but their poses at `t` are rounded to 1e31, and
/// the tolerance (which covered only the relative displacement) did not admit it, so the
/// result was 2.7 deep at t = 0.18. The tolerance now grows with each body's own
/// displacement.
#[test]
fn bodies_moving_together_far_stay_within_the_tolerance() {
    let heptagon = Shape::Polygon(Polygon::regular(7, 2.6934745).unwrap());
    let square = Shape::Polygon(Polygon::rectangle(0.5, 0.5));
    let sa = Sweep {
        local_center: v(6.728771, 4.028535),
        c0: v(-5.1198597, -1.9630983e-18),
        c1: v(5.4616007e-13, -3.4028235e38),
        a0: 1.5800714,
        a1: 2.9576569,
    };
    let sb = Sweep {
        local_center: v(2.8796842e-20, 7.0),
        c0: v(0.16342354, 2.0),
        c1: v(9.555266e-39, -3.4028235e38),
        a0: 4.0,
        a1: -2.0,
    };
    let tol = toi_tolerance(&heptagon, &sa, &square, &sb);
    if let Some(hit) = time_of_impact(&heptagon, &sa, &square, &sb) {
        assert!(
            hit.t == 0.0 || hit.separation >= -tol,
            "{hit:?}, tolerance {tol}"
        );
    }
}

/// `--replay world:1:191`: a static body whose only piece is a circle of radius 6e-45 has an
/// area that rounds to zero, so its area-weighted centre was 0 / 0 and its pose and box NaN.
#[test]
fn a_static_body_of_zero_area_has_a_finite_pose() {
    let mut world = wgpu_sat::World::default();
    let speck = wgpu_sat::Circle::new(6e-45).unwrap();
    let body = world
        .add_body(&wgpu_sat::BodyDef {
            angle: -0.89,
            ..wgpu_sat::BodyDef::fixed(speck, v(-1.74, 18.9))
        })
        .unwrap();
    let t = world.transform(body);
    assert!(t.translation().is_finite(), "{t:?}");
    assert!((t.translation() - v(-1.74, 18.9)).length() < 1e-6);
    let aabb = world.body_aabb(body);
    assert!(aabb.min.is_finite() && aabb.max.is_finite(), "{aabb:?}");
    world
        .step(1.0 / 60.0, &mut wgpu_sat::CpuNarrowPhase::new())
        .unwrap();
    assert!(world.transform(body).translation().is_finite());
}

/// `--replay collide:1:196152`: a circle 13 units from its sweep's centre of rotation, both
/// about 3.4e38 from the shape's origin. The pose at t, c(t) - R(t)·local_center, keeps no
/// precision at that size, and the result overlapped by 2.3 at t = 0.24 against a tolerance
/// of 1.9e-4 that ignored the lever. The tolerance now counts it: a result stays within the
/// tolerance of touching, or there is none.
#[test]
fn a_sweep_about_a_centre_far_from_the_shape_origin_keeps_its_promise() {
    let a = Shape::from(Circle::with_center(v(-3.4028235e38, 4.532387), 2.2990456).unwrap());
    let b = Shape::from(Polygon::regular(5, 3.0577574e-27).unwrap());
    let sweep_a = Sweep {
        local_center: v(-3.4028235e38, -8.436866),
        c0: v(6.109865, 4.061264e-39),
        c1: v(3.382162, 1.0),
        a0: -6.094606,
        a1: 1.42e-43,
    };
    let sweep_b = Sweep {
        local_center: v(0.0, 0.0),
        c0: v(0.0, 0.0),
        c1: v(0.0, 0.0),
        a0: -2.3561945,
        a1: -2.3561945,
    };
    let tolerance = toi_tolerance(&a, &sweep_a, &b, &sweep_b);
    if let Some(hit) = time_of_impact(&a, &sweep_a, &b, &sweep_b) {
        assert_unit(hit.normal, "normal");
        if hit.t > 0.0 {
            let overlap = collide_shapes(
                &a,
                &sweep_a.transform_at(hit.t),
                &b,
                &sweep_b.transform_at(hit.t),
            )
            .map_or(0.0, |m| m.depth);
            assert!(
                overlap <= tolerance,
                "{overlap} deep at t = {}, tolerance {tolerance}",
                hit.t
            );
        }
    }
}

/// `--replay world:2:98384`: a dynamic body of nine pieces deep inside a static circle 2e11
/// across (the size is accepted: under `MAX_COORDINATE`). Its contact points lie halfway
/// between the surfaces, 1e11 from the body, and the solver's levers that long turned its
/// spin times the lever into infinity within one pass: after an `Ok` step its spin was NaN
/// and its position 1e26. The solver now holds a lever within the body's reach.
#[test]
fn a_body_deep_inside_a_huge_circle_stays_finite() {
    let mut world = wgpu_sat::World::new(v(8.14, -3.85));
    world.set_max_linear_speed(125.6).unwrap();
    let huge = wgpu_sat::Circle::new(1.977_792_4e11).unwrap();
    world
        .add_body(&wgpu_sat::BodyDef::fixed(huge, v(1.95, 11.21)))
        .unwrap();
    // Nine pieces, as the fuzzer's concave body had: a 3 x 3 grid of small boxes.
    let mut pieces = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            let offset = v(i as f32 - 1.0, j as f32 - 1.0) * 0.5;
            let square = [
                v(-0.25, -0.25),
                v(0.25, -0.25),
                v(0.25, 0.25),
                v(-0.25, 0.25),
            ];
            let piece = Polygon::new(&square.map(|p| p + offset)).unwrap();
            pieces.push(Shape::Polygon(piece));
        }
    }
    let body = world
        .add_body(&wgpu_sat::BodyDef {
            angle: 0.67,
            linear_velocity: v(-17.8, -3.9),
            density: 8.4,
            ..wgpu_sat::BodyDef::dynamic(
                wgpu_sat::BodyShape::compound(pieces).unwrap(),
                v(13.4, 15.8),
            )
        })
        .unwrap();
    let mut narrow = wgpu_sat::CpuNarrowPhase::new();
    for step in 0..30 {
        world.step(0.076, &mut narrow).unwrap();
        let (t, w) = (world.transform(body), world.angular_velocity(body));
        assert!(
            t.translation().is_finite() && t.rotation().is_finite() && w.is_finite(),
            "step {step}: {t:?}, spin {w}"
        );
        let speed = world.linear_velocity(body).length();
        assert!(speed <= 125.6 * 1.001, "step {step}: speed {speed}");
    }
}
