//! What the solver's stages, the joints and the continuous stage share about a moving
//! body: its velocity state during a step ([`BodyState`], 32 bytes, the SIMD passes'
//! layout), its mass as the solver sees it ([`BodyMaterial`]), the coefficients of a soft
//! constraint ([`Softness`]), the bounds on speed, spin and impulse that every stage keeps,
//! the clamps that keep them, and one rigid impulse between two bodies ([`apply_impact`]).
//!
//! It lies below both the contact solver (`solver/`) and the joints (`joints/`), which
//! solve side by side in the same colour stages and read and write these states alike.

use glam::Vec2;

use crate::dynamics::body::Body;
use crate::shapes::transform::length_and_direction;

/// Approach speed below which contacts do not bounce, in length units per second.
pub(crate) const RESTITUTION_THRESHOLD: f32 = 1.0;

/// The largest [`World::set_max_linear_speed`](crate::World::set_max_linear_speed) takes,
/// units per second: 2,500 times the default, room for worlds in millimetres, while speed
/// times `MASS_RANGE`'s upper end stays far from f32's limit. It is also the longest
/// linear velocity a body may be given ([`BodyDef::linear_velocity`](crate::BodyDef::linear_velocity),
/// [`World::set_velocity`](crate::World::set_velocity), or as the result of an impulse)
/// and the fastest a prismatic joint's motor may drive: the step would clamp anything
/// faster to the world's speed limit, which is never above this. Within a substep the
/// solver moves no body faster than this (a guard no real scene reaches: what constraints
/// that fight each other store, up to [`MAX_IMPULSE`], can push a body far past the world's
/// limit between two clamps, and its pose must stay finite).
pub const MAX_LINEAR_SPEED_LIMIT: f32 = 1e6;

/// The fastest spin a body may be given, radians per second (in the definition, by
/// `set_velocity`, or as the result of an angular impulse), and the fastest a revolute or
/// wheel joint's motor may drive. The step holds a spin to a quarter turn per substep,
/// which at the shortest substep (a time step of 1e-6 s over 64 substeps) is 5.0e7: no
/// step keeps a faster one. The solver's guard within a substep, as for
/// [`MAX_LINEAR_SPEED_LIMIT`].
pub const MAX_ANGULAR_SPEED: f32 = 1e8;

/// The most any accumulated impulse of the solver may reach, in magnitude: each contact
/// point's normal and friction impulses (as they are kept for the next step's warm start)
/// and each part of a joint's (point, axis, spring, motor, limits, as it accumulates) are
/// clamped to it, as Box2D clamps a motor's impulse to its max torque, so that no step
/// leaves a warm start the snapshot reader refuses, and no joint whose options fight its
/// bodies (a limit it cannot reach, a motor held still) pushes harder. The bound is set by
/// the levers: a joint's anchor may lie up to some 3e12 from its body's centre (both within
/// `MAX_COORDINATE`), and an impulse's moment there (a cross product, two such products
/// subtracted) must stay inside f32's 3.4e38, or the warm start turns a spin into NaN
/// (found by `examples/fuzz`, roundtrip target, at 1e29). 1e25 is the heaviest body (1e24,
/// `MASS_RANGE`) changing speed by 10 units per second within one substep.
pub const MAX_IMPULSE: f32 = 1e25;

/// The most a body turns in one substep, radians: a quarter turn, as Box2D clamps it. A faster
/// spin is slowed to this; it keeps the rotation's linearisation and the continuous stage's
/// rotation margin meaningful.
pub const MAX_ROTATION_PER_SUBSTEP: f32 = 0.25 * std::f32::consts::PI;

/// The velocity state of a body during a step.
///
/// The layout is the SIMD passes' (`contact_simd::gather`): the first four floats
/// (velocity, spin, inverse mass) and the last four (motion since the step began) each load
/// as one four-lane row, and a state is 32 bytes aligned to 32, so that it never straddles
/// a cache line: the passes read and write a pair of states per constraint, scattered over
/// the body list, and a straddling state cost a second line on each.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct BodyState {
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
    /// The solver's inverse mass: the body's own while it moves, zero while it is static or
    /// asleep (see [`BodyState::inv_inertia`]).
    pub inv_mass: f32,
    /// Translation of the centre of mass since the start of the step.
    pub delta_position: Vec2,
    /// Rotation since the start of the step, as (cos, sin).
    pub delta_rotation: Vec2,
}

const _: () = assert!(std::mem::size_of::<BodyState>() == 8 * 4);

impl BodyState {
    /// Whether the solver moves this body: dynamic and awake. (A dynamic body's mass is
    /// finite and positive, so its inverse mass is too.)
    #[inline]
    pub fn moves(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// The solver's inverse rotational inertia of the body whose state this is and whose
    /// material is `material`: its own while it moves, zero while it is static or asleep.
    /// Kept out of the state so that the state fits 32 bytes; the inverse mass in the state
    /// says whether it moves.
    #[inline]
    pub fn inv_inertia(&self, material: &BodyMaterial) -> f32 {
        if self.moves() {
            material.inv_inertia
        } else {
            0.0
        }
    }
}

/// How a body's mass enters the solver (its surface is per collider: [`ColliderSurface`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyMaterial {
    /// The body's own inverse rotational inertia (zero for a static body); the solver's
    /// is [`BodyState::inv_inertia`], zero while the body sleeps.
    pub inv_inertia: f32,
    /// The distance from the centre of mass to the body's farthest point (`Body::max_extent`):
    /// the longest lever a contact may act on (see `fill_lane`).
    pub max_extent: f32,
}

/// Shared, unsynchronised access to the body states while one colour is solved.
///
/// Safety rests on the colouring: within one colour no moving body is in two groups, a group
/// reads and writes only its own lanes' bodies, and a body that does not move (inverse mass
/// zero) is only ever read. So no two threads touch the same state while one of them writes.
#[derive(Clone, Copy)]
pub(crate) struct StatePtr {
    pub(crate) states: *mut BodyState,
    pub(crate) len: usize,
}

// SAFETY: see the type's docs: the colouring keeps the accesses of concurrent groups apart.
unsafe impl Send for StatePtr {}
// SAFETY: as above.
unsafe impl Sync for StatePtr {}

impl StatePtr {
    #[inline]
    pub fn new(states: &mut [BodyState]) -> StatePtr {
        StatePtr {
            states: states.as_mut_ptr(),
            len: states.len(),
        }
    }

    /// The state of body `i`, to read.
    ///
    /// # Safety
    /// `i` is in bounds, and no other thread writes that body while the reference lives.
    #[inline]
    pub unsafe fn get<'a>(self, i: usize) -> &'a BodyState {
        debug_assert!(i < self.len);
        // SAFETY: the caller's promise.
        unsafe { &*self.states.add(i) }
    }

    /// The state of body `i`, to write.
    ///
    /// # Safety
    /// `i` is in bounds, and no other thread touches that body while the reference lives.
    #[inline]
    pub unsafe fn get_mut<'a>(self, i: usize) -> &'a mut BodyState {
        debug_assert!(i < self.len);
        // SAFETY: the caller's promise.
        unsafe { &mut *self.states.add(i) }
    }
}

/// A soft constraint's coefficients for a spring of `hertz` and damping ratio `zeta`,
/// integrated implicitly over a substep `h` (see "Solver2D").
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Softness {
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
}

impl Softness {
    #[inline]
    pub(crate) fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
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

/// `a × b`, the 2D cross product (`a.x b.y - a.y b.x`).
#[inline]
pub(crate) fn cross(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b)
}

/// `w × r` for a scalar angular velocity.
#[inline]
pub(crate) fn cross_sv(w: f32, r: Vec2) -> Vec2 {
    Vec2::new(-w * r.y, w * r.x)
}

/// Integrates a rotation `(cos, sin)` by the angle `angle` (small), renormalised.
#[inline]
pub(crate) fn integrate_rotation(q: Vec2, angle: f32) -> Vec2 {
    let q2 = Vec2::new(q.x - angle * q.y, q.y + angle * q.x);
    let len = q2.length();
    if len > 0.0 { q2 / len } else { Vec2::X }
}

/// A single rigid impulse at `point` along `normal` (from A to B) that stops B approaching A
/// there, or bounces it with `restitution`: the impact response of the continuous stage.
/// Frames: `point` and the centres are in the world frame. Does nothing if the bodies are
/// already separating at the point. Returns the speed at which they approached there
/// (0 when nothing was applied).
pub(crate) fn apply_impact(
    states: &mut [BodyState],
    materials: &[BodyMaterial],
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
    let inertias = [a.inv_inertia(&materials[ia]), b.inv_inertia(&materials[ib])];
    let (rna, rnb) = (cross(ra, normal), cross(rb, normal));
    let k = a.inv_mass + b.inv_mass + inertias[0] * rna * rna + inertias[1] * rnb * rnb;
    if k <= 0.0 {
        return 0.0;
    }
    let e = if vn < -RESTITUTION_THRESHOLD {
        restitution
    } else {
        0.0
    };
    let impulse = -(1.0 + e) * vn / k;
    apply_impulse(states, [ia, ib], inertias, [ra, rb], impulse * normal);
    -vn
}

fn relative_velocity(states: &[BodyState], ia: usize, ib: usize, ra: Vec2, rb: Vec2) -> Vec2 {
    let (a, b) = (&states[ia], &states[ib]);
    b.linear_velocity + cross_sv(b.angular_velocity, rb)
        - a.linear_velocity
        - cross_sv(a.angular_velocity, ra)
}

/// Applies `impulse` to B at `rb` and its opposite to A at `ra`; `inv_inertias` are the
/// solver's (A's, B's).
fn apply_impulse(
    states: &mut [BodyState],
    [ia, ib]: [usize; 2],
    [inv_inertia_a, inv_inertia_b]: [f32; 2],
    [ra, rb]: [Vec2; 2],
    impulse: Vec2,
) {
    let a = &mut states[ia];
    a.linear_velocity -= a.inv_mass * impulse;
    a.angular_velocity -= inv_inertia_a * cross(ra, impulse);
    let b = &mut states[ib];
    b.linear_velocity += b.inv_mass * impulse;
    b.angular_velocity += inv_inertia_b * cross(rb, impulse);
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
#[inline]
pub(crate) fn clamp_velocity(state: &mut BodyState, body: &Body, max_speed: f32, max_turn: f32) {
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

/// As [`clamp_velocity`] without the body's reach: the speed held to `max_speed` and the
/// spin to `max_turn`, which is all that keeps the next impulse finite.
// Inlined into the joint passes, where it runs twice per joint per pass: called out of
// line from joints/mod.rs it cost joint_grid's step 5 % more instructions (callgrind).
#[inline]
pub(crate) fn clamp_speed_and_turn(state: &mut BodyState, max_speed: f32, max_turn: f32) {
    let v = state.linear_velocity;
    if v.length_squared() > max_speed * max_speed {
        state.linear_velocity = clamp_length(v, max_speed);
    }
    if state.angular_velocity.abs() > max_turn {
        state.angular_velocity = state.angular_velocity.clamp(-max_turn, max_turn);
    }
}

/// `v` shortened to at most `max` long, keeping its direction. The length is taken without
/// squaring the components (see `length_and_direction`): a velocity past 1.8e19 has a
/// square that overflows f32, and would otherwise collapse to zero instead of to `max`.
#[inline]
pub(crate) fn clamp_length(v: Vec2, max: f32) -> Vec2 {
    let (length, direction) = length_and_direction(v);
    if length <= max { v } else { direction * max }
}
