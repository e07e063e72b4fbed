//! The colliders of the GPU world placed on the device (`shaders/place.wgsl`): a
//! collider's pose is its body's transform, which the world's solver writes there at the
//! end of each step, so the collision stage reads the poses from that buffer instead of
//! being sent those of the colliders that moved, and computes their boxes there.
//!
//! ```text
//! record(to, shapes, transforms, owners):
//!     the owners (a body slot per collider; UNPLACED for a removed one, whose pose the
//!     host sends) up when they changed: colliders added or removed
//!     place_poses: each placed collider's pose := transforms[owner]
//!     place_boxes: each collider's box := its shape's box at its pose, grown by half the
//!         speculative distance (World::update_colliders and GpuCollision::send_boxes,
//!         operation for operation)
//! ```
//!
//! The host still computes the same boxes: its own pair set reads them, and the sweep's
//! bands and entry count are fitted to them. `entry_total` (sort_sweep.wgsl) has the device
//! report the entries its boxes span; where that is not the host's count (an adapter that
//! rounds otherwise: docs/reliability.md), the call runs again with the host's boxes sent.

use crate::gpu::layout::PlaceParamsGpu;
use crate::gpu::plan::{BindKey, Kernel, KernelMaker, PARAMS_SLOT, Plan, RO, RW, record};
use crate::gpu::plumbing::GrowingBuffer;
use crate::gpu::scatter::ColliderBuffers;

/// The WGSL of the placement: the layouts, the transform helpers, then `shaders/place.wgsl`.
pub const PLACE_WGSL: &str = concat!(
    include_str!("../../shaders/layout.wgsl"),
    include_str!("../../shaders/transform.wgsl"),
    include_str!("../../shaders/place.wgsl")
);

/// Invocations per workgroup of both kernels.
const WORKGROUP: u32 = 64;
/// The uniform's binding and size.
const PLACE_PARAMS: (u32, usize) = (6, size_of::<PlaceParamsGpu>());

/// The boxes a collision call placed on the device, for the GPU world's pair set to grow
/// its fat boxes from there (`fatten` in `shaders/pair_set.wgsl`): the broad phase's boxes
/// (`array<vec4<f32>>`, each collider's box grown by half the speculative distance: the
/// world's broad-phase boxes) and each collider's owner (a body slot, or `UNPLACED` for a
/// removed collider, whose box there is not the world's). Handles to the call's buffers:
/// their contents are the call's until the next call.
#[derive(Clone, Debug)]
pub(crate) struct PlacedBoxes {
    pub(crate) boxes: wgpu::Buffer,
    pub(crate) owners: wgpu::Buffer,
}

/// The placement's kernels, its owners on the device (and the host's copy) and the
/// uniforms of its two dispatches.
pub(super) struct PlacedColliders {
    place_poses: Kernel,
    place_boxes: Kernel,
    owners: GrowingBuffer,
    /// What the device's owners buffer holds; `None` when unknown.
    held: Option<Vec<u32>>,
    params: GrowingBuffer,
    bind_groups: Vec<(BindKey, wgpu::BindGroup)>,
}

impl PlacedColliders {
    pub(super) fn new(device: &wgpu::Device) -> PlacedColliders {
        let make = KernelMaker::new(device, 0);
        let module = make.module("place", PLACE_WGSL);
        let poses = [(2, RO), (3, RO), (4, RW)];
        let boxes = [(0, RO), (1, RO), (4, RW), (5, RW)];
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let uniform = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        PlacedColliders {
            place_poses: make.kernel(&module, "place_poses", &poses, PLACE_PARAMS),
            place_boxes: make.kernel(&module, "place_boxes", &boxes, PLACE_PARAMS),
            owners: GrowingBuffer::new(device, "wgpu-sat collider owners", storage),
            held: None,
            params: GrowingBuffer::new(device, "wgpu-sat place params", uniform),
            bind_groups: Vec::new(),
        }
    }

    /// Buffers created so far.
    pub(super) fn buffers_created(&self) -> u64 {
        self.owners.created + self.params.created
    }

    /// The owners' buffer (see [`PlacedBoxes`]).
    pub(super) fn owners_buffer(&self) -> &wgpu::Buffer {
        &self.owners.buffer
    }

    /// Forgets the device's owners (after an error): the next call sends them.
    pub(super) fn invalidate(&mut self) {
        self.held = None;
        self.bind_groups.clear();
    }

    /// Records the placement of `owners.len()` colliders in `encoder` (before the work
    /// that reads their poses and boxes) in a pass of its own (with `timestamps`), from
    /// the shape table and the bodies' transforms (`from`), into `to`; returns the bytes
    /// written to the queue.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        to: ColliderBuffers<'_>,
        (shapes, transforms): (&wgpu::Buffer, &wgpu::Buffer),
        owners: &[u32],
        half_margin: f32,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> u64 {
        let mut sent = 0;
        let bytes = size_of_val(owners) as u64;
        let replaced = self.owners.reserve(device, bytes, u64::MAX);
        if replaced || self.held.as_deref() != Some(owners) {
            queue.write_buffer(&self.owners.buffer, 0, bytemuck::cast_slice(owners));
            self.held = Some(owners.to_vec());
            sent += bytes;
        }
        let params = PlaceParamsGpu {
            count: owners.len() as u32,
            never: 0,
            half_margin,
            _pad: 0,
        };
        let groups = (owners.len() as u32).div_ceil(WORKGROUP);
        let mut plan = Plan::default();
        let owned = &self.owners.buffer;
        let pose_bindings = [(2, owned), (3, transforms), (4, to.poses)];
        plan.push(&self.place_poses, &pose_bindings, params, groups);
        let box_bindings = [(0, shapes), (1, to.shape_ids), (4, to.poses), (5, to.boxes)];
        plan.push(&self.place_boxes, &box_bindings, params, groups);
        self.params.reserve(device, 2 * PARAMS_SLOT, u64::MAX);
        let cache = &mut self.bind_groups;
        sent += record(
            device,
            queue,
            encoder,
            &self.params,
            cache,
            plan,
            timestamps,
        );
        sent
    }
}
