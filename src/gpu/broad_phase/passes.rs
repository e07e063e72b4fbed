//! The GPU broad phase's pipelines (one per entry point of `scan.wgsl`, `radix_sort.wgsl`
//! and `sort_sweep.wgsl`, each with a bind group layout of the bindings it uses) and its
//! buffers, with the dispatches of a scan and of a radix sort, level by level and pass by
//! pass as the CPU twins run them (`src/broad_phase/scan.rs`, `radix_sort.rs`).

use super::{RADIX_SORT_WGSL, SCAN_LEVELS, SCAN_WGSL, SORT_SWEEP_WGSL};
use crate::broad_phase::radix_sort::{RADIX_DIGITS, radix_tile_count};
use crate::broad_phase::scan::scan_tile_count;
use crate::gpu::layout::{PairDispatchGpu, RadixParamsGpu, ScanParamsGpu, SweepParamsGpu};
use crate::gpu::plan::{
    Kernel, KernelMaker, PARAMS_SLOT, Plan, RO, RW, RadixKernels, push_radix_sort, push_scan,
};
use crate::gpu::plumbing::GrowingBuffer;

/// The pipelines, with the bind group layout each uses.
pub(super) struct Kernels {
    pub(super) scan_reduce: Kernel,
    pub(super) scan_tiles: Kernel,
    pub(super) radix_count: Kernel,
    pub(super) radix_scatter: Kernel,
    pub(super) box_keys: Kernel,
    pub(super) band_spans: Kernel,
    pub(super) band_entries: Kernel,
    pub(super) gather_boxes: Kernel,
    pub(super) sweep_count: Kernel,
    pub(super) sweep_write: Kernel,
    pub(super) pair_keys: Kernel,
    pub(super) gather_pairs: Kernel,
    pub(super) pair_args: Kernel,
    pub(super) entry_total: Kernel,
    /// The collision stage over a given pair set (`over_set.rs`).
    pub(super) set_fresh: Kernel,
    pub(super) set_compact: Kernel,
    pub(super) hash_boxes: Kernel,
}

/// The buffers a call uses, each grown on demand.
pub(super) struct Buffers {
    pub(super) boxes: GrowingBuffer,
    pub(super) sorted: GrowingBuffer,
    /// The boxes' (key, index) items, sorted in place between the two.
    pub(super) box_items: [GrowingBuffer; 2],
    /// The pairs' (key, index) items.
    pub(super) pair_items: [GrowingBuffer; 2],
    pub(super) counts: GrowingBuffer,
    pub(super) tile_counts: GrowingBuffer,
    pub(super) sums: [GrowingBuffer; SCAN_LEVELS],
    /// Zeros: the base of the scan's top level.
    pub(super) zero: wgpu::Buffer,
    pub(super) found: GrowingBuffer,
    pub(super) out: GrowingBuffer,
    /// `pair_args`' output (`PairDispatchGpu`): the narrow phase's indirect dispatch.
    pub(super) dispatch: wgpu::Buffer,
    pub(super) params: GrowingBuffer,
    pub(super) readback: GrowingBuffer,
    /// `hash_boxes`' sum.
    pub(super) hash: GrowingBuffer,
    /// `set_fresh`'s bits.
    pub(super) fresh: GrowingBuffer,
}

/// The uniform's binding in each module, and its size.
pub(in crate::gpu) const SCAN_PARAMS: (u32, usize) = (2, size_of::<ScanParamsGpu>());
const RADIX_PARAMS: (u32, usize) = (3, size_of::<RadixParamsGpu>());
const SWEEP_PARAMS: (u32, usize) = (6, size_of::<SweepParamsGpu>());

impl Kernels {
    pub(super) fn new(device: &wgpu::Device) -> Kernels {
        let make = KernelMaker::new(device, 0);
        let scan = make.module("scan", SCAN_WGSL);
        let radix = make.module("radix_sort", RADIX_SORT_WGSL);
        let sweep = make.module("sort_sweep", SORT_SWEEP_WGSL);
        let kernel = |module, entry, bindings: &[(u32, bool)], params| {
            make.kernel(module, entry, bindings, params)
        };
        Kernels {
            scan_reduce: kernel(&scan, "scan_reduce", &[(0, RW), (1, RW)], SCAN_PARAMS),
            scan_tiles: kernel(&scan, "scan_tiles", &[(0, RW), (1, RW)], SCAN_PARAMS),
            radix_count: kernel(&radix, "radix_count", &[(0, RO), (1, RW)], RADIX_PARAMS),
            radix_scatter: kernel(
                &radix,
                "radix_scatter",
                &[(0, RO), (1, RW), (2, RW)],
                RADIX_PARAMS,
            ),
            box_keys: kernel(&sweep, "box_keys", &[(0, RO), (1, RW)], SWEEP_PARAMS),
            band_spans: kernel(
                &sweep,
                "band_spans",
                &[(0, RO), (1, RW), (3, RW)],
                SWEEP_PARAMS,
            ),
            band_entries: kernel(
                &sweep,
                "band_entries",
                &[(0, RO), (1, RW), (3, RW), (7, RW)],
                SWEEP_PARAMS,
            ),
            gather_boxes: kernel(
                &sweep,
                "gather_boxes",
                &[(0, RO), (1, RW), (2, RW)],
                SWEEP_PARAMS,
            ),
            sweep_count: kernel(
                &sweep,
                "sweep_count",
                &[(1, RW), (2, RW), (3, RW)],
                SWEEP_PARAMS,
            ),
            sweep_write: kernel(
                &sweep,
                "sweep_write",
                &[(1, RW), (2, RW), (3, RW), (4, RW)],
                SWEEP_PARAMS,
            ),
            pair_keys: kernel(
                &sweep,
                "pair_keys",
                &[(1, RW), (3, RW), (4, RW)],
                SWEEP_PARAMS,
            ),
            gather_pairs: kernel(
                &sweep,
                "gather_pairs",
                &[(1, RW), (4, RW), (5, RW)],
                SWEEP_PARAMS,
            ),
            pair_args: kernel(&sweep, "pair_args", &[(3, RW), (8, RW)], SWEEP_PARAMS),
            entry_total: kernel(&sweep, "entry_total", &[(3, RW), (8, RW)], SWEEP_PARAMS),
            set_fresh: kernel(&sweep, "set_fresh", &[(3, RW), (10, RO)], SWEEP_PARAMS),
            set_compact: kernel(
                &sweep,
                "set_compact",
                &[(3, RW), (4, RW), (5, RW)],
                SWEEP_PARAMS,
            ),
            hash_boxes: kernel(&sweep, "hash_boxes", &[(0, RO), (9, RW)], SWEEP_PARAMS),
        }
    }
}

impl Buffers {
    pub(super) fn new(device: &wgpu::Device) -> Buffers {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |what: &str| {
            GrowingBuffer::new(device, format!("wgpu-sat broad phase {what}"), storage)
        };
        Buffers {
            boxes: buffer("boxes"),
            sorted: buffer("sorted boxes"),
            box_items: [buffer("box items"), buffer("box items 2")],
            pair_items: [buffer("pair items"), buffer("pair items 2")],
            counts: buffer("counts"),
            tile_counts: buffer("radix counts"),
            sums: [
                buffer("scan sums"),
                buffer("scan sums 2"),
                buffer("scan sums 3"),
            ],
            // Created zeroed, and no kernel writes it: the top level's base.
            zero: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat broad phase zero"),
                size: 256,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            found: buffer("found pairs"),
            out: buffer("pairs"),
            dispatch: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat broad phase pair dispatch"),
                size: size_of::<PairDispatchGpu>() as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            params: GrowingBuffer::new(
                device,
                "wgpu-sat broad phase params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat broad phase readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            hash: buffer("box hash"),
            fresh: buffer("fresh pair bits"),
        }
    }

    /// Buffers created so far, the zeros and the pair dispatch included.
    pub(super) fn created(&self) -> u64 {
        let grown = [
            &self.boxes,
            &self.sorted,
            &self.counts,
            &self.tile_counts,
            &self.found,
            &self.out,
            &self.params,
            &self.readback,
            &self.hash,
            &self.fresh,
        ];
        let pairs = self
            .box_items
            .iter()
            .chain(&self.pair_items)
            .chain(&self.sums);
        2 + grown
            .iter()
            .copied()
            .chain(pairs)
            .map(|b| b.created)
            .sum::<u64>()
    }

    /// Room for scans of up to `counts` counts, radix sorts of up to `items` items, and the
    /// uniforms of a submit of either (a generous bound on its dispatches).
    pub(super) fn reserve_scan(
        &mut self,
        device: &wgpu::Device,
        cap: u64,
        counts: usize,
        items: usize,
    ) {
        let radix_counts = RADIX_DIGITS * radix_tile_count(items);
        self.tile_counts
            .reserve(device, 4 * radix_counts as u64, cap);
        let mut len = counts.max(radix_counts);
        for level in &mut self.sums {
            len = scan_tile_count(len);
            level.reserve(device, 4 * len.max(1) as u64, cap);
        }
        // Per radix pass a count, a scatter and a scan of up to 2 * SCAN_LEVELS + 1
        // dispatches. A submit of the collision pipeline holds the most: the sort by left
        // edge (4 passes), by band (2) and of the pairs (at most 8), and a dozen others.
        let dispatches = (4 + 2 + 8) * (2 + 2 * SCAN_LEVELS + 1) + 16;
        self.params
            .reserve(device, dispatches as u64 * PARAMS_SLOT, u64::MAX);
    }

    /// Adds the dispatches of an exclusive scan of `len` counts of `data` (scan.rs's
    /// `exclusive_scan`, level `level` of the tile sums).
    pub(super) fn scan<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        data: &'a wgpu::Buffer,
        len: usize,
        level: usize,
    ) {
        let scan = [&kernels.scan_reduce, &kernels.scan_tiles];
        push_scan(plan, scan, &self.sums[level..], &self.zero, data, len);
    }

    /// Adds the passes of a radix sort of `len` items by their low `bits` bits (radix_sort.rs's
    /// `radix_sort`), starting in `items[start]`; returns which buffer holds the result.
    pub(super) fn radix_sort<'a>(
        &'a self,
        kernels: &'a Kernels,
        plan: &mut Plan<'a>,
        items: [&'a wgpu::Buffer; 2],
        start: usize,
        len: usize,
        bits: u32,
    ) -> usize {
        let radix = RadixKernels {
            count: &kernels.radix_count,
            scatter: &kernels.radix_scatter,
            scan: [&kernels.scan_reduce, &kernels.scan_tiles],
        };
        let counts = &self.tile_counts.buffer;
        let scans = (&self.sums[..], &self.zero);
        push_radix_sort(plan, &radix, counts, scans, items, start, len, bits)
    }
}
