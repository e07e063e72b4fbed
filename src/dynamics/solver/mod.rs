//! The contact solver: soft contact constraints solved with sequential impulses over
//! substeps, warm-started by feature id.
//!
//! ```text
//! step(dt): speeds clamped (World::max_linear_speed; a quarter turn per substep)
//! prepare:  per contact point: anchors from each body's centre of mass (world frame, fixed
//!           for the step), effective masses, the separation at the start of the step,
//!           last step's impulses where the same feature ids touch again
//! per substep h = dt / substeps:
//!     integrate velocities (gravity, and each body's forces and damping: forces.rs), clamp
//!         them again
//!     warm start: apply the accumulated impulses
//!     solve with bias: a point still apart (a speculative contact, separation s > 0) may
//!         close its gap within the substep and no more (bias s / h, rigid); an overlapping
//!         one is pushed towards separation 0 through a soft spring (stiff, heavily damped:
//!         no energy added); normal impulses only
//!     integrate positions: each body's motion since the step began (the pose itself is set
//!         from it after the last substep)
//!     relax: normal impulses again without bias, removing the velocity the push added,
//!         then friction, clamped to mu * normal (friction once per substep, as Box2D v3
//!         now solves it), driving the tangential slip towards the contact's tangent speed
//! restitution: bounce the points that approached faster than a threshold
//! end: the speeds clamped once more (relax and restitution came after the last clamp); the
//!     impulses kept for the next step's warm start held within MAX_IMPULSE
//! ```
//!
//! Materials are per collider ([`ColliderSurface`]) and mixed once per contact when its
//! record is made, as Box2D mixes them: friction `sqrt(fa * fb)`, restitution
//! `max(ra, rb)`, tangent speed `sa + sb`. A collider's tangent speed `s` moves its surface
//! at `s * right_perp(outward normal)`: clockwise round the collider, so a floor's top moves
//! towards +x for `s > 0` (Box2D's sign). With the contact normal `n` from A to B and the
//! solver's tangent `t = left_perp(n)`, A's surface moves along `t` at `-sa` and B's (outward
//! normal `-n`) at `+sb`; no slip is `v_A + surface_A = v_B + surface_B`, so friction drives
//! `(v_B - v_A) . t` towards `-(sa + sb)`.
//!
//! The separation during the substeps is tracked from the bodies' motion since the start of
//! the step, so the narrow phase runs once per step. The scheme is the "soft step" of Box2D
//! v3 (Catto, "Solver2D", 2024), written here from its description.
//!
//! Layout for speed, as Box2D v3 lays its solver out: the constraints are coloured
//! (`colouring.rs`) so that no two of one colour share a moving body, the contacts then
//! packed four to a group of SIMD lanes (`contact_simd.rs`); a pass runs colour after
//! colour, and a colour's joints and groups at once, over the rayon pool's threads. The colours fix the order in which
//! constraints see each other's impulses, so the step is the same bits on one thread or
//! many (tests/cpu/determinism.rs). Bodies that do not move (inverse mass zero: static) are
//! read by any number of constraints of a colour and written by none.

mod batch_colouring;
mod colouring;
pub(crate) mod contact_simd;
mod offload;
mod stages;

use glam::Vec2;
use rayon::prelude::*;

use crate::collision::manifold::Contact;
use crate::dynamics::body::Body;
use crate::dynamics::state::{MAX_ROTATION_PER_SUBSTEP, Softness, StatePtr};
use crate::error::Error;
use crate::parallel;
// The world reads and writes the bodies' states and the bounds through the solver.
pub(crate) use crate::dynamics::state::{BodyMaterial, BodyState, clamp_length};
#[cfg(feature = "gpu")]
pub(crate) use batch_colouring::check_colouring_input;
pub use batch_colouring::{COLOURS, ConstraintColouring, ContactKey, JointKey, LEFT_OUT, OVERFLOW};
#[cfg(all(test, feature = "gpu"))]
pub(crate) use colouring::VISIT_SEED;
use colouring::{ConstraintGraph, JointColour, NO_INDEX};
use contact_simd::{PrepareLanes, WideContact};
pub(crate) use offload::{OffloadedStages, SleepInput, StepView};
pub(crate) use stages::StepConstants;
use stages::{StageData, StagePlan};

use crate::dynamics::body_set::BodySet;
use crate::dynamics::collider_set::{ColliderSet, ColliderSurface};
use crate::dynamics::forces::BodyForces;
use crate::dynamics::joints::{JOINT_DAMPING_RATIO, JointStep, finish_joints, prepare_joints};
pub(crate) use crate::dynamics::joints::{JointConstraint, JointModel, Spring, relative_angle};

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
    /// Per collider: its body, and its material (mixed per contact).
    pub collider_bodies: &'a [u32],
    pub surfaces: &'a [ColliderSurface],
    /// World-frame centres of mass.
    pub centers: &'a mut [Vec2],
    /// Rotations as (cos, sin).
    pub rotations: &'a mut [Vec2],
    pub states: &'a mut [BodyState],
    /// The angle each body turned during the step, accumulated here (zeroed by the caller):
    /// the continuous stage's rotation margin.
    pub turned: &'a mut [f32],
    /// Per body, its forces, gravity scale and damping (`forces.rs`); `None` when every
    /// body has the defaults, and gravity alone acts.
    pub forces: Option<&'a [BodyForces]>,
    /// The joints, by joint slot (vacant ones passed over); their impulses carry over to
    /// the next step's warm start.
    pub joints: &'a mut [JointConstraint],
}

impl<'a> BodyMotion<'a> {
    /// The bodies as the solver moves them, with the colliders' owners and surfaces (a
    /// contact names colliders), the per-body turn accumulator and the joints.
    pub fn new(
        bodies: &'a mut BodySet,
        colliders: &'a ColliderSet,
        collider_bodies: &'a [u32],
        turned: &'a mut [f32],
        joints: &'a mut [JointConstraint],
    ) -> Self {
        BodyMotion {
            bodies: &bodies.records,
            materials: &bodies.materials,
            collider_bodies,
            surfaces: &colliders.surfaces,
            centers: &mut bodies.centers,
            rotations: &mut bodies.rotations,
            states: &mut bodies.states,
            turned,
            forces: bodies.custom_forces.then_some(&bodies.forces[..]),
            joints,
        }
    }
}

/// The solver's length tolerance, in length units (bodies are about one unit), Box2D v3's:
/// the world's speculative distance is four of it, and the continuous stage leaves a body
/// half of it into the obstacle it stops at. Resting contacts settle near separation 0: the
/// speculative contacts ([`SPECULATIVE_DISTANCE`]) keep them reported when the
/// solver has pushed them out to the surface, so no standing overlap is needed for that.
pub(crate) const LINEAR_SLOP: f32 = 0.005;

/// How far apart two pieces may be and still have a contact, world units: four times the
/// solver's linear slop (0.005), Box2D v3's value. A contact within it is speculative (its
/// depth is minus the gap): the solver lets the bodies close the gap within the step but not
/// pass it. Resting bodies pushed out to the surface so keep their contact, and its warm-
/// started impulse, from step to step, which is what lets a 100-row pyramid stand; a body
/// approaching at up to `SPECULATIVE_DISTANCE / dt` (1.2 units per second at 60 Hz) is
/// stopped at the surface instead of inside it.
pub const SPECULATIVE_DISTANCE: f32 = 4.0 * LINEAR_SLOP;
/// The fastest the solver pushes overlapping bodies apart, in length units per second: a
/// deep overlap resolves over a few steps instead of launching the bodies.
pub(crate) const MAX_PUSH_SPEED: f32 = 3.0;
/// Damping ratio of the contact spring: far above critical, so pushing out adds no bounce.
const CONTACT_DAMPING_RATIO: f32 = 10.0;
/// Stiffness of the contact spring, in hertz; capped at a quarter of the substep rate.
const CONTACT_HERTZ: f32 = 30.0;

/// One contact's record, in contact order: which colliders and bodies, their mixed
/// material, its points' feature ids, and their accumulated impulses once the step is
/// solved (the next step's warm start).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactImpulses {
    /// The colliders in touch: which pieces of the two bodies, for warm starting (two
    /// bodies of several pieces can touch in several places with the same feature ids).
    colliders: [u32; 2],
    bodies: [u32; 2],
    /// The two colliders' materials mixed (`ColliderSurface::mix`), once per step.
    material: ColliderSurface,
    /// Points in the manifold, 1 or 2. A `u32` rather than a `usize`, so that the record,
    /// which the material made longer, stays 56 bytes with 4-byte alignment: the match
    /// writes one per contact, and each byte more is more cache lines written.
    count: u32,
    ids: [u32; 2],
    normal: [f32; 2],
    tangent: [f32; 2],
}

const _: () = assert!(std::mem::size_of::<ContactImpulses>() == 56);

/// Per point of one contact, once solved: how fast the bodies approached there at the start
/// of the step (minus the normal relative velocity), and the largest normal impulse one
/// pass applied: the hit events' test. Kept apart from the warm-start records, and written
/// only when hit events are asked for.
pub(crate) type HitRecord = [[f32; 2]; 2];

/// The solver's scratch, reused between steps: this step's constraints in colour groups, and
/// the impulses of this step and the last, for warm starting.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSolver {
    /// This step's records, in contact order; after the step, its impulses.
    impulses: Vec<ContactImpulses>,
    /// Last step's, in contact order (ascending collider pairs).
    previous: Vec<ContactImpulses>,
    /// This step's hit records, in contact order, when asked for (else empty).
    hit_records: Vec<HitRecord>,
    graph: ConstraintGraph,
    wide: Vec<WideContact>,
    plan: StagePlan,
    /// The colours offloaded stages gave this step's constraints (see `StepView::colours`).
    offloaded_colours: Vec<u8>,
}

/// One contact's warm start as a snapshot keeps it (`world/snapshot/`): its colliders,
/// its point count, and per point the feature id and the normal and tangent impulses.
pub(crate) type WarmStart = ([u32; 2], u32, [u32; 2], [f32; 2], [f32; 2]);

impl ContactSolver {
    /// The last step's warm starts, in contact order (ascending collider pairs): all the
    /// next step reads of this solver; the rest is scratch.
    pub(crate) fn warm_starts(&self) -> impl Iterator<Item = WarmStart> + '_ {
        self.impulses
            .iter()
            .map(|r| (r.colliders, r.count, r.ids, r.normal, r.tangent))
    }

    /// The last step's colouring: per contact its colour, per coloured joint its slot,
    /// bodies and colour, per body whether it moved (colours persist from step to step: see
    /// `colouring.rs`).
    pub(crate) fn colouring(&self) -> (&[u8], impl Iterator<Item = JointColour> + '_, &[u64]) {
        self.graph.saved()
    }

    /// A solver whose last step left `warm_starts` (ascending collider pairs, as
    /// `warm_starts` gives them; the match reads nothing else of a record) and coloured
    /// them and the joints in slots `joint_slots` (ascending) between the bodies `bodies`
    /// (the contacts', then the joints') with `colours` (in the same order), with the
    /// moving bodies `moving` (checked by the caller: bodies below 64 times `moving`'s
    /// length). A colouring that is not one is an error naming the first constraint it
    /// fails at (see `ConstraintGraph::restored`). `spare`'s memory is reused.
    pub(crate) fn restored(
        warm_starts: Vec<WarmStart>,
        joint_slots: &[u32],
        bodies: Vec<[u32; 2]>,
        colours: Vec<u8>,
        moving: Vec<u64>,
        spare: ContactSolver,
    ) -> Result<Self, usize> {
        let keys = warm_starts.iter().map(|w| w.0).collect();
        // The spare solver's warm-start list, refilled: no fresh pages on a restore over
        // a world of the same size.
        let mut impulses = spare.impulses;
        impulses.clear();
        impulses.extend(
            warm_starts
                .into_iter()
                .map(|(colliders, count, ids, normal, tangent)| ContactImpulses {
                    colliders,
                    count,
                    ids,
                    normal,
                    tangent,
                    ..Default::default()
                }),
        );
        Ok(ContactSolver {
            impulses,
            graph: ConstraintGraph::restored(keys, joint_slots, bodies, colours, moving)?,
            ..ContactSolver::default()
        })
    }
}

/// What the prepare stage reads besides the contacts and the bodies' motion.
pub(crate) struct PrepareInput<'a> {
    pub materials: &'a [BodyMaterial],
    pub soft: Softness,
    pub static_soft: Softness,
}

/// Fills lane `lane` of `lanes` with constraint `k`: its manifold, its warm-start record,
/// and its bodies' states, centres of mass and materials.
///
/// # Safety
/// `k` indexes the contacts, and no thread writes a record, body state or centre meanwhile
/// (the prepare stage).
unsafe fn fill_lane(lanes: &mut PrepareLanes, lane: usize, k: u32, data: &StageData<'_>) {
    // SAFETY: the caller's promise.
    let record = unsafe { &*data.records.add(k as usize) };
    let [a, b] = record.bodies.map(|i| i as usize);
    // SAFETY: the caller's promise.
    let (states, centers) = unsafe {
        (
            [data.states.get(a), data.states.get(b)],
            [*data.centers.add(a), *data.centers.add(b)],
        )
    };
    let materials = [&data.prepare.materials[a], &data.prepare.materials[b]];
    let contact = &data.contacts[k as usize];
    lanes.constraints[lane] = k;
    [lanes.body_a[lane], lanes.body_b[lane]] = record.bodies;
    let m = &contact.manifold;
    lanes.normal_x[lane] = m.normal.x;
    lanes.normal_y[lane] = m.normal.y;
    lanes.friction[lane] = record.material.friction;
    lanes.restitution[lane] = record.material.restitution;
    lanes.tangent_speed[lane] = record.material.tangent_speed;
    for (side, (state, material)) in states.into_iter().zip(materials).enumerate() {
        lanes.inv_mass[side][lane] = state.inv_mass;
        lanes.inv_inertia[side][lane] = state.inv_inertia(material);
        let velocity = &mut lanes.velocity[side];
        velocity[0][lane] = state.linear_velocity.x;
        velocity[1][lane] = state.linear_velocity.y;
        velocity[2][lane] = state.angular_velocity;
    }
    for (k, p) in m.points().iter().enumerate() {
        let point = &mut lanes.points[k];
        point.present[lane] = true;
        let ra = lever(p.point - centers[0], materials[0]);
        let rb = lever(p.point - centers[1], materials[1]);
        [point.anchor_a[0][lane], point.anchor_a[1][lane]] = [ra.x, ra.y];
        [point.anchor_b[0][lane], point.anchor_b[1][lane]] = [rb.x, rb.y];
        point.depth[lane] = p.depth;
        point.normal_impulse[lane] = record.normal[k];
        point.tangent_impulse[lane] = record.tangent[k];
    }
}

/// The anchor `r` (a contact point minus the centre of mass of the body of `material`),
/// held within the body's reach: its farthest point, and half the speculative distance
/// beyond it where a speculative contact's point may lie.
///
/// A contact point is halfway between the two surfaces, which for an ordinary contact is
/// on the body or a hair from it. Deep inside another piece it is not: a body at the
/// centre of a static circle 2e11 across (accepted: under `MAX_COORDINATE`) had its points
/// 1e11 away, levers whose products with its spin overflowed to infinity within one solve
/// pass, and came out of the step with a NaN spin (found by `examples/fuzz`, world target).
/// An impulse acts on the body at a point of the body: a longer lever is brought back along
/// its own direction, which leaves every ordinary contact as it was.
fn lever(r: Vec2, material: &BodyMaterial) -> Vec2 {
    let reach = material.max_extent + 0.5 * SPECULATIVE_DISTANCE;
    // Squares first: nearly every lever is within reach, and then no root is taken.
    if r.length_squared() > reach * reach {
        r * (reach / r.length())
    } else {
        r
    }
}

impl ContactSolver {
    /// The accumulated normal impulse of each contact point of the last step, in contact
    /// order and point order: for tests and drawing.
    pub fn normal_impulses(&self) -> impl Iterator<Item = f32> + '_ {
        self.impulses
            .iter()
            .flat_map(|r| r.normal[..r.count as usize].iter().copied())
    }

    /// The contacts of the last step that hit: per contact the solver pushed (a normal
    /// impulse above 0 at some point), its point that approached fastest, if faster than
    /// `threshold`, as (contact index, point index, approach speed).
    /// (Empty unless the step was asked to record hits.)
    pub fn hits(&self, threshold: f32) -> impl Iterator<Item = (usize, usize, f32)> + '_ {
        let records = self.impulses.iter().zip(&self.hit_records);
        records.enumerate().filter_map(move |(k, (r, hit))| {
            // Unsolved contacts (between still bodies) keep the zeros of the step's start.
            let pushed = |&p: &usize| hit[p][1] > 0.0;
            let fastest = (0..r.count as usize)
                .filter(pushed)
                .max_by(|&p, &q| hit[p][0].total_cmp(&hit[q][0]))?;
            let speed = hit[fastest][0];
            (speed > threshold).then_some((k, fastest, speed))
        })
    }

    /// Matches this step's contacts (between colliders, in ascending pair order;
    /// `collider_bodies` maps a collider to its body, `surfaces` to its material) with last
    /// step's, carrying over the impulses of points whose feature ids touch again and mixing
    /// each contact's material, and colours them into lane groups, with the live `joints`
    /// in the same colours. The prepare stage then fills the groups. With `deferred`, the
    /// constraints are only listed: offloaded stages colour them (`ConstraintGraph::defer`).
    ///
    /// The colouring is serial (greedy, in contact order), so it runs beside the match, which
    /// does not need it; the match itself is split into blocks over the pool.
    fn match_and_colour(
        &mut self,
        contacts: &[Contact],
        collider_bodies: &[u32],
        surfaces: &[ColliderSurface],
        states: &[BodyState],
        joints: &[JointConstraint],
        deferred: bool,
    ) {
        std::mem::swap(&mut self.impulses, &mut self.previous);
        let (impulses, previous, graph) = (&mut self.impulses, &self.previous, &mut self.graph);
        let bodies_of = |c: &Contact| [c.a, c.b].map(|i| collider_bodies[i as usize]);
        let material_of = |c: &Contact| surfaces[c.a as usize].mix(&surfaces[c.b as usize]);
        parallel::join(
            || match_warm_starts(impulses, previous, contacts, bodies_of, material_of),
            || {
                let constraints = contacts.iter().map(|c| ([c.a, c.b], bodies_of(c)));
                // A filter joint has nothing to solve, and takes no colour.
                let joints = joints
                    .iter()
                    .enumerate()
                    .filter(|(_, j)| j.live && !matches!(j.model, JointModel::Filter))
                    .map(|(slot, j)| (slot as u32, j.bodies));
                let moves = |body: u32| states[body as usize].moves();
                if deferred {
                    graph.defer(states.len(), constraints, joints, moves);
                } else {
                    graph.colour(states.len(), constraints, joints, moves);
                }
            },
        );
        self.fit_wide();
    }

    /// The wide contacts, one per group of the colouring (which the prepare stage fills
    /// through a pointer: it must be this long).
    fn fit_wide(&mut self) {
        // Room for the most groups, not only this step's (see ConstraintGraph::colour).
        self.wide.reserve(self.graph.groups.capacity());
        self.wide
            .resize(self.graph.groups.len(), WideContact::default());
    }

    /// One step of `dt` seconds over the bodies: speeds clamped, constraints prepared from
    /// `contacts` (between colliders; `motion.collider_bodies` maps a collider to its body
    /// and `motion.surfaces` to its material), then
    /// per substep gravity, warm start, solve, integrate positions, relax; then restitution.
    /// With `record_hits`, [`ContactSolver::hits`] can tell the step's hits afterwards.
    /// Runs on the current rayon pool (best started from one of its workers: see
    /// `World::step`); the result is the same bits on any number of threads. With
    /// `offloaded`, the stages run there instead (see `offload.rs`); should they fail, they
    /// run here after all, and the error is returned with the step done.
    pub fn step(
        &mut self,
        dt: f32,
        substeps: &Substeps,
        contacts: &[Contact],
        motion: &mut BodyMotion<'_>,
        record_hits: bool,
        offloaded: Option<&mut dyn OffloadedStages>,
    ) -> Result<(), Error> {
        let threads = rayon::current_num_threads();
        let h = dt / substeps.count as f32;
        let constants = StepConstants {
            h,
            gravity: substeps.gravity,
            max_speed: substeps.max_linear_speed,
            max_turn: MAX_ROTATION_PER_SUBSTEP / h,
        };
        self.match_and_colour(
            contacts,
            motion.collider_bodies,
            motion.surfaces,
            motion.states,
            motion.joints,
            offloaded.is_some(),
        );
        self.hit_records.clear();
        if record_hits {
            // Zeros for the contacts no group solves (between still bodies): no hit.
            self.hit_records.resize(contacts.len(), [[0.0; 2]; 2]);
        }
        let hertz = CONTACT_HERTZ.min(0.25 / h);
        let has_joints = motion.joints.iter().any(|j| j.live);
        if has_joints {
            prepare_joints(
                motion.joints,
                motion.bodies,
                motion.materials,
                motion.states,
                motion.centers,
                motion.rotations,
                h,
            );
        }
        let soft = Softness::new(hertz, CONTACT_DAMPING_RATIO, h);
        // Against a static body only one side moves: a stiffer spring gives the same feel.
        let static_soft = Softness::new(2.0 * hertz, CONTACT_DAMPING_RATIO, h);
        // Box2D v3's joint softness: twice the contacts' hertz, less damped.
        let joint_soft = Softness::new(2.0 * hertz, JOINT_DAMPING_RATIO, h);
        let mut offload_error = None;
        if let Some(stages) = offloaded {
            let mut view = StepView {
                substeps: substeps.count,
                constants,
                soft,
                static_soft,
                contacts,
                records: &mut self.impulses,
                hit_records: record_hits.then_some(&mut self.hit_records[..]),
                graph: &self.graph,
                colours: &mut self.offloaded_colours,
                joint_soft,
                motion,
            };
            match stages.run(&mut view) {
                Ok(()) => {
                    self.graph.set_colours(&self.offloaded_colours);
                    if has_joints {
                        finish_joints(motion.joints, h);
                    }
                    return Ok(());
                }
                Err(e) => {
                    // The stages colour too: the host colours the step after all, and
                    // its groups are the wide contacts'.
                    self.graph.finish_colouring();
                    self.fit_wide();
                    offload_error = Some(e);
                }
            }
        }
        // The stages write the wide contacts through a pointer, group by group.
        assert!(self.wide.len() == self.graph.groups.len());
        self.plan
            .build(threads, substeps.count, motion.states.len(), &self.graph);
        let data = StageData {
            wide: self.wide.as_mut_ptr(),
            wide_len: self.wide.len(),
            groups: &self.graph.groups,
            store_order: &self.graph.store_order,
            contacts,
            records: self.impulses.as_mut_ptr(),
            hit_records: if record_hits {
                self.hit_records.as_mut_ptr()
            } else {
                std::ptr::null_mut()
            },
            prepare: PrepareInput {
                materials: motion.materials,
                soft,
                static_soft,
            },
            states: StatePtr::new(motion.states),
            bodies: motion.bodies,
            centers: motion.centers.as_mut_ptr(),
            rotations: motion.rotations.as_mut_ptr(),
            turned: motion.turned.as_mut_ptr(),
            forces: motion.forces,
            constants,
            joints: motion.joints.as_mut_ptr(),
            joint_len: motion.joints.len(),
            joint_order: &self.graph.joint_order,
            joint_step: JointStep {
                h,
                soft: joint_soft,
                max_speed: constants.max_speed,
                max_turn: constants.max_turn,
            },
        };
        self.plan.run(threads, &data);
        if has_joints {
            finish_joints(motion.joints, h);
        }
        offload_error.map_or(Ok(()), Err)
    }
}

/// Contacts per task of the match: a short merge step and a record's copy each, some 10 ns.
const CONTACTS_PER_TASK: usize = 2048;

/// Fills `records` (one per contact) from `contacts`, with their bodies and mixed
/// materials, carrying over `previous`'s impulses of points whose feature ids touch again. Both lists ascend by collider pair, so each block
/// of contacts finds where it starts in `previous` by a binary search and merge-walks from
/// there; the records are the same whatever the blocks.
fn match_warm_starts(
    records: &mut Vec<ContactImpulses>,
    previous: &[ContactImpulses],
    contacts: &[Contact],
    bodies_of: impl Fn(&Contact) -> [u32; 2] + Sync,
    material_of: impl Fn(&Contact) -> ColliderSurface + Sync,
) {
    // No clear first: every record is written below, so only a longer list's new tail is
    // filled here (filling them all was a serial pass, a sixth of the match).
    records.resize(contacts.len(), ContactImpulses::default());
    records
        .par_chunks_mut(CONTACTS_PER_TASK)
        .zip(contacts.par_chunks(CONTACTS_PER_TASK))
        .with_min_len(parallel::min_len(1))
        .for_each(|(records, contacts)| {
            let first = contacts.first().map_or([0; 2], |c| [c.a, c.b]);
            let mut old = previous.partition_point(|p| p.colliders < first);
            for (record, c) in records.iter_mut().zip(contacts) {
                let colliders = [c.a, c.b];
                while old < previous.len() && previous[old].colliders < colliders {
                    old += 1;
                }
                let last = previous.get(old).filter(|p| p.colliders == colliders);
                *record = ContactImpulses {
                    colliders,
                    bodies: bodies_of(c),
                    material: material_of(c),
                    count: c.manifold.points().len() as u32,
                    ..Default::default()
                };
                for (k, p) in c.manifold.points().iter().enumerate() {
                    record.ids[k] = p.id;
                    if let Some(prev) = last {
                        if let Some(j) = prev.ids[..prev.count as usize]
                            .iter()
                            .position(|&id| id == p.id)
                        {
                            record.normal[k] = prev.normal[j];
                            record.tangent[k] = prev.tangent[j];
                        }
                    }
                }
            }
        });
}

/// Fills lane group `g` from its constraints' contacts, records and bodies (the prepare
/// stage).
///
/// # Safety
/// No other thread touches group `g` meanwhile, and no thread writes a body state or centre.
pub(crate) unsafe fn prepare_group(g: usize, data: &StageData<'_>) {
    prefetch_group(g + PREFETCH_AHEAD, data);
    let mut lanes = PrepareLanes::empty();
    for (lane, &k) in data.groups[g].iter().enumerate() {
        if k == NO_INDEX {
            continue;
        }
        // SAFETY: `k` indexes the contacts (a constraint index of the colouring); the
        // prepare stage writes no record, state or centre (the caller's promise).
        unsafe { fill_lane(&mut lanes, lane, k, data) };
    }
    let input = &data.prepare;
    // SAFETY: the caller's promise; `g` indexes `groups`, which has `wide`'s length.
    let wide = unsafe { &mut *data.wide.add(g) };
    wide.prepare(&lanes, &input.soft, &input.static_soft);
}

/// How many groups ahead the prepare stage asks for its reads.
const PREFETCH_AHEAD: usize = 2;

/// Asks the CPU to start loading the contacts and warm-start records that preparing group
/// `g` reads (if there is such a group). A group's constraints are scattered over the
/// contact list (every tenth or so is of one colour), so these reads may miss the cache and
/// the prepare stage would wait on them; the request lets them overlap with the groups
/// before.
#[inline(always)]
fn prefetch_group(g: usize, data: &StageData<'_>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(lanes) = data.groups.get(g) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        /// Both ends of a record of type `T` at `p`: records are not aligned to cache lines
        /// (a 56-byte warm-start record straddles two in most places).
        ///
        /// # Safety
        /// None beyond a prefetch's: it never faults, whatever the address.
        #[inline(always)]
        unsafe fn both_ends<T>(p: *const T) {
            let p = p.cast::<i8>();
            // SAFETY: a prefetch only hints the cache; the address is never dereferenced.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(p);
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(std::mem::size_of::<T>() - 1));
            }
        }
        for &k in lanes.iter().filter(|&&k| k != NO_INDEX) {
            let k = k as usize;
            // SAFETY: a prefetch never faults; `k` indexes both lists anyway (a constraint
            // index of the colouring).
            unsafe {
                both_ends(data.contacts.as_ptr().wrapping_add(k));
                both_ends(data.records.wrapping_add(k).cast_const());
            }
        }
    }
}

/// Copies group `g`'s accumulated impulses into its constraints' records, for the next
/// step's warm start (the store stage).
///
/// # Safety
/// No other thread touches group `g` or its constraints' records meanwhile.
pub(crate) unsafe fn store_group(g: usize, data: &StageData<'_>) {
    // SAFETY: the caller's promise.
    let wide = unsafe { &*data.wide.add(g) };
    let hits = (!data.hit_records.is_null()).then(|| wide.hit_measures());
    for (lane, point_impulses) in wide.impulses().iter().enumerate() {
        let k = wide.constraints[lane];
        if k == NO_INDEX {
            continue;
        }
        // SAFETY: each constraint is in one lane of one group: this record is this lane's.
        let record = unsafe { &mut *data.records.add(k as usize) };
        // `impulses` holds them to MAX_IMPULSE (see `WideContact::impulses`).
        for (p, [normal, tangent]) in point_impulses.iter().enumerate() {
            record.normal[p] = *normal;
            record.tangent[p] = *tangent;
        }
        if let Some(hits) = &hits {
            // SAFETY: as the record above; the caller made this list as long as it.
            unsafe { *data.hit_records.add(k as usize) = hits[lane] };
        }
    }
}
