//! The GPU world's pair set on the device: the world's persistent pairs (`PairSet`) found
//! by the GPU broad phase's persistent face (`GpuBroadPhase::update_pairs_fat`,
//! `shaders/pair_set.wgsl`) over the world's own fat boxes and rule, and only the changes
//! read back and applied on the host.
//!
//! ```text
//! World::find_pairs, a step whose fat boxes moved, or whose copy here is not the world's
//! list (the first step, an edit that replaced the set: brought to it even when nothing
//! moved, so that the collision stage can take its pairs from here):
//!     the host fattens its boxes (PairSet::fatten_boxes: the world keeps its fat boxes)
//!     update: World::pair_input (the fat boxes, a PairFilter per collider: filter, body,
//!         body type, sensor; the body pairs the joints keep apart); the device's set
//!         brought up to date over them: its fat boxes grown there from the boxes the
//!         collision stage placed (a removed collider's box goes up, 32 bytes; all of
//!         them, 16 bytes each, when the device's hash of its fat boxes is not the
//!         host's), the filters and kept-apart pairs up when they changed; back: the
//!         begun and ended pairs (8 bytes each) and the set's size
//!     the device's set was the world's list before (its generation is the one synced):
//!         PairSet::apply(begun, ended): the world's set, in a merge walk
//!     else (the first step, an edit that replaced the world's set, a device error, or
//!         changes that do not fit): the host sweeps its set itself (PairSet::sweep),
//!         which is then the device's again (both are the pairs of the same fat boxes
//!         under the same rule), unless the device failed
//! ```
//!
//! Why the same bits as the host's own update: the device's set is a function of the fat
//! boxes and the rule (every found pair asked at every update), and so is the world's
//! (a pair is asked again whenever its colliders move or the rule changes for them:
//! `invalidate`); `world::filters`' test holds the two to each other step by step, and the
//! GPU world's tests to the CPU world's bits.

use crate::broad_phase::PairFilter;
use crate::error::Error;
use crate::gpu::{GpuBroadPhase, PlacedBoxes};
use crate::shapes::aabb::Aabb;
use crate::world::{PairsElsewhere, World};

/// The device's copy of the world's pair set, and the input of its updates (reused).
pub(super) struct DevicePairs {
    broad: GpuBroadPhase,
    fat: Vec<Aabb>,
    filters: Vec<PairFilter>,
    apart: Vec<[u32; 2]>,
    /// The world's pair list the device's set holds, when known.
    synced: Option<u64>,
    /// Whether this step's update failed (the device's set is then unknown).
    failed: bool,
    /// The boxes this step's collision stage placed on the device, which the fat boxes
    /// grow from (else they are sent).
    placed: Option<PlacedBoxes>,
    /// Bytes this step's update sent and read back (`GpuWorld::pair_set_bytes`).
    pub(super) bytes: [u64; 2],
    /// Steps whose changes the world applied, and steps the host swept instead.
    pub(super) counts: [u64; 2],
    /// Whether steps find their pairs here (`GpuWorld::set_pair_set_on_device`).
    pub(super) enabled: bool,
}

impl DevicePairs {
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<DevicePairs, Error> {
        Ok(DevicePairs {
            broad: GpuBroadPhase::new(device, queue)?,
            fat: Vec::new(),
            filters: Vec::new(),
            apart: Vec::new(),
            synced: None,
            failed: false,
            placed: None,
            bytes: [0; 2],
            counts: [0; 2],
            enabled: true,
        })
    }

    /// Updates through the placed boxes whose fat boxes were not the world's.
    pub(super) fn fat_misses(&self) -> u64 {
        self.broad.fat_misses()
    }
}

impl PairsElsewhere for DevicePairs {
    fn update(&mut self, world: &World, generation: u64) -> Option<([&[[u32; 2]]; 2], usize)> {
        world.pair_input(&mut self.fat, &mut self.filters, &mut self.apart);
        let in_sync = self.synced == Some(generation);
        self.synced = None;
        let (fat, filters, apart) = (&self.fat, &self.filters, &self.apart);
        let changes = match self.placed.take() {
            Some(placed) => {
                let live = world.collider_live_flags();
                self.broad
                    .update_pairs_placed(fat, filters, apart, &placed, live)
            }
            None => self.broad.update_pairs_fat(fat, filters, apart),
        };
        self.failed = changes.is_err();
        match changes {
            Ok(changes) if in_sync => Some(([changes.begun, changes.ended], changes.pairs)),
            _ => None,
        }
    }

    fn place_from(&mut self, placed: Option<PlacedBoxes>) {
        self.placed = placed;
    }

    fn behind(&self, generation: u64) -> bool {
        self.synced != Some(generation) && !self.failed
    }

    fn device_set(&self, generation: u64) -> Option<(wgpu::Buffer, usize)> {
        if self.synced != Some(generation) {
            return None;
        }
        let set = self.broad.set_buffer()?;
        Some((set.clone(), self.broad.set_len()))
    }

    fn synced(&mut self, generation: u64, applied: bool) {
        self.bytes = match self.failed {
            true => [0; 2],
            false => self.broad.update_bytes(),
        };
        self.counts[usize::from(!applied)] += 1;
        if !self.failed {
            self.synced = Some(generation);
        }
    }
}
