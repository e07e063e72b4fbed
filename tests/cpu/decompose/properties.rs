//! Properties over random simple outlines: star-shaped, orthogonal, and star-shaped snapped
//! to a coarse grid, at any scale and offset.

use super::*;

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
