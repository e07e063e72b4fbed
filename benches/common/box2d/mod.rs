//! Box2D v3 (through the `boxdd` bindings) on our scenes, and the timing protocol both
//! engines are measured with. Shared by `benches/world_step.rs`, the `benchmark` example and
//! `tests/cpu/box2d_scenes.rs` (each includes this module, directly or through `common`).
//!
//! [`box2d_world`] rebuilds one of our `World`s in Box2D, generically: every body with its
//! type, pose (the pose of its local frame), velocity and bullet flag, and every convex piece
//! in that local frame (polygons by their vertices, circles by centre and radius), with the
//! body's density (its mass over its area), friction and restitution, and the world's
//! gravity and sleeping setting (each scene sets it as Box2D's benchmark does: off in the
//! pyramids, on in `smash` and `compounds`); continuous collision stays on in both (the
//! default of both). Both engines mix friction as the
//! geometric mean and restitution as the larger of a contact's two bodies'.
//!
//! [`time_ours`] and [`time_box2d`] follow Box2D's benchmark program (`benchmark/main.c`):
//! the scene is built, stepped once untimed (the first step builds every pair), then steps
//! 1..N are timed as one stretch at 60 Hz with 4 substeps. The collision stages are summed
//! over the same steps: ours `StepStats::broad_phase + narrow_phase`, Box2D's profile
//! `pairs + collide` (finding new pairs in its broad-phase tree, then updating every
//! contact's manifold). Ours is timed the way an application calls it, from its own thread
//! on rayon's global pool ([`time_ours`]), and with the stretch inside a pool of its own
//! ([`time_ours_in_pool`]); Box2D with its own task system.
//!
//! Instruction set: boxdd-sys compiles Box2D with `cc` and no `-m` flag, which on x86_64
//! selects Box2D's SSE2 path (AVX2 only with boxdd's `simd-avx2` feature, not enabled here);
//! our code builds for the default x86_64 target, SSE2 as well. Optimisation: boxdd-sys
//! passes `-O2` for Cargo's release and bench profiles and `-O0` for the dev profile, so only
//! `--release` (or `cargo bench`) numbers compare the engines.
//!
//! The mirroring of single bodies and joints is in `mirror.rs`.

// Each user takes part of this module.
#![allow(dead_code)]

mod mirror;

pub use mirror::{mirror_body, mirror_joint};

use std::collections::HashMap;
use std::time::{Duration, Instant};

use boxdd::{Foundation, WorkerCount};
use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes;
use wgpu_sat::{CpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, World};

/// Time step of the comparison: one 60 Hz frame, as in Box2D's benchmark program.
pub const DT: f32 = 1.0 / 60.0;

/// Substeps per step, Box2D's benchmark setting (and our default).
pub const SUBSTEPS: usize = 4;

/// A Box2D world built from one of ours, with its bodies and joints in our order.
pub struct Box2dScene {
    /// The Box2D world.
    pub world: boxdd::World,
    /// Box2D's id of each of our bodies, in the order of `World::bodies` (slot order; the
    /// order they were added in, since these scenes remove none before they are mirrored).
    pub bodies: Vec<boxdd::BodyId>,
    /// Box2D's id of each of our joints, in the order of `World::joints`.
    pub joints: Vec<boxdd::JointId>,
}

/// Builds `ours` in Box2D with `workers` worker threads (1: Box2D's serial path; more: its
/// built-in scheduler with that many threads, the calling thread included).
pub fn box2d_world(ours: &World, workers: usize) -> Result<Box2dScene, boxdd::Error> {
    let foundation = Foundation::initialize_default()?;
    let gravity = ours.gravity();
    let def = foundation
        .world_builder()
        .gravity([gravity.x, gravity.y])
        .enable_sleep(ours.sleeping())
        .worker_count(WorkerCount::new(workers as u32)?)
        .build()?;
    let mut world = foundation.create_world(def)?;
    let ids: Vec<wgpu_sat::BodyId> = ours.bodies().collect();
    let mut bodies = Vec::with_capacity(ids.len());
    for &b in &ids {
        bodies.push(mirror_body(&mut world, ours, b, Vec2::ZERO)?);
    }
    let slots: HashMap<wgpu_sat::BodyId, boxdd::BodyId> =
        ids.iter().copied().zip(bodies.iter().copied()).collect();
    let mut joints = Vec::with_capacity(ours.joint_count());
    for j in ours.joints() {
        joints.push(mirror_joint(&mut world, ours, j, &|b| slots[&b])?);
    }
    Ok(Box2dScene {
        world,
        bodies,
        joints,
    })
}

/// A timed stretch of steps.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Steps timed (the first, untimed step not counted).
    pub steps: usize,
    /// Wall time of the timed steps, back to back.
    pub total: Duration,
    /// The collision stages summed over the timed steps: ours broad + narrow phase,
    /// Box2D's profile pairs + collide.
    pub collision: Duration,
    /// Over the timed steps, the share of the candidate pairs whose manifold was carried
    /// over from an earlier step instead of computed afresh: ours `StepStats::recycled`
    /// of `StepStats::pairs`, Box2D's counters' recycled contacts of its awake contacts
    /// (Box2D v3 recycles a contact while its bodies' relative pose has moved less than
    /// its contact recycle distance, ten linear slops: 0.05 m).
    pub recycled: f64,
}

impl Run {
    /// Milliseconds per step.
    pub fn ms_per_step(&self) -> f64 {
        self.total.as_secs_f64() * 1e3 / self.steps as f64
    }

    /// Milliseconds per step in the collision stages.
    pub fn collision_ms_per_step(&self) -> f64 {
        self.collision.as_secs_f64() * 1e3 / self.steps as f64
    }
}

/// Steps `world` once untimed, then `steps` more, timed, from the calling thread, as an
/// application calls `World::step` from its own thread: the step runs on rayon's current
/// pool, which from outside any pool is the global one (sized by `RAYON_NUM_THREADS`, or by
/// `ThreadPoolBuilder::build_global`, once per process). `CpuNarrowPhase` when that pool
/// has one thread, `ParallelCpuNarrowPhase` when it has more.
pub fn time_ours(
    world: &mut World,
    steps: usize,
    hook: Option<Hook>,
) -> Result<Run, wgpu_sat::Error> {
    set_protocol(world)?;
    if rayon::current_num_threads() == 1 {
        run_ours(world, &mut CpuNarrowPhase::new(), steps, hook)
    } else {
        run_ours(world, &mut ParallelCpuNarrowPhase::new(), steps, hook)
    }
}

/// [`time_ours`] with the whole stretch inside a rayon pool of `threads` threads built for
/// it (`pool.install`), as Box2D's workers live for the whole world: the figure of a game
/// loop that itself runs on a worker of the pool, where no step hands work to the pool
/// from outside.
pub fn time_ours_in_pool(
    world: &mut World,
    threads: usize,
    steps: usize,
    hook: Option<Hook>,
) -> Result<Run, wgpu_sat::Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool of a few threads builds");
    pool.install(|| time_ours(world, steps, hook))
}

/// The comparison's settings on our side: Box2D's substeps. Sleeping is the scene's
/// ([`SCENES`]), and `box2d_world` gives Box2D the same.
fn set_protocol(world: &mut World) -> Result<(), wgpu_sat::Error> {
    world.set_substeps(SUBSTEPS)
}

/// A scene's step function, one description for both engines: before step `k` (0 the
/// untimed first), [`OurHook::before_step`] does it to our world through `World` calls and
/// [`TheirHook::before_step`] to Box2D's through `boxdd` calls, as Box2D's benchmark
/// program calls a scene's step function before each step.
#[derive(Clone, Copy)]
pub enum Hook {
    /// One kinematic body's velocity (junkyard's pusher).
    Drive(Drive),
    /// Rain's ragdolls: [`wgpu_sat::scenes::rain_step`] says which column of groups to
    /// drop (and remove first) in every row.
    Rain,
}

/// Our side of a [`Hook`], for one world: the driven body resolved once (`World::bodies`
/// is a walk), rain's groups by row and column.
pub struct OurHook {
    drive: Option<(Drive, wgpu_sat::BodyId)>,
    rain: Option<Vec<Option<[scenes::Human; scenes::RAIN_GROUP_SIZE]>>>,
}

impl OurHook {
    /// The hook `hook` (none: nothing to do) for `world`.
    pub fn new(world: &World, hook: Option<Hook>) -> OurHook {
        let drive = match hook {
            Some(Hook::Drive(d)) => world.bodies().nth(d.body).map(|id| (d, id)),
            _ => None,
        };
        let rain = matches!(hook, Some(Hook::Rain))
            .then(|| vec![None; scenes::RAIN_ROWS * scenes::RAIN_COLUMNS]);
        OurHook { drive, rain }
    }

    /// Does the step function's work before our step `k`.
    pub fn before_step(&mut self, world: &mut World, k: usize) -> Result<(), wgpu_sat::Error> {
        if let Some((d, id)) = self.drive {
            let velocity = (d.velocity)(k, world.transform(id).translation());
            world.set_velocity(id, velocity, 0.0)?;
        }
        let (Some(groups), Some(step)) = (self.rain.as_mut(), scenes::rain_step(k)) else {
            return Ok(());
        };
        for row in 0..scenes::RAIN_ROWS {
            let group = &mut groups[row * scenes::RAIN_COLUMNS + step.column];
            if let Some(old) = group.take() {
                for human in &old {
                    scenes::remove_human(world, human)?;
                }
            }
            let origin = scenes::rain_group_origin(row, step.column);
            *group = Some(scenes::add_rain_group(world, origin)?);
        }
        Ok(())
    }
}

/// Box2D's side of a [`Hook`]. Rain's groups are made from a blueprint: one group built
/// once in a world of ours at the origin (outside any timing), mirrored into Box2D moved to
/// each group's place ([`mirror_body`], [`mirror_joint`]), and destroyed as Box2D's
/// `DestroyHuman` does (joints, then bodies).
pub struct TheirHook {
    drive: Option<Drive>,
    rain: Option<RainBlueprint>,
}

/// Rain's blueprint group and Box2D's ids of the groups standing, by row and column.
struct RainBlueprint {
    group: World,
    bodies: Vec<wgpu_sat::BodyId>,
    index: HashMap<wgpu_sat::BodyId, usize>,
    joints: Vec<wgpu_sat::JointId>,
    standing: Vec<Option<(Vec<boxdd::BodyId>, Vec<boxdd::JointId>)>>,
}

impl TheirHook {
    /// The hook `hook` (none: nothing to do) for a Box2D world.
    pub fn new(hook: Option<Hook>) -> TheirHook {
        let drive = match hook {
            Some(Hook::Drive(d)) => Some(d),
            _ => None,
        };
        let rain = matches!(hook, Some(Hook::Rain)).then(|| {
            let mut group = World::default();
            scenes::add_rain_group(&mut group, Vec2::ZERO).expect("a group at the origin");
            let bodies: Vec<_> = group.bodies().collect();
            let index = bodies.iter().enumerate().map(|(k, &b)| (b, k)).collect();
            let joints = group.joints().collect();
            RainBlueprint {
                group,
                bodies,
                index,
                joints,
                standing: vec![None; scenes::RAIN_ROWS * scenes::RAIN_COLUMNS],
            }
        });
        TheirHook { drive, rain }
    }

    /// Box2D's bodies and joints of rain's standing group at `row` and `column`, in the
    /// order of ours ([`wgpu_sat::scenes::add_rain_group`]'s); `None` before it drops.
    pub fn rain_group(
        &self,
        row: usize,
        column: usize,
    ) -> Option<(&[boxdd::BodyId], &[boxdd::JointId])> {
        let rain = self.rain.as_ref()?;
        let (bodies, joints) = rain.standing[row * scenes::RAIN_COLUMNS + column].as_ref()?;
        Some((bodies, joints))
    }

    /// Does the step function's work before Box2D's step `k`.
    pub fn before_step(&mut self, scene: &mut Box2dScene, k: usize) -> Result<(), boxdd::Error> {
        if let Some(d) = self.drive {
            let mut body = scene.world.body(scene.bodies[d.body])?;
            let p = body.position()?;
            // Box2D's coordinates are f32 unless boxdd is built for large worlds (f64).
            #[allow(clippy::unnecessary_cast)]
            let velocity = (d.velocity)(k, Vec2::new(p.x as f32, p.y as f32));
            body.set_linear_velocity([velocity.x, velocity.y])?;
        }
        let (Some(rain), Some(step)) = (self.rain.as_mut(), scenes::rain_step(k)) else {
            return Ok(());
        };
        let world = &mut scene.world;
        for row in 0..scenes::RAIN_ROWS {
            let slot = row * scenes::RAIN_COLUMNS + step.column;
            if let Some((bodies, joints)) = rain.standing[slot].take() {
                for joint in joints {
                    world.joint(joint)?.destroy(true)?;
                }
                for body in bodies {
                    world.body(body)?.destroy()?;
                }
            }
            let origin = scenes::rain_group_origin(row, step.column);
            let mut bodies = Vec::with_capacity(rain.bodies.len());
            for &b in &rain.bodies {
                bodies.push(mirror_body(world, &rain.group, b, origin)?);
            }
            let mut joints = Vec::with_capacity(rain.joints.len());
            for &j in &rain.joints {
                let map = |b: wgpu_sat::BodyId| bodies[rain.index[&b]];
                joints.push(mirror_joint(world, &rain.group, j, &map)?);
            }
            rain.standing[slot] = Some((bodies, joints));
        }
        Ok(())
    }
}

/// [`time_ours`]'s stretch of steps, on the current thread.
fn run_ours(
    world: &mut World,
    narrow: &mut impl NarrowPhase,
    steps: usize,
    hook: Option<Hook>,
) -> Result<Run, wgpu_sat::Error> {
    // Box2D's benchmark program calls the scene's step function before each step, inside
    // the timing: so do both sides here.
    let mut hook = OurHook::new(world, hook);
    hook.before_step(world, 0)?;
    world.step(DT, narrow)?;
    let mut collision = Duration::ZERO;
    let (mut recycled, mut pairs) = (0, 0);
    let start = Instant::now();
    for k in 1..=steps {
        hook.before_step(world, k)?;
        let stats = world.step(DT, narrow)?;
        collision += stats.broad_phase + stats.narrow_phase;
        recycled += stats.recycled;
        pairs += stats.pairs;
    }
    Ok(Run {
        steps,
        total: start.elapsed(),
        collision,
        recycled: share(recycled, pairs),
    })
}

/// `part / whole`, 0 for an empty whole.
fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Steps a Box2D world once untimed, then `steps` more, timed, with 4 substeps; its worker
/// count was set when it was built ([`box2d_world`]).
pub fn time_box2d(
    scene: &mut Box2dScene,
    steps: usize,
    hook: Option<Hook>,
) -> Result<Run, boxdd::Error> {
    let mut hook = TheirHook::new(hook);
    hook.before_step(scene, 0)?;
    drop(scene.world.step(DT, SUBSTEPS as i32)?.into_result()?);
    let mut collision_ms = 0.0f64;
    let (mut recycled, mut contacts) = (0, 0);
    let mut total = Duration::ZERO;
    for k in 1..=steps {
        // Each step timed alone, back to back with the next: reading the profile and the
        // counters between them is not Box2D's time.
        let start = Instant::now();
        hook.before_step(scene, k)?;
        let world = &mut scene.world;
        // The completed step carries events, which these scenes do not ask for.
        drop(world.step(DT, SUBSTEPS as i32)?.into_result()?);
        total += start.elapsed();
        // The profile holds the last step's stage times in milliseconds.
        let profile = world.profile()?;
        collision_ms += f64::from(profile.pairs) + f64::from(profile.collide);
        let counters = world.counters()?;
        recycled += usize::try_from(counters.recycled_contact_count).unwrap_or(0);
        contacts += usize::try_from(counters.awake_contact_count).unwrap_or(0);
    }
    Ok(Run {
        steps,
        total,
        collision: Duration::from_secs_f64(collision_ms * 1e-3),
        recycled: share(recycled, contacts),
    })
}

/// One scene of the comparison.
pub struct Scene {
    /// Its name in tables and CSV rows.
    pub name: &'static str,
    /// Builds it (our world; [`box2d_world`] makes Box2D's from it).
    pub make: fn(u64) -> World,
    /// Box2D's benchmark program's step count N: step 0 untimed, steps 1..N-1 timed.
    pub steps: usize,
    /// The scene's step function, as Box2D's benchmark program's.
    pub hook: Option<Hook>,
}

/// A kinematic driver ([`Hook::Drive`]): before step `k` (0 the untimed first), the linear
/// velocity of one kinematic body, given its position (its local frame's origin, world
/// frame).
#[derive(Clone, Copy)]
pub struct Drive {
    /// The driven body's place in `World::bodies` order (and in `Box2dScene::bodies`).
    pub body: usize,
    /// Its velocity before step `k`, from its position.
    pub velocity: fn(usize, Vec2) -> Vec2,
}

/// Junkyard's pusher (Box2D's `StepJunkyard`): its target at time t = k·dt is
/// x = 60 sin(0.2 t), y = 0, reached in one step (`b2Body_SetTargetTransform`: the velocity
/// is the distance over the time step).
fn junkyard_pusher(k: usize, position: Vec2) -> Vec2 {
    let t = DT * k as f32;
    let target = Vec2::new(60.0 * (0.2 * t).sin(), 0.0);
    (target - position) / DT
}

/// The scenes of the comparison: Box2D's `large_pyramid` (N = 500), `many_pyramids`
/// (N = 200), `smash` (N = 300), `compounds` (N = 500), `washer` (N = 500), `junkyard`
/// (N = 800), `joint_grid` (N = 500), `rain` (N = 1000), `spinner` (N = 500) and `tumbler` (N = 750)
/// benchmarks, with its step counts
/// and sleeping settings, and our `pile(10_000)` and `mixed(3_000)` (the `simulate`
/// example's default scene), N = 200, seeded with the given seed, sleeping off.
pub const SCENES: [Scene; 12] = [
    Scene {
        name: "large_pyramid",
        make: |_| sleepless(wgpu_sat::scenes::large_pyramid()),
        steps: 500,
        hook: None,
    },
    Scene {
        name: "many_pyramids",
        make: |_| sleepless(wgpu_sat::scenes::many_pyramids()),
        steps: 200,
        hook: None,
    },
    Scene {
        name: "smash",
        make: |_| wgpu_sat::scenes::smash(),
        steps: 300,
        hook: None,
    },
    Scene {
        name: "compounds",
        make: |_| wgpu_sat::scenes::compounds(),
        steps: 500,
        hook: None,
    },
    Scene {
        name: "washer",
        make: |_| wgpu_sat::scenes::washer(),
        steps: 500,
        hook: None,
    },
    Scene {
        name: "junkyard",
        make: |_| wgpu_sat::scenes::junkyard(),
        steps: 800,
        // The pusher is the last body.
        hook: Some(Hook::Drive(Drive {
            body: wgpu_sat::scenes::JUNKYARD_BODIES - 1,
            velocity: junkyard_pusher,
        })),
    },
    Scene {
        name: "joint_grid",
        make: |_| wgpu_sat::scenes::joint_grid(),
        steps: 500,
        hook: None,
    },
    Scene {
        name: "spinner",
        make: |_| wgpu_sat::scenes::spinner(),
        steps: 500,
        hook: None,
    },
    Scene {
        name: "rain",
        make: |_| wgpu_sat::scenes::rain(),
        steps: 1000,
        hook: Some(Hook::Rain),
    },
    Scene {
        name: "tumbler",
        make: |_| wgpu_sat::scenes::tumbler(),
        steps: 750,
        hook: None,
    },
    Scene {
        name: "pile_10000",
        make: |seed| sleepless(wgpu_sat::scenes::pile(10_000, seed)),
        steps: 200,
        hook: None,
    },
    Scene {
        name: "mixed_3000",
        make: |seed| sleepless(wgpu_sat::scenes::mixed(3_000, seed)),
        steps: 200,
        hook: None,
    },
];

/// `world` with sleeping off, as Box2D runs its pyramids (and as our own scenes compare).
fn sleepless(mut world: World) -> World {
    world.set_sleeping(false);
    world
}
