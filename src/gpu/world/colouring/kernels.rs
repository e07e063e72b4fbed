//! The colouring's kernels: `shaders/colouring.wgsl`'s entry points with their bindings,
//! and the scan's and the radix sort's they run (`scan.wgsl`, `radix_sort.wgsl`), built
//! once per device.

use super::{
    ADJACENCY, ARGS, COLOURING_WGSL, CONTACT_WORDS, FRESH, INPUT, INPUT_OUT, ITEMS, JOINT_ORDER,
    NEXT, OFFSETS, ORDER, PACKED, PARAMS, PREVIOUS, RANGES, SOLVE_ARGS, SORTED, STATE_WORDS, WORK,
};
use crate::gpu::broad_phase::{RADIX_SORT_WGSL, SCAN_WGSL};
use crate::gpu::layout::{RadixParamsGpu, ScanParamsGpu};
use crate::gpu::plan::{Kernel, KernelMaker, RO, RW};

/// The colouring's pipelines, one per entry point.
pub(super) struct Kernels {
    pub(super) scan_reduce: Kernel,
    pub(super) scan_tiles: Kernel,
    pub(super) radix_count: Kernel,
    pub(super) radix_scatter: Kernel,
    pub(super) colour_clear: Kernel,
    pub(super) colour_start: Kernel,
    pub(super) adjacency_fill: Kernel,
    pub(super) keep_round: Kernel,
    pub(super) keep_finish: Kernel,
    pub(super) fresh_flags: Kernel,
    pub(super) fresh_compact: Kernel,
    pub(super) shuffle: Kernel,
    pub(super) fresh_visit: Kernel,
    pub(super) fresh_round: Kernel,
    pub(super) fresh_finish: Kernel,
    pub(super) colour_store: Kernel,
    pub(super) order_store: Kernel,
    pub(super) colour_ranges: Kernel,
    pub(super) joint_order_store: Kernel,
    pub(super) colour_pack: Kernel,
    pub(super) colour_input: Kernel,
}

impl Kernels {
    /// Every pipeline on `device`.
    pub(super) fn new(device: &wgpu::Device) -> Kernels {
        // From 64: the GPU world's solver pass holds these after its own (from 0).
        let make = KernelMaker::new(device, 64);
        let scan = make.module("scan", SCAN_WGSL);
        let radix = make.module("radix_sort", RADIX_SORT_WGSL);
        let colouring = make.module("colouring", COLOURING_WGSL);
        let kernel = |module, entry, bindings: &[(u32, bool)], params| {
            make.kernel(module, entry, bindings, params)
        };
        let scan_params = (2, size_of::<ScanParamsGpu>());
        let radix_params = (3, size_of::<RadixParamsGpu>());
        let walk = [(INPUT, RO), (OFFSETS, RW), (ADJACENCY, RW), (WORK, RW)];
        let list = [(WORK, RW), (FRESH, RW)];
        let colour = |entry, bindings: &[(u32, bool)]| kernel(&colouring, entry, bindings, PARAMS);
        Kernels {
            scan_reduce: kernel(&scan, "scan_reduce", &[(0, RW), (1, RW)], scan_params),
            scan_tiles: kernel(&scan, "scan_tiles", &[(0, RW), (1, RW)], scan_params),
            radix_count: kernel(&radix, "radix_count", &[(0, RO), (1, RW)], radix_params),
            radix_scatter: kernel(
                &radix,
                "radix_scatter",
                &[(0, RO), (1, RW), (2, RW)],
                radix_params,
            ),
            colour_clear: colour(
                "colour_clear",
                &[(OFFSETS, RW), (ADJACENCY, RW), (WORK, RW)],
            ),
            colour_start: colour(
                "colour_start",
                &[(INPUT, RO), (PREVIOUS, RO), (OFFSETS, RW), (WORK, RW)],
            ),
            adjacency_fill: colour(
                "adjacency_fill",
                &[(INPUT, RO), (OFFSETS, RW), (ADJACENCY, RW)],
            ),
            keep_round: colour("keep_round", &walk),
            keep_finish: colour("keep_finish", &walk),
            fresh_flags: colour("fresh_flags", &list),
            fresh_compact: colour("fresh_compact", &list),
            shuffle: colour("shuffle", &[(WORK, RW), (FRESH, RW), (ARGS, RW)]),
            fresh_visit: colour("fresh_visit", &list),
            fresh_round: colour("fresh_round", &walk),
            fresh_finish: colour("fresh_finish", &walk),
            colour_store: colour(
                "colour_store",
                &[(INPUT, RO), (WORK, RW), (NEXT, RW), (ITEMS, RW)],
            ),
            order_store: colour("order_store", &[(SORTED, RO), (ORDER, RW)]),
            colour_ranges: colour(
                "colour_ranges",
                &[(SORTED, RO), (RANGES, RW), (SOLVE_ARGS, RW)],
            ),
            joint_order_store: colour(
                "joint_order_store",
                &[(INPUT, RO), (SORTED, RO), (RANGES, RW), (JOINT_ORDER, RW)],
            ),
            colour_pack: colour("colour_pack", &[(WORK, RW), (PACKED, RW)]),
            colour_input: colour(
                "colour_input",
                &[(INPUT_OUT, RW), (STATE_WORDS, RO), (CONTACT_WORDS, RO)],
            ),
        }
    }
}
