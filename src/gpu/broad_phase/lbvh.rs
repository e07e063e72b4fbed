//! The GPU broad phase through a linear BVH ([`GpuBroadPhase::find_pairs_lbvh`],
//! `shaders/lbvh.wgsl`; the CPU twin is `src/broad_phase/lbvh.rs`): the candidate the
//! sort-and-sweep was measured against, with the batch face's contract.
//!
//! ```text
//! find_pairs_lbvh(boxes):
//!     check every box; fewer than two: no pair; the centres' bounds on the host
//!     boxes (16 B each) -> `boxes`
//!     submit 1: morton_keys, radix sort by code (4 passes), build_nodes, leaf_boxes,
//!               refit, walk_count, scan of the counts; copy the total (4 B) back
//!     submit 2: walk_write, then the pairs in order as the sweep's (pair_keys, radix
//!               sort, gather_pairs); copy the pairs (8 B each) back
//! ```
//!
//! It shares the sweep's buffers (boxes, items, counts, found pairs, output) and adds the
//! tree's: nodes, parents, node boxes and the refit's counters.

use super::{GpuBroadPhase, Link, groups, submit_for_pairs, submit_for_total};
use crate::broad_phase::lbvh::MortonFrame;
use crate::error::Error;
use crate::gpu::layout::{LbvhNodeGpu, LbvhParamsGpu, SweepParamsGpu};
use crate::gpu::plan::{BindKey, Kernel, Plan, RO, RW};
use crate::gpu::plumbing::{GrowingBuffer, TIMESTAMP_BYTES};
use crate::shapes::aabb::Aabb;

/// The WGSL of the LBVH (`shaders/lbvh.wgsl`).
pub const LBVH_WGSL: &str = include_str!("../../../shaders/lbvh.wgsl");

/// The uniform's binding in `lbvh.wgsl`, and its size.
const LBVH_PARAMS: (u32, usize) = (8, size_of::<LbvhParamsGpu>());
/// Kernel ids past the sweep's and the persistent face's.
const FIRST_ID: u8 = 120;

/// `lbvh.wgsl`'s pipelines, and the tree's buffers.
pub(super) struct Lbvh {
    morton_keys: Kernel,
    build_nodes: Kernel,
    leaf_boxes: Kernel,
    refit: Kernel,
    walk_count: Kernel,
    walk_write: Kernel,
    nodes: GrowingBuffer,
    parents: GrowingBuffer,
    node_boxes: GrowingBuffer,
    arrived: GrowingBuffer,
    /// The bind groups of the two submits' dispatches, by position.
    bind_groups: [Vec<(BindKey, wgpu::BindGroup)>; 2],
}

impl Lbvh {
    fn new(device: &wgpu::Device) -> Lbvh {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat lbvh.wgsl"),
            source: wgpu::ShaderSource::Wgsl(LBVH_WGSL.into()),
        });
        let kernel = |entry, bindings: &[(u32, bool)], id| {
            Kernel::new(device, &module, entry, bindings, LBVH_PARAMS, FIRST_ID + id)
        };
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let buffer =
            |what: &str| GrowingBuffer::new(device, format!("wgpu-sat lbvh {what}"), storage);
        let walk = [(2, RW), (4, RW), (6, RW), (7, RW)];
        Lbvh {
            morton_keys: kernel("morton_keys", &[(0, RO), (1, RW)], 0),
            build_nodes: kernel("build_nodes", &[(1, RW), (2, RW), (3, RW), (5, RW)], 1),
            leaf_boxes: kernel("leaf_boxes", &[(0, RO), (1, RW), (2, RW), (4, RW)], 2),
            refit: kernel("refit", &[(2, RW), (3, RW), (4, RW), (5, RW)], 3),
            walk_count: kernel("walk_count", &walk, 4),
            walk_write: kernel("walk_write", &walk, 5),
            nodes: buffer("nodes"),
            parents: buffer("parents"),
            node_boxes: buffer("node boxes"),
            arrived: buffer("refit counters"),
            bind_groups: [Vec::new(), Vec::new()],
        }
    }

    /// Buffers created so far.
    pub(super) fn created(&self) -> u64 {
        [&self.nodes, &self.parents, &self.node_boxes, &self.arrived]
            .iter()
            .map(|b| b.created)
            .sum()
    }
}

impl GpuBroadPhase {
    /// The pairs of [`find_pairs`](Self::find_pairs), found through a linear BVH built on
    /// the GPU (Morton codes, Karras's parallel build, a bottom-up refit, one walk per box)
    /// instead of the sort-and-sweep: the measured alternative (`docs/performance.md`
    /// says why the sweep is the one the crate uses). Same order, same errors.
    ///
    /// The refit reads boxes that other invocations of the same dispatch wrote, ordered
    /// only by an atomic counter; WGSL promises no such ordering, which the GPUs this runs
    /// on give through a coherent cache. The tests check the pairs on the adapter at hand.
    pub fn find_pairs_lbvh(&mut self, aabbs: &[Aabb]) -> Result<&[[u32; 2]], Error> {
        self.batch_call(aabbs, Self::run_lbvh)
    }

    /// A call over at least two valid boxes, with the tree's state made when missing.
    fn run_lbvh(&mut self, aabbs: &[Aabb]) -> Result<(), Error> {
        let mut tree = match self.lbvh.take() {
            Some(tree) => tree,
            None => Box::new(Lbvh::new(&self.device)),
        };
        let result = self.run_lbvh_with(&mut tree, aabbs);
        self.lbvh = Some(tree);
        result
    }

    fn run_lbvh_with(&mut self, tree: &mut Lbvh, aabbs: &[Aabb]) -> Result<(), Error> {
        let n = aabbs.len();
        let nodes = 2 * n - 1;
        self.check_fits("boxes", nodes, size_of::<LbvhNodeGpu>())?;
        let frame = MortonFrame::fit(aabbs);
        let params = LbvhParamsGpu {
            len: n as u32,
            low: frame.low,
            scale: frame.scale,
            ..LbvhParamsGpu::default()
        };
        let (device, cap) = (&self.device, self.max_binding);
        let b = &mut self.buffers;
        b.boxes.reserve(device, 16 * n as u64, cap);
        for items in &mut b.box_items {
            items.reserve(device, 8 * n as u64, cap);
        }
        b.counts.reserve(device, 4 * (n as u64 + 1), cap);
        b.reserve_scan(device, cap, n + 1, n);
        b.readback.reserve(device, 8 + TIMESTAMP_BYTES, cap);
        tree.nodes.reserve(device, 16 * nodes as u64, cap);
        tree.parents.reserve(device, 4 * nodes as u64, cap);
        tree.node_boxes.reserve(device, 16 * nodes as u64, cap);
        tree.arrived.reserve(device, 4 * n as u64, cap);
        self.write_boxes(aabbs);

        // Submit 1: the tree and the pair counts.
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let items = [&buffers.box_items[0].buffer, &buffers.box_items[1].buffer];
        let (boxes, counts, found) = (
            &buffers.boxes.buffer,
            &buffers.counts.buffer,
            &buffers.found.buffer,
        );
        let (node_buf, parents) = (&tree.nodes.buffer, &tree.parents.buffer);
        let (node_boxes, arrived) = (&tree.node_boxes.buffer, &tree.arrived.buffer);
        let walk = [(2, node_buf), (4, node_boxes), (6, counts), (7, found)];
        let mut plan = Plan::default();
        plan.push(
            &tree.morton_keys,
            &[(0, boxes), (1, items[0])],
            params,
            groups(n),
        );
        let sorted = buffers.radix_sort(kernels, &mut plan, items, 0, n, 32);
        plan.push(
            &tree.build_nodes,
            &[
                (1, items[sorted]),
                (2, node_buf),
                (3, parents),
                (5, arrived),
            ],
            params,
            groups(n - 1),
        );
        plan.push(
            &tree.leaf_boxes,
            &[
                (0, boxes),
                (1, items[sorted]),
                (2, node_buf),
                (4, node_boxes),
            ],
            params,
            groups(n),
        );
        plan.push(
            &tree.refit,
            &[(2, node_buf), (3, parents), (4, node_boxes), (5, arrived)],
            params,
            groups(n),
        );
        plan.push(&tree.walk_count, &walk, params, groups(n + 1));
        buffers.scan(kernels, &mut plan, counts, n + 1, 0);
        let link = Link::new(&self.device, &self.queue, self.timers[0].as_ref());
        let (total, kernel) = submit_for_total(link, buffers, &mut tree.bind_groups[0], plan, n)?;
        self.kernel = kernel;
        if total == 0 {
            return Ok(());
        }

        // Submit 2: the pairs, in order.
        self.check_fits("pairs", total, size_of::<[u32; 2]>())?;
        self.reserve_pairs(total, true);
        let (kernels, buffers) = (&self.kernels, &self.buffers);
        let (counts, found) = (&buffers.counts.buffer, &buffers.found.buffer);
        let walk = [
            (2, &tree.nodes.buffer),
            (4, &tree.node_boxes.buffer),
            (6, counts),
            (7, found),
        ];
        let mut plan = Plan::default();
        plan.push(&tree.walk_write, &walk, params, groups(n));
        let room = SweepParamsGpu {
            len: n as u32,
            side: 0,
            first: 0,
            bits: 0,
            origin: 0.0,
            inv_height: 0.0,
            band_count: 1,
            // pair_keys reads the total at counts[entry_count]: the leaves' scan's end.
            entry_count: n as u32,
            capacity: total as u32,
            row_groups: self.max_workgroups,
            _pad: [0; 2],
        };
        buffers.plan_pair_order(kernels, &mut plan, n, room);
        let link = Link::new(&self.device, &self.queue, self.timers[1].as_ref());
        let cache = &mut tree.bind_groups[1];
        let second = submit_for_pairs(link, buffers, cache, plan, total, &mut self.pairs)?;
        self.kernel = self.kernel.zip(second).map(|(a, b)| a + b);
        Ok(())
    }
}
