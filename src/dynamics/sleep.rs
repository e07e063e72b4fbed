//! Sleeping: an island of touching bodies that has stayed slow for a while stops being
//! simulated until something touches it or the API wakes it.
//!
//! ```text
//! after each step, per awake dynamic body:
//!     slow = |v| < SLEEP_SPEED and |w| * max_extent < SLEEP_SPEED
//!     timer = slow ? timer + dt : 0
//! if some timer reached TIME_TO_SLEEP:
//!     islands = union-find over the contacts and joints between two awake dynamic bodies
//!               (static bodies do not join islands: a floor does not tie its boxes together)
//!     an island whose every timer reached TIME_TO_SLEEP sleeps: velocities 0, inverse mass
//!     and inertia 0 in the solver's state (it neither moves nor takes impulses), labelled
//!     with the island so that it wakes as one
//! before each solve, per contact and joint: an awake dynamic body touching (or joined to) a
//! sleeping one wakes the sleeping one's island (its inverse masses back, timers 0)
//! ```
//!
//! A kinematic body never sleeps (it is cheap: the solver only moves it) and joins no island
//! (a platform does not tie together the stacks it carries), but it has a timer, reset
//! while its velocity is not zero: an island touching a kinematic body whose timer is below
//! [`TIME_TO_SLEEP`] stays awake, and such a body wakes the sleeping bodies it touches, as
//! an awake dynamic body does. So a moving platform keeps its load awake, and a load
//! resting on a platform that stopped may sleep.
//!
//! A sleeping body costs no solver work: a constraint between two bodies that do not move is
//! left out of the colouring (see `ConstraintGraph::colour`), and its warm-start impulses
//! stay for when it wakes. Its pairs still pass the broad phase and the recycling test (it
//! does not move, so its kept manifolds are reused as they are). The decisions read only
//! the bodies' states and the contact list, in order: the same on any thread count and with
//! any narrow phase.

use glam::Vec2;

use rayon::prelude::*;

use crate::collision::manifold::Contact;
use crate::dynamics::body::Body;
use crate::dynamics::body_set::BodySet;
use crate::dynamics::state::BodyState;
use crate::parallel;

/// Contacts per task of `Sleep::wake_touched`: four scattered reads each, some 10 ns.
const CONTACTS_PER_TASK: usize = 4096;

/// A body slower than this, in units per second, counts as resting (and so does its spin,
/// as the speed of its farthest point about its centre). Box2D's default sleep threshold
/// (0.05 m/s) for the pieces about a unit across this crate is tuned for.
pub const SLEEP_SPEED: f32 = 0.05;

/// How long, in seconds, every body of an island must have rested before the island sleeps:
/// Box2D's `b2_timeToSleep`. Long enough that a body at the top of its bounce (speed 0 for
/// an instant) does not sleep there.
pub const TIME_TO_SLEEP: f32 = 0.5;

/// No island: the label of an awake body.
pub(crate) const AWAKE: u32 = u32::MAX;

/// The world's sleeping state: per body, how long it has rested, and the island it sleeps
/// with. Warm, it allocates nothing.
#[derive(Clone, Debug)]
pub(crate) struct Sleep {
    pub(crate) enabled: bool,
    /// Per body: seconds it has rested (awake bodies).
    pub(crate) timers: Vec<f32>,
    /// Per body: the island it sleeps with (the index of one of its bodies), or `AWAKE`.
    pub(crate) islands: Vec<u32>,
    /// Scratch: union-find parents, the least timer of each island root, and the islands
    /// to wake.
    parents: Vec<u32>,
    least: Vec<f32>,
    to_wake: Vec<u32>,
    /// Scratch of `wake_touched`: the islands to wake, per block of contacts.
    wake_blocks: Vec<Vec<u32>>,
    /// The bodies the last wake of islands woke (`wake_islands`), ascending, and whether
    /// any body slept when the last `wake_touched` began: read by `touch_woken` right
    /// after `wake_touched` (the GPU world's device wakes the same bodies).
    woken: Vec<u32>,
    touch_looked: bool,
    /// Dynamic bodies, and of them those asleep.
    pub(crate) dynamic: usize,
    pub(crate) asleep: usize,
}

impl Default for Sleep {
    fn default() -> Self {
        Sleep {
            enabled: true,
            timers: Vec::new(),
            islands: Vec::new(),
            parents: Vec::new(),
            least: Vec::new(),
            to_wake: Vec::new(),
            wake_blocks: Vec::new(),
            woken: Vec::new(),
            touch_looked: false,
            dynamic: 0,
            asleep: 0,
        }
    }
}

impl Sleep {
    /// Whether islands may fall asleep.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A new body in slot `body` (a new slot at the end, or one a removed body left):
    /// awake (only `dynamic` bodies are counted, awake or asleep).
    pub fn add_body(&mut self, body: usize, dynamic: bool) {
        if body == self.timers.len() {
            self.timers.push(0.0);
            self.islands.push(AWAKE);
        } else {
            self.timers[body] = 0.0;
            self.islands[body] = AWAKE;
        }
        self.dynamic += usize::from(dynamic);
    }

    /// Body `body` leaves the world. The caller wakes its island first, so that the bodies
    /// it held up fall; then it is awake, and no longer counted.
    pub fn remove_body(&mut self, body: usize, dynamic: bool) {
        if self.islands[body] != AWAKE {
            self.islands[body] = AWAKE;
            self.asleep -= 1;
        }
        self.timers[body] = 0.0;
        self.dynamic -= usize::from(dynamic);
    }

    /// Seconds `body` has rested (reset when it moves or wakes).
    pub fn timer(&self, body: usize) -> f32 {
        self.timers[body]
    }

    /// Whether `body` sleeps.
    pub fn is_asleep(&self, body: usize) -> bool {
        self.islands[body] != AWAKE
    }

    /// Whether a kinematic body has rested (velocity zero) for [`TIME_TO_SLEEP`]: it then
    /// keeps nothing awake. Always false while sleeping is off (the timers stand still).
    pub fn kinematic_rests(&self, body: usize) -> bool {
        self.timers[body] >= TIME_TO_SLEEP
    }

    /// Whether `body` keeps the bodies it touches awake: an awake dynamic body, or a
    /// kinematic one that has not rested for [`TIME_TO_SLEEP`].
    fn keeps_awake(&self, body: usize, bodies: &[Body]) -> bool {
        let b = &bodies[body];
        if b.is_kinematic {
            !self.kinematic_rests(body)
        } else {
            !b.is_static && self.islands[body] == AWAKE
        }
    }

    /// Whether body `body` (of static record `record`) is simulated: never a static one; a
    /// kinematic one until it has rested (velocity zero) long enough to let what it touches
    /// sleep; a dynamic one while its island is awake.
    pub fn is_awake(&self, body: usize, record: &Body) -> bool {
        if record.is_kinematic {
            !self.kinematic_rests(body)
        } else {
            !record.is_static && !self.is_asleep(body)
        }
    }

    /// Dynamic bodies awake.
    pub fn awake_count(&self) -> usize {
        self.dynamic - self.asleep
    }

    /// Turns sleeping on or off; off wakes every body.
    pub fn set_enabled(&mut self, enabled: bool, bodies: &mut BodySet) {
        self.enabled = enabled;
        if !enabled {
            self.wake_all(bodies);
        }
    }

    /// Wakes every sleeping body and restarts every timer.
    pub fn wake_all(&mut self, bodies: &mut BodySet) {
        let BodySet {
            records: bodies,
            states,
            ..
        } = bodies;
        if self.asleep == 0 {
            self.timers.iter_mut().for_each(|t| *t = 0.0);
            return;
        }
        for body in 0..self.islands.len() {
            if self.islands[body] != AWAKE {
                self.wake_body(body, bodies, states);
            }
            self.timers[body] = 0.0;
        }
    }

    /// Wakes the island `body` sleeps with (nothing if it is awake, or static), and restarts
    /// `body`'s timer.
    pub fn wake(&mut self, body: usize, bodies: &mut BodySet) {
        let BodySet {
            records: bodies,
            states,
            ..
        } = bodies;
        self.timers[body] = 0.0;
        let island = self.islands[body];
        if island == AWAKE {
            return;
        }
        self.to_wake.clear();
        self.to_wake.push(island);
        self.wake_islands(bodies, states);
    }

    /// Wakes the islands of `woken` (bodies; static ones and awake ones are passed over)
    /// in one pass over the bodies, and restarts their timers.
    pub fn wake_bodies(&mut self, woken: &[u32], bodies: &mut BodySet) {
        let BodySet {
            records: bodies,
            states,
            ..
        } = bodies;
        self.to_wake.clear();
        for &body in woken {
            let body = body as usize;
            self.timers[body] = 0.0;
            if self.islands[body] != AWAKE {
                self.to_wake.push(self.islands[body]);
            }
        }
        if !self.to_wake.is_empty() {
            self.wake_islands(bodies, states);
        }
    }

    /// Wakes the island of every sleeping body that touches an awake dynamic body in
    /// `contacts` (between colliders; `owners` maps a collider to its body), or is joined to
    /// one by a joint of `joints` (body pairs). Run between the narrow phase and the solver,
    /// so that a body woken this way takes part in this step.
    pub fn wake_touched(
        &mut self,
        contacts: &[Contact],
        joints: impl Iterator<Item = [usize; 2]>,
        owners: &[u32],
        bodies: &mut BodySet,
    ) {
        let BodySet {
            records: bodies,
            states,
            ..
        } = bodies;
        self.woken.clear();
        self.touch_looked = self.asleep > 0;
        if self.asleep == 0 {
            return;
        }
        // The contacts in blocks over the pool (a pass over every contact, reading four
        // scattered entries each: alone on one thread, a tenth of the serial time of
        // `rain`'s two-thread step), each into its own list; the lists are sorted together
        // by `wake_islands`, so the blocks change nothing of the outcome.
        let blocks = contacts.len().div_ceil(CONTACTS_PER_TASK);
        let mut wake_blocks = std::mem::take(&mut self.wake_blocks);
        let mut to_wake = std::mem::take(&mut self.to_wake);
        if wake_blocks.len() < blocks {
            wake_blocks.resize_with(blocks, Vec::new);
        }
        let this = &*self;
        let touched = |[a, b]: [usize; 2], found: &mut Vec<u32>| {
            for (sleeper, other) in [(a, b), (b, a)] {
                let island = this.islands[sleeper];
                if island != AWAKE && this.keeps_awake(other, bodies) {
                    found.push(island);
                }
            }
        };
        wake_blocks[..blocks]
            .par_iter_mut()
            .zip(contacts.par_chunks(CONTACTS_PER_TASK))
            .with_min_len(parallel::min_len(1))
            .for_each(|(found, contacts)| {
                found.clear();
                for pair in body_pairs(contacts, owners) {
                    touched(pair, found);
                }
            });
        to_wake.clear();
        for found in &wake_blocks[..blocks] {
            to_wake.extend_from_slice(found);
        }
        for pair in joints {
            touched(pair, &mut to_wake);
        }
        (self.wake_blocks, self.to_wake) = (wake_blocks, to_wake);
        if !self.to_wake.is_empty() {
            self.wake_islands(bodies, states);
        }
    }

    /// Advances the timers by `dt` from the bodies' speeds, then puts to sleep every island
    /// (of awake dynamic bodies joined by `contacts` and `joints`, body pairs) whose bodies
    /// have all rested for [`TIME_TO_SLEEP`].
    pub fn update(
        &mut self,
        dt: f32,
        contacts: &[Contact],
        joints: impl Iterator<Item = [usize; 2]> + Clone,
        owners: &[u32],
        bodies: &mut BodySet,
    ) {
        let BodySet {
            records: bodies,
            states,
            ..
        } = bodies;
        if !self.enabled {
            return;
        }
        let limit = SLEEP_SPEED * SLEEP_SPEED;
        let (mut sleepy, mut kinematic) = (false, false);
        for (body, (b, s)) in bodies.iter().zip(states.iter()).enumerate() {
            if b.is_kinematic {
                kinematic = true;
                // Any motion at all: a slow platform still carries its load away.
                let timer = &mut self.timers[body];
                if s.linear_velocity != Vec2::ZERO || s.angular_velocity != 0.0 {
                    *timer = 0.0;
                } else if *timer < TIME_TO_SLEEP {
                    *timer += dt;
                }
                continue;
            }
            if b.is_static || self.islands[body] != AWAKE {
                continue;
            }
            let spin = s.angular_velocity * b.max_extent;
            let timer = &mut self.timers[body];
            if s.linear_velocity.length_squared() > limit || spin * spin > limit {
                *timer = 0.0;
            } else {
                *timer += dt;
                sleepy |= *timer >= TIME_TO_SLEEP;
            }
        }
        if !sleepy {
            return;
        }

        // Islands: union-find over the contacts and joints between two awake dynamic bodies.
        let n = bodies.len();
        self.parents.clear();
        self.parents.extend(0..n as u32);
        let moving = |body: usize| bodies[body].is_dynamic() && self.islands[body] == AWAKE;
        for [a, b] in body_pairs(contacts, owners).chain(joints.clone()) {
            if moving(a) && moving(b) {
                let (ra, rb) = (find(&mut self.parents, a), find(&mut self.parents, b));
                // The smaller index roots: the labels do not depend on the contact order.
                let (low, high) = (ra.min(rb), ra.max(rb));
                self.parents[high as usize] = low;
            }
        }
        self.least.clear();
        self.least.resize(n, f32::INFINITY);
        for body in 0..n {
            if moving(body) {
                let root = find(&mut self.parents, body) as usize;
                self.least[root] = self.least[root].min(self.timers[body]);
            }
        }
        // A kinematic body's timer counts in the islands it touches: a moving one keeps
        // them awake. (Without kinematic bodies this would be a pass over every contact
        // for nothing.)
        let kinematic_pairs = body_pairs(contacts, owners)
            .chain(joints)
            .take(if kinematic { usize::MAX } else { 0 });
        for [a, b] in kinematic_pairs {
            for (kinematic, other) in [(a, b), (b, a)] {
                if bodies[kinematic].is_kinematic && moving(other) {
                    let root = find(&mut self.parents, other) as usize;
                    self.least[root] = self.least[root].min(self.timers[kinematic]);
                }
            }
        }
        for body in 0..n {
            // `moving` borrows the labels this loop writes: the same test, spelled out.
            if !bodies[body].is_dynamic() || self.islands[body] != AWAKE {
                continue;
            }
            let root = find(&mut self.parents, body);
            if self.least[root as usize] >= TIME_TO_SLEEP {
                self.islands[body] = root;
                self.asleep += 1;
                let s = &mut states[body];
                s.linear_velocity = Vec2::ZERO;
                s.angular_velocity = 0.0;
                // A zero inverse mass marks the body still; its inverse inertia follows.
                s.inv_mass = 0.0;
            }
        }
    }

    /// The bodies the step's last `wake_touched` woke, ascending (their islands touched an
    /// awake body), or `None` when no body slept as it began (it looked at no contact).
    /// Read between that call and the solve (another wake call may have changed it after).
    pub fn touch_woken(&self) -> Option<&[u32]> {
        self.touch_looked.then_some(&self.woken)
    }

    /// Wakes every body whose island is in `to_wake`, listing them in `woken`.
    fn wake_islands(&mut self, bodies: &[Body], states: &mut [BodyState]) {
        self.to_wake.sort_unstable();
        self.to_wake.dedup();
        self.woken.clear();
        for body in 0..self.islands.len() {
            let island = self.islands[body];
            if island != AWAKE && self.to_wake.binary_search(&island).is_ok() {
                self.wake_body(body, bodies, states);
                self.woken.push(body as u32);
            }
        }
    }

    fn wake_body(&mut self, body: usize, bodies: &[Body], states: &mut [BodyState]) {
        self.islands[body] = AWAKE;
        self.timers[body] = 0.0;
        self.asleep -= 1;
        states[body].inv_mass = bodies[body].inv_mass;
    }
}

/// The bodies of each contact (between colliders; `owners` maps a collider to its body).
fn body_pairs<'a>(
    contacts: &'a [Contact],
    owners: &'a [u32],
) -> impl Iterator<Item = [usize; 2]> + 'a {
    contacts
        .iter()
        .map(|c| [owners[c.a as usize] as usize, owners[c.b as usize] as usize])
}

/// The root of `i`'s set, halving the path on the way.
fn find(parents: &mut [u32], mut i: usize) -> u32 {
    while parents[i] as usize != i {
        let grand = parents[parents[i] as usize];
        parents[i] = grand;
        i = grand as usize;
    }
    i as u32
}
