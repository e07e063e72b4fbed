//! The crate's errors, grouped by what they concern, so that a caller matches the group it
//! handles (a renderer falls back to the CPU on any [`Error::Gpu`]; a level editor shows a
//! [`Error::World`] or [`Error::Joint`] to its user) and lets the rest through:
//!
//! ```text
//! Error::Shape(ShapeError)        a shape constructor refused its points or values
//! Error::Batch(BatchError)        a batch names an item that is not there, or not finite
//! Error::Gpu(GpuError)            no adapter or device, a lost device, a batch too large
//! Error::World(WorldError)        a world refused a body, a setting, a query, a handle
//! Error::Joint(JointError)        a world refused a joint definition or handle
//! Error::Snapshot(SnapshotError)  bytes a world cannot be read from
//! ```
//!
//! Every message names the offending input (its index, field, value and the rule it breaks),
//! and is the same through the group as on its own.

use crate::shapes::polygon::ShapeError;

/// Everything that can go wrong, by what it concerns (see the module notes).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shape could not be built.
    #[error("invalid shape: {0}")]
    Shape(#[from] ShapeError),
    /// A batch names an item that is not there, or is not finite.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The GPU: adapter, device, limits, or the host path's order of calls.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A world refused a body, a setting, a query or a handle.
    #[error(transparent)]
    World(#[from] WorldError),
    /// A world refused a joint definition or handle.
    #[error(transparent)]
    Joint(#[from] JointError),
    /// Bytes a world cannot be read from.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
}

/// A batch given to a narrow phase, a ray cast or a time-of-impact call names an item that is
/// not there or is not finite. Each names the offending item by its index, and the batch
/// leaves its narrow phase usable for the next call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A collider names a shape that `set_shapes` did not provide.
    #[error("collider {collider} uses shape {shape}, but only {shape_count} shapes are set")]
    ShapeIndexOutOfRange {
        /// Index of the collider.
        collider: usize,
        /// The shape index it holds.
        shape: u32,
        /// How many shapes are set.
        shape_count: usize,
    },
    /// A collider's transform has a NaN or infinite component.
    #[error("collider {collider} has a non-finite transform")]
    NonFiniteTransform {
        /// Index of the collider.
        collider: usize,
    },
    /// A ray of a batch has a NaN or infinite component.
    #[error("ray {ray} has a non-finite origin or translation")]
    NonFiniteRay {
        /// Index of the ray.
        ray: usize,
    },
    /// A (ray, collider) pair of a ray batch names a ray or a collider that does not exist.
    #[error(
        "ray pair {pair} is ({ray}, {collider}), but there are {ray_count} rays and \
         {collider_count} colliders"
    )]
    RayPairIndexOutOfRange {
        /// Index of the pair.
        pair: usize,
        /// The ray index it holds.
        ray: u32,
        /// The collider index it holds.
        collider: u32,
        /// How many rays there are.
        ray_count: usize,
        /// How many colliders there are.
        collider_count: usize,
    },
    /// A speculative distance given to a narrow phase
    /// ([`NarrowPhase::set_speculative_distance`](crate::NarrowPhase::set_speculative_distance))
    /// is negative, not finite or above
    /// [`MAX_SPECULATIVE_DISTANCE`](crate::collision::MAX_SPECULATIVE_DISTANCE).
    #[error(
        "speculative distance {margin} must be finite, 0 or more and at most \
         MAX_SPECULATIVE_DISTANCE (1e3)"
    )]
    InvalidSpeculativeDistance {
        /// The distance given, world units.
        margin: f32,
    },
    /// A box given to the GPU broad phase has a NaN or infinite coordinate, or a minimum
    /// above its maximum.
    #[error("box {index} is not finite, or its min is above its max")]
    InvalidBox {
        /// Index of the box.
        index: usize,
    },
    /// The persistent broad phase was given another number of filters than boxes (one
    /// each, by collider).
    #[error("{filters} filters were given for {boxes} boxes: one each")]
    FilterCount {
        /// How many filters were given.
        filters: usize,
        /// How many boxes were given.
        boxes: usize,
    },
    /// The persistent broad phase's kept-apart body pairs are not each ascending (`a < b`)
    /// and above the one before.
    #[error("kept-apart pair {index} is not [a, b] with a < b, above the pair before it")]
    UnsortedApartPairs {
        /// Index of the first pair out of order.
        index: usize,
    },
    /// A swept collider's sweep has a NaN or infinite field.
    #[error("collider {collider} has a non-finite sweep")]
    NonFiniteSweep {
        /// Index of the collider.
        collider: usize,
    },
    /// A pair names a collider that does not exist.
    #[error(
        "pair {pair} refers to collider {index}, but there are only {collider_count} colliders"
    )]
    PairIndexOutOfRange {
        /// Index of the pair.
        pair: usize,
        /// The collider index it holds.
        index: u32,
        /// How many colliders were given.
        collider_count: usize,
    },
    /// A pair names the same collider twice.
    #[error("pair {pair} pairs collider {collider} with itself")]
    SelfPair {
        /// Index of the pair.
        pair: usize,
        /// The collider.
        collider: u32,
    },
    /// A constraint given to a colouring is out of order: contact keys must ascend (with a
    /// first word below `u32::MAX`, which is the joints'), then joint slots.
    #[error(
        "constraint {index}'s key does not ascend from the one before it (or, for a \
         contact, its first word is u32::MAX, which is the joints')"
    )]
    UnsortedConstraint {
        /// Index of the constraint (the contacts, then the joints).
        index: usize,
    },
    /// A constraint given to a colouring names a body past the moving flags.
    #[error("constraint {constraint} acts on body {body}, but there are {body_count} bodies")]
    ConstraintBodyOutOfRange {
        /// Index of the constraint (the contacts, then the joints).
        constraint: usize,
        /// The body index it holds.
        body: u32,
        /// How many bodies there are.
        body_count: usize,
    },
}

/// The GPU: no adapter or device, a device that failed or was lost, a batch larger than a
/// binding holds, or the host path's calls out of order.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// More items than one GPU storage binding (or one dispatch) can hold.
    #[error("{what}: {count} exceed the device's limit of {max} per storage binding")]
    TooLarge {
        /// What overflowed: "shapes", "colliders", "boxes" (a broad phase's boxes or their
        /// band entries), "pairs", "contacts", or the GPU world's "bodies" or "joints".
        what: &'static str,
        /// How many were given.
        count: usize,
        /// How many fit.
        max: usize,
    },
    /// No graphics adapter could be found.
    #[error(
        "no graphics adapter found ({reason}). Install a Vulkan driver: on Debian or Ubuntu \
         `apt-get install mesa-vulkan-drivers` provides a software one (lavapipe) that runs \
         everywhere; WGPU_BACKEND selects backends (vulkan, gl, metal, dx12)"
    )]
    NoAdapter {
        /// What wgpu reported.
        reason: String,
    },
    /// `WGPU_ADAPTER_NAME` matches none of the adapters present.
    #[error("WGPU_ADAPTER_NAME={name:?} matches no adapter; adapters present: {available:?}")]
    AdapterNotFound {
        /// The requested name.
        name: String,
        /// Names of the adapters that exist.
        available: Vec<String>,
    },
    /// The adapter refused to create a device.
    #[cfg(feature = "gpu")]
    #[error("could not create a device: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    /// Waiting for the GPU failed (the device was lost, or the wait timed out).
    #[cfg(feature = "gpu")]
    #[error("waiting for the GPU failed: {0}")]
    Poll(#[from] wgpu::PollError),
    /// Mapping a readback buffer failed, typically because the device was lost.
    #[cfg(feature = "gpu")]
    #[error("reading results back from the GPU failed: {0}")]
    Readback(#[from] wgpu::BufferAsyncError),
    /// `GpuNarrowPhase::record` or `request_readback` was called with no batch prepared.
    #[error("no batch is prepared: call GpuNarrowPhase::prepare first")]
    NotPrepared,
    /// `GpuNarrowPhase::request_readback` was called before the prepared batch was recorded:
    /// the copy would read a contact list no dispatch has filled.
    #[error(
        "the prepared batch is not recorded: call GpuNarrowPhase::record before \
         request_readback"
    )]
    NotRecorded,
    /// `GpuCollision::collect` was called with no call sent, or with another number of
    /// colliders than the call `GpuCollision::send` sent.
    #[error("nothing to collect for these colliders: call GpuCollision::send with them first")]
    NotSent,
    /// The device reported an error while running the narrow phase (for example, it was lost).
    #[error("the GPU device reported an error: {0}")]
    Device(String),
}

/// A world refused a call: a body, material, filter, query, time step or setting out of
/// range, a stale or foreign handle, or a world full. The world is unchanged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A body definition or velocity has a field out of range.
    #[error("body {field} = {value} is invalid: it must be {rule}")]
    InvalidBody {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f32,
        /// What it must be.
        rule: &'static str,
    },
    /// A piece's material (see `world::Material`) has a field out of range.
    #[error("piece {piece} {field} = {value} is invalid: it must be {rule}")]
    InvalidMaterial {
        /// The piece: an index into the body's `BodyShape::pieces`, and the order of its
        /// colliders.
        piece: usize,
        /// The field.
        field: &'static str,
        /// Its value.
        value: f32,
        /// What it must be.
        rule: &'static str,
    },
    /// A body definition gives a material to a piece its shape does not have.
    #[error("piece {piece} is out of range: the body's shape has {pieces} pieces")]
    PieceOutOfRange {
        /// The piece index given.
        piece: usize,
        /// How many pieces the shape has.
        pieces: usize,
    },
    /// A body handle this world cannot use: removed, or made by another world.
    #[error("{body} is not a body of this world: {reason}")]
    StaleBody {
        /// The handle given.
        body: crate::world::handle::BodyId,
        /// Why it was refused.
        reason: crate::world::handle::StaleReason,
    },
    /// A collider handle this world cannot use: its body was removed, or it was made by
    /// another world.
    #[error("{collider} is not a collider of this world: {reason}")]
    StaleCollider {
        /// The handle given.
        collider: crate::world::handle::ColliderId,
        /// Why it was refused.
        reason: crate::world::handle::StaleReason,
    },
    /// A world cannot hold another body or collider: their slots are numbered by `u32`.
    #[error("the world is full: it holds at most {limit} {what}")]
    WorldFull {
        /// Bodies or colliders.
        what: &'static str,
        /// How many it can hold.
        limit: u64,
    },
    /// A collision filter that cannot be meant (see `Filter`).
    #[error("filter {filter:?} is invalid: {rule}")]
    InvalidFilter {
        /// The filter given.
        filter: crate::broad_phase::filter::Filter,
        /// What is wrong with it.
        rule: &'static str,
    },
    /// A query's input is out of range (a ray, a point, a box).
    #[error("{field} = {value} is invalid: it must be {rule}")]
    InvalidQuery {
        /// The input.
        field: &'static str,
        /// Its value.
        value: glam::Vec2,
        /// What it must be.
        rule: &'static str,
    },
    /// `World::step` was given a time step outside `TIME_STEP_RANGE`.
    #[error("time step {dt} is invalid: it must be from 1e-6 to 10 seconds (TIME_STEP_RANGE)")]
    InvalidTimeStep {
        /// The time step given.
        dt: f32,
    },
    /// A world setting (gravity, substeps, speed limit) is out of range.
    #[error("{name} = {value} is invalid: it must be {rule}")]
    InvalidSetting {
        /// The setting.
        name: &'static str,
        /// The value given (a count converted to f32).
        value: f32,
        /// What it must be.
        rule: &'static str,
    },
}

/// A world refused a joint: a definition out of range, a body joined to itself, or a stale
/// or foreign joint handle. The world is unchanged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JointError {
    /// A joint handle this world cannot use: the joint or one of its bodies was removed, or
    /// it was made by another world.
    #[error("{joint} is not a joint of this world: {reason}")]
    StaleJoint {
        /// The handle given.
        joint: crate::world::handle::JointId,
        /// Why it was refused.
        reason: crate::world::handle::StaleReason,
    },
    /// A joint definition has a field out of range (see `JointDef`).
    #[error("joint {field} = {value} is invalid: it must be {rule}")]
    InvalidJoint {
        /// The field.
        field: &'static str,
        /// Its value (the offending component of a vector).
        value: f32,
        /// What it must be.
        rule: &'static str,
    },
    /// A joint definition names the same body twice.
    #[error("a joint joins two bodies, but both of its bodies are {body}")]
    JointToItself {
        /// The body given twice.
        body: crate::world::handle::BodyId,
    },
}

/// [`World::from_snapshot`](crate::World::from_snapshot) was given bytes it cannot read:
/// truncated, corrupted, of another format or a later version, or describing a world the
/// world's own checks refuse.
#[derive(Debug, thiserror::Error)]
#[error("snapshot unreadable at byte {offset}: {what}")]
pub struct SnapshotError {
    /// Where in the bytes the reader found it (the start of the offending field).
    pub offset: usize,
    /// What is wrong.
    pub what: String,
}

/// The GPU's own errors convert straight to [`Error`], as they did before the grouping, so
/// that `?` on a wgpu call works in a function that returns `Result<_, Error>`.
#[cfg(feature = "gpu")]
impl From<wgpu::RequestDeviceError> for Error {
    fn from(e: wgpu::RequestDeviceError) -> Self {
        Error::Gpu(GpuError::RequestDevice(e))
    }
}

#[cfg(feature = "gpu")]
impl From<wgpu::PollError> for Error {
    fn from(e: wgpu::PollError) -> Self {
        Error::Gpu(GpuError::Poll(e))
    }
}

#[cfg(feature = "gpu")]
impl From<wgpu::BufferAsyncError> for Error {
    fn from(e: wgpu::BufferAsyncError) -> Self {
        Error::Gpu(GpuError::Readback(e))
    }
}
