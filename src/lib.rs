//! wgpu-sat
pub use glam;

mod aabb;
mod broad_phase;
mod error;
pub mod gpu;
mod manifold;
mod narrow_phase;
mod sat;
mod shape;
mod transform;

pub use aabb::Aabb;
pub use broad_phase::BroadPhase;
pub use error::Error;
pub use gpu::{GpuNarrowPhase, request_device};
pub use manifold::{Contact, ContactPoint, Manifold, feature_id};
pub use narrow_phase::{Collider, CpuNarrowPhase, NarrowPhase, validate_batch};
pub use sat::{RELATIVE_TIE_TOLERANCE, collide};
pub use shape::{MAX_POLYGON_VERTICES, Polygon, ShapeError};
pub use transform::Transform;
