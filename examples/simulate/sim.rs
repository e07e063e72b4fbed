//! The simulation side of the example, shared by the window and the headless run: the world,
//! both narrow phases, pausing, spawning, dragging, and the running statistics.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuCollision;
use wgpu_sat::scenes::{Car, LevelDriver, MouseDrag};
use wgpu_sat::world::BodyType;
use wgpu_sat::{
    Aabb, BodyDef, BodyId, BodyShape, Circle, CpuNarrowPhase, Error, GpuNarrowPhase, Polygon,
    StepStats, World, scenes,
};

use crate::Scene;

/// Fixed time step: one step per frame, whatever the frame rate, so a slow adapter shows
/// slow motion rather than a different simulation.
pub const DT: f32 = 1.0 / 60.0;

/// Speed of a fired bullet, units per second: five of its own diameters per step at 60 Hz,
/// far beyond what a discrete step could catch against a thin wall.
const BULLET_SPEED: f32 = 120.0;
/// Radius of a fired bullet.
const BULLET_RADIUS: f32 = 0.12;

/// Which scene to build; kept so that R can rebuild it.
#[derive(Clone, Copy, Debug)]
pub struct SceneSpec {
    pub scene: Scene,
    pub bodies: usize,
    pub rows: usize,
    pub seed: u64,
}

impl SceneSpec {
    /// The scene, with hit events on, and the handles of its moving parts (the level's
    /// movers, the joint scene's car); the container scenes get a sensor band across them.
    pub fn build(&self) -> (World, Drivers) {
        let none = Drivers::default();
        let (mut world, driver) = match self.scene {
            Scene::Mixed => (scenes::mixed(self.bodies, self.seed), none),
            Scene::Pile => (scenes::pile(self.bodies, self.seed), none),
            Scene::Pyramid => (scenes::pyramid(self.rows), none),
            Scene::LargePyramid => (scenes::large_pyramid(), none),
            Scene::Playground => (scenes::playground(self.bodies, self.seed), none),
            Scene::Level => {
                let (world, level) = scenes::level(self.seed);
                let level = Some(level);
                (world, Drivers { level, ..none })
            }
            Scene::Joints => {
                let (world, joints) = scenes::joints();
                let car = Some(joints.car);
                (world, Drivers { car, ..none })
            }
        };
        if matches!(self.scene, Scene::Mixed | Scene::Pile) {
            add_sensor_band(&mut world);
        }
        world
            .set_hit_event_threshold(Some(HIT_SPEED))
            .expect("a finite, positive threshold");
        (world, driver)
    }
}

/// What a scene has that the simulation moves: the level's movers (driven every step),
/// the joint scene's car (driven by keys).
#[derive(Clone, Copy, Debug, Default)]
pub struct Drivers {
    pub level: Option<LevelDriver>,
    pub car: Option<Car>,
}

/// The hit events the title counts: contacts that approached faster than this, units per
/// second.
const HIT_SPEED: f32 = 2.0;

/// A static sensor across the container (the static bodies' box), a fifth of the way up:
/// the falling bodies pass through it, and its events count them in and out.
fn add_sensor_band(world: &mut World) {
    let Some(container) = world
        .bodies()
        .filter(|&b| world.is_static(b))
        .map(|b| world.body_aabb(b))
        .reduce(|a, b| a.union(&b))
    else {
        return;
    };
    let size = container.size();
    let center = Vec2::new(container.center().x, container.min.y + 0.2 * size.y);
    let band = Polygon::rectangle(0.4 * size.x, 0.3);
    let def = BodyDef {
        is_sensor: true,
        ..BodyDef::fixed(band, center)
    };
    // Built from the container's own finite box: within every limit add_body checks.
    if let Err(e) = world.add_body(&def) {
        eprintln!("simulate: no sensor band ({e})");
    }
}

/// The GPU's part of a step: the narrow phase over the world's pairs, or the whole
/// collision stage (`World::step_on_gpu`).
/// (Boxed: each holds its pipelines and buffers, a kilobyte or more.)
pub enum GpuStage {
    Narrow(Box<GpuNarrowPhase>),
    Collision(Box<GpuCollision>),
}

/// The world and how it is stepped.
pub struct Sim {
    pub world: World,
    spec: SceneSpec,
    cpu: CpuNarrowPhase,
    /// `None` when the GPU stage could not be created (or failed).
    gpu: Option<GpuStage>,
    use_gpu: bool,
    pub paused: bool,
    /// Run exactly one step on the next frame although paused (the S key).
    single_step: bool,
    /// The body held by the mouse, through a mouse joint.
    drag: Option<MouseDrag>,
    rng: ChaCha8Rng,
    /// Moves the scene's kinematic bodies by its script, if it has any (the level).
    driver: Drivers,
    /// Seconds simulated since the scene was built: the script's clock.
    time: f32,
}

impl Sim {
    pub fn new(spec: SceneSpec, gpu: Option<GpuStage>, use_gpu: bool) -> Sim {
        let (world, driver) = spec.build();
        Sim {
            world,
            spec,
            cpu: CpuNarrowPhase::new(),
            use_gpu: use_gpu && gpu.is_some(),
            gpu,
            paused: false,
            single_step: false,
            drag: None,
            // Its own stream, so spawning does not depend on the scene's seed use.
            rng: ChaCha8Rng::seed_from_u64(spec.seed ^ 0x5eed),
            driver,
            time: 0.0,
        }
    }

    /// "GPU", "GPU collision" or "CPU": which narrow phase (or stage) steps the world.
    pub fn backend(&self) -> &'static str {
        match (&self.gpu, self.use_gpu) {
            (Some(GpuStage::Narrow(_)), true) => "GPU",
            (Some(GpuStage::Collision(_)), true) => "GPU collision",
            _ => "CPU",
        }
    }

    /// Switches between the narrow phases; false when there is no GPU one to switch to.
    /// Both give the same contacts, so the simulation carries on unchanged.
    pub fn toggle_backend(&mut self) -> bool {
        if self.gpu.is_none() {
            return false;
        }
        self.use_gpu = !self.use_gpu;
        true
    }

    pub fn reset(&mut self) {
        (self.world, self.driver) = self.spec.build();
        self.drag = None;
        self.time = 0.0;
    }

    /// Asks for one step while paused.
    pub fn request_single_step(&mut self) {
        self.single_step = true;
    }

    /// Runs one step unless paused; `None` when nothing ran.
    pub fn advance(&mut self) -> Result<Option<StepStats>, Error> {
        if self.paused && !std::mem::take(&mut self.single_step) {
            return Ok(None);
        }
        if let Some(driver) = &self.driver.level {
            driver.drive(&mut self.world, self.time, DT)?;
        }
        let stats = self.step()?;
        self.time += DT;
        Ok(Some(stats))
    }

    /// One step on the narrow phase in use.
    fn step(&mut self) -> Result<StepStats, Error> {
        if let (Some(gpu), true) = (&mut self.gpu, self.use_gpu) {
            let result = match gpu {
                GpuStage::Narrow(narrow) => self.world.step(DT, narrow.as_mut()),
                GpuStage::Collision(stage) => self.world.step_on_gpu(DT, stage.as_mut()),
            };
            match result {
                Ok(stats) => return Ok(stats),
                // A failed step leaves the world as it was: the CPU takes the same step.
                Err(e) => {
                    eprintln!("simulate: the GPU narrow phase failed ({e}); continuing on the CPU");
                    self.gpu = None;
                    self.use_gpu = false;
                }
            }
        }
        self.world.step(DT, &mut self.cpu)
    }

    /// Drives the joint scene's car at `throttle` (see `scenes::Car::drive`: 1 forward,
    /// -1 back, 0 brakes); false in a scene without a car.
    pub fn drive(&mut self, throttle: f32) -> Result<bool, Error> {
        let Some(car) = self.driver.car else {
            return Ok(false);
        };
        car.drive(&mut self.world, throttle)?;
        Ok(true)
    }

    /// Grabs the dynamic body under a world point, if any, with a mouse joint (see
    /// `scenes::MouseDrag`); lets go of the one held first.
    pub fn grab(&mut self, point: Vec2) -> Result<(), Error> {
        self.release();
        self.drag = MouseDrag::grab(&mut self.world, point)?;
        Ok(())
    }

    /// Moves the held body's target (the mouse joint's) to a world point.
    pub fn drag_to(&mut self, point: Vec2) -> Result<(), Error> {
        match &mut self.drag {
            Some(drag) => drag.move_to(&mut self.world, point),
            None => Ok(()),
        }
    }

    /// Lets go: the joint goes, the body keeps the velocity the pull gave it (the throw).
    pub fn release(&mut self) {
        if let Some(drag) = self.drag.take() {
            drag.release(&mut self.world);
        }
    }

    /// The drag in progress, if any.
    pub fn drag(&self) -> Option<&MouseDrag> {
        self.drag.as_ref()
    }

    pub fn dragged_body(&self) -> Option<BodyId> {
        self.drag.as_ref().map(MouseDrag::body)
    }

    /// Pushes the dynamic body under a world point upwards (the I key; see
    /// `scenes::push_body_at`); false over empty space or a static or kinematic body.
    pub fn push(&mut self, point: Vec2) -> Result<bool, Error> {
        scenes::push_body_at(&mut self.world, point).map(|body| body.is_some())
    }

    /// Pushes the `k`-th dynamic body (counting round, with a stride that spreads the
    /// pushes over the scene) at its centre of mass: headless `--push-every`, standing in
    /// for the I key. False when there is no dynamic body.
    pub fn push_one(&mut self, k: usize) -> Result<bool, Error> {
        let world = &self.world;
        let dynamic: Vec<BodyId> = world
            .bodies()
            .filter(|&b| world.body_type(b) == Some(BodyType::Dynamic))
            .collect();
        if dynamic.is_empty() {
            return Ok(false);
        }
        let body = dynamic[(k * 37) % dynamic.len()];
        self.push(world.center_of_mass(body))
    }

    /// Fires a heavy bullet (a swept body) from above the scene's top-left corner at `target`.
    pub fn fire(&mut self, target: Vec2) -> Result<(), Error> {
        let Some(bounds) = self
            .world
            .bodies()
            .map(|b| self.world.body_aabb(b))
            .reduce(|a, b| a.union(&b))
        else {
            return Ok(());
        };
        let start = Vec2::new(bounds.min.x, bounds.max.y + 2.0);
        let direction = (target - start).normalize_or(Vec2::NEG_Y);
        let mut def = BodyDef::dynamic(Circle::new(BULLET_RADIUS)?, start);
        def.linear_velocity = BULLET_SPEED * direction;
        def.density = 20.0;
        def.is_bullet = true;
        self.world.add_body(&def)?;
        Ok(())
    }

    /// Drops `count` bodies, with shapes taken from existing dynamic bodies, in a grid above
    /// everything, over the static bodies (the container or the ground).
    pub fn spawn(&mut self, count: usize) -> Result<(), Error> {
        let world = &self.world;
        let dynamic: Vec<BodyId> = world.bodies().filter(|&b| !world.is_static(b)).collect();
        if dynamic.is_empty() {
            return Ok(());
        }
        let bounds_of = |bodies: &mut dyn Iterator<Item = BodyId>| {
            bodies
                .map(|b| world.body_aabb(b))
                .reduce(|a, b| a.union(&b))
        };
        let all = bounds_of(&mut world.bodies()).expect("the world has bodies");
        let ground = bounds_of(&mut world.bodies().filter(|&b| world.is_static(b))).unwrap_or(all);
        let shapes = (0..count)
            .map(|_| {
                let body = dynamic[self.rng.random_range(0..dynamic.len())];
                BodyShape::compound(world.body_pieces(body).copied().collect())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let spacing = shapes
            .iter()
            .map(|s| {
                let b = s.aabb(&Default::default());
                b.size().length()
            })
            .fold(0.0, f32::max)
            + 0.1;
        // Keep a wall's thickness plus a body clear of each side of the container.
        let margin = 1.0 + spacing;
        let inner = Aabb::new(
            Vec2::new(ground.min.x + margin, ground.min.y),
            Vec2::new(ground.max.x - margin, ground.max.y),
        );
        let columns = ((inner.size().x / spacing).floor() as usize).max(1);
        let x0 = inner.center().x - 0.5 * spacing * (columns - 1) as f32;
        let y0 = all.max.y + spacing;
        for (k, shape) in shapes.into_iter().enumerate() {
            let (row, column) = (k / columns, k % columns);
            let position = Vec2::new(x0 + spacing * column as f32, y0 + spacing * row as f32);
            let mut def = BodyDef::dynamic(shape, position);
            def.angle = self
                .rng
                .random_range(-std::f32::consts::PI..std::f32::consts::PI);
            self.world.add_body(&def)?;
        }
        Ok(())
    }
}

/// Step statistics summed over a window of frames, for a line of averages.
pub struct StatsWindow {
    started: Instant,
    frames: u32,
    steps: u32,
    broad: Duration,
    narrow: Duration,
    solver: Duration,
    continuous: Duration,
    /// GPU breakdown: upload, dispatch, readback, and how many steps had one.
    detail: [Duration; 3],
    detail_steps: u32,
    /// The compute pass alone (timestamp queries), and how many steps measured it.
    kernel: Duration,
    kernel_steps: u32,
    last: StepStats,
    /// The last step's events: contacts begun, ended, hits, sensor entries, exits.
    last_events: [usize; 5],
}

impl StatsWindow {
    /// A window that starts now, showing `previous`'s last counts and events until a step
    /// replaces them (so a paused world still shows its pairs and contacts).
    pub fn after(previous: &StatsWindow) -> StatsWindow {
        StatsWindow {
            last: previous.last,
            last_events: previous.last_events,
            ..StatsWindow::new()
        }
    }

    pub fn new() -> StatsWindow {
        StatsWindow {
            started: Instant::now(),
            frames: 0,
            steps: 0,
            broad: Duration::ZERO,
            narrow: Duration::ZERO,
            solver: Duration::ZERO,
            continuous: Duration::ZERO,
            detail: [Duration::ZERO; 3],
            detail_steps: 0,
            kernel: Duration::ZERO,
            kernel_steps: 0,
            last: StepStats::default(),
            last_events: [0; 5],
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn frame(&mut self) {
        self.frames += 1;
    }

    /// Adds a step's times and keeps its counts and its events (read from `world`).
    pub fn step(&mut self, stats: &StepStats, world: &World) {
        let events = world.events();
        self.last_events = [
            events.contact_begin.len(),
            events.contact_end.len(),
            events.contact_hit.len(),
            events.sensor_begin.len(),
            events.sensor_end.len(),
        ];
        self.steps += 1;
        self.broad += stats.broad_phase;
        self.narrow += stats.narrow_phase;
        self.solver += stats.solver;
        self.continuous += stats.continuous;
        if let Some(d) = stats.narrow_phase_detail {
            self.detail[0] += d.upload;
            self.detail[1] += d.dispatch;
            self.detail[2] += d.readback;
            self.detail_steps += 1;
            if let Some(kernel) = d.kernel {
                self.kernel += kernel;
                self.kernel_steps += 1;
            }
        }
        self.last = *stats;
    }

    /// One line: rate, counts (of the last step), mean ms per stage, backend and adapter.
    /// `rate_unit` is "fps" in the window, "steps/s" headless.
    pub fn summary(&self, rate_unit: &str, sim: &Sim, adapter: &AdapterLabel) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let ms = |d: Duration, n: u32| 1e3 * d.as_secs_f64() / n.max(1) as f64;
        let mut line = format!(
            "{:.1} {rate_unit} | {} bodies ({} awake), {} pairs, {} contacts | ",
            self.frames as f64 / seconds,
            sim.world.body_count(),
            self.last.awake_bodies,
            self.last.pairs,
            self.last.contacts,
        );
        let [begun, ended, hits, entered, left] = self.last_events;
        let _ = write!(
            line,
            "events +{begun} -{ended} contacts, {hits} hits, +{entered} -{left} sensor | "
        );
        if self.steps == 0 {
            line.push_str("no steps");
        } else {
            let _ = write!(
                line,
                "broad {:.2} ms, narrow {:.2} ms",
                ms(self.broad, self.steps),
                ms(self.narrow, self.steps)
            );
            if self.detail_steps > 0 {
                let [upload, dispatch, readback] = self.detail.map(|d| ms(d, self.detail_steps));
                let _ = write!(
                    line,
                    " (upload {upload:.2}, dispatch {dispatch:.2}, readback {readback:.2}"
                );
                // The kernel alone, from timestamp queries, where the device has them.
                if self.kernel_steps > 0 {
                    let kernel = ms(self.kernel, self.kernel_steps);
                    let _ = write!(line, "; kernel {kernel:.2}");
                }
                line.push(')');
            }
            let _ = write!(
                line,
                ", solver {:.2} ms, continuous {:.2} ms ({} swept)",
                ms(self.solver, self.steps),
                ms(self.continuous, self.steps),
                self.last.swept_bodies
            );
        }
        let _ = write!(line, " | {} narrow phase | {}", sim.backend(), adapter.name);
        if adapter.software {
            line.push_str(" | software adapter: GPU times are CPU times");
        }
        if sim.paused {
            line.push_str(" | PAUSED");
        }
        line
    }
}

/// The adapter as the statistics name it.
pub struct AdapterLabel {
    pub name: String,
    /// A CPU implementation (such as lavapipe): its "GPU" time is CPU time.
    pub software: bool,
}

impl AdapterLabel {
    pub fn of(device: Option<&wgpu::Device>) -> AdapterLabel {
        match device {
            Some(device) => {
                let info = device.adapter_info();
                AdapterLabel {
                    software: info.device_type == wgpu::DeviceType::Cpu,
                    name: format!("{} ({:?})", info.name, info.backend),
                }
            }
            None => AdapterLabel {
                name: "no adapter".into(),
                software: false,
            },
        }
    }
}
