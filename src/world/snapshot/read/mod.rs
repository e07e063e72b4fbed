//! The reader of world snapshots ([`World::from_snapshot`], [`World::restore_snapshot`]):
//! the format of `snapshot/mod.rs` read back in its order, every value checked before the
//! world takes it (see the notes of `snapshot/mod.rs` and `docs/snapshot.md`, "Reading
//! hostile bytes"). The first fault is the error, a [`SnapshotError`](crate::error::SnapshotError) with its offset.
//!
//! ```text
//! load(bytes, spare):
//!     magic, version (a later one refused), world number
//!     settings                                                settings.rs
//!     shape table, its free list (checked below)              shapes.rs
//!     slots of bodies, colliders, joints; fat box count       slots.rs
//!     per live body: its record, its colliders                bodies.rs, colliders.rs
//!     the vacant colliders; every live one claimed            colliders.rs
//!     the shape table's users against its free list           shapes.rs
//!     the static obstacles                                    colliders.rs
//!     removed colliders; pairs (in parallel); moving bodies   pairs.rs
//!     the joints and their edge lists                         joints.rs, joint_model.rs
//!     the joints' colours; the solver from all colours        colouring.rs
//!     END, and no byte after it
//! ```
//!
//! `Loading` holds the world while it is built, and `spare`, the world restored over,
//! whose lists are refilled rather than fresh memory taken (`refill`, `emptied`).

mod bodies;
mod colliders;
mod colouring;
mod joint_model;
mod joints;
mod pairs;
mod settings;
mod shapes;
mod slots;
mod values;

use glam::Vec2;

use super::codec::Reader;
use super::derived::MassMemo;
use super::{BODIES, END, MAGIC, SLOTS, VERSION};
use crate::error::Error;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;
use crate::world::World;
use crate::world::handle::Slots;
use crate::world::materials::Material;
use values::tag;

/// What `from_snapshot` builds up before the world is whole.
struct Loading {
    /// The world being built.
    world: World,
    /// Per collider slot: whether a live body claimed it.
    claimed: Vec<bool>,
    /// One-piece bodies' mass data by shape entry.
    memo: MassMemo,
    /// The world being restored over ([`World::restore_snapshot`]; a new one for
    /// [`World::from_snapshot`]): its lists' memory is filled again rather than fresh memory
    /// taken, whose first touch is a page fault each 4 KiB.
    spare: World,
    /// A body's pieces as read (slot, pose when not the body's, box when not the pose's),
    /// and those with an explicit fat box: kept from body to body.
    pieces: Vec<(usize, Option<Transform>, Option<Aabb>)>,
    fat_explicit: Vec<usize>,
}

/// `spare`'s memory (taken from it) holding `len` copies of `value`.
fn refill<T: Clone>(spare: &mut Vec<T>, len: usize, value: T) -> Vec<T> {
    let mut v = emptied(spare);
    v.resize(len, value);
    v
}

/// `spare`'s memory (taken from it), empty.
fn emptied<T>(spare: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(spare);
    v.clear();
    v
}

impl World {
    /// The world a [`World::snapshot`] was taken of: it steps to the same bits as the
    /// original would have, and takes the same handles (see [`World::snapshot`] for an
    /// example).
    ///
    /// Bytes that are truncated, corrupted, of another format or of a later version give
    /// [`SnapshotError`](crate::error::SnapshotError), naming what is wrong and the byte offset where it was found;
    /// never a panic, and never a world that turns non-finite: every number is checked
    /// against the limits the world's own setters enforce, every index against what it
    /// indexes, every shape through its constructor and every joint through
    /// [`World::add_joint`]'s checks.
    pub fn from_snapshot(bytes: &[u8]) -> Result<World, Error> {
        World::load(bytes, World::new(Vec2::ZERO))
    }

    /// [`World::from_snapshot`] into this world: it becomes the world the snapshot was
    /// taken of, reusing this world's memory for its bodies, colliders, pairs and contacts
    /// (a rollback loop restores a snapshot of the same world again and again: fresh memory
    /// would cost a page fault each 4 KiB on its first touch, and freeing the old world
    /// more). The result is the world `from_snapshot` gives, to the bit.
    ///
    /// On an error (the same as `from_snapshot`'s, naming the fault and its offset) this
    /// world is left empty, as `World::new(Vec2::ZERO)` makes one: no bodies, colliders
    /// or joints, default settings, a new world number; its handles are stale.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut world = World::default();
    /// world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
    /// let box_ = world.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0)))?;
    /// let mut narrow = CpuNarrowPhase::new();
    /// let saved = world.snapshot();
    /// let start = world.transform(box_);
    /// for _ in 0..20 {
    ///     world.step(1.0 / 60.0, &mut narrow)?;
    /// }
    /// world.restore_snapshot(&saved)?;
    /// assert_eq!(world.transform(box_), start);
    /// assert!(world.restore_snapshot(&saved[..10]).is_err());
    /// assert_eq!(world.body_count(), 0);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let spare = std::mem::replace(self, World::new(Vec2::ZERO));
        *self = World::load(bytes, spare)?;
        Ok(())
    }

    /// The world of `bytes`, in `spare`'s memory.
    fn load(bytes: &[u8], mut spare: World) -> Result<World, Error> {
        let mut r = Reader::new(bytes);
        let magic = r.take(MAGIC.len(), "magic")?;
        if magic != MAGIC {
            return Reader::error_at(
                0,
                format!("magic {magic:?}: not a world snapshot (expected \"WSATSNAP\")"),
            );
        }
        let at = r.offset;
        let version = r.u32("version")?;
        if version != VERSION {
            let what = if version > VERSION {
                format!("version {version} is later than this crate reads ({VERSION})")
            } else {
                format!("version {version} is unknown (this crate reads {VERSION})")
            };
            return Reader::error_at(at, what);
        }
        let number = r.u32("world number")?;
        let mut world = World::new(Vec2::ZERO);
        world.number = number;
        world.shapes.index = std::mem::take(&mut spare.shapes.index);
        world.shapes.index.clear();
        let mut load = Loading {
            world,
            claimed: Vec::new(),
            memo: MassMemo::default(),
            spare,
            pieces: Vec::new(),
            fat_explicit: Vec::new(),
        };
        load.read_settings(&mut r)?;
        let free_shapes_at = load.read_shapes(&mut r)?;
        tag(&mut r, SLOTS, "slots")?;
        load.world.bodies.slots = Slots::read_snapshot(&mut r, "body")?;
        load.world.colliders.slots = Slots::read_snapshot(&mut r, "collider")?;
        load.world.joints.slots = Slots::read_snapshot(&mut r, "joint")?;
        let colliders = load.world.colliders.slots.len();
        let fat_len = r.varint("fat box count")?;
        if fat_len > colliders as u64 {
            return r.fail(format!(
                "fat box count {fat_len} is more than the {colliders} collider slots"
            ));
        }
        load.prepare_slots();
        tag(&mut r, BODIES, "bodies")?;
        let spare_pairs = std::mem::take(&mut load.spare.contacts.pairs).into_buffers();
        let mut fat = spare_pairs.0;
        fat.resize(fat_len as usize, Aabb::EMPTY);
        let mut last_material = Material::default();
        for b in 0..load.world.bodies.slots.len() {
            if load.world.bodies.slots.is_live(b) {
                load.read_body(&mut r, b, &mut fat, &mut last_material)?;
            }
        }
        load.read_vacant_colliders(&mut r, &mut fat)?;
        load.world.shapes.check_users(free_shapes_at)?;
        load.read_statics(&mut r)?;
        let buffers = (fat, spare_pairs.1, spare_pairs.2, spare_pairs.3);
        let contacts = load.read_pairs(&mut r, buffers)?;
        load.read_joints(&mut r)?;
        load.read_colouring(&mut r, contacts)?;
        tag(&mut r, END, "end")?;
        if !r.at_end() {
            return r.fail(format!(
                "{} bytes past the end of the snapshot",
                r.remaining()
            ));
        }
        Ok(load.world)
    }
}
