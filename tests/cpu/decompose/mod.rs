//! `decompose`: literature outlines with known piece counts, error cases naming the bad
//! input, and properties over random simple polygons (star-shaped, orthogonal, and
//! star-shaped snapped to a coarse grid), each checked against independent f64 geometry:
//! the pieces tile the outline, are valid convex polygons made of the outline's own points,
//! and no two neighbours could merge. One test feeds the checks bad decompositions, to show
//! that each of them can fail.
//!
//! The f64 geometry and the checks are here; the tests are in one file per topic.

mod errors;
mod literature;
mod properties;

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
