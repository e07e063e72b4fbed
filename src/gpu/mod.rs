//! The GPU narrow phase: [`GpuNarrowPhase`] runs `shaders/sat.wgsl` on a wgpu device,
//! [`GpuTimeOfImpact`] runs `shaders/toi.wgsl` (swept collision of fast bodies),
//! [`GpuRayCast`] runs `shaders/ray.wgsl` (ray casts against the colliders), and
//! [`request_device`] makes a device for programs that have none.

mod device;
mod host;
pub mod layout;
mod narrow_phase;
mod plumbing;
mod ray;
mod sat_pass;
mod toi;

pub use device::request_device;
pub use narrow_phase::{GpuNarrowPhase, LAYOUT_WGSL};
pub use ray::{GpuRayCast, RAY_WGSL};
pub use sat_pass::SAT_WGSL;
pub use toi::{GpuTimeOfImpact, TOI_WGSL};
