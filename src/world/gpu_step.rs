//! The step with its collision stage on the GPU ([`World::step_on_gpu`]), and with its
//! solver's stages there too for the GPU world (`step_with_offloaded_solver`, with the
//! transforms it draws from: `gpu/world/`, which also place its colliders on the device:
//! `gpu/place.rs`). The collision stage: the world's
//! broad phase and recycling pass run as always, and pick the pairs that need a fresh
//! manifold; the GPU finds every contact among the world's boxes in one submit (its own
//! broad phase, the narrow phase dispatched from its count); the host keeps those of the
//! fresh pairs.
//!
//! ```text
//! GpuCollision::send                     the step's boxes and poses up, one submit: every
//!                                        contact of boxes that overlap (GPU) ...
//! find_pairs, sort_out_recycled          ... while the CPU finds the persistent pairs and
//!                                        the fresh ones
//! GpuCollision::collect, keep_fresh      wait; a merge walk (both lists ascend by pair)
//! finish_step                            merge, solver, continuous, sleep (CPU)
//! ```
//!
//! Why the same bits as [`World::step`]: a fresh pair's boxes overlap (the recycling pass
//! sends no other), so the GPU's broad phase over the same boxes finds it, and its narrow
//! phase computes the manifold the CPU's would (the kernel's bits are the CPU's on the
//! adapters docs/reliability.md names; the tests check it on the one at hand). The GPU also
//! collides pairs the world does not want (of one body, filtered, recycled, removed);
//! those are dropped by the walk. The GPU's part needs only the poses and boxes of the
//! step's start, which nothing changes before the solver: it is sent first and collected
//! last, so on a real GPU the CPU's broad phase runs while the GPU works.
//!
//! The GPU world with its pair set on the device splits the call (`gpu/collision/set.rs`):
//!
//! ```text
//! GpuCollision::place_first              the colliders placed from the transforms (GPU)
//! find_pairs                             the pair set's fat boxes grown from them, its
//!                                        changes found there (GPU), applied (CPU); the
//!                                        recycling pass (CPU)
//! GpuCollision::send_over_set            the contacts of the device's set's fresh pairs
//!                                        (GPU), when that set is the world's
//! GpuCollision::collect, keep_fresh      as above
//! ```
//!
//! The device's set is the world's list (its generation says so), so the world's fresh
//! slots name the set's pairs that need a manifold. The device finds them itself, from
//! the manifolds it keeps per pair (`gpu/collision/recycle/`; the world's go up when it
//! has not got them), held to the world's by a hash (else a bit each goes up), and the
//! narrow phase collides those alone; the walk keeps the same contacts.

use super::World;
use super::limits::{TIME_STEP_RANGE, check_gravity};
use super::stage::{CollisionStage, PairsElsewhere};
use super::stats::StepStats;
use crate::collision::manifold::Contact;
use crate::collision::narrow_phase::NarrowPhaseTimings;
use crate::dynamics::solver::{OffloadedStages, SPECULATIVE_DISTANCE};
use crate::error::{Error, WorldError};
use crate::gpu::GpuCollision;
use crate::gpu::collision::SetKept;
use crate::gpu::layout::UNPLACED;

impl World {
    /// Advances the world by `dt` seconds as [`World::step`] does, with the narrow phase's
    /// work on the GPU: `collision` finds the contacts among the step's boxes there (the
    /// pairs never leave the device), and the step keeps those the world's pairs need. The
    /// world reaches the bits [`World::step`] reaches with any narrow phase.
    ///
    /// Errors as [`World::step`]; when the GPU fails (a lost device, a validation error),
    /// the world is exactly as it was before the call, and the caller can step again with
    /// a CPU narrow phase.
    ///
    /// ```no_run
    /// use wgpu_sat::{glam::Vec2, gpu::GpuCollision, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let (device, queue) = wgpu_sat::request_device()?;
    /// let mut collision = GpuCollision::new(&device, &queue)?;
    /// let mut world = World::default();
    /// world.add_body(&BodyDef::fixed(Polygon::rectangle(10.0, 0.5), Vec2::new(0.0, -0.5)))?;
    /// world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0)))?;
    /// for _ in 0..60 {
    ///     if world.step_on_gpu(1.0 / 60.0, &mut collision).is_err() {
    ///         world.step(1.0 / 60.0, &mut CpuNarrowPhase::new())?; // the device is gone
    ///     }
    /// }
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn step_on_gpu(
        &mut self,
        dt: f32,
        collision: &mut GpuCollision,
    ) -> Result<StepStats, Error> {
        if !TIME_STEP_RANGE.contains(&dt) {
            return Err(Error::World(WorldError::InvalidTimeStep { dt }));
        }
        check_gravity(self.settings.gravity)?;
        let mut stage = OnGpu {
            collision,
            solver: None,
            transforms: None,
            pairs: None,
        };
        self.run_step_with(dt, &mut stage)
    }

    /// [`World::step_on_gpu`] with the solver's stages in `solver` as well (the GPU world's,
    /// `gpu/world/`), the colliders placed on the device from `transforms` (each body
    /// slot's transform, current: the solver wrote them, and the host what it changed
    /// since), and the pair set's pairs found by `pairs` when given (else on the host).
    /// Should the solver fail, its stages run on the host and the error is returned once
    /// the step is done: the world has taken the step, to the same bits.
    pub(crate) fn step_with_offloaded_solver(
        &mut self,
        dt: f32,
        collision: &mut GpuCollision,
        solver: &mut dyn OffloadedStages,
        transforms: &wgpu::Buffer,
        pairs: Option<&mut dyn PairsElsewhere>,
    ) -> Result<StepStats, Error> {
        if !TIME_STEP_RANGE.contains(&dt) {
            return Err(Error::World(WorldError::InvalidTimeStep { dt }));
        }
        check_gravity(self.settings.gravity)?;
        let mut stage = OnGpu {
            collision,
            solver: Some(solver),
            transforms: Some(transforms),
            // A reborrow, which shortens the trait object's lifetime to the stage's (what
            // `Option::map` cannot).
            pairs: match pairs {
                Some(pairs) => Some(pairs),
                None => None,
            },
        };
        self.run_step_with(dt, &mut stage)
    }
}

/// The step's collision stage on the GPU: sent before the broad phase, collected after
/// the recycling pass; and, for the GPU world, where the solver's stages run, the body
/// transforms the colliders are placed from, and where the pair set's pairs are found.
struct OnGpu<'a> {
    collision: &'a mut GpuCollision,
    solver: Option<&'a mut dyn OffloadedStages>,
    transforms: Option<&'a wgpu::Buffer>,
    pairs: Option<&'a mut dyn PairsElsewhere>,
}

impl CollisionStage for OnGpu<'_> {
    fn offloaded(&mut self) -> Option<&mut dyn OffloadedStages> {
        match &mut self.solver {
            Some(solver) => {
                // The contact list's inputs, when the device merged them this step.
                solver.take_contacts(self.collision.device_contacts());
                Some(&mut **solver)
            }
            None => None,
        }
    }

    fn pairs_elsewhere(&mut self) -> Option<&mut dyn PairsElsewhere> {
        match &mut self.pairs {
            Some(pairs) => {
                // `before` has sent the placement: the pair set's fat boxes grow from it.
                pairs.place_from(self.collision.placed_boxes());
                Some(&mut **pairs)
            }
            None => None,
        }
    }

    fn before(&mut self, world: &mut World) -> Result<(), Error> {
        let collision = &mut *self.collision;
        collision.set_shape_table(&world.shapes.list)?;
        collision.set_speculative_distance(SPECULATIVE_DISTANCE)?;
        // The tight boxes, which the stage grows by half the speculative distance as the
        // broad phase grows them (`find_pairs`): the same boxes to the bit.
        let (records, boxes) = (&world.colliders.records, &world.colliders.aabbs);
        let Some(transforms) = self.transforms else {
            return collision.send_boxes(records, boxes);
        };
        // A live collider's pose is its body's transform (`update_colliders`); a removed
        // one keeps its last, which the host sends.
        let live = world.colliders.slots.live_flags().iter();
        let owners = live
            .zip(&world.names.collider_bodies)
            .map(|(&live, &body)| if live { body } else { UNPLACED });
        match self.pairs {
            // The pair set's fat boxes grow from the placed boxes, and the narrow phase
            // then takes the set's pairs (`collide`).
            Some(_) => collision.place_first(records, boxes, transforms, owners),
            None => collision.send_placed(records, boxes, transforms, owners),
        }
    }

    fn collide(&mut self, world: &mut World) -> Result<Option<NarrowPhaseTimings>, Error> {
        let collision = &mut *self.collision;
        if let Some(pairs) = &self.pairs {
            // The device's pair set, when it is the world's list (else the stage sweeps),
            // and which of its pairs are fresh: the narrow phase takes those alone.
            let set = pairs.device_set(world.contacts.pairs.generation());
            world.fresh_slot_bits(collision.fresh_bits());
            // The device decides the fresh pairs itself from the kept manifolds it carries
            // (sent from here when it has not got them), held to the world's bits.
            let (_, list, states, _) = world.contacts.pairs.saved();
            let kept = |k: usize| states[k].kept.as_ref();
            let world_kept = SetKept {
                generation: world.contacts.pairs.generation(),
                pairs: list,
                kept: &kept,
                recycling: world.settings.recycling,
                merge: !world.colliders.has_sensors,
                bodies: &world.names.collider_bodies,
                surfaces: &world.colliders.surfaces,
            };
            collision.send_over_set(&world.colliders.records, set, &world_kept)?;
        }
        let found = collision.collect(&world.colliders.records)?;
        keep_fresh(
            found,
            &world.scratch.fresh_pairs,
            &mut world.scratch.contact_scratch,
        );
        Ok(Some(collision.timings()))
    }
}

/// The contacts of `found` whose pair is one of `fresh`, into `out` (replaced): both ascend
/// by pair, so one walk over the two.
fn keep_fresh(found: &[Contact], fresh: &[[u32; 2]], out: &mut Vec<Contact>) {
    out.clear();
    let mut wanted = fresh.iter().peekable();
    for contact in found {
        let pair = [contact.a, contact.b];
        while wanted.next_if(|&&p| p < pair).is_some() {}
        if wanted.next_if(|&&p| p == pair).is_some() {
            out.push(*contact);
        }
    }
}

impl World {
    /// What the device's kept manifolds (`gpu/collision/recycle/`) depend on beside
    /// the steps it takes part in: the pair list's generation and the poses' revision
    /// (moved by a step, an added, removed or teleported body). An edit that changes it
    /// may have changed the world's kept manifolds.
    pub(crate) fn kept_stamp(&self) -> (u64, u64) {
        (self.contacts.pairs.generation(), self.revision)
    }

    /// What the device keeps of the joints from step to step beside their definitions
    /// (`prepare_joints`, which the GPU world's solver runs): every slot's accumulated
    /// impulses and whether it is live, folded into one number. An edit that changes it
    /// may have changed them (a joint added, removed or reset, a snapshot restored); one
    /// that does not (a velocity set, a mouse joint's target moved) left them as they were.
    pub(crate) fn joint_impulse_stamp(&self) -> u64 {
        let joints = &self.joints.constraints;
        (joints.iter()).fold(joints.len() as u64, |stamp, j| {
            let words = [
                j.linear_impulse.x,
                j.linear_impulse.y,
                j.spring_impulse,
                j.motor_impulse,
                j.lower_impulse,
                j.upper_impulse,
            ];
            let live = u64::from(j.live);
            (words.iter()).fold(stamp.wrapping_mul(0x100_0000_01b3) ^ live, |s, w| {
                s.wrapping_mul(0x100_0000_01b3) ^ u64::from(w.to_bits())
            })
        })
    }

    /// How many body slots the world has (the GPU world's transforms).
    pub(crate) fn body_transforms_len(&self) -> usize {
        self.bodies.len()
    }

    /// Per body slot, the body's drawing transform (a removed body's slot: its last one).
    pub(crate) fn body_transforms(&self) -> Vec<crate::gpu::layout::BodyTransformGpu> {
        (0..self.bodies.len())
            .map(|i| self.slot_transform(i))
            .collect()
    }

    /// Body slot `slot`'s drawing transform.
    pub(crate) fn slot_transform(&self, slot: usize) -> crate::gpu::layout::BodyTransformGpu {
        (&self.bodies.transform(slot)).into()
    }

    /// The bodies the last step's continuous stage moved after the solver (their poses
    /// are the host's, not the solver's).
    pub(crate) fn continuous_moved(&self) -> &[usize] {
        &self.scratch.moved
    }
}
