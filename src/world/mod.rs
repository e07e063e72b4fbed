//! The simulation: rigid bodies made of convex pieces (polygons, circles, or the pieces of
//! a concave outline), stepped through the collision pipeline and the contact solver.
//!
//! ```text
//! step(dt, narrow_phase):
//!     AABB of every collider (one collider per piece of a body)          (CPU)
//!     persistent pairs over fat boxes (pair_set/), minus pairs within one body, pairs of
//!         two bodies neither of which is dynamic (static or kinematic; a sensor still sees
//!         a kinematic body), of two sensors, and pairs their Filters refuse
//!     recycled manifolds where a pair barely moved; narrow_phase.collide_pairs for the
//!         rest                                      (CPU or GPU: same contacts)
//!     events: begin/end per pair from its touching flag (sensor pairs: overlap; they
//!         make no contact)
//!     solver: each contact between colliders acts on their bodies (a body's pieces move
//!             as one); prepare constraints (warm-started by feature id), then per substep
//!             gravity, warm start, solve, integrate positions, relax; then restitution;
//!             a kinematic body takes no impulse and no gravity, and moves by its velocity;
//!             contacts that approached faster than the hit threshold -> hit events
//!     continuous: bullets and bodies that moved far for their size are swept from their
//!             start pose to their end pose; one that would pass into an obstacle stops at
//!             the time of impact (see continuous.rs); its fast impacts -> hit events
//!     sleep: islands at rest fall asleep (sleep.rs)
//! queries (world/queries.rs): a bounding volume hierarchy over the colliders' boxes,
//!     refitted (or built anew) by the first query after the colliders moved
//! ```
//!
//! Frames: each body has a centre of mass (world frame) and a rotation; its pieces stay in
//! the local frame they were given, and [`World::transform`] maps that frame to the world.
//! Bodies and colliders are named by generational handles ([`BodyId`], [`ColliderId`]). The
//! plain readers (`transform`, `linear_velocity`, ...) panic on a removed or foreign handle
//! with a message naming it, as indexing does, never reading another body or a NaN in its
//! place; [`World::body`] is their checked twin, and
//! every call that changes the world ([`World::add_body`], [`World::set_velocity`],
//! [`World::remove_body`], ...) returns [`crate::error::WorldError::StaleBody`] for such a handle.
//!
//! What the world accepts, and what it does with extreme values (see [`World::add_body`]
//! and `limits.rs`): every input must be finite and within its range in the table; a speed
//! given within the table is clamped as Box2D clamps speeds (to
//! [`World::max_linear_speed`], and a quarter turn per substep), and one past it (past
//! [`MAX_LINEAR_SPEED_LIMIT`] or [`MAX_ANGULAR_SPEED`]) is refused; a body whose mass or
//! rotational inertia falls outside [`MASS_RANGE`] (a density of 1e30, say), or whose
//! position or size exceeds [`MAX_COORDINATE`], is rejected, since f32 cannot simulate it
//! next to ordinary bodies. What is accepted stays finite, and reads back from its
//! snapshot.
//!
//! The files of this folder hold one concept each, named in each file's own header (no list
//! here to drift from them): [`World`] itself and its constructor are here, and `limits.rs`
//! is the table of every range the world accepts and holds, which `add_body`, `add_joint`,
//! the setters and the snapshot reader share.

use glam::Vec2;

use crate::dynamics::body_set::BodySet;
use crate::dynamics::collider_set::ColliderSet;
use crate::dynamics::continuous::StaticTree;
use crate::dynamics::sleep::Sleep;
use crate::dynamics::solver::ContactSolver;
use crate::world::events::Names;
use crate::world::handle::next_world_number;

mod bodies;
mod body_def;
mod body_ref;
mod body_type;
mod contact_set;
mod contacts;
pub(crate) mod events;
mod filters;
mod forces;
#[cfg(feature = "gpu")]
pub(crate) mod gpu_continuous;
#[cfg(feature = "gpu")]
mod gpu_step;
pub(crate) mod handle;
mod hash;
mod joints;
mod limits;
mod materials;
mod motion;
mod output;
mod queries;
mod remove;
mod scratch;
mod settings;
mod shape_table;
mod snapshot;
mod stage;
mod stats;
mod step;
mod teleport;

pub use body_def::BodyDef;
pub use body_ref::BodyRef;
pub use body_type::BodyType;
pub use limits::{
    DEFAULT_MAX_LINEAR_SPEED, MASS_RANGE, MAX_ACCELERATION, MAX_ANGULAR_SPEED, MAX_COORDINATE,
    MAX_GRAVITY_SCALE, MAX_IMPULSE, MAX_JOINT_LENGTH, MAX_LINEAR_SPEED_LIMIT, MAX_SUBSTEPS,
    TIME_STEP_RANGE,
};
pub use materials::Material;
pub use output::WorldContact;
pub use queries::{WorldRayHit, WorldShapeHit};
#[cfg(feature = "gpu")]
pub(crate) use stage::PairsElsewhere;
pub use stats::StepStats;

// The world's vocabulary, kept by the modules below it: handles, events, filters, and the
// tuning constants of the stages the step runs.
pub use crate::broad_phase::filter::{DEFAULT_CATEGORY, Filter};
pub use crate::collision::recycle::{RECYCLE_ANGLE, RECYCLE_TRANSLATION};
pub use crate::dynamics::sleep::{SLEEP_SPEED, TIME_TO_SLEEP};
pub use crate::dynamics::solver::SPECULATIVE_DISTANCE;
pub use crate::dynamics::state::MAX_ROTATION_PER_SUBSTEP;
pub use events::{ContactBegin, ContactEnd, ContactHit, Events, SensorEvent};
pub use handle::{BodyId, ColliderId, StaleReason};

use contact_set::ContactSet;
use scratch::StepScratch;
use settings::Settings;
use shape_table::ShapeTable;

/// A world of rigid polygon bodies. Cloning it clones the whole state, so two narrow phases
/// can be compared from the same starting point; the clone takes the same [`BodyId`]s.
/// Once the two go their own ways, a body one of them adds may take a slot and generation
/// that the other gives a body of its own: keep each clone's new handles with that clone.
/// Handles of another world (not a clone) are always refused.
///
/// Bodies and colliders live in slots: per-body arrays are indexed by body slot, per-collider
/// arrays by collider slot. A removed body's slot is vacant (a static body without colliders,
/// which every stage passes over) and its collider slots hold empty boxes, until the next
/// step has reported their ends; then new bodies may take them, under a new generation.
#[derive(Clone, Debug)]
pub struct World {
    /// This world's number, carried by its handles (see `handle.rs`).
    number: u32,
    /// The bodies, by body slot (`dynamics/body_set.rs`).
    bodies: BodySet,
    /// The colliders, by collider slot (`dynamics/collider_set.rs`).
    colliders: ColliderSet,
    /// Every distinct shape once, shared by the colliders made of it (`shape_table.rs`).
    shapes: ShapeTable,
    /// How the world names its slots: per body slot the handle of the body in it (or last
    /// in it) and its user data, per collider slot its handle and its body's slot. A part
    /// of its own, so that events and the continuous stage read it while the step writes
    /// the rest.
    names: Names,
    /// The persistent pairs, the contact list and the events (`contact_set.rs`).
    contacts: ContactSet,
    /// The joints (`joints.rs`).
    joints: joints::JointSet,
    /// Which bodies are awake, the islands and their rest timers (`dynamics/sleep.rs`).
    sleep: Sleep,
    /// What the setters change and the step reads (`settings.rs`).
    settings: Settings,
    /// The contact solver's constraints, colours and SIMD lanes, kept for their memory.
    solver: ContactSolver,
    /// The tree over the static colliders' boxes that the continuous stage sweeps through.
    static_tree: StaticTree,
    /// Counts the changes to the colliders' poses (steps and added bodies): a query finding
    /// the query tree at another revision brings it up to date first.
    revision: u64,
    queries: queries::QueryCache,
    /// What the step's stages hand each other within a step, kept only for its memory
    /// (`scratch.rs`).
    scratch: StepScratch,
}

impl Default for World {
    fn default() -> Self {
        World::new(Vec2::new(0.0, -10.0))
    }
}

impl World {
    /// An empty world with the given gravity (units per second squared). A gravity that is
    /// not finite, or past [`MAX_COORDINATE`], makes [`World::step`] return an error naming it
    /// ([`World::set_gravity`] checks at once).
    pub fn new(gravity: Vec2) -> World {
        World {
            number: next_world_number(),
            bodies: BodySet::default(),
            colliders: ColliderSet::default(),
            shapes: ShapeTable::default(),
            names: Names::default(),
            contacts: ContactSet::default(),
            joints: joints::JointSet::default(),
            sleep: Sleep::default(),
            settings: Settings::new(gravity),
            solver: ContactSolver::default(),
            static_tree: StaticTree::default(),
            revision: 0,
            queries: queries::QueryCache::default(),
            scratch: StepScratch::default(),
        }
    }
}
