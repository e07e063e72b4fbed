//! The GPU world's solver's kernels: the WGSL they are compiled from, the bindings as
//! `solver.wgsl`, `contacts.wgsl` and `joints.wgsl` number them, each kernel's bindings,
//! their uniform, and the transforms buffer they write.

use super::super::layout::{CUSTOM_FORCES, SolverParamsGpu};
use super::GpuSolver;
use crate::dynamics::solver::{SPECULATIVE_DISTANCE, StepView};
use crate::gpu::plan::{Kernel, KernelMaker, RO, RW};

/// The WGSL of the GPU world's solver: the layouts, the transform helpers, the box hash,
/// the contacts' inputs, the bodies' records (`bodies.wgsl`), then `shaders/solver.wgsl`
/// (its structs and the body passes), `contacts.wgsl`,
/// `u64.wgsl` and `soft_f64.wgsl` (the joint angle), `joints.wgsl`, `joint_prepare.wgsl`
/// and `slide.wgsl`.
pub const SOLVER_WGSL: &str = concat!(
    include_str!("../../../../shaders/layout.wgsl"),
    include_str!("../../../../shaders/transform.wgsl"),
    include_str!("../../../../shaders/box_hash.wgsl"),
    include_str!("../../../../shaders/contact_input.wgsl"),
    include_str!("../../../../shaders/bodies.wgsl"),
    include_str!("../../../../shaders/solver.wgsl"),
    include_str!("../../../../shaders/contacts.wgsl"),
    include_str!("../../../../shaders/u64.wgsl"),
    include_str!("../../../../shaders/soft_f64.wgsl"),
    include_str!("../../../../shaders/joints.wgsl"),
    include_str!("../../../../shaders/joint_prepare.wgsl"),
    include_str!("../../../../shaders/slide.wgsl")
);

/// Invocations per workgroup, as the kernels declare.
pub(super) const WORKGROUP: u32 = 64;
/// The uniform's binding in `solver.wgsl`, and its size.
pub(super) const PARAMS: (u32, usize) = (7, size_of::<SolverParamsGpu>());
/// The bindings, as `solver.wgsl` numbers them.
pub(super) const STATES: u32 = 0;
pub(super) const CONSTRAINTS: u32 = 1;
pub(super) const ORDER: u32 = 2;
pub(super) const POSES: u32 = 3;
pub(super) const INFOS: u32 = 4;
pub(super) const TURNED: u32 = 5;
pub(super) const TRANSFORMS: u32 = 6;
pub(super) const JOINTS: u32 = 8;
pub(super) const JOINT_ORDER: u32 = 9;
pub(super) const STORED: u32 = 10;
pub(super) const COLOUR_RANGES: u32 = 11;
pub(super) const CONTACT_INPUTS: u32 = 12;
pub(super) const JOINT_IMPULSES: u32 = 13;
pub(super) const WARM_STARTS: u32 = 14;
pub(super) const LAST: u32 = 15;
pub(super) const JOINT_DEFS: u32 = 16;
pub(super) const JOINT_HASH: u32 = 17;

/// The kernels of `solver.wgsl`.
pub(super) struct Kernels {
    pub(super) clamp_bodies: Kernel,
    pub(super) unpack_contacts: Kernel,
    pub(super) prepare_contacts: Kernel,
    pub(super) integrate_velocities: Kernel,
    pub(super) warm_start: Kernel,
    pub(super) solve: Kernel,
    pub(super) integrate_positions: Kernel,
    pub(super) relax: Kernel,
    pub(super) restitution: Kernel,
    pub(super) store_impulses: Kernel,
    pub(super) store_joints: Kernel,
    pub(super) settle_bodies: Kernel,
    pub(super) write_transforms: Kernel,
    pub(super) joint_warm_start: Kernel,
    pub(super) joint_solve: Kernel,
    pub(super) joint_relax: Kernel,
    pub(super) prepare_joints: Kernel,
    pub(super) hash_joints: Kernel,
}

impl Kernels {
    pub(super) fn new(device: &wgpu::Device) -> Kernels {
        let make = KernelMaker::new(device, 0);
        let module = make.module("solver", SOLVER_WGSL);
        let kernel =
            |entry, bindings: &[(u32, bool)]| make.kernel(&module, entry, bindings, PARAMS);
        let colour = [
            (STATES, RW),
            (CONSTRAINTS, RW),
            (ORDER, RO),
            (COLOUR_RANGES, RO),
        ];
        let body = [(STATES, RW), (INFOS, RO)];
        let joint = [
            (STATES, RW),
            (JOINTS, RW),
            (JOINT_ORDER, RO),
            (COLOUR_RANGES, RO),
        ];
        Kernels {
            joint_warm_start: kernel("joint_warm_start", &joint),
            joint_solve: kernel("joint_solve", &joint),
            joint_relax: kernel("joint_relax", &joint),
            prepare_joints: kernel(
                "prepare_joints",
                &[(JOINTS, RW), (JOINT_DEFS, RO), (STATES, RW), (POSES, RW)],
            ),
            hash_joints: kernel("hash_joints", &[(JOINTS, RW), (JOINT_HASH, RW)]),
            clamp_bodies: kernel("clamp_bodies", &body),
            unpack_contacts: kernel(
                "unpack_contacts",
                &[(CONTACT_INPUTS, RO), (WARM_STARTS, RO), (CONSTRAINTS, RW)],
            ),
            prepare_contacts: kernel(
                "prepare_contacts",
                &[(STATES, RW), (CONSTRAINTS, RW), (POSES, RW), (INFOS, RO)],
            ),
            integrate_velocities: kernel("integrate_velocities", &body),
            warm_start: kernel("warm_start", &colour),
            solve: kernel("solve", &colour),
            integrate_positions: kernel(
                "integrate_positions",
                &[(STATES, RW), (POSES, RW), (INFOS, RO), (TURNED, RW)],
            ),
            relax: kernel("relax", &colour),
            restitution: kernel("restitution", &colour),
            store_impulses: kernel(
                "store_impulses",
                &[
                    (CONSTRAINTS, RW),
                    (STORED, RW),
                    (CONTACT_INPUTS, RO),
                    (LAST, RW),
                ],
            ),
            store_joints: kernel("store_joints", &[(JOINTS, RW), (JOINT_IMPULSES, RW)]),
            settle_bodies: kernel("settle_bodies", &[(STATES, RW)]),
            write_transforms: kernel(
                "write_transforms",
                &[(POSES, RW), (INFOS, RO), (TRANSFORMS, RW)],
            ),
        }
    }
}

impl GpuSolver {
    /// The uniform of a dispatch of `count` items from `first`, with `flags`.
    pub(super) fn params(
        view: &StepView<'_, '_>,
        first: usize,
        count: usize,
        flags: u32,
    ) -> SolverParamsGpu {
        let k = &view.constants;
        let soft =
            |s: &crate::dynamics::state::Softness| [s.bias_rate, s.mass_scale, s.impulse_scale];
        let custom = if view.motion.forces.is_some() {
            CUSTOM_FORCES
        } else {
            0
        };
        SolverParamsGpu {
            h: k.h,
            inv_h: 1.0 / k.h,
            gravity: k.gravity.to_array(),
            max_speed: k.max_speed,
            max_turn: k.max_turn,
            first: first as u32,
            count: count as u32,
            soft: soft(&view.soft),
            half_speculative: 0.5 * SPECULATIVE_DISTANCE,
            static_soft: soft(&view.static_soft),
            flags: flags | custom,
            never: 0,
            joint_soft: soft(&view.joint_soft),
        }
    }
}

/// A transforms buffer of `bytes`: storage for the step's kernel and a host's shaders,
/// vertex for a host's instances, copies for tests and readers.
pub(super) fn transforms_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgpu-sat body transforms"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    })
}

/// Workgroups for `count` invocations.
pub(super) fn groups(count: usize) -> u32 {
    (count as u32).div_ceil(WORKGROUP)
}
