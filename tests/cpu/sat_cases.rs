//! Literature cases for the CPU reference `collide`, with hand-derived expectations.

use wgpu_sat::glam::Vec2;
use wgpu_sat::{Manifold, Polygon, Transform, collide};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn at(x: f32, y: f32, angle: f32) -> Transform {
    Transform::new(v(x, y), angle)
}

fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
    (a - b).length() <= tol
}

fn sorted_points(m: &Manifold) -> Vec<Vec2> {
    let mut p: Vec<Vec2> = m.points().iter().map(|c| c.point).collect();
    p.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    p
}

#[test]
fn unit_squares_overlapping_by_a_quarter() {
    let s = Polygon::rectangle(0.5, 0.5);
    let m = collide(&s, &Transform::IDENTITY, &s, &at(0.75, 0.0, 0.0)).unwrap();
    assert_eq!(m.normal, v(1.0, 0.0));
    assert!((m.depth - 0.25).abs() < 1e-6);
    // Two points, halfway between A's right face (x = 0.5) and B's left face (x = 0.25).
    let pts = sorted_points(&m);
    assert_eq!(pts.len(), 2);
    assert!(close(pts[0], v(0.375, -0.5), 1e-6), "{pts:?}");
    assert!(close(pts[1], v(0.375, 0.5), 1e-6), "{pts:?}");
    for p in m.points() {
        assert!((p.depth - 0.25).abs() < 1e-6);
    }
    assert_ne!(m.points()[0].id, m.points()[1].id);
}

#[test]
fn separated_triangles() {
    let t = Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)]).unwrap();
    assert!(collide(&t, &Transform::IDENTITY, &t, &at(0.6, 0.6, 0.0)).is_none());
    assert!(collide(&t, &Transform::IDENTITY, &t, &at(2.0, 0.0, 0.0)).is_none());
    // Rotated half a turn, the hypotenuses face each other 0.1 apart along the diagonal.
    let gap = 0.1 * std::f32::consts::SQRT_2;
    let d = 1.0 + gap;
    assert!(
        collide(
            &t,
            &Transform::IDENTITY,
            &t,
            &at(d, d, std::f32::consts::PI)
        )
        .is_none()
    );
    // Closer than the gap, they overlap along the hypotenuse normal.
    let d = 1.0 - gap;
    let m = collide(
        &t,
        &Transform::IDENTITY,
        &t,
        &at(d, d, std::f32::consts::PI),
    )
    .unwrap();
    assert!(close(m.normal, v(1.0, 1.0).normalize(), 1e-5), "{m:?}");
    assert!((m.depth - 0.2).abs() < 1e-5, "{m:?}");
}

#[test]
fn squares_sharing_an_edge_exactly_do_not_collide() {
    let s = Polygon::rectangle(0.5, 0.5);
    assert!(collide(&s, &Transform::IDENTITY, &s, &at(1.0, 0.0, 0.0)).is_none());
    assert!(collide(&s, &Transform::IDENTITY, &s, &at(0.0, -1.0, 0.0)).is_none());
    // Corner to corner.
    assert!(collide(&s, &Transform::IDENTITY, &s, &at(1.0, 1.0, 0.0)).is_none());
    // A hair closer does collide.
    assert!(collide(&s, &Transform::IDENTITY, &s, &at(0.999, 0.0, 0.0)).is_some());
}

#[test]
fn rotated_box_resting_on_a_box_has_two_points() {
    // A 1x1 box sinking 0.01 into a 4x1 ground box, the whole scene turned by 30 degrees.
    let ground = Polygon::rectangle(2.0, 0.5);
    let body = Polygon::rectangle(0.5, 0.5);
    let turn = 30f32.to_radians();
    let up = Vec2::from_angle(turn + std::f32::consts::FRAC_PI_2);
    let right = Vec2::from_angle(turn);
    let ground_at = Transform::new(v(3.0, 1.0), turn);
    let body_center = v(3.0, 1.0) + (1.0 - 0.01) * up + 0.3 * right;
    let body_at = Transform::new(body_center, turn);
    let m = collide(&ground, &ground_at, &body, &body_at).unwrap();
    assert!(
        close(m.normal, up, 1e-5),
        "normal {} expected {up}",
        m.normal
    );
    assert!((m.depth - 0.01).abs() < 1e-5, "depth {}", m.depth);
    assert_eq!(m.points().len(), 2);
    for p in m.points() {
        assert!((p.depth - 0.01).abs() < 1e-5);
        // Halfway between the ground's top face and the box's bottom face.
        let along = (p.point - v(3.0, 1.0)).dot(up);
        assert!((along - 0.495).abs() < 1e-5, "point height {along}");
        let across = (p.point - v(3.0, 1.0)).dot(right);
        assert!(
            ((across - 0.3).abs() - 0.5).abs() < 1e-5,
            "point offset {across}"
        );
    }
    // Reversed, the normal flips and the depth stays.
    let r = collide(&body, &body_at, &ground, &ground_at).unwrap();
    assert!(close(r.normal, -up, 1e-5));
    assert!((r.depth - m.depth).abs() < 1e-6);
    assert_eq!(r.points().len(), 2);
}

#[test]
fn thin_sliver_against_a_large_polygon() {
    let big = Polygon::rectangle(5.0, 5.0);
    let sliver = Polygon::rectangle(0.005, 2.0);
    // Standing upright, poking 1 unit into the big box's top face: the cheapest way out is
    // up, by 1, not sideways (the sliver is well inside the big box's width).
    let m = collide(&big, &Transform::IDENTITY, &sliver, &at(0.0, 6.0, 0.0)).unwrap();
    assert!(close(m.normal, v(0.0, 1.0), 1e-6), "{m:?}");
    assert!((m.depth - 1.0).abs() < 1e-5, "{m:?}");
    // Lying flat, 0.002 deep: two points at its ends.
    let m = collide(
        &big,
        &Transform::IDENTITY,
        &sliver,
        &at(1.0, 5.003, std::f32::consts::FRAC_PI_2),
    )
    .unwrap();
    assert!(close(m.normal, v(0.0, 1.0), 1e-5), "{m:?}");
    assert!((m.depth - 0.002).abs() < 1e-5, "{m:?}");
    let pts = sorted_points(&m);
    assert_eq!(pts.len(), 2);
    let mut xs = [pts[0].x, pts[1].x];
    xs.sort_by(f32::total_cmp);
    assert!(
        (xs[0] + 1.0).abs() < 1e-4 && (xs[1] - 3.0).abs() < 1e-4,
        "{pts:?}"
    );
    // Near the big box's corner, poking sideways into its right face by 0.001.
    let m = collide(&big, &Transform::IDENTITY, &sliver, &at(5.004, 0.0, 0.0)).unwrap();
    assert!(close(m.normal, v(1.0, 0.0), 1e-5), "{m:?}");
    assert!((m.depth - 0.001).abs() < 1e-5, "{m:?}");
}

#[test]
fn argument_order_gives_opposite_normals_and_the_same_depth() {
    let a = Polygon::regular(5, 1.0).unwrap();
    let b = Polygon::new(&[v(-1.0, -0.3), v(1.2, -0.5), v(0.2, 0.9)]).unwrap();
    let ta = at(0.2, -0.1, 0.3);
    let tb = at(1.1, 0.6, -1.2);
    let ab = collide(&a, &ta, &b, &tb).unwrap();
    let ba = collide(&b, &tb, &a, &ta).unwrap();
    assert!(close(ab.normal, -ba.normal, 1e-6), "{ab:?} {ba:?}");
    assert!((ab.depth - ba.depth).abs() < 1e-6);
    assert_eq!(ab.points().len(), ba.points().len());
}

#[test]
fn feature_ids_stay_while_the_same_features_touch() {
    let ground = Polygon::rectangle(3.0, 0.5);
    let body = Polygon::rectangle(0.5, 0.5);
    let ids = |x: f32, depth: f32| {
        let m = collide(
            &ground,
            &Transform::IDENTITY,
            &body,
            &at(x, 1.0 - depth, 0.0),
        )
        .unwrap();
        let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
        ids.sort();
        ids
    };
    let first = ids(0.0, 0.01);
    assert_eq!(first.len(), 2);
    // Sliding and sinking a little keeps the same features in touch.
    assert_eq!(ids(0.3, 0.02), first);
    assert_eq!(ids(-0.7, 0.005), first);
}
