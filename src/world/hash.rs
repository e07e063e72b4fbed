//! A stable hash of the world's observable state, for comparing two worlds (two peers of a
//! networked game, a replay and its original) without shipping the state itself.
//!
//! ```text
//! h = FNV-1a (64-bit) over little-endian bytes:
//!     body slot count; per body slot, in slot order:
//!         generation, live flag; if live:
//!             kind (static, kinematic, dynamic), centre of mass, rotation (cos, sin),
//!             linear velocity, angular velocity, awake flag, rest timer
//!     live joint count; per live joint, in slot order: slot, generation
//! ```
//!
//! The hash is written out here rather than taken from `std::hash`: `DefaultHasher`'s
//! algorithm may change between Rust releases, and `Hash` for floats does not exist. FNV-1a
//! over explicitly little-endian bytes gives the same number on every platform and version.
//! Floats enter as their bit patterns, so `0.0` and `-0.0` differ, as they may in the next
//! step's results.

use super::World;
use super::joints::JointSet;
use crate::dynamics::body_set::BodySet;
use crate::dynamics::sleep::Sleep;

/// FNV-1a's 64-bit offset basis and prime.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, fed little-endian bytes.
struct Fnv1a(u64);

impl Fnv1a {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }

    fn f32(&mut self, x: f32) {
        self.u32(x.to_bits());
    }
}

impl World {
    /// A 64-bit hash of the state a user can observe that decides the next steps: every
    /// body slot in slot order with its handle's generation, and for a live body its kind,
    /// centre of mass, rotation, linear and angular velocity, whether it is awake and how
    /// long it has rested (the sleep timer); then the live joints' handles. Two worlds hash
    /// alike when these agree bit for bit (up to the odd 64-bit collision).
    ///
    /// The number is stable: the same on every platform and Rust version (FNV-1a over
    /// little-endian bytes, written out here; not `std`'s hasher, whose algorithm may
    /// change), so peers running the same version of this crate compare it as it is; a
    /// release that changes what it covers says so. A networked game in lockstep or with rollback
    /// compares it between peers, every frame or every few, to detect a desync at the
    /// step it happens. It does not cover what no reader shows and a desync would soon
    /// move into the bodies' state anyway (warm-start impulses, kept manifolds), nor the
    /// world's settings (gravity, substeps), which a desync cannot change.
    ///
    /// What keeps two machines' worlds equal (the CPU narrow phases, the crate's own
    /// trigonometry) is in `docs/reliability.md`, "Determinism".
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, CpuNarrowPhase, Polygon, World};
    /// let mut a = World::default();
    /// a.add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::Y))?;
    /// let mut b = a.clone();
    /// assert_eq!(a.state_hash(), b.state_hash());
    /// a.step(1.0 / 60.0, &mut CpuNarrowPhase::new())?;
    /// assert_ne!(a.state_hash(), b.state_hash());
    /// b.step(1.0 / 60.0, &mut CpuNarrowPhase::new())?;
    /// assert_eq!(a.state_hash(), b.state_hash());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv1a(FNV_OFFSET);
        self.bodies.hash_into(&mut h, &self.sleep);
        self.joints.hash_into(&mut h);
        h.0
    }
}

impl BodySet {
    /// The bodies' share of [`World::state_hash`]: the slot count, then per slot its
    /// generation and live flag, and for a live body its kind, pose, velocity, whether it is
    /// awake and its rest timer.
    fn hash_into(&self, h: &mut Fnv1a, sleep: &Sleep) {
        let slots = self.slots.len();
        h.u32(slots as u32);
        for slot in 0..slots {
            let live = self.slots.is_live(slot);
            h.u32(self.slots.generation(slot));
            h.bytes(&[u8::from(live)]);
            if !live {
                continue;
            }
            let body = &self.records[slot];
            let kind = if body.is_static {
                0
            } else if body.is_kinematic {
                1
            } else {
                2
            };
            let state = &self.states[slot];
            h.bytes(&[kind]);
            for x in [
                self.centers[slot].x,
                self.centers[slot].y,
                self.rotations[slot].x,
                self.rotations[slot].y,
                state.linear_velocity.x,
                state.linear_velocity.y,
                state.angular_velocity,
            ] {
                h.f32(x);
            }
            h.bytes(&[u8::from(sleep.is_awake(slot, body))]);
            h.f32(sleep.timer(slot));
        }
    }
}

impl JointSet {
    /// The joints' share of [`World::state_hash`]: the live count, then per live joint in
    /// slot order its slot and generation.
    fn hash_into(&self, h: &mut Fnv1a) {
        h.u32(self.slots.live_count() as u32);
        for slot in (0..self.ids.len()).filter(|&s| self.slots.is_live(s)) {
            let joint = self.ids[slot];
            h.u32(joint.index() as u32);
            h.u32(joint.generation());
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::{BodyDef, CpuNarrowPhase, Polygon};

    const DT: f32 = 1.0 / 60.0;

    /// A box on a floor.
    fn box_on_floor() -> (World, crate::BodyId) {
        let mut world = World::default();
        world
            .add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))
            .unwrap();
        let body = world
            .add_body(&BodyDef::dynamic(
                Polygon::rectangle(0.5, 0.5),
                Vec2::new(0.0, 1.0),
            ))
            .unwrap();
        (world, body)
    }

    /// Two worlds whose one body has the same state in the same slot, under generation 0
    /// in one and 1 in the other, hash apart: a handle kept by a peer names a body there
    /// and a stale slot here.
    #[test]
    fn the_hash_sees_the_slot_generations() {
        let def = BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 1.0));
        let mut reused = World::default();
        let first = reused.add_body(&def).unwrap();
        reused.remove_body(first).unwrap();
        // The step reports the removal; then the slot is free again.
        reused.step(DT, &mut CpuNarrowPhase::new()).unwrap();
        let mut fresh = World::default();
        fresh.step(DT, &mut CpuNarrowPhase::new()).unwrap();
        let again = reused.add_body(&def).unwrap();
        let new = fresh.add_body(&def).unwrap();
        assert_eq!((again.index(), again.generation()), (0, 1));
        assert_eq!((new.index(), new.generation()), (0, 0));
        assert_eq!(reused.transform(again), fresh.transform(new));
        assert_ne!(reused.state_hash(), fresh.state_hash());
    }

    /// A box that fell asleep and the same box woken (velocity 0 in both) hash apart: the
    /// one sleeps on, the other must rest [`TIME_TO_SLEEP`](crate::world::TIME_TO_SLEEP)
    /// again first.
    #[test]
    fn the_hash_sees_the_sleep_state() {
        let (mut world, body) = box_on_floor();
        let mut narrow = CpuNarrowPhase::new();
        let mut steps = 0;
        while world.is_awake(body) {
            world.step(DT, &mut narrow).unwrap();
            steps += 1;
            assert!(steps < 600, "the box never fell asleep");
        }
        let mut woken = world.clone();
        woken.wake(body).unwrap();
        assert_eq!(woken.linear_velocity(body), world.linear_velocity(body));
        assert_ne!(woken.state_hash(), world.state_hash());
    }

    /// FNV-1a's published test vectors: the empty input is the offset basis, and "a" and
    /// "foobar" hash to these (64-bit, from the algorithm's reference page).
    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        let hash = |s: &str| {
            let mut h = Fnv1a(FNV_OFFSET);
            h.bytes(s.as_bytes());
            h.0
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
