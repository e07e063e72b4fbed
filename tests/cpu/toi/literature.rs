//! Literature cases: time of impact on sweeps whose answers are derived by hand.

use super::*;

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
