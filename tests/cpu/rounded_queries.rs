//! Ray casts and times of impact against the shapes made of a core and a radius (capsules,
//! segments, rounded polygons), against closed forms: where a ray meets a capsule's side and
//! its cap, a rounded box's face and its corner arc, a segment from either side; when a
//! falling capsule reaches a segment, and a rounded box a capsule.

use wgpu_sat::collision::toi::toi_tolerance;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Capsule, Polygon, Segment, Shape, Sweep, Transform, cast_ray, time_of_impact};

/// A ray's hit: fraction, point and normal within `tol` of the expected ones.
fn assert_hit(
    shape: &Shape,
    origin: Vec2,
    translation: Vec2,
    fraction: f32,
    normal: Vec2,
    what: &str,
) {
    let hit = cast_ray(shape, &Transform::IDENTITY, origin, translation)
        .unwrap_or_else(|| panic!("{what}: no hit"));
    assert!(
        (hit.fraction - fraction).abs() < 1e-5,
        "{what}: fraction {} against {fraction}",
        hit.fraction
    );
    let point = origin + fraction * translation;
    assert!(
        hit.point.distance(point) < 1e-4,
        "{what}: point {} against {point}",
        hit.point
    );
    assert!(
        hit.normal.distance(normal) < 1e-4,
        "{what}: normal {} against {normal}",
        hit.normal
    );
}

#[test]
fn rays_meet_a_capsule_on_its_side_and_on_its_cap() {
    // A capsule from (-1, 0) to (1, 0), radius 0.5.
    let capsule =
        Shape::from(Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap());
    // Straight down onto the flat side at y = 0.5: 4.5 of 10 units.
    assert_hit(
        &capsule,
        Vec2::new(0.3, 5.0),
        Vec2::new(0.0, -10.0),
        0.45,
        Vec2::Y,
        "side",
    );
    // Along the axis into the right cap at x = 1.5: 3.5 of 10.
    assert_hit(
        &capsule,
        Vec2::new(5.0, 0.0),
        Vec2::new(-10.0, 0.0),
        0.35,
        Vec2::X,
        "cap",
    );
    // Down onto the cap off its centre: x = 1.3 meets the circle about (1, 0) at
    // y = sqrt(0.25 - 0.09) = 0.4, where the normal is (0.3, 0.4) / 0.5.
    assert_hit(
        &capsule,
        Vec2::new(1.3, 5.0),
        Vec2::new(0.0, -10.0),
        0.46,
        Vec2::new(0.6, 0.8),
        "cap off centre",
    );
    // Past the cap: no hit.
    assert!(
        cast_ray(
            &capsule,
            &Transform::IDENTITY,
            Vec2::new(1.6, 5.0),
            Vec2::new(0.0, -10.0)
        )
        .is_none()
    );
}

#[test]
fn rays_meet_a_rounded_box_on_its_face_and_its_corner_arc() {
    // A 2 x 1 core grown by 0.2: faces at x = ±1.2, y = ±0.7; corners are arcs of radius
    // 0.2 about (±1, ±0.5).
    let rounded = Shape::from(Polygon::rectangle(1.0, 0.5).with_radius(0.2).unwrap());
    assert_hit(
        &rounded,
        Vec2::new(0.0, 5.0),
        Vec2::new(0.0, -10.0),
        0.43,
        Vec2::Y,
        "top face",
    );
    assert_hit(
        &rounded,
        Vec2::new(-5.0, 0.2),
        Vec2::new(10.0, 0.0),
        0.38,
        -Vec2::X,
        "left face",
    );
    // Along the diagonal through the corner's centre (1, 0.5): it meets the arc at
    // (1, 0.5) + 0.2 (1, 1) / sqrt(2).
    let corner = Vec2::new(1.0, 0.5);
    let out = Vec2::new(1.0, 1.0).normalize();
    let origin = corner + 4.0 * out;
    assert_hit(
        &rounded,
        origin,
        -8.0 * out,
        (4.0 - 0.2) / 8.0,
        out,
        "corner arc",
    );
}

#[test]
fn rays_meet_a_segment_from_either_side() {
    let segment = Shape::from(Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)).unwrap());
    assert_hit(
        &segment,
        Vec2::new(0.5, 2.0),
        Vec2::new(0.0, -4.0),
        0.5,
        Vec2::Y,
        "from above",
    );
    assert_hit(
        &segment,
        Vec2::new(-0.5, -1.0),
        Vec2::new(0.0, 4.0),
        0.25,
        -Vec2::Y,
        "from below",
    );
    assert!(
        cast_ray(
            &segment,
            &Transform::IDENTITY,
            Vec2::new(1.5, 2.0),
            Vec2::new(0.0, -4.0)
        )
        .is_none()
    );
}

#[test]
fn a_falling_capsule_and_a_rounded_box_stop_where_the_closed_form_says() {
    let ground = Shape::from(Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap());
    let still = Sweep::fixed(&Transform::IDENTITY);
    // A lying capsule of radius 0.25 whose axis starts 3 units up, falling 6 units in the
    // step: it touches the segment when its axis is 0.25 up, after 2.75 of the 6 units.
    let capsule =
        Shape::from(Capsule::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).unwrap());
    let start = Transform::new(Vec2::new(0.0, 3.0), 0.0);
    let falling = Sweep::from_velocity(&start, Vec2::ZERO, Vec2::new(0.0, -6.0), 0.0, 1.0);
    let toi = time_of_impact(&ground, &still, &capsule, &falling).expect("it lands");
    let tol = toi_tolerance(&ground, &still, &capsule, &falling);
    // At t the gap is at most the tolerance and no overlap: t within tol / 6 short of 2.75/6.
    let exact = 2.75 / 6.0;
    assert!(
        toi.t <= exact + 1e-6 && toi.t >= exact - tol / 6.0 - 1e-6,
        "t {} against {exact} (tolerance {tol})",
        toi.t
    );
    assert!(
        (0.0..=tol).contains(&toi.separation),
        "separation {}",
        toi.separation
    );
    assert!(toi.normal.distance(Vec2::Y) < 1e-3, "normal {}", toi.normal);

    // A rounded box (core 0.5 x 0.5, radius 0.1) coming sideways at a standing capsule
    // (axis x = 0 from y = -1 to 1, radius 0.3): faces meet when the box's centre is at
    // x = -(0.5 + 0.1 + 0.3) = -0.9, after 3.1 of 8 units from x = -4.
    let post = Shape::from(Capsule::new(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0), 0.3).unwrap());
    let block = Shape::from(Polygon::rectangle(0.5, 0.5).with_radius(0.1).unwrap());
    let start = Transform::new(Vec2::new(-4.0, 0.0), 0.0);
    let sliding = Sweep::from_velocity(&start, Vec2::ZERO, Vec2::new(8.0, 0.0), 0.0, 1.0);
    let toi = time_of_impact(&post, &still, &block, &sliding).expect("they meet");
    let tol = toi_tolerance(&post, &still, &block, &sliding);
    let exact = 3.1 / 8.0;
    assert!(
        toi.t <= exact + 1e-6 && toi.t >= exact - tol / 8.0 - 1e-6,
        "t {} against {exact} (tolerance {tol})",
        toi.t
    );
    assert!(
        toi.normal.distance(-Vec2::X) < 1e-3,
        "normal {}",
        toi.normal
    );
}
