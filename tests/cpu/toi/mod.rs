//! Time of impact: literature cases with hand-derived answers, sampled properties over random
//! sweeps (checked with `collide_shapes` and an independent f64 distance), and the GPU
//! kernel against the CPU reference.
//!
//! The shared helpers (shapes, sweeps, an independent f64 distance, dense sampling, random
//! batches) are here; the tests are in one file per topic.

mod batches;
#[cfg(feature = "gpu")]
mod gpu;
mod literature;
mod properties;

use crate::common;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngSeed};
use rand::Rng;
use wgpu_sat::error::BatchError;
#[cfg(feature = "gpu")]
use wgpu_sat::error::GpuError;
use wgpu_sat::glam::{DVec2, Vec2};
#[cfg(feature = "gpu")]
use wgpu_sat::gpu::GpuTimeOfImpact;
use wgpu_sat::{
    Circle, Error, Polygon, Shape, Sweep, Transform, collide_shapes, collision::toi::SweptCollider,
    collision::toi::TimeOfImpact, collision::toi::time_of_impact_pairs,
    collision::toi::toi_tolerance, time_of_impact,
};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn boxed(hw: f32, hh: f32) -> Shape {
    Shape::from(Polygon::rectangle(hw, hh))
}

fn circle(r: f32) -> Shape {
    Shape::from(Circle::new(r).unwrap())
}

fn still(x: f32, y: f32, angle: f32) -> Sweep {
    Sweep::fixed(&Transform::new(v(x, y), angle))
}

/// A sweep about the local origin from `from` to `to`, turning from `a0` to `a1`.
fn moving(from: Vec2, to: Vec2, a0: f32, a1: f32) -> Sweep {
    Sweep {
        local_center: Vec2::ZERO,
        c0: from,
        c1: to,
        a0,
        a1,
    }
}

fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
    (a - b).length() <= tol
}

/// The overlap depth of the pair at fraction `t` of the sweep (0 when apart or touching).
fn depth_at(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, t: f32) -> f32 {
    collide_shapes(a, &sa.transform_at(t), b, &sb.transform_at(t)).map_or(0.0, |m| m.depth)
}

// ---------------------------------------------------------------------------------------
// An independent distance, in f64, from world vertices: not the code under test.

enum Placed {
    Polygon(Vec<DVec2>),
    Circle(DVec2, f64),
}

fn placed(shape: &Shape, x: &Transform) -> Placed {
    match shape {
        Shape::Polygon(p) => Placed::Polygon(common::world_vertices(p, x)),
        Shape::Circle(c) => {
            Placed::Circle(x.transform_point(c.center()).as_dvec2(), c.radius() as f64)
        }
        other => panic!("this test places polygons and circles only, not {other:?}"),
    }
}

fn point_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let u = ((p - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
    (p - (a + u * e)).length()
}

/// Distance from a point to a convex polygon's boundary, negative inside.
fn point_polygon(p: DVec2, poly: &[DVec2]) -> f64 {
    let inside = common::inside_margin(poly, p);
    if inside >= 0.0 {
        return -inside;
    }
    (0..poly.len())
        .map(|i| point_segment(p, poly[i], poly[(i + 1) % poly.len()]))
        .fold(f64::INFINITY, f64::min)
}

/// The distance between two placed shapes when apart, and a non-positive number when they
/// overlap (only its sign is meaningful then).
fn independent_distance(a: &Placed, b: &Placed) -> f64 {
    match (a, b) {
        (Placed::Polygon(p), Placed::Polygon(q)) => {
            if common::brute_force_overlap(p, q).0 {
                return -1.0;
            }
            let mut best = f64::INFINITY;
            for (poly, other) in [(p, q), (q, p)] {
                for &w in other {
                    for i in 0..poly.len() {
                        best = best.min(point_segment(w, poly[i], poly[(i + 1) % poly.len()]));
                    }
                }
            }
            best
        }
        (Placed::Polygon(p), Placed::Circle(c, r)) | (Placed::Circle(c, r), Placed::Polygon(p)) => {
            point_polygon(*c, p) - r
        }
        (Placed::Circle(c, r), Placed::Circle(d, s)) => (*c - *d).length() - r - s,
    }
}

fn distance_at(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, t: f32) -> f64 {
    independent_distance(
        &placed(a, &sa.transform_at(t)),
        &placed(b, &sb.transform_at(t)),
    )
}

/// Dense sampling of a sweep with `collide_shapes`: the first sampled time that overlaps by
/// more than `tol`, and the deepest overlap sampled before `before`.
fn sample(
    a: &Shape,
    sa: &Sweep,
    b: &Shape,
    sb: &Sweep,
    samples: usize,
    tol: f32,
    before: f32,
) -> (Option<f32>, f32) {
    let mut first = None;
    let mut deepest_before = 0.0f32;
    for k in 0..samples {
        let t = k as f32 / (samples - 1) as f32;
        let depth = depth_at(a, sa, b, sb, t);
        if depth > tol && first.is_none() {
            first = Some(t);
        }
        if t < before {
            deepest_before = deepest_before.max(depth);
        }
    }
    (first, deepest_before)
}

fn shape_table(rng: &mut impl Rng) -> Vec<Shape> {
    let mut shapes: Vec<Shape> = (0..24)
        .map(|_| {
            let size = rng.random_range(0.15..1.0);
            Shape::from(common::random_polygon(rng, size))
        })
        .collect();
    for _ in 0..8 {
        let c = v(rng.random_range(-0.2..0.2), rng.random_range(-0.2..0.2));
        shapes.push(Shape::from(
            Circle::with_center(c, rng.random_range(0.1..0.8)).unwrap(),
        ));
    }
    // A thin wall and a bullet.
    shapes.push(boxed(0.05, 2.0));
    shapes.push(boxed(0.05, 0.05));
    shapes
}

/// `count` swept colliders in a 10 x 10 area moving up to 6 units and turning up to a turn
/// and a half, and `pairs` random pairs among them (a third of them in fixed poses).
fn random_sweeps(
    rng: &mut impl Rng,
    shapes: usize,
    count: usize,
    pairs: usize,
) -> (Vec<SweptCollider>, Vec<[u32; 2]>) {
    let sweeps: Vec<SweptCollider> = (0..count)
        .map(|_| {
            let c0 = v(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
            let a0 = rng.random_range(-3.0..3.0);
            let sweep = if rng.random_bool(0.33) {
                Sweep::fixed(&Transform::new(c0, a0))
            } else {
                let turn = if rng.random_bool(0.3) {
                    0.0
                } else {
                    rng.random_range(-9.5..9.5)
                };
                Sweep {
                    local_center: v(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3)),
                    c0,
                    c1: c0 + v(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0)),
                    a0,
                    a1: a0 + turn,
                }
            };
            SweptCollider {
                shape: rng.random_range(0..shapes as u32),
                sweep,
            }
        })
        .collect();
    let pairs = (0..pairs)
        .map(|_| {
            loop {
                let i = rng.random_range(0..count as u32);
                let j = rng.random_range(0..count as u32);
                if i != j {
                    break [i, j];
                }
            }
        })
        .collect();
    (sweeps, pairs)
}
