//! `decompose`: literature outlines with known piece counts, error cases naming the bad
//! input, and properties over random simple polygons (star-shaped, orthogonal, and
//! star-shaped snapped to a coarse grid), each checked against independent f64 geometry:
//! the pieces tile the outline, are valid convex polygons made of the outline's own points,
//! and no two neighbours could merge. One test feeds the checks bad decompositions, to show
//! that each of them can fail.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{MAX_POLYGON_VERTICES, Polygon, ShapeError, decompose};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn pts(coords: &[(f32, f32)]) -> Vec<Vec2> {
    coords.iter().map(|&(x, y)| v(x, y)).collect()
}

/// The outline's points mapped into its own normalised frame (f64): centred on the
/// bounding box and divided by the half-extent, so the checks below work at any scale.
struct Frame {
    center: DVec2,
    half_extent: f64,
}

impl Frame {
    fn of(points: &[Vec2]) -> Frame {
        let d: Vec<DVec2> = points.iter().map(|p| p.as_dvec2()).collect();
        let min = d.iter().copied().reduce(DVec2::min).unwrap();
        let max = d.iter().copied().reduce(DVec2::max).unwrap();
        Frame {
            center: 0.5 * (min + max),
            half_extent: (0.5 * (max - min)).max_element(),
        }
    }

    fn map(&self, points: &[Vec2]) -> Vec<DVec2> {
        points
            .iter()
            .map(|p| (p.as_dvec2() - self.center) / self.half_extent)
            .collect()
    }
}

fn signed_area(p: &[DVec2]) -> f64 {
    let n = p.len();
    0.5 * (0..n).map(|i| p[i].perp_dot(p[(i + 1) % n])).sum::<f64>()
}

fn centroid(p: &[DVec2]) -> DVec2 {
    let n = p.len();
    let (mut c, mut a2) = (DVec2::ZERO, 0.0);
    for i in 0..n {
        let w = p[i].perp_dot(p[(i + 1) % n]);
        c += w * (p[i] + p[(i + 1) % n]);
        a2 += w;
    }
    c / (3.0 * a2)
}

/// Crossing-number point-in-polygon test.
fn inside_outline(p: DVec2, outline: &[DVec2]) -> bool {
    let n = outline.len();
    let mut inside = false;
    for i in 0..n {
        let (a, b) = (outline[i], outline[(i + 1) % n]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
    p.distance(a + t * (b - a))
}

fn distance_to_boundary(p: DVec2, ring: &[DVec2]) -> f64 {
    (0..ring.len())
        .map(|i| distance_to_segment(p, ring[i], ring[(i + 1) % ring.len()]))
        .fold(f64::INFINITY, f64::min)
}

/// How far `p` lies inside a counter-clockwise convex polygon (negative outside).
fn depth_in_convex(p: DVec2, poly: &[DVec2]) -> f64 {
    (0..poly.len())
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            (b - a).normalize().perp_dot(p - a)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The largest separation of `b` from `a` along `a`'s outward edge normals (SAT): negative
/// when every axis of `a` sees them overlap, by at least the returned depth.
fn separation(a: &[DVec2], b: &[DVec2]) -> f64 {
    (0..a.len())
        .map(|i| {
            let (p, q) = (a[i], a[(i + 1) % a.len()]);
            let n = -(q - p).normalize().perp();
            b.iter()
                .map(|&w| n.dot(w - p))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// How far `here` juts out of the chord from `prev` to `next` (positive: convex corner of a
/// counter-clockwise ring).
fn corner(prev: DVec2, here: DVec2, next: DVec2) -> f64 {
    (here - prev).perp_dot(next - prev) / (next - prev).length()
}

/// Every property a decomposition must have, in the outline's normalised frame (half-extent
/// 1). `Err` describes the first violation.
fn check(outline: &[Vec2], pieces: &[Polygon]) -> Result<(), String> {
    let frame = Frame::of(outline);
    let ring = frame.map(outline);
    let n = outline.len();
    if pieces.is_empty() || pieces.len() > n.saturating_sub(2) {
        return Err(format!("{} pieces for {n} points", pieces.len()));
    }
    let mapped: Vec<Vec<DVec2>> = pieces.iter().map(|p| frame.map(p.vertices())).collect();

    for (k, (piece, m)) in pieces.iter().zip(&mapped).enumerate() {
        let vs = piece.vertices();
        if !(3..=MAX_POLYGON_VERTICES).contains(&vs.len()) {
            return Err(format!("piece {k} has {} vertices", vs.len()));
        }
        // No Steiner points: every vertex is one of the caller's points, bit for bit.
        if let Some(w) = vs.iter().find(|w| !outline.contains(w)) {
            return Err(format!("piece {k} vertex {w} is not an outline point"));
        }
        // It is what `Polygon::new` makes of its own vertices (valid, nothing recomputed
        // differently).
        if Polygon::new(vs).as_ref() != Ok(piece) {
            return Err(format!(
                "piece {k} does not round-trip Polygon::new: {vs:?}"
            ));
        }
        // Convex and counter-clockwise, by independent f64 arithmetic.
        for i in 0..m.len() {
            let c = corner(m[(i + m.len() - 1) % m.len()], m[i], m[(i + 1) % m.len()]);
            if c <= 0.0 {
                return Err(format!("piece {k} corner {i} is not convex ({c}): {vs:?}"));
            }
        }
        if !inside_outline(centroid(m), &ring) {
            return Err(format!(
                "piece {k} centroid lies outside the outline: {vs:?}"
            ));
        }
    }

    for i in 0..mapped.len() {
        for j in 0..mapped.len() {
            if i == j {
                continue;
            }
            let (a, b) = (&mapped[i], &mapped[j]);
            if i < j && separation(a, b).max(separation(b, a)) < -1e-5 {
                return Err(format!("pieces {i} and {j} overlap"));
            }
            if depth_in_convex(centroid(a), b) > 1e-6 {
                return Err(format!("piece {i}'s centroid lies inside piece {j}"));
            }
        }
    }

    let outline_area = signed_area(&ring).abs();
    let pieces_area: f64 = mapped.iter().map(|m| signed_area(m)).sum();
    if ((pieces_area - outline_area) / outline_area).abs() > 1e-4 {
        return Err(format!(
            "pieces' area {pieces_area} differs from the outline's {outline_area}"
        ));
    }

    // Tiling on a grid: a point well inside the outline lies in exactly one piece, a point
    // well outside in none. Points near any boundary are left out (rounding decides them).
    let (lo, hi) = ring.iter().fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    const GRID: usize = 48;
    const MARGIN: f64 = 1e-4;
    for gx in 0..GRID {
        for gy in 0..GRID {
            // Irrational offsets keep the grid off the lines of integer outlines.
            let t = DVec2::new(
                (gx as f64 + 0.381_966) / GRID as f64,
                (gy as f64 + 0.618_034) / GRID as f64,
            );
            let p = lo + t * (hi - lo);
            if distance_to_boundary(p, &ring) < MARGIN {
                continue;
            }
            let depths: Vec<f64> = mapped.iter().map(|m| depth_in_convex(p, m)).collect();
            if depths.iter().any(|d| d.abs() < MARGIN) {
                continue;
            }
            let holders = depths.iter().filter(|&&d| d > 0.0).count();
            let expected = usize::from(inside_outline(p, &ring));
            if holders != expected {
                return Err(format!(
                    "point {p} (normalised) lies in {holders} pieces, expected {expected}"
                ));
            }
        }
    }
    check_maximal(&mapped)
}

/// Hertel-Mehlhorn leaves no two pieces that share an edge and whose union is a convex
/// polygon of at most MAX_POLYGON_VERTICES corners. Unions whose corners come within 1e-3
/// of straight are left out: the tolerance of `Polygon::new` may judge those either way.
fn check_maximal(mapped: &[Vec<DVec2>]) -> Result<(), String> {
    for i in 0..mapped.len() {
        for j in 0..mapped.len() {
            let (a, b) = (&mapped[i], &mapped[j]);
            // A directed edge p → q of a whose reverse q → p is an edge of b.
            let shared = (0..a.len()).find_map(|k| {
                let (p, q) = (a[k], a[(k + 1) % a.len()]);
                (0..b.len())
                    .find(|&l| b[l] == q && b[(l + 1) % b.len()] == p)
                    .map(|l| (k, l))
            });
            let Some((k, l)) = shared else { continue };
            // Around a from q to p, then around b strictly between p and q.
            let mut union: Vec<DVec2> = (0..a.len()).map(|s| a[(k + 1 + s) % a.len()]).collect();
            union.extend((1..b.len() - 1).map(|s| b[(l + 1 + s) % b.len()]));
            // Exactly straight corners (an orthogonal outline has them) are no corners.
            loop {
                let m = union.len();
                let straight = (0..m).find(|&s| {
                    corner(union[(s + m - 1) % m], union[s], union[(s + 1) % m]).abs() < 1e-9
                });
                match straight {
                    Some(s) => {
                        union.remove(s);
                    }
                    None => break,
                }
            }
            let m = union.len();
            let clearly_convex =
                (0..m).all(|s| corner(union[(s + m - 1) % m], union[s], union[(s + 1) % m]) > 1e-3);
            if clearly_convex && m <= MAX_POLYGON_VERTICES {
                return Err(format!(
                    "pieces {i} and {j} share an edge and would merge into a convex {m}-gon"
                ));
            }
        }
    }
    Ok(())
}

fn reflex_count(outline: &[Vec2]) -> usize {
    let ring = Frame::of(outline).map(outline);
    let sign = signed_area(&ring).signum();
    let n = ring.len();
    (0..n)
        .filter(|&i| sign * corner(ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]) < -1e-9)
        .count()
}

/// Decomposes, checks every property, and returns the piece count.
fn decomposed(outline: &[Vec2]) -> usize {
    let pieces = decompose(outline).unwrap_or_else(|e| panic!("{e}: {outline:?}"));
    if let Err(e) = check(outline, &pieces) {
        panic!("{e}\noutline: {outline:?}\npieces: {pieces:#?}");
    }
    // Any convex decomposition needs a diagonal at each reflex vertex, and a diagonal serves
    // at most two of them.
    let r = reflex_count(outline);
    if r > 0 {
        assert!(
            pieces.len() > r.div_ceil(2),
            "{} pieces, {r} reflex",
            pieces.len()
        );
    }
    pieces.len()
}

// ---------------------------------------------------------------------------------------
// Literature cases.

const L: [(f32, f32); 6] = [
    (0.0, 0.0),
    (2.0, 0.0),
    (2.0, 1.0),
    (1.0, 1.0),
    (1.0, 2.0),
    (0.0, 2.0),
];

const U: [(f32, f32); 8] = [
    (0.0, 0.0),
    (3.0, 0.0),
    (3.0, 3.0),
    (2.0, 3.0),
    (2.0, 1.0),
    (1.0, 1.0),
    (1.0, 3.0),
    (0.0, 3.0),
];

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

// ---------------------------------------------------------------------------------------
// Errors, naming the bad input.

#[test]
fn too_few_points() {
    assert_eq!(decompose(&[]), Err(ShapeError::TooFewVertices { count: 0 }));
    assert_eq!(
        decompose(&[v(0.0, 0.0), v(1.0, 0.0)]),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
}

#[test]
fn non_finite_point_is_named() {
    let mut l = pts(&L);
    l[4].y = f32::NAN;
    assert!(matches!(
        decompose(&l),
        Err(ShapeError::NotFinite { index: 4, .. })
    ));
    l[4].y = 2.0;
    l[2].x = f32::INFINITY;
    assert_eq!(
        decompose(&l),
        Err(ShapeError::NotFinite {
            index: 2,
            x: f32::INFINITY,
            y: 1.0
        })
    );
}

#[test]
fn repeated_points_are_named() {
    let mut l = pts(&L);
    l.insert(3, l[2]);
    assert_eq!(
        decompose(&l),
        Err(ShapeError::RepeatedPoint {
            first: 2,
            second: 3
        })
    );
    // Two triangles touching at one point: the outline visits (1, 1) twice.
    let bow = pts(&[
        (0.0, 0.0),
        (1.0, 1.0),
        (2.0, 0.0),
        (2.0, 2.0),
        (1.0, 1.0),
        (0.0, 2.0),
    ]);
    assert_eq!(
        decompose(&bow),
        Err(ShapeError::RepeatedPoint {
            first: 1,
            second: 4
        })
    );
    assert_eq!(
        decompose(&[v(1.0, 1.0); 3]),
        Err(ShapeError::RepeatedPoint {
            first: 0,
            second: 1
        })
    );
}

#[test]
fn flat_outlines_have_zero_area() {
    assert_eq!(
        decompose(&pts(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)])),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        decompose(&pts(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)])),
        Err(ShapeError::ZeroArea)
    );
}

#[test]
fn bow_tie_is_self_intersecting() {
    let bow_tie = pts(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]);
    assert_eq!(
        decompose(&bow_tie),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 2
        })
    );
}

#[test]
fn spiral_whose_far_edges_cross_is_self_intersecting() {
    // Round the outer square, in along y = 2, up, left, then down across the first edge
    // (and edge 4) before closing at the start: edges 0 and 7 are far apart in the list.
    let spiral = pts(&[
        (0.0, 0.0),
        (6.0, 0.0),
        (6.0, 6.0),
        (0.0, 6.0),
        (0.0, 2.0),
        (4.0, 2.0),
        (4.0, 4.0),
        (2.0, 4.0),
        (2.0, -1.0),
    ]);
    assert_eq!(
        decompose(&spiral),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 7
        })
    );
    // Stop the last edge short of edge 0 (at y = 1): it still crosses edge 4.
    let mut shorter = spiral.clone();
    shorter[8] = v(2.0, 1.0);
    assert_eq!(
        decompose(&shorter),
        Err(ShapeError::SelfIntersecting {
            first: 4,
            second: 7
        })
    );
}

#[test]
fn vertex_touching_a_far_edge_is_self_intersecting() {
    // Point 3 sits on edge 0.
    let touching = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (2.0, 0.0), (0.0, 3.0)]);
    assert_eq!(
        decompose(&touching),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 2
        })
    );
}

// ---------------------------------------------------------------------------------------
// Properties over random simple outlines.

fn config() -> Config {
    Config {
        cases: 400,
        rng_seed: RngSeed::Fixed(0xdec0),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Where an outline sits: a power-of-ten scale (tiny to huge) and an offset of a few sizes.
fn placement() -> impl Strategy<Value = (f64, DVec2)> {
    (
        prop::sample::select(vec![1e-20, 1e-3, 1.0, 1e3, 1e20]),
        -3.0f64..3.0,
        -3.0f64..3.0,
    )
        .prop_map(|(scale, x, y)| (scale, DVec2::new(x, y)))
}

fn place(
    points: &[DVec2],
    (scale, offset): (f64, DVec2),
    reverse: bool,
    start: usize,
) -> Vec<Vec2> {
    let mut out: Vec<Vec2> = points
        .iter()
        .map(|&p| ((p + offset) * scale).as_vec2())
        .collect();
    if reverse {
        out.reverse();
    }
    let len = out.len();
    out.rotate_left(start % len);
    out
}

/// Star-shaped outlines of 3 to 40 points: radii 0.2 to 1 at sorted angles around the
/// centre (always simple), the angle steps at least half the mean so no two points nearly
/// coincide.
fn star_shaped() -> impl Strategy<Value = Vec<Vec2>> {
    (
        3usize..=40,
        prop::collection::vec(1.0f64..2.0, 40),
        prop::collection::vec(0.2f64..1.0, 40),
        placement(),
        any::<bool>(),
        0usize..40,
    )
        .prop_map(|(n, steps, radii, placement, reverse, start)| {
            let total: f64 = steps[..n].iter().sum();
            let mut angle = 0.0;
            let points: Vec<DVec2> = (0..n)
                .map(|k| {
                    angle += steps[k] / total * std::f64::consts::TAU;
                    radii[k] * DVec2::from_angle(angle)
                })
                .collect();
            place(&points, placement, reverse, start)
        })
}

/// Orthogonal outlines: columns of random widths, each spanning a random height range that
/// overlaps its neighbour's. Equal heights in a row leave collinear points, which
/// `decompose` must drop.
fn orthogonal() -> impl Strategy<Value = Vec<Vec2>> {
    (
        prop::collection::vec((1u32..=3, 0i32..4, 1i32..5), 1..=10),
        placement(),
        any::<bool>(),
        0usize..40,
    )
        .prop_map(|(columns, placement, reverse, start)| {
            let mut lo: Vec<i32> = columns.iter().map(|c| c.1).collect();
            let mut hi: Vec<i32> = columns.iter().map(|c| c.1 + c.2).collect();
            for k in 1..columns.len() {
                if hi[k] <= lo[k - 1] {
                    hi[k] = lo[k - 1] + 1;
                }
                if lo[k] >= hi[k - 1] {
                    lo[k] = hi[k - 1] - 1;
                }
            }
            let mut x = vec![0i32];
            for c in &columns {
                x.push(x[x.len() - 1] + c.0 as i32);
            }
            let m = columns.len();
            let mut ring = vec![(x[0], lo[0])];
            for k in 0..m {
                ring.push((x[k + 1], lo[k]));
                if k + 1 < m {
                    ring.push((x[k + 1], lo[k + 1]));
                }
            }
            for k in (0..m).rev() {
                ring.push((x[k + 1], hi[k]));
                ring.push((x[k], hi[k]));
            }
            // Equal heights on either side of a column boundary repeat a point.
            ring.dedup();
            if ring.first() == ring.last() {
                ring.pop();
            }
            let points: Vec<DVec2> = ring
                .iter()
                .map(|&(x, y)| DVec2::new(x as f64, y as f64) * 0.25)
                .collect();
            place(&points, placement, reverse, start)
        })
}

/// Star-shaped outlines snapped to a coarse grid: aligned and collinear points everywhere,
/// some points merged or pushed across an edge. Either an error that the input really has,
/// or a valid decomposition.
fn snapped() -> impl Strategy<Value = Vec<Vec2>> {
    (
        3usize..=40,
        prop::collection::vec(1.0f64..2.0, 40),
        prop::collection::vec(0.2f64..1.0, 40),
        prop::sample::select(vec![4.0, 8.0, 16.0]),
        placement(),
        any::<bool>(),
        0usize..40,
    )
        .prop_map(|(n, steps, radii, grid, placement, reverse, start)| {
            let total: f64 = steps[..n].iter().sum();
            let mut angle = 0.0;
            let points: Vec<DVec2> = (0..n)
                .map(|k| {
                    angle += steps[k] / total * std::f64::consts::TAU;
                    (radii[k] * DVec2::from_angle(angle) * grid).round() / grid
                })
                .collect();
            place(&points, placement, reverse, start)
        })
}

/// Whether an error names input that is really bad, judged in f64 with a margin well above
/// the library's tolerance.
fn error_is_true(outline: &[Vec2], error: &ShapeError) -> bool {
    let ring = Frame::of(outline).map(outline);
    let n = ring.len();
    match *error {
        ShapeError::RepeatedPoint { first, second } => ring[first].distance(ring[second]) < 1e-4,
        ShapeError::SelfIntersecting { first, second } => {
            let (a0, a1) = (ring[first], ring[(first + 1) % n]);
            let (b0, b1) = (ring[second], ring[(second + 1) % n]);
            let apart = [
                distance_to_segment(a0, b0, b1),
                distance_to_segment(a1, b0, b1),
                distance_to_segment(b0, a0, a1),
                distance_to_segment(b1, a0, a1),
            ]
            .into_iter()
            .fold(f64::INFINITY, f64::min);
            let side = |p: DVec2, q: DVec2, r: DVec2| (q - p).perp_dot(r - p).signum();
            let cross =
                side(a0, a1, b0) != side(a0, a1, b1) && side(b0, b1, a0) != side(b0, b1, a1);
            cross || apart < 1e-4
        }
        ShapeError::ZeroArea => signed_area(&ring).abs() < 1e-4,
        _ => false,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn star_shaped_outlines_tile_into_valid_convex_pieces(outline in star_shaped()) {
        let pieces = decompose(&outline).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        check(&outline, &pieces).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn orthogonal_outlines_tile_into_valid_convex_pieces(outline in orthogonal()) {
        let pieces = decompose(&outline).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        check(&outline, &pieces).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn grid_snapped_outlines_tile_or_fail_truly(outline in snapped()) {
        match decompose(&outline) {
            Ok(pieces) => check(&outline, &pieces).map_err(TestCaseError::fail)?,
            Err(e) => prop_assert!(error_is_true(&outline, &e), "{}: {:?}", e, outline),
        }
    }
}
