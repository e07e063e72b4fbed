//! Continuous collision: fast bodies are swept from where a step started them to where the
//! solver left them, and stopped at the first time of impact, so they cannot pass through
//! a thin obstacle between two steps.
//!
//! ```text
//! after the solver, for each dynamic body b (kinematic bodies are never swept):
//!     travel = |c1 - c0| + |angle change| * (farthest point of b from its centre)
//!     swept if b is a bullet, or travel > FAST_FRACTION * (thickness of b's thinnest piece)
//!     obstacles: colliders of static bodies; for a bullet also those of kinematic and
//!                non-bullet dynamic bodies, at their end-of-step poses (held still); never a
//!                sensor, and only those each piece's collision filter lets it touch
//!     candidates: obstacles whose box meets the box of b's whole sweep; the static ones
//!                 found through a tree over the static colliders' boxes (StaticTree,
//!                 built again only when a static collider is added, removed or moved),
//!                 then tested in the order of the world's static list, as a scan would
//!     t = min over b's pieces and candidates of time_of_impact(piece, sweep, obstacle);
//!         a piece already touching the obstacle at the start (a hit at t = 0) is swept
//!         again as its core, the piece shrunk by CORE_INSET: shallow contact does not
//!         stop the body, but it cannot sink deeper than the inset in one step; a piece
//!         whose core touches too (sunk deeper, as a spinning piece's centre carries on
//!         after an off-centre impact) is swept as its probe, a small circle about its
//!         centroid (Box2D's fallback): its centroid does not cross the obstacle
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
use rayon::prelude::*;

use crate::broad_phase::query_tree::QueryTree;
use crate::collision::collide_shapes::collide_shapes;
use crate::collision::toi::{Sweep, TimeOfImpact, time_of_impact};
use crate::dynamics::body::Body;
use crate::dynamics::body_set::BodySet;
use crate::dynamics::collider_set::ColliderSet;
use crate::dynamics::solver::LINEAR_SLOP;
use crate::dynamics::state::{BodyMaterial, BodyState, apply_impact};
use crate::parallel;
use crate::shapes::aabb::Aabb;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::shapes::shape::Shape;
use crate::world::events::{ContactHit, Names};

/// A body that moves more than this fraction of its thinnest piece's thickness scale in a
/// step is swept. Half: a body that covers less than half its own thickness per step meets
/// any obstacle at least as thick as itself on some step boundary with overlap, and the
/// solver pushes it back out the way it came.
pub(crate) const FAST_FRACTION: f32 = 0.5;

/// How far a stopped body is left inside the obstacle: half the solver's slop, so the
/// contact exists (touching is not overlapping) and is shallower than the depth the solver
/// keeps, which makes the solver stop the approach without pushing back.
pub(crate) const IMPACT_OVERLAP: f32 = 0.5 * LINEAR_SLOP;

/// Where each body was at the start of the step, and how far it turned during it.
pub(crate) struct StepStart<'a> {
    pub centers: &'a [Vec2],
    pub rotations: &'a [Vec2],
    /// Angle turned during the step, radians (not wrapped: a spinning body may turn more
    /// than half a turn).
    pub turned: &'a [f32],
}

/// The parts of the world the continuous stage reads besides the bodies: the colliders at
/// their end-of-step poses and boxes (a swept piece only stops at an obstacle its filter
/// lets it touch; a sensor is never an obstacle, never swept; an impact bounces with the
/// larger restitution of the two surfaces), the shape table, the names hit events give,
/// and the tree over the static colliders' boxes.
pub(crate) struct Obstacles<'a> {
    pub colliders: &'a ColliderSet,
    pub shapes: &'a [Shape],
    /// How hit events name the slots, and each collider's body slot.
    pub names: &'a Names,
    /// The tree over the static colliders' boxes, brought up to date for this step
    /// (`StaticTree::refresh`).
    pub static_tree: &'a StaticTree,
}

/// The obstacles and the bodies' static records, read by the sweeps.
struct Scene<'a> {
    bodies: &'a [Body],
    colliders: &'a ColliderSet,
    shapes: &'a [Shape],
    names: &'a Names,
    static_tree: &'a StaticTree,
}

/// A bounding volume hierarchy over the static colliders' boxes, so that a swept body
/// visits the static obstacles near its sweep instead of all of them (a level of thousands
/// of tiles made the continuous stage a scan of every tile per fast body: 71% of `rain`'s
/// step). Static boxes only change when a static collider is added, removed or moved (the
/// world counts those changes: `revision`), so the tree is built again only then, into the
/// buffers it keeps.
#[derive(Clone, Debug, Default)]
pub(crate) struct StaticTree {
    tree: QueryTree,
    /// The world's static revision the tree was built at; `None` before the first build.
    built_at: Option<u64>,
    /// The static colliders' boxes, in the order of the static list (the build's input).
    boxes: Vec<Aabb>,
}

impl StaticTree {
    /// Builds the tree over `static_colliders` (boxes from `aabbs`) unless it was built at
    /// `revision` already.
    pub fn refresh(&mut self, revision: u64, static_colliders: &[u32], aabbs: &[Aabb]) {
        if self.built_at != Some(revision) {
            self.boxes.clear();
            self.boxes
                .extend(static_colliders.iter().map(|&c| aabbs[c as usize]));
            self.tree.build(&self.boxes);
            self.built_at = Some(revision);
        }
        // A change to a static box that the world failed to count would make the tree miss
        // obstacles: the tests (debug builds) compare every box.
        debug_assert!(
            self.boxes.len() == static_colliders.len()
                && static_colliders
                    .iter()
                    .zip(&self.boxes)
                    .all(|(&c, b)| aabbs[c as usize] == *b),
            "a static collider changed without a new static revision"
        );
    }

    /// The positions in the static list of the colliders whose boxes overlap `query`,
    /// ascending (the scan's order: among hits at the same time the first one tested wins,
    /// so the order is part of the result).
    fn overlapping(&self, query: &Aabb, found: &mut Vec<u32>) {
        found.clear();
        self.tree.boxes(query, |item| {
            found.push(item as u32);
            true
        });
        found.sort_unstable();
    }
}

/// How far inside a piece its core lies (see `core`): twice the solver's slop, so the
/// resting overlap the solver keeps never makes the core touch.
const CORE_INSET: f32 = 2.0 * LINEAR_SLOP;

/// The piece shrunk by `CORE_INSET` (at most half its thickness): a polygon with every edge
/// moved inwards, or a circle of a smaller radius. A polygon whose inset loses an edge falls
/// back to the circle inscribed about its centroid, shrunk the same way.
pub(crate) fn core(shape: &Shape) -> Option<Shape> {
    match shape {
        Shape::Circle(c) => {
            let inset = CORE_INSET.min(0.5 * c.radius());
            Circle::with_center(c.center(), c.radius() - inset)
                .ok()
                .map(Shape::Circle)
        }
        // A rounded polygon keeps its core and loses some of its rounding.
        Shape::Polygon(p) if p.radius() > 0.0 => {
            let inset = CORE_INSET.min(0.5 * p.radius());
            p.with_radius(p.radius() - inset).ok().map(Shape::Polygon)
        }
        Shape::Capsule(c) => {
            let inset = CORE_INSET.min(0.5 * c.radius());
            Capsule::new(c.a(), c.b(), c.radius() - inset)
                .ok()
                .map(Shape::Capsule)
        }
        // No thickness to inset: level geometry, swept against rather than swept.
        Shape::Segment(_) | Shape::ChainSegment(_) => Some(*shape),
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

/// A piece's probe's radius, as a fraction of the piece's thickness (see `probe`): a
/// quarter, the fraction Box2D's continuous stage gives the circle it sweeps about a shape's
/// centroid when the shape starts in touch. Small, so that a piece sunk deep into an
/// obstacle still has its probe outside it.
const PROBE_FRACTION: f32 = 0.25;

/// The piece's probe: a circle about its centroid, `PROBE_FRACTION` of its thickness (the
/// least distance from the centroid to its surface); none for a segment or a chain link,
/// which are never swept.
pub(crate) fn probe(shape: &Shape) -> Option<Shape> {
    let thickness = match shape {
        Shape::Polygon(p) => p.inner_radius(),
        Shape::Circle(c) => c.radius(),
        Shape::Capsule(c) => c.radius(),
        Shape::Segment(_) | Shape::ChainSegment(_) => return None,
    };
    let centroid = shape.centroid();
    Circle::with_center(centroid, PROBE_FRACTION * thickness)
        .ok()
        .map(Shape::Circle)
}

/// What the stage did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContinuousStats {
    pub swept: usize,
    pub impacts: usize,
}

/// The bodies' motion state, updated in place: end-of-step centres and rotations, and
/// velocities.
struct Motion<'a> {
    centers: &'a mut [Vec2],
    rotations: &'a mut [Vec2],
    states: &'a mut [BodyState],
    materials: &'a [BodyMaterial],
}

/// Bodies per task of the sweeps over the pool: a body that is not swept costs a few
/// nanoseconds, a swept one a tree query and a time of impact per obstacle near it (a
/// microsecond or more), and in a scene of fast bodies (washer's) most are swept.
const BODIES_PER_TASK: usize = 512;

/// The stage's scratch, kept between steps so that a warm world allocates nothing here.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContinuousScratch {
    blocks: Vec<SweepBlock>,
}

/// One block of bodies' sweeps: the static obstacles near a sweep (scratch), how many
/// bodies it swept, and its bodies that hit something, in body order.
#[derive(Clone, Debug, Default)]
struct SweepBlock {
    candidates: Vec<u32>,
    swept: usize,
    hits: Vec<(usize, SweptBody, Hit)>,
}

/// Sweeps the fast bodies, moves those that hit something back to their time of impact and
/// applies the impact. The bodies that moved are appended to `moved`, and the impacts
/// faster than `hits.0` to `hits.1` (the solver never sees their approach: the impact's
/// impulse has stopped it before the next step).
///
/// Two passes. The sweeps and their earliest hits run over the pool, in blocks of bodies:
/// each reads the start poses, its body's end pose and the colliders' end-of-step poses
/// and boxes, none of which the stage changes (an impact moves its body's centre and
/// rotation, not its colliders, which the caller updates after). The impacts then run in
/// body order on this thread, as they read and write two bodies' velocities each (a
/// bullet's impact pushes the body it hits). So the outcome is the serial loop's, bit for
/// bit, on any number of threads.
pub(crate) fn solve_continuous(
    start: &StepStart<'_>,
    obstacles: &Obstacles<'_>,
    bodies: &mut BodySet,
    moved: &mut Vec<usize>,
    scratch: &mut ContinuousScratch,
    hits: (Option<f32>, &mut Vec<ContactHit>),
) -> ContinuousStats {
    let (threshold, hits) = hits;
    let BodySet {
        records,
        centers,
        rotations,
        states,
        materials,
        ..
    } = bodies;
    let world = &Scene {
        bodies: records,
        colliders: obstacles.colliders,
        shapes: obstacles.shapes,
        names: obstacles.names,
        static_tree: obstacles.static_tree,
    };
    let motion = &mut Motion {
        centers,
        rotations,
        states,
        materials,
    };
    let body_count = world.bodies.len();
    let blocks = body_count.div_ceil(BODIES_PER_TASK);
    if scratch.blocks.len() < blocks {
        scratch.blocks.resize_with(blocks, SweepBlock::default);
    }
    let centers: &[Vec2] = motion.centers;
    scratch.blocks[..blocks]
        .par_iter_mut()
        .with_min_len(parallel::min_len(1))
        .enumerate()
        .for_each(|(b, block)| {
            block.swept = 0;
            block.hits.clear();
            let first = b * BODIES_PER_TASK;
            for index in first..(first + BODIES_PER_TASK).min(body_count) {
                let body = &world.bodies[index];
                let Some(swept) = swept_body(start, centers, index, body) else {
                    continue;
                };
                block.swept += 1;
                let hit = earliest_hit(world, index, body, &swept, &mut block.candidates);
                if let Some(hit) = hit.filter(|hit| hit.t < 1.0) {
                    block.hits.push((index, swept, hit));
                }
            }
        });
    let mut stats = ContinuousStats::default();
    for block in &scratch.blocks[..blocks] {
        stats.swept += block.swept;
        for (index, swept, hit) in &block.hits {
            let (index, body) = (*index, &world.bodies[*index]);
            let impact = stop_at_impact(world, motion, index, body, swept, hit);
            if let Some(impact) = impact.filter(|i| threshold.is_some_and(|t| i.speed > t)) {
                hits.push(impact);
            }
            stats.impacts += 1;
            moved.push(index);
        }
    }
    stats
}

/// A body the stage sweeps: its motion over the step and the box that motion stays in.
#[derive(Clone, Debug)]
struct SweptBody {
    sweep: Sweep,
    /// The angle turned over the step, as the solver accumulated it (`a1 - a0` would round).
    turned: f32,
    swept_box: Aabb,
}

/// The sweep of body `index` from its start pose to its end pose, if it is to be swept: a
/// dynamic body that moved, and is a bullet or moved more than `FAST_FRACTION` of its
/// thinnest piece.
fn swept_body(
    start: &StepStart<'_>,
    centers: &[Vec2],
    index: usize,
    body: &Body,
) -> Option<SweptBody> {
    // A kinematic body is left out: it goes where its velocity takes it (infinite mass:
    // nothing may stop it at a time of impact), and the dynamic bodies in its way are pushed
    // by the solver's speculative contacts, as Box2D does. For a bullet it is an obstacle
    // like a dynamic body, held still at its end-of-step pose (see `earliest_hit`).
    if !body.is_dynamic() {
        return None;
    }
    let (c0, c1, turned) = (start.centers[index], centers[index], start.turned[index]);
    let travel = c0.distance(c1) + turned.abs() * body.max_extent;
    if travel == 0.0 || !(body.is_bullet || travel > FAST_FRACTION * body.min_extent) {
        return None;
    }
    let a0 = crate::math::to_angle(start.rotations[index]);
    // Every point of the body stays within max_extent of its centre, and the centre moves on
    // the segment c0 c1: the boxes of the two end discs bound the sweep.
    let reach = Vec2::splat(body.max_extent);
    Some(SweptBody {
        sweep: Sweep {
            local_center: body.local_center,
            c0,
            c1,
            a0,
            a1: a0 + turned,
        },
        turned,
        swept_box: Aabb::new(c0.min(c1) - reach, c0.max(c1) + reach),
    })
}

/// The earliest time a swept body meets an obstacle.
#[derive(Clone, Debug)]
struct Hit {
    /// Fraction of the step.
    t: f32,
    /// From the swept piece (A) to the obstacle (B), world frame.
    normal: Vec2,
    /// How far to move the body along `normal` at `t`: the gap the time of impact leaves,
    /// plus the overlap that makes the contact exist.
    push: f32,
    /// The swept body's collider that hits, and the obstacle's collider.
    piece: usize,
    obstacle: usize,
}

/// The earliest hit of body `index` against the static colliders and, for a bullet, the
/// kinematic and non-bullet dynamic ones, at their end-of-step poses (held still).
fn earliest_hit(
    world: &Scene<'_>,
    index: usize,
    body: &Body,
    swept: &SweptBody,
    candidates: &mut Vec<u32>,
) -> Option<Hit> {
    let mut first: Option<Hit> = None;
    let mut consider = |obstacle: usize| {
        if !world.colliders.aabbs[obstacle].overlaps(&swept.swept_box) {
            return;
        }
        let other = &world.colliders.records[obstacle];
        let other_sweep = Sweep::fixed(&other.transform);
        let obstacle_shape = &world.shapes[other.shape as usize];
        for piece in body.colliders(&world.colliders.next) {
            if world.colliders.sensors[piece]
                || !world.colliders.filters[piece]
                    .should_collide(&world.colliders.filters[obstacle])
            {
                continue;
            }
            let shape = &world.shapes[world.colliders.records[piece].shape as usize];
            let Some((hit, push)) = piece_hit(shape, &swept.sweep, obstacle_shape, &other_sweep)
            else {
                continue;
            };
            if first.as_ref().is_none_or(|f| hit.t < f.t) {
                first = Some(Hit {
                    t: hit.t,
                    normal: hit.normal,
                    push,
                    piece,
                    obstacle,
                });
            }
        }
    };
    world.static_tree.overlapping(&swept.swept_box, candidates);
    for &position in candidates.iter() {
        consider(world.colliders.statics[position as usize] as usize);
    }
    if body.is_bullet {
        for (obstacle, &owner) in world.names.collider_bodies.iter().enumerate() {
            let other = &world.bodies[owner as usize];
            if owner as usize != index
                && !other.is_static
                && !other.is_bullet
                && !world.colliders.sensors[obstacle]
            {
                consider(obstacle);
            }
        }
    }
    first
}

/// When one piece on its sweep meets a still obstacle, and how far to push it along the
/// normal there. A piece already in touch at the start is swept as its core instead.
fn piece_hit(
    shape: &Shape,
    sweep: &Sweep,
    obstacle: &Shape,
    obstacle_sweep: &Sweep,
) -> Option<(TimeOfImpact, f32)> {
    let hit = time_of_impact(shape, sweep, obstacle, obstacle_sweep)?;
    if hit.t > 0.0 {
        // Close the gap the time of impact leaves, and overlap by IMPACT_OVERLAP.
        return Some((hit, hit.separation.max(0.0) + IMPACT_OVERLAP));
    }
    // Already in touch: sweep the core instead. It is CORE_INSET inside the piece, so its
    // contact means that depth of overlap; place it touching.
    let core_hit = core(shape).and_then(|c| time_of_impact(&c, sweep, obstacle, obstacle_sweep))?;
    if core_hit.t > 0.0 {
        return Some((core_hit, core_hit.separation.max(0.0)));
    }
    // The core in touch too: the piece sank deeper than the inset (an off-centre impact on
    // a spinning piece stops the contact point, and the spin carries the centre on). Sweep
    // its probe, so that a centroid still outside the obstacle does not cross it; placed
    // touching, the piece overlaps deeply, and the solver pushes it back out.
    let probe_hit =
        probe(shape).and_then(|p| time_of_impact(&p, sweep, obstacle, obstacle_sweep))?;
    (probe_hit.t > 0.0).then(|| (probe_hit, probe_hit.separation.max(0.0)))
}

/// Puts body `index` back at its pose at the hit, pushed along the normal, and stops its
/// approach with one rigid impulse through the middle of the contact there (or bounces it,
/// with the pair's restitution). Returns the impact as a hit event, if there was one.
fn stop_at_impact(
    world: &Scene<'_>,
    motion: &mut Motion<'_>,
    index: usize,
    body: &Body,
    swept: &SweptBody,
    hit: &Hit,
) -> Option<ContactHit> {
    let sweep = &swept.sweep;
    motion.centers[index] = sweep.c0.lerp(sweep.c1, hit.t) + hit.push * hit.normal;
    motion.rotations[index] = crate::math::from_angle(sweep.a0 + swept.turned * hit.t);

    // The contact at the new pose: the manifold's middle is where the impulse goes.
    let q = motion.rotations[index];
    let origin = motion.centers[index] - crate::shapes::transform::rotate(q, body.local_center);
    let pose = crate::shapes::transform::Transform::from_rotation(origin, q);
    let other = &world.colliders.records[hit.obstacle];
    let manifold = collide_shapes(
        &world.shapes[world.colliders.records[hit.piece].shape as usize],
        &pose,
        &world.shapes[other.shape as usize],
        &other.transform,
    )?;
    let points = manifold.points();
    let middle = points.iter().map(|p| p.point).sum::<Vec2>() / points.len() as f32;
    let owner = world.names.collider_bodies[hit.obstacle] as usize;
    let restitution = world.colliders.surfaces[hit.piece]
        .restitution
        .max(world.colliders.surfaces[hit.obstacle].restitution);
    let speed = apply_impact(
        motion.states,
        motion.materials,
        [index, owner],
        [motion.centers[index], motion.centers[owner]],
        middle,
        manifold.normal,
        restitution,
    );
    // Events name colliders in ascending order, the normal pointing from the first's body
    // to the second's; the manifold's normal points from the swept piece to the obstacle.
    let (piece, obstacle) = (hit.piece, hit.obstacle);
    let (pair, normal) = if piece < obstacle {
        ([piece, obstacle], manifold.normal)
    } else {
        ([obstacle, piece], -manifold.normal)
    };
    (speed > 0.0).then(|| {
        world
            .names
            .hit(pair.map(|c| c as u32), middle, normal, speed)
    })
}
