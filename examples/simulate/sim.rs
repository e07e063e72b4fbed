//! The simulation side of the example, shared by the window and the headless run: the world,
//! both narrow phases (or the GPU world, see `device_world.rs`), pausing, spawning and
//! dragging. The running statistics are in `stats.rs`.

use std::time::Duration;

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
use crate::device_world::DeviceWorld;
use crate::render::DeviceTransforms;

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

/// The GPU's part of a step: the narrow phase over the world's pairs, the whole collision
/// stage (`World::step_on_gpu`), or the whole step (`GpuWorld`, see `device_world.rs`).
/// (Boxed: each holds its pipelines and buffers, a kilobyte or more.)
pub enum GpuStage {
    Narrow(Box<GpuNarrowPhase>),
    Collision(Box<GpuCollision>),
    World(Box<DeviceWorld>),
}

/// What one step reports.
// One value per frame, returned and read at once: the unused bytes of the small variant
// cost nothing, and boxing the statistics would allocate every step.
#[allow(clippy::large_enum_variant)]
pub enum Stepped {
    /// The host stepped the world: its statistics, as `World::step` gives them.
    Host(StepStats),
    /// The GPU world stepped: the host's wall time of `GpuWorld::step`, and the device's
    /// time (`GpuWorld::kernel_time`, where the device has timestamp queries). It gives no
    /// other statistics: the counts are read from the world when it is read back.
    Device {
        wall: Duration,
        kernels: Option<Duration>,
    },
}

/// The world and how it is stepped.
pub struct Sim {
    /// The world. While the GPU world steps it ([`Sim::on_device`]), a snapshot as of the
    /// last [`Sim::sync_world`].
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
    /// The scene, stepped by `gpu` if given and `use_gpu`, else by the CPU. With the GPU
    /// world, the world is uploaded here (an error only from the device).
    pub fn new(spec: SceneSpec, gpu: Option<GpuStage>, use_gpu: bool) -> Result<Sim, Error> {
        let (world, driver) = spec.build();
        let mut sim = Sim {
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
        };
        sim.upload()?;
        Ok(sim)
    }

    /// "GPU", "GPU collision", "GPU world" or "CPU": what steps the world.
    pub fn backend(&self) -> &'static str {
        match (&self.gpu, self.use_gpu) {
            (Some(GpuStage::Narrow(_)), true) => "GPU",
            (Some(GpuStage::Collision(_)), true) => "GPU collision",
            (Some(GpuStage::World(_)), true) => "GPU world",
            _ => "CPU",
        }
    }

    /// What steps the world, for the statistics: "GPU world", or the narrow phase in use.
    pub fn backend_label(&self) -> String {
        match self.on_device() {
            true => self.backend().to_string(),
            false => format!("{} narrow phase", self.backend()),
        }
    }

    /// Whether the GPU world steps the world: then [`Sim::world`] is a snapshot.
    pub fn on_device(&self) -> bool {
        matches!((&self.gpu, self.use_gpu), (Some(GpuStage::World(_)), true))
    }

    /// The GPU world's transforms buffer, which the renderer draws the bodies from, while
    /// the GPU world steps the world.
    pub fn device_transforms(&self) -> Option<DeviceTransforms<'_>> {
        match (&self.gpu, self.use_gpu) {
            (Some(GpuStage::World(device)), true) => device.transforms(),
            _ => None,
        }
    }

    /// Bytes the GPU world's last step sent to the device and read back; zeros on the
    /// other backends.
    pub fn device_bytes(&self) -> [u64; 2] {
        match &self.gpu {
            Some(GpuStage::World(device)) => device.solver_bytes(),
            _ => [0; 2],
        }
    }

    /// Brings [`Sim::world`] up to date with the GPU world (a readback) if it has stepped
    /// since the last call; nothing to do on the other backends.
    pub fn sync_world(&mut self) -> Result<(), Error> {
        if let Some(GpuStage::World(device)) = &mut self.gpu {
            device.read_into(&mut self.world)?;
        }
        Ok(())
    }

    /// Uploads the world as a new GPU world, when the GPU world is the one stepping: at
    /// the start, on a reset and on G.
    fn upload(&mut self) -> Result<(), Error> {
        match (&mut self.gpu, self.use_gpu) {
            (Some(GpuStage::World(device)), true) => device.load(&self.world),
            _ => Ok(()),
        }
    }

    /// Runs `edit` on the world that steps, with the spawning stream: on the GPU world, on
    /// the device's world (`DeviceWorld::edit`: no rebuild, and [`Sim::world`] is read back
    /// only when the edit added or removed bodies); else on [`Sim::world`].
    fn edit<T>(
        &mut self,
        edit: impl FnOnce(&mut World, &mut ChaCha8Rng) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let rng = &mut self.rng;
        match (&mut self.gpu, self.use_gpu) {
            (Some(GpuStage::World(device)), true) => {
                device.edit(&mut self.world, |world| edit(world, rng))?
            }
            _ => edit(&mut self.world, rng),
        }
    }

    /// Switches between the GPU stage and the CPU narrow phase; false when there is no GPU
    /// stage to switch to. Either steps to the same contacts, so the simulation carries on
    /// unchanged. Leaving the GPU world reads its world back; returning to it uploads the
    /// world again (a drag in progress carries on: its mouse joint goes with the world).
    pub fn toggle_backend(&mut self) -> Result<bool, Error> {
        match (&mut self.gpu, self.use_gpu) {
            (None, _) => return Ok(false),
            (Some(GpuStage::World(device)), true) => {
                device.read_into(&mut self.world)?;
                device.unload();
                self.use_gpu = false;
            }
            (Some(GpuStage::World(_)), false) => {
                self.use_gpu = true;
                if let Err(e) = self.upload() {
                    self.use_gpu = false;
                    return Err(e);
                }
            }
            _ => self.use_gpu = !self.use_gpu,
        }
        Ok(true)
    }

    pub fn reset(&mut self) -> Result<(), Error> {
        (self.world, self.driver) = self.spec.build();
        self.drag = None;
        self.time = 0.0;
        self.upload()
    }

    /// Asks for one step while paused.
    pub fn request_single_step(&mut self) {
        self.single_step = true;
    }

    /// Runs one step unless paused; `None` when nothing ran.
    pub fn advance(&mut self) -> Result<Option<Stepped>, Error> {
        if self.paused && !std::mem::take(&mut self.single_step) {
            return Ok(None);
        }
        // On the GPU world, an edit of the device's world before every step.
        if let Some(driver) = self.driver.level {
            let time = self.time;
            self.edit(|world, _| driver.drive(world, time, DT))?;
        }
        let stepped = self.step()?;
        self.time += DT;
        Ok(Some(stepped))
    }

    /// One step on the backend in use.
    fn step(&mut self) -> Result<Stepped, Error> {
        if let (Some(gpu), true) = (&mut self.gpu, self.use_gpu) {
            let result = match gpu {
                GpuStage::Narrow(narrow) => self.world.step(DT, narrow.as_mut()).map(Stepped::Host),
                GpuStage::Collision(stage) => self
                    .world
                    .step_on_gpu(DT, stage.as_mut())
                    .map(Stepped::Host),
                GpuStage::World(device) => device
                    .step(DT)
                    .map(|(wall, kernels)| Stepped::Device { wall, kernels }),
            };
            match result {
                Ok(stepped) => return Ok(stepped),
                // A failed step leaves the world as it was: the CPU takes the same step.
                // The GPU world's world is read back first; a step that failed in its
                // solver's stages was taken all the same (see `GpuWorld::step`), so that
                // case runs one step ahead, but a lost device fails in the collision stage,
                // before anything changed.
                Err(e) => {
                    eprintln!("simulate: the GPU stage failed ({e}); continuing on the CPU");
                    if let GpuStage::World(device) = gpu {
                        device.read_into(&mut self.world)?;
                    }
                    self.gpu = None;
                    self.use_gpu = false;
                }
            }
        }
        self.world.step(DT, &mut self.cpu).map(Stepped::Host)
    }

    /// Drives the joint scene's car at `throttle` (see `scenes::Car::drive`: 1 forward,
    /// -1 back, 0 brakes); false in a scene without a car.
    pub fn drive(&mut self, throttle: f32) -> Result<bool, Error> {
        let Some(car) = self.driver.car else {
            return Ok(false);
        };
        self.edit(|world, _| car.drive(world, throttle))?;
        Ok(true)
    }

    /// Grabs the dynamic body under a world point, if any, with a mouse joint (see
    /// `scenes::MouseDrag`); lets go of the one held first. On the GPU world, the world is
    /// read back for the pick (the world's point query), and the joint added by an edit.
    pub fn grab(&mut self, point: Vec2) -> Result<(), Error> {
        self.release()?;
        self.sync_world()?;
        let dynamic = |b| self.world.body_type(b) == Some(BodyType::Dynamic);
        if !self.world.body_at(point).is_some_and(dynamic) {
            return Ok(());
        }
        self.drag = self.edit(|world, _| MouseDrag::grab(world, point))?;
        Ok(())
    }

    /// Moves the held body's target (the mouse joint's) to a world point; nothing when it
    /// is there already (on the GPU world, no edit).
    pub fn drag_to(&mut self, point: Vec2) -> Result<(), Error> {
        let Some(mut drag) = self.drag.filter(|d| d.target() != point) else {
            return Ok(());
        };
        self.edit(|world, _| drag.move_to(world, point))?;
        self.drag = Some(drag);
        Ok(())
    }

    /// Lets go: the joint goes, the body keeps the velocity the pull gave it (the throw).
    pub fn release(&mut self) -> Result<(), Error> {
        match self.drag.take() {
            Some(drag) => self.edit(|world, _| {
                drag.release(world);
                Ok(())
            }),
            None => Ok(()),
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
        self.edit(|world, _| scenes::push_body_at(world, point).map(|body| body.is_some()))
    }

    /// Pushes the `k`-th dynamic body (counting round, with a stride that spreads the
    /// pushes over the scene) at its centre of mass: headless `--push-every`, standing in
    /// for the I key. False when there is no dynamic body.
    pub fn push_one(&mut self, k: usize) -> Result<bool, Error> {
        self.edit(|world, _| {
            let dynamic: Vec<BodyId> = world
                .bodies()
                .filter(|&b| world.body_type(b) == Some(BodyType::Dynamic))
                .collect();
            if dynamic.is_empty() {
                return Ok(false);
            }
            let body = dynamic[(k * 37) % dynamic.len()];
            let point = world.center_of_mass(body);
            scenes::push_body_at(world, point).map(|body| body.is_some())
        })
    }

    /// Fires a heavy bullet (a swept body) from above the scene's top-left corner at `target`.
    pub fn fire(&mut self, target: Vec2) -> Result<(), Error> {
        self.edit(|world, _| add_bullet(world, target))
    }

    /// Drops `count` bodies, with shapes taken from existing dynamic bodies, in a grid above
    /// everything, over the static bodies (the container or the ground).
    pub fn spawn(&mut self, count: usize) -> Result<(), Error> {
        self.edit(|world, rng| add_bodies(world, rng, count))
    }
}

/// Adds a bullet above `world`'s top-left corner, fired at `target` (see [`Sim::fire`]).
fn add_bullet(world: &mut World, target: Vec2) -> Result<(), Error> {
    let Some(bounds) = world
        .bodies()
        .map(|b| world.body_aabb(b))
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
    world.add_body(&def)?;
    Ok(())
}

/// Adds `count` bodies to `world`, their shapes and angles drawn from `rng` (see
/// [`Sim::spawn`]).
fn add_bodies(world: &mut World, rng: &mut ChaCha8Rng, count: usize) -> Result<(), Error> {
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
            let body = dynamic[rng.random_range(0..dynamic.len())];
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
        def.angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
        world.add_body(&def)?;
    }
    Ok(())
}
