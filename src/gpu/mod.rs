//! The GPU narrow phase: [`GpuNarrowPhase`] runs `shaders/sat.wgsl` on a wgpu device,
//! [`GpuTimeOfImpact`] runs `shaders/toi.wgsl` (swept collision of fast bodies),
//! [`GpuRayCast`] runs `shaders/ray.wgsl` (ray casts against the colliders),
//! [`GpuBroadPhase`] runs `shaders/sort_sweep.wgsl` (the broad phase: sort-based sweep and
//! prune, with `radix_sort.wgsl` and `scan.wgsl`; its persistent pairs with
//! `pair_set.wgsl`), [`GpuCollision`] runs both, the pairs
//! staying on the device (the collision stage: colliders in, contacts out), and
//! [`request_device`] makes a device for programs that have none.

mod broad_phase;
pub(crate) mod collision;
pub(crate) mod contact_input;
mod device;
mod growing_buffer;
mod host;
pub mod layout;
mod narrow_phase;
mod place;
mod plan;
mod plumbing;
mod ray;
mod sat_pass;
mod scatter;
mod toi;
pub(crate) mod world;

pub(crate) use place::PlacedBoxes;

pub use broad_phase::{
    GpuBroadPhase, LBVH_WGSL, PAIR_SET_WGSL, RADIX_SORT_WGSL, SCAN_WGSL, SORT_SWEEP_WGSL,
};
pub use collision::{GpuCollision, RECYCLE_WGSL};
pub use device::{request_device, without_indirect_validation};
pub use narrow_phase::{GpuNarrowPhase, LAYOUT_WGSL};
pub use place::PLACE_WGSL;
pub use ray::{GpuRayCast, RAY_WGSL};
pub use sat_pass::SAT_WGSL;
pub use scatter::SCATTER_WGSL;
pub use toi::{GpuTimeOfImpact, TOI_WGSL};
pub use world::{
    COLOURING_WGSL, DEFAULT_ROUNDS, GpuColouring, GpuColours, GpuStepTimes, GpuWorld, SOLVER_WGSL,
};
