//! The GPU world's recycling pass and merge on the device (`shaders/recycle.wgsl`), over
//! its pair set (`set.rs`): which of the set's pairs go to the narrow phase is decided
//! there, from the kept manifolds the device carries from step to step (no bit a pair goes
//! up), and the step's contact list is merged there, in the world's order, for the
//! solver (no contact's manifold, bodies or material goes up).
//!
//! ```text
//! begin (send_over_set), the world's list of `generation`, `len` pairs:
//!     the device's kept manifolds are those of the world's last list: carry them over
//!         (the list changed: carry_kept finds each pair's by its pair) or copy them (the
//!         same list)
//!     else (the first call, after a step that did not come through here, an edit that
//!         replaced the list or removed a collider, a miss): the world's kept manifolds up
//!         (80 bytes a pair), as those of this list
//! submit, in place of set_fresh: set_overlaps, recycle_slots (the fresh pairs flagged,
//!     their kept manifolds dropped, a hash of them summed; each pair marked with what
//!     it has: no contact, a recycled one); after the narrow phase: record_slots,
//!     record_flat, keep_records (each record's index in its slot, a flat one's manifold
//!     kept there); the merge: merge_flags and a scan (each pair's place in the contact
//!     list), merge_recycled (recycle_into), merge_fresh (the record's), then
//!     contact_materials (each contact's bodies and mixed material, from the colliders'
//!     table, sent when it changed; a hash of every input summed); the two hashes into
//!     the dispatch's `fresh_hash` and `merge_hash`, read back with it;
//!     and, when the device's solver left the last step's contacts (`LastContacts`),
//!     match_warm_starts: each contact's warm start matched from them, and their hash
//!     into the dispatch's `warm_hash`
//! receive: the fresh hash is not that of the world's own fresh pairs (`fresh_hash`): a
//!     miss, the call runs again with the world's bits sent (`World::fresh_slot_bits`)
//! commit: the call's kept manifolds are the next call's, and its merged list the
//!     solver's to take (`DeviceContacts`) if the world's merge hashes the same
//!     (`input_hash`, in the solver's upload), its warm starts if the world's match does
//!     (`warm_hash`)
//! ```
//!
//! The kept manifolds go in two buffers that take turns: a call reads the last call's and
//! writes its own, so that a call that runs again (its room was short, its placed boxes
//! were not the host's) finds the same input, and a call that fails leaves them as they
//! were. The host's recycling pass and merge still run (the world keeps its contacts: for
//! events, queries, read_world, and a step the device fails), and they are what the
//! device's are held to. A world with sensors merges nothing on the device: the host's
//! list leaves its sensor pairs out, and the device cannot tell them.

mod layout;

use crate::broad_phase::scan::scan_tile_count;
use crate::collision::recycle::{KeptManifold, RECYCLE_ANGLE, RECYCLE_TRANSLATION};
use crate::dynamics::collider_set::ColliderSurface;
use crate::gpu::broad_phase::{PushFlags, SCAN_LEVELS, SCAN_PARAMS, SCAN_WGSL};
use crate::gpu::contact_input::{ContactInputGpu, DeviceContacts, LastContacts, WarmStartGpu};
use crate::gpu::plan::{
    BindKey, Kernel, KernelMaker, PARAMS_SLOT, Plan, RO, RW, Workgroups, push_scan, record,
};
use crate::gpu::plumbing::GrowingBuffer;
use layout::{ColliderContactGpu, KeptGpu, RecycleParamsGpu, fresh_hash};

/// The WGSL of the recycling pass (`shaders/recycle.wgsl`, after the layouts, the
/// transforms and the box hash it uses).
pub const RECYCLE_WGSL: &str = concat!(
    include_str!("../../../../shaders/layout.wgsl"),
    include_str!("../../../../shaders/transform.wgsl"),
    include_str!("../../../../shaders/box_hash.wgsl"),
    include_str!("../../../../shaders/contact_input.wgsl"),
    include_str!("../../../../shaders/recycle.wgsl")
);

/// WGSL `KeptList`'s head: the fresh pairs' hash, before the records.
const HEAD_BYTES: u64 = 8;
const RECORD_BYTES: u64 = size_of::<KeptGpu>() as u64;

/// The uniform's binding in `recycle.wgsl`, and its size.
const PARAMS: (u32, usize) = (6, size_of::<RecycleParamsGpu>());
/// Kernel ids (they name kernels in bind keys of the broad phase's plans).
const FIRST_ID: u8 = 160;

/// The world's side of a call over its pair set: the list and, should the device not hold
/// the list's kept manifolds, the world's.
pub(crate) struct SetKept<'a> {
    /// The world's pair list's generation (`PairSet::generation`) and its pairs.
    pub(crate) generation: u64,
    pub(crate) pairs: &'a [[u32; 2]],
    /// Each pair's kept manifold, by slot.
    pub(crate) kept: &'a dyn Fn(usize) -> Option<&'a KeptManifold>,
    /// Whether the world recycles at all (`WorldSettings::recycling`).
    pub(crate) recycling: bool,
    /// Whether the device merges the contact list: not for a world with sensors, whose
    /// list leaves the sensor pairs out (the device cannot tell them).
    pub(crate) merge: bool,
    /// Each collider's body and surface: a contact's bodies and mixed material.
    pub(crate) bodies: &'a [u32],
    pub(crate) surfaces: &'a [ColliderSurface],
}

/// This call's recycling on the device.
#[derive(Clone, Copy)]
struct Call {
    generation: u64,
    len: usize,
    old_len: usize,
    /// The list changed since the kept manifolds' (carry_kept), or not (a copy).
    carry: bool,
    recycling: bool,
    merge: bool,
    /// The world's fresh pairs' hash, which the device's must be.
    host_hash: u32,
}

struct Kernels {
    carry_kept: Kernel,
    set_overlaps: Kernel,
    recycle_slots: Kernel,
    record_slots: Kernel,
    record_flat: Kernel,
    keep_records: Kernel,
    merge_flags: Kernel,
    scan: [Kernel; 2],
    merge_recycled: Kernel,
    merge_fresh: Kernel,
    contact_materials: Kernel,
    match_warm_starts: Kernel,
}

/// The recycling pass's kernels and buffers, and what the device's kept manifolds are.
pub(super) struct SetRecycling {
    kernels: Kernels,
    /// `kept[current]`: the kept manifolds of the list `synced` names; the other, this
    /// call's.
    kept: [GrowingBuffer; 2],
    current: usize,
    /// Per contact record: its slot, its pair, whether it is flat.
    keeps: GrowingBuffer,
    /// Per pair its place in the contact list (merge_flags, scanned), the scan's tile
    /// sums and their zero base, and the list's inputs (`DeviceContacts`) and their hash.
    places: GrowingBuffer,
    sums: [GrowingBuffer; SCAN_LEVELS],
    zero: wgpu::Buffer,
    merged: GrowingBuffer,
    /// Words: the list's hash, its warm starts' hash, its length.
    hash: wgpu::Buffer,
    /// The last step's contacts as the device's solver left them, when it did
    /// (`GpuWorld::step` hands them over), and each contact's warm start matched from
    /// them.
    pub(super) last: Option<LastContacts>,
    warm: GrowingBuffer,
    /// Each collider's body and surface, and what the device's copy holds (`None`:
    /// unknown).
    surfaces: GrowingBuffer,
    surface_scratch: Vec<ColliderContactGpu>,
    surfaces_held: Option<Vec<ColliderContactGpu>>,
    /// The last committed call's list's hash, as the device summed it, and its warm
    /// starts' (when they were matched).
    pub(super) merged_hash: Option<u32>,
    warm_hash: Option<u32>,
    params: GrowingBuffer,
    cache: Vec<(BindKey, wgpu::BindGroup)>,
    /// The list (generation, pairs) whose kept manifolds `kept[current]` holds, as the
    /// world holds them.
    synced: Option<(u64, usize)>,
    call: Option<Call>,
    upload: Vec<KeptGpu>,
    /// Calls whose fresh pairs the device decided, and calls that took the world's bits.
    pub(super) counts: [u64; 2],
    /// Calls whose device's fresh pairs were not the world's (run again with its bits).
    pub(super) misses: u64,
    /// Bytes the last call sent (the world's kept manifolds, when the device had not
    /// got them).
    pub(super) sent: u64,
    /// Whether calls decide their fresh pairs here (`GpuWorld::set_recycling_on_device`).
    pub(super) enabled: bool,
}

impl SetRecycling {
    pub(super) fn new(device: &wgpu::Device) -> SetRecycling {
        let make = KernelMaker::new(device, FIRST_ID);
        let module = make.module("recycle", RECYCLE_WGSL);
        let kernel =
            |entry, bindings: &[(u32, bool)]| make.kernel(&module, entry, bindings, PARAMS);
        let scan = make.module("scan", SCAN_WGSL);
        let scan_kernel = |entry| make.kernel(&scan, entry, &[(0, RW), (1, RW)], SCAN_PARAMS);
        let kernels = Kernels {
            carry_kept: kernel("carry_kept", &[(0, RO), (1, RO), (2, RW)]),
            set_overlaps: kernel("set_overlaps", &[(0, RO), (3, RO), (4, RW)]),
            recycle_slots: kernel("recycle_slots", &[(0, RO), (2, RW), (4, RW), (5, RO)]),
            record_slots: kernel("record_slots", &[(0, RO), (7, RO), (8, RO), (9, RW)]),
            record_flat: kernel("record_flat", &[(7, RO), (9, RW), (10, RO), (11, RO)]),
            keep_records: kernel("keep_records", &[(2, RW), (5, RO), (7, RO), (9, RW)]),
            merge_flags: kernel("merge_flags", &[(2, RW), (12, RW)]),
            scan: [scan_kernel("scan_reduce"), scan_kernel("scan_tiles")],
            merge_recycled: kernel("merge_recycled", &[(2, RW), (5, RO), (12, RW), (13, RW)]),
            merge_fresh: kernel("merge_fresh", &[(2, RW), (7, RO), (12, RW), (13, RW)]),
            contact_materials: kernel(
                "contact_materials",
                &[(12, RW), (13, RW), (14, RO), (15, RW)],
            ),
            match_warm_starts: kernel(
                "match_warm_starts",
                &[(13, RW), (15, RW), (16, RO), (17, RW)],
            ),
        };
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let buffer = |label: &str| GrowingBuffer::new(device, label, storage);
        SetRecycling {
            kernels,
            kept: [
                buffer("wgpu-sat kept manifolds"),
                buffer("wgpu-sat kept manifolds"),
            ],
            current: 0,
            keeps: buffer("wgpu-sat records kept"),
            places: buffer("wgpu-sat contact places"),
            sums: std::array::from_fn(|_| buffer("wgpu-sat contact place sums")),
            // Created zeroed, and no kernel writes it: the scan's top level's base.
            zero: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat contact places zero"),
                size: 16,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            merged: buffer("wgpu-sat merged contacts"),
            hash: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat merged contacts' hash"),
                size: 16,
                usage: storage,
                mapped_at_creation: false,
            }),
            last: None,
            warm: buffer("wgpu-sat matched warm starts"),
            surfaces: buffer("wgpu-sat collider surfaces"),
            surface_scratch: Vec::new(),
            surfaces_held: None,
            merged_hash: None,
            warm_hash: None,
            params: GrowingBuffer::new(
                device,
                "wgpu-sat recycling params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            cache: Vec::new(),
            synced: None,
            call: None,
            upload: Vec::new(),
            counts: [0; 2],
            misses: 0,
            sent: 0,
            enabled: true,
        }
    }

    /// Buffers created so far.
    pub(super) fn buffers_created(&self) -> u64 {
        let grown = [
            &self.kept[0],
            &self.kept[1],
            &self.keeps,
            &self.places,
            &self.merged,
            &self.warm,
            &self.surfaces,
        ];
        let sums = self.sums.iter().map(|b| b.created).sum::<u64>();
        // The zero and the hash are made once.
        grown.iter().map(|b| b.created).sum::<u64>() + sums + self.params.created + 2
    }

    /// The device's kept manifolds are no longer the world's: the next call sends them
    /// (and the colliders' surfaces, which a failed call may have left unknown).
    pub(super) fn invalidate(&mut self) {
        self.synced = None;
        self.call = None;
        self.merged_hash = None;
        self.warm_hash = None;
        self.surfaces_held = None;
    }

    /// Starts a call over the world's list `world` of `len` pairs, whose fresh pairs' bits
    /// are `bits`: room for its kept manifolds, and the world's sent when the device's are
    /// not the last list's. A list whose kept manifolds do not fit in one binding (`cap`
    /// bytes) takes the world's bits.
    pub(super) fn begin(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &SetKept<'_>,
        bits: &[u32],
        cap: u64,
    ) {
        let len = world.pairs.len();
        self.sent = 0;
        let bytes = |n: usize| HEAD_BYTES + RECORD_BYTES * n.max(1) as u64;
        if bytes(len) > cap {
            // More kept manifolds than a binding holds: the world's bits this call.
            self.invalidate();
            return;
        }
        let (old_len, carry) = match self.synced {
            Some((generation, old_len)) => (old_len, generation != world.generation),
            None => {
                // The world's kept manifolds, as those of the last list (this one).
                self.upload.clear();
                self.upload.extend(
                    (world.pairs.iter().enumerate()).map(|(k, &p)| KeptGpu::of(p, (world.kept)(k))),
                );
                let input = &mut self.kept[self.current];
                input.reserve(device, bytes(len), cap);
                let records = bytemuck::cast_slice(&self.upload);
                if !records.is_empty() {
                    queue.write_buffer(&input.buffer, HEAD_BYTES, records);
                }
                self.sent = records.len() as u64;
                (len, false)
            }
        };
        self.kept[1 - self.current].reserve(device, bytes(len), cap);
        (self.merged_hash, self.warm_hash) = (None, None);
        self.places.reserve(device, 4 * (len as u64 + 1), cap);
        let mut tiles = len + 1;
        for level in &mut self.sums {
            tiles = scan_tile_count(tiles);
            level.reserve(device, 4 * tiles.max(1) as u64, cap);
        }
        let inputs = size_of::<ContactInputGpu>() as u64 * len.max(1) as u64;
        self.merged.reserve(device, inputs, cap);
        let warm = size_of::<WarmStartGpu>() as u64 * len.max(1) as u64;
        self.warm.reserve(device, warm, cap);
        if world.merge {
            self.sent += self.send_surfaces(device, queue, world, cap);
        }
        self.call = Some(Call {
            generation: world.generation,
            len,
            old_len,
            carry,
            recycling: world.recycling,
            merge: world.merge,
            host_hash: fresh_hash(bits, world.pairs),
        });
    }

    /// Each collider's body and surface up, when they are not what the device holds: the
    /// bytes sent.
    fn send_surfaces(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &SetKept<'_>,
        cap: u64,
    ) -> u64 {
        self.surface_scratch.clear();
        (self.surface_scratch).extend(world.bodies.iter().zip(world.surfaces).map(|(&body, s)| {
            ColliderContactGpu {
                body,
                friction_root: s.friction.sqrt(),
                restitution: s.restitution,
                tangent_speed: s.tangent_speed,
            }
        }));
        if self.surfaces_held.as_ref() == Some(&self.surface_scratch) {
            return 0;
        }
        let bytes = bytemuck::cast_slice(&self.surface_scratch);
        self.surfaces.reserve(device, bytes.len() as u64, cap);
        if !bytes.is_empty() {
            queue.write_buffer(&self.surfaces.buffer, 0, bytes);
        }
        let held = self.surfaces_held.get_or_insert_with(Vec::new);
        held.clone_from(&self.surface_scratch);
        bytes.len() as u64
    }

    /// Whether this call's fresh pairs are decided on the device.
    pub(super) fn deciding(&self) -> bool {
        self.call.is_some()
    }

    fn params(&self, capacity: usize) -> RecycleParamsGpu {
        let call = self.call.unwrap_or(Call {
            generation: 0,
            len: 0,
            old_len: 0,
            carry: false,
            recycling: false,
            merge: false,
            host_hash: 0,
        });
        RecycleParamsGpu {
            len: call.len as u32,
            old_len: call.old_len as u32,
            recycling: u32::from(call.recycling),
            capacity: capacity as u32,
            translation: RECYCLE_TRANSLATION,
            angle: RECYCLE_ANGLE,
            never: 0,
            last_len: self.last.as_ref().map_or(0, |last| last.len as u32),
        }
    }

    /// Records in `encoder`, before the set's pass: this call's kept manifolds started as
    /// the last call's (a copy, when the list is the same) with a zero hash.
    pub(super) fn record_start(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(call) = self.call else { return };
        let (input, output) = (&self.kept[self.current], &self.kept[1 - self.current]);
        if !call.carry && call.len > 0 {
            let bytes = RECORD_BYTES * call.len as u64;
            encoder.copy_buffer_to_buffer(
                &input.buffer,
                HEAD_BYTES,
                &output.buffer,
                HEAD_BYTES,
                bytes,
            );
        }
        encoder.clear_buffer(&output.buffer, 0, Some(HEAD_BYTES));
    }

    /// The dispatches that flag the set's fresh pairs, over the colliders' `poses`.
    pub(super) fn flags<'a>(&'a self, poses: &'a wgpu::Buffer) -> Flags<'a> {
        Flags {
            recycling: self,
            poses,
        }
    }

    /// Records in `encoder`, after the narrow phase: each flat record's manifold kept in
    /// its slot, the hash copied into the dispatch's `fresh_hash` word at `hash_offset`;
    /// then the contact list's manifolds in the world's order (the recycled pairs' and
    /// the records', by the set's order) and their hash, copied into the word after it.
    /// Returns the uniform bytes written.
    pub(super) fn record_keep(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        inputs: KeepInputs<'_>,
    ) -> u64 {
        if self.call.is_none() {
            return 0;
        }
        let cap = inputs.capacity;
        self.keeps.reserve(device, 16 * cap.max(1) as u64, u64::MAX);
        // The keeping's three dispatches, the merge's four, its scan's and the match.
        let dispatches = 3 + 4 + 2 * SCAN_LEVELS as u64 + 1;
        self.params
            .reserve(device, dispatches * PARAMS_SLOT, u64::MAX);
        let params = self.params(cap);
        let (k, keeps) = (&self.kernels, &self.keeps.buffer);
        let output = &self.kept[1 - self.current].buffer;
        let groups = Workgroups::Indirect(inputs.dispatch, 0);
        let mut plan = Plan::default();
        let slots = [
            (0, inputs.set),
            (7, inputs.contacts),
            (8, inputs.ends),
            (9, keeps),
        ];
        plan.push_with(&k.record_slots, &slots, params, groups);
        let flat = [
            (7, inputs.contacts),
            (9, keeps),
            (10, inputs.indices),
            (11, inputs.shapes),
        ];
        plan.push_with(&k.record_flat, &flat, params, groups);
        let keep = [
            (2, output),
            (5, inputs.poses),
            (7, inputs.contacts),
            (9, keeps),
        ];
        plan.push_with(&k.keep_records, &keep, params, groups);
        let at = inputs.hash_offset;
        let Some(Call {
            len, merge: true, ..
        }) = self.call
        else {
            let (cache, uniforms) = (&mut self.cache, &self.params);
            let written = record(device, queue, encoder, uniforms, cache, plan, None);
            encoder.copy_buffer_to_buffer(output, 0, inputs.dispatch, at, 4);
            return written;
        };
        // The merge: each pair's place in the list, then its manifold there, then its bodies
        // and material.
        let (places, merged) = (&self.places.buffer, &self.merged.buffer);
        let slots = |n: usize| n.div_ceil(256) as u32;
        plan.push(
            &k.merge_flags,
            &[(2, output), (12, places)],
            params,
            slots(len + 1),
        );
        let scan = [&k.scan[0], &k.scan[1]];
        push_scan(&mut plan, scan, &self.sums, &self.zero, places, len + 1);
        let recycled = [(2, output), (5, inputs.poses), (12, places), (13, merged)];
        plan.push(&k.merge_recycled, &recycled, params, slots(len));
        let fresh = [
            (2, output),
            (7, inputs.contacts),
            (12, places),
            (13, merged),
        ];
        plan.push(&k.merge_fresh, &fresh, params, slots(len));
        let (surfaces, hash) = (&self.surfaces.buffer, &self.hash);
        let materials = [(12, places), (13, merged), (14, surfaces), (15, hash)];
        plan.push(&k.contact_materials, &materials, params, slots(len));
        // The warm starts, matched from the last step's contacts when the device's solver
        // left them: over the list's length, which contact_materials wrote to the hash's
        // third word.
        if let Some(last) = &self.last {
            let warm = &self.warm.buffer;
            let matching = [(13, merged), (15, hash), (16, &last.buffer), (17, warm)];
            plan.push(&k.match_warm_starts, &matching, params, slots(len));
        }
        encoder.clear_buffer(hash, 0, None);
        let (cache, uniforms) = (&mut self.cache, &self.params);
        let written = record(device, queue, encoder, uniforms, cache, plan, None);
        encoder.copy_buffer_to_buffer(output, 0, inputs.dispatch, at, 4);
        encoder.copy_buffer_to_buffer(hash, 0, inputs.dispatch, at + 4, 8);
        written
    }

    /// The last call's contact list's inputs on the device, when it decided its fresh
    /// pairs there and succeeded.
    pub(super) fn contacts(&self) -> Option<DeviceContacts> {
        Some(DeviceContacts {
            buffer: self.merged.buffer.clone(),
            hash: self.merged_hash?,
            warm: (self.warm_hash).map(|hash| (self.warm.buffer.clone(), hash)),
        })
    }

    /// Whether the device's fresh pairs were the world's (`hash`, read back): if not, the
    /// call is a miss, and runs again with the world's bits (and the world's kept
    /// manifolds go up at the next call).
    pub(super) fn check(&mut self, hash: u32) -> bool {
        let Some(call) = self.call else { return true };
        if hash == call.host_hash {
            return true;
        }
        self.misses += 1;
        self.invalidate();
        false
    }

    /// The call succeeded: its kept manifolds are the next call's input, and its contact
    /// list's inputs, whose hash the device summed as `merged_hash`, and their warm
    /// starts, as `warm_hash` (when it matched them), the solver's.
    pub(super) fn commit(&mut self, merged_hash: u32, warm_hash: u32) {
        match self.call.take() {
            Some(call) => {
                self.current = 1 - self.current;
                self.synced = Some((call.generation, call.len));
                self.merged_hash = call.merge.then_some(merged_hash);
                let matched = call.merge && self.last.is_some();
                self.warm_hash = matched.then_some(warm_hash);
                self.counts[0] += 1;
            }
            None => self.counts[1] += 1,
        }
    }
}

/// The buffers the keeping dispatches bind: the set, the narrow phase's records, their
/// ends, the colliders' shape ids, the shape table and poses; the dispatch they run
/// over (the narrow phase's), where its `fresh_hash` word is, and the records' room.
pub(super) struct KeepInputs<'a> {
    pub(super) set: &'a wgpu::Buffer,
    pub(super) contacts: &'a wgpu::Buffer,
    pub(super) ends: &'a wgpu::Buffer,
    pub(super) indices: &'a wgpu::Buffer,
    pub(super) shapes: &'a wgpu::Buffer,
    pub(super) poses: &'a wgpu::Buffer,
    pub(super) dispatch: &'a wgpu::Buffer,
    pub(super) hash_offset: u64,
    pub(super) capacity: usize,
}

/// The flagging dispatches of a call, for the set's pass (`record_over_set`).
pub(super) struct Flags<'a> {
    recycling: &'a SetRecycling,
    poses: &'a wgpu::Buffer,
}

impl PushFlags for Flags<'_> {
    fn push<'a>(
        &'a self,
        plan: &mut Plan<'a>,
        set: &'a wgpu::Buffer,
        boxes: &'a wgpu::Buffer,
        flags: &'a wgpu::Buffer,
    ) {
        let r = self.recycling;
        let Some(call) = r.call else { return };
        let params = r.params(0);
        let (input, output) = (&r.kept[r.current].buffer, &r.kept[1 - r.current].buffer);
        let groups = |n: usize| n.div_ceil(256) as u32;
        let k = &r.kernels;
        if call.carry {
            let carry = [(0, set), (1, input), (2, output)];
            plan.push(&k.carry_kept, &carry, params, groups(call.len));
        }
        let overlaps = [(0, set), (3, boxes), (4, flags)];
        plan.push(&k.set_overlaps, &overlaps, params, groups(call.len + 1));
        let recycle = [(0, set), (2, output), (4, flags), (5, self.poses)];
        plan.push(&k.recycle_slots, &recycle, params, groups(call.len));
    }
}
