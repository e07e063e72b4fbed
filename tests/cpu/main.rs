//! The integration tests that need no GPU, one module per former test binary (each was
//! `tests/<name>.rs`), in one binary so that a change to the library relinks it once.
//! `cargo test --no-default-features` runs it too: the modules that need the `scenes`
//! feature are gated on it, and those that also check the GPU narrow phase gate those cases
//! with `#[cfg(feature = "gpu")]` inside. The GPU tests are `tests/gpu`. Binaries of their
//! own: `tests/allocations.rs` and `tests/removal.rs`, which count the heap with a global
//! allocator, and `tests/no_adapter.rs`, which sets environment variables.

#[path = "../common/mod.rs"]
mod common;

mod bodies_common;

// `snapshot_roundtrip`'s copy of the fuzz harness's `roundtrip.rs` names this module
// `crate::hostile`, as in the fuzz example, so it sits at the crate root.
#[path = "../../examples/fuzz/hostile.rs"]
#[allow(dead_code)]
mod hostile;

mod bodies;
mod bodies_forces;
mod bodies_kinematic;
mod bodies_teleport;
mod broad_phase;
mod continuous;
mod decompose;
mod events;
mod fuzz_regressions;
mod materials;
mod platform_math;
mod properties;
mod queries;
mod rounded_queries;
mod rounded_shapes;
mod rounded_world_queries;
mod sat_cases;
mod sat_circles;
mod shapes;
mod sleep;
mod snapshot_roundtrip;
mod speculative;
mod toi;
mod world;

#[cfg(feature = "scenes")]
mod box2d_scenes;
#[cfg(feature = "scenes")]
mod determinism;
#[cfg(feature = "scenes")]
mod golden;
#[cfg(feature = "scenes")]
mod joint_scenes;
#[cfg(feature = "scenes")]
mod joints;
#[cfg(feature = "scenes")]
mod level;
#[cfg(feature = "scenes")]
mod pairs;
#[cfg(feature = "scenes")]
mod recycling;
#[cfg(feature = "scenes")]
mod snapshot;
#[cfg(feature = "scenes")]
mod solver_threads;
#[cfg(feature = "scenes")]
mod world_faults;
