//! Graph colouring of the contact constraints, so that one colour's constraints can be solved
//! at once: side by side in SIMD lanes and on several threads.
//!
//! ```text
//! per body: a bit mask of the colours its constraints already use
//! per constraint, in a fixed pseudo-random order (see below):
//!     neither body moves -> left out     // static or asleep: no impulse changes anything
//!     free = !(mask[a] | mask[b])        // a body that does not move adds no bits
//!     colour = lowest set bit of free    // greedy: the first colour both bodies lack
//!     none free -> overflow              // solved alone, one at a time
//!     mask[a] |= bit, mask[b] |= bit     // only for bodies that move
//! per colour: its constraints in contact order, packed LANES at a time
//! ```
//!
//! Two constraints of one colour share no moving body, so they write disjoint velocities; a
//! static body (or any body with zero inverse mass) is only read, so it may appear in any
//! number of them. The colouring depends only on the contact list and which bodies move, never
//! on threads: the solve order, and so the result, is the same on any thread count.
//! Greedy colouring needs at most (most constraints on one body + 1) colours; a resting box
//! touches about six bodies, so a pile uses ten or so of the `COLOUR_COUNT`.
//!
//! Why the visit order is shuffled: the colours are solved one after another, so the
//! colouring fixes which constraints see which others' impulses first. Visited in contact
//! order (ascending collider pairs: in a stack, row by row and left to right), the greedy
//! gives the first colours to the left end of every row, the same way every step, and the
//! solver's small error leans one way: `scenes::large_pyramid` (Box2D's 100 rows) swayed
//! by up to 0.23 units at its top between steps 120 and 500, with friction solved once per
//! substep. Visited in a random order, the error has no side to lean to: the same pyramid
//! sways by 0.02 (Box2D's own, in the same scene: 0.05). The order is a fixed permutation of the
//! constraint indices (seeded, made again only when the count passes a power of two), so
//! the colouring is still a function of the contact list alone.

use std::ops::Range;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Colours before the overflow. Each colour costs a pass (and on several threads, a join)
/// per solver stage, so a few dense colours beat many sparse ones; 24 is Box2D v3's number.
pub(crate) const COLOUR_COUNT: usize = 24;

/// The SIMD width: constraints solved side by side. Four f32 lanes is SSE2, the baseline of
/// x86_64, so the default target needs no flag.
pub(crate) const LANES: usize = 4;

/// The seed of the visit order's permutation: any fixed number (a random draw).
const VISIT_SEED: u64 = 0x5eed_c010_0b1e;

/// The colour of a constraint left out: both its bodies stay still.
const UNSOLVED: u8 = u8::MAX;

/// An empty lane (or a lane's missing body).
pub(crate) const NO_INDEX: u32 = u32::MAX;

/// The constraints of one step sorted into colours and packed into lane groups.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConstraintGraph {
    /// Per body: the colours its constraints use this step.
    masks: Vec<u32>,
    /// Per constraint: its colour, `COLOUR_COUNT` for the overflow, or `UNSOLVED`.
    colours: Vec<u8>,
    /// Per constraint: its two bodies, copied in contact order for the shuffled visits.
    pairs: Vec<[u32; 2]>,
    /// The visit order: a fixed permutation of `0..2^k`, the smallest power of two at least
    /// the constraint count (indices past the count are skipped).
    visits: Vec<u32>,
    /// Per colour (and the overflow last): constraints counted, then fill positions.
    offsets: [usize; COLOUR_COUNT + 2],
    /// Constraint indices by colour, in contact order within a colour.
    order: Vec<u32>,
    /// Per group: the constraint index in each lane (`NO_INDEX` for an empty lane).
    pub groups: Vec<[u32; LANES]>,
    /// Per colour: its range in `groups`, colours in order.
    pub colour_groups: Vec<Range<usize>>,
    /// The overflow's groups: one constraint each, solved one after another.
    pub overflow_groups: Range<usize>,
}

impl ConstraintGraph {
    /// Colours constraints between bodies `pairs[i] = [a, b]` and packs them into groups.
    /// `moves(body)` says whether a body's velocity is written by the solver.
    pub fn colour(
        &mut self,
        body_count: usize,
        pairs: impl Iterator<Item = [u32; 2]>,
        moves: impl Fn(u32) -> bool,
    ) {
        self.masks.clear();
        self.masks.resize(body_count, 0);
        self.pairs.clear();
        self.pairs.extend(pairs);
        let count = self.pairs.len();
        self.colours.clear();
        self.colours.resize(count, UNSOLVED);
        self.offsets = [0; COLOUR_COUNT + 2];
        self.shuffle_visits(count);
        for &i in &self.visits {
            let Some(&[a, b]) = self.pairs.get(i as usize) else {
                continue;
            };
            let (move_a, move_b) = (moves(a), moves(b));
            if !move_a && !move_b {
                // Between two bodies that do not move (static, or asleep): no impulse can
                // change anything, so it is in no group (its colour stays UNSOLVED).
                continue;
            }
            let used_a = if move_a { self.masks[a as usize] } else { 0 };
            let used_b = if move_b { self.masks[b as usize] } else { 0 };
            let free = !(used_a | used_b) & ((1u32 << COLOUR_COUNT) - 1);
            let colour = if free == 0 {
                COLOUR_COUNT
            } else {
                let colour = free.trailing_zeros() as usize;
                let bit = 1u32 << colour;
                if move_a {
                    self.masks[a as usize] |= bit;
                }
                if move_b {
                    self.masks[b as usize] |= bit;
                }
                colour
            };
            self.colours[i as usize] = colour as u8;
            self.offsets[colour + 1] += 1;
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
        // Room for the most groups this many constraints can need outside the overflow
        // (each colour's last group may be partly empty), so that a warm step whose colours
        // shift does not grow the list.
        let overflow = self.offsets[COLOUR_COUNT + 1] - self.offsets[COLOUR_COUNT];
        self.groups
            .reserve(count.div_ceil(LANES) + COLOUR_COUNT + overflow);
        self.colour_groups.clear();
        for c in 0..COLOUR_COUNT {
            let members = &self.order[self.offsets[c]..self.offsets[c + 1]];
            if members.is_empty() {
                continue;
            }
            let start = self.groups.len();
            for chunk in members.chunks(LANES) {
                let mut lanes = [NO_INDEX; LANES];
                lanes[..chunk.len()].copy_from_slice(chunk);
                self.groups.push(lanes);
            }
            self.colour_groups.push(start..self.groups.len());
        }
        let start = self.groups.len();
        for &i in &self.order[self.offsets[COLOUR_COUNT]..self.offsets[COLOUR_COUNT + 1]] {
            let mut lanes = [NO_INDEX; LANES];
            lanes[0] = i;
            self.groups.push(lanes);
        }
        self.overflow_groups = start..self.groups.len();
    }

    /// Makes `visits` the permutation for `count` constraints, if it is not already: the
    /// same permutation of `0..count.next_power_of_two()` every time, so a count that stays
    /// within one power of two keeps its order (and no step of it shuffles again).
    fn shuffle_visits(&mut self, count: usize) {
        let size = count.next_power_of_two();
        if self.visits.len() == size {
            return;
        }
        self.visits.clear();
        self.visits.extend(0..size as u32);
        self.visits
            .shuffle(&mut ChaCha8Rng::seed_from_u64(VISIT_SEED));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the colouring's promise: within a colour, no moving body appears twice, every
    /// constraint appears exactly once, and within a colour constraints keep contact order.
    fn check(pairs: &[[u32; 2]], bodies: usize, moves: impl Fn(u32) -> bool + Copy) {
        let mut graph = ConstraintGraph::default();
        graph.colour(bodies, pairs.iter().copied(), moves);
        let mut seen = vec![0; pairs.len()];
        for range in &graph.colour_groups {
            let mut used = vec![false; bodies];
            let mut last = None;
            for lanes in &graph.groups[range.clone()] {
                for &i in lanes.iter().filter(|&&i| i != NO_INDEX) {
                    seen[i as usize] += 1;
                    assert!(last < Some(i), "colour out of contact order");
                    last = Some(i);
                    for body in pairs[i as usize] {
                        if moves(body) {
                            assert!(!used[body as usize], "body {body} twice in a colour");
                            used[body as usize] = true;
                        }
                    }
                }
            }
        }
        for lanes in &graph.groups[graph.overflow_groups.clone()] {
            assert_eq!(lanes[1..], [NO_INDEX; LANES - 1]);
            seen[lanes[0] as usize] += 1;
        }
        for (i, &n) in seen.iter().enumerate() {
            let [a, b] = pairs[i];
            // Every constraint with a moving body once; one between still bodies never.
            let wanted = usize::from(moves(a) || moves(b));
            assert_eq!(n, wanted, "constraint {i} placed {n} times");
        }
    }

    #[test]
    fn a_colour_never_holds_a_moving_body_twice() {
        // A chain 0-1-2-...-9 on a static body 10 touching all of them.
        let mut pairs: Vec<[u32; 2]> = (0..9).map(|i| [i, i + 1]).collect();
        pairs.extend((0..10).map(|i| [i, 10]));
        check(&pairs, 11, |b| b != 10);
    }

    #[test]
    fn a_body_in_more_constraints_than_colours_overflows() {
        // Body 0 touches 30 others: 24 colours, then 6 in the overflow.
        let pairs: Vec<[u32; 2]> = (1..31).map(|i| [0, i]).collect();
        let mut graph = ConstraintGraph::default();
        graph.colour(31, pairs.iter().copied(), |_| true);
        assert_eq!(graph.colour_groups.len(), COLOUR_COUNT);
        assert_eq!(graph.overflow_groups.len(), 30 - COLOUR_COUNT);
        check(&pairs, 31, |_| true);
    }

    #[test]
    fn constraints_between_still_bodies_are_left_out() {
        // Bodies 1 and 2 asleep on static 0; body 3 moves on 0 and 2 (waking is the
        // world's business: here 2 stays still).
        let pairs = [[0, 1], [0, 2], [1, 2], [0, 3], [2, 3]];
        let moves = |b: u32| b == 3;
        let mut graph = ConstraintGraph::default();
        graph.colour(4, pairs.iter().copied(), moves);
        let placed: usize = graph.groups[..]
            .iter()
            .map(|g| g.iter().filter(|&&i| i != NO_INDEX).count())
            .sum();
        assert_eq!(placed, 2);
        check(&pairs, 4, moves);
    }

    #[test]
    fn static_bodies_do_not_take_colours() {
        // Eight bodies on one static ground: one colour holds them all, two groups of four.
        let pairs: Vec<[u32; 2]> = (1..9).map(|i| [0, i]).collect();
        let mut graph = ConstraintGraph::default();
        graph.colour(9, pairs.iter().copied(), |b| b != 0);
        assert_eq!(graph.colour_groups, vec![0..2]);
        assert!(graph.overflow_groups.is_empty());
    }
}
