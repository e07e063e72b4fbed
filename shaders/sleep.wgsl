// wgpu-sat: the GPU world's sleep on the device, the twins of Sleep::wake_touched and
// Sleep::update in src/dynamics/sleep.rs. Compiled after continuous.wgsl (ContinuousBody,
// BodyState, the hashes buffer) in the same module. The wake runs first in the solver's
// submit (a body woken takes part in the step's solve), the sleep after the continuous
// stage.
//
// The wake, first at every step the device sleeps (where no body sleeps it wakes none):
//   clear_wakes       (per body) no island marked yet
//   wake_contacts,    (per contact, per joint) a sleeping body touching (or joined to) a
//   wake_joints       body that keeps it awake (an awake dynamic body, a kinematic one not
//                     rested) marks its island: the root's `least` word set to WAKE
//   wake_islands      (per body) a body of a marked island wakes: awake, timer 0, its
//                     inverse mass back in its state; its hash and a count into hashes
//                     (what the host held the device to before it takes the step)
//
// The sleep:
//   sleep_timers      (per body) a kinematic body's timer runs while it is still; an awake
//                     dynamic body's while it is slow, else it is reset; one that reaches
//                     TIME_TO_SLEEP makes the step sleepy. Each body its own island.
//   the rest only in a sleepy step:
//   join_contacts,    (per contact, per joint) the islands of two awake dynamic bodies are
//   join_joints       joined: the larger root hooked onto the smaller (a compare-exchange
//                     on a root, retried when another invocation hooked it first), so that
//                     each island's root is its smallest body, as the host's union-find
//                     leaves it whatever the order
//   least_timers      (per awake dynamic body) its timer into its island's least
//   kinematic_contacts, kinematic_joints   a kinematic body's timer into the island of the
//                     awake dynamic body it touches
//   fall_asleep       (per body) an awake dynamic body whose island's least timer reached
//                     TIME_TO_SLEEP sleeps (labelled with the root, velocities and inverse
//                     mass zero); every body's timer and label into the step's hash
//
// Why the host's bits: the wake's marks are stores of one value, so the bodies woken are
// those of the islands any pair marked, as the host's list of islands to wake; the timers
// are one addition of dt each, the least timer a minimum (atomicMin on the bits of
// non-negative floats orders them as the floats), the labels the smallest body of each
// island: none depends on the order the invocations run in.

// Per body: Sleep's timer and island (the host's, sent when they change), and the
// union-find's parent and least timer (this file's scratch).
struct SleepBody {
    timer: f32,
    island: u32,
    parent: atomic<u32>,
    least: atomic<u32>,
}

// SleepParamsGpu (src/gpu/world/continuous/sleep.rs).
struct SleepParams {
    bodies: u32,
    contacts: u32,
    joints: u32,
    dt: f32,
    // SLEEP_SPEED squared, as the host computes it.
    limit: f32,
    time_to_sleep: f32,
    never: u32,
    _pad: u32,
}

// Sleep's label of an awake body.
const AWAKE: u32 = 0xffffffffu;
// A vacant joint slot's bodies (both u32::MAX).
const VACANT: u32 = 0xffffffffu;
// ContinuousBody::flags: kinematic.
const SWEPT_KINEMATIC: u32 = 4u;
// ContactInputGpu's size in words: its bodies are its first two.
const CONTACT_WORDS: u32 = 18u;
// The bits of f32 infinity: a least timer not yet lowered.
const NO_TIMER: u32 = 0x7f800000u;
// hashes' words for the sleep: the step is sleepy, and the hash of every timer and label.
const SLEEPY: u32 = 4u;
const SLEEP_HASH: u32 = 5u;
// hashes' words for the wake: the hash of the bodies woken, and how many.
const WAKE_HASH: u32 = 6u;
const WAKE_COUNT: u32 = 7u;
// SleepBody::least of an island's root during the wake: the island wakes (cleared to 0
// first; the sleep's passes use the word again, from sleep_timers on).
const WAKE: u32 = 1u;

@group(0) @binding(11) var<storage, read_write> sleep: array<SleepBody>;
// The contacts' inputs (ContactInputGpu), read as words.
@group(0) @binding(12) var<storage, read> contact_words: array<u32>;
// Per joint slot, its bodies (u32::MAX twice: vacant).
@group(0) @binding(13) var<storage, read> joint_pairs: array<vec2<u32>>;
@group(0) @binding(14) var<uniform> sleep_params: SleepParams;

fn is_moving(b: u32) -> bool {
    return (bodies[b].flags & SWEPT_DYNAMIC) != 0u && sleep[b].island == AWAKE;
}

fn is_kinematic(b: u32) -> bool {
    return (bodies[b].flags & SWEPT_KINEMATIC) != 0u;
}

fn sleepy() -> bool {
    return atomicLoad(&hashes[SLEEPY]) != 0u;
}

// The root of i's island, halving the path on the way: a parent replaced by its own parent
// is still an ancestor, so concurrent finds and hooks stay consistent.
fn find(i: u32) -> u32 {
    var x = i;
    var p = atomicLoad(&sleep[x].parent);
    while p != x {
        let g = atomicLoad(&sleep[p].parent);
        atomicStore(&sleep[x].parent, g);
        x = g;
        p = atomicLoad(&sleep[x].parent);
    }
    return x;
}

// Joins the islands of a and b: the larger root hooked onto the smaller.
fn join(a: u32, b: u32) {
    loop {
        let ra = find(a);
        let rb = find(b);
        if ra == rb {
            return;
        }
        let low = min(ra, rb);
        let high = max(ra, rb);
        if atomicCompareExchangeWeak(&sleep[high].parent, high, low).exchanged {
            return;
        }
    }
}

// Whether body b keeps the bodies it touches awake (Sleep::keeps_awake): an awake dynamic
// body, or a kinematic one that has not rested for TIME_TO_SLEEP.
fn keeps_awake(b: u32) -> bool {
    if is_kinematic(b) {
        return sleep[b].timer < sleep_params.time_to_sleep;
    }
    return is_moving(b);
}

@compute @workgroup_size(64)
fn clear_wakes(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < sleep_params.bodies {
        atomicStore(&sleep[i].least, 0u);
    }
}

// Marks the island of sleeper to wake when other keeps it awake (wake_touched's `touched`).
fn touched(sleeper: u32, other: u32) {
    let island = sleep[sleeper].island;
    if island != AWAKE && keeps_awake(other) {
        atomicStore(&sleep[island].least, WAKE);
    }
}

@compute @workgroup_size(64)
fn wake_contacts(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.contacts {
        return;
    }
    let a = contact_words[CONTACT_WORDS * k];
    let b = contact_words[CONTACT_WORDS * k + 1u];
    touched(a, b);
    touched(b, a);
}

@compute @workgroup_size(64)
fn wake_joints(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.joints {
        return;
    }
    let pair = joint_pairs[k];
    if pair.x != VACANT {
        touched(pair.x, pair.y);
        touched(pair.y, pair.x);
    }
}

// Each body writes only its own label, and reads only its root's mark: the marks stay as
// wake_contacts and wake_joints left them while the bodies wake.
@compute @workgroup_size(64)
fn wake_islands(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= sleep_params.bodies {
        return;
    }
    let island = sleep[i].island;
    if island == AWAKE || atomicLoad(&sleep[island].least) != WAKE {
        return;
    }
    // Sleep::wake_body.
    sleep[i].island = AWAKE;
    sleep[i].timer = 0.0;
    states[i].inv_mass = bodies[i].inv_mass;
    atomicAdd(&hashes[WAKE_HASH], wake_hash(i));
    atomicAdd(&hashes[WAKE_COUNT], 1u);
}

@compute @workgroup_size(64)
fn sleep_timers(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = sleep_params.never != 0u;
    let i = id.x;
    if i >= sleep_params.bodies {
        return;
    }
    atomicStore(&sleep[i].parent, i);
    atomicStore(&sleep[i].least, NO_TIMER);
    let flags = bodies[i].flags;
    let s = states[i];
    let timer = sleep[i].timer;
    if (flags & SWEPT_KINEMATIC) != 0u {
        // Any motion at all: a slow platform still carries its load away.
        if any(s.linear_velocity != vec2<f32>(0.0)) || s.angular_velocity != 0.0 {
            sleep[i].timer = 0.0;
        } else if timer < sleep_params.time_to_sleep {
            sleep[i].timer = timer + sleep_params.dt;
        }
        return;
    }
    if (flags & SWEPT_DYNAMIC) == 0u || sleep[i].island != AWAKE {
        return;
    }
    let spin = s.angular_velocity * bodies[i].max_extent;
    let limit = sleep_params.limit;
    if dot_kept(s.linear_velocity, s.linear_velocity) > limit || keep(spin * spin) > limit {
        sleep[i].timer = 0.0;
    } else {
        let t = timer + sleep_params.dt;
        sleep[i].timer = t;
        if t >= sleep_params.time_to_sleep {
            atomicOr(&hashes[SLEEPY], 1u);
        }
    }
}

@compute @workgroup_size(64)
fn join_contacts(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.contacts || !sleepy() {
        return;
    }
    let a = contact_words[CONTACT_WORDS * k];
    let b = contact_words[CONTACT_WORDS * k + 1u];
    if is_moving(a) && is_moving(b) {
        join(a, b);
    }
}

@compute @workgroup_size(64)
fn join_joints(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.joints || !sleepy() {
        return;
    }
    let pair = joint_pairs[k];
    if pair.x != VACANT && is_moving(pair.x) && is_moving(pair.y) {
        join(pair.x, pair.y);
    }
}

@compute @workgroup_size(64)
fn least_timers(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= sleep_params.bodies || !sleepy() || !is_moving(i) {
        return;
    }
    atomicMin(&sleep[find(i)].least, bitcast<u32>(sleep[i].timer));
}

// A kinematic body's timer into the island of the awake dynamic body it touches.
fn kinematic_timer(kinematic: u32, other: u32) {
    if is_kinematic(kinematic) && is_moving(other) {
        atomicMin(&sleep[find(other)].least, bitcast<u32>(sleep[kinematic].timer));
    }
}

@compute @workgroup_size(64)
fn kinematic_contacts(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.contacts || !sleepy() {
        return;
    }
    let a = contact_words[CONTACT_WORDS * k];
    let b = contact_words[CONTACT_WORDS * k + 1u];
    kinematic_timer(a, b);
    kinematic_timer(b, a);
}

@compute @workgroup_size(64)
fn kinematic_joints(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= sleep_params.joints || !sleepy() {
        return;
    }
    let pair = joint_pairs[k];
    if pair.x != VACANT {
        kinematic_timer(pair.x, pair.y);
        kinematic_timer(pair.y, pair.x);
    }
}

@compute @workgroup_size(64)
fn fall_asleep(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= sleep_params.bodies {
        return;
    }
    if sleepy() && is_moving(i) {
        let root = find(i);
        if bitcast<f32>(atomicLoad(&sleep[root].least)) >= sleep_params.time_to_sleep {
            sleep[i].island = root;
            var s = states[i];
            s.linear_velocity = vec2<f32>(0.0);
            s.angular_velocity = 0.0;
            s.inv_mass = 0.0;
            states[i] = s;
        }
    }
    atomicAdd(&hashes[SLEEP_HASH], sleep_hash(i, sleep[i].timer, sleep[i].island));
}

// What wake_islands sums for body i (wake_hash in src/gpu/world/continuous/sleep.rs).
fn wake_hash(i: u32) -> u32 {
    return box_hash(i, vec4<u32>(AWAKE, 0u, 0u, 0u));
}

// What fall_asleep sums for body i (sleep_hash in src/gpu/world/continuous/sleep.rs): its
// timer's bits and its label.
fn sleep_hash(i: u32, timer: f32, island: u32) -> u32 {
    return box_hash(i, vec4<u32>(bitcast<u32>(timer), island, 0u, 0u));
}
