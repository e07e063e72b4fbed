//! `--backend gpu-world`: the world stepped as a `wgpu_sat::gpu::GpuWorld` on the
//! renderer's own device and queue, with the host's copy of the world read back only when
//! something asks for it.
//!
//! The renderer draws the bodies from `GpuWorld::transforms` (one pose per body slot,
//! written by the device at the end of each step), so drawing needs no readback and no
//! upload of poses. The host's `World` (`Sim::world`) is then a snapshot: `Sim::sync_world`
//! brings it up to date (`GpuWorld::read_world`) for the contact overlay, the ray fan, the
//! joints' lines, picking, the title's counts twice a second and the headless reports.
//!
//! An edit of the world (the level's movers before every step, dropping bodies, a bullet, a
//! push, driving the car, a mouse drag) is made on the device's world by `GpuWorld::edit`,
//! with no rebuild; only a reset (R) and G build a `GpuWorld` again. An edit that added or
//! removed bodies bumps a generation, which tells the renderer to upload its per-collider
//! instances again (and to bind the transforms buffer again, which `GpuWorld::edit`
//! replaces by a larger one when the bodies outgrow it); the snapshot is read back at once
//! then, since the instances are built from it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use wgpu_sat::gpu::GpuWorld;
use wgpu_sat::{Error, World};

use crate::render::DeviceTransforms;

/// A [`GpuWorld`] and what the host knows of it.
pub struct DeviceWorld {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// `None` until [`DeviceWorld::load`] builds one.
    gpu: Option<GpuWorld>,
    /// Whether the device has stepped since the host's snapshot was taken.
    behind: bool,
    /// Bumped by every `GpuWorld` built and every edit that added or removed bodies: the
    /// colliders (and the transforms buffer) of one generation stay as they are until the
    /// next.
    generation: u64,
}

impl DeviceWorld {
    /// Nothing on the device yet: [`DeviceWorld::load`] uploads a world.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> DeviceWorld {
        DeviceWorld {
            device: device.clone(),
            queue: queue.clone(),
            gpu: None,
            behind: false,
            generation: 0,
        }
    }

    /// Uploads `world` as a new `GpuWorld`, replacing the one held (its steps since the last
    /// snapshot are dropped: call [`DeviceWorld::read_into`] first to keep them). Fails
    /// only with the device's error.
    pub fn load(&mut self, world: &World) -> Result<(), Error> {
        // Dropped first: two copies of a 100,000-body world's buffers need not coexist.
        self.gpu = None;
        self.gpu = Some(GpuWorld::new(&self.device, &self.queue, world)?);
        self.behind = false;
        self.generation += 1;
        Ok(())
    }

    /// One step of `dt` seconds; returns the host's wall time of `GpuWorld::step`, and
    /// the device's time in its kernels where the device has timestamp queries. While this
    /// stage of the GPU world reads each step's state back for its host-side bookkeeping,
    /// the wall time includes the device's work.
    pub fn step(&mut self, dt: f32) -> Result<(Duration, Option<Duration>), Error> {
        let gpu = self
            .gpu
            .as_mut()
            .expect("DeviceWorld::load ran before the first step");
        let start = Instant::now();
        self.behind = true;
        gpu.step(dt)?;
        Ok((start.elapsed(), gpu.kernel_time()))
    }

    /// Runs `edit` on the device's world (`GpuWorld::edit`: the world as the last step left
    /// it; what it changes goes to the device with the next step), and returns what it
    /// returns. `snapshot` is the host's copy ([`DeviceWorld::read_into`]'s): when the edit
    /// added or removed bodies, the generation is bumped and `snapshot` is read back at
    /// once, for the renderer's per-collider instances; otherwise it is left, behind the
    /// device until the next `read_into`.
    pub fn edit<R>(
        &mut self,
        snapshot: &mut World,
        edit: impl FnOnce(&mut World) -> R,
    ) -> Result<R, Error> {
        let gpu = self
            .gpu
            .as_mut()
            .expect("DeviceWorld::load ran before the first edit");
        let buffer = gpu.transforms().clone();
        let mut before = 0;
        let mut after = 0;
        let result = gpu.edit(|world| {
            before = colliders_fingerprint(world);
            let result = edit(world);
            after = colliders_fingerprint(world);
            result
        })?;
        // A replaced transforms buffer is rebound by the renderer whatever the generation
        // (it compares the buffers); it comes only with added bodies, so with a bump.
        let changed = before != after || *gpu.transforms() != buffer;
        self.behind = true;
        if changed {
            self.generation += 1;
            self.read_into(snapshot)?;
        }
        Ok(result)
    }

    /// Replaces `world` by the device's world if the device has stepped since the last
    /// snapshot; otherwise leaves it, which is then current.
    pub fn read_into(&mut self, world: &mut World) -> Result<(), Error> {
        if let (true, Some(gpu)) = (self.behind, self.gpu.as_mut()) {
            *world = gpu.read_world()?;
            self.behind = false;
        }
        Ok(())
    }

    /// The buffer the renderer reads the poses from, and its generation.
    pub fn transforms(&self) -> Option<DeviceTransforms<'_>> {
        self.gpu.as_ref().map(|gpu| DeviceTransforms {
            buffer: gpu.transforms(),
            generation: self.generation,
        })
    }

    /// Bytes the last step's solver sent to the device and read back.
    pub fn solver_bytes(&self) -> [u64; 2] {
        self.gpu.as_ref().map_or([0; 2], GpuWorld::solver_bytes)
    }

    /// Lets go of the `GpuWorld` (the host steps the world from here).
    pub fn unload(&mut self) {
        self.gpu = None;
        self.behind = false;
    }
}

/// What the renderer's instances depend on: every live body (its handle and type: a
/// static body is drawn grey) and the sizes of the collider and shape tables. Two worlds
/// with the same fingerprint draw the same instances, but for a collision of the hash.
fn colliders_fingerprint(world: &World) -> u64 {
    let mut hasher = DefaultHasher::new();
    world.colliders().len().hash(&mut hasher);
    world.shapes().len().hash(&mut hasher);
    for body in world.bodies() {
        (body, world.body_type(body)).hash(&mut hasher);
    }
    hasher.finish()
}
