//! `--backend gpu-world`: the world stepped as a `wgpu_sat::gpu::GpuWorld` on the
//! renderer's own device and queue, with the host's copy of the world read back only when
//! something asks for it.
//!
//! The renderer draws the bodies from `GpuWorld::transforms` (one pose per body slot,
//! written by the device at the end of each step), so drawing needs no readback and no
//! upload of poses. The host's `World` (`Sim::world`) is then a snapshot: `Sim::sync_world`
//! brings it up to date (`GpuWorld::read_world`) for the contact overlay, the ray fan,
//! picking, the title's counts twice a second and the headless reports. An edit of the
//! world (dropping bodies, a bullet, a push, driving the car, a reset) is made on a fresh
//! snapshot, and the `GpuWorld` is built again from the edited world; each build bumps a
//! generation, which tells the renderer to upload its per-collider instances again.

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
    /// How many `GpuWorld`s were built: the colliders and the transforms buffer of one
    /// generation stay as they are until the next.
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
    /// snapshot are dropped: call [`DeviceWorld::read_into`] first to keep them). A world
    /// the GPU world cannot step yet (a joint it does not solve) is refused, named.
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
