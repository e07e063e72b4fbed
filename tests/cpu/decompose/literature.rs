//! Literature outlines with known piece counts, awkward inputs, and the checks fed bad
//! decompositions to show that each of them can fail.

use super::*;

#[test]
fn square_is_one_piece_equal_to_polygon_new() {
    let square = pts(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
    assert_eq!(decompose(&square), Ok(vec![Polygon::new(&square).unwrap()]));
}

#[test]
fn convex_outline_of_either_winding_is_polygon_new() {
    let mut hexagon: Vec<Vec2> = (0..6)
        .map(|k| {
            Vec2::from_angle(k as f32 * std::f32::consts::FRAC_PI_3 + 0.3) * v(2.0, 1.0)
                + v(5.0, -3.0)
        })
        .collect();
    assert_eq!(
        decompose(&hexagon),
        Ok(vec![Polygon::new(&hexagon).unwrap()])
    );
    hexagon.reverse();
    assert_eq!(
        decompose(&hexagon),
        Ok(vec![Polygon::new(&hexagon).unwrap()])
    );
}

#[test]
fn l_shape_is_two_pieces() {
    assert_eq!(decomposed(&pts(&L)), 2);
}

#[test]
fn u_shape_is_three_pieces() {
    // Two reflex corners, and no one diagonal joins them (the notch floor between them is
    // an edge), so three pieces is the optimum.
    assert_eq!(decomposed(&pts(&U)), 3);
}

#[test]
fn clockwise_u_shape_is_three_pieces() {
    let mut u = pts(&U);
    u.reverse();
    assert_eq!(decomposed(&u), 3);
}

#[test]
fn five_pointed_star_is_four_pieces() {
    // 10 points: 5 tips on radius 1, 5 reflex inner corners on radius 0.5.
    let star: Vec<Vec2> = (0..10)
        .map(|k| {
            let radius = if k % 2 == 0 { 1.0 } else { 0.5 };
            radius * Vec2::from_angle(k as f32 * std::f32::consts::PI / 5.0)
        })
        .collect();
    assert_eq!(reflex_count(&star), 5);
    // The optimum: a diagonal resolves at most two reflex corners, so 5 need 3 diagonals
    // and 4 pieces.
    assert_eq!(decomposed(&star), 4);
}

#[test]
fn comb_is_a_piece_per_tooth_plus_the_base() {
    // Four teeth of width 1 on a base of height 1; three gaps, six reflex corners.
    let mut comb = vec![v(0.0, 0.0), v(7.0, 0.0)];
    for tooth in (0..4).rev() {
        let x = 2.0 * tooth as f32;
        comb.extend([v(x + 1.0, 3.0), v(x, 3.0)]);
        if tooth > 0 {
            comb.extend([v(x, 1.0), v(x - 1.0, 1.0)]);
        }
    }
    assert_eq!(comb.len(), 16);
    assert_eq!(reflex_count(&comb), 6);
    // The optimum without added points: no convex piece holds two tooth tops (the gap lies
    // between), nor a tooth top and the bottom edge (the hull cuts a gap), and each of these
    // five edges lies in one piece.
    assert_eq!(decomposed(&comb), 5);
}

#[test]
fn convex_12_gon_splits_into_two() {
    let gon: Vec<Vec2> = (0..12)
        .map(|k| 3.0 * Vec2::from_angle(k as f32 * std::f32::consts::TAU / 12.0))
        .collect();
    // 12 corners need two pieces of at most 8 (8 + 6 share a diagonal's 2 ends).
    assert_eq!(decomposed(&gon), 2);
}

#[test]
fn collinear_points_are_dropped() {
    // A square with a point in the middle of every side (and two on the bottom) is the
    // square.
    let square = pts(&[
        (0.0, 0.0),
        (0.5, 0.0),
        (0.75, 0.0),
        (1.0, 0.0),
        (1.0, 0.5),
        (1.0, 1.0),
        (0.5, 1.0),
        (0.0, 1.0),
        (0.0, 0.5),
    ]);
    let corners = pts(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
    assert_eq!(
        decompose(&square),
        Ok(vec![Polygon::new(&corners).unwrap()])
    );

    // An L with extra points along its long sides, including next to the reflex corner.
    let l = pts(&[
        (0.0, 0.0),
        (1.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.5, 1.0),
        (1.0, 1.0),
        (1.0, 1.5),
        (1.0, 2.0),
        (0.0, 2.0),
        (0.0, 1.0),
    ]);
    let pieces = decompose(&l).unwrap();
    assert_eq!(pieces.len(), 2);
    check(&l, &pieces).unwrap();
    for p in &pieces {
        for w in p.vertices() {
            assert!(pts(&L).contains(w), "{w} is a dropped collinear point");
        }
    }
}

#[test]
fn huge_and_tiny_coordinates_work_like_unit_ones() {
    for (scale, offset) in [(1e20, 3e20), (1e-20, -1e-20), (1e30, 0.0), (1e-30, 1e-30)] {
        for shape in [&L[..], &U[..]] {
            let outline: Vec<Vec2> = shape
                .iter()
                .map(|&(x, y)| v(x * scale + offset, y * scale))
                .collect();
            let unit = decompose(&pts(shape)).unwrap().len();
            assert_eq!(decomposed(&outline), unit, "scale {scale}");
        }
    }
}

#[test]
fn no_panic_on_awkward_inputs() {
    // Outcomes vary; what matters is that each returns.
    let inputs: Vec<Vec<Vec2>> = vec![
        vec![],
        vec![v(0.0, 0.0)],
        vec![v(0.0, 0.0); 5],
        vec![
            v(f32::MAX, f32::MAX),
            v(-f32::MAX, f32::MAX),
            v(0.0, -f32::MAX),
        ],
        vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1e-7), v(0.0, 1e-7)],
        vec![v(0.0, 0.0), v(1.0, 0.0), v(0.5, 0.0), v(0.5, 1.0)],
        vec![v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), v(1.0, 1.0)],
        // A spike a few tolerances wide.
        pts(&[
            (0.0, 0.0),
            (1.0, 0.0),
            (1.0, 1.0),
            (0.500_02, 1.0),
            (0.5, 3.0),
            (0.499_98, 1.0),
            (0.0, 1.0),
        ]),
    ];
    for input in inputs {
        let _ = decompose(&input);
    }
}

#[test]
fn the_checks_reject_bad_decompositions() {
    let polygons = |pieces: &[&[(f32, f32)]]| -> Vec<Polygon> {
        pieces
            .iter()
            .map(|p| Polygon::new(&pts(p)).unwrap())
            .collect()
    };
    let (l, u) = (pts(&L), pts(&U));
    let fails_with = |outline: &[Vec2], pieces: &[Polygon], what: &str| {
        let e = check(outline, pieces).expect_err(what);
        assert!(e.contains(what), "expected '{what}', got '{e}'");
    };
    let trapezoid: &[(f32, f32)] = &[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0)];
    let arm: &[(f32, f32)] = &[(0.0, 0.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
    check(&l, &polygons(&[trapezoid, arm])).unwrap();
    fails_with(&l, &polygons(&[trapezoid]), "area");
    // A tiling that adds the point (0, 1).
    fails_with(
        &l,
        &polygons(&[
            &[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0)],
            &[(0.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)],
        ]),
        "not an outline point",
    );
    // Two triangles of the U's right upright that Hertel-Mehlhorn would have merged.
    let base: &[(f32, f32)] = &[(0.0, 0.0), (3.0, 0.0), (2.0, 1.0), (1.0, 1.0)];
    let left: &[(f32, f32)] = &[(0.0, 0.0), (1.0, 1.0), (1.0, 3.0), (0.0, 3.0)];
    let right: &[(f32, f32)] = &[(3.0, 0.0), (3.0, 3.0), (2.0, 3.0), (2.0, 1.0)];
    check(&u, &polygons(&[base, left, right])).unwrap();
    fails_with(
        &u,
        &polygons(&[
            base,
            left,
            &[(3.0, 0.0), (3.0, 3.0), (2.0, 3.0)],
            &[(3.0, 0.0), (2.0, 3.0), (2.0, 1.0)],
        ]),
        "would merge",
    );
    // The notch between the uprights is made of outline points but lies outside.
    let notch: &[(f32, f32)] = &[(1.0, 1.0), (2.0, 1.0), (2.0, 3.0), (1.0, 3.0)];
    fails_with(&u, &polygons(&[base, left, right, notch]), "outside");
    // A piece laid over another.
    fails_with(&u, &polygons(&[base, left, right, left]), "overlap");
}
