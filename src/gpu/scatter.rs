//! The colliders the collision pipeline keeps on the device from call to call: each
//! collider's pose, shape id and box stay in their buffers, and a call uploads only the
//! colliders that changed (`shaders/scatter.wgsl`; `scatter_colliders` here is its twin,
//! and keeps the host's copy of what the device holds).
//!
//! ```text
//! plan(colliders, boxes):
//!     the device's copy lost (a buffer replaced, a device error), or another count of
//!     colliders: upload all (36 bytes a collider)
//!     else the colliders whose pose, box or shape differs from the copy, to the bit:
//!         few (48 bytes each below 36 a collider): one update each, scattered on the device
//!         many: upload all
//! ```
//!
//! A world at rest moves nothing: its sleeping bodies' colliders cost no byte a step.

use crate::collision::narrow_phase::Collider;
use crate::gpu::layout::UNPLACED;
use crate::gpu::layout::{AabbGpu, ColliderUpdateGpu, PoseGpu, ScatterParamsGpu};
use crate::gpu::plumbing::{GrowingBuffer, compute_pipeline, entire, storage, uniform};
use crate::shapes::aabb::Aabb;

/// The WGSL of the scatter (`shaders/scatter.wgsl`).
pub const SCATTER_WGSL: &str = include_str!("../../shaders/scatter.wgsl");

/// Invocations per workgroup of `scatter_colliders`.
const WORKGROUP: u32 = 64;
/// Bytes of one update and of a collider uploaded whole (pose, shape id, box).
const UPDATE_BYTES: u64 = size_of::<ColliderUpdateGpu>() as u64;
const WHOLE_BYTES: u64 = 36;

/// How a call brings the device's colliders up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Upload {
    /// Every collider written whole.
    Whole,
    /// This many updates, scattered by `scatter_colliders` (none: nothing changed).
    Changed(usize),
}

/// The device's copy of the colliders, the host's copy of it, and the scatter kernel.
pub(super) struct ResidentColliders {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    updates: GrowingBuffer,
    params: wgpu::Buffer,
    /// The scatter's bind group, and the buffers it binds (made again when one changed).
    binding: Option<([wgpu::Buffer; 4], wgpu::BindGroup)>,
    /// What the device holds, collider by collider; meaningful only while `valid`.
    poses: Vec<PoseGpu>,
    shape_ids: Vec<u32>,
    boxes: Vec<AabbGpu>,
    valid: bool,
    /// This call's updates.
    scratch: Vec<ColliderUpdateGpu>,
}

impl ResidentColliders {
    pub(super) fn new(device: &wgpu::Device) -> ResidentColliders {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat scatter.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SCATTER_WGSL.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-sat scatter_colliders"),
            entries: &[
                storage(0, true),
                storage(1, false),
                storage(2, false),
                storage(3, false),
                uniform(4, size_of::<ScatterParamsGpu>()),
            ],
        });
        let pipeline = compute_pipeline(device, &module, &layout, "scatter_colliders");
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        ResidentColliders {
            pipeline,
            layout,
            updates: GrowingBuffer::new(device, "wgpu-sat collider updates", usage),
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat scatter params"),
                size: size_of::<ScatterParamsGpu>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            binding: None,
            poses: Vec::new(),
            shape_ids: Vec::new(),
            boxes: Vec::new(),
            valid: false,
            scratch: Vec::new(),
        }
    }

    /// Buffers created so far, the params included.
    pub(super) fn buffers_created(&self) -> u64 {
        1 + self.updates.created
    }

    /// Forgets the device's copy (after an error): the next call uploads all.
    pub(super) fn invalidate(&mut self) {
        self.valid = false;
        self.binding = None;
    }

    /// Decides how this call's colliders and boxes go up (`lost`: a buffer holding them was
    /// replaced), and brings the host's copy of the device's to them. With `placed` (an
    /// owner per collider, `place.rs`), a collider with an owner sends only a changed
    /// shape id: the device places its pose and box, to the host's bits.
    pub(super) fn plan(
        &mut self,
        colliders: &[Collider],
        boxes: &[Aabb],
        placed: Option<&[u32]>,
        lost: bool,
    ) -> Upload {
        let n = colliders.len();
        if lost || !self.valid || self.poses.len() != n {
            return self.refresh_whole(colliders, boxes);
        }
        self.scratch.clear();
        for (k, (c, b)) in colliders.iter().zip(boxes).enumerate() {
            let (now, aabb) = (PoseGpu::from(&c.transform), AabbGpu::from(b));
            let same = if placed.is_some_and(|owners| owners[k] != UNPLACED) {
                // What the device will hold after the placement, sent or not.
                (self.poses[k], self.boxes[k]) = (now, aabb);
                c.shape == self.shape_ids[k]
            } else {
                bytemuck::bytes_of(&now) == bytemuck::bytes_of(&self.poses[k])
                    && bytemuck::bytes_of(&aabb) == bytemuck::bytes_of(&self.boxes[k])
                    && c.shape == self.shape_ids[k]
            };
            if !same {
                self.scratch.push(ColliderUpdateGpu {
                    index: k as u32,
                    shape: c.shape,
                    _pad: [0; 2],
                    pose: now,
                    aabb,
                });
                // As many bytes as the whole: the rest need not be looked at (a world
                // whose every body moves stopped here after three quarters of them, not
                // after all of them and a scatter of all on the host's copy).
                if UPDATE_BYTES * self.scratch.len() as u64 >= WHOLE_BYTES * n as u64 {
                    return self.refresh_whole(colliders, boxes);
                }
            }
        }
        scatter_colliders(
            &self.scratch,
            &mut self.poses,
            &mut self.shape_ids,
            &mut self.boxes,
        );
        Upload::Changed(self.scratch.len())
    }

    /// The host's copy of the device's colliders made `colliders` and `boxes` whole: the
    /// call uploads them all.
    fn refresh_whole(&mut self, colliders: &[Collider], boxes: &[Aabb]) -> Upload {
        self.poses.clear();
        self.poses
            .extend(colliders.iter().map(|c| PoseGpu::from(&c.transform)));
        self.shape_ids.clear();
        self.shape_ids.extend(colliders.iter().map(|c| c.shape));
        self.boxes.clear();
        self.boxes.extend(boxes.iter().map(AabbGpu::from));
        self.scratch.clear();
        self.valid = true;
        Upload::Whole
    }

    /// Writes every collider whole to the device's buffers; returns the bytes.
    pub(super) fn write_whole(&self, queue: &wgpu::Queue, to: ColliderBuffers<'_>) -> u64 {
        queue.write_buffer(to.poses, 0, bytemuck::cast_slice(&self.poses));
        queue.write_buffer(to.shape_ids, 0, bytemuck::cast_slice(&self.shape_ids));
        queue.write_buffer(to.boxes, 0, bytemuck::cast_slice(&self.boxes));
        WHOLE_BYTES * self.poses.len() as u64
    }

    /// Writes this call's updates and records their scatter in `encoder`, before the work
    /// that reads the buffers; returns the bytes written.
    pub(super) fn record_changed(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        to: ColliderBuffers<'_>,
        cap: u64,
    ) -> u64 {
        let count = self.scratch.len();
        if count == 0 {
            return 0;
        }
        self.updates
            .reserve(device, UPDATE_BYTES * count as u64, cap);
        queue.write_buffer(&self.updates.buffer, 0, bytemuck::cast_slice(&self.scratch));
        let params = ScatterParamsGpu {
            count: count as u32,
            _pad: [0; 3],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let bound = [
            self.updates.buffer.clone(),
            to.poses.clone(),
            to.shape_ids.clone(),
            to.boxes.clone(),
        ];
        if self.binding.as_ref().is_none_or(|(b, _)| *b != bound) {
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-sat scatter_colliders"),
                layout: &self.layout,
                entries: &[
                    entire(0, &bound[0]),
                    entire(1, &bound[1]),
                    entire(2, &bound[2]),
                    entire(3, &bound[3]),
                    entire(4, &self.params),
                ],
            });
            self.binding = Some((bound, group));
        }
        if let Some((_, group)) = &self.binding {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sat scatter_colliders"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups((count as u32).div_ceil(WORKGROUP), 1, 1);
        }
        UPDATE_BYTES * count as u64 + size_of::<ScatterParamsGpu>() as u64
    }
}

/// The buffers the colliders live in on the device: the narrow phase's poses and shape ids
/// (the first words of its indices), the broad phase's boxes.
#[derive(Clone, Copy)]
pub(super) struct ColliderBuffers<'a> {
    pub(super) poses: &'a wgpu::Buffer,
    pub(super) shape_ids: &'a wgpu::Buffer,
    pub(super) boxes: &'a wgpu::Buffer,
}

/// Each update written where it belongs: the twin of `scatter_colliders` in
/// `shaders/scatter.wgsl`, which keeps the host's copy of the device's colliders.
pub(crate) fn scatter_colliders(
    updates: &[ColliderUpdateGpu],
    poses: &mut [PoseGpu],
    shape_ids: &mut [u32],
    boxes: &mut [AabbGpu],
) {
    for update in updates {
        let k = update.index as usize;
        poses[k] = update.pose;
        shape_ids[k] = update.shape;
        boxes[k] = update.aabb;
    }
}
