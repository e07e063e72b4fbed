//! Properties over random shapes and sweeps, checked by dense sampling with
//! `collide_shapes` and the independent f64 distance.

use super::*;

/// Shapes of size 0.1 to 1.2: circles (a quarter, some off their local origin), thin rods,
/// boxes, and convex polygons of 3 to 8 vertices on ellipses (off the origin too).
fn shape() -> impl Strategy<Value = Shape> {
    shape_of_kind(0u8..8)
}

/// The polygons of [`shape`] only.
fn polygon() -> impl Strategy<Value = Shape> {
    shape_of_kind(2u8..8)
}

fn shape_of_kind(kinds: std::ops::Range<u8>) -> impl Strategy<Value = Shape> {
    (
        3usize..=8,
        prop::collection::vec(0.0f32..std::f32::consts::TAU, 8),
        0.1f32..1.2,
        0.1f32..1.2,
        kinds,
        -0.3f32..0.3,
        -0.3f32..0.3,
    )
        .prop_filter_map(
            "degenerate outline",
            |(n, mut angles, sx, sy, kind, cx, cy)| match kind {
                0 | 1 => Circle::with_center(v(cx, cy), sx).ok().map(Shape::from),
                2 => Some(Shape::from(Polygon::rectangle(
                    sx,
                    sy.min(sx * 0.1).max(0.02),
                ))),
                3 => Some(Shape::from(Polygon::rectangle(sx, sy))),
                _ => {
                    angles.truncate(n);
                    angles.sort_by(f32::total_cmp);
                    let points: Vec<Vec2> = angles
                        .iter()
                        .map(|&a| Vec2::from_angle(a) * v(sx, sy) + v(cx, cy))
                        .collect();
                    Polygon::new(&points).ok().map(Shape::from)
                }
            },
        )
}

/// A sweep starting within 3 units of the origin, moving up to 6 units and turning up to
/// 1.5 turns either way (a quarter of them not turning, a quarter not moving).
fn sweep() -> impl Strategy<Value = Sweep> {
    (
        (-3.0f32..3.0, -3.0f32..3.0),
        (-6.0f32..6.0, -6.0f32..6.0),
        -std::f32::consts::PI..std::f32::consts::PI,
        -9.5f32..9.5,
        (-0.3f32..0.3, -0.3f32..0.3),
        0u8..4,
    )
        .prop_map(|((x, y), (dx, dy), a0, turn, (lx, ly), kind)| {
            let c0 = v(x, y);
            let (dx, dy, turn) = match kind {
                0 => (dx, dy, 0.0),
                1 => (0.0, 0.0, turn),
                _ => (dx, dy, turn),
            };
            Sweep {
                local_center: v(lx, ly),
                c0,
                c1: c0 + v(dx, dy),
                a0,
                a1: a0 + turn,
            }
        })
}

fn check_sampled(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep) -> Result<(), TestCaseError> {
    let tol = toi_tolerance(a, sa, b, sb);
    let hit = time_of_impact(a, sa, b, sb);
    let before = hit.map_or(2.0, |h| h.t);
    let (first, deepest_before) = sample(a, sa, b, sb, 200, tol, before);
    if let Some(first) = first {
        let hit = hit.ok_or_else(|| {
            TestCaseError::fail(format!("overlap sampled at {first}, but no hit reported"))
        })?;
        prop_assert!(hit.t <= first, "{hit:?}, overlap sampled at {first}");
    }
    prop_assert!(
        deepest_before <= tol,
        "overlap {deepest_before} sampled before {hit:?}"
    );
    if let Some(h) = hit {
        prop_assert!((0.0..=1.0).contains(&h.t), "{h:?}");
        prop_assert!((h.normal.length() - 1.0).abs() < 1e-5, "{h:?}");
        let d = distance_at(a, sa, b, sb, h.t);
        if h.t > 0.0 {
            // Apart at t, and as far apart as reported (an f64 distance from world
            // vertices): within the tolerance, unless the iteration cap was reached.
            prop_assert!(h.separation >= 0.0, "{h:?}");
            prop_assert!(d >= -1e-6, "{h:?}: overlap {d} at t");
            prop_assert!(
                (d - h.separation as f64).abs() < 1e-4,
                "{h:?}: distance {d}"
            );
        } else {
            prop_assert!(h.separation <= tol, "{h:?}");
            prop_assert!(d <= tol as f64 + 1e-5, "{h:?}: distance {d}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config {
        cases: 3000,
        rng_seed: RngSeed::Fixed(0x70e),
        failure_persistence: None,
        ..Config::default()
    })]

    /// Sampling the sweep 200 times with `collide_shapes`: a sample that overlaps by more
    /// than the tolerance means a hit no later than it, and no sample before the hit
    /// overlaps.
    #[test]
    fn a_sampled_overlap_is_never_missed_nor_preceded(
        a in shape(), b in shape(), sa in sweep(), sb in sweep()
    ) {
        check_sampled(&a, &sa, &b, &sb)?;
    }

    /// Pure translation of two polygons: the swept SAT is exact, so the hit is within the
    /// tolerance of the first touching time, which bisection of an f64 overlap test finds.
    #[test]
    fn translating_polygons_hit_at_the_first_touching_time(
        a in polygon(), b in polygon(), sa in sweep(), sb in sweep()
    ) {
        let sa = Sweep { a1: sa.a0, ..sa };
        let sb = Sweep { a1: sb.a0, ..sb };
        let overlapping = |t: f32| distance_at(&a, &sa, &b, &sb, t) <= 0.0;
        let hit = time_of_impact(&a, &sa, &b, &sb);
        // The first overlapping time by sampling, then bisection.
        let first = (0..=1000).map(|k| k as f32 / 1000.0).find(|&t| overlapping(t));
        match (first, hit) {
            (None, _) => {}
            (Some(first), None) => {
                prop_assert!(false, "overlap from {first}, but no hit");
            }
            (Some(first), Some(h)) => {
                let (mut lo, mut hi) = ((first - 1e-3).max(0.0), first);
                if overlapping(lo) { hi = lo; }
                for _ in 0..30 {
                    let mid = 0.5 * (lo + hi);
                    if overlapping(mid) { hi = mid; } else { lo = mid; }
                }
                let speed = (sb.c1 - sb.c0 - (sa.c1 - sa.c0)).length();
                let tol = toi_tolerance(&a, &sa, &b, &sb);
                prop_assert!(h.t <= hi + 1e-6, "{h:?}, touching at {hi}");
                // Within the tolerance of the contact: the distance at t is at most tol, and
                // the time it takes to close it is bounded by that over the approach speed
                // along the normal (exact for a face contact under translation).
                let approach = -h.normal.dot(sb.c1 - sb.c0 - (sa.c1 - sa.c0));
                prop_assert!(h.separation <= tol, "{h:?}");
                if approach > 0.05 * speed && h.t > 0.0 {
                    prop_assert!(hi - h.t <= (tol + 1e-5) / approach + 1e-5,
                        "{h:?}, touching at {hi}, approach {approach}");
                }
            }
        }
    }

    /// Swapping A and B swaps nothing but the normal's sign.
    #[test]
    fn swapping_the_shapes_reverses_the_normal(
        a in shape(), b in shape(), sa in sweep(), sb in sweep()
    ) {
        let ab = time_of_impact(&a, &sa, &b, &sb);
        let ba = time_of_impact(&b, &sb, &a, &sa);
        let tol = toi_tolerance(&a, &sa, &b, &sb);
        match (ab, ba) {
            (Some(x), Some(y)) => {
                // Both are conservative and within the tolerance of contact.
                prop_assert!((x.t - y.t).abs() < 2e-3 || x.t.min(y.t) == 0.0, "{x:?} {y:?}");
                if x.separation.max(y.separation) <= tol && (x.t - y.t).abs() < 1e-4 {
                    prop_assert!(close(x.normal, -y.normal, 0.05), "{x:?} {y:?}");
                }
            }
            (None, None) => {}
            // Grazing: one side stops within the tolerance, the other passes.
            (Some(x), None) | (None, Some(x)) => {
                prop_assert!(x.separation >= 0.0 && x.separation <= tol, "{x:?}");
            }
        }
    }
}

/// Over many random pairs: how often the iteration cap is reached (then the separation
/// exceeds the tolerance), and that hits are common enough for the properties to bite.
#[test]
fn the_iteration_cap_is_rare_on_random_sweeps() {
    let mut runner = proptest::test_runner::TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(0xcab),
        ..Config::default()
    });
    let strategy = (shape(), shape(), sweep(), sweep());
    let (mut hits, mut capped, mut at_zero) = (0, 0, 0);
    let n = 20_000;
    for _ in 0..n {
        let (a, b, sa, sb) = strategy.new_tree(&mut runner).unwrap().current();
        if let Some(h) = time_of_impact(&a, &sa, &b, &sb) {
            hits += 1;
            at_zero += (h.t == 0.0) as usize;
            if h.separation > toi_tolerance(&a, &sa, &b, &sb) {
                capped += 1;
            }
        }
    }
    eprintln!("{n} pairs: {hits} hits ({at_zero} at t = 0), {capped} reached the cap");
    assert!(
        hits > n / 5 && hits - at_zero > n / 10,
        "{hits} hits, {at_zero} at 0"
    );
    assert!(
        capped * 100 <= hits,
        "{capped} of {hits} hits reached the cap"
    );
}
