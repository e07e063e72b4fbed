//! Capsules, segments, rounded polygons and chains: constructors and their errors, mass
//! properties against closed forms, boxes and point tests, and `collide_shapes` for every
//! pair with one of them, on closed-form cases and against parry2d's contacts.

use std::f32::consts::PI;
use wgpu_sat::error::WorldError;

use parry2d::math::{Pose, Rotation, Vector};
use parry2d::query;
use parry2d::shape::{Capsule as ParryCapsule, ConvexPolygon, RoundShape, Segment as ParrySegment};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::ChainSegment;
use wgpu_sat::{
    BodyDef, BodyShape, Capsule, Circle, CpuNarrowPhase, Error, Polygon, Segment, Shape,
    ShapeError, Transform, World, collide_shapes,
};

fn close(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * (1.0 + b.abs())
}

#[test]
fn bad_input_names_the_value() {
    let e = Capsule::new(Vec2::ONE, Vec2::ONE, 0.5).unwrap_err();
    assert_eq!(e, ShapeError::ZeroLength { x: 1.0, y: 1.0 });
    assert!(e.to_string().contains("(1, 1)"), "{e}");
    for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = Capsule::new(Vec2::ZERO, Vec2::X, radius).unwrap_err();
        assert!(
            matches!(e, ShapeError::InvalidDimension { name: "radius", .. }),
            "{e}"
        );
        assert!(e.to_string().contains(&radius.to_string()), "{e}");
    }
    let e = Capsule::new(Vec2::new(f32::NAN, 0.0), Vec2::X, 1.0).unwrap_err();
    assert!(matches!(e, ShapeError::NotFinite { index: 0, .. }), "{e}");
    assert!(matches!(
        Segment::new(Vec2::X, Vec2::X).unwrap_err(),
        ShapeError::ZeroLength { x: 1.0, y: 0.0 }
    ));
    assert!(matches!(
        Segment::new(Vec2::X, Vec2::new(0.0, f32::INFINITY)).unwrap_err(),
        ShapeError::NotFinite { index: 1, .. }
    ));
    for radius in [-0.5, f32::NAN, f32::INFINITY] {
        let e = Polygon::rectangle(1.0, 1.0)
            .with_radius(radius)
            .unwrap_err();
        assert!(matches!(e, ShapeError::InvalidRadius { .. }), "{e}");
        assert!(e.to_string().contains(&radius.to_string()), "{e}");
    }
    assert_eq!(
        Polygon::rectangle(1.0, 1.0).with_radius(0.0).unwrap(),
        Polygon::rectangle(1.0, 1.0)
    );

    let p = [Vec2::ZERO, Vec2::X, Vec2::X, Vec2::new(2.0, 0.0)];
    assert_eq!(
        BodyShape::chain(&p[..1], false).unwrap_err(),
        ShapeError::TooFewChainPoints { count: 1 }
    );
    assert_eq!(
        BodyShape::chain(&p[..2], true).unwrap_err(),
        ShapeError::TooFewChainPoints { count: 2 }
    );
    assert_eq!(
        BodyShape::chain(&p, false).unwrap_err(),
        ShapeError::RepeatedPoint {
            first: 1,
            second: 2
        }
    );
    let looped = [Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ZERO];
    assert_eq!(
        BodyShape::chain(&looped, true).unwrap_err(),
        ShapeError::RepeatedPoint {
            first: 3,
            second: 0
        }
    );
    let nan = [Vec2::ZERO, Vec2::new(1.0, f32::NAN)];
    assert!(matches!(
        BodyShape::chain(&nan, false).unwrap_err(),
        ShapeError::NotFinite { index: 1, .. }
    ));

    // Shapes without area belong on static bodies.
    let mut world = World::new(Vec2::new(0.0, -10.0));
    let segment = Segment::new(Vec2::ZERO, Vec2::X).unwrap();
    let e = world
        .add_body(&BodyDef::dynamic(segment, Vec2::ZERO))
        .unwrap_err();
    assert!(
        matches!(e, Error::World(WorldError::InvalidBody { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("area"), "{e}");
    let chain = BodyShape::chain(&[Vec2::ZERO, Vec2::X, Vec2::ONE], false).unwrap();
    assert!(
        world
            .add_body(&BodyDef::dynamic(chain.clone(), Vec2::ZERO))
            .is_err()
    );
    assert!(world.add_body(&BodyDef::fixed(chain, Vec2::ZERO)).is_ok());
    assert!(world.add_body(&BodyDef::fixed(segment, Vec2::ZERO)).is_ok());
}

#[test]
fn capsule_mass_properties_are_the_closed_forms() {
    let (length, r) = (3.0f32, 0.7f32);
    let c = Capsule::new(Vec2::new(-1.0, 2.0), Vec2::new(-1.0 + length, 2.0), r).unwrap();
    let shape = Shape::from(c);
    let area = 2.0 * r * length + PI * r * r;
    assert!(close(shape.area(), area, 1e-6), "{} {area}", shape.area());
    assert!((shape.centroid() - Vec2::new(0.5, 2.0)).length() < 1e-6);
    // Rectangle 2r × L about its centre, plus two half discs whose centroids sit
    // 4r / 3π beyond the centres: I = m_r (L² + 4r²) / 12 + m_c (r²/2 + L²/4 + 4 L r / 3π).
    let (m_rect, m_disc) = (2.0 * r * length, PI * r * r);
    let inertia = m_rect * (length * length + 4.0 * r * r) / 12.0
        + m_disc * (r * r / 2.0 + length * length / 4.0 + 4.0 * length * r / (3.0 * PI));
    assert!(
        close(shape.polar_moment(), inertia, 1e-5),
        "{} {inertia}",
        shape.polar_moment()
    );
}

#[test]
fn rounded_polygon_mass_properties_are_the_closed_forms() {
    let (w, h, r) = (1.5f32, 0.5f32, 0.25f32);
    let p = Polygon::rectangle(w, h).with_radius(r).unwrap();
    assert_eq!(p.radius(), r);
    // A box 2w × 2h, four rectangles on its sides and four quarter discs at its corners.
    let area = 4.0 * w * h + r * (4.0 * w + 4.0 * h) + PI * r * r;
    assert!(close(p.area(), area, 1e-6), "{} {area}", p.area());
    assert!(p.centroid().length() < 1e-6);
    let rect = |a: f32, b: f32| a * b * (a * a + b * b) / 12.0; // I of an a × b rectangle
    let quarter_offset = 4.0 * r / (3.0 * PI);
    let quarter_area = PI * r * r / 4.0;
    let quarter_own = quarter_area * r * r / 2.0 - quarter_area * 2.0 * quarter_offset.powi(2);
    let corner = Vec2::new(w + quarter_offset, h + quarter_offset);
    let inertia = rect(2.0 * w, 2.0 * h)
        + 2.0 * (rect(2.0 * w, r) + 2.0 * w * r * (h + r / 2.0).powi(2))
        + 2.0 * (rect(r, 2.0 * h) + 2.0 * h * r * (w + r / 2.0).powi(2))
        + 4.0 * (quarter_own + quarter_area * corner.length_squared());
    assert!(
        close(p.polar_moment(), inertia, 1e-5),
        "{} {inertia}",
        p.polar_moment()
    );

    // A rounded triangle: its centroid moves off the core's towards the longer sides;
    // checked against a fine grid over its box.
    let t = Polygon::new(&[Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 1.0)])
        .unwrap()
        .with_radius(0.5)
        .unwrap();
    let x = Transform::IDENTITY;
    let b = t.aabb(&x);
    let n = 800;
    let (mut count, mut sum) = (0usize, Vec2::ZERO);
    let cell = (b.max - b.min) / n as f32;
    for i in 0..n {
        for j in 0..n {
            let q = b.min + cell * Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
            if t.contains_point(&x, q) {
                count += 1;
                sum += q;
            }
        }
    }
    let grid_area = count as f32 * cell.x * cell.y;
    assert!(close(t.area(), grid_area, 5e-3), "{} {grid_area}", t.area());
    assert!(
        (t.centroid() - sum / count as f32).length() < 5e-3,
        "{}",
        t.centroid()
    );
}

#[test]
fn boxes_and_points_include_the_rounding() {
    let x = Transform::new(Vec2::new(1.0, 2.0), 0.5 * PI);
    let c = Capsule::new(Vec2::ZERO, Vec2::new(2.0, 0.0), 0.5).unwrap();
    let b = Shape::from(c).aabb(&x);
    assert!((b.min - Vec2::new(0.5, 1.5)).length() < 1e-5, "{b:?}");
    assert!((b.max - Vec2::new(1.5, 4.5)).length() < 1e-5, "{b:?}");
    assert!(c.contains_point(&x, Vec2::new(1.45, 4.0)));
    assert!(
        !c.contains_point(&x, Vec2::new(1.45, 4.45)),
        "outside the round end"
    );
    let p = Polygon::rectangle(1.0, 1.0).with_radius(0.5).unwrap();
    let b = p.aabb(&Transform::IDENTITY);
    assert_eq!((b.min, b.max), (Vec2::splat(-1.5), Vec2::splat(1.5)));
    assert!(p.contains_point(&Transform::IDENTITY, Vec2::new(1.3, 1.3)));
    assert!(
        !p.contains_point(&Transform::IDENTITY, Vec2::new(1.4, 1.4)),
        "the corner is round"
    );
    let s = Shape::from(Segment::new(Vec2::ZERO, Vec2::X).unwrap());
    assert!(
        !s.contains_point(&Transform::IDENTITY, Vec2::new(0.5, 0.0)),
        "no inside"
    );
    assert_eq!(s.area(), 0.0);
}

fn at(x: f32, y: f32, angle: f32) -> Transform {
    Transform::new(Vec2::new(x, y), angle)
}

fn capsule(a: Vec2, b: Vec2, r: f32) -> Shape {
    Shape::from(Capsule::new(a, b, r).unwrap())
}

#[test]
fn closed_form_contacts() {
    let ground = Shape::from(Polygon::rectangle(5.0, 0.5));
    // A capsule lying on the ground, 0.1 deep: two points, along +y.
    let lying = capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5);
    let m = collide_shapes(&ground, &Transform::IDENTITY, &lying, &at(0.0, 0.9, 0.0)).unwrap();
    assert!(
        (m.normal - Vec2::Y).length() < 1e-6 && close(m.depth, 0.1, 1e-5),
        "{m:?}"
    );
    assert_eq!(m.points().len(), 2);
    for p in m.points() {
        assert!(
            close(p.depth, 0.1, 1e-5) && (p.point.y - 0.45).abs() < 1e-5,
            "{p:?}"
        );
    }
    // Standing on its end: one point under the round end.
    let m = collide_shapes(
        &ground,
        &Transform::IDENTITY,
        &lying,
        &at(0.0, 1.9, 0.5 * PI),
    )
    .unwrap();
    assert!(
        (m.normal - Vec2::Y).length() < 1e-5 && close(m.depth, 0.1, 1e-4),
        "{m:?}"
    );
    // Two capsules end to end on one line, 0.2 deep: the axis along the line.
    let m = collide_shapes(&lying, &Transform::IDENTITY, &lying, &at(2.8, 0.0, 0.0)).unwrap();
    assert!(
        (m.normal - Vec2::X).length() < 1e-6 && close(m.depth, 0.2, 1e-5),
        "{m:?}"
    );
    assert!(collide_shapes(&lying, &Transform::IDENTITY, &lying, &at(3.1, 0.0, 0.0)).is_none());
    // Crossing at right angles through their middles.
    // Their cores' difference is a 2 × 2 square, grown by r + r: 2.0 deep.
    let m = collide_shapes(
        &lying,
        &Transform::IDENTITY,
        &lying,
        &at(0.0, 0.0, 0.5 * PI),
    )
    .unwrap();
    assert!(close(m.depth, 2.0, 1e-5), "{m:?}");
    // A circle beyond a capsule's end, off its axis: the axis from the end's centre.
    let ball = Shape::from(Circle::new(0.5).unwrap());
    let centre = Vec2::new(1.0, 0.0) + 0.9 * Vec2::new(0.6, 0.8);
    let m = collide_shapes(
        &lying,
        &Transform::IDENTITY,
        &ball,
        &at(centre.x, centre.y, 0.0),
    )
    .unwrap();
    assert!(
        (m.normal - Vec2::new(0.6, 0.8)).length() < 1e-5 && close(m.depth, 0.1, 1e-4),
        "{m:?}"
    );
    // Rounded boxes corner to corner: the rounded normal along the diagonal.
    let rounded = Shape::from(Polygon::rectangle(0.5, 0.5).with_radius(0.25).unwrap());
    let d = 1.0 + 0.45 / std::f32::consts::SQRT_2; // corners 0.45 apart, radii 0.5
    let m = collide_shapes(&rounded, &Transform::IDENTITY, &rounded, &at(d, d, 0.0)).unwrap();
    let diagonal = Vec2::ONE.normalize();
    assert!(
        (m.normal - diagonal).length() < 1e-4 && close(m.depth, 0.05, 1e-3),
        "{m:?}"
    );
    assert!(
        collide_shapes(
            &rounded,
            &Transform::IDENTITY,
            &rounded,
            &at(d + 0.1, d + 0.1, 0.0)
        )
        .is_none()
    );
    // A segment through a box, and a box given first: opposite normals, equal depths.
    let segment = Shape::from(Segment::new(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0)).unwrap());
    let crate_ = Shape::from(Polygon::rectangle(0.5, 0.5));
    let m = collide_shapes(&segment, &Transform::IDENTITY, &crate_, &at(0.0, 0.4, 0.0)).unwrap();
    assert!(
        (m.normal - Vec2::Y).length() < 1e-6 && close(m.depth, 0.1, 1e-5),
        "{m:?}"
    );
    let r = collide_shapes(&crate_, &at(0.0, 0.4, 0.0), &segment, &Transform::IDENTITY).unwrap();
    assert!(
        (r.normal + m.normal).length() < 1e-6 && close(r.depth, m.depth, 1e-6),
        "{r:?}"
    );
}

fn to_parry(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

/// A random shape with area (and a segment now and then), about unit size.
fn random_shape(rng: &mut ChaCha8Rng, segments: bool) -> Shape {
    let kind = rng.random_range(0..if segments { 5 } else { 4 });
    let point =
        |rng: &mut ChaCha8Rng| Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    match kind {
        0 => loop {
            let (a, b) = (point(rng), point(rng));
            if a.distance(b) > 0.2 {
                return capsule(a, b, rng.random_range(0.1..0.6));
            }
        },
        1 | 2 => loop {
            let points: Vec<Vec2> = (0..rng.random_range(3..8)).map(|_| point(rng)).collect();
            if let Ok(p) = Polygon::convex_hull(&points)
                && p.area() > 0.2
            {
                let radius = if kind == 1 {
                    rng.random_range(0.05..0.4)
                } else {
                    0.0
                };
                return Shape::from(p.with_radius(radius).unwrap());
            }
        },
        3 => Shape::from(Circle::with_center(point(rng), rng.random_range(0.2..0.8)).unwrap()),
        _ => loop {
            let (a, b) = (point(rng), point(rng));
            if a.distance(b) > 0.2 {
                return Shape::from(Segment::new(a, b).unwrap());
            }
        },
    }
}

fn parry_contact(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Option<query::Contact> {
    let pose = |x: &Transform| {
        let r = x.rotation();
        Pose::from_parts(
            to_parry(x.translation()),
            Rotation::from_cos_sin_unchecked(r.x, r.y),
        )
    };
    let make = |s: &Shape| -> Box<dyn parry2d::shape::Shape> {
        match s {
            Shape::Capsule(c) => Box::new(ParryCapsule::new(
                to_parry(c.a()),
                to_parry(c.b()),
                c.radius(),
            )),
            Shape::Segment(s) => Box::new(ParrySegment::new(to_parry(s.a()), to_parry(s.b()))),
            // A ball sits at its pose's origin: a capsule of one point stands in for it.
            Shape::Circle(c) => Box::new(ParryCapsule::new(
                to_parry(c.center()),
                to_parry(c.center()),
                c.radius(),
            )),
            Shape::Polygon(p) => {
                let hull = ConvexPolygon::from_convex_polyline(
                    p.vertices().iter().map(|&v| to_parry(v)).collect(),
                )
                .expect("convex");
                if p.radius() > 0.0 {
                    Box::new(RoundShape {
                        inner_shape: hull,
                        border_radius: p.radius(),
                    })
                } else {
                    Box::new(hull)
                }
            }
            Shape::ChainSegment(_) => unreachable!(),
        }
    };
    query::contact(&pose(xa), &*make(a), &pose(xb), &*make(b), 0.0).expect("supported")
}

/// The core's world points and the radius, from the public API.
fn world_core(s: &Shape, x: &Transform) -> (Vec<Vec2>, f32) {
    let (points, radius) = match s {
        Shape::Polygon(p) => (p.vertices().to_vec(), p.radius()),
        Shape::Circle(c) => (vec![c.center()], c.radius()),
        Shape::Capsule(c) => (vec![c.a(), c.b()], c.radius()),
        Shape::Segment(s) => (vec![s.a(), s.b()], 0.0),
        Shape::ChainSegment(l) => (vec![l.segment().a(), l.segment().b()], 0.0),
    };
    (
        points.iter().map(|&p| x.transform_point(p)).collect(),
        radius,
    )
}

/// The depth of the minimum translation by brute force, in f64: the least overlap of the
/// two shapes' projections over 20,000 directions: an upper bound, above the exact value
/// by at most the overlap's slope (the shapes' size, about 2) times the half step of
/// 1.6e-4 rad when the minimum sits at a corner of the overlap as a function of direction.
fn brute_depth(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> f64 {
    let (pa, ra) = world_core(a, xa);
    let (pb, rb) = world_core(b, xb);
    let mut best = f64::INFINITY;
    let steps = 20_000;
    for k in 0..steps {
        let angle = std::f64::consts::TAU * k as f64 / steps as f64;
        let (sin, cos) = angle.sin_cos();
        let project = |p: &Vec2| cos * p.x as f64 + sin * p.y as f64;
        let high_a = pa.iter().map(project).fold(f64::NEG_INFINITY, f64::max) + ra as f64;
        let low_b = pb.iter().map(project).fold(f64::INFINITY, f64::min) - rb as f64;
        best = best.min(high_a - low_b);
    }
    best
}

#[test]
fn agrees_with_parry2d_on_random_rounded_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let (mut overlapping, mut normal_mismatches, mut checked, mut depth_outliers) = (0, 0, 0, 0);
    for _ in 0..4_000 {
        let a = random_shape(&mut rng, true);
        let b = random_shape(&mut rng, !matches!(a, Shape::Segment(_)));
        let xa = at(
            rng.random_range(-0.5..0.5),
            rng.random_range(-0.5..0.5),
            rng.random_range(-PI..PI),
        );
        let xb = at(
            rng.random_range(0.5..2.5),
            rng.random_range(-1.0..1.0),
            rng.random_range(-PI..PI),
        );
        let ours = collide_shapes(&a, &xa, &b, &xb);
        let theirs = parry_contact(&a, &xa, &b, &xb);
        let depth = theirs.map_or(0.0, |c| -c.dist);
        // The rounding band: f32 and the two libraries' tolerances.
        let band = 2e-3;
        if depth > band {
            overlapping += 1;
            let m = ours
                .unwrap_or_else(|| panic!("{a:?} {xa:?} {b:?} {xb:?}: parry2d {depth}, ours none"));
            // The depth against brute force over directions; parry2d's EPA depth is a
            // lower bound that can stop short (its polytope grows inside the Minkowski
            // difference), so it is only counted.
            let exact = brute_depth(&a, &xa, &b, &xb);
            let ok = (f64::from(m.depth) - exact).abs() <= 6e-4;
            assert!(
                ok,
                "{a:?} {xa:?} {b:?} {xb:?}: depth {} vs {exact} (parry2d {depth})",
                m.depth
            );
            if (m.depth - depth).abs() > 2e-3 {
                depth_outliers += 1;
            }
            let n = theirs.unwrap().normal1;
            if m.normal.dot(Vec2::new(n.x, n.y)) < 0.999 {
                normal_mismatches += 1;
            }
            checked += 1;
        } else if depth < -band {
            assert!(
                ours.is_none(),
                "{a:?} {xa:?} {b:?} {xb:?}: apart by {} but {ours:?}",
                -depth
            );
        }
    }
    assert!(overlapping > 800, "{overlapping}");
    eprintln!(
        "{checked} overlapping pairs: {depth_outliers} depths more than 2e-3 from parry2d's, \
         {normal_mismatches} normals more than 2.6° apart"
    );
    assert!(
        depth_outliers * 10 < checked,
        "{depth_outliers} of {checked}"
    );
    // Normals differ only where two axes tie within the depth tolerance.
    assert!(
        normal_mismatches * 20 < checked,
        "{normal_mismatches} of {checked}"
    );
}

#[test]
fn chain_links_are_one_sided_and_give_no_normal_into_a_ghost() {
    // Ground drawn right to left: its free side (the normal) is up.
    let link = ChainSegment::new(
        Vec2::new(2.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 0.0),
        Vec2::new(-1.0, 0.0),
    )
    .unwrap();
    let link = Shape::from(link);
    let crate_ = Shape::from(Polygon::rectangle(0.25, 0.25));
    // Resting on it, 0.01 deep: the face normal, up.
    let m = collide_shapes(&link, &Transform::IDENTITY, &crate_, &at(0.5, 0.24, 0.0)).unwrap();
    assert!(
        (m.normal - Vec2::Y).length() < 1e-6 && close(m.depth, 0.01, 1e-3),
        "{m:?}"
    );
    // Its corner just past the link's end (into the next link's span), barely sideways
    // of the vertex: a plain segment gives the sideways normal, the link its face.
    let edge = at(-0.245, 0.24, 0.0); // 0.005 into the link along it, 0.01 across
    let plain = Shape::from(Segment::new(Vec2::new(1.0, 0.0), Vec2::ZERO).unwrap());
    let m = collide_shapes(&plain, &Transform::IDENTITY, &crate_, &edge).unwrap();
    assert!(
        m.normal.x < -0.9,
        "the plain segment's end pushes sideways: {m:?}"
    );
    let m = collide_shapes(&link, &Transform::IDENTITY, &crate_, &edge).unwrap();
    assert!((m.normal - Vec2::Y).length() < 1e-6, "{m:?}");
    // Given the other way round: the same contact, the normal reversed.
    let r = collide_shapes(&crate_, &edge, &link, &Transform::IDENTITY).unwrap();
    assert!((r.normal + m.normal).length() < 1e-6 && close(r.depth, m.depth, 1e-6));
    // From below (behind the link): nothing.
    assert!(collide_shapes(&link, &Transform::IDENTITY, &crate_, &at(0.5, -0.2, 0.0)).is_none());
}

#[test]
fn a_corner_straight_but_for_rounding_is_straight() {
    // The horizontal test above turned 45 degrees, so that both products of a corner's
    // cross product are large: the next link bends towards the solid side by a sine of
    // 1e-6, which a GPU that fuses one product into the difference can also make of a
    // straight corner (seen on an NVIDIA H200: every contact at such joints dropped).
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let link = ChainSegment::new(
        Vec2::new(2.0 * s, 2.0 * s),
        Vec2::new(s, s),
        Vec2::ZERO,
        Vec2::new(-s, -s - 1e-6),
    )
    .unwrap();
    let (tangent, neighbour) = (Vec2::new(-s, -s), Vec2::new(-s, -s - 1e-6));
    assert!(
        tangent.perp_dot(neighbour) > 0.0,
        "the corner turns, if barely"
    );
    let crate_ = Shape::from(Polygon::rectangle(0.25, 0.25));
    // The box's corner 0.005 short of the joint along the link and 0.01 into it, the box
    // itself past the joint: its normal leans into the next link's region.
    let place = |x: f32, y: f32| Vec2::new(s * x - s * y, s * x + s * y);
    let c = place(-0.245, 0.24);
    let pose = at(c.x, c.y, std::f32::consts::FRAC_PI_4);
    let m = collide_shapes(&Shape::from(link), &Transform::IDENTITY, &crate_, &pose)
        .expect("a straight joint keeps the link's contact");
    let face = place(0.0, 1.0);
    assert!((m.normal - face).length() < 1e-5, "{m:?}");
    assert!(close(m.depth, 0.01, 1e-3), "{m:?}");
}

/// Slides a box at 4 units per second, friction 0, across `ground` (static bodies along
/// y = 0 from x = 0 to 100) and returns the largest |vertical speed| and the slowest
/// horizontal speed seen after it settled.
fn slide(ground: Vec<BodyDef>) -> (f32, f32) {
    let mut world = World::new(Vec2::new(0.0, -10.0));
    for def in &ground {
        world.add_body(def).unwrap();
    }
    let mut def = BodyDef::dynamic(Polygon::rectangle(0.25, 0.25), Vec2::new(2.0, 0.25));
    def.friction = 0.0;
    def.linear_velocity = Vec2::new(4.0, 0.0);
    let body = world.add_body(&def).unwrap();
    let mut narrow = CpuNarrowPhase::default();
    let (mut max_vy, mut min_vx) = (0.0f32, f32::INFINITY);
    for step in 0..600 {
        world.step(1.0 / 60.0, &mut narrow).unwrap();
        if step >= 30 {
            let v = world.linear_velocity(body);
            max_vy = max_vy.max(v.y.abs());
            min_vx = min_vx.min(v.x);
        }
    }
    (max_vy, min_vx)
}

#[test]
fn a_box_slides_across_a_chain_without_a_bump_and_what_tiles_do() {
    let tile = |i: usize| {
        let mut def = BodyDef::fixed(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(i as f32 + 0.5, -0.5),
        );
        def.friction = 0.0;
        def
    };
    let (tiles_vy, tiles_vx) = slide((0..100).map(tile).collect());
    // The same outline as a chain, drawn right to left so that its free side is up.
    let points: Vec<Vec2> = (0..=100).rev().map(|i| Vec2::new(i as f32, 0.0)).collect();
    let mut chain = BodyDef::fixed(BodyShape::chain(&points, false).unwrap(), Vec2::ZERO);
    chain.friction = 0.0;
    let (chain_vy, chain_vx) = slide(vec![chain]);
    eprintln!(
        "tiles: |vy| up to {tiles_vy}, vx down to {tiles_vx}; \
         chain: |vy| up to {chain_vy}, vx down to {chain_vx}"
    );
    assert!(
        chain_vy < 0.05,
        "the box bumped on the chain: |vy| {chain_vy}"
    );
    assert!(chain_vx > 3.9, "the box caught on the chain: vx {chain_vx}");
}
