//! The step, its stages in order (see the module header of `world`): broad phase over the
//! persistent pairs, the recycling pass, the narrow phase, the merge and events
//! (`contacts.rs`), the solver, the continuous stage and sleep.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::World;
use super::contacts::sensor_side;
use super::limits::{TIME_STEP_RANGE, check_gravity};
use super::stage::{CollisionStage, PairsElsewhere, ThroughNarrowPhase};
use super::stats::StepStats;
use crate::collision::narrow_phase::{NarrowPhase, NarrowPhaseTimings};
use crate::dynamics::body::bodies_pair;
use crate::dynamics::body_set::body_transform;
use crate::dynamics::continuous::{Obstacles, StepStart, solve_continuous};
use crate::dynamics::solver::{BodyMotion, OffloadedStages, SPECULATIVE_DISTANCE, SleepInput};
use crate::error::Error;
use crate::error::WorldError;
use crate::parallel;

impl World {
    /// Advances the world by `dt` seconds: broad phase, `narrow_phase`, solver. CPU and GPU
    /// narrow phases give the same step. `dt` must lie in [`TIME_STEP_RANGE`] and the
    /// gravity given to [`World::new`] be finite, else an error names them.
    ///
    /// When the narrow phase fails (a GPU device lost, out of memory, a validation error),
    /// the error is returned and the world is exactly as it was before the call: nothing of
    /// the step is applied, and the caller can step again with another narrow phase
    /// ([`CpuNarrowPhase`](crate::CpuNarrowPhase)) without losing a body or a contact.
    pub fn step(
        &mut self,
        dt: f32,
        narrow_phase: &mut dyn NarrowPhase,
    ) -> Result<StepStats, Error> {
        if !TIME_STEP_RANGE.contains(&dt) {
            return Err(Error::World(WorldError::InvalidTimeStep { dt }));
        }
        check_gravity(self.settings.gravity)?;
        // Called from outside the pool with more than one thread, the step runs on the
        // pool in as few jobs as the narrow phase allows: one when it may move to a worker,
        // else the stretches before and after its call (see `parallel.rs`). Each pass sent
        // in alone would cost a wake-up and a sleep (measured on large_pyramid, two
        // threads: 0.44 ms a step more for the solver alone), and rayon allocates a queue
        // block per 63 jobs sent in from outside.
        match narrow_phase.as_send() {
            Some(narrow_phase) => parallel::in_pool(|| self.run_step(dt, narrow_phase)),
            None => self.run_step(dt, narrow_phase),
        }
    }

    /// [`World::step`] once its inputs are checked.
    fn run_step(
        &mut self,
        dt: f32,
        narrow_phase: &mut dyn NarrowPhase,
    ) -> Result<StepStats, Error> {
        self.run_step_with(dt, &mut ThroughNarrowPhase(narrow_phase))
    }

    /// A step whose narrow phase is `stage`'s (see [`CollisionStage`], in `stage.rs`: with
    /// the trait and its narrow-phase stage in this file, the compiler stopped inlining the
    /// broad phase's closures into their loops here, 0.9 to 2.4 % more instructions a step
    /// on compounds, junkyard, rain and tumbler by callgrind).
    pub(super) fn run_step_with<S: CollisionStage>(
        &mut self,
        dt: f32,
        stage: &mut S,
    ) -> Result<StepStats, Error> {
        let start = Instant::now();
        stage.before(self)?;
        // A collision stage's submit (`World::step_on_gpu`) is its own time, not the broad
        // phase's: it counts in the narrow phase's.
        let sent = start.elapsed();
        let elsewhere = stage.pairs_elsewhere();
        let (proxy_moves, broad_done) = parallel::in_pool(|| self.find_pairs(elsewhere));
        // Nothing above changed the world (the pairs are scratch): an error here leaves it
        // as it was, last step's contacts included, since they are only replaced on success.
        let detail = stage.collide(self)?;
        let times = StageStarts {
            start,
            sent,
            broad_done,
            proxy_moves,
            detail,
        };
        let offloaded = stage.offloaded();
        parallel::in_pool(|| self.finish_step(dt, times, offloaded))
    }

    /// The broad phase and the recycling pass: this step's candidate pairs, and those of
    /// them that go to the narrow phase (`fresh_pairs`); the pair set's pairs found
    /// `elsewhere` when given (see [`PairsElsewhere`]). Returns how many colliders left
    /// their fat boxes, and when the broad phase was done.
    fn find_pairs(&mut self, elsewhere: Option<&mut dyn PairsElsewhere>) -> (usize, Instant) {
        // Poses and boxes are current: add_body and the end of the last step keep them so.
        // Each box grown by half the speculative distance: two colliders pair up when their
        // boxes come within the whole distance, so the narrow phase sees every pair it could
        // report a speculative contact for.
        self.scratch.broad_boxes.clear();
        self.scratch.broad_boxes.extend(
            self.colliders
                .aabbs
                .iter()
                .map(|b| b.expanded(0.5 * SPECULATIVE_DISTANCE)),
        );
        let (bodies, owner) = (&self.bodies.records, &self.names.collider_bodies);
        let (filters, sensors) = (&self.colliders.filters, &self.colliders.sensors);
        let (has_filters, has_sensors) = (self.colliders.has_filters, self.colliders.has_sensors);
        let joints = &self.joints;
        let keep = |[a, b]: [u32; 2]| {
            let (a, b) = (a as usize, b as usize);
            let (body_a, body_b) = (owner[a] as usize, owner[b] as usize);
            let sensor = has_sensors && (sensors[a] || sensors[b]);
            body_a != body_b
                && bodies_pair(&bodies[body_a], &bodies[body_b], sensor)
                && !(has_sensors && sensors[a] && sensors[b])
                && (!has_filters || filters[a].should_collide(&filters[b]))
                && !joints.keeps_apart(body_a, body_b)
        };
        let proxy_moves = match elsewhere {
            None => self.contacts.pairs.update(&self.scratch.broad_boxes, keep),
            Some(elsewhere) => {
                let moved = self.contacts.pairs.fatten_boxes(&self.scratch.broad_boxes);
                let generation = self.contacts.pairs.generation();
                // With no fat box moved the set stays, but a copy that is not the world's
                // list (the first step, after an edit that replaced the set) is brought to
                // it now, so that the collision stage can take its pairs from there: the
                // host's sweep then finds the same set again, and so the same bits.
                if moved > 0 || elsewhere.behind(generation) {
                    let applied = match elsewhere.update(self, generation) {
                        Some(([begun, ended], count)) => {
                            self.contacts.pairs.apply(begun, ended, count)
                        }
                        None => false,
                    };
                    if !applied {
                        self.contacts.pairs.sweep(keep);
                    }
                    elsewhere.synced(self.contacts.pairs.generation(), applied);
                }
                moved
            }
        };
        // Pairs that left the set while touching end here (kept for the step that
        // succeeds, should this one fail).
        // A pair that left with a removed collider wakes the other body: it may have rested
        // on the removed one (a removed static body shares no island with what it held).
        self.scratch.woken.clear();
        for &(pair, state) in self.contacts.pairs.dropped() {
            if state.touching {
                let sensor = sensor_side(&self.colliders.sensors, pair);
                self.contacts
                    .events_next
                    .record_change(pair, &self.names, sensor, None);
            }
            let live = pair.map(|c| self.colliders.slots.is_live(c as usize));
            if live[0] != live[1] {
                let other = if live[0] { pair[0] } else { pair[1] };
                self.scratch
                    .woken
                    .push(self.names.collider_bodies[other as usize]);
            }
        }
        if !self.scratch.woken.is_empty() {
            self.sleep
                .wake_bodies(&self.scratch.woken, &mut self.bodies);
        }
        // The removed bodies' pairs are gone and their ends recorded: their slots may take
        // new bodies now.
        self.release_removed();
        let broad_done = Instant::now();

        self.sort_out_recycled();
        (proxy_moves, broad_done)
    }

    /// The rest of the step, after the narrow phase: the merge and events, the solver, the
    /// continuous stage and sleep; then the step's statistics. The solver's stages run in
    /// `offloaded` when given; an error there is returned once the step is done (the stages
    /// ran on the host instead: see `ContactSolver::step`).
    fn finish_step(
        &mut self,
        dt: f32,
        times: StageStarts,
        offloaded: Option<&mut dyn OffloadedStages>,
    ) -> Result<StepStats, Error> {
        let StageStarts {
            start,
            sent,
            broad_done,
            proxy_moves,
            detail,
        } = times;
        let contact_points = self.merge_contacts();
        self.record_pair_events();
        // A body woken here takes part in this step's solve.
        self.sleep.wake_touched(
            &self.contacts.list,
            self.joints.body_pairs(),
            &self.names.collider_bodies,
            &mut self.bodies,
        );
        let narrow_done = Instant::now();

        // The continuous stage sweeps from these poses.
        if self.settings.continuous {
            self.scratch.start_centers.clone_from(&self.bodies.centers);
            self.scratch
                .start_rotations
                .clone_from(&self.bodies.rotations);
        }
        self.scratch.turned.clear();
        self.scratch.turned.resize(self.bodies.len(), 0.0);
        let solved = self.solve_and_update(dt, offloaded);
        self.break_joints();
        let solve_done = Instant::now();
        if let Some(threshold) = self.settings.hit_threshold {
            self.record_hits(threshold);
        }

        self.scratch.moved.clear();
        let continuous = if !self.settings.continuous {
            Default::default()
        } else {
            self.static_tree.refresh(
                self.colliders.static_revision,
                &self.colliders.statics,
                &self.colliders.aabbs,
            );
            solve_continuous(
                &StepStart {
                    centers: &self.scratch.start_centers,
                    rotations: &self.scratch.start_rotations,
                    turned: &self.scratch.turned,
                },
                &Obstacles {
                    colliders: &self.colliders,
                    shapes: &self.shapes.list,
                    names: &self.names,
                    static_tree: &self.static_tree,
                },
                &mut self.bodies,
                &mut self.scratch.moved,
                &mut self.scratch.continuous,
                (
                    self.settings.hit_threshold,
                    &mut self.contacts.events_next.contact_hit,
                ),
            )
        };
        for k in 0..self.scratch.moved.len() {
            self.update_body_colliders(self.scratch.moved[k]);
        }
        self.sleep.update(
            dt,
            &self.contacts.list,
            self.joints.body_pairs(),
            &self.names.collider_bodies,
            &mut self.bodies,
        );
        let continuous_done = Instant::now();
        self.revision += 1;
        // The step succeeded: its events become the world's, and the old lists are next.
        std::mem::swap(&mut self.contacts.events, &mut self.contacts.events_next);
        self.contacts.events_next.clear();

        solved?;
        Ok(StepStats {
            bodies: self.bodies.slots.live_count(),
            awake_bodies: self.sleep.awake_count(),
            colliders: self.colliders.slots.live_count(),
            pairs: self.contacts.candidates,
            persistent_pairs: self.contacts.pairs.pairs().len(),
            proxy_moves,
            recycled: self.contacts.recycled,
            contacts: self.contacts.list.len(),
            contact_points,
            broad_phase: (broad_done - start).saturating_sub(sent),
            narrow_phase: narrow_done - broad_done + sent,
            narrow_phase_detail: detail,
            solver: solve_done - narrow_done,
            swept_bodies: continuous.swept,
            impacts: continuous.impacts,
            continuous: continuous_done - solve_done,
        })
    }

    /// The solver's step over this step's contacts (its stages in `offloaded` when given),
    /// then every collider's pose and box. An error of the offloaded stages is returned
    /// with the step solved all the same (on the host).
    pub(super) fn solve_and_update(
        &mut self,
        dt: f32,
        mut offloaded: Option<&mut dyn OffloadedStages>,
    ) -> Result<(), Error> {
        if let Some(stages) = offloaded.as_deref_mut() {
            stages.take_sleep(&SleepInput {
                timers: &self.sleep.timers,
                islands: &self.sleep.islands,
                joint_pairs: self.joints.pair_list(),
                dt,
                touch_woken: self.sleep.touch_woken(),
            });
        }
        let solved = self.solver.step(
            dt,
            &self.settings.substeps(),
            &self.contacts.list,
            &mut BodyMotion::new(
                &mut self.bodies,
                &self.colliders,
                &self.names.collider_bodies,
                &mut self.scratch.turned,
                &mut self.joints.constraints,
            ),
            self.settings.hit_threshold.is_some(),
            offloaded,
        );
        if self.bodies.custom_forces {
            self.clear_forces();
        }
        self.update_colliders();
        solved
    }

    /// This step's hit events: per contact the solver pushed, the point that approached
    /// fastest, when faster than `threshold`.
    pub(super) fn record_hits(&mut self, threshold: f32) {
        for (k, point, speed) in self.solver.hits(threshold) {
            let c = &self.contacts.list[k];
            let hit = self.names.hit(
                [c.a, c.b],
                c.manifold.points()[point].point,
                c.manifold.normal,
                speed,
            );
            self.contacts.events_next.contact_hit.push(hit);
        }
    }

    /// Poses and AABBs of every collider from the bodies' centres and rotations, collider by
    /// collider over the rayon pool (each is written alone: the same bits on any threads).
    pub(super) fn update_colliders(&mut self) {
        /// Colliders per task: a pose and a box each, about 0.1 µs.
        const COLLIDERS_PER_TASK: usize = 1024;
        let (bodies, centers, rotations) = (
            &self.bodies.records,
            &self.bodies.centers,
            &self.bodies.rotations,
        );
        let (shapes, owner) = (&self.shapes.list, &self.names.collider_bodies);
        self.colliders
            .records
            .par_iter_mut()
            .zip(self.colliders.aabbs.par_iter_mut())
            .zip(owner.par_iter())
            .zip(self.colliders.slots.live_flags().par_iter())
            .with_min_len(parallel::min_len(COLLIDERS_PER_TASK))
            .for_each(|(((collider, aabb), &body), &live)| {
                // A removed collider keeps its empty box (its slot may name a body slot that
                // a new body has taken since).
                if !live {
                    return;
                }
                let b = body as usize;
                let transform = body_transform(&bodies[b], centers[b], rotations[b]);
                collider.transform = transform;
                *aabb = shapes[collider.shape as usize].aabb(&transform);
            });
    }

    /// Poses and AABBs of one body's colliders.
    pub(super) fn update_body_colliders(&mut self, body: usize) {
        if self.bodies.records[body].is_static {
            // A static body teleported: the continuous stage's tree over them is stale.
            self.colliders.static_revision += 1;
        }
        let transform = self.bodies.transform(body);
        for c in self.bodies.records[body].colliders(&self.colliders.next) {
            let collider = &mut self.colliders.records[c];
            collider.transform = transform;
            self.colliders.aabbs[c] = self.shapes.list[collider.shape as usize].aabb(&transform);
        }
    }
}

/// What [`World::find_pairs`] and the narrow phase hand on to [`World::finish_step`] for the
/// step's statistics.
struct StageStarts {
    start: Instant,
    /// The time the collision stage took before the broad phase (its submit).
    sent: Duration,
    broad_done: Instant,
    proxy_moves: usize,
    detail: Option<NarrowPhaseTimings>,
}
