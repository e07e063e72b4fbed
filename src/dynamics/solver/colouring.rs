//! Graph colouring of the contact and joint constraints, so that one colour's constraints
//! can be solved at once: side by side in SIMD lanes (contacts) and on several threads.
//!
//! ```text
//! per body: a bit mask of the colours its constraints already use
//! per constraint that was coloured last step too (same collider pair, in ascending order):
//!     keep its colour if both its moving bodies still lack it
//! the others: joints in slot order, then contacts in a shuffled order (see below):
//!     neither body moves -> left out     // static or asleep: no impulse changes anything
//!     free = !(mask[a] | mask[b])        // a body that does not move adds no bits
//!     colour = lowest set bit of free    // greedy: the first colour both bodies lack
//!     none free -> overflow              // solved alone, one at a time
//!     mask[a] |= bit, mask[b] |= bit     // only for bodies that move
//! per colour: its contacts in contact order, packed LANES at a time; its joints in slot
//!     order, a list of their own
//! ```
//!
//! A joint is an edge between its two bodies, as a contact is, and takes its colour from the
//! same masks: a colour's joints and contacts share no moving body either, so the solver
//! runs a colour's joints beside its contact groups, on any thread (as Box2D v3 does). Its
//! key sorts after every contact's (`JOINT_KEY`, then its slot), so that its colour persists
//! from step to step by the same merge.
//!
//! Why new joints are coloured before new contacts: the colours are solved in order, and a
//! body's joints then take its first colours, so its contacts (with the ground, say) come
//! after them and have the last word in a pass, as when every joint was solved before the
//! contacts. Coloured in one shuffle with them, a dropped ragdoll's joints were often solved
//! after its ground contacts and pulled its limbs 8 cm into the ground (1 cm before).
//!
//! Two constraints of one colour share no moving body, so they write disjoint velocities; a
//! static body (or any body with zero inverse mass) is only read, so it may appear in any
//! number of them. The colouring depends only on the contact lists of this step and the
//! last (and which bodies move), never on threads: the solve order, and so the result, is
//! the same on any thread count. Greedy colouring needs at most (most constraints on one
//! body + 1) colours; a resting box touches about six bodies, so a pile uses ten or so of
//! the `COLOUR_COUNT`.
//!
//! Colours persist, as Box2D v3's do: a settled scene's contacts keep theirs, and a step
//! colours only its new contacts (a merge with last step's list finds the old ones); a step
//! whose constraints and moving bodies are last step's keeps the whole colouring, groups
//! and all.
//!
//! Why new contacts are visited in a shuffled order: the colours are solved one after
//! another, so the colouring fixes which constraints see which others' impulses first.
//! Visited in contact order (ascending collider pairs: in a stack, row by row and left to
//! right), the greedy gives the first colours to the left end of every row, and the
//! solver's small error leans one way: `scenes::large_pyramid` (Box2D's 100 rows) swayed by
//! up to 0.23 units at its top between steps 120 and 500, with friction solved once per
//! substep. Visited in a random order, the error has no side to lean to: the same pyramid
//! sways by 0.02 (measured with a ChaCha8 shuffle; Box2D's own, in the same scene: 0.05).
//! The shuffle draws from a fixed seed, so the colouring stays a function of the contact
//! lists; the draws are a hash of the position and the seed (SplitMix64's output function,
//! a bijection of 64-bit words whose every output bit depends on every input bit), which is
//! all the shuffle needs, rather than a generator crate the world would otherwise not
//! depend on.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Colours before the overflow. Each colour costs a pass (and on several threads, a join)
/// per solver stage, so a few dense colours beat many sparse ones; 24 is Box2D v3's number.
pub(crate) const COLOUR_COUNT: usize = 24;

/// The SIMD width: constraints solved side by side. Four f32 lanes is SSE2, the baseline of
/// x86_64, so the default target needs no flag.
pub(crate) const LANES: usize = 4;

/// The seed of the shuffle of each step's new constraints: any fixed number.
pub(crate) const VISIT_SEED: u64 = 0x5eed_c010_0b1e;

/// Puts `items` in an order fixed by `seed` and their count, each order about equally
/// likely: Fisher–Yates, position `k`'s draw from `0..=k` being the high word of
/// `mix(seed + k) * (k + 1)` (a multiply instead of a modulo; the bias is below 2^-32).
fn shuffle(items: &mut [u32], seed: u64) {
    for k in (1..items.len()).rev() {
        let draw = mix(seed.wrapping_add(k as u64));
        let j = ((u128::from(draw) * (k as u128 + 1)) >> 64) as usize;
        items.swap(k, j);
    }
}

/// A stamp no colouring has had yet (from 1).
fn next_stamp() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(1);
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// SplitMix64's output function (Steele, Lea and Flood, 2014).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The colour of a constraint left out (both its bodies stay still), and of one not
/// coloured yet.
pub(crate) const UNSOLVED: u8 = u8::MAX;

/// An empty lane (or a lane's missing body).
pub(crate) const NO_INDEX: u32 = u32::MAX;

/// The first word of a joint's key: above every collider index, so joints' keys follow the
/// contacts' and ascend by slot.
pub(crate) const JOINT_KEY: u32 = u32::MAX;

/// A joint as a step coloured it: its slot, its bodies then, and its colour.
pub(crate) type JointColour = (u32, [u32; 2], u8);

/// The constraints of one step sorted into colours and packed into lane groups.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConstraintGraph {
    /// Per body: the colours its constraints use this step.
    masks: Vec<u32>,
    /// Per constraint (the contacts, then the joints): its key (the collider pair, or
    /// `[JOINT_KEY, slot]`; keys ascend), its two bodies and its colour (`COLOUR_COUNT` for
    /// the overflow, or `UNSOLVED`).
    keys: Vec<[u32; 2]>,
    pairs: Vec<[u32; 2]>,
    colours: Vec<u8>,
    /// Per body, a bit: whether it moves (64 bodies a word).
    moving: Vec<u64>,
    /// Last step's keys, bodies, colours and moving bodies: the colours that may persist.
    previous_keys: Vec<[u32; 2]>,
    previous_pairs: Vec<[u32; 2]>,
    previous_colours: Vec<u8>,
    previous_moving: Vec<u64>,
    /// Which colouring this graph's colours are, and which its last step's were: a number
    /// no other colouring (of any graph) has, so that a GPU colouring that follows this
    /// one can tell whether its last step is this graph's (see `stamps`).
    stamp: u64,
    previous_stamp: u64,
    /// This step's constraints to colour afresh, shuffled.
    fresh: Vec<u32>,
    /// Per colour (and the overflow last): constraints counted, then fill positions.
    offsets: [usize; COLOUR_COUNT + 2],
    /// Constraint indices by colour, in contact order within a colour.
    order: Vec<u32>,
    /// How many of the constraints are contacts (the rest are joints).
    contact_count: usize,
    /// Per group: the contact index in each lane (`NO_INDEX` for an empty lane).
    pub groups: Vec<[u32; LANES]>,
    /// Per colour that holds a constraint: its range in `groups` (maybe empty), colours in
    /// order.
    pub colour_groups: Vec<Range<usize>>,
    /// The overflow's groups: one contact each, solved one after another.
    pub overflow_groups: Range<usize>,
    /// Joint slots by colour, ascending within a colour, the overflow's last.
    pub joint_order: Vec<u32>,
    /// Per colour, as `colour_groups`: its range in `joint_order` (maybe empty).
    pub colour_joints: Vec<Range<usize>>,
    /// The overflow's joints in `joint_order`, solved one after another.
    pub overflow_joints: Range<usize>,
    /// Every group, ordered by its first constraint: the order the store stage copies the
    /// impulses out in. A colour's constraints are spread over the whole contact list, so
    /// storing colour after colour would write all over the list once per colour; in this
    /// order it is written about once, front to back (on `many_pyramids`, 0.46 ms a step
    /// became 0.28). (The prepare stage, whose writes are the groups, 600 bytes each, fills
    /// them in their own order: in this one it was slower, 2.4 ms a step against 2.1.)
    pub store_order: Vec<u32>,
    /// Per constraint: the group it starts (its first lane), or `NO_INDEX`.
    group_starts: Vec<u32>,
    /// Whether `colours` wait for this step's colouring, done elsewhere (`defer`).
    pending: bool,
    /// Whether the groups and orders were built from other colours than `colours`, which
    /// were set from elsewhere (`set_colours`).
    stale_groups: bool,
}

impl ConstraintGraph {
    /// Colours contacts given as (key, bodies `[a, b]`), keys ascending (the colliders in
    /// touch), and joints given as (slot, bodies), slots ascending, and packs the contacts
    /// into groups and the joints into per-colour lists; a constraint whose key was coloured
    /// last step keeps its colour where it can. `moves(body)` says whether a body's velocity
    /// is written by the solver.
    pub fn colour(
        &mut self,
        body_count: usize,
        contacts: impl Iterator<Item = ([u32; 2], [u32; 2])>,
        joints: impl Iterator<Item = (u32, [u32; 2])>,
        moves: impl Fn(u32) -> bool,
    ) {
        if self.list(body_count, contacts, joints, moves) {
            self.colour_listed();
        } else if self.stale_groups {
            self.build_groups();
        }
    }

    /// Lists a step's constraints as [`ConstraintGraph::colour`] takes them, and leaves
    /// their colouring to be done elsewhere (the GPU world's, whose colours
    /// [`ConstraintGraph::set_colours`] takes) or later ([`ConstraintGraph::finish_colouring`]).
    /// A step whose constraints and moving bodies are last step's keeps its colours here.
    pub fn defer(
        &mut self,
        body_count: usize,
        contacts: impl Iterator<Item = ([u32; 2], [u32; 2])>,
        joints: impl Iterator<Item = (u32, [u32; 2])>,
        moves: impl Fn(u32) -> bool,
    ) {
        self.pending = self.list(body_count, contacts, joints, moves);
    }

    /// The colouring [`ConstraintGraph::defer`] left, done here after all (when the
    /// colouring elsewhere failed), with the groups.
    pub fn finish_colouring(&mut self) {
        if std::mem::take(&mut self.pending) {
            self.colour_listed();
        } else if self.stale_groups {
            self.build_groups();
        }
    }

    /// Takes `colours` (per constraint listed by [`ConstraintGraph::defer`]) as this step's:
    /// the colouring done elsewhere, which gives the colours [`ConstraintGraph::colour`]
    /// would. The groups are built when a step on the host needs them.
    pub fn set_colours(&mut self, colours: &[u8]) {
        debug_assert_eq!(colours.len(), self.keys.len(), "a colour per constraint");
        self.pending = false;
        if self.colours != colours {
            self.colours.clear();
            self.colours.extend_from_slice(colours);
            self.stale_groups = true;
        }
    }

    /// The last step's constraints' keys and colours, while this step's colouring is
    /// deferred ([`ConstraintGraph::defer`]): what a colouring elsewhere starts from.
    pub fn last_step(&self) -> (&[[u32; 2]], &[u8]) {
        if self.pending {
            (&self.previous_keys, &self.previous_colours)
        } else {
            // The constraints are last step's, and so are the colours kept.
            (&self.keys, &self.colours)
        }
    }

    /// Takes this step's constraints, last step's kept as the previous: returns whether
    /// they need colouring (else the colours are last step's, kept).
    fn list(
        &mut self,
        body_count: usize,
        contacts: impl Iterator<Item = ([u32; 2], [u32; 2])>,
        joints: impl Iterator<Item = (u32, [u32; 2])>,
        moves: impl Fn(u32) -> bool,
    ) -> bool {
        self.previous_stamp = std::mem::replace(&mut self.stamp, next_stamp());
        std::mem::swap(&mut self.keys, &mut self.previous_keys);
        std::mem::swap(&mut self.pairs, &mut self.previous_pairs);
        std::mem::swap(&mut self.colours, &mut self.previous_colours);
        std::mem::swap(&mut self.moving, &mut self.previous_moving);
        self.keys.clear();
        self.pairs.clear();
        for (key, bodies) in contacts {
            self.keys.push(key);
            self.pairs.push(bodies);
        }
        self.contact_count = self.keys.len();
        for (slot, bodies) in joints {
            self.keys.push([JOINT_KEY, slot]);
            self.pairs.push(bodies);
        }
        self.moving.clear();
        self.moving.resize(body_count.div_ceil(64), 0);
        for body in 0..body_count {
            self.moving[body / 64] |= u64::from(moves(body as u32)) << (body % 64);
        }
        if self.keys == self.previous_keys
            && self.pairs == self.previous_pairs
            && self.moving == self.previous_moving
        {
            // The same constraints between the same bodies, the same of them moving: every
            // colour stays, and so do the groups (a settled scene, most steps).
            std::mem::swap(&mut self.colours, &mut self.previous_colours);
            return false;
        }
        true
    }

    /// Colours the constraints [`ConstraintGraph::list`] took: kept colours, then the new
    /// constraints greedily in visit order; then the groups.
    fn colour_listed(&mut self) {
        self.masks.clear();
        self.masks.resize(64 * self.moving.len(), 0);
        let count = self.keys.len();
        self.colours.clear();
        self.colours.resize(count, UNSOLVED);
        self.keep_colours();
        // The new joints first, in slot order, then the new contacts shuffled (see the
        // module notes).
        let contacts = self
            .fresh
            .partition_point(|&i| (i as usize) < self.contact_count);
        shuffle(&mut self.fresh[..contacts], VISIT_SEED);
        self.fresh.rotate_left(contacts);
        for k in 0..self.fresh.len() {
            let i = self.fresh[k];
            let [a, b] = self.pairs[i as usize];
            let moving = [self.moves(a), self.moves(b)];
            let used = self.used([a, b], moving);
            let free = !used & ((1u32 << COLOUR_COUNT) - 1);
            self.colours[i as usize] = if free == 0 {
                COLOUR_COUNT as u8
            } else {
                let colour = free.trailing_zeros() as u8;
                self.take([a, b], moving, colour);
                colour
            };
        }
        self.build_groups();
    }

    /// This step's constraints as a snapshot keeps them (`world/snapshot/`): per contact
    /// its colour (the contacts' keys are the warm starts' colliders and their pairs the
    /// colliders' bodies), per coloured joint its slot, bodies and colour (as the step saw
    /// them: the joint may have been removed since, and its slot reused), and per body
    /// whether it moved.
    pub fn saved(&self) -> (&[u8], impl Iterator<Item = JointColour> + '_, &[u64]) {
        debug_assert!(!self.pending, "a step's colouring still deferred");
        let (contacts, joints) = self.colours.split_at(self.contact_count);
        let n = self.contact_count;
        let joints = (self.keys[n..].iter().zip(&self.pairs[n..]))
            .zip(joints)
            .map(|((key, &pair), &colour)| (key[1], pair, colour));
        (contacts, joints, &self.moving)
    }

    /// A graph whose last step coloured the contacts `contact_keys` and the joints in slots
    /// `joint_slots` (between `pairs` of bodies, the contacts' then the joints', each below
    /// 64 times `moving`'s length) with `colours` (in the same order), `moving` its moving
    /// bodies' bits: the groups are built again from the colours, as that step built them,
    /// so that a next step with the same constraints keeps them as the original would
    /// have. The index of the first constraint whose colour is not one (or that shares a
    /// colour with another of a moving body it acts on, which would let two threads write
    /// one body) is an error.
    pub fn restored(
        contact_keys: Vec<[u32; 2]>,
        joint_slots: &[u32],
        pairs: Vec<[u32; 2]>,
        colours: Vec<u8>,
        moving: Vec<u64>,
    ) -> Result<Self, usize> {
        let contact_count = contact_keys.len();
        let mut keys = contact_keys;
        keys.extend(joint_slots.iter().map(|&slot| [JOINT_KEY, slot]));
        let mut graph = ConstraintGraph {
            keys,
            pairs,
            colours,
            moving,
            contact_count,
            stamp: next_stamp(),
            ..ConstraintGraph::default()
        };
        graph.masks.resize(graph.moving.len() * 64, 0);
        for i in 0..graph.keys.len() {
            let colour = graph.colours[i];
            let [a, b] = graph.pairs[i];
            let moving = [graph.moves(a), graph.moves(b)];
            let ok = match usize::from(colour) {
                c if c < COLOUR_COUNT => graph.used([a, b], moving) & (1 << c) == 0,
                COLOUR_COUNT => true,
                _ => colour == UNSOLVED && moving == [false; 2],
            };
            if !ok {
                return Err(i);
            }
            if usize::from(colour) < COLOUR_COUNT {
                graph.take([a, b], moving, colour);
            }
        }
        graph.build_groups();
        Ok(graph)
    }

    /// Per constraint (the contacts, then the joints), its colour this step: below
    /// `COLOUR_COUNT`, `COLOUR_COUNT` for the overflow, `UNSOLVED` for one left out.
    pub fn colours(&self) -> &[u8] {
        &self.colours
    }

    /// The stamps of the last colouring's colours and of the one before it (0: none).
    pub fn stamps(&self) -> [u64; 2] {
        [self.previous_stamp, self.stamp]
    }

    /// The constraints in solve order: the contact indices by colour (ascending within a
    /// colour, the overflow's last; a colour's joints sit after its contacts in the list,
    /// outside its range), and per colour (then the overflow) its contacts' range in that
    /// list and its joints' range in `joint_order`, each maybe empty.
    pub fn solve_order(&self) -> (&[u32], [[Range<usize>; 2]; COLOUR_COUNT + 1]) {
        let mut joint_colours = self.colour_joints.iter();
        let ranges = std::array::from_fn(|c| {
            let members = &self.order[self.offsets[c]..self.offsets[c + 1]];
            let split = members.partition_point(|&i| (i as usize) < self.contact_count);
            let contacts = self.offsets[c]..self.offsets[c] + split;
            // `colour_joints` lists the colours that hold a constraint, in order.
            let joints = if c == COLOUR_COUNT {
                self.overflow_joints.clone()
            } else if members.is_empty() {
                0..0
            } else {
                joint_colours.next().cloned().unwrap_or(0..0)
            };
            [contacts, joints]
        });
        (&self.order, ranges)
    }

    /// The groups from the colours: per colour its constraints in contact order, `LANES`
    /// at a time, then the overflow's one by one.
    fn build_groups(&mut self) {
        self.offsets = [0; COLOUR_COUNT + 2];
        for &colour in &self.colours {
            if colour != UNSOLVED {
                self.offsets[colour as usize + 1] += 1;
            }
        }
        // Counts to starting positions (a prefix sum); offsets[c] is where colour c begins.
        for c in 1..self.offsets.len() {
            self.offsets[c] += self.offsets[c - 1];
        }
        let mut fill = self.offsets;
        self.order.clear();
        self.order.resize(self.offsets[COLOUR_COUNT + 1], 0);
        for (i, &colour) in self.colours.iter().enumerate() {
            if colour == UNSOLVED {
                continue;
            }
            let slot = &mut fill[colour as usize];
            self.order[*slot] = i as u32;
            *slot += 1;
        }

        self.groups.clear();
        // Room for the most groups this many contacts can need outside the overflow (each
        // colour's last group may be partly empty), so that a warm step whose colours shift
        // does not grow the list.
        let contacts = self.contact_count;
        let overflow = self.offsets[COLOUR_COUNT + 1] - self.offsets[COLOUR_COUNT];
        self.groups
            .reserve(contacts.div_ceil(LANES) + COLOUR_COUNT + overflow);
        self.colour_groups.clear();
        self.joint_order.clear();
        self.colour_joints.clear();
        for c in 0..COLOUR_COUNT {
            let members = &self.order[self.offsets[c]..self.offsets[c + 1]];
            if members.is_empty() {
                continue;
            }
            // A colour's members ascend: its contacts first, then its joints.
            let split = members.partition_point(|&i| (i as usize) < contacts);
            let start = self.groups.len();
            for chunk in members[..split].chunks(LANES) {
                let mut lanes = [NO_INDEX; LANES];
                lanes[..chunk.len()].copy_from_slice(chunk);
                self.groups.push(lanes);
            }
            self.colour_groups.push(start..self.groups.len());
            let start = self.joint_order.len();
            let keys = &self.keys;
            self.joint_order
                .extend(members[split..].iter().map(|&i| keys[i as usize][1]));
            self.colour_joints.push(start..self.joint_order.len());
        }
        let members = &self.order[self.offsets[COLOUR_COUNT]..self.offsets[COLOUR_COUNT + 1]];
        let split = members.partition_point(|&i| (i as usize) < contacts);
        let start = self.groups.len();
        for &i in &members[..split] {
            let mut lanes = [NO_INDEX; LANES];
            lanes[0] = i;
            self.groups.push(lanes);
        }
        self.overflow_groups = start..self.groups.len();
        let start = self.joint_order.len();
        let keys = &self.keys;
        self.joint_order
            .extend(members[split..].iter().map(|&i| keys[i as usize][1]));
        self.overflow_joints = start..self.joint_order.len();

        self.group_starts.clear();
        self.group_starts.resize(contacts, NO_INDEX);
        for (g, lanes) in self.groups.iter().enumerate() {
            self.group_starts[lanes[0] as usize] = g as u32;
        }
        self.store_order.clear();
        self.store_order
            .extend(self.group_starts.iter().copied().filter(|&g| g != NO_INDEX));
        self.stale_groups = false;
    }

    /// Gives each constraint that was coloured last step (found by a merge of the two
    /// ascending key lists) its old colour, where both its moving bodies still lack it; the
    /// other constraints with a moving body go to `fresh`, in contact order.
    fn keep_colours(&mut self) {
        self.fresh.clear();
        let mut old = 0;
        for i in 0..self.keys.len() {
            let [a, b] = self.pairs[i];
            let moving = [self.moves(a), self.moves(b)];
            if moving == [false; 2] {
                // Between two bodies that do not move (static, or asleep): no impulse can
                // change anything, so it is in no group.
                continue;
            }
            let key = self.keys[i];
            while old < self.previous_keys.len() && self.previous_keys[old] < key {
                old += 1;
            }
            let kept = (self.previous_keys.get(old) == Some(&key))
                .then(|| self.previous_colours[old])
                .filter(|&c| usize::from(c) < COLOUR_COUNT)
                .filter(|&c| self.used([a, b], moving) & (1 << c) == 0);
            match kept {
                Some(colour) => {
                    self.take([a, b], moving, colour);
                    self.colours[i] = colour;
                }
                None => self.fresh.push(i as u32),
            }
        }
    }

    /// Whether `body` moves, from this step's bits (`moving`).
    fn moves(&self, body: u32) -> bool {
        let body = body as usize;
        self.moving[body / 64] >> (body % 64) & 1 == 1
    }

    /// The colours the moving ones of `bodies` already use.
    fn used(&self, [a, b]: [u32; 2], [move_a, move_b]: [bool; 2]) -> u32 {
        let used_a = if move_a { self.masks[a as usize] } else { 0 };
        let used_b = if move_b { self.masks[b as usize] } else { 0 };
        used_a | used_b
    }

    /// Marks `colour` used by the moving ones of `bodies`.
    fn take(&mut self, [a, b]: [u32; 2], [move_a, move_b]: [bool; 2], colour: u8) {
        let bit = 1u32 << colour;
        if move_a {
            self.masks[a as usize] |= bit;
        }
        if move_b {
            self.masks[b as usize] |= bit;
        }
    }
}

#[cfg(test)]
#[path = "colouring_tests.rs"]
mod tests;
