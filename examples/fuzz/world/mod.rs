//! Target `world`: arbitrary sequences of calls on a `World` stepped with the CPU narrow
//! phase: `add_body` with any `BodyDef` (NaN and infinite fields, any shape, sometimes a
//! sensor), `remove_body` of a live body, `set_velocity`, `wake` and `World::body` with live
//! handles and stale ones (removed bodies', another world's, and one a clone of the world
//! made), `step` with any `dt`, `set_substeps`, `set_gravity`, `set_max_linear_speed` and
//! `set_continuous`; kinematic bodies, damping, gravity scale and fixed rotation in the
//! definitions, forces, torques and impulses (`apply_*`), `set_transform`,
//! `set_body_type`, and materials (per piece in the definitions, conveyor tangent speeds,
//! `set_material`), with any values and handles.
//!
//! Invariants: a value outside its documented range is an `Err` and one inside it is not
//! (a body definition may also be refused for what follows from its shape: mass, inertia or
//! extent out of range); a rejected `add_body` leaves the body count as it was; the world is
//! still usable after every rejected call (a plain step succeeds); `World::body` of a live
//! handle agrees with the plain accessors; after every `Ok` step every body's transform,
//! velocities and bounding box are finite. Handles (see `world_model.rs`): a stale or
//! foreign handle is an error naming it (`StaleBody`, `StaleCollider`, with the reason) or
//! NaN, `false` or nothing from the plain readers, and changes nothing; no event, contact or
//! query result names a body removed before the step (an end may name one removed just
//! before it); `World::bodies` lists the live bodies, `body_count` of them.
//!
//! The values are drawn in `generate.rs`, the target runs in `target.rs`, and the rules it
//! checks against are in `checks.rs`.

mod checks;
mod generate;
mod target;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, ColliderId, world::BodyType, world::Material, world::StaleReason};

pub struct WorldTarget;

/// A body handle to call with, picked when the op runs (the bytes cannot know the world):
/// the `k`-th (modulo their count) of the live bodies in the order they were added, of the
/// removed bodies, or of the handles of another world.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    Live(u16),
    Removed(u16),
    Foreign(u16),
}

#[derive(Debug)]
pub enum Op {
    Add(Box<BodyDef>),
    Remove(Pick),
    SetVelocity {
        body: Pick,
        linear: Vec2,
        angular: f32,
    },
    Wake(Pick),
    Step {
        dt: f32,
    },
    Substeps(usize),
    Gravity(Vec2),
    MaxLinearSpeed(f32),
    Continuous(bool),
    Query {
        body: Pick,
    },
    /// A body added to a clone of the world: its handle names nothing in the world itself.
    AddToClone(Box<BodyDef>),
    /// One of the `apply_*` calls (`kind` modulo 5), or a damping or gravity scale setter
    /// (5 to 7), with `vector`, `point` and `scalar` as its values.
    Push {
        body: Pick,
        kind: u8,
        vector: Vec2,
        point: Vec2,
        scalar: f32,
    },
    Teleport {
        body: Pick,
        position: Vec2,
        angle: f32,
    },
    SetType {
        body: Pick,
        body_type: BodyType,
    },
    /// `set_material` on the body's piece `piece` (modulo its count).
    SetMaterial {
        body: Pick,
        piece: u8,
        material: Material,
    },
    /// A joint of kind `kind` (modulo 8) between two picked bodies, at `anchor` (and
    /// `other`, the distance joint's second anchor or the axis), with `limits` and a spring
    /// of `hertz` when `options` says so (bit 0 limits, bit 1 spring, bit 2 motor).
    Joint {
        bodies: [Pick; 2],
        kind: u8,
        anchor: Vec2,
        other: Vec2,
        limits: [f32; 2],
        hertz: f32,
        options: u8,
    },
    /// Removes the `k`-th (modulo their count) joint added so far, live or not.
    RemoveJoint(u16),
}

#[derive(Debug)]
pub struct WorldInput {
    pub gravity: Vec2,
    pub ops: Vec<Op>,
}

/// A picked handle, resolved against the world's history.
enum Handle {
    Live(BodyId),
    /// A handle the world must refuse, why, and its colliders' handles.
    Stale(BodyId, StaleReason, Vec<ColliderId>),
}
