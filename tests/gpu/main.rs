//! The integration tests of the GPU broad phase, narrow phase, ray casts and time of impact, one module
//! per former test binary (each was `tests/<name>.rs`), in one binary that needs the `gpu`
//! feature; the modules that also need the `scenes` feature are gated on it. They run on
//! whatever adapter exists and skip without one, unless `WGPU_SAT_REQUIRE_GPU=1` (CI) makes
//! that a failure.

#[path = "../common/mod.rs"]
mod common;

mod broad_phase;
mod circle_parity;
mod collision;
mod colouring;
mod gpu_fuzz_regressions;
mod gpu_parity;
mod gpu_rays;
mod pair_set;
mod rounded_parity;
mod soft_f64;
mod wgsl;

#[cfg(feature = "scenes")]
mod embed;
#[cfg(feature = "scenes")]
mod gpu_bits;
#[cfg(feature = "scenes")]
mod gpu_misuse;
#[cfg(feature = "scenes")]
mod gpu_world;
#[cfg(feature = "scenes")]
mod gpu_world_continuous;
#[cfg(feature = "scenes")]
mod gpu_world_placement;
