//! Polygon construction, validation errors, and point queries.

use crate::common;

use rand::Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, Polygon, ShapeError, Transform};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn signed_area(points: &[Vec2]) -> f32 {
    let n = points.len();
    0.5 * (0..n)
        .map(|i| points[i].perp_dot(points[(i + 1) % n]))
        .sum::<f32>()
}

/// Counter-clockwise, unit outward normals, each perpendicular to its edge. Checked on the
/// vertices scaled to unit size, so that polygons near 1e30 or 1e-30 can be checked too.
fn assert_well_formed(p: &Polygon) {
    let scale = p
        .vertices()
        .iter()
        .map(|w| w.abs().max_element())
        .fold(0.0, f32::max);
    let scaled: Vec<Vec2> = p.vertices().iter().map(|&w| w / scale).collect();
    let vs = scaled.as_slice();
    let ns = p.normals();
    assert_eq!(vs.len(), ns.len());
    assert!((3..=8).contains(&vs.len()));
    assert!(signed_area(vs) > 0.0, "not counter-clockwise: {vs:?}");
    for i in 0..vs.len() {
        let edge = vs[(i + 1) % vs.len()] - vs[i];
        let n = ns[i];
        assert!(n.is_finite(), "normal {i} not finite: {n}");
        assert!((n.length() - 1.0).abs() < 1e-5, "normal {i} not unit: {n}");
        assert!(
            // The direction of a short edge is known only to about f32 rounding / length.
            n.dot(edge.normalize()).abs() < 1e-5 + 1e-6 / edge.length(),
            "normal {i} not perpendicular: {n} against edge {edge} of {vs:?}"
        );
        // Outward: every other vertex lies behind the edge.
        for (k, &w) in vs.iter().enumerate() {
            assert!(n.dot(w - vs[i]) <= 1e-4 || k == i, "normal {i} not outward");
        }
    }
}

#[test]
fn counter_clockwise_square_is_kept() {
    let pts = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)];
    let p = Polygon::new(&pts).unwrap();
    assert_eq!(p.vertices(), &pts);
    assert_eq!(
        p.normals(),
        &[v(0.0, -1.0), v(1.0, 0.0), v(0.0, 1.0), v(-1.0, 0.0)]
    );
    assert_eq!(p.centroid(), v(0.5, 0.5));
    assert!((p.area() - 1.0).abs() < 1e-6);
    assert_well_formed(&p);
}

#[test]
fn clockwise_input_is_reversed() {
    let pts = [v(0.0, 0.0), v(0.0, 1.0), v(1.0, 1.0), v(1.0, 0.0)];
    let p = Polygon::new(&pts).unwrap();
    assert_well_formed(&p);
    assert!(signed_area(p.vertices()) > 0.0);
    for q in pts {
        assert!(p.vertices().contains(&q));
    }
}

#[test]
fn vertex_count_errors() {
    assert_eq!(
        Polygon::new(&[]),
        Err(ShapeError::TooFewVertices { count: 0 })
    );
    assert_eq!(
        Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0)]),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
    let nine: Vec<Vec2> = (0..9).map(|k| Vec2::from_angle(k as f32 * 0.6)).collect();
    let e = Polygon::new(&nine).unwrap_err();
    assert_eq!(e, ShapeError::TooManyVertices { count: 9 });
    assert!(e.to_string().contains("at most 8"), "{e}");
}

#[test]
fn non_finite_points_are_named() {
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, f32::NAN), v(0.0, 1.0)]).unwrap_err();
    assert!(matches!(e, ShapeError::NotFinite { index: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("point 1"), "{e}");
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(f32::INFINITY, 1.0)]).unwrap_err();
    assert!(matches!(e, ShapeError::NotFinite { index: 2, .. }), "{e:?}");
    let e = Polygon::convex_hull(&[
        v(0.0, 0.0),
        v(1.0, 0.0),
        v(0.5, 1.0),
        v(f32::NEG_INFINITY, 0.0),
    ])
    .unwrap_err();
    assert!(matches!(e, ShapeError::NotFinite { index: 3, .. }), "{e:?}");
}

#[test]
fn repeated_points_are_named() {
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(1.0, 0.0)]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::RepeatedPoint {
            first: 1,
            second: 3
        }
    );
    assert!(e.to_string().contains("repeated"), "{e}");
    let same = [v(2.0, 2.0); 3];
    assert!(matches!(
        Polygon::new(&same),
        Err(ShapeError::RepeatedPoint { .. })
    ));
}

#[test]
fn collinear_point_is_named() {
    // (1, 0) lies on the bottom edge of the square.
    let e = Polygon::new(&[
        v(0.0, 0.0),
        v(1.0, 0.0),
        v(2.0, 0.0),
        v(2.0, 2.0),
        v(0.0, 2.0),
    ])
    .unwrap_err();
    assert_eq!(e, ShapeError::Collinear { index: 1 });
    assert!(e.to_string().contains("collinear"), "{e}");
}

#[test]
fn zero_and_near_zero_area() {
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, 1.0), v(2.0, 2.0)]).unwrap_err();
    assert_eq!(e, ShapeError::ZeroArea);
    assert!(e.to_string().contains("area"), "{e}");
    // A triangle a millionth as tall as it is wide.
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(0.5, 1e-6)]).unwrap_err();
    assert_eq!(e, ShapeError::ZeroArea);
}

#[test]
fn self_intersecting_outline() {
    // A bow tie: edges 0 and 2 cross.
    let e = Polygon::new(&[v(0.0, 0.0), v(1.0, 1.0), v(1.0, 0.0), v(0.0, 1.0)]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::SelfIntersecting {
            first: 0,
            second: 2
        }
    );
    assert!(e.to_string().contains("self-intersecting"), "{e}");
    // A pentagram turns the same way at every corner, but its edges cross.
    let star: Vec<Vec2> = (0..5)
        .map(|k| Vec2::from_angle(k as f32 * 2.0 * std::f32::consts::TAU / 5.0))
        .collect();
    assert!(matches!(
        Polygon::new(&star),
        Err(ShapeError::SelfIntersecting { .. })
    ));
}

#[test]
fn concave_outline() {
    // An arrowhead whose corner at index 2 points inward.
    let e = Polygon::new(&[
        v(0.0, 0.0),
        v(2.0, 0.0),
        v(1.0, 0.5),
        v(2.0, 2.0),
        v(0.0, 2.0),
    ])
    .unwrap_err();
    assert_eq!(e, ShapeError::NotConvex { index: 2 });
    assert!(e.to_string().contains("not convex"), "{e}");
}

#[test]
fn extreme_coordinates_never_panic_or_give_non_finite_normals() {
    for scale in [1e30_f32, 1e-30, 3e38, 1e-35] {
        for offset in [0.0_f32, 1.0, -scale] {
            let pts = [
                v(0.0, 0.0),
                v(scale, 0.0),
                v(scale, scale),
                v(0.5 * scale, 1.5 * scale),
            ]
            .map(|p| p + Vec2::splat(offset));
            match Polygon::new(&pts) {
                Ok(p) => assert_well_formed(&p),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
            let _ = Polygon::convex_hull(&pts);
            let _ = Polygon::regular(5, scale);
        }
    }
    // Mixed scales: relative to a polygon 1e30 wide, a point 1e-30 from another is the same
    // point; the polygon is rejected, not mangled.
    let e = Polygon::new(&[v(0.0, 0.0), v(1e30, 0.0), v(0.0, 1e-30)]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::RepeatedPoint {
            first: 0,
            second: 2
        }
    );
    // Huge polygons collide without panicking.
    let big = Polygon::regular(6, 1e30).unwrap();
    assert_well_formed(&big);
    let m = wgpu_sat::collide(
        &big,
        &Transform::IDENTITY,
        &big,
        &Transform::new(v(1e30, 0.0), 0.3),
    );
    if let Some(m) = m {
        assert!(m.normal.is_finite());
    }
}

#[test]
fn random_scaled_polygons_stay_well_formed() {
    let mut rng = common::rng(11);
    for _ in 0..2000 {
        let base = common::random_polygon(&mut rng, 1.0);
        let scale = 10f32.powf(rng.random_range(-30.0..30.0));
        let pts: Vec<Vec2> = base.vertices().iter().map(|&p| p * scale).collect();
        let p = Polygon::new(&pts).unwrap_or_else(|e| panic!("scale {scale}: {e}"));
        assert_well_formed(&p);
    }
}

#[test]
fn convex_hull_of_a_point_cloud() {
    let mut rng = common::rng(3);
    for _ in 0..200 {
        let corners = common::random_polygon(&mut rng, 2.0);
        // The corners, each twice, plus points inside and on the edges.
        let mut cloud: Vec<Vec2> = corners.vertices().to_vec();
        cloud.extend_from_slice(corners.vertices());
        let vs = corners.vertices();
        for i in 0..vs.len() {
            cloud.push(vs[i].lerp(vs[(i + 1) % vs.len()], 0.5));
            cloud.push(vs[i].lerp(corners.centroid(), rng.random_range(0.1..0.9)));
        }
        // Shuffle.
        for i in (1..cloud.len()).rev() {
            cloud.swap(i, rng.random_range(0..=i));
        }
        let hull = Polygon::convex_hull(&cloud).unwrap();
        assert_well_formed(&hull);
        assert_eq!(hull.vertices().len(), vs.len());
        for corner in vs {
            assert!(hull.vertices().contains(corner));
        }
        for &p in &cloud {
            assert!(hull.contains_point(&Transform::IDENTITY, p));
        }
    }
}

#[test]
fn convex_hull_errors() {
    assert_eq!(
        Polygon::convex_hull(&[v(0.0, 0.0), v(1.0, 1.0)]),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
    assert_eq!(
        Polygon::convex_hull(&[v(0.0, 0.0), v(1.0, 1.0), v(3.0, 3.0), v(2.0, 2.0)]),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        Polygon::convex_hull(&[v(1.0, 1.0); 5]),
        Err(ShapeError::ZeroArea)
    );
    let twelve: Vec<Vec2> = (0..12)
        .map(|k| Vec2::from_angle(k as f32 * std::f32::consts::FRAC_PI_6))
        .collect();
    assert_eq!(
        Polygon::convex_hull(&twelve),
        Err(ShapeError::TooManyVertices { count: 12 })
    );
}

#[test]
fn rectangle_and_regular() {
    let r = Polygon::rectangle(2.0, 0.5);
    assert_well_formed(&r);
    assert_eq!(
        r.vertices(),
        &[v(-2.0, -0.5), v(2.0, -0.5), v(2.0, 0.5), v(-2.0, 0.5)]
    );
    for sides in 3..=8 {
        let p = Polygon::regular(sides, 2.0).unwrap();
        assert_well_formed(&p);
        assert_eq!(p.vertices().len(), sides);
        for w in p.vertices() {
            assert!((w.length() - 2.0).abs() < 1e-5);
        }
        // Flat bottom: the first edge is horizontal, at the lowest y.
        let (a, b) = (p.vertices()[0], p.vertices()[1]);
        assert!(
            (a.y - b.y).abs() < 1e-5,
            "{sides} sides: bottom edge not flat"
        );
        assert!(p.centroid().length() < 1e-5);
    }
    assert_eq!(
        Polygon::regular(2, 1.0),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
    assert_eq!(
        Polygon::regular(9, 1.0),
        Err(ShapeError::TooManyVertices { count: 9 })
    );
    assert!(matches!(
        Polygon::regular(5, 0.0),
        Err(ShapeError::InvalidDimension { name: "radius", .. })
    ));
    assert!(matches!(
        Polygon::regular(5, f32::NAN),
        Err(ShapeError::InvalidDimension { name: "radius", .. })
    ));
}

#[test]
#[should_panic(expected = "half_height must be finite and positive")]
fn rectangle_rejects_a_negative_size() {
    Polygon::rectangle(1.0, -1.0);
}

#[test]
fn aabb_of_a_rotated_box() {
    let r = Polygon::rectangle(1.0, 0.5);
    let t = Transform::new(v(10.0, -3.0), std::f32::consts::FRAC_PI_2);
    let b = r.aabb(&t);
    let expected = Aabb::new(v(9.5, -4.0), v(10.5, -2.0));
    assert!((b.min - expected.min).length() < 1e-5 && (b.max - expected.max).length() < 1e-5);
}

#[test]
fn point_inside_outside_and_on_the_edge_of_a_rotated_polygon() {
    let p = Polygon::regular(5, 1.0).unwrap();
    let t = Transform::new(v(3.0, -2.0), 0.7);
    let world = |q: Vec2| t.transform_point(q);
    assert!(p.contains_point(&t, world(p.centroid())));
    assert!(p.contains_point(&t, world(v(0.1, -0.2))));
    assert!(!p.contains_point(&t, world(v(2.0, 0.0))));
    assert!(!p.contains_point(&t, v(0.0, 0.0)));
    let vs = p.vertices();
    for i in 0..vs.len() {
        let mid = vs[i].lerp(vs[(i + 1) % vs.len()], 0.5);
        let n = p.normals()[i];
        // On the edge counts as inside; a hair outside does not; a hair inside does.
        assert!(p.contains_point(&t, world(mid)), "edge {i} midpoint");
        assert!(p.contains_point(&t, world(vs[i])), "vertex {i}");
        assert!(
            !p.contains_point(&t, world(mid + 1e-4 * n)),
            "just outside edge {i}"
        );
        assert!(
            p.contains_point(&t, world(mid - 1e-4 * n)),
            "just inside edge {i}"
        );
    }
}

#[test]
fn transform_round_trips() {
    let t = Transform::new(v(1.5, -2.0), 2.5);
    assert!((t.angle() - 2.5).abs() < 1e-6);
    assert_eq!(t.translation(), v(1.5, -2.0));
    let p = v(0.3, 0.7);
    assert!((t.inverse_transform_point(t.transform_point(p)) - p).length() < 1e-6);
    assert_eq!(Transform::IDENTITY.transform_point(p), p);
    let u = Transform::new(v(-4.0, 1.0), -0.4);
    let rel = t.inv_mul(&u);
    // rel maps u's frame into t's: t(rel(p)) == u(p).
    assert!((t.transform_point(rel.transform_point(p)) - u.transform_point(p)).length() < 1e-5);
}
