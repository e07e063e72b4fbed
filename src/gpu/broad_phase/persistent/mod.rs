//! The GPU broad phase's persistent face ([`GpuBroadPhase::update_pairs`]): fat boxes and
//! the pair set kept on the device from update to update, filters asked there, and only
//! the set's changes read back (`shaders/pair_set.wgsl`; the CPU twin is
//! `src/broad_phase/persistent.rs`).
//!
//! ```text
//! update_pairs(boxes, filters):
//!     check the input; fatten on the host (the sweep's bands are fitted to the fat boxes
//!     there); no fat box changed, no collider came or went, no filter changed: no
//!     change, nothing sent (a world at rest costs a containment test per collider)
//!     filters that differ from the device's copy go up whole (32 B each)
//!     submit 1 (boxes.rs): scatter_fat (the fat boxes that changed, 32 B each; all of
//!               them, 16 B each, when that is less, or the device's copy was lost), then
//!               the sweep's first submit over the fat boxes; read the total back (4 B).
//!               The GPU world's update (update_pairs_placed) sends none but a removed
//!               collider's: fatten grows the rest on the device from the boxes its
//!               collision stage placed, and a hash of them comes back with the total (4 B)
//!               to be held to the host's
//!     submit 2: the sweep's pairs in order; keep_flags, scan, compact_pairs: the new set,
//!               in the other set buffer; change_flags both ways, scans, compact_pairs:
//!               begun and ended; copy back the three counts (12 B) and as many changes as
//!               the last update had (with room to spare)
//!     more changes than were copied: one more copy of them all
//!     the new set's buffer becomes the current one; the old set's is the next spare
//! ```
//!
//! What crosses the bus: up, the fat boxes that moved (32 bytes each) and the passes'
//! uniforms (256 bytes a dispatch); back, the sweep's total (4 bytes), the counts (12), the
//! timestamps where there are some (16 a submit), and the changes with room to spare (8
//! bytes a pair: twice the last update's count and 32 more of each kind). The set itself,
//! 8 bytes a pair, stays on the device ([`GpuBroadPhase::set_buffer`]), for a narrow phase
//! there.

mod boxes;
mod read;

use super::{GpuBroadPhase, groups};
use crate::broad_phase::PairFilter;
use crate::broad_phase::pair_set::fatten;
use crate::broad_phase::persistent::{PairChanges, check_apart, check_pair_input};
use crate::error::{Error, GpuError};
use crate::gpu::PlacedBoxes;
use crate::gpu::layout::{AabbGpu, FatUpdateGpu, PairFilterGpu, PairSetParamsGpu, SweepParamsGpu};
use crate::gpu::plan::{BindKey, Kernel, Plan, RO, RW, record};
use crate::gpu::plumbing::{GrowingBuffer, KernelTimer, TIMESTAMP_BYTES};
use crate::shapes::aabb::Aabb;
use boxes::{FatKernels, hash_fat};
use read::first_copies;

/// The WGSL of the persistent pairs: the box hash, the collision filter, then
/// `shaders/pair_set.wgsl`.
pub const PAIR_SET_WGSL: &str = concat!(
    include_str!("../../../../shaders/box_hash.wgsl"),
    include_str!("../../../../shaders/filter.wgsl"),
    include_str!("../../../../shaders/pair_set.wgsl")
);

/// The uniform's binding in `pair_set.wgsl`, and its size.
const PAIR_SET_PARAMS: (u32, usize) = (6, size_of::<PairSetParamsGpu>());
/// Kernel ids past the sweep's (they name kernels in bind keys).
const FIRST_ID: u8 = 100;
/// The readback's head: the new set's size, the begun and ended counts, a pad word; then
/// the pass's timestamps (zeros without timestamp queries); then the changes.
const HEAD_BYTES: u64 = 16 + TIMESTAMP_BYTES;
/// Changes of each kind copied back at first past twice the last update's: a settling
/// scene's changes come in bursts, and a burst past the copy costs one more round trip;
/// 32 (256 bytes a kind) keeps a settled world's readback under a kilobyte.
const SPARE_CHANGES: usize = 32;

/// The boxes of an update: tight, fattened here as the world's set fattens them; fat boxes
/// the caller keeps; or those, grown on the device from the boxes a collision call placed
/// there, but for the colliders that are not `live` (removed: their boxes are sent).
#[derive(Clone, Copy)]
enum Boxes<'a> {
    Tight(&'a [Aabb]),
    Fat(&'a [Aabb]),
    Placed {
        fat: &'a [Aabb],
        placed: &'a PlacedBoxes,
        live: &'a [bool],
    },
}

impl<'a> Boxes<'a> {
    /// The boxes as the host has them, tight or fat.
    fn list(self) -> &'a [Aabb] {
        match self {
            Boxes::Tight(list) | Boxes::Fat(list) | Boxes::Placed { fat: list, .. } => list,
        }
    }
}

/// `pair_set.wgsl`'s pipelines.
struct PairSetKernels {
    scatter_fat: Kernel,
    keep_flags: Kernel,
    compact_pairs: Kernel,
    change_flags: Kernel,
}

/// What the persistent face keeps between updates: the host's copies of what the device
/// holds, the set's two buffers, and the scratch of the passes.
pub(super) struct Persistent {
    kernels: PairSetKernels,
    /// The fat boxes, by collider; the boxes' buffer holds them while `fat_on_device`.
    fat: Vec<Aabb>,
    /// The fat boxes before this update, restored when it fails.
    fat_before: Vec<Aabb>,
    pub(super) fat_on_device: bool,
    /// The fat boxes grown on the device (`boxes.rs`): the kernels, the hash's buffer, and
    /// the updates whose hash was not the host's.
    fat_kernels: FatKernels,
    hash: GrowingBuffer,
    fat_misses: u64,
    /// The filters as the device holds them, while `filters_on_device`.
    filters: Vec<PairFilterGpu>,
    filters_on_device: bool,
    filter_buffer: GrowingBuffer,
    /// The kept-apart body pairs as the device holds them, while `apart_on_device`.
    apart: Vec<[u32; 2]>,
    apart_on_device: bool,
    apart_buffer: GrowingBuffer,
    fat_updates: GrowingBuffer,
    update_scratch: Vec<FatUpdateGpu>,
    filter_scratch: Vec<PairFilterGpu>,
    /// The set, ascending, in `sets[current]` (its first `count` pairs); the other is the
    /// next update's output.
    sets: [GrowingBuffer; 2],
    current: usize,
    count: usize,
    kept: GrowingBuffer,
    change_flags: [GrowingBuffer; 2],
    /// The begun and ended pairs, compacted.
    changes: [GrowingBuffer; 2],
    readback: GrowingBuffer,
    /// The bind groups of the two submits' dispatches, by position.
    bind_groups: [Vec<(BindKey, wgpu::BindGroup)>; 2],
    begun: Vec<[u32; 2]>,
    ended: Vec<[u32; 2]>,
    /// Bytes queued for the device and read back in the last update.
    bytes: [u64; 2],
}

impl Persistent {
    fn new(device: &wgpu::Device) -> Persistent {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgpu-sat pair_set.wgsl"),
            source: wgpu::ShaderSource::Wgsl(PAIR_SET_WGSL.into()),
        });
        let kernel = |entry, bindings: &[(u32, bool)], id| {
            Kernel::new(
                device,
                &module,
                entry,
                bindings,
                PAIR_SET_PARAMS,
                FIRST_ID + id,
            )
        };
        let kernels = PairSetKernels {
            scatter_fat: kernel("scatter_fat", &[(7, RO), (8, RW)], 0),
            keep_flags: kernel("keep_flags", &[(0, RO), (1, RO), (2, RW), (9, RO)], 1),
            compact_pairs: kernel("compact_pairs", &[(0, RO), (2, RW), (3, RW)], 2),
            change_flags: kernel("change_flags", &[(0, RO), (2, RW), (4, RO), (5, RO)], 3),
        };
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer =
            |what: &str| GrowingBuffer::new(device, format!("wgpu-sat pair set {what}"), storage);
        Persistent {
            kernels,
            fat: Vec::new(),
            fat_before: Vec::new(),
            fat_on_device: false,
            fat_kernels: FatKernels::new(device, &module),
            hash: GrowingBuffer::new(device, "wgpu-sat fat box hash", storage),
            fat_misses: 0,
            filters: Vec::new(),
            filters_on_device: false,
            filter_buffer: buffer("filters"),
            apart: Vec::new(),
            apart_on_device: false,
            apart_buffer: buffer("kept-apart bodies"),
            fat_updates: buffer("fat box updates"),
            update_scratch: Vec::new(),
            filter_scratch: Vec::new(),
            sets: [buffer("pairs"), buffer("pairs 2")],
            current: 0,
            count: 0,
            kept: buffer("keep flags"),
            change_flags: [buffer("begun flags"), buffer("ended flags")],
            changes: [buffer("begun"), buffer("ended")],
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat pair set readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            bind_groups: [Vec::new(), Vec::new()],
            begun: Vec::new(),
            ended: Vec::new(),
            bytes: [0; 2],
        }
    }

    fn created(&self) -> u64 {
        let buffers = [
            &self.filter_buffer,
            &self.apart_buffer,
            &self.fat_updates,
            &self.hash,
            &self.kept,
            &self.readback,
        ];
        buffers
            .into_iter()
            .chain(&self.sets)
            .chain(&self.change_flags)
            .chain(&self.changes)
            .map(|b| b.created)
            .sum()
    }
}

impl GpuBroadPhase {
    /// Brings the persistent pair set up to date with the colliders' `boxes` and `filters`
    /// (one each, by collider index; a collider's index is its slot from update to
    /// update), and returns what changed: the pairs whose fat boxes (each tight box grown
    /// by [`FAT_MARGIN`](crate::broad_phase::FAT_MARGIN) when it leaves the last one)
    /// overlap or touch and whose filters accept each other, kept on the device; only the
    /// begun and ended pairs come back. Exactly
    /// [`PersistentPairs::update`](crate::broad_phase::PersistentPairs::update)'s changes.
    ///
    /// Errors: as `PersistentPairs::update` for bad input; a batch past what one binding
    /// holds; a device error. After an error the set is as it was before the call.
    ///
    /// ```no_run
    /// use wgpu_sat::{glam::Vec2, gpu::GpuBroadPhase, Aabb, Filter};
    /// use wgpu_sat::broad_phase::PairFilter;
    /// let (device, queue) = wgpu_sat::request_device()?;
    /// let mut gpu = GpuBroadPhase::new(&device, &queue)?;
    /// let at = |x: f32| Aabb::new(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 1.0));
    /// let filters: Vec<PairFilter> =
    ///     (0..3).map(|body| PairFilter::new(Filter::default(), body)).collect();
    /// let changes = gpu.update_pairs(&[at(0.0), at(0.5), at(5.0)], &filters)?;
    /// assert_eq!(changes.begun, [[0, 1]]);
    /// // The third box moves onto the second: one pair begins, none ends.
    /// let changes = gpu.update_pairs(&[at(0.0), at(0.5), at(1.3)], &filters)?;
    /// assert_eq!((changes.pairs, changes.begun, changes.ended), (2, &[[1, 2]][..], &[][..]));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn update_pairs(
        &mut self,
        boxes: &[Aabb],
        filters: &[PairFilter],
    ) -> Result<PairChanges<'_>, Error> {
        self.update_pairs_with(boxes, filters, &[])
    }

    /// [`update_pairs`](Self::update_pairs) with the pairs of bodies that never pair
    /// whatever their filters say (`apart`: `[a, b]` with `a < b`, ascending), exactly
    /// [`PersistentPairs::update_with`](crate::broad_phase::PersistentPairs::update_with)'s
    /// changes. Errors as `update_pairs`, and for kept-apart pairs out of order as
    /// `update_with`.
    pub fn update_pairs_with(
        &mut self,
        boxes: &[Aabb],
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        self.update_boxes(Boxes::Tight(boxes), filters, apart)
    }

    /// [`update_pairs_with`](Self::update_pairs_with) over fat boxes the caller keeps (the
    /// world's pair set's): taken as they are, none grown; only those that differ from the
    /// last update's go up. Exactly
    /// [`PersistentPairs::update_fat`](crate::broad_phase::PersistentPairs::update_fat)'s
    /// changes; errors as `update_pairs_with`.
    pub fn update_pairs_fat(
        &mut self,
        fat: &[Aabb],
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        self.update_boxes(Boxes::Fat(fat), filters, apart)
    }

    /// [`update_pairs_fat`](Self::update_pairs_fat) for the GPU world: its fat boxes `fat`,
    /// but those of `live` colliders grown on the device from the boxes its collision
    /// call placed there (`placed`, which must be `fat`'s tight boxes grown by half the
    /// speculative distance: the world's broad-phase boxes) rather than sent. A hash of the
    /// device's fat boxes checks them against `fat`; where they differ, `fat` is sent whole
    /// and the sweep runs again ([`fat_misses`](Self::fat_misses)).
    pub(crate) fn update_pairs_placed(
        &mut self,
        fat: &[Aabb],
        filters: &[PairFilter],
        apart: &[[u32; 2]],
        placed: &PlacedBoxes,
        live: &[bool],
    ) -> Result<PairChanges<'_>, Error> {
        if live.len() != fat.len() {
            return Err(Error::Gpu(GpuError::Device(format!(
                "{} live flags for {} fat boxes",
                live.len(),
                fat.len()
            ))));
        }
        self.update_boxes(Boxes::Placed { fat, placed, live }, filters, apart)
    }

    /// How many updates through
    /// [`update_pairs_placed`](Self::update_pairs_placed) found the fat boxes the device grew
    /// other than the caller's, and sent those whole (0 where the adapter places the boxes
    /// to the host's bits).
    pub(crate) fn fat_misses(&self) -> u64 {
        self.persistent
            .as_deref()
            .map_or(0, |state| state.fat_misses)
    }

    /// An update from tight boxes, fat ones, or fat ones grown on the device.
    fn update_boxes(
        &mut self,
        boxes: Boxes<'_>,
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<PairChanges<'_>, Error> {
        self.kernel = None;
        check_pair_input(boxes.list(), filters)?;
        check_apart(apart)?;
        if self.persistent.is_none() {
            self.persistent = Some(Box::new(Persistent::new(&self.device)));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = self.run_update(boxes, filters, apart);
        let device_error = pollster::block_on(scope.pop());
        let Some(state) = self.persistent.as_deref_mut() else {
            return Err(Error::Gpu(GpuError::Device("the pair set is gone".into())));
        };
        if let Some(error) = device_error {
            result.ok();
            return Err(state.failed(Error::Gpu(GpuError::Device(error.to_string()))));
        }
        if let Err(error) = result {
            return Err(state.failed(error));
        }
        Ok(PairChanges {
            pairs: state.count,
            begun: &state.begun,
            ended: &state.ended,
        })
    }

    /// The persistent pair set on the device after the last
    /// [`update_pairs`](Self::update_pairs): its first [`set_len`](Self::set_len) items are
    /// the pairs, `[u32; 2]` each, ascending; the buffer changes from update to update (two
    /// take turns). `None` before the first update.
    pub fn set_buffer(&self) -> Option<&wgpu::Buffer> {
        self.persistent
            .as_deref()
            .map(|state| &state.sets[state.current].buffer)
    }

    /// Pairs in the persistent set (see [`set_buffer`](Self::set_buffer)).
    pub fn set_len(&self) -> usize {
        self.persistent.as_deref().map_or(0, |state| state.count)
    }

    /// Bytes the last [`update_pairs`](Self::update_pairs) queued for the device (fat boxes,
    /// filters, the passes' uniforms) and read back (counts, timestamps, changes).
    pub fn update_bytes(&self) -> [u64; 2] {
        self.persistent
            .as_deref()
            .map_or([0; 2], |state| state.bytes)
    }

    /// An update over checked input, with `self.persistent` made.
    fn run_update(
        &mut self,
        boxes: Boxes<'_>,
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<(), Error> {
        let Some(mut state) = self.persistent.take() else {
            return Err(Error::Gpu(GpuError::Device("the pair set is gone".into())));
        };
        let result = self.update_with(&mut state, boxes, filters, apart);
        self.persistent = Some(state);
        result
    }

    fn update_with(
        &mut self,
        state: &mut Persistent,
        boxes: Boxes<'_>,
        filters: &[PairFilter],
        apart: &[[u32; 2]],
    ) -> Result<(), Error> {
        let n = boxes.list().len();
        // The fat boxes are the set's colliders (a failed update puts them back).
        let same_colliders = state.fat.len() == n;
        let held = state.fat.len();
        state.fat_before.clone_from(&state.fat);
        state.update_scratch.clear();
        let updates = &mut state.update_scratch;
        let update = |i: usize| FatUpdateGpu {
            index: i as u32,
            _pad: [0; 3],
            aabb: bytemuck::Zeroable::zeroed(),
        };
        // Fat boxes the device grows itself, from the placed boxes.
        let mut grown = 0;
        match boxes {
            Boxes::Tight(boxes) => {
                fatten(&mut state.fat, boxes, |i| updates.push(update(i)));
            }
            Boxes::Fat(fat) | Boxes::Placed { fat, .. } => {
                // Those that differ from the device's copy, to the bit.
                let old = held.min(n);
                let differs = |i: usize| {
                    i >= old
                        || bytemuck::bytes_of(&AabbGpu::from(&state.fat[i]))
                            != bytemuck::bytes_of(&AabbGpu::from(&fat[i]))
                };
                let changed = (0..n).filter(|&i| differs(i));
                match boxes {
                    Boxes::Placed { live, .. } => {
                        // Sent: a removed collider's (the device's box there is its last
                        // pose's, not the world's).
                        for i in changed {
                            match live[i] {
                                true => grown += 1,
                                false => updates.push(update(i)),
                            }
                        }
                    }
                    _ => updates.extend(changed.map(update)),
                }
                state.fat.clear();
                state.fat.extend_from_slice(fat);
            }
        }
        for update in updates.iter_mut() {
            update.aabb = AabbGpu::from(&state.fat[update.index as usize]);
        }
        state.filter_scratch.clear();
        state
            .filter_scratch
            .extend(filters.iter().map(PairFilterGpu::from));
        // No fat box changed, no collider came or went, no filter or kept-apart pair
        // changed: the set is what it was, and the device has nothing to do (a world at
        // rest).
        let same_filters = state.filters_on_device && state.filters == state.filter_scratch;
        let same_apart = state.apart_on_device && state.apart == apart;
        if updates.is_empty() && grown == 0 && same_colliders && same_filters && same_apart {
            state.begun.clear();
            state.ended.clear();
            state.bytes = [0; 2];
            return Ok(());
        }
        let mut up = 0u64;
        // The fat boxes: the sweep's parameters fitted to them, and the device's copy.
        let mut fatten = None;
        let base = if n >= 2 {
            let (base, replaced) = self.prepare_boxes(&state.fat)?;
            let whole = !state.fat_on_device
                || replaced
                || match boxes {
                    // The device grows the others.
                    Boxes::Placed { .. } => false,
                    _ => updates.len() * 2 >= n,
                };
            if whole {
                self.write_boxes(&state.fat);
                updates.clear();
                up += 16 * n as u64;
            } else {
                if let Boxes::Placed { placed, .. } = boxes
                    && grown > 0
                {
                    fatten = Some((placed, held));
                }
                let bytes = bytemuck::cast_slice(updates.as_slice());
                let cap = self.max_binding;
                state
                    .fat_updates
                    .reserve(&self.device, bytes.len() as u64, cap);
                self.queue.write_buffer(&state.fat_updates.buffer, 0, bytes);
                up += bytes.len() as u64;
            }
            state.fat_on_device = true;
            Some(base)
        } else {
            // The boxes' buffer is not written: its copy is stale from here.
            updates.clear();
            state.fat_on_device = false;
            None
        };
        // The filters, whole when any differs from the device's.
        let bytes = 32 * n as u64;
        let replaced = state
            .filter_buffer
            .reserve(&self.device, bytes, self.max_binding);
        if replaced || !state.filters_on_device || state.filters != state.filter_scratch {
            std::mem::swap(&mut state.filters, &mut state.filter_scratch);
            let data = bytemuck::cast_slice(state.filters.as_slice());
            self.queue
                .write_buffer(&state.filter_buffer.buffer, 0, data);
            state.filters_on_device = true;
            up += bytes;
        }
        // The kept-apart pairs, whole when they changed.
        let bytes = size_of_val(apart) as u64;
        let replaced = state
            .apart_buffer
            .reserve(&self.device, bytes, self.max_binding);
        if replaced || !state.apart_on_device || state.apart != apart {
            state.apart.clear();
            state.apart.extend_from_slice(apart);
            let data = bytemuck::cast_slice(apart);
            self.queue.write_buffer(&state.apart_buffer.buffer, 0, data);
            state.apart_on_device = true;
            up += bytes;
        }

        // Submit 1: the fat boxes and the sweep up to its total.
        let mut total = 0usize;
        let mut down = 0u64;
        if let Some(base) = base {
            let mut sent = self.submit_boxes(state, n, base, fatten, &mut up)?;
            down += sent.read;
            if sent.hash.is_some_and(|hash| hash != hash_fat(&state.fat)) {
                // The device grew other fat boxes than the host's: the host's, whole.
                state.fat_misses += 1;
                self.write_boxes(&state.fat);
                state.update_scratch.clear();
                up += 16 * n as u64;
                sent = self.submit_boxes(state, n, base, None, &mut up)?;
                down += sent.read;
            }
            total = sent.total;
            self.submit_pairs(state, n, base, total, sent.by_band, &mut up)?;
        } else {
            self.submit_pairs(state, n, bytemuck::Zeroable::zeroed(), 0, 0, &mut up)?;
        }
        down += self.read_changes(state, total)?;
        state.bytes = [up, down];
        Ok(())
    }

    /// Submit 2: the sweep's pairs (when there are any), the new set, the changes, and
    /// their first copy back.
    fn submit_pairs(
        &mut self,
        state: &mut Persistent,
        n: usize,
        base: SweepParamsGpu,
        total: usize,
        by_band: usize,
        up: &mut u64,
    ) -> Result<(), Error> {
        let old = state.count;
        self.check_fits("pairs", total.max(old), size_of::<[u32; 2]>())?;
        self.reserve_pairs(total.max(1), false);
        let (device, cap) = (&self.device, self.max_binding);
        let next = 1 - state.current;
        state.sets[next].reserve(device, 8 * total as u64, cap);
        state.kept.reserve(device, 4 * (total as u64 + 1), cap);
        state.change_flags[0].reserve(device, 4 * (total as u64 + 1), cap);
        state.change_flags[1].reserve(device, 4 * (old as u64 + 1), cap);
        state.changes[0].reserve(device, 8 * total as u64, cap);
        state.changes[1].reserve(device, 8 * old as u64, cap);
        let copies = first_copies(state, total);
        let readback_bytes = HEAD_BYTES + 8 * (copies[0] + copies[1]) as u64;
        state.readback.reserve(device, readback_bytes, cap);
        let items = total.max(old) + 1;
        self.buffers.reserve_scan(device, cap, items, items);

        let (kernels, buffers, k) = (&self.kernels, &self.buffers, &state.kernels);
        let mut plan = Plan::default();
        if total > 0 {
            let room = SweepParamsGpu {
                capacity: total as u32,
                ..base
            };
            buffers.plan_pairs(kernels, &mut plan, n, by_band, room);
        }
        let params = |len: usize, side: u32| PairSetParamsGpu {
            len: len as u32,
            old_count: old as u32,
            found: total as u32,
            side,
            apart: state.apart.len() as u32,
            _pad: [0; 3],
        };
        let (found, filters) = (&buffers.out.buffer, &state.filter_buffer.buffer);
        let (new_set, old_set) = (&state.sets[next].buffer, &state.sets[state.current].buffer);
        let kept = &state.kept.buffer;
        let apart = &state.apart_buffer.buffer;
        plan.push(
            &k.keep_flags,
            &[(0, found), (1, filters), (2, kept), (9, apart)],
            params(total, 0),
            groups(total + 1),
        );
        buffers.scan(kernels, &mut plan, kept, total + 1, 0);
        plan.push(
            &k.compact_pairs,
            &[(0, found), (2, kept), (3, new_set)],
            params(total, 0),
            groups(total),
        );
        // Begun: the new set against the old; ended: the old against the new.
        let sides = [(new_set, old_set, total), (old_set, new_set, old)];
        for (side, (items, other, len)) in sides.into_iter().enumerate() {
            let flags = &state.change_flags[side].buffer;
            plan.push(
                &k.change_flags,
                &[(0, items), (2, flags), (4, other), (5, kept)],
                params(len, side as u32),
                groups(len + 1),
            );
            buffers.scan(kernels, &mut plan, flags, len + 1, 0);
            plan.push(
                &k.compact_pairs,
                &[(0, items), (2, flags), (3, &state.changes[side].buffer)],
                params(len, side as u32),
                groups(len),
            );
        }
        let timer = self.timers[1].as_ref();
        let readback = &state.readback.buffer;
        let mut encoder = self.encoder();
        *up += self.record_pass(&mut encoder, &mut state.bind_groups[1], plan, timer);
        let counts = [(kept, total), (&state.change_flags[0].buffer, total)];
        for (at, (from, index)) in counts.into_iter().enumerate() {
            encoder.copy_buffer_to_buffer(from, 4 * index as u64, readback, 4 * at as u64, 4);
        }
        let ended_flags = &state.change_flags[1].buffer;
        encoder.copy_buffer_to_buffer(ended_flags, 4 * old as u64, readback, 8, 4);
        if let Some(timer) = timer {
            timer.copy(&mut encoder, readback, 16);
        }
        let mut at = HEAD_BYTES;
        for (side, &count) in copies.iter().enumerate() {
            let bytes = 8 * count as u64;
            if bytes > 0 {
                encoder.copy_buffer_to_buffer(&state.changes[side].buffer, 0, readback, at, bytes);
            }
            at += bytes;
        }
        self.queue.submit([encoder.finish()]);
        Ok(())
    }

    /// Records `plan` in `encoder`, one pass, timed by `timer` (bind groups from `cache`);
    /// returns the uniform bytes written.
    fn record_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        cache: &mut Vec<(BindKey, wgpu::BindGroup)>,
        plan: Plan<'_>,
        timer: Option<&KernelTimer>,
    ) -> u64 {
        let (device, queue, uniforms) = (&self.device, &self.queue, &self.buffers.params);
        let stamps = timer.map(KernelTimer::whole_pass);
        record(device, queue, encoder, uniforms, cache, plan, stamps)
    }

    fn encoder(&self) -> wgpu::CommandEncoder {
        let label = Some("wgpu-sat pair set");
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label })
    }

    /// Buffers the persistent face has created so far.
    pub(super) fn persistent_buffers(&self) -> u64 {
        self.persistent.as_deref().map_or(0, Persistent::created)
    }
}

impl Persistent {
    /// After a failed update: the set as it was, the device's copies of the fat boxes and
    /// filters counted lost (sent whole next time). Returns `error`.
    fn failed(&mut self, error: Error) -> Error {
        std::mem::swap(&mut self.fat, &mut self.fat_before);
        self.fat_on_device = false;
        self.filters_on_device = false;
        self.apart_on_device = false;
        self.begun.clear();
        self.ended.clear();
        error
    }
}
