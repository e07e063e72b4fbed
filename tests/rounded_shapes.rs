//! Capsules, segments, rounded polygons and chains: constructors and their errors, mass
//! properties against closed forms, boxes and point tests, and `collide_shapes` for every
//! pair with one of them, on closed-form cases and against parry2d's contacts.

use std::f32::consts::PI;

use parry2d::math::{Pose, Rotation, Vector};
use parry2d::query;
use parry2d::shape::{
    Ball, Capsule as ParryCapsule, ConvexPolygon, RoundShape, Segment as ParrySegment,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::ChainSegment;
use wgpu_sat::{
    BodyDef, BodyShape, Capsule, Circle, Error, Polygon, Segment, Shape, ShapeError, Transform,
    World, collide_shapes,
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
    assert!(matches!(e, Error::InvalidBody { .. }), "{e}");
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
