//! The GPU world's solver's inputs up, each step: the bodies' records that changed (their
//! states, poses and infos stay on the device, `resident.rs`), the contacts' warm starts
//! (16 bytes each) and inputs (72 bytes each), unless the collision stage merged the same
//! list and matched the same warm starts on the device (`gpu/collision/recycle/`, each held
//! to the host's by a hash), from which `unpack_contacts` makes the constraints on the
//! device; the joints' definitions that changed, and the prepared joints unless the device
//! prepares them (it holds the host's last step's: `prepare_joints`); and room for what
//! the pass writes. Every binding that grows with the world is checked
//! against the device's binding size first, so that nothing is made or sent for a step the
//! device cannot hold.

use bytemuck::Zeroable;

use super::GpuSolver;
use crate::dynamics::solver::StepView;
use crate::error::{Error, GpuError};
use crate::gpu::contact_input::{
    ContactInputGpu, LastContactGpu, WarmStartGpu, input_hash, warm_hash,
};
use crate::gpu::plumbing::GrowingBuffer;
use crate::gpu::world::layout::{
    BodyInfoGpu, BodyPoseGpu, ConstraintGpu, JointDefGpu, JointGpu, JointImpulsesGpu, KINEMATIC,
    StoredGpu, joint_def_gpu, joint_gpu, prepared_hash,
};
use crate::world::World;

impl GpuSolver {
    /// The step's inputs up, in the layouts of `solver.wgsl`.
    pub(super) fn upload(&mut self, view: &StepView<'_, '_>) -> Result<(), Error> {
        let motion = &*view.motion;
        let bodies = motion.states.len();
        // Each binding that grows with the world must fit the device's binding size, checked
        // before anything is made or sent.
        let limit = self.device.limits().max_storage_buffer_binding_size;
        for (what, count, record) in [
            ("contacts", view.contacts.len(), size_of::<ConstraintGpu>()),
            (
                "contact inputs",
                view.contacts.len(),
                size_of::<ContactInputGpu>(),
            ),
            (
                "last contacts",
                view.contacts.len(),
                size_of::<LastContactGpu>(),
            ),
            ("bodies", bodies, size_of::<BodyInfoGpu>()),
            ("joints", motion.joints.len(), size_of::<JointGpu>()),
            (
                "joint definitions",
                motion.joints.len(),
                size_of::<JointDefGpu>(),
            ),
        ] {
            if (count * record) as u64 > limit {
                return Err(Error::Gpu(GpuError::TooLarge {
                    what,
                    count,
                    max: (limit / record as u64) as usize,
                }));
            }
        }
        self.pose_scratch.clear();
        self.pose_scratch
            .extend(
                motion
                    .centers
                    .iter()
                    .zip(motion.rotations.iter())
                    .map(|(c, q)| BodyPoseGpu {
                        center: c.to_array(),
                        rotation: q.to_array(),
                    }),
            );
        self.info_scratch.clear();
        self.info_scratch.extend((0..bodies).map(|i| {
            let (body, material) = (&motion.bodies[i], &motion.materials[i]);
            let forces = motion.forces.map(|f| f[i]).unwrap_or_default();
            BodyInfoGpu {
                local_center: body.local_center.to_array(),
                inv_inertia: material.inv_inertia,
                lever_extent: material.max_extent,
                body_extent: body.max_extent,
                flags: if body.is_kinematic { KINEMATIC } else { 0 },
                gravity_scale: forces.gravity_scale,
                torque: forces.torque,
                force: forces.force.to_array(),
                linear_damping: forces.linear_damping,
                angular_damping: forces.angular_damping,
            }
        }));
        // The inputs: the device's merge of this very list (its hash is the host's), or
        // the host's sent; the warm starts, matched here.
        self.input_scratch.clear();
        (self.input_scratch).extend(
            view.contacts
                .iter()
                .zip(view.records.iter())
                .map(|(c, r)| ContactInputGpu::of(c, r.bodies(), r.material())),
        );
        self.warm_scratch.clear();
        (self.warm_scratch).extend(view.contacts.iter().zip(view.records.iter()).map(|(c, r)| {
            let mut warm = WarmStartGpu::zeroed();
            let points = c.manifold.points().len();
            for (k, &[normal, tangent]) in r.impulses().iter().enumerate().take(points) {
                (warm.normal_impulses[k], warm.tangent_impulses[k]) = (normal, tangent);
            }
            warm
        }));
        // The host's list is hashed only when the device offers one to hold it to (a world
        // whose pair set is on the host, or that has sensors, merges none); its warm starts
        // only when the device matched some too.
        let (inputs, warm) = (&self.input_scratch, &self.warm_scratch);
        // (Kept until the step is done: a step solved again takes them again.)
        let offered = self.device_contacts.as_ref();
        let device_warm = offered.and_then(|list| list.warm.as_ref());
        let device_list = offered.filter(|list| list.hash == hash_all(inputs, input_hash));
        self.input_source = device_list.map(|c| c.buffer.clone());
        let device_warm = device_warm.filter(|(_, hash)| *hash == hash_all(warm, warm_hash));
        self.warm_source = device_warm.map(|(buffer, _)| buffer.clone());
        let h = view.constants.h;
        self.joint_scratch.clear();
        self.joint_scratch
            .extend(motion.joints.iter().map(|j| joint_gpu(j, h)));
        // Each joint's definition, kept on the device; the joints are prepared there from
        // them when the device's joints are the host's last step's (their impulses), and
        // held to the host's prepare by a hash read back after the step.
        let body = |i: u32| {
            let i = i as usize;
            let (body, material) = (&motion.bodies[i], &motion.materials[i]);
            let center = body.local_center.to_array();
            (center, material.inv_inertia, body.is_kinematic)
        };
        self.def_scratch.clear();
        (self.def_scratch).extend(
            (motion.joints.iter().zip(&self.joint_scratch)).map(|(j, r)| joint_def_gpu(j, r, body)),
        );
        let joint_count = self.joint_scratch.len();
        self.joints_here = self.joints_enabled
            && !self.host_joints_only
            && joint_count > 0
            && self.resident_joints.take() == Some(joint_count);
        if self.joints_here {
            self.host_joint_hash = hash_all(&self.joint_scratch, prepared_hash);
        }
        let device = &self.device;
        // Grown to a power of two, but never past what one binding holds.
        let fill = |slot: &mut GrowingBuffer, bytes: &[u8]| {
            slot.reserve(device, bytes.len() as u64, limit);
            if !bytes.is_empty() {
                self.queue.write_buffer(&slot.buffer, 0, bytes);
            }
        };
        // The bodies the device wakes itself (`continuous/sleep.rs`): their inverse masses
        // are the wake's to write back.
        for &body in self.continuous.woken_here() {
            let inv_mass = motion.states[body as usize].inv_mass;
            (self.states).hold_changed(body as usize, |state| state.inv_mass = inv_mass);
        }
        let queue = &self.queue;
        let bodies_sent = self.states.write(device, queue, motion.states, limit)
            + self.poses.write(device, queue, &self.pose_scratch, limit)
            + self.infos.write(device, queue, &self.info_scratch, limit);
        let mut warm_bytes = 0;
        if self.warm_source.is_none() {
            let warm = bytemuck::cast_slice(&self.warm_scratch);
            fill(&mut self.warm_starts, warm);
            warm_bytes = warm.len();
        }
        let mut input_bytes = 0;
        if self.input_source.is_none() {
            let inputs = bytemuck::cast_slice(&self.input_scratch);
            fill(&mut self.contact_inputs, inputs);
            input_bytes = inputs.len();
        }
        // The constraints are unpacked from the inputs on the device.
        let constraints = (self.input_scratch.len() * size_of::<ConstraintGpu>()) as u64;
        self.constraints.reserve(device, constraints, limit);
        // Each contact's impulses, then its hit measures.
        let stored = (2 * view.contacts.len() * size_of::<StoredGpu>()) as u64;
        self.stored.reserve(device, stored, limit);
        let last = (view.contacts.len() * size_of::<LastContactGpu>()) as u64;
        self.last.reserve(device, last, limit);
        let defs_sent = self
            .joint_defs
            .write(device, queue, &self.def_scratch, limit);
        let mut joint_bytes = 0;
        if self.joints_here {
            let bytes = size_of_val(&self.joint_scratch[..]) as u64;
            self.joints.reserve(device, bytes, limit);
        } else {
            let joints = bytemuck::cast_slice(&self.joint_scratch);
            fill(&mut self.joints, joints);
            joint_bytes = joints.len();
        }
        let impulses = (self.joint_scratch.len() * size_of::<JointImpulsesGpu>()) as u64;
        self.joint_impulses.reserve(device, impulses, limit);
        self.turned.reserve(device, bodies as u64 * 4, limit);
        self.uploaded = true;
        self.bytes[0] = bodies_sent
            + (warm_bytes + input_bytes + self.colouring.sent as usize + joint_bytes) as u64
            + defs_sent
            + self.continuous.sent;
        Ok(())
    }

    /// Before the step: whether the device runs the continuous stage, and its records up
    /// where they changed (`continuous/`).
    pub(crate) fn prepare_continuous(&mut self, world: &World) {
        self.continuous.sent = self.continuous.prepare(world);
    }
}

/// The wrapping sum of `hash` over `list`, each record with its index: what the device sums
/// over its own.
fn hash_all<T>(list: &[T], hash: impl Fn(u32, &T) -> u32) -> u32 {
    (list.iter().enumerate()).fold(0u32, |sum, (k, r)| sum.wrapping_add(hash(k as u32, r)))
}
