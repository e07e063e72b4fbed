//! The narrow phase: one pair ([`collide`] for two polygons, [`collide_shapes`] for any two
//! shapes, each a [`Manifold`] with a normal from A to B, the depth of the minimum
//! translation vector and one or two [`ContactPoint`]s with feature ids), batches of pairs
//! behind the [`NarrowPhase`] trait ([`CpuNarrowPhase`], the reference, and
//! [`ParallelCpuNarrowPhase`] here, the GPU's in [`crate::gpu`]), and the swept test of
//! [`toi`] for fast bodies.
//!
//! ```text
//! collide_shapes(A, xa, B, xb):                                       collide_shapes.rs
//!     polygon-polygon   the SAT over both polygons' face normals; the axis of  sat.rs
//!                       least overlap is the reference face, the other shape's
//!                       most opposed face is clipped against it (1 or 2 points)
//!     circle-polygon    the polygon's face normals, and beyond a face's end    sat_circle.rs
//!                       the axis from that vertex to the centre (1 point)
//!     circle-circle     the line through the centres (1 point)
//!     any pair with a rounded polygon, a capsule, a segment or a chain link:
//!                       both as a core grown by a radius (rounded.rs), the SAT sat_rounded.rs
//!                       on the cores, the radii added to the depth
//! a batch (narrow_phase.rs): validate, then per pair: recycle the last manifold while the
//!     relative pose has barely moved (recycle.rs), else collide_shapes
//! the whole stage (find_contacts.rs): boxes grown by half the speculative distance, the
//!     broad phase, the narrow phase; the twin of the GPU collision pipeline
//! time of impact (toi/): a swept SAT refined by conservative advancement on the
//!     distance of distance.rs
//! ```
//!
//! `shaders/` mirrors this folder: `sat.wgsl` runs `collide_shapes`'s cases, `toi.wgsl`
//! the time of impact, each function named as its twin here.

pub(crate) mod collide_shapes;
pub(crate) mod distance;
pub(crate) mod find_contacts;
pub(crate) mod manifold;
pub(crate) mod narrow_phase;
pub(crate) mod recycle;
pub(crate) mod rounded;
pub(crate) mod sat;
pub(crate) mod sat_circle;
pub(crate) mod sat_rounded;
pub mod toi;

pub use collide_shapes::{collide_shapes, collide_shapes_speculative};
pub use find_contacts::find_contacts;
pub use manifold::{Contact, ContactPoint, Manifold, feature_id, vertex_pair_id};
pub use narrow_phase::{
    Collider, CpuNarrowPhase, MAX_SPECULATIVE_DISTANCE, NarrowPhase, NarrowPhaseTimings,
    ParallelCpuNarrowPhase, validate_batch,
};
pub use sat::{RELATIVE_TIE_TOLERANCE, collide};
pub use sat_circle::{
    CIRCLE_FEATURE, collide_circle_polygon, collide_circles, collide_polygon_circle,
};
pub use sat_rounded::CORNER_TOLERANCE;
