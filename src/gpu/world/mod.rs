//! [`GpuWorld`]: a [`World`] stepped with its collision and its solver on the GPU, whose
//! body transforms a host draws from a GPU buffer.
//!
//! ```text
//! GpuWorld::new(device, queue, world): a copy of the world, its transforms written to the
//!     device
//! edit(f): f changes the world between steps; the transforms written again
//! step(dt):
//!     the world's pair set: the host fattens its boxes, and the device its copy of them,
//!         from the boxes the collision stage placed (a hash holds the two together); the
//!         device finds the set's changes over them (pairs.rs; the host sweeps when the
//!         device's copy is not the world's list), and the host applies them
//!     collision on the GPU: the colliders' poses and boxes placed there from the
//!         transforms first (gpu/place.rs, a submit of its own: the fat boxes above grow
//!         from them), then the contacts of the device's pair set's fresh pairs
//!         (gpu/collision/set.rs: no sweep, only those contacts back; the stage's own
//!         sweep when the pair set is on the host), which the device's recycling pass
//!         picks from the manifolds it keeps per pair (gpu/collision/recycle/), then
//!         the contact list merged and its warm starts matched there, from the contacts
//!         the solver left at the last step; the placed boxes and the fresh pairs held to
//!         the host's by hashes; the world's fresh pairs' contacts kept
//!                                                               (World::step_on_gpu)
//!     recycling, merge and the warm starts' match (the device's held to them by
//!         hashes), events; the constraints listed                         (host)
//!     the joints prepared (the device prepares them too, from their definitions and
//!         the impulses its last step left, held to the host's by a hash)     (host)
//!     the wake on the GPU, first in the solver's submit, where the device sleeps: the
//!         islands a contact or a joint touches woken there, as the host's wake woke
//!         them (continuous/sleep.rs; nothing of those bodies goes up; a hash of them
//!         checked before the step's results are taken)
//!     the colouring on the GPU, from its own last step (colouring/; from the host's
//!         last step when the two may have parted), the solve order sorted there, each
//!         colour's range and workgroups written there
//!     the solver's stages on the GPU (solver/, shaders/solver.wgsl and joints.wgsl),
//!         colour by colour, dispatched indirectly; then the transforms written on the
//!         device from its poses; up: the bodies' records the host changed (the rest stay
//!         there, resident.rs); the contacts' inputs and warm starts are the collision
//!         stage's (else they go up, 72 and 16 bytes); back: the state, the impulses and
//!         the colours (1 byte a constraint); each contact's colliders, feature ids and
//!         impulses stay there for the next step's match; after the solver, in the same
//!         submit, the continuous stage and sleep (continuous/: the states and poses go
//!         back before them, for the host's twins; hashes of what they moved and of
//!         every sleep timer and label hold them to the host's)
//!     continuous collision and sleep, the twins                        (host)
//! read_world(): the world after the last step, with the same handles
//! ```
//!
//! Every step gives the bits [`World::step`] gives (the GPU's arithmetic is the host's,
//! operation for operation; see docs/reliability.md for which adapters keep them).
//!
//! What this stage of the GPU world still does on the host, and why the state comes back
//! each step: the world's own fat boxes (the twin the device's are held to) and the
//! application of the pair set's changes to the world's set, the recycling pass, merge and
//! match of warm starts, the continuous stage and sleep (the twins the device's are held
//! to; their contacts, warm starts and sleep timers the world keeps), the waking of
//! islands before the solve (the device's wake is held to it), and the events (and the
//! host keeps the colours, so that a `World` read back carries them, and a step the
//! device fails is solved on the host to the same bits). Taking the twins out of the step, so that it needs no readback, is the
//! next work (issue 33).

mod colouring;
pub(crate) mod continuous;
mod layout;
mod pairs;
mod resident;
mod solver;
mod timing;

pub use colouring::{COLOURING_WGSL, DEFAULT_ROUNDS, GpuColouring, GpuColours};
pub use solver::SOLVER_WGSL;
pub use timing::GpuStepTimes;

use crate::error::Error;
use crate::gpu::GpuCollision;
use crate::world::{PairsElsewhere, StepStats, World};
use pairs::DevicePairs;
use solver::GpuSolver;

/// A [`World`] stepped on a wgpu device: collision and the solver's stages run there, and
/// every body's transform is kept in a GPU buffer ([`GpuWorld::transforms`]) that a host
/// binds to draw instances, in the layout of
/// [`BodyTransformGpu`](crate::gpu::layout::BodyTransformGpu). It borrows the host's device
/// and queue.
///
/// Each [`GpuWorld::step`] reaches the bits [`World::step`] reaches from the same world
/// (tests/gpu/gpu_world.rs holds the two to every bit on lavapipe). Everything a world
/// holds steps as on the CPU: sleeping and continuous collision (on the device, but in a
/// world with a bullet: [`GpuWorld::continuous_steps`]), hit events, forces, kinematic
/// bodies, and every joint kind with its limits, motors and springs. Between steps,
/// [`GpuWorld::edit`] changes the world as [`World`]'s own calls do.
///
/// ```no_run
/// use wgpu_sat::{glam::Vec2, gpu::GpuWorld, BodyDef, Polygon, World};
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut world = World::default();
/// world.add_body(&BodyDef::fixed(Polygon::rectangle(10.0, 0.5), Vec2::new(0.0, -0.5)))?;
/// let body = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0)))?;
/// let mut gpu = GpuWorld::new(&device, &queue, &world)?;
/// for _ in 0..60 {
///     gpu.step(1.0 / 60.0)?;
///     // A renderer binds gpu.transforms() as a storage buffer: one transform per body slot.
/// }
/// let world = gpu.read_world()?;
/// assert!(world.transform(body).translation().y < 2.0);
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuWorld {
    world: World,
    collision: GpuCollision,
    solver: GpuSolver,
    pairs: DevicePairs,
    /// The last step's counts and host times (default before the first step).
    stats: StepStats,
}

impl GpuWorld {
    /// Uploads `world` (a copy: the caller's stays as it is) to `device`. Fails with the
    /// device's error if it has one.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
    ) -> Result<GpuWorld, Error> {
        let transforms = world.body_transforms();
        let mut solver = GpuSolver::new(device, queue, transforms.len());
        solver.set_transforms(&transforms);
        let mut pairs = DevicePairs::new(device, queue)?;
        // A software adapter's passes are the host's CPU time, and more of it than the
        // host's own sweep (see `set_pair_set_on_device`) or the host's own continuous
        // stage (see `set_continuous_on_device`).
        let hardware = device.adapter_info().device_type != wgpu::DeviceType::Cpu;
        pairs.enabled = hardware;
        solver.continuous.enabled = hardware;
        Ok(GpuWorld {
            world: world.clone(),
            collision: GpuCollision::new(device, queue)?,
            solver,
            pairs,
            stats: StepStats::default(),
        })
    }

    /// Advances the world by `dt` seconds (in [`TIME_STEP_RANGE`](crate::world::TIME_STEP_RANGE),
    /// else an error names it, and nothing changes), as [`World::step`] would, and writes
    /// the new transforms to [`GpuWorld::transforms`].
    ///
    /// When the device fails during the collision stage (lost, out of memory), the error
    /// is returned and the world is as it was. When it fails during the solver's stages,
    /// the stages are run on the CPU, to the same bits, and the error is returned with the
    /// step taken: [`GpuWorld::read_world`] gives the world after it either way, and a
    /// caller can carry on with the CPU world from there. After an error the transforms
    /// buffer is written from the world (it is what the next step places its colliders
    /// from).
    pub fn step(&mut self, dt: f32) -> Result<(), Error> {
        let transforms = self.solver.transforms().clone();
        self.pairs.bytes = [0; 2];
        let (collision, solver) = (&mut self.collision, &mut self.solver);
        // The last step's contacts, when the device solved it: this step's warm starts are
        // matched from them there.
        collision.set_last_contacts(solver.take_last());
        let pairs = match self.pairs.enabled {
            true => Some(&mut self.pairs as &mut dyn PairsElsewhere),
            false => None,
        };
        // Whether the device runs the continuous stage, and its records up.
        solver.prepare_continuous(&self.world);
        let stepped =
            self.world
                .step_with_offloaded_solver(dt, collision, solver, &transforms, pairs);
        match stepped {
            Ok(stats) => {
                match self.solver.check_continuous(&self.world) {
                    // The device moved the bodies the host's stage moved, to its bits, and
                    // wrote their transforms.
                    Some(true) => {}
                    // It moved others, or otherwise: the host's transforms, all of them.
                    Some(false) => self.solver.set_transforms(&self.world.body_transforms()),
                    // The host's stage alone: the few bodies it moved have their
                    // transforms sent after the device's (16 bytes each).
                    None => {
                        for &slot in self.world.continuous_moved() {
                            self.solver
                                .set_transform(slot, &self.world.slot_transform(slot));
                        }
                    }
                }
                self.stats = stats;
                Ok(())
            }
            Err(error) => {
                // The step was taken on the host, or not at all: either way the device's
                // transforms may not be the world's, and the next step places its
                // colliders from them.
                self.solver.set_transforms(&self.world.body_transforms());
                Err(error)
            }
        }
    }

    /// The last successful step's counts (bodies, pairs, contacts) and its times as the
    /// host saw them, as [`World::step`] returns them: `broad_phase` the host's pair set,
    /// `narrow_phase` the collision stage's submit and collection, `solver` the solver's
    /// upload, pass and readback. [`GpuWorld::step_times`] gives the device's side.
    pub fn stats(&self) -> &StepStats {
        &self.stats
    }

    /// The last step's time on the device, stage by stage, by timestamp queries: `None`
    /// on devices without them, and after a step with no solver pass (no body) or one the
    /// device did not finish.
    ///
    /// ```no_run
    /// # use wgpu_sat::{gpu::GpuWorld, World};
    /// # let (device, queue) = wgpu_sat::request_device()?;
    /// let mut gpu = GpuWorld::new(&device, &queue, &World::default())?;
    /// gpu.step(1.0 / 60.0)?;
    /// if let Some(t) = gpu.step_times() {
    ///     println!("device: {:?} ({:?} solving), host: {:?}", t.total(), t.solve, gpu.stats().solver);
    /// }
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn step_times(&self) -> Option<GpuStepTimes> {
        let collision = self.collision.timings().kernel?;
        let solver = self.solver.stage_times?;
        Some(GpuStepTimes {
            collision,
            ..solver
        })
    }

    /// The world after the last step, with the same handles: for events, queries and
    /// snapshots, or to step on with the CPU.
    pub fn read_world(&mut self) -> Result<World, Error> {
        Ok(self.world.clone())
    }

    /// Changes the world between steps: `edit` runs on the world as the last step left it
    /// (add or remove bodies and joints, set velocities, apply forces and impulses, move
    /// bodies, change settings: everything [`World`] offers), and what it changed goes to
    /// the device with the next step. Returns what `edit` returns.
    ///
    /// The transforms are rewritten at once. When bodies were added past the transforms
    /// buffer's room, it is replaced by a larger one: a host that keeps a bind group of
    /// [`GpuWorld::transforms`] makes it again after an edit that added bodies (compare
    /// [`GpuWorld::body_slots`]).
    ///
    /// ```no_run
    /// # use wgpu_sat::{glam::Vec2, gpu::GpuWorld, BodyDef, Polygon, World};
    /// # let (device, queue) = wgpu_sat::request_device()?;
    /// # let mut world = World::default();
    /// # let body = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))?;
    /// let mut gpu = GpuWorld::new(&device, &queue, &world)?;
    /// gpu.edit(|world| world.set_velocity(body, Vec2::new(0.0, 5.0), 0.0))??;
    /// gpu.step(1.0 / 60.0)?;
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn edit<R>(&mut self, edit: impl FnOnce(&mut World) -> R) -> Result<R, Error> {
        let (stamp, joints) = (self.world.kept_stamp(), self.world.joint_impulse_stamp());
        let result = edit(&mut self.world);
        if self.world.joint_impulse_stamp() != joints {
            // A joint added, removed or reset, a snapshot restored: the device's joints'
            // impulses may not be the world's, and the next step sends the host's joints.
            self.solver.forget_joints();
        }
        if self.world.kept_stamp() != stamp {
            // A step taken, a pair set restored, a body added, moved or removed: the
            // device's kept manifolds may not be the world's, and go up again; nor may its
            // last contacts be the world's last warm starts.
            self.collision.invalidate_kept();
            self.solver.take_last();
        }
        self.solver.set_transforms(&self.world.body_transforms());
        Ok(result)
    }

    /// The buffer of body transforms: one
    /// [`BodyTransformGpu`](crate::gpu::layout::BodyTransformGpu) per body slot
    /// ([`BodyId::index`](crate::BodyId::index)), written by the device at the end of each
    /// step. Its usages include `STORAGE` and `VERTEX`, so a host binds it as a read-only
    /// storage buffer (or an instance vertex buffer) of its own pipeline.
    pub fn transforms(&self) -> &wgpu::Buffer {
        self.solver.transforms()
    }

    /// How many body slots the world has (removed bodies' included): the transforms a
    /// host draws, in [`GpuWorld::transforms`]' first bytes.
    pub fn body_slots(&self) -> usize {
        self.world.body_transforms_len()
    }

    /// Whether the last step's colouring started from the host's colours of the step
    /// before (sent up), rather than from the device's own. The device colours every step
    /// (`GpuColouring`), and the host takes its colours back; it starts from the host's on
    /// the first step, after an edit that replaced the world's colouring (a snapshot
    /// restored, a step taken inside the edit), and after a step solved on the host.
    pub fn colouring_seeded(&self) -> bool {
        self.solver.colouring_seeded()
    }

    /// How many steps' collision stage has found the boxes it placed on the device from
    /// [`GpuWorld::transforms`] spanning other band entries than the host's boxes (or, over
    /// the device's pair set, with another hash), and ran again with the host's poses and
    /// boxes sent (the same contacts, one more submit).
    /// 0 where the adapter gives the host's bits (lavapipe: the tests hold it there); on
    /// others, a count above 0 says that its transforms round otherwise than the host's
    /// (docs/reliability.md).
    pub fn placement_misses(&self) -> u64 {
        self.collision.placement_misses()
    }

    /// How the steps so far found their pair set's pairs, when any fat box moved or the
    /// device's copy was not the world's list: `[on the device, on the host]`. The device
    /// keeps a copy of the world's pair set and finds its changes over the world's fat
    /// boxes; the host applies them (8 bytes a begun or ended pair back). It sweeps the set
    /// itself on the first step, after an edit that replaced the world's pair set (a
    /// snapshot restored, a step taken inside the edit), and after a device error; the set
    /// is the same either way.
    pub fn pair_set_steps(&self) -> [u64; 2] {
        self.pairs.counts
    }

    /// How the steps so far, with the pair set on the device, found the pairs their
    /// collision stage collides: `[from the device's pair set, swept]`. The narrow phase
    /// takes the pairs of the device's copy of the world's set that need a fresh manifold
    /// (no sweep of its own; see [`GpuWorld::recycling_steps`] for who decides; their
    /// contacts alone come back) whenever that copy is the world's list; else (a device
    /// error in the pair set) the stage sweeps its boxes, as with the pair set on the
    /// host.
    pub fn collision_steps(&self) -> [u64; 2] {
        self.collision.set_calls()
    }

    /// How the steps that collided over the device's pair set found the pairs that need a
    /// fresh manifold: `[on the device, from the host's recycling pass]`. The device runs
    /// the recycling pass's test itself (`shaders/recycle.wgsl`), from the manifolds it
    /// keeps per pair and carries over the set's changes; the host's recycling pass still
    /// runs (its merge takes the recycled contacts), and a hash of its fresh pairs checks
    /// the device's. The host's are taken (a bit a pair up) when the device's recycling
    /// is switched off ([`GpuWorld::set_recycling_on_device`]) and after a miss.
    pub fn recycling_steps(&self) -> [u64; 2] {
        self.collision.recycle_calls().0
    }

    /// How many steps' device recycling pass found other fresh pairs than the host's,
    /// and collided the host's instead (the same contacts, one more submit; the device's
    /// kept manifolds go up again at the next step, 80 bytes a pair). 0 where the adapter
    /// rounds as the host does (lavapipe: the tests hold it there), as for
    /// [`GpuWorld::placement_misses`].
    pub fn recycle_misses(&self) -> u64 {
        self.collision.recycle_calls().1
    }

    /// Where the steps' solvers took their contacts' inputs (manifold, bodies, material)
    /// from: `[merged on the device, sent by the host]`. A step whose fresh pairs the
    /// device decided (see [`GpuWorld::recycling_steps`]) also merges its contact list
    /// there, the recycled pairs' manifolds carried to the poses and the narrow phase's in
    /// the world's order, each with its colliders' bodies and mixed material
    /// (`shaders/recycle.wgsl`), and the solver takes those when their hash is that of the
    /// host's list (then at most the warm starts go up, 16 bytes a contact where the
    /// host's inputs are 72: see [`GpuWorld::warm_start_steps`]). A world with sensors
    /// sends its own (its list leaves the sensor pairs out, and the device cannot tell
    /// them: it merges nothing then).
    pub fn contact_input_steps(&self) -> [u64; 2] {
        self.solver.input_steps
    }

    /// Where the steps' solvers took their contacts' warm starts (the last step's impulses
    /// where the same feature ids touch again) from: `[matched on the device, sent by the
    /// host]`. A step whose contact list the device merged (see
    /// [`GpuWorld::contact_input_steps`]) also matches their warm starts there, from the
    /// contacts the device's solver left at the last step (each one's colliders, feature
    /// ids and impulses), and the solver takes those when their hash is that of the
    /// host's match: then nothing of a contact goes up. The host's go up (16 bytes a
    /// contact) at the first step, after a step solved on the host, after an edit that
    /// changed the world's contacts (see [`GpuWorld::edit`]), and in a world the device
    /// merges no list for.
    pub fn warm_start_steps(&self) -> [u64; 2] {
        self.solver.warm_steps
    }

    /// Where the steps with joints took them from: `[prepared on the device, sent by the
    /// host]`. The device keeps each joint's definition (sent when it changes: 112 bytes)
    /// and the impulses its last step left, and prepares the joints there from its
    /// bodies' poses and states (`prepare_joints` in `shaders/joint_prepare.wgsl`, the twin of
    /// the host's); a hash of the prepared joints, read back with the step's results, is
    /// held to the host's prepare, which still runs. The host's go up (144 bytes a joint)
    /// at the first step, after an edit that changed a joint's impulses (a joint added,
    /// removed or reset, a snapshot restored; not one that set a velocity or moved a mouse
    /// joint's target), and after a step solved on the host.
    pub fn joint_prepare_steps(&self) -> [u64; 2] {
        self.solver.joint_steps
    }

    /// Whether the steps to come prepare their joints on the device (the default) or send
    /// the host's (see [`GpuWorld::joint_prepare_steps`]); every bit is the same either
    /// way.
    pub fn set_joints_on_device(&mut self, on: bool) {
        self.solver.joints_enabled = on;
    }

    /// How many steps' joints prepared on the device hashed otherwise than the host's, and
    /// were solved again with the host's (the same bits, one more submit). 0 where the
    /// adapter rounds as the host does (lavapipe: the tests hold it there), as for
    /// [`GpuWorld::placement_misses`].
    pub fn joint_misses(&self) -> u64 {
        self.solver.joint_misses
    }

    /// How the steps so far ran their continuous stage: `[on the device, on the host
    /// alone]`. The device sweeps the fast bodies in the solver's submit
    /// (`shaders/continuous.wgsl`, the twin of the host's stage), moves those that hit a
    /// static obstacle back to the time of impact and applies the impact, and writes their
    /// transforms; a hash of each moved body's pose and velocity, read back with the
    /// step's results, is held to the host's stage, which still runs. The host sweeps
    /// alone in a world with a bullet (its impacts push other dynamic bodies, in order),
    /// with continuous collision off (then neither sweeps), after a device error, and when
    /// switched off ([`GpuWorld::set_continuous_on_device`]; off by default on a software
    /// adapter).
    pub fn continuous_steps(&self) -> [u64; 2] {
        self.solver.continuous.steps
    }

    /// How many steps' continuous stage on the device moved other bodies than the host's,
    /// or to other bits (the host's states, poses and transforms then go up whole). 0 where
    /// the adapter rounds as the host does (lavapipe: the tests hold it there), as for
    /// [`GpuWorld::placement_misses`].
    pub fn continuous_misses(&self) -> u64 {
        self.solver.continuous.misses
    }

    /// How the steps so far put bodies to sleep: `[on the device, on the host alone]`.
    /// After the continuous stage the device advances each body's sleep timer, joins the
    /// islands of the awake dynamic bodies that touch or are jointed (a union-find whose
    /// roots are each island's smallest body, as the host's), and stills each island whose
    /// bodies all rested long enough (`shaders/sleep.wgsl`, the twin of `Sleep::update`);
    /// a hash of every body's timer and label, read back with the step's results, is held
    /// to the host's sleep, which still runs. The host sleeps alone where the continuous
    /// stage ran on the host alone (see [`GpuWorld::continuous_steps`]), with sleeping off
    /// (then neither does), and when switched off with the continuous stage
    /// ([`GpuWorld::set_continuous_on_device`]). The islands a contact or a joint wakes
    /// are woken on the device too ([`GpuWorld::wake_steps`]); those woken by the world's
    /// own calls (a body pushed, moved, its neighbour removed) go up with its records.
    pub fn sleep_steps(&self) -> [u64; 2] {
        self.solver.continuous.sleep_steps
    }

    /// How the steps woke the sleeping islands their contacts and joints touch: `[steps
    /// the device woke them, steps the host's wake went up]`. Every step the device sleeps
    /// (see [`GpuWorld::sleep_steps`]) it wakes first, in the solver's submit: an island
    /// touching, or jointed to, an awake dynamic body or a moving kinematic one wakes, its
    /// bodies' inverse masses back (`wake_contacts`, `wake_joints` and `wake_islands` in
    /// `shaders/sleep.wgsl`, the twins of `Sleep::wake_touched`), and nothing of those
    /// bodies goes up; a hash of the bodies it woke, read back with the step's results, is
    /// held to the host's wake before any result is taken. The host's wakes (steps it
    /// woke a body) go up with the bodies' records where the device does not sleep, and in
    /// a step that sends every record (a body added: the device then finds nothing to
    /// wake).
    pub fn wake_steps(&self) -> [u64; 2] {
        self.solver.continuous.wake_steps
    }

    /// How many steps' wake on the device woke other bodies than the host's, and were
    /// solved again with the host's records sent (the same bits, one more submit). 0 where
    /// the adapter rounds as the host does (lavapipe: the tests hold it there).
    pub fn wake_misses(&self) -> u64 {
        self.solver.continuous.wake_misses
    }

    /// How many steps' sleep on the device left a timer or a label otherwise than the
    /// host's (the host's records and states then go up whole). 0 where the adapter rounds
    /// as the host does (lavapipe: the tests hold it there).
    pub fn sleep_misses(&self) -> u64 {
        self.solver.continuous.sleep_misses
    }

    /// Whether the steps to come run the continuous stage and sleep on the device as well
    /// as on the host; every bit is the same either way. By default on the device, but on
    /// a software adapter (`wgpu::DeviceType::Cpu`, lavapipe), whose passes are the host's
    /// CPU time: there the device's stage took 4 times the host's (5.75 ms a step of a
    /// 100,000-body pile against 1.3; docs/performance.md), and the host's twin runs
    /// anyway.
    pub fn set_continuous_on_device(&mut self, on: bool) {
        self.solver.continuous.enabled = on;
    }

    /// Whether the steps to come decide the pairs that need a fresh manifold on the
    /// device (the default) or take the host's recycling pass's; every bit is the same
    /// either way.
    pub fn set_recycling_on_device(&mut self, on: bool) {
        self.collision.set_recycling_on_device(on);
    }

    /// Whether the steps to come find the world's pair set on the device or on the host,
    /// as [`World::step`] does; the set, and so every bit, is the same. By default on the
    /// device, but on a software adapter (`wgpu::DeviceType::Cpu`, lavapipe), whose passes
    /// are the host's CPU time: there the device's pair set took 1.6 to 1.9 times the
    /// host's whole step (docs/performance.md). On a hardware GPU the device's sweep is a
    /// few dispatches' time where the host's was its largest stage (15 ms of a
    /// 100,000-body step on the H200's host). Switched on after steps on the host, the
    /// first step the device takes sweeps on the host once more, and sends the world's
    /// kept manifolds for the device's recycling pass (see [`GpuWorld::recycling_steps`]).
    pub fn set_pair_set_on_device(&mut self, on: bool) {
        if self.pairs.enabled != on {
            // Steps without the device's set leave its kept manifolds behind the world's:
            // they go up again when it is back.
            self.collision.invalidate_kept();
        }
        self.pairs.enabled = on;
    }

    /// How many steps' pair set found the fat boxes the device grew from the boxes it
    /// placed other than the world's, and sent the world's whole (the same pairs, 16
    /// bytes a collider up and one more submit). 0 where the adapter places the boxes to
    /// the host's bits (lavapipe: the tests hold it there), as for
    /// [`GpuWorld::placement_misses`].
    pub fn fat_misses(&self) -> u64 {
        self.pairs.fat_misses()
    }

    /// Bytes the last step's pair set sent to the device and read back: 0 when no fat box
    /// moved, or the pair set was found on the host.
    pub fn pair_set_bytes(&self) -> [u64; 2] {
        self.pairs.bytes
    }

    /// Bytes the last step's solver sent to the device and read back.
    pub fn solver_bytes(&self) -> [u64; 2] {
        self.solver.bytes
    }

    /// The last step's time on the device: its collision kernels and its solver's pass, by
    /// timestamp queries, on devices that have them (`None` elsewhere).
    pub fn kernel_time(&self) -> Option<std::time::Duration> {
        let collision = self.collision.timings().kernel;
        Some(collision? + self.solver.kernel_time?)
    }
}

/// The test helpers of the GPU world's WGSL: a module parsed and validated, and the size of
/// one of its structs.
#[cfg(test)]
mod wgsl_checks {
    /// `source` parsed and validated by naga, or a panic naming the line at fault.
    pub(super) fn validated(source: &str) -> naga::Module {
        let m = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&m)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
        m
    }

    /// The literals of constant `name` of `m`: one for a scalar, one per component of a
    /// vector.
    pub(super) fn literals(m: &naga::Module, name: &str) -> Vec<naga::Literal> {
        let (_, c) = m
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no const {name}"));
        let literal = |h: naga::Handle<naga::Expression>| match m.global_expressions[h] {
            naga::Expression::Literal(v) => v,
            ref other => panic!("{name}: {other:?}"),
        };
        match m.global_expressions[c.init] {
            naga::Expression::Compose { ref components, .. } => {
                components.iter().map(|&h| literal(h)).collect()
            }
            _ => vec![literal(c.init)],
        }
    }

    /// The size in bytes of struct `name` of `m`.
    pub(super) fn struct_size(m: &naga::Module, name: &str) -> usize {
        let (_, ty) = m
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no struct {name}"));
        match ty.inner {
            naga::TypeInner::Struct { span, .. } => span as usize,
            _ => panic!("{name} is not a struct"),
        }
    }
}
