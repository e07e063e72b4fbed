//! Continuous collision: fast bodies are swept from where a step started them to where the
//! solver left them, and stopped at the first time of impact, so they cannot pass through
//! a thin obstacle between two steps.
//!
//! ```text
//! after the solver, for each dynamic body b:
//!     travel = |c1 - c0| + |angle change| * (farthest point of b from its centre)
//!     swept if b is a bullet, or travel > FAST_FRACTION * (thickness of b's thinnest piece)
//!     obstacles: colliders of static bodies; for a bullet also those of non-bullet dynamic
//!                bodies, at their end-of-step poses (held still)
//!     candidates: obstacles whose box meets the box of b's whole sweep
//!     t = min over b's pieces and candidates of time_of_impact(piece, sweep, obstacle);
//!         a piece already touching the obstacle at the start (a hit at t = 0) is swept
//!         again as its core, the piece shrunk by CORE_INSET: shallow contact does not
//!         stop the body, but it cannot sink deeper than the inset in one step
//!     if t < 1: put b at its pose at t, moved along the normal into the obstacle by
//!               IMPACT_OVERLAP so that next step's narrow phase reports the contact;
//!               one rigid impulse at the centre of the contact there stops the approach
//!               (or bounces, with the pair's restitution)
//! ```
//!
//! Why the impulse: the contact solver resolves a contact point by point over a few
//! substeps, which is right for resting contact but leaves an impact of hundreds of units
//! per second unconverged (a box hitting a wall flat at 300 units per second came back at
//! 12). One impulse through the middle of the manifold removes the approach at once without
//! spinning the body; the solver then starts from a resting contact. The rest of the step's
//! motion is dropped, as in Box2D: a fast body loses a fraction of a step at each impact.
//! Fast non-bullet bodies are not swept against each other; mark a body as a bullet for
//! that (it costs a pass over every collider).

use glam::Vec2;

use crate::aabb::Aabb;
use crate::body::Body;
use crate::circle::Circle;
use crate::narrow_phase::Collider;
use crate::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::sat::collide_shapes;
use crate::shape::Shape;
use crate::solver::{BodyMaterial, BodyState, LINEAR_SLOP, apply_impact};
use crate::toi::{Sweep, time_of_impact};

/// A body that moves more than this fraction of its thinnest piece's thickness scale in a
/// step is swept. Half: a body that covers less than half its own thickness per step meets
/// any obstacle at least as thick as itself on some step boundary with overlap, and the
/// solver pushes it back out the way it came.
const FAST_FRACTION: f32 = 0.5;

/// How far a stopped body is left inside the obstacle: half the solver's slop, so the
/// contact exists (touching is not overlapping) and is shallower than the depth the solver
/// keeps, which makes the solver stop the approach without pushing back.
const IMPACT_OVERLAP: f32 = 0.5 * LINEAR_SLOP;

/// Where each body was at the start of the step, and how far it turned during it.
pub(crate) struct StepStart<'a> {
    pub centers: &'a [Vec2],
    pub rotations: &'a [Vec2],
    /// Angle turned during the step, radians (not wrapped: a spinning body may turn more
    /// than half a turn).
    pub turned: &'a [f32],
}

/// The world as the continuous stage reads it: end-of-step colliders and their boxes.
pub(crate) struct Obstacles<'a> {
    pub bodies: &'a [Body],
    pub shapes: &'a [Shape],
    pub colliders: &'a [Collider],
    pub collider_bodies: &'a [u32],
    pub aabbs: &'a [Aabb],
    /// Colliders of static bodies, the obstacles of every swept body.
    pub static_colliders: &'a [u32],
}

/// How far inside a piece its core lies (see `core`): twice the solver's slop, so the
/// resting overlap the solver keeps never makes the core touch.
const CORE_INSET: f32 = 2.0 * LINEAR_SLOP;

/// The piece shrunk by `CORE_INSET` (at most half its thickness): a polygon with every edge
/// moved inwards, or a circle of a smaller radius. A polygon whose inset loses an edge falls
/// back to the circle inscribed about its centroid, shrunk the same way.
fn core(shape: &Shape) -> Option<Shape> {
    match shape {
        Shape::Circle(c) => {
            let inset = CORE_INSET.min(0.5 * c.radius());
            Circle::with_center(c.center(), c.radius() - inset)
                .ok()
                .map(Shape::Circle)
        }
        Shape::Polygon(p) => {
            let (v, n) = (p.vertices(), p.normals());
            let thickness = p.inner_radius();
            let inset = CORE_INSET.min(0.5 * thickness);
            let count = v.len();
            // Vertex i is where the edges before and after it meet: moving both edge lines
            // in by `inset` moves it along the sum of their normals, scaled so that it keeps
            // that distance from each line.
            let mut moved = [Vec2::ZERO; MAX_POLYGON_VERTICES];
            for (i, m) in moved.iter_mut().enumerate().take(count) {
                let (before, after) = (n[(i + count - 1) % count], n[i]);
                let bisector = before + after;
                *m = v[i] - bisector * (inset / (1.0 + before.dot(after)));
            }
            Polygon::new(&moved[..count])
                .map(Shape::Polygon)
                .ok()
                .or_else(|| {
                    Circle::with_center(p.centroid(), thickness - inset)
                        .ok()
                        .map(Shape::Circle)
                })
        }
    }
}

/// What the stage did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContinuousStats {
    pub swept: usize,
    pub impacts: usize,
}

/// The bodies' motion state, updated in place: end-of-step centres and rotations, and
/// velocities.
pub(crate) struct Motion<'a> {
    pub centers: &'a mut [Vec2],
    pub rotations: &'a mut [Vec2],
    pub states: &'a mut [BodyState],
    pub materials: &'a [BodyMaterial],
}

/// Sweeps the fast bodies, moves those that hit something back to their time of impact and
/// applies the impact. The bodies that moved are appended to `moved`.
pub(crate) fn solve_continuous(
    start: &StepStart<'_>,
    world: &Obstacles<'_>,
    motion: &mut Motion<'_>,
    moved: &mut Vec<usize>,
) -> ContinuousStats {
    let Motion {
        centers,
        rotations,
        states,
        materials,
    } = motion;
    let mut stats = ContinuousStats::default();
    for (index, body) in world.bodies.iter().enumerate() {
        if body.is_static {
            continue;
        }
        let (c0, c1, turned) = (start.centers[index], centers[index], start.turned[index]);
        let travel = c0.distance(c1) + turned.abs() * body.max_extent;
        if travel == 0.0 || !(body.is_bullet || travel > FAST_FRACTION * body.min_extent) {
            continue;
        }
        stats.swept += 1;
        let a0 = start.rotations[index].to_angle();
        let sweep = Sweep {
            local_center: body.local_center,
            c0,
            c1,
            a0,
            a1: a0 + turned,
        };
        // Every point of the body stays within max_extent of its centre, and the centre
        // moves on the segment c0 c1: the boxes of the two end discs bound the sweep.
        let reach = Vec2::splat(body.max_extent);
        let swept_box = Aabb::new(c0.min(c1) - reach, c0.max(c1) + reach);

        // (t, normal, how far to move along it at t, piece collider, obstacle collider) of
        // the earliest hit.
        let mut first: Option<(f32, Vec2, f32, usize, usize)> = None;
        let mut consider = |obstacle: usize| {
            if !world.aabbs[obstacle].overlaps(&swept_box) {
                return;
            }
            let other = &world.colliders[obstacle];
            let other_sweep = Sweep::fixed(&other.transform);
            for piece in body.colliders() {
                let shape = &world.shapes[world.colliders[piece].shape as usize];
                let obstacle_shape = &world.shapes[other.shape as usize];
                let Some(mut hit) = time_of_impact(shape, &sweep, obstacle_shape, &other_sweep)
                else {
                    continue;
                };
                // Close the gap the time of impact leaves, and overlap by IMPACT_OVERLAP.
                let mut push = hit.separation.max(0.0) + IMPACT_OVERLAP;
                if hit.t == 0.0 {
                    // Already in touch: sweep the core instead. It is CORE_INSET inside the
                    // piece, so its contact means that depth of overlap; place it touching.
                    match core(shape)
                        .and_then(|c| time_of_impact(&c, &sweep, obstacle_shape, &other_sweep))
                    {
                        Some(core_hit) if core_hit.t > 0.0 => {
                            hit = core_hit;
                            push = hit.separation.max(0.0);
                        }
                        _ => continue,
                    }
                }
                if first.is_none_or(|(t, ..)| hit.t < t) {
                    first = Some((hit.t, hit.normal, push, piece, obstacle));
                }
            }
        };
        for &obstacle in world.static_colliders {
            consider(obstacle as usize);
        }
        if body.is_bullet {
            for (obstacle, &owner) in world.collider_bodies.iter().enumerate() {
                let other = &world.bodies[owner as usize];
                if owner as usize != index && !other.is_static && !other.is_bullet {
                    consider(obstacle);
                }
            }
        }
        let Some((t, normal, push, piece, obstacle)) = first else {
            continue;
        };
        if t >= 1.0 {
            continue;
        }
        // The normal points from the swept piece (A) to the obstacle (B).
        centers[index] = c0.lerp(c1, t) + push * normal;
        rotations[index] = Vec2::from_angle(a0 + turned * t);
        stats.impacts += 1;
        moved.push(index);

        // The contact at the new pose: the manifold's middle is where the impulse goes.
        let q = rotations[index];
        let origin = centers[index] - crate::transform::rotate(q, body.local_center);
        let pose = crate::transform::Transform::from_rotation(origin, q);
        let other = &world.colliders[obstacle];
        let Some(manifold) = collide_shapes(
            &world.shapes[world.colliders[piece].shape as usize],
            &pose,
            &world.shapes[other.shape as usize],
            &other.transform,
        ) else {
            continue;
        };
        let points = manifold.points();
        let middle = points.iter().map(|p| p.point).sum::<Vec2>() / points.len() as f32;
        let owner = world.collider_bodies[obstacle] as usize;
        let restitution = materials[index]
            .restitution
            .max(materials[owner].restitution);
        apply_impact(
            states,
            [index, owner],
            [centers[index], centers[owner]],
            middle,
            manifold.normal,
            restitution,
        );
    }
    stats
}
