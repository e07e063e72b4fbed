//! # wgpu-sat
//!
//! A deterministic 2D rigid-body physics engine: a [`World`] of bodies (convex polygons,
//! sharp or rounded, circles, capsules, segments, chains, and concave outlines split into
//! convex pieces) and joints, stepped through a collision pipeline whose narrow phase runs
//! on the CPU or, in WGSL, on the GPU, with the same bits either way; continuous collision
//! for fast bodies, events, queries, sleeping and snapshots.
//!
//! ## A world
//!
//! ```
//! use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
//!
//! let mut world = World::default();
//! // Rectangles take half extents: the ground's top is at y = 0.
//! world.add_body(&BodyDef::fixed(Polygon::rectangle(10.0, 0.5), Vec2::new(0.0, -0.5)))?;
//! let box_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 4.0)))?;
//! let mut narrow = CpuNarrowPhase::new(); // or a GpuNarrowPhase on your device
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0, &mut narrow)?;
//! }
//! // Two seconds later the box rests on the ground, its centre half its height up.
//! assert!((world.center_of_mass(box_) - Vec2::new(0.0, 0.5)).length() < 0.02);
//! # Ok::<(), wgpu_sat::Error>(())
//! ```
//!
//! ## The pipeline, one step
//!
//! ```text
//! colliders (shape index + Transform)
//!   -> Shape::aabb per collider                        CPU
//!   -> BroadPhase::find_pairs -> [[a, b]], a < b       CPU, sweep-and-prune
//!   -> NarrowPhase::collide_pairs -> Vec<Contact>      CpuNarrowPhase (reference) or
//!                                                      GpuNarrowPhase (shaders/sat.wgsl)
//! ```
//!
//! Shapes are uploaded once ([`NarrowPhase::set_shape_table`]); each call then uploads only
//! the poses (16 bytes per collider) and the pairs (8 bytes each), runs one compute
//! invocation per pair, compacts the overlapping pairs on the GPU and reads back only those.
//! [`CpuNarrowPhase`] runs the same algorithm ([`collide_shapes`]) on the CPU; the tests hold
//! the two to the same answers.
//!
//! ## Conventions
//!
//! - **Shapes.** A [`Shape`] is one of five: a convex [`Polygon`] (sharp, or rounded by
//!   [`Polygon::with_radius`]), a [`Circle`] (a centre and a radius), a [`Capsule`], a
//!   [`Segment`], or a [`ChainSegment`](shapes::ChainSegment) (one link of
//!   [`BodyShape::chain`]); a shape table ([`NarrowPhase::set_shape_table`]) may mix them,
//!   and [`collide_shapes`] takes any two.
//!   A circle against a polygon is tested on the polygon's face normals and, beyond a
//!   face's end, the axis from that vertex to the centre; two circles on the line through
//!   their centres.
//! - **Frames.** A shape lives in its local frame; a [`Transform`] maps local to world
//!   (`world = R(angle) local + translation`). Everything a [`Manifold`] reports is in the
//!   world frame.
//! - **Winding.** Polygon vertices are counter-clockwise; `normals()[i]` is the outward unit
//!   normal of the edge from vertex `i` to vertex `i + 1`.
//! - **Normal.** [`Manifold::normal`] points from A to B (from the first collider of a pair to
//!   the second).
//! - **Depth.** [`Manifold::depth`] is the length of the minimum translation vector: moving B
//!   by `normal * depth` separates the pair. It is positive; polygons that only touch (zero
//!   overlap on some axis) do not collide.
//! - **Feature ids.** Each [`ContactPoint`] carries an id built from the features in touch
//!   (see [`collision::feature_id`]), stable while they stay in touch, for warm-starting a
//!   solver. A circle's feature is [`collision::CIRCLE_FEATURE`]; against a polygon the id
//!   names the polygon's face (end 0) or vertex (end 1), with the flip bit set when the
//!   circle is A. Circle contacts have one point, halfway between the surfaces.
//!
//! ## Example: one pair on the CPU
//!
//! ```
//! use wgpu_sat::{collide, glam::Vec2, Polygon, Transform};
//!
//! let ground = Polygon::rectangle(5.0, 0.5);
//! let crate_ = Polygon::regular(6, 0.5)?;
//! let m = collide(&ground, &Transform::IDENTITY,
//!                 &crate_, &Transform::new(Vec2::new(0.0, 0.9), 0.0))
//!     .expect("they overlap");
//! assert!((m.normal - Vec2::Y).length() < 1e-6);  // from the ground up to the crate
//! assert!((m.depth - 0.033).abs() < 1e-3);         // push the crate up by this much
//! assert_eq!(m.points().len(), 2);                 // its flat bottom rests on the ground
//! # Ok::<(), wgpu_sat::ShapeError>(())
//! ```
//!
//! ## Example: a batch on the GPU
//!
//! ```no_run
//! # #[cfg(feature = "gpu")] {
//! use wgpu_sat::{glam::Vec2, Aabb, BroadPhase, Collider, GpuNarrowPhase, NarrowPhase,
//!                Polygon, Transform};
//!
//! let shapes = [Polygon::rectangle(0.5, 0.5), Polygon::regular(5, 0.6)?];
//! let colliders: Vec<Collider> = (0..1000)
//!     .map(|i| Collider {
//!         shape: i % 2,
//!         transform: Transform::new(Vec2::new((i % 40) as f32 * 0.9, (i / 40) as f32 * 0.9), i as f32),
//!     })
//!     .collect();
//!
//! let (device, queue) = wgpu_sat::request_device()?;   // or your renderer's device
//! let mut narrow = GpuNarrowPhase::new(&device, &queue)?;
//! narrow.set_shapes(&shapes)?;                           // uploaded once
//!
//! let aabbs: Vec<Aabb> = colliders.iter()
//!     .map(|c| shapes[c.shape as usize].aabb(&c.transform))
//!     .collect();
//! let mut broad = BroadPhase::new();
//! let contacts = narrow.collide_pairs(&colliders, broad.find_pairs(&aabbs))?;
//! for c in &contacts {
//!     println!("{} touches {}: depth {}", c.a, c.b, c.manifold.depth);
//! }
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Circles and concave outlines
//!
//! - [`Circle`] sits beside [`Polygon`] in the [`Shape`] enum; [`collide_shapes`] handles
//!   every pair (circle–polygon by the SAT with the polygon's normals and the axis from its
//!   nearest vertex to the centre, circle–circle directly), and so do both narrow phases
//!   given a mixed table ([`NarrowPhase::set_shape_table`]).
//! - [`decompose`] splits a simple concave outline into convex pieces of at most
//!   [`MAX_POLYGON_VERTICES`] vertices; [`BodyShape::concave`] makes a world body of them.
//!
//! ## Simulation
//!
//! [`World`] steps rigid bodies through the same pipeline ([`World::step`] takes either
//! narrow phase) and an impulse solver with soft contacts, friction, restitution and warm
//! starting by feature id, then sweeps bullets and fast bodies so they do not tunnel.
//! Bodies are polygons, circles or several convex pieces ([`BodyShape`]), named by the
//! generational handle [`World::add_body`] returns ([`BodyId`]; each convex piece by a
//! [`ColliderId`]), which stays stale once [`World::remove_body`] has removed the body, even
//! after another body takes its slot. [`scenes`] builds
//! the worlds the examples, benches and tests share (`mixed`, `pile`, `pyramid`,
//! `large_pyramid`).
//!
//! ## Continuous collision
//!
//! A body fast enough to cross a thin wall between two steps is caught by
//! [`time_of_impact`]: given each body's motion over the step as a [`Sweep`] (its centre
//! on a line, its angle changing linearly), it returns the first fraction of the step at
//! which the shapes come within a small tolerance of each other, never later than they
//! first overlap (a swept separating-axis test, refined by conservative advancement; see
//! the function). [`collision::toi::time_of_impact_pairs`] runs a batch on the CPU and
//! [`gpu::GpuTimeOfImpact`] the same batch on the GPU (`shaders/toi.wgsl`).
//!
//! ## Embedding in a renderer
//!
//! On the host's own device, without blocking its frame: [`GpuNarrowPhase::prepare`] writes
//! the poses and pairs to the queue, [`GpuNarrowPhase::record`] records the kernels into the
//! host's encoder, the results stay in GPU buffers ([`GpuNarrowPhase::contacts_buffer`],
//! [`GpuNarrowPhase::touching_buffer`], whose WGSL structs are [`gpu::LAYOUT_WGSL`]), and
//! [`GpuNarrowPhase::request_readback`] / [`GpuNarrowPhase::poll_readback`] bring the
//! contacts back when wanted, without waiting.
//!
//! ## Events, sensors, filters and queries
//!
//! After each [`World::step`], [`World::events`] lists the contacts that began (with their
//! manifolds) and ended, the hits faster than [`World::set_hit_event_threshold`], and what
//! entered and left each sensor ([`BodyDef::is_sensor`]); [`Filter`]s decide in the broad
//! phase which colliders may touch; [`World::cast_ray`], [`World::cast_ray_all`],
//! [`World::colliders_at`], [`World::colliders_in_aabb`], [`World::overlap_shape`] and
//! [`World::cast_shape`] query the world through a bounding volume hierarchy, and
//! [`gpu::GpuRayCast`] casts batches of rays on the GPU. A sensor that counts crates:
//!
//! ```
//! use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Filter, Polygon, World};
//! let mut world = World::default();
//! world.add_body(&BodyDef::fixed(Polygon::rectangle(10.0, 0.5), Vec2::new(0.0, -0.5)))?;
//! let gate = world.add_body(&BodyDef {
//!     is_sensor: true,
//!     ..BodyDef::fixed(Polygon::rectangle(3.0, 0.1), Vec2::new(0.0, 2.0))
//! })?;
//! // Ghosts are in category 2 and touch nothing of category 1 (the ground, the crate).
//! let ghost = Filter { category_bits: 2, mask_bits: 2, group_index: 0 };
//! let crate_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.4, 0.4), Vec2::new(-1.0, 4.0)))?;
//! let ghost = world.add_body(&BodyDef { filter: ghost, ..BodyDef::dynamic(Polygon::rectangle(0.4, 0.4), Vec2::new(1.0, 4.0)) })?;
//! let (mut entered, mut left) = (0, 0);
//! let mut narrow = CpuNarrowPhase::new();
//! for _ in 0..90 {
//!     world.step(1.0 / 60.0, &mut narrow)?;
//!     entered += world.events().sensor_begin.iter().filter(|e| e.sensor_body == gate).count();
//!     left += world.events().sensor_end.len();
//! }
//! // The crate passed the gate and landed; the ghost fell through the gate unseen (a
//! // sensor's filter applies as any collider's) and through the ground.
//! assert_eq!((entered, left), (1, 1));
//! assert!(world.center_of_mass(crate_).y > 0.0 && world.center_of_mass(ghost).y < -2.0);
//! # Ok::<(), wgpu_sat::Error>(())
//! ```
//!
//! ## Modules
//!
//! The everyday names are at the root; each module is a folder of `src/` and holds its
//! stage's whole vocabulary, tuning constants included, in the order a step runs them:
//!
//! | module | what it holds |
//! |---|---|
//! | [`shapes`] | polygons, circles, capsules, segments, chains, body shapes, `decompose`, `Transform`, `Aabb` |
//! | [`broad_phase`] | sweep-and-prune over boxes, the fat margin of persistent pairs |
//! | [`collision`] | one pair (`collide`, `collide_shapes`, manifolds, feature ids), the `NarrowPhase` trait with the CPU narrow phases, and the time of impact ([`collision::toi`]) |
//! | [`dynamics`] | joint definitions (`JointDef`: revolute, distance, prismatic, wheel, weld, motor, mouse, filter), `JointId`, broken-joint events |
//! | [`world`] | `World`, body definitions, handles, events, filters, step statistics, limits and the solver's and sleep's tuning |
//! | [`query`] | rays against shapes; the hits a world's queries return |
//! | [`math`] | sine, cosine and angles the same bits on every platform (the step uses no platform math library) |
//! | [`gpu`] | the GPU narrow phase, ray casts and time of impact, on the host's device (feature `gpu`) |
//! | [`scenes`] | the seeded worlds the examples, benches and tests share (feature `scenes`) |
//!
//! ## Errors
//!
//! [`Error`] is grouped by what it concerns ([`error`] has the groups), so a caller matches
//! the group it handles: shape constructors return a [`ShapeError`] naming the offending
//! point; a batch an [`Error::Batch`] naming the offending pair or collider (index out of
//! range, self pair, non-finite transform), leaving the narrow phase ready for the next call;
//! the GPU an [`Error::Gpu`] (no adapter, a lost device: fall back to the CPU); a world an
//! [`Error::World`] or [`Error::Joint`] naming the field, value and rule, or the removed or
//! foreign handle ([`error::WorldError::StaleBody`]), and it changes nothing; a snapshot it
//! cannot read an [`Error::Snapshot`] with the byte offset.
//!
//! ## Cargo features
//!
//! - `gpu` (default): the GPU narrow phase, ray casts and time of impact ([`gpu`],
//!   [`GpuNarrowPhase`], [`gpu::GpuRayCast`], [`gpu::GpuTimeOfImpact`], [`request_device`]),
//!   on `wgpu`
//!   and `pollster`.
//! - `scenes` (off by default): [`scenes`], the seeded worlds that the examples, benches and
//!   tests share, on `rand`. (This repository's tests, examples and benches turn it on for
//!   themselves.)
//! - `serde`: `Serialize` and `Deserialize` for the definitions ([`BodyDef`],
//!   [`world::BodyType`], [`world::Filter`], [`world::Material`], the shapes and
//!   [`BodyShape`], [`JointDef`] and its parts, [`BodyId`]), for saving levels in formats of
//!   your own. Shapes are read back through their constructors, so a file cannot build one
//!   the constructor would refuse.
//!
//! A default build has no `rand`; with `default-features = false` the crate is the CPU
//! pipeline and the world alone (shapes, the broad phase, the CPU narrow phases, SAT, time of
//! impact, queries, the solver), without wgpu.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use glam;

/// The README's code blocks, compiled (and the CPU ones run) as doctests.
#[cfg(all(doctest, feature = "gpu", feature = "scenes"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The code blocks of `docs/design.md`, compiled (and the CPU one run) as doctests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../docs/design.md")]
pub struct DesignDoctests;

/// The code blocks of `docs/reliability.md`, compiled as doctests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../docs/reliability.md")]
pub struct ReliabilityDoctests;

/// The code blocks of `docs/embedding.md`, compiled as doctests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingDoctests;

pub mod broad_phase;
pub mod collision;
pub mod dynamics;
pub mod error;
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub mod gpu;
pub mod math;
mod parallel;
pub mod query;
#[cfg(feature = "scenes")]
#[cfg_attr(docsrs, doc(cfg(feature = "scenes")))]
pub mod scenes;
pub mod shapes;
pub mod world;

// The everyday names: what a user of one pair, of a batch or of a world names first (and
// the names ../shared/DESIGN.md fixes at the root). Everything else is in its module.
pub use broad_phase::BroadPhase;
pub use collision::toi::{Sweep, time_of_impact};
pub use collision::{
    Collider, Contact, ContactPoint, CpuNarrowPhase, Manifold, NarrowPhase, ParallelCpuNarrowPhase,
    collide, collide_shapes,
};
pub use dynamics::{JointDef, JointId};
pub use error::Error;
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub use gpu::{GpuNarrowPhase, request_device};
pub use query::{RayHit, cast_ray};
pub use shapes::{
    Aabb, BodyShape, Capsule, Circle, MAX_POLYGON_VERTICES, Polygon, Segment, Shape, ShapeError,
    Transform, decompose,
};
pub use world::{BodyDef, BodyId, BodyType, ColliderId, Events, Filter, StepStats, World};
