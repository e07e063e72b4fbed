//! The contact solver: soft contact constraints solved with sequential impulses over
//! substeps, warm-started by feature id.
//!
//! ```text
//! step(dt): speeds clamped (World::max_linear_speed; a quarter turn per substep)
//! prepare:  per contact point: anchors from each body's centre of mass (world frame, fixed
//!           for the step), effective masses, the separation at the start of the step,
//!           last step's impulses where the same feature ids touch again
//! per substep h = dt / substeps:
//!     integrate velocities (gravity), clamp them again
//!     warm start: apply the accumulated impulses
//!     solve with bias: normal impulses push the separation towards -LINEAR_SLOP through a
//!         soft spring (stiff, heavily damped: no energy added), friction clamped to mu * normal
//!     integrate positions
//!     relax: solve again without bias, removing the velocity the push added
//! restitution: bounce the points that approached faster than a threshold
//! ```
//!
//! The separation during the substeps is tracked from the bodies' motion since the start of
//! the step, so the narrow phase runs once per step. The scheme is the "soft step" of Box2D
//! v3 (Catto, "Solver2D", 2024), written here from its description.

use glam::Vec2;

use crate::body::Body;
use crate::manifold::Contact;
use crate::transform::length_and_direction;

/// The most a body turns in one substep, radians: a quarter turn, as Box2D clamps it. A faster
/// spin is slowed to this; it keeps the rotation's linearisation and the continuous stage's
/// rotation margin meaningful.
pub const MAX_ROTATION_PER_SUBSTEP: f32 = 0.25 * std::f32::consts::PI;

/// The settings of a step's substeps.
pub(crate) struct Substeps {
    /// Substeps per step, 1 or more.
    pub count: usize,
    /// Units per second squared.
    pub gravity: Vec2,
    /// The speed every body is held to (see `World::max_linear_speed`).
    pub max_linear_speed: f32,
}

/// The bodies as one step moves them, by body index: static records and materials to read,
/// poses and velocities to advance.
pub(crate) struct BodyMotion<'a> {
    pub bodies: &'a [Body],
    pub materials: &'a [BodyMaterial],
    /// World-frame centres of mass.
    pub centers: &'a mut [Vec2],
    /// Rotations as (cos, sin).
    pub rotations: &'a mut [Vec2],
    pub states: &'a mut [BodyState],
    /// The angle each body turned during the step, accumulated here (zeroed by the caller):
    /// the continuous stage's rotation margin.
    pub turned: &'a mut [f32],
}

/// Penetration the solver leaves in a resting contact, in length units (bodies are about
/// one unit). Keeping a little overlap keeps resting contacts reported by the narrow phase
/// (touching is not overlapping), so stacks do not lose and regain contact every step.
pub(crate) const LINEAR_SLOP: f32 = 0.005;
/// The fastest the solver pushes overlapping bodies apart, in length units per second: a
/// deep overlap resolves over a few steps instead of launching the bodies.
const MAX_PUSH_SPEED: f32 = 3.0;
/// Approach speed below which contacts do not bounce, in length units per second.
pub(crate) const RESTITUTION_THRESHOLD: f32 = 1.0;
/// Damping ratio of the contact spring: far above critical, so pushing out adds no bounce.
const CONTACT_DAMPING_RATIO: f32 = 10.0;
/// Stiffness of the contact spring, in hertz; capped at a quarter of the substep rate.
const CONTACT_HERTZ: f32 = 30.0;

/// The velocity state of a body during a step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyState {
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
    /// Translation of the centre of mass since the start of the step.
    pub delta_position: Vec2,
    /// Rotation since the start of the step, as (cos, sin).
    pub delta_rotation: Vec2,
    pub inv_mass: f32,
    pub inv_inertia: f32,
}

/// How a body's mass and material enter the solver.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyMaterial {
    pub friction: f32,
    pub restitution: f32,
}

#[derive(Clone, Copy, Debug, Default)]
struct ConstraintPoint {
    /// Contact point minus each centre of mass, world frame, at the start of the step.
    anchor_a: Vec2,
    anchor_b: Vec2,
    /// Separation at the start of the step minus `normal · (anchor_b - anchor_a)`, so that
    /// the current separation is `normal · (d_b + r_b - d_a - r_a) + base_separation`.
    base_separation: f32,
    normal_mass: f32,
    tangent_mass: f32,
    normal_impulse: f32,
    tangent_impulse: f32,
    max_normal_impulse: f32,
    /// Normal velocity before the step, for restitution (negative when approaching).
    relative_velocity: f32,
    id: u32,
}

/// One manifold as a constraint between bodies `a` and `b`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactConstraint {
    /// The colliders in touch: which pieces of the two bodies, for warm starting (two
    /// bodies of several pieces can touch in several places with the same feature ids).
    pub colliders: [u32; 2],
    pub a: u32,
    pub b: u32,
    normal: Vec2,
    friction: f32,
    restitution: f32,
    softness: Softness,
    points: [ConstraintPoint; 2],
    count: usize,
}

impl ContactConstraint {
    /// The accumulated normal impulse of each point, for tests and drawing.
    pub fn normal_impulses(&self) -> impl Iterator<Item = f32> + '_ {
        self.points[..self.count].iter().map(|p| p.normal_impulse)
    }
}

/// A soft constraint's coefficients for a spring of `hertz` and damping ratio `zeta`,
/// integrated implicitly over a substep `h` (see "Solver2D").
#[derive(Clone, Copy, Debug, Default)]
struct Softness {
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

impl Softness {
    fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

fn cross(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b)
}

/// `w × r` for a scalar angular velocity.
fn cross_sv(w: f32, r: Vec2) -> Vec2 {
    Vec2::new(-w * r.y, w * r.x)
}

fn rotate(q: Vec2, v: Vec2) -> Vec2 {
    Vec2::new(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y)
}

/// Integrates a rotation `(cos, sin)` by the angle `angle` (small), renormalised.
pub(crate) fn integrate_rotation(q: Vec2, angle: f32) -> Vec2 {
    let q2 = Vec2::new(q.x - angle * q.y, q.y + angle * q.x);
    let len = q2.length();
    if len > 0.0 { q2 / len } else { Vec2::X }
}

/// The solver's scratch, reused between steps: this step's constraints and last step's,
/// for warm starting.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSolver {
    pub constraints: Vec<ContactConstraint>,
    previous: Vec<ContactConstraint>,
}

impl ContactSolver {
    /// Builds this step's constraints from the narrow phase's contacts between colliders (in
    /// ascending pair order; `collider_bodies` maps a collider to its body), carrying over
    /// the impulses of points whose feature ids match last step's.
    fn prepare(
        &mut self,
        contacts: &[Contact],
        collider_bodies: &[u32],
        centers: &[Vec2],
        states: &[BodyState],
        materials: &[BodyMaterial],
        h: f32,
    ) {
        std::mem::swap(&mut self.constraints, &mut self.previous);
        self.constraints.clear();
        let hertz = CONTACT_HERTZ.min(0.25 / h);
        // Against a static body only one side moves: a stiffer spring gives the same feel.
        let soft = Softness::new(hertz, CONTACT_DAMPING_RATIO, h);
        let static_soft = Softness::new(2.0 * hertz, CONTACT_DAMPING_RATIO, h);
        let mut old = 0;
        for c in contacts {
            let colliders = [c.a, c.b];
            let (a, b) = (collider_bodies[c.a as usize], collider_bodies[c.b as usize]);
            let (ia, ib) = (a as usize, b as usize);
            let (sa, sb) = (&states[ia], &states[ib]);
            let (ma, mb) = (&materials[ia], &materials[ib]);
            let m = &c.manifold;
            let normal = m.normal;
            let tangent = Vec2::new(-normal.y, normal.x);
            // Last step's constraint for this pair, if any: both lists are in collider pair
            // order.
            while old < self.previous.len() && self.previous[old].colliders < colliders {
                old += 1;
            }
            let previous = self.previous.get(old).filter(|p| p.colliders == colliders);
            let mut constraint = ContactConstraint {
                colliders,
                a,
                b,
                normal,
                // The geometric mean, as the product of roots: the root of the product
                // overflows to infinity for two frictions past 1.8e19.
                friction: ma.friction.sqrt() * mb.friction.sqrt(),
                restitution: ma.restitution.max(mb.restitution),
                softness: if sa.inv_mass == 0.0 || sb.inv_mass == 0.0 {
                    static_soft
                } else {
                    soft
                },
                points: [ConstraintPoint::default(); 2],
                count: m.points().len(),
            };
            for (cp, p) in constraint.points.iter_mut().zip(m.points()) {
                let ra = p.point - centers[ia];
                let rb = p.point - centers[ib];
                let rna = cross(ra, normal);
                let rnb = cross(rb, normal);
                let k_normal = sa.inv_mass
                    + sb.inv_mass
                    + sa.inv_inertia * rna * rna
                    + sb.inv_inertia * rnb * rnb;
                let rta = cross(ra, tangent);
                let rtb = cross(rb, tangent);
                let k_tangent = sa.inv_mass
                    + sb.inv_mass
                    + sa.inv_inertia * rta * rta
                    + sb.inv_inertia * rtb * rtb;
                let dv = sb.linear_velocity + cross_sv(sb.angular_velocity, rb)
                    - sa.linear_velocity
                    - cross_sv(sa.angular_velocity, ra);
                let (normal_impulse, tangent_impulse) = previous
                    .and_then(|prev| prev.points[..prev.count].iter().find(|q| q.id == p.id))
                    .map_or((0.0, 0.0), |q| (q.normal_impulse, q.tangent_impulse));
                *cp = ConstraintPoint {
                    anchor_a: ra,
                    anchor_b: rb,
                    base_separation: -p.depth - normal.dot(rb - ra),
                    normal_mass: if k_normal > 0.0 { 1.0 / k_normal } else { 0.0 },
                    tangent_mass: if k_tangent > 0.0 {
                        1.0 / k_tangent
                    } else {
                        0.0
                    },
                    normal_impulse,
                    tangent_impulse,
                    max_normal_impulse: 0.0,
                    relative_velocity: normal.dot(dv),
                    id: p.id,
                };
            }
            self.constraints.push(constraint);
        }
    }

    /// One step of `dt` seconds over the bodies: speeds clamped, constraints prepared from
    /// `contacts` (between colliders; `collider_bodies` maps a collider to its body), then
    /// per substep gravity, warm start, solve, integrate positions, relax; then restitution.
    pub fn step(
        &mut self,
        dt: f32,
        substeps: &Substeps,
        contacts: &[Contact],
        collider_bodies: &[u32],
        motion: &mut BodyMotion<'_>,
    ) {
        let h = dt / substeps.count as f32;
        let inv_h = 1.0 / h;
        // Speeds are clamped before anything uses them (the solver's restitution keeps the
        // approach speed), and again each substep after gravity, as Box2D does.
        let max_speed = substeps.max_linear_speed;
        let max_turn = MAX_ROTATION_PER_SUBSTEP * inv_h;
        for (s, body) in motion.states.iter_mut().zip(motion.bodies) {
            s.delta_position = Vec2::ZERO;
            s.delta_rotation = Vec2::X;
            clamp_velocity(s, body, max_speed, max_turn);
        }
        self.prepare(
            contacts,
            collider_bodies,
            motion.centers,
            motion.states,
            motion.materials,
            h,
        );
        for _ in 0..substeps.count {
            for (s, body) in motion.states.iter_mut().zip(motion.bodies) {
                if s.inv_mass > 0.0 {
                    s.linear_velocity += h * substeps.gravity;
                    clamp_velocity(s, body, max_speed, max_turn);
                }
            }
            self.warm_start(motion.states);
            self.solve(motion.states, inv_h, true);
            for (((s, c), q), turned) in motion
                .states
                .iter_mut()
                .zip(motion.centers.iter_mut())
                .zip(motion.rotations.iter_mut())
                .zip(motion.turned.iter_mut())
            {
                if s.inv_mass == 0.0 {
                    continue;
                }
                let dp = h * s.linear_velocity;
                let da = h * s.angular_velocity;
                *c += dp;
                *q = integrate_rotation(*q, da);
                // integrate_rotation turns by atan(da): da bounds it, which keeps the
                // continuous stage's rotation margin conservative.
                *turned += da;
                s.delta_position += dp;
                s.delta_rotation = integrate_rotation(s.delta_rotation, da);
            }
            self.solve(motion.states, inv_h, false);
        }
        self.apply_restitution(motion.states);
    }

    /// Applies the accumulated impulses (last step's, carried over) to the velocities.
    fn warm_start(&self, states: &mut [BodyState]) {
        for c in &self.constraints {
            let tangent = Vec2::new(-c.normal.y, c.normal.x);
            let (ia, ib) = (c.a as usize, c.b as usize);
            for p in &c.points[..c.count] {
                let impulse = p.normal_impulse * c.normal + p.tangent_impulse * tangent;
                apply_impulse(states, ia, ib, p.anchor_a, p.anchor_b, impulse);
            }
        }
    }

    /// One pass over all contacts: normal impulses (with the soft push-out when `use_bias`),
    /// then friction.
    fn solve(&mut self, states: &mut [BodyState], inv_h: f32, use_bias: bool) {
        for c in &mut self.constraints {
            let (ia, ib) = (c.a as usize, c.b as usize);
            let normal = c.normal;
            let tangent = Vec2::new(-normal.y, normal.x);
            let (da, db) = (states[ia].delta_position, states[ib].delta_position);
            let (qa, qb) = (states[ia].delta_rotation, states[ib].delta_rotation);
            for p in &mut c.points[..c.count] {
                // Current separation from the bodies' motion since the start of the step.
                let d = (db - da) + rotate(qb, p.anchor_b) - rotate(qa, p.anchor_a);
                let s = normal.dot(d) + p.base_separation + LINEAR_SLOP;
                let (bias, mass_scale, impulse_scale) = if s > 0.0 {
                    // Not yet at the slop depth: allow closing the gap within this substep.
                    (s * inv_h, 1.0, 0.0)
                } else if use_bias {
                    let soft = c.softness;
                    (
                        (soft.bias_rate * s).max(-MAX_PUSH_SPEED),
                        soft.mass_scale,
                        soft.impulse_scale,
                    )
                } else {
                    (0.0, 1.0, 0.0)
                };
                let vn = normal.dot(relative_velocity(states, ia, ib, p.anchor_a, p.anchor_b));
                let impulse =
                    -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
                let total = (p.normal_impulse + impulse).max(0.0);
                let applied = total - p.normal_impulse;
                p.normal_impulse = total;
                p.max_normal_impulse = p.max_normal_impulse.max(applied);
                apply_impulse(states, ia, ib, p.anchor_a, p.anchor_b, applied * normal);
            }
            for p in &mut c.points[..c.count] {
                let vt = tangent.dot(relative_velocity(states, ia, ib, p.anchor_a, p.anchor_b));
                let limit = c.friction * p.normal_impulse;
                // `limit` is never NaN and never negative: friction is finite and 0 or more
                // (its mix is a product of roots, which cannot overflow to infinity) and the
                // normal impulse is finite and 0 or more, so clamp cannot panic. It is also
                // cheaper here than max/min, which must order NaNs.
                let total = (p.tangent_impulse - p.tangent_mass * vt).clamp(-limit, limit);
                let applied = total - p.tangent_impulse;
                p.tangent_impulse = total;
                apply_impulse(states, ia, ib, p.anchor_a, p.anchor_b, applied * tangent);
            }
        }
    }

    /// Bounces the points that approached faster than the threshold at the start of the step
    /// and were pushed apart during it.
    fn apply_restitution(&mut self, states: &mut [BodyState]) {
        for c in &mut self.constraints {
            if c.restitution == 0.0 {
                continue;
            }
            let (ia, ib) = (c.a as usize, c.b as usize);
            for p in &mut c.points[..c.count] {
                if p.relative_velocity > -RESTITUTION_THRESHOLD || p.max_normal_impulse == 0.0 {
                    continue;
                }
                let vn = c
                    .normal
                    .dot(relative_velocity(states, ia, ib, p.anchor_a, p.anchor_b));
                let impulse = -p.normal_mass * (vn + c.restitution * p.relative_velocity);
                let total = (p.normal_impulse + impulse).max(0.0);
                let applied = total - p.normal_impulse;
                p.normal_impulse = total;
                apply_impulse(states, ia, ib, p.anchor_a, p.anchor_b, applied * c.normal);
            }
        }
    }
}

/// A single rigid impulse at `point` along `normal` (from A to B) that stops B approaching A
/// there, or bounces it with `restitution`: the impact response of the continuous stage.
/// Frames: `point` and the centres are in the world frame. Does nothing if the bodies are
/// already separating at the point. Returns the impulse applied.
pub(crate) fn apply_impact(
    states: &mut [BodyState],
    [ia, ib]: [usize; 2],
    [center_a, center_b]: [Vec2; 2],
    point: Vec2,
    normal: Vec2,
    restitution: f32,
) -> f32 {
    let (ra, rb) = (point - center_a, point - center_b);
    let vn = normal.dot(relative_velocity(states, ia, ib, ra, rb));
    if vn >= 0.0 {
        return 0.0;
    }
    let (a, b) = (&states[ia], &states[ib]);
    let (rna, rnb) = (cross(ra, normal), cross(rb, normal));
    let k = a.inv_mass + b.inv_mass + a.inv_inertia * rna * rna + b.inv_inertia * rnb * rnb;
    if k <= 0.0 {
        return 0.0;
    }
    let e = if vn < -RESTITUTION_THRESHOLD {
        restitution
    } else {
        0.0
    };
    let impulse = -(1.0 + e) * vn / k;
    apply_impulse(states, ia, ib, ra, rb, impulse * normal);
    impulse
}

fn relative_velocity(states: &[BodyState], ia: usize, ib: usize, ra: Vec2, rb: Vec2) -> Vec2 {
    let (a, b) = (&states[ia], &states[ib]);
    b.linear_velocity + cross_sv(b.angular_velocity, rb)
        - a.linear_velocity
        - cross_sv(a.angular_velocity, ra)
}

/// Applies `impulse` to B at `rb` and its opposite to A at `ra`.
fn apply_impulse(
    states: &mut [BodyState],
    ia: usize,
    ib: usize,
    ra: Vec2,
    rb: Vec2,
    impulse: Vec2,
) {
    let a = &mut states[ia];
    a.linear_velocity -= a.inv_mass * impulse;
    a.angular_velocity -= a.inv_inertia * cross(ra, impulse);
    let b = &mut states[ib];
    b.linear_velocity += b.inv_mass * impulse;
    b.angular_velocity += b.inv_inertia * cross(rb, impulse);
}

/// The fastest a body may spin: a quarter turn per substep (`max_turn`, radians per
/// second), and no faster than makes its farthest point move at `max_speed` about its
/// centre, so that no point of a body moves faster than twice the speed limit and the
/// solver's products of speed and mass stay finite.
fn max_spin(body: &Body, max_speed: f32, max_turn: f32) -> f32 {
    if body.max_extent > 0.0 {
        max_turn.min(max_speed / body.max_extent)
    } else {
        max_turn
    }
}

/// Holds a body's speed to `max_speed` and its spin to its `max_spin`. This runs for every
/// body on every substep, and nearly every body is far below both limits: a product and a
/// comparison each decide that, and only a body over a limit pays for a length and a
/// division. (A square or product that overflows is infinite, so it still takes the clamp.)
fn clamp_velocity(state: &mut BodyState, body: &Body, max_speed: f32, max_turn: f32) {
    let v = state.linear_velocity;
    if v.length_squared() > max_speed * max_speed {
        state.linear_velocity = clamp_length(v, max_speed);
    }
    let spin = state.angular_velocity.abs();
    if spin > max_turn || spin * body.max_extent > max_speed {
        let limit = max_spin(body, max_speed, max_turn);
        state.angular_velocity = state.angular_velocity.clamp(-limit, limit);
    }
}

/// `v` shortened to at most `max` long, keeping its direction. The length is taken without
/// squaring the components (see `length_and_direction`): a velocity past 1.8e19 has a
/// square that overflows f32, and would otherwise collapse to zero instead of to `max`.
fn clamp_length(v: Vec2, max: f32) -> Vec2 {
    let (length, direction) = length_and_direction(v);
    if length <= max { v } else { direction * max }
}
