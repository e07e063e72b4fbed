//! A contact as the GPU world's solver takes it ([`ContactInputGpu`], the mirror of
//! `shaders/contact_input.wgsl`): sent by the host (`gpu/world/solver/upload.rs`) or made on
//! the device by the collision stage's merge (`gpu/collision/recycle/`, [`DeviceContacts`]),
//! and the hash that holds the two to each other ([`input_hash`]); its warm start
//! ([`WarmStartGpu`]), matched on the host or on the device from the last step's contacts
//! ([`LastContactGpu`]), and the hash that holds those to each other ([`warm_hash`]).

use bytemuck::{Pod, Zeroable};

use crate::broad_phase::sort_sweep::box_hash;
use crate::collision::manifold::Contact;

/// WGSL `ContactInput`: one contact as the solver takes it, in contact order, 72 bytes
/// where its constraint ([`ConstraintGpu`]) is 176: the collision stage's merge makes them
/// on the device (`recycle.wgsl`), or the host sends them; `unpack_contacts` fills the
/// constraint's inputs from it and its warm start ([`WarmStartGpu`]), and
/// `prepare_contacts` the rest.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct ContactInputGpu {
    pub bodies: [u32; 2],
    /// The colliders in touch, `[low, high]`: the colouring's key (`colour_input`).
    pub key: [u32; 2],
    /// The mixed material.
    pub friction: f32,
    pub restitution: f32,
    pub tangent_speed: f32,
    /// Points in the manifold, 1 or 2.
    pub count: u32,
    /// From A to B, world frame.
    pub normal: [f32; 2],
    /// Per point, world frame (a one-point manifold repeats its point, as
    /// [`Manifold`](crate::collision::manifold::Manifold) does).
    pub points: [[f32; 2]; 2],
    /// Per point: penetration, positive when overlapping.
    pub depths: [f32; 2],
    /// Per point its feature id (0 past the count, as the host's warm-start record has
    /// it): what the next step's warm starts are matched by.
    pub ids: [u32; 2],
}
const _: () = assert!(size_of::<ContactInputGpu>() == 72);

impl ContactInputGpu {
    /// The input of `contact`, between `bodies`, of `material` (friction, restitution,
    /// tangent speed).
    pub(crate) fn of(contact: &Contact, bodies: [u32; 2], material: [f32; 3]) -> Self {
        let m = &contact.manifold;
        // A one-point manifold's second slot repeats its point.
        let (p, q) = (m.points()[0], m.points()[m.points().len() - 1]);
        let [friction, restitution, tangent_speed] = material;
        let mut ids = [0; 2];
        for (id, point) in ids.iter_mut().zip(m.points()) {
            *id = point.id;
        }
        ContactInputGpu {
            bodies,
            key: [contact.a, contact.b],
            friction,
            restitution,
            tangent_speed,
            count: m.points().len() as u32,
            normal: m.normal.to_array(),
            points: [p.point.to_array(), q.point.to_array()],
            depths: [p.depth, q.depth],
            ids,
        }
    }
}

/// WGSL `WarmStart`: a contact's warm start, 16 bytes: per point (the first `count`; zero
/// past it) the last step's impulses where the same feature id touched.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct WarmStartGpu {
    pub normal_impulses: [f32; 2],
    pub tangent_impulses: [f32; 2],
}
const _: () = assert!(size_of::<WarmStartGpu>() == 16);

/// WGSL `LastContact`: a contact of the last step as the next step's match reads it, 40
/// bytes: written by the solver's store stage, from its input and its stored impulses.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct LastContactGpu {
    pub key: [u32; 2],
    pub ids: [u32; 2],
    /// Per point: (normal, tangent), as stored.
    pub impulses: [[f32; 2]; 2],
    pub count: u32,
    pub _pad: u32,
}
const _: () = assert!(size_of::<LastContactGpu>() == 40);

/// The world's contact list's inputs as the device's recycling pass and narrow phase made
/// them (one [`ContactInputGpu`] a contact), and their hash: a solver takes them in place
/// of the host's when the host's list hashes the same (`input_hash`). With them, when the
/// device held the last step's contacts ([`LastContacts`]), their warm starts matched
/// there (one [`WarmStartGpu`] a contact) and their hash (`warm_hash`).
#[derive(Clone, Debug)]
pub(crate) struct DeviceContacts {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) hash: u32,
    pub(crate) warm: Option<(wgpu::Buffer, u32)>,
}

/// The last step's contacts as the device's solver left them (one [`LastContactGpu`] a
/// contact, `len` of them): what the next step's warm starts are matched from on the
/// device, when that step's list is merged there.
#[derive(Clone, Debug)]
pub(crate) struct LastContacts {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) len: usize,
}

/// The hash of contact `k`'s input that `contact_materials` sums over the device's list
/// (`recycle.wgsl`'s `input_hash`): [`box_hash`] folded over its eighteen words (the
/// last two with two zeros).
pub(crate) fn input_hash(k: u32, c: &ContactInputGpu) -> u32 {
    let words: &[u32; 18] = bytemuck::cast_ref(c);
    let group = |g: usize| [0, 1, 2, 3].map(|i| words.get(4 * g + i).copied().unwrap_or(0));
    (0..5).fold(k, |h, g| box_hash(h, group(g)))
}

/// The hash of contact `k`'s warm start that `match_warm_starts` sums over the device's
/// list (`recycle.wgsl`'s `warm_hash`): [`box_hash`] of its four words.
pub(crate) fn warm_hash(k: u32, w: &WarmStartGpu) -> u32 {
    box_hash(k, bytemuck::cast(*w))
}
