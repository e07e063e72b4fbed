//! World snapshots: [`World::snapshot`](crate::World::snapshot) writes everything that
//! decides the next steps into a compact, versioned byte string, and
//! [`World::from_snapshot`](crate::World::from_snapshot) makes a world of it that steps to the
//! same bits as the original. `docs/snapshot.md` gives the format field by field; this
//! folder holds the code, these notes hold for all of it, and this file has the format's
//! constants (section tags, flags, shape kinds).
//!
//! ```text
//! write: header (magic, version, world number); settings; shape table; the slots of
//!        bodies, colliders and joints (generations, live flags, free lists); per live
//!        body its record and its colliders'; the vacant colliders; the static obstacles;
//!        the persistent pairs with their kept manifolds and warm starts; the joints
//! what is derived is not written: a flag says "as recomputed" where the writer found the
//!        recomputation gives the same bits (mass data from shapes and densities, collider
//!        poses and boxes from the body's pose, fat boxes from the tight ones, a material
//!        equal to the previous collider's), and the value is written otherwise
//! read:  the same order; every float checked (finite, within the world's own limits),
//!        every index against what it indexes, every count against the bytes left, every
//!        shape through its constructor, every joint through add_joint's checks, the slot
//!        lists for consistency; the first fault is a SnapshotError with its offset
//! ```
//!
//! `struct World`, field by field (s: saved, d: derived on load, r: scratch or cache,
//! rebuilt or refilled by the next step or query, o: output of the last step, not kept):
//!
//! ```text
//! number s (handles stay valid)          body_slots, collider_slots s (generations, free,
//! body_ids, collider_ids d (slots)          removed, retired lists, in their order)
//! user_data s (flag when 0)              next_collider d (per body, its colliders in order)
//! gravity, substeps, continuous,         shapes s (table, free entries included: vacant
//!   max_linear_speed, recycling,            colliders may name them); shape_users d;
//!   hit_threshold, custom_forces,           shape_index d; free_shapes s (order kept)
//!   has_sensors, has_filters s           bodies s (kind, flags; mass data d when the
//! centers, rotations s (bits)               recomputation matches its bits, else s)
//! states s (velocities; inv_mass d:      materials d (inv_inertia from the body record and
//!   dynamic, awake), deltas d (reset       fixed rotation, max_extent)
//!   by the step's first pass)            forces s (pending force and torque, gravity scale,
//! colliders s/d (shape s, pose d when      damping, each flagged when default)
//!   it is the body's, else s)            collider_bodies s; filters s (flag when default);
//! sensors s; surfaces, densities s       aabbs d when the pose gives them, else s
//!   (flag when the previous collider's)  broad_boxes r; candidates r; contact_scratch r
//! pair_set s (fat boxes, d when they are the tight box grown by the margin; pairs with
//!   touching flag and kept manifold; colliders removed since the update) / r (tree,
//!   degrees, lists in turn)
//! collider_contacts, events o (empty after load: World::contacts and World::events tell
//!   the last step's, which the restored world has not run)
//! contacts_next, slot_*, blocks, block_count, fresh_pairs, fresh_kept, recycled r
//! events_next r (empty: a step that failed just before the snapshot loses its pending
//!   end events)
//! sleep s (enabled, per body timer and island) / d (counts) / r (union-find scratch)
//! solver s (last step's warm starts: colliders, feature ids, impulses; its colouring:
//!   each contact's and joint's colour and the bodies that moved, since colours persist and
//!   decide the solve order) / d (the colour groups, built again) / r (the rest)
//! joints s (slots, models, anchors, impulses, breaking thresholds, collide_connected, the
//!   per-body edge lists in their order) / d (ids, filtering and breakable counts)
//! static_colliders s (their order: the continuous stage sweeps in it)
//! start_centers, start_rotations, turned, moved, woken r; revision, queries r (new)
//! ```
//!
//! The folder: the writer and the reader take the world part by part in the format's
//! order, a file per part where the part is long enough to want one (the writer's short
//! parts, settings, shape table and slots, stay in `write/mod.rs`), so that a field's
//! writing and its reading with its checks sit in files of the same name.
//!
//! ```text
//! mod.rs       these notes and the format's constants
//! codec.rs     the byte level: fixed-width numbers, varints, predicted floats; the Writer,
//!              and the Reader that knows its offset
//! derived.rs   what both sides compute rather than store when it gives the same bits (a
//!              body's mass data, a kept manifold's pose now)
//! write/       mod.rs World::snapshot in section order, settings, shape table, slots;
//!              bodies.rs; colliders.rs (a body's, the vacant ones, the static list);
//!              pairs.rs (pairs, kept manifolds, warm starts); joints.rs (with their
//!              colours)
//! read/        mod.rs World::from_snapshot and restore_snapshot in section order;
//!              settings.rs; shapes.rs; slots.rs; bodies.rs; colliders.rs; pairs.rs;
//!              joints.rs; joint_model.rs; colouring.rs (the solver's colours of contacts
//!              and joints); values.rs (checked fields several parts read)
//! ```

mod codec;
mod derived;
mod read;
mod write;

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"WSATSNAP";
/// The format's version: a reader refuses a later one.
const VERSION: u32 = 2;
/// Pairs a block of the pairs section holds (the last block the rest): blocks are read in
/// parallel, each from its own byte length, its first pair's index not a difference.
const PAIR_BLOCK: usize = 2048;

/// How far a stored rotation `(cos, sin)` may be from unit length: what renormalised f32
/// rotations differ by, with room.
const UNIT_TOLERANCE: f32 = 1e-4;

// Section tags, in their order.
const SETTINGS: u8 = b'S';
const SHAPES: u8 = b'H';
const SLOTS: u8 = b'L';
const BODIES: u8 = b'B';
const VACANT: u8 = b'V';
const STATICS: u8 = b'T';
const PAIRS: u8 = b'P';
const JOINTS: u8 = b'J';
const END: u8 = b'E';

// Settings flags.
const CONTINUOUS: u8 = 1;
const RECYCLING: u8 = 2;
const SLEEPING: u8 = 4;
const CUSTOM_FORCES: u8 = 8;
const HIT_THRESHOLD: u8 = 16;
const HAS_SENSORS: u8 = 32;
const HAS_FILTERS: u8 = 64;

// Body flags (a varint). Bits 0-1: the kind.
const KIND_MASK: u32 = 3;
const STATIC: u32 = 0;
const KINEMATIC: u32 = 1;
const DYNAMIC: u32 = 2;
const BULLET: u32 = 1 << 2;
const FIXED_ROTATION: u32 = 1 << 3;
const USER_DATA: u32 = 1 << 4;
const VELOCITY: u32 = 1 << 5;
const PENDING_FORCE: u32 = 1 << 6;
const MOTION_PARAMS: u32 = 1 << 7;
const ASLEEP: u32 = 1 << 8;
const TIMER: u32 = 1 << 9;
const MASS_DATA: u32 = 1 << 10;

// Collider flags.
const SENSOR: u8 = 1;
const FILTER: u8 = 2;
const MATERIAL: u8 = 4;
const POSE: u8 = 8;
const BOX: u8 = 16;
const FAT: u8 = 32;
const FAT_EMPTY: u8 = 64;

// Pair flags.
const TOUCHING: u8 = 1;
const KEPT: u8 = 2;
const WARM: u8 = 4;
/// The warm start's feature ids are the kept manifold's (they are unless the pair's last
/// contact was not kept: a circle's, or one the narrow phase did not report again).
const WARM_IDS_KEPT: u8 = 8;

// Shape kinds.
const POLYGON: u8 = 0;
const CIRCLE: u8 = 1;
const CAPSULE: u8 = 2;
const SEGMENT: u8 = 3;
const CHAIN: u8 = 4;
