//! The solver's passes as one list of stages that every thread of the pool runs together,
//! as Box2D v3 runs its solver: a fork and a join per step, not per pass.
//!
//! ```text
//! stages: clamp the speeds, prepare the constraints (every lane group), then per substep:
//!         integrate velocities, warm start (one stage per colour), solve (per colour),
//!         integrate positions (the motion since the step began; after the last substep, the
//!         poses too), relax (per colour); then restitution (per colour), store the
//!         impulses (every group), and clamp the speeds a last time (every body). A colour's
//!         stage of warm start, solve and relax runs its joints (`joint.rs`) as well as its
//!         groups. The overflow is two more stages after each colour run, its joints then its
//!         groups, one block each.
//! every thread, for each stage in order:
//!     claim blocks (a range of bodies, of one colour's joints, or of its groups) from the
//!         stage's counter and run them
//!     when none is left: wait until every claimed block of the stage is done
//! ```
//!
//! A thread only ever waits for blocks that a running thread has claimed, never for a thread
//! to arrive: a worker that starts late finds the early stages done and passes through, and
//! if no worker ever starts (the pool is busy elsewhere) the calling thread runs every block
//! itself. So the plan cannot deadlock on a busy pool, and it needs no thread count to be
//! right. Which thread runs a block never changes what the block computes: the result is the
//! same bits on any number of threads.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec2;

use super::colouring::{ConstraintGraph, LANES};
use super::contact_simd::WideContact;
use super::{ContactImpulses, HitRecord, PrepareInput, prepare_group, store_group};
use crate::collision::manifold::Contact;
use crate::dynamics::body::Body;
use crate::dynamics::forces::{BodyForces, integrate_forces};
use crate::dynamics::joints::{JointConstraint, JointPass, JointStep, run_joints};
use crate::dynamics::state::{
    BodyState, MAX_ANGULAR_SPEED, MAX_LINEAR_SPEED_LIMIT, StatePtr, clamp_speed_and_turn,
    clamp_velocity, integrate_rotation,
};
use crate::shapes::transform::rotate;

/// Blocks per thread in a stage: a few, so that a thread slowed down can be helped, but
/// each a long run of neighbouring items, so that two threads seldom write the same cache
/// line (neighbouring groups touch neighbouring bodies).
const BLOCKS_PER_THREAD: usize = 4;
/// The fewest bodies in a block of a per-body stage.
const MIN_BODIES_PER_BLOCK: usize = 256;
/// The fewest lane groups (four constraints each) in a block of a colour's stage.
const MIN_GROUPS_PER_BLOCK: usize = 8;
/// The fewest joints in a block of a colour's stage: a joint costs about what a group of
/// four contacts does.
const MIN_JOINTS_PER_BLOCK: usize = 8;
/// Spins before a waiting thread yields its core: a stage takes microseconds, so a short
/// spin usually sees it finish; yielding keeps a preempted block's thread from being starved
/// by the spinner on a loaded machine.
const SPINS_BEFORE_YIELD: u32 = 2_000;

/// What a stage does to each item of its blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pass {
    /// Per body: reset the motion since the step began; the speed clamps.
    Clamp,
    /// Per group: fill the lanes from the contacts (`prepare_group`).
    Prepare,
    /// Per body: gravity (and forces and damping, `forces.rs`) and the speed clamps.
    IntegrateVelocities,
    /// Per body: move by the velocity (the motion since the step began).
    IntegratePositions,
    /// Per body, the last substep's: move by the velocity, then set the pose to the motion
    /// since the step began applied to the pose it began at.
    IntegrateLast,
    /// Per group: apply last step's impulses.
    WarmStart,
    /// Per group: solve with the soft push.
    Solve,
    /// Per group: solve without it.
    Relax,
    /// Per group: bounce.
    Restitution,
    /// Per group: impulses into the warm-start records (`store_group`).
    Store,
    /// Per body, last: the speed clamps again, over what relax and restitution added
    /// since the last substep's clamp.
    Settle,
}

impl Pass {
    /// The joints' share of a colour's pass.
    fn joint_pass(self) -> Option<JointPass> {
        match self {
            Pass::WarmStart => Some(JointPass::WarmStart),
            Pass::Solve => Some(JointPass::Solve),
            Pass::Relax => Some(JointPass::Relax),
            _ => None,
        }
    }
}

/// One stage: a pass over `joints` (positions in the joint order, one colour's), `joint_block`
/// at a time, and over `items` (bodies, or groups of one colour), `block` at a time. The
/// joints' blocks come first in the stage's numbering.
#[derive(Clone, Debug)]
struct Stage {
    pass: Pass,
    joints: Range<usize>,
    joint_block: usize,
    items: Range<usize>,
    block: usize,
}

impl Stage {
    /// A stage of no joints.
    fn of_items(pass: Pass, items: Range<usize>, block: usize) -> Stage {
        Stage {
            pass,
            joints: 0..0,
            joint_block: 1,
            items,
            block,
        }
    }

    fn joint_blocks(&self) -> usize {
        self.joints.len().div_ceil(self.joint_block)
    }

    fn blocks(&self) -> usize {
        self.joint_blocks() + self.items.len().div_ceil(self.block)
    }

    /// Block `b`'s work: joint positions (`true`) or items (`false`).
    fn block(&self, b: usize) -> (bool, Range<usize>) {
        let joint_blocks = self.joint_blocks();
        let joints = b < joint_blocks;
        let (range, size, k) = if joints {
            (&self.joints, self.joint_block, b)
        } else {
            (&self.items, self.block, b - joint_blocks)
        };
        let start = range.start + k * size;
        (joints, start..(start + size).min(range.end))
    }
}

/// The stages of one step and their counters, kept between steps (no allocation once warm).
///
/// A stage's blocks are split into one contiguous share per thread. Thread `t` takes its own
/// share first, then helps with the others': so, pass after pass, each thread works on the
/// same constraints and bodies, which stay in its core's cache.
#[derive(Debug, Default)]
pub(crate) struct StagePlan {
    stages: Vec<Stage>,
    threads: usize,
    /// Per stage and thread share: blocks of that share handed out so far.
    claimed: Vec<AtomicUsize>,
    /// Per stage: blocks finished.
    done: Vec<AtomicUsize>,
}

impl Clone for StagePlan {
    /// A plan is rebuilt every step: a clone starts empty.
    fn clone(&self) -> Self {
        StagePlan::default()
    }
}

/// The constants of a step's stages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepConstants {
    /// The substep, seconds.
    pub h: f32,
    pub gravity: Vec2,
    pub max_speed: f32,
    /// Radians per second.
    pub max_turn: f32,
}

/// Everything the stages read and write, shared by the threads that run them.
///
/// Safety: each stage's blocks write disjoint items (a body stage: its bodies' states and
/// poses; a colour stage: its groups and joints and their moving bodies, which no other
/// group or joint of the colour touches, see `StatePtr`), and a stage starts only when every
/// block of the one before it is done.
pub(crate) struct StageData<'a> {
    /// The lane groups, filled by the prepare stage.
    pub wide: *mut WideContact,
    pub wide_len: usize,
    /// Each group's constraint indices, from the colouring.
    pub groups: &'a [[u32; LANES]],
    /// The order the store stage visits the groups in (see `ConstraintGraph::store_order`).
    pub store_order: &'a [u32],
    pub contacts: &'a [Contact],
    /// Per constraint: warm-start impulses in, accumulated impulses out (the store stage).
    pub records: *mut ContactImpulses,
    /// Per constraint, when hit events are asked for (else null): per point, the approach
    /// speed and the largest normal impulse of one pass (the store stage).
    pub hit_records: *mut HitRecord,
    pub prepare: PrepareInput<'a>,
    pub states: StatePtr,
    pub bodies: &'a [Body],
    pub centers: *mut Vec2,
    pub rotations: *mut Vec2,
    pub turned: *mut f32,
    /// Per body, read only: see `BodyMotion::forces`.
    pub forces: Option<&'a [BodyForces]>,
    pub constants: StepConstants,
    /// The joints (`joint_len` of them, prepared), solved in the colour stages.
    pub joints: *mut JointConstraint,
    pub joint_len: usize,
    /// Joint slots by colour (`ConstraintGraph::joint_order`).
    pub joint_order: &'a [u32],
    pub joint_step: JointStep,
}

// SAFETY: see the type's docs: blocks of one stage write disjoint items, stages run in order.
unsafe impl Sync for StageData<'_> {}

impl StagePlan {
    /// Lays out one step's stages: `substeps` substeps over `body_count` bodies, the
    /// constraints coloured as `graph` holds them (contacts in lane groups, joints by
    /// colour, and the overflow's of each).
    pub fn build(
        &mut self,
        threads: usize,
        substeps: usize,
        body_count: usize,
        graph: &ConstraintGraph,
    ) {
        self.stages.clear();
        let block_of = |len: usize, min: usize| len.div_ceil(threads * BLOCKS_PER_THREAD).max(min);
        let bodies = |pass| {
            Stage::of_items(
                pass,
                0..body_count,
                block_of(body_count, MIN_BODIES_PER_BLOCK),
            )
        };
        let overflow = &graph.overflow_groups;
        let groups = graph
            .colour_groups
            .iter()
            .chain([overflow])
            .map(|r| r.end)
            .max()
            .unwrap_or(0);
        let all_groups =
            |pass| Stage::of_items(pass, 0..groups, block_of(groups, MIN_GROUPS_PER_BLOCK));
        self.stages.push(bodies(Pass::Clamp));
        self.stages.push(all_groups(Pass::Prepare));
        let colours = |stages: &mut Vec<Stage>, pass: Pass| {
            let with_joints = pass.joint_pass().is_some();
            for (range, joints) in graph.colour_groups.iter().zip(&graph.colour_joints) {
                let joints = if with_joints { joints.clone() } else { 0..0 };
                if range.is_empty() && joints.is_empty() {
                    continue;
                }
                stages.push(Stage {
                    pass,
                    joint_block: block_of(joints.len(), MIN_JOINTS_PER_BLOCK),
                    joints,
                    items: range.clone(),
                    block: block_of(range.len(), MIN_GROUPS_PER_BLOCK),
                });
            }
            // Overflow constraints may share bodies: one block, one thread, in order; the
            // joints' first.
            let joints = &graph.overflow_joints;
            if with_joints && !joints.is_empty() {
                stages.push(Stage {
                    pass,
                    joints: joints.clone(),
                    joint_block: joints.len(),
                    items: 0..0,
                    block: 1,
                });
            }
            if !overflow.is_empty() {
                stages.push(Stage::of_items(pass, overflow.clone(), overflow.len()));
            }
        };
        for substep in 0..substeps {
            self.stages.push(bodies(Pass::IntegrateVelocities));
            colours(&mut self.stages, Pass::WarmStart);
            colours(&mut self.stages, Pass::Solve);
            self.stages.push(bodies(if substep + 1 < substeps {
                Pass::IntegratePositions
            } else {
                Pass::IntegrateLast
            }));
            colours(&mut self.stages, Pass::Relax);
        }
        colours(&mut self.stages, Pass::Restitution);
        self.stages.push(all_groups(Pass::Store));
        self.stages.push(bodies(Pass::Settle));
        self.threads = threads.max(1);
        let shares = self.stages.len() * self.threads;
        self.claimed.resize_with(shares, AtomicUsize::default);
        self.done
            .resize_with(self.stages.len(), AtomicUsize::default);
        for counter in self.claimed.iter().chain(&self.done) {
            counter.store(0, Ordering::Relaxed);
        }
    }

    /// Share `share` of stage `stage`'s blocks: `[start, end)`.
    fn share(&self, blocks: usize, share: usize) -> (usize, usize) {
        (
            blocks * share / self.threads,
            blocks * (share + 1) / self.threads,
        )
    }

    /// Runs every stage on the current thread and, when `threads > 1`, on `threads - 1`
    /// more of the rayon pool.
    pub fn run(&self, threads: usize, data: &StageData<'_>) {
        if threads <= 1 {
            self.run_stages(0, data);
            return;
        }
        self.run_threads(0..threads.min(self.threads), data);
    }

    /// Runs the parts of `threads` (indices), halving the range with `rayon::join`: a join
    /// keeps its jobs on the stack, where a scope's spawn would allocate one per thread and
    /// step. A half nobody steals runs here after the other, and finds its work done.
    fn run_threads(&self, threads: Range<usize>, data: &StageData<'_>) {
        if threads.len() <= 1 {
            self.run_stages(threads.start, data);
        } else {
            let mid = threads.start + threads.len() / 2;
            rayon::join(
                || self.run_threads(threads.start..mid, data),
                || self.run_threads(mid..threads.end, data),
            );
        }
    }

    /// Thread `thread`'s part: every stage in order, its own share of blocks first, then
    /// what is left of the others'.
    fn run_stages(&self, thread: usize, data: &StageData<'_>) {
        for (index, stage) in self.stages.iter().enumerate() {
            let blocks = stage.blocks();
            let done = &self.done[index];
            for k in 0..self.threads {
                let share = (thread + k) % self.threads;
                let (first, end) = self.share(blocks, share);
                let cursor = &self.claimed[index * self.threads + share];
                loop {
                    let b = first + cursor.fetch_add(1, Ordering::Relaxed);
                    if b >= end {
                        break;
                    }
                    let (joints, items) = stage.block(b);
                    // SAFETY: this block was handed to this thread alone (the cursor), and
                    // the stage before it is complete (the wait below): see StageData.
                    unsafe {
                        match stage.pass.joint_pass().filter(|_| joints) {
                            Some(pass) => run_joints(
                                pass,
                                (data.joints, data.joint_len),
                                &data.joint_order[items],
                                data.states,
                                &data.joint_step,
                            ),
                            None => run_block(stage.pass, items, data),
                        }
                    }
                    // Release: the block's writes are visible to whoever sees it counted.
                    done.fetch_add(1, Ordering::Release);
                }
            }
            let mut spins = 0;
            // Acquire: every block's writes are visible before the next stage reads them.
            while done.load(Ordering::Acquire) < blocks {
                if spins < SPINS_BEFORE_YIELD {
                    std::hint::spin_loop();
                    spins += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
}

/// Runs `pass` over `items`.
///
/// # Safety
/// No other thread touches these items (or, for groups, their moving bodies) meanwhile.
unsafe fn run_block(pass: Pass, items: Range<usize>, data: &StageData<'_>) {
    let k = data.constants;
    let inv_h = 1.0 / k.h;
    match pass {
        Pass::Clamp => {
            for i in items {
                // SAFETY: a body of this block alone (the caller's promise).
                let s = unsafe { data.states.get_mut(i) };
                s.delta_position = Vec2::ZERO;
                s.delta_rotation = Vec2::X;
                clamp_velocity(s, &data.bodies[i], k.max_speed, k.max_turn);
            }
        }
        Pass::Prepare => {
            for g in items {
                // SAFETY: a group of this block alone; this stage writes no body.
                unsafe { prepare_group(g, data) };
            }
        }
        Pass::Store => {
            for k in items {
                // SAFETY: a group of this block alone (the store order lists each group
                // once), and its constraints' records.
                unsafe { store_group(data.store_order[k] as usize, data) };
            }
        }
        Pass::IntegrateVelocities => {
            for i in items {
                // SAFETY: a body of this block alone (the caller's promise).
                let s = unsafe { data.states.get_mut(i) };
                if s.inv_mass > 0.0 {
                    match data.forces {
                        None => s.linear_velocity += k.h * k.gravity,
                        Some(forces) => integrate_forces(
                            s,
                            &data.prepare.materials[i],
                            &forces[i],
                            k.gravity,
                            k.h,
                        ),
                    }
                    clamp_velocity(s, &data.bodies[i], k.max_speed, k.max_turn);
                }
            }
        }
        Pass::IntegratePositions | Pass::IntegrateLast => {
            for i in items {
                // SAFETY: a body of this block alone (the caller's promise); `i` is below the
                // body count, the length of every per-body array.
                let (s, c, q, turned) = unsafe {
                    (
                        data.states.get_mut(i),
                        &mut *data.centers.add(i),
                        &mut *data.rotations.add(i),
                        &mut *data.turned.add(i),
                    )
                };
                // A kinematic body moves though its inverse mass is zero; every other body
                // with a zero one is static or asleep, and stays.
                if s.inv_mass == 0.0 && !data.bodies[i].is_kinematic {
                    continue;
                }
                integrate_position(s, turned, k.h);
                if pass == Pass::IntegrateLast {
                    set_pose(s, c, q);
                }
            }
        }
        Pass::Settle => {
            for i in items {
                // SAFETY: a body of this block alone (the caller's promise).
                let s = unsafe { data.states.get_mut(i) };
                // The velocity the step leaves (and a snapshot keeps) within the limits.
                clamp_speed_and_turn(s, k.max_speed, k.max_turn);
            }
        }
        Pass::WarmStart | Pass::Solve | Pass::Relax | Pass::Restitution => {
            debug_assert!(items.end <= data.wide_len);
            for g in items {
                // SAFETY: a group of this block alone, whose moving bodies no other group of
                // the colour touches (the caller's promise and the colouring).
                unsafe {
                    let group = &mut *data.wide.add(g);
                    match pass {
                        Pass::WarmStart => group.warm_start(data.states),
                        Pass::Solve => group.solve::<true>(data.states, inv_h),
                        Pass::Relax => group.solve::<false>(data.states, inv_h),
                        _ => group.apply_restitution(data.states),
                    }
                }
            }
        }
    }
}

/// Moves a body by its velocity over the substep `h`: its motion since the step began (the
/// pose itself is set once, after the last substep: `set_pose`). The caller passes over
/// bodies that do not move.
fn integrate_position(s: &mut BodyState, turned: &mut f32, h: f32) {
    // The warm start and the solve may push a body past the speed limits since this
    // substep's clamp, as in Box2D. Constraints that fight each other store impulses up to
    // MAX_IMPULSE, which can push it past anything f32 integrates: the motion is taken at
    // the table's limits at most, which no real scene reaches, so the pose stays finite and
    // every other body's motion (and bits) is as it was. Each component is held (no branch,
    // no length: a guard, not a speed limit); the velocity itself is clamped at the next
    // substep's start and at the step's end.
    let (l, w) = (MAX_LINEAR_SPEED_LIMIT, MAX_ANGULAR_SPEED);
    let v = s.linear_velocity.clamp(Vec2::splat(-l), Vec2::splat(l));
    let da = h * s.angular_velocity.clamp(-w, w);
    // integrate_rotation turns by atan(da): da bounds it, which keeps the continuous stage's
    // rotation margin conservative.
    *turned += da;
    s.delta_position += h * v;
    s.delta_rotation = integrate_rotation(s.delta_rotation, da);
}

/// The pose at the end of the step: the centre moved by the motion since the step began,
/// and the rotation turned by it (the product of the two rotations, renormalised), as Box2D
/// v3 finalises its bodies: one renormalisation a step instead of one a substep.
fn set_pose(s: &BodyState, c: &mut Vec2, q: &mut Vec2) {
    *c += s.delta_position;
    *q = rotate(s.delta_rotation, *q).normalize_or(Vec2::X);
}
