//! Box2D v3 (through the `boxdd` bindings) on our scenes, and the timing protocol both
//! engines are measured with. Shared by `benches/world_step.rs`, the `benchmark` example and
//! `tests/box2d_scenes.rs` (each includes this file, directly or through `common`).
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

// Each user takes part of this module.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use boxdd::{BodyType, Foundation, ShapeDef, WorkerCount, shapes};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{CpuNarrowPhase, NarrowPhase, ParallelCpuNarrowPhase, Shape, World};

/// Time step of the comparison: one 60 Hz frame, as in Box2D's benchmark program.
pub const DT: f32 = 1.0 / 60.0;

/// Substeps per step, Box2D's benchmark setting (and our default).
pub const SUBSTEPS: usize = 4;

/// A Box2D world built from one of ours, with its bodies in our body order.
pub struct Box2dScene {
    /// The Box2D world.
    pub world: boxdd::World,
    /// Box2D's id of each of our bodies, in the order of `World::bodies` (slot order; the
    /// order they were added in, since these scenes remove none).
    pub bodies: Vec<boxdd::BodyId>,
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
    let mut bodies = Vec::with_capacity(ours.body_count());
    for b in ours.bodies() {
        let pose = ours.transform(b);
        let (origin, velocity) = (pose.translation(), ours.linear_velocity(b));
        let is_static = ours.is_static(b);
        // Box2D gives static and kinematic bodies no mass, as we do.
        let massless = is_static || ours.is_kinematic(b);
        let body_def = world
            .body_builder()
            .body_type(if is_static {
                BodyType::Static
            } else if ours.is_kinematic(b) {
                BodyType::Kinematic
            } else {
                BodyType::Dynamic
            })
            .position([origin.x, origin.y])
            .angle(pose.angle())
            .linear_velocity([velocity.x, velocity.y])
            .angular_velocity(ours.angular_velocity(b))
            .bullet(ours.is_bullet(b))
            .enable_sleep(ours.sleeping())
            .build()?;
        let id = world.create_body(body_def)?;
        // Our mass is density times area, summed over the pieces: one density per body.
        let area: f32 = ours.body_pieces(b).map(Shape::area).sum();
        let density = if massless { 1.0 } else { ours.mass(b) / area };
        let material = boxdd::SurfaceMaterial::new()
            .with_friction(ours.friction(b))?
            .with_restitution(ours.restitution(b))?;
        let shape_def = ShapeDef::builder()
            .density(density)
            .material(material)
            .build()?;
        let mut body = world.body(id)?;
        for piece in ours.body_pieces(b) {
            match piece {
                Shape::Polygon(p) => {
                    let points = p.vertices().iter().map(|v| [v.x, v.y]);
                    let polygon = shapes::polygon_from_points(points, p.radius())?;
                    body.create_polygon(&shape_def, &polygon)?;
                }
                Shape::Circle(c) => {
                    let center = c.center();
                    let circle = shapes::circle([center.x, center.y], c.radius())?;
                    body.create_circle(&shape_def, &circle)?;
                }
                Shape::Capsule(c) => {
                    let (a, b) = ([c.a().x, c.a().y], [c.b().x, c.b().y]);
                    body.create_capsule_between(&shape_def, a, b, c.radius())?;
                }
                // A chain link as its plain segment: Box2D's chains are built whole.
                Shape::Segment(_) | Shape::ChainSegment(_) => {
                    let s = match piece {
                        Shape::ChainSegment(link) => *link.segment(),
                        Shape::Segment(s) => *s,
                        _ => unreachable!(),
                    };
                    let (a, b) = ([s.a().x, s.a().y], [s.b().x, s.b().y]);
                    body.create_segment_between(&shape_def, a, b)?;
                }
            }
        }
        bodies.push(id);
    }
    Ok(Box2dScene { world, bodies })
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
    drive: Option<Drive>,
) -> Result<Run, wgpu_sat::Error> {
    set_protocol(world)?;
    if rayon::current_num_threads() == 1 {
        run_ours(world, &mut CpuNarrowPhase::new(), steps, drive)
    } else {
        run_ours(world, &mut ParallelCpuNarrowPhase::new(), steps, drive)
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
    drive: Option<Drive>,
) -> Result<Run, wgpu_sat::Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool of a few threads builds");
    pool.install(|| time_ours(world, steps, drive))
}

/// The comparison's settings on our side: Box2D's substeps. Sleeping is the scene's
/// ([`SCENES`]), and `box2d_world` gives Box2D the same.
fn set_protocol(world: &mut World) -> Result<(), wgpu_sat::Error> {
    world.set_substeps(SUBSTEPS)
}

/// The driven body of `drive` in `world`, resolved once: `World::bodies` is a walk.
pub fn driven(world: &World, drive: Option<Drive>) -> Option<(Drive, wgpu_sat::BodyId)> {
    drive.and_then(|d| Some((d, world.bodies().nth(d.body)?)))
}

/// Sets the driven body's velocity before our step `k` (nothing without a driver).
pub fn drive_ours(
    world: &mut World,
    driven: Option<(Drive, wgpu_sat::BodyId)>,
    k: usize,
) -> Result<(), wgpu_sat::Error> {
    let Some((d, id)) = driven else {
        return Ok(());
    };
    let velocity = (d.velocity)(k, world.transform(id).translation());
    world.set_velocity(id, velocity, 0.0)
}

/// Sets the driven body's velocity before Box2D's step `k` (nothing without a driver).
pub fn drive_box2d(
    scene: &mut Box2dScene,
    drive: Option<Drive>,
    k: usize,
) -> Result<(), boxdd::Error> {
    let Some(d) = drive else { return Ok(()) };
    let mut body = scene.world.body(scene.bodies[d.body])?;
    let p = body.position()?;
    // Box2D's coordinates are f32 unless boxdd is built for large worlds (f64).
    #[allow(clippy::unnecessary_cast)]
    let velocity = (d.velocity)(k, Vec2::new(p.x as f32, p.y as f32));
    body.set_linear_velocity([velocity.x, velocity.y])
}

/// [`time_ours`]'s stretch of steps, on the current thread.
fn run_ours(
    world: &mut World,
    narrow: &mut impl NarrowPhase,
    steps: usize,
    drive: Option<Drive>,
) -> Result<Run, wgpu_sat::Error> {
    // Box2D's benchmark program calls the scene's step function before each step, inside
    // the timing: so do both sides here.
    let driven = driven(world, drive);
    drive_ours(world, driven, 0)?;
    world.step(DT, narrow)?;
    let mut collision = Duration::ZERO;
    let (mut recycled, mut pairs) = (0, 0);
    let start = Instant::now();
    for k in 1..=steps {
        drive_ours(world, driven, k)?;
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
    drive: Option<Drive>,
) -> Result<Run, boxdd::Error> {
    drive_box2d(scene, drive, 0)?;
    drop(scene.world.step(DT, SUBSTEPS as i32)?.into_result()?);
    let mut collision_ms = 0.0f64;
    let (mut recycled, mut contacts) = (0, 0);
    let mut total = Duration::ZERO;
    for k in 1..=steps {
        // Each step timed alone, back to back with the next: reading the profile and the
        // counters between them is not Box2D's time.
        let start = Instant::now();
        drive_box2d(scene, drive, k)?;
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
    /// The scene's kinematic driver, as Box2D's benchmark program's step function.
    pub drive: Option<Drive>,
}

/// A scene's step function: before step `k` (0 the untimed first), the linear velocity of
/// one kinematic body, given its position (its local frame's origin, world frame); both
/// engines get it before each step, as Box2D's benchmark program calls a scene's step
/// function.
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
/// (N = 200), `smash` (N = 300), `compounds` (N = 500), `washer` (N = 500) and `junkyard`
/// (N = 800) benchmarks, with its step counts
/// and sleeping settings, and our `pile(10_000)` and `mixed(3_000)` (the `simulate`
/// example's default scene), N = 200, seeded with the given seed, sleeping off.
pub const SCENES: [Scene; 8] = [
    Scene {
        name: "large_pyramid",
        make: |_| sleepless(wgpu_sat::scenes::large_pyramid()),
        steps: 500,
        drive: None,
    },
    Scene {
        name: "many_pyramids",
        make: |_| sleepless(wgpu_sat::scenes::many_pyramids()),
        steps: 200,
        drive: None,
    },
    Scene {
        name: "smash",
        make: |_| wgpu_sat::scenes::smash(),
        steps: 300,
        drive: None,
    },
    Scene {
        name: "compounds",
        make: |_| wgpu_sat::scenes::compounds(),
        steps: 500,
        drive: None,
    },
    Scene {
        name: "washer",
        make: |_| wgpu_sat::scenes::washer(),
        steps: 500,
        drive: None,
    },
    Scene {
        name: "junkyard",
        make: |_| wgpu_sat::scenes::junkyard(),
        steps: 800,
        // The pusher is the last body.
        drive: Some(Drive {
            body: wgpu_sat::scenes::JUNKYARD_BODIES - 1,
            velocity: junkyard_pusher,
        }),
    },
    Scene {
        name: "pile_10000",
        make: |seed| sleepless(wgpu_sat::scenes::pile(10_000, seed)),
        steps: 200,
        drive: None,
    },
    Scene {
        name: "mixed_3000",
        make: |seed| sleepless(wgpu_sat::scenes::mixed(3_000, seed)),
        steps: 200,
        drive: None,
    },
];

/// `world` with sleeping off, as Box2D runs its pyramids (and as our own scenes compare).
fn sleepless(mut world: World) -> World {
    world.set_sleeping(false);
    world
}
