//! The GPU world's solver's results back, each step: the bodies' states, poses and turns,
//! each solved contact's stored impulses and hit measures, each solved joint's impulses and
//! the colours, read in place from the mapping and checked before anything is taken.

use super::GpuSolver;
use crate::dynamics::solver::StepView;
use crate::dynamics::state::BodyState;
use crate::dynamics::{COLOURS, LEFT_OUT};
use crate::error::{Error, GpuError};
use crate::gpu::world::colouring::{ColourBounds, UNDECIDED};
use crate::gpu::world::continuous::HASH_BYTES;
use crate::gpu::world::layout::{BodyPoseGpu, JointImpulsesGpu, StoredGpu};
use crate::world::World;

/// What a try at the step found the device's not to be the host's (`run_unscoped`): then
/// nothing of the readback is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Miss {
    /// The joints it prepared (`hash_joints`).
    Joints,
    /// The bodies it woke (`wake_islands`).
    Wake,
}

/// Where the step's results lie in its readback, in bytes, back to back: the states, the
/// poses, the angles turned, the stored impulses (and hit measures), the joints'
/// impulses, the colours; then the prepared joints' hash and the continuous stage's, when
/// the device computed them; then the timestamps.
pub(super) struct ReadbackLayout {
    pub(super) states: u64,
    pub(super) poses: u64,
    pub(super) turned: u64,
    pub(super) stored: u64,
    pub(super) joints: u64,
    pub(super) colours: u64,
    pub(super) joint_hash_at: Option<u64>,
    pub(super) moved_hash_at: Option<u64>,
    /// The results' end, and where the timestamps start.
    pub(super) total: u64,
    pub(super) stamps_at: u64,
}

impl GpuSolver {
    /// The step's readback layout, with the readback buffer grown to hold it (and every
    /// timed pass's timestamps).
    pub(super) fn readback_layout(
        &mut self,
        view: &StepView<'_, '_>,
        coloured: bool,
    ) -> ReadbackLayout {
        let bodies = view.motion.states.len();
        let contacts = view.contacts.len();
        // The impulses back, and the hit measures after them only when asked for.
        let hits = usize::from(view.hit_records.is_some());
        let (_, colour_bytes) = self.colouring.packed_colours();
        let mut layout = ReadbackLayout {
            states: size_of_val(view.motion.states) as u64,
            poses: (bodies * size_of::<BodyPoseGpu>()) as u64,
            turned: bodies as u64 * 4,
            stored: ((1 + hits) * contacts * size_of::<StoredGpu>()) as u64,
            joints: (self.joint_scratch.len() * size_of::<JointImpulsesGpu>()) as u64,
            colours: if coloured { colour_bytes } else { 0 },
            joint_hash_at: None,
            moved_hash_at: None,
            total: 0,
            stamps_at: 0,
        };
        let l = &layout;
        let mut total = l.states + l.poses + l.turned + l.stored + l.joints + l.colours;
        if self.joints_here {
            let at = total.next_multiple_of(4);
            (layout.joint_hash_at, total) = (Some(at), at + 4);
        }
        if self.continuous.here() {
            let at = total.next_multiple_of(4);
            (layout.moved_hash_at, total) = (Some(at), at + HASH_BYTES);
        }
        // Each timed pass's two timestamps after the results, 8-byte aligned.
        layout.total = total;
        layout.stamps_at = total.next_multiple_of(8);
        let most = (self.timer.as_ref())
            .map_or(total, |timer| layout.stamps_at + 16 * timer.passes() as u64);
        self.readback.reserve(&self.device, most.max(4), u64::MAX);
        layout
    }

    /// After the host's continuous stage and sleep (the step done): holds the device's
    /// (`GpuContinuous::check`, `check_sleep`) to them. Where the device ran them to the
    /// host's bits, its records of the bodies are the world's, and the host's copies
    /// follow; where it did not, the device's states and poses go up whole at the next
    /// step. Returns whether the device matched (`None`: the host ran both alone).
    pub(crate) fn check_continuous(&mut self, world: &World) -> Option<bool> {
        let moved = self.continuous.check(world);
        let slept = self.continuous.check_sleep(world);
        if moved.is_none() && slept.is_none() {
            return None;
        }
        if moved == Some(false) || slept == Some(false) {
            self.states.forget();
            self.poses.forget();
            return Some(false);
        }
        let (states, centers, rotations) = world.body_motion();
        if slept.is_some() {
            // Sleep may have stilled any body.
            self.states.hold(states.iter().copied());
        }
        for &i in world.continuous_moved() {
            self.states.hold_at(i, states[i]);
            let pose = BodyPoseGpu {
                center: centers[i].to_array(),
                rotation: rotations[i].to_array(),
            };
            self.poses.hold_at(i, pose);
        }
        Some(true)
    }

    /// The results into the view: the bodies' states, poses and turns, each solved
    /// contact's stored impulses and hit measures (the host's `store_group`), each solved
    /// joint's impulses, and the colours. `data` holds them back to back (the timestamps
    /// after them are not read here); its alignment is the mapping's, so each record is
    /// read unaligned.
    ///
    /// Fails, before anything is taken, when the colouring left a constraint undecided
    /// (llvmpipe's loop limit), when a constraint's colour is one whose passes did not run,
    /// or when more constraints overflowed than the overflow's chunks held (`bounds`):
    /// `colours_to_dispatch` rules the last two out. The step is then solved on the host
    /// instead (`run`'s error path), to the same bits.
    pub(super) fn store(
        &self,
        view: &mut StepView<'_, '_>,
        data: &[u8],
        sizes: [u64; 4],
        bounds: ColourBounds,
    ) -> Result<(), Error> {
        let [states, poses, turned, joints] = sizes.map(|bytes| bytes as usize);
        let contacts = view.contacts.len();
        let (state_bytes, rest) = data.split_at(states);
        let (pose_bytes, rest) = rest.split_at(poses);
        let (turned_bytes, rest) = rest.split_at(turned);
        // The impulses, then the hit measures when they were asked for.
        let records = contacts * size_of::<StoredGpu>();
        let hit_bytes = if view.hit_records.is_some() {
            records
        } else {
            0
        };
        let (stored_bytes, rest) = rest.split_at(records + hit_bytes);
        let (impulse_bytes, hit_bytes) = stored_bytes.split_at(records);
        let (joint_bytes, colour_bytes) = rest.split_at(joints);
        // Per constraint (the contacts, then the coloured joints), four to a word; none
        // when the step had no constraint to colour.
        let constraints = contacts + self.colouring.step_joint_slots().count();
        let colours = colour_bytes.iter().take(constraints);
        let undecided = colours.clone().filter(|&&c| c == UNDECIDED).count();
        if undecided > 0 {
            return Err(Error::Gpu(GpuError::Device(format!(
                "the colouring left {undecided} constraints undecided (its finishers' loops \
                 were cut short: llvmpipe stops them after 65,535 iterations)"
            ))));
        }
        let dispatched = bounds.colours;
        let skipped = |c: usize| (dispatched..COLOURS).contains(&c);
        if let Some(&colour) = colours.clone().find(|&&c| skipped(usize::from(c))) {
            return Err(Error::Gpu(GpuError::Device(format!(
                "a constraint took colour {colour}, past the {dispatched} colours dispatched"
            ))));
        }
        let overflowed = |c: &[u8]| c.iter().filter(|&&c| c == COLOURS as u8).count();
        let (contact_bytes, joint_colour_bytes) =
            colour_bytes[..constraints.min(colour_bytes.len())].split_at(contacts.min(constraints));
        let [joints_over, contacts_over] =
            [overflowed(joint_colour_bytes), overflowed(contact_bytes)];
        if joints_over > bounds.overflow[0] || contacts_over > bounds.overflow[1] {
            return Err(Error::Gpu(GpuError::Device(format!(
                "{joints_over} joints and {contacts_over} contacts overflowed, past the \
                 overflow's room for {:?}",
                bounds.overflow
            ))));
        }
        view.colours.clear();
        view.colours.extend(colours.copied());
        let (contact_colours, joint_colours) =
            view.colours.split_at(contacts.min(view.colours.len()));
        // The solved joints: those in a colour (the others, between still bodies, keep
        // their impulses).
        let slots = self.colouring.step_joint_slots().zip(joint_colours);
        for (slot, _) in slots.filter(|&(_, &colour)| colour != LEFT_OUT) {
            let j: JointImpulsesGpu = nth_record(joint_bytes, slot as usize);
            view.motion.joints[slot as usize]
                .set_offloaded_impulses(j.linear_impulse.into(), j.impulses);
        }
        let motion = &mut *view.motion;
        bytemuck::cast_slice_mut::<BodyState, u8>(motion.states).copy_from_slice(state_bytes);
        let poses = motion.centers.iter_mut().zip(motion.rotations.iter_mut());
        for (i, (c, q)) in poses.enumerate() {
            let p: BodyPoseGpu = nth_record(pose_bytes, i);
            *c = p.center.into();
            *q = p.rotation.into();
        }
        bytemuck::cast_slice_mut::<f32, u8>(motion.turned).copy_from_slice(turned_bytes);
        // The solved contacts: those in a colour. The others (between bodies that stay
        // still) keep the match's warm start.
        let solved =
            (contact_colours.iter().enumerate()).filter(|&(_, &colour)| colour != LEFT_OUT);
        for (k, _) in solved {
            let stored: StoredGpu = nth_record(impulse_bytes, k);
            for (p, &impulse) in stored.per_point.iter().enumerate() {
                view.records[k].set_impulse(p, impulse);
            }
            if let Some(hits) = view.hit_records.as_deref_mut() {
                hits[k] = nth_record::<StoredGpu>(hit_bytes, k).per_point;
            }
        }
        Ok(())
    }
}

/// Record `i` of a list of `T` in `bytes`, whatever their alignment.
fn nth_record<T: bytemuck::Pod>(bytes: &[u8], i: usize) -> T {
    let size = size_of::<T>();
    bytemuck::pod_read_unaligned(&bytes[i * size..(i + 1) * size])
}
