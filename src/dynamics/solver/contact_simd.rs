//! The contact constraints of one colour group, [`LANES`] manifolds side by side in SIMD
//! lanes: prepare, warm start, solve (with or without the soft push), restitution.
//!
//! ```text
//! gather: each lane's two bodies' velocities and motion since the step began
//!         (an empty lane, or a lane's static body, reads a body at rest)
//! per point, all lanes at once: the same arithmetic as one scalar constraint
//! scatter: velocities back, only for bodies that move
//! ```
//!
//! The math is the scalar soft step's (see the parent module), written over `f32x4`. A
//! manifold with one point fills its second point with zero masses, which makes every
//! impulse on it zero; an empty lane has zero masses everywhere. Only `+ - * / sqrt max min`
//! are used, each rounded exactly as IEEE 754 says, never a fused multiply-add, so a lane
//! gives the same bits whichever group or thread solves it. `max` and `min` are `wide`'s
//! `fast_max` and `fast_min` (one `maxps` or `minps`): they differ from `max` and `min`
//! only when the second operand is NaN, and every second operand here is a constant, a
//! friction limit (a finite friction times a clamped impulse), an impulse the world's limits
//! keep finite, or a restitution (validated, 0 to 1); the NaN checks of `max` cost 5% of a
//! solve pass.

use glam::Vec2;
use wide::f32x4;

use super::MAX_PUSH_SPEED;
use super::colouring::{LANES, NO_INDEX};
use crate::dynamics::state::{BodyState, MAX_IMPULSE, RESTITUTION_THRESHOLD, Softness, StatePtr};

/// Four bodies' velocities and motion since the start of the step, one body per lane.
struct WideBody {
    vx: f32x4,
    vy: f32x4,
    w: f32x4,
    /// Inverse mass: read with the velocities' row and written back unchanged.
    inv_mass: f32x4,
    dpx: f32x4,
    dpy: f32x4,
    /// Rotation since the start of the step, (cos, sin).
    qc: f32x4,
    qs: f32x4,
}

/// A body at rest, for an empty lane: no velocity, no motion, no rotation.
const REST: BodyState = BodyState {
    linear_velocity: Vec2::ZERO,
    angular_velocity: 0.0,
    inv_mass: 0.0,
    delta_position: Vec2::ZERO,
    delta_rotation: Vec2::X,
};

/// Row `k` (floats `4k..4k + 4`) of a body's state: one aligned load.
#[inline(always)]
fn row(s: &BodyState, k: usize) -> f32x4 {
    let rows: &[f32x4; 2] = bytemuck::cast_ref(s);
    rows[k]
}

/// Reads the states of `bodies` (one per lane) into lanes: two four-float rows per body,
/// transposed into columns.
///
/// # Safety
/// No other thread writes these bodies meanwhile (see [`StatePtr`]).
#[inline(always)]
unsafe fn gather(states: StatePtr, bodies: &[u32; LANES]) -> WideBody {
    let state = |lane: usize| {
        let i = bodies[lane];
        if i == NO_INDEX || i as usize >= states.len {
            &REST
        } else {
            // SAFETY: in bounds (checked above); not written concurrently (the caller's
            // promise).
            unsafe { &*states.states.add(i as usize) }
        }
    };
    let s = [state(0), state(1), state(2), state(3)];
    let [vx, vy, w, inv_mass] = f32x4::transpose(s.map(|s| row(s, 0)));
    let [dpx, dpy, qc, qs] = f32x4::transpose(s.map(|s| row(s, 1)));
    WideBody {
        vx,
        vy,
        w,
        inv_mass,
        dpx,
        dpy,
        qc,
        qs,
    }
}

/// Writes the velocities of the lanes whose bit is set in `moving` back to `bodies`.
///
/// # Safety
/// No other thread reads or writes these bodies meanwhile (see [`StatePtr`]).
#[inline(always)]
unsafe fn scatter(states: StatePtr, bodies: &[u32; LANES], moving: u8, body: &WideBody) {
    let rows = f32x4::transpose([body.vx, body.vy, body.w, body.inv_mass]);
    for (lane, &i) in bodies.iter().enumerate() {
        if moving & (1 << lane) == 0 || i as usize >= states.len {
            continue;
        }
        // SAFETY: in bounds (checked above); this group owns the body (the caller's promise).
        let s = unsafe { &mut *states.states.add(i as usize) };
        let state_rows: &mut [f32x4; 2] = bytemuck::cast_mut(s);
        state_rows[0] = rows[lane];
    }
}

/// One manifold point, per lane.
#[derive(Clone, Copy, Debug, Default)]
struct WidePoint {
    /// Contact point minus each centre of mass, world frame, at the start of the step.
    anchor_ax: f32x4,
    anchor_ay: f32x4,
    anchor_bx: f32x4,
    anchor_by: f32x4,
    /// Separation at the start of the step minus `normal · (anchor_b - anchor_a)`.
    base_separation: f32x4,
    normal_mass: f32x4,
    tangent_mass: f32x4,
    normal_impulse: f32x4,
    tangent_impulse: f32x4,
    /// The largest normal impulse one solve applied: restitution only bounces points that
    /// were pushed.
    max_normal_impulse: f32x4,
    /// Normal velocity at the start of the step, negative when approaching.
    relative_velocity: f32x4,
}

/// Up to [`LANES`] contact constraints between disjoint moving bodies.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WideContact {
    /// Each lane's constraint index (`NO_INDEX` when empty) and bodies.
    pub constraints: [u32; LANES],
    body_a: [u32; LANES],
    body_b: [u32; LANES],
    /// Bit `lane` set when that lane's body A (B) moves, so its velocity is written back.
    moving_a: u8,
    moving_b: u8,
    normal_x: f32x4,
    normal_y: f32x4,
    /// The contact's mixed material (see the parent module): friction, restitution, and the
    /// tangent speed `sa + sb` that friction drives the slip along the tangent towards.
    friction: f32x4,
    restitution: f32x4,
    tangent_speed: f32x4,
    bias_rate: f32x4,
    mass_scale: f32x4,
    impulse_scale: f32x4,
    inv_mass_a: f32x4,
    inv_inertia_a: f32x4,
    inv_mass_b: f32x4,
    inv_inertia_b: f32x4,
    points: [WidePoint; 2],
}

/// One group's constraints as the prepare stage reads them, lane by lane (`[lane]`), to be
/// computed all lanes at once by [`WideContact::prepare`]. An empty lane, and the missing
/// second point of a one-point manifold, keep what [`PrepareLanes::empty`] gives them: zeros
/// and `present` false, which zero every mass and impulse there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrepareLanes {
    /// Each lane's constraint index (`NO_INDEX` when empty) and bodies.
    pub constraints: [u32; LANES],
    pub body_a: [u32; LANES],
    pub body_b: [u32; LANES],
    /// The manifold's normal, from A to B, world frame.
    pub normal_x: [f32; LANES],
    pub normal_y: [f32; LANES],
    /// The contact's material, mixed from its colliders' when its record was made.
    pub friction: [f32; LANES],
    pub restitution: [f32; LANES],
    pub tangent_speed: [f32; LANES],
    /// The solver's inverse masses and inertias, A's then B's (zero for a body that does not
    /// move).
    pub inv_mass: [[f32; LANES]; 2],
    pub inv_inertia: [[f32; LANES]; 2],
    /// Velocities at the start of the step, (vx, vy, spin), A's then B's.
    pub velocity: [[[f32; LANES]; 3]; 2],
    pub points: [PreparePoint; 2],
}

/// One point of [`PrepareLanes`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreparePoint {
    /// Whether the lane's manifold has this point.
    pub present: [bool; LANES],
    /// The contact point minus each body's centre of mass, (x, y), world frame.
    pub anchor_a: [[f32; LANES]; 2],
    pub anchor_b: [[f32; LANES]; 2],
    /// Penetration, positive when overlapping.
    pub depth: [f32; LANES],
    /// Last step's impulses for warm starting (zero for a new point).
    pub normal_impulse: [f32; LANES],
    pub tangent_impulse: [f32; LANES],
}

impl PrepareLanes {
    /// Four empty lanes.
    pub fn empty() -> PrepareLanes {
        PrepareLanes {
            constraints: [NO_INDEX; LANES],
            body_a: [NO_INDEX; LANES],
            body_b: [NO_INDEX; LANES],
            normal_x: [0.0; LANES],
            normal_y: [0.0; LANES],
            friction: [0.0; LANES],
            restitution: [0.0; LANES],
            tangent_speed: [0.0; LANES],
            inv_mass: [[0.0; LANES]; 2],
            inv_inertia: [[0.0; LANES]; 2],
            velocity: [[[0.0; LANES]; 3]; 2],
            points: [PreparePoint::default(); 2],
        }
    }
}

impl WideContact {
    /// The constraints of `lanes`, all four at once: their materials, the softness (stiffer
    /// against a body that does not move), and per point the effective masses along the
    /// normal and the tangent, the separation at the start of the step less the anchors'
    /// part, and the normal relative velocity (for restitution). Frames: world.
    ///
    /// Written in place, field by field: built as a value and returned, the group went
    /// through a 600-byte copy that took as long as the arithmetic.
    #[inline(always)]
    pub fn prepare(&mut self, lanes: &PrepareLanes, soft: &Softness, static_soft: &Softness) {
        let v = f32x4::from;
        let zero = f32x4::ZERO;
        let (nx, ny) = (v(lanes.normal_x), v(lanes.normal_y));
        let [inv_mass_a, inv_mass_b] = lanes.inv_mass.map(v);
        let [inv_inertia_a, inv_inertia_b] = lanes.inv_inertia.map(v);
        let [[vax, vay, wa], [vbx, vby, wb]] = lanes.velocity.map(|body| body.map(v));
        let moving = |inv_mass: f32x4| inv_mass.simd_gt(zero).to_bitmask() as u8;
        // Against a body that does not move, only one side gives: a stiffer spring gives the
        // same feel.
        let still = inv_mass_a.simd_eq(zero) | inv_mass_b.simd_eq(zero);
        let softness = |value: fn(&Softness) -> f32| {
            still.select(f32x4::splat(value(static_soft)), f32x4::splat(value(soft)))
        };
        let point = |p: &PreparePoint| {
            let present = v(p.present.map(|b| f32::from(u8::from(b)))).simd_gt(zero);
            let [rax, ray] = p.anchor_a.map(v);
            let [rbx, rby] = p.anchor_b.map(v);
            // cross(r, n) and cross(r, t), with the tangent t = (-ny, nx).
            let (rna, rnb) = (rax * ny - ray * nx, rbx * ny - rby * nx);
            let (rta, rtb) = (rax * nx - ray * -ny, rbx * nx - rby * -ny);
            let k_normal =
                inv_mass_a + inv_mass_b + inv_inertia_a * rna * rna + inv_inertia_b * rnb * rnb;
            let k_tangent =
                inv_mass_a + inv_mass_b + inv_inertia_a * rta * rta + inv_inertia_b * rtb * rtb;
            // 1 / k where k > 0; zero for a point that no moving body gives to, or none.
            let inverse = |k: f32x4| (present & k.simd_gt(zero)).select(f32x4::ONE / k, zero);
            // The velocity of B's point relative to A's: v + w x r on each side.
            let dvx = ((vbx + -wb * rby) - vax) - -wa * ray;
            let dvy = ((vby + wb * rbx) - vay) - wa * rax;
            let separation = -v(p.depth) - (nx * (rbx - rax) + ny * (rby - ray));
            WidePoint {
                anchor_ax: rax,
                anchor_ay: ray,
                anchor_bx: rbx,
                anchor_by: rby,
                base_separation: present.select(separation, zero),
                normal_mass: inverse(k_normal),
                tangent_mass: inverse(k_tangent),
                normal_impulse: v(p.normal_impulse),
                tangent_impulse: v(p.tangent_impulse),
                max_normal_impulse: zero,
                relative_velocity: present.select(nx * dvx + ny * dvy, zero),
            }
        };
        self.constraints = lanes.constraints;
        self.body_a = lanes.body_a;
        self.body_b = lanes.body_b;
        self.moving_a = moving(inv_mass_a);
        self.moving_b = moving(inv_mass_b);
        self.normal_x = nx;
        self.normal_y = ny;
        self.friction = v(lanes.friction);
        self.restitution = v(lanes.restitution);
        self.tangent_speed = v(lanes.tangent_speed);
        self.bias_rate = softness(|s| s.bias_rate);
        self.mass_scale = softness(|s| s.mass_scale);
        self.impulse_scale = softness(|s| s.impulse_scale);
        self.inv_mass_a = inv_mass_a;
        self.inv_inertia_a = inv_inertia_a;
        self.inv_mass_b = inv_mass_b;
        self.inv_inertia_b = inv_inertia_b;
        for (wide, p) in self.points.iter_mut().zip(&lanes.points) {
            *wide = point(p);
        }
    }

    /// Each lane's accumulated (normal, tangent) impulses of its two points, as the next
    /// step's warm start keeps them: held to `MAX_IMPULSE` (four lanes at a time, once a
    /// step; the solve's lanes stay as Box2D's), so that no kept warm start is one the
    /// snapshot reader refuses. A heavy body under a strong gravity gets there; nothing
    /// ordinary does, and below the bound the values are the solve's own bits.
    pub fn impulses(&self) -> [[[f32; 2]; 2]; LANES] {
        let bound = f32x4::splat(MAX_IMPULSE);
        let mut out = [[[0.0; 2]; 2]; LANES];
        for (k, p) in self.points.iter().enumerate() {
            let n = p.normal_impulse.fast_min(bound).to_array();
            let t = p
                .tangent_impulse
                .fast_max(-bound)
                .fast_min(bound)
                .to_array();
            for lane in 0..LANES {
                out[lane][k] = [n[lane], t[lane]];
            }
        }
        out
    }

    /// Each lane's (approach speed at the start of the step, largest normal impulse of one
    /// pass) of its two points: what a hit event is judged by.
    pub fn hit_measures(&self) -> [[[f32; 2]; 2]; LANES] {
        let mut out = [[[0.0; 2]; 2]; LANES];
        for (k, p) in self.points.iter().enumerate() {
            let v = p.relative_velocity.to_array();
            let m = p.max_normal_impulse.to_array();
            for lane in 0..LANES {
                out[lane][k] = [-v[lane], m[lane]];
            }
        }
        out
    }

    /// Applies the accumulated impulses (last step's, carried over) to the velocities.
    ///
    /// # Safety
    /// This group's moving bodies are touched by no other thread meanwhile ([`StatePtr`]).
    pub unsafe fn warm_start(&self, states: StatePtr) {
        // SAFETY: the caller's promise.
        let (mut a, mut b) =
            unsafe { (gather(states, &self.body_a), gather(states, &self.body_b)) };
        let (nx, ny) = (self.normal_x, self.normal_y);
        for p in &self.points {
            // impulse = normal_impulse * normal + tangent_impulse * tangent, tangent = perp(normal)
            let px = p.normal_impulse * nx - p.tangent_impulse * ny;
            let py = p.normal_impulse * ny + p.tangent_impulse * nx;
            apply(&self.masses(), &mut a, &mut b, p, px, py);
        }
        // SAFETY: the caller's promise.
        unsafe {
            scatter(states, &self.body_a, self.moving_a, &a);
            scatter(states, &self.body_b, self.moving_b, &b);
        }
    }

    /// One pass over the lanes' points: normal impulses, with the soft push-out when
    /// `USE_BIAS` (the solve pass); without it (the relax pass), then friction. `inv_h` is
    /// the substep rate.
    ///
    /// Friction is solved in the relax pass only, as Box2D v3's solver now does: the
    /// solve pass pushes overlapping points apart, and the relax pass, which follows it in
    /// every substep, takes out the velocity that push added and then holds the tangential
    /// slip, once per substep, against the normal impulses it leaves. The accumulated
    /// friction impulse is warm-started as before, so a resting contact holds from the first
    /// substep on; the solve pass costs about half as much.
    ///
    /// # Safety
    /// This group's moving bodies are touched by no other thread meanwhile ([`StatePtr`]).
    pub unsafe fn solve<const USE_BIAS: bool>(&mut self, states: StatePtr, inv_h: f32) {
        // SAFETY: the caller's promise.
        let (mut a, mut b) =
            unsafe { (gather(states, &self.body_a), gather(states, &self.body_b)) };
        let (nx, ny) = (self.normal_x, self.normal_y);
        let zero = f32x4::ZERO;
        let one = f32x4::ONE;
        let inv_h = f32x4::splat(inv_h);
        let max_push = f32x4::splat(-MAX_PUSH_SPEED);
        // Motion of B relative to A since the start of the step.
        let (dx, dy) = (b.dpx - a.dpx, b.dpy - a.dpy);
        let masses = self.masses();
        let (bias_rate, soft_mass, soft_impulse) =
            (self.bias_rate, self.mass_scale, self.impulse_scale);
        for p in &mut self.points {
            // Current separation from the bodies' motion since the start of the step: the
            // anchors turn with each body's rotation since then.
            let rbx = b.qc * p.anchor_bx - b.qs * p.anchor_by;
            let rby = b.qs * p.anchor_bx + b.qc * p.anchor_by;
            let rax = a.qc * p.anchor_ax - a.qs * p.anchor_ay;
            let ray = a.qs * p.anchor_ax + a.qc * p.anchor_ay;
            let s = nx * (dx + rbx - rax) + ny * (dy + rby - ray) + p.base_separation;
            // Apart (a speculative contact): allow closing the gap within this substep.
            let open = s.simd_gt(zero);
            let (bias, mass_scale, impulse_scale) = if USE_BIAS {
                (
                    open.select(s * inv_h, (bias_rate * s).fast_max(max_push)),
                    open.select(one, soft_mass),
                    open.select(zero, soft_impulse),
                )
            } else {
                (open.select(s * inv_h, zero), one, zero)
            };
            let vn = relative_velocity(&a, &b, p, nx, ny);
            let impulse =
                -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
            let total = (p.normal_impulse + impulse).fast_max(zero);
            let applied = total - p.normal_impulse;
            p.normal_impulse = total;
            p.max_normal_impulse = p.max_normal_impulse.fast_max(applied);
            apply(&masses, &mut a, &mut b, p, applied * nx, applied * ny);
        }
        if !USE_BIAS {
            self.solve_friction(&mut a, &mut b);
        }
        // SAFETY: the caller's promise.
        unsafe {
            scatter(states, &self.body_a, self.moving_a, &a);
            scatter(states, &self.body_b, self.moving_b, &b);
        }
    }

    /// The friction half of the relax pass: each point's tangential impulse, held within
    /// friction times its normal impulse, towards a slip of minus the tangent speed (a
    /// conveyor's surface carries what rests on it: see the parent module for the sign).
    #[inline(always)]
    fn solve_friction(&mut self, a: &mut WideBody, b: &mut WideBody) {
        let masses = self.masses();
        let (tx, ty) = (-self.normal_y, self.normal_x);
        let friction = self.friction;
        for p in &mut self.points {
            let vt = relative_velocity(a, b, p, tx, ty) + self.tangent_speed;
            // Friction, finite and 0 or more, times a normal impulse, finite and 0 or more:
            // the limit is never NaN, so fast_max/fast_min clamp it as f32::clamp would.
            let limit = friction * p.normal_impulse;
            let total = (p.tangent_impulse - p.tangent_mass * vt)
                .fast_max(-limit)
                .fast_min(limit);
            let applied = total - p.tangent_impulse;
            p.tangent_impulse = total;
            apply(&masses, a, b, p, applied * tx, applied * ty);
        }
    }

    /// Bounces the points that approached faster than the threshold at the start of the step
    /// and were pushed apart during it.
    ///
    /// # Safety
    /// This group's moving bodies are touched by no other thread meanwhile ([`StatePtr`]).
    pub unsafe fn apply_restitution(&mut self, states: StatePtr) {
        let zero = f32x4::ZERO;
        let threshold = f32x4::splat(-RESTITUTION_THRESHOLD);
        let bouncy = self.restitution.simd_gt(zero);
        if !bouncy.any() {
            return;
        }
        // SAFETY: the caller's promise.
        let (mut a, mut b) =
            unsafe { (gather(states, &self.body_a), gather(states, &self.body_b)) };
        let (nx, ny) = (self.normal_x, self.normal_y);
        for k in 0..2 {
            let p = self.points[k];
            let bounce = bouncy
                & p.relative_velocity.simd_le(threshold)
                & p.max_normal_impulse.simd_gt(zero);
            if !bounce.any() {
                continue;
            }
            let vn = relative_velocity(&a, &b, &p, nx, ny);
            let impulse = -p.normal_mass * (vn + self.restitution * p.relative_velocity);
            let total = (p.normal_impulse + impulse).fast_max(zero);
            let applied = bounce.select(total - p.normal_impulse, zero);
            self.points[k].normal_impulse = p.normal_impulse + applied;
            apply(
                &self.masses(),
                &mut a,
                &mut b,
                &p,
                applied * nx,
                applied * ny,
            );
        }
        // SAFETY: the caller's promise.
        unsafe {
            scatter(states, &self.body_a, self.moving_a, &a);
            scatter(states, &self.body_b, self.moving_b, &b);
        }
    }

    /// The inverse masses and inertias of the lanes' bodies.
    #[inline(always)]
    fn masses(&self) -> [f32x4; 4] {
        [
            self.inv_mass_a,
            self.inv_inertia_a,
            self.inv_mass_b,
            self.inv_inertia_b,
        ]
    }
}

/// The relative velocity of B's point to A's along `(ux, uy)`, at the fixed anchors.
#[inline(always)]
fn relative_velocity(a: &WideBody, b: &WideBody, p: &WidePoint, ux: f32x4, uy: f32x4) -> f32x4 {
    // v + w × r, with w × r = (-w r.y, w r.x)
    let dvx = (b.vx - b.w * p.anchor_by) - (a.vx - a.w * p.anchor_ay);
    let dvy = (b.vy + b.w * p.anchor_bx) - (a.vy + a.w * p.anchor_ax);
    dvx * ux + dvy * uy
}

/// Applies the impulse `(px, py)` to B at its anchor and its opposite to A at its anchor;
/// `masses` are A's inverse mass and inertia, then B's.
#[inline(always)]
fn apply(
    [inv_mass_a, inv_inertia_a, inv_mass_b, inv_inertia_b]: &[f32x4; 4],
    a: &mut WideBody,
    b: &mut WideBody,
    p: &WidePoint,
    px: f32x4,
    py: f32x4,
) {
    a.vx -= *inv_mass_a * px;
    a.vy -= *inv_mass_a * py;
    a.w -= *inv_inertia_a * (p.anchor_ax * py - p.anchor_ay * px);
    b.vx += *inv_mass_b * px;
    b.vy += *inv_mass_b * py;
    b.w += *inv_inertia_b * (p.anchor_bx * py - p.anchor_by * px);
}
