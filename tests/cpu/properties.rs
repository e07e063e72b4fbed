//! Property tests of the CPU reference `collide` over thousands of seeded random convex
//! polygons and poses, against independent f64 computations.

use crate::common;

use common::strategies::{polygon, transform};
use common::{brute_force_overlap, inside_margin, world_vertices};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{Polygon, Transform, collide, collision::RELATIVE_TIE_TOLERANCE};

/// Brute-force verdicts closer than this to the boundary case are left out of the
/// comparison: f32 rounding of the pose (about 1e-7 of coordinates near 3) decides them.
const RAW_MARGIN: f64 = 1e-5;
/// A step comfortably above f32 rounding at this scale, used to nudge poses.
const NUDGE: f32 = 1e-4;

fn config() -> Config {
    Config {
        cases: 4000,
        rng_seed: RngSeed::Fixed(0x5a72d),
        failure_persistence: None,
        ..Config::default()
    }
}

fn moved(t: &Transform, by: Vec2) -> Transform {
    Transform::from_rotation(t.translation() + by, t.rotation())
}

/// For each polygon, the best (largest) f64 separation over its own edge normals:
/// `max_i min_j n_i · (w_j - v_i)`.
fn best_separation(p: &[DVec2], q: &[DVec2]) -> f64 {
    (0..p.len())
        .map(|i| {
            let e = p[(i + 1) % p.len()] - p[i];
            let n = DVec2::new(e.y, -e.x).normalize();
            q.iter()
                .map(|&w| n.dot(w - p[i]))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn tie_tolerance(a: &Polygon, b: &Polygon) -> f32 {
    RELATIVE_TIE_TOLERANCE * a.bounding_radius().min(b.bounding_radius())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn overlap_agrees_with_brute_force(a in polygon(), ta in transform(), b in polygon(), tb in transform()) {
        let (overlap, margin) = brute_force_overlap(&world_vertices(&a, &ta), &world_vertices(&b, &tb));
        prop_assume!(margin > RAW_MARGIN);
        prop_assert_eq!(collide(&a, &ta, &b, &tb).is_some(), overlap);
    }

    #[test]
    fn depth_is_the_smallest_projection_overlap(a in polygon(), ta in transform(), b in polygon(), tb in transform()) {
        let Some(m) = collide(&a, &ta, &b, &tb) else { return Ok(()) };
        let (wa, wb) = (world_vertices(&a, &ta), world_vertices(&b, &tb));
        let smallest = -best_separation(&wa, &wb).max(best_separation(&wb, &wa));
        let depth = m.depth as f64;
        prop_assert!(depth >= smallest - 1e-5, "depth {} below the smallest overlap {}", depth, smallest);
        prop_assert!(depth <= smallest + tie_tolerance(&a, &b) as f64 + 1e-5,
            "depth {} above the smallest overlap {} by more than the tie tolerance", depth, smallest);
        prop_assert!((m.normal.length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn moving_b_by_the_mtv_separates_them(a in polygon(), ta in transform(), b in polygon(), tb in transform()) {
        let Some(m) = collide(&a, &ta, &b, &tb) else { return Ok(()) };
        let out = moved(&tb, m.normal * (m.depth + NUDGE));
        prop_assert!(collide(&a, &ta, &b, &out).is_none(), "still overlapping after the MTV: {:?}", m);
        let (still, margin) = brute_force_overlap(&world_vertices(&a, &ta), &world_vertices(&b, &out));
        prop_assert!(!still || margin < RAW_MARGIN);
        // Any shorter move along the normal leaves them overlapping. The reported depth can
        // exceed the true minimum by the tie tolerance, so step back by more than that.
        let short = m.depth - (2.0 * tie_tolerance(&a, &b) + NUDGE);
        prop_assume!(short > 0.0);
        let part = moved(&tb, m.normal * short);
        prop_assert!(collide(&a, &ta, &b, &part).is_some(), "separated by a move of {} < depth {}", short, m.depth);
    }

    #[test]
    fn contact_points_lie_in_both_polygons_grown_by_depth(a in polygon(), ta in transform(), b in polygon(), tb in transform()) {
        let Some(m) = collide(&a, &ta, &b, &tb) else { return Ok(()) };
        let (wa, wb) = (world_vertices(&a, &ta), world_vertices(&b, &tb));
        prop_assert!((1..=2).contains(&m.points().len()));
        for p in m.points() {
            let grow = m.depth as f64 + 1e-5;
            prop_assert!(inside_margin(&wa, p.point.as_dvec2()) >= -grow, "{:?} outside A", p);
            prop_assert!(inside_margin(&wb, p.point.as_dvec2()) >= -grow, "{:?} outside B", p);
            prop_assert!(p.depth > 0.0 && p.depth <= m.depth + 1e-5, "point depth {} vs {}", p.depth, m.depth);
        }
    }

    #[test]
    fn swapping_the_arguments_flips_the_normal(a in polygon(), ta in transform(), b in polygon(), tb in transform()) {
        let ab = collide(&a, &ta, &b, &tb);
        let ba = collide(&b, &tb, &a, &ta);
        let (wa, wb) = (world_vertices(&a, &ta), world_vertices(&b, &tb));
        let (sa, sb) = (best_separation(&wa, &wb), best_separation(&wb, &wa));
        // Near-touching pairs may round either way.
        prop_assume!(sa.max(sb).abs() > RAW_MARGIN);
        prop_assert_eq!(ab.is_some(), ba.is_some());
        let (Some(ab), Some(ba)) = (ab, ba) else { return Ok(()) };
        let tie = tie_tolerance(&a, &b);
        prop_assert!((ab.depth - ba.depth).abs() <= tie + 1e-5);
        // Outside the tie band, both orders pick the same face.
        if (sa - sb).abs() > 2.0 * tie as f64 {
            prop_assert!((ab.normal + ba.normal).length() < 1e-5, "{:?} vs {:?}", ab.normal, ba.normal);
            prop_assert!((ab.depth - ba.depth).abs() < 1e-5);
            prop_assert_eq!(ab.points().len(), ba.points().len());
        }
    }
}
