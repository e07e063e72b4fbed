//! Rays against shapes: [`cast_ray`] for one shape, [`cast_ray_pairs`] for a batch of
//! (ray, collider) pairs, checked by [`validate_rays`] (the GPU's batch is
//! [`crate::gpu::GpuRayCast`]). A world's queries (rays, points, boxes, shape overlaps and
//! casts through its bounding volume hierarchy) are methods of [`crate::World`]
//! ([`crate::World::cast_ray`] and the rest) and answer with the types here.

pub(crate) mod ray;

pub use crate::world::{WorldRayHit, WorldShapeHit};
pub use ray::{Ray, RayHit, cast_ray, cast_ray_pairs, validate_rays};
