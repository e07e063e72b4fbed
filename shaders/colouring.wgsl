// wgpu-sat constraint colouring on the GPU: the colours ConstraintGraph::colour
// (src/dynamics/solver/colouring.rs) gives a step's constraints, to the constraint. The host
// keeps colours it can (keep_colours, in constraint order), then colours the new ones
// greedily in a visit order (the new joints, then the new contacts shuffled); both are
// sequential. Here each constraint decides once every constraint it depends on has:
//
//   keep:  constraint i keeps last step's colour c unless an earlier constraint on one of
//          its moving bodies kept c (it then waits for the earlier ones that may keep c);
//   fresh: a new constraint takes the lowest colour that no constraint on its moving bodies
//          holds among the kept ones and the new ones visited before it (it waits for
//          those), or the overflow.
//
// A decision depends only on decisions, so it is the host's whatever order the rounds run
// in (Jones and Plassmann's parallel greedy colouring, with the host's visit order as the
// priority, gives the sequential greedy colouring). keep_round and fresh_round run a fixed
// number of times; what is still undecided after the last round is decided by keep_finish
// or fresh_finish, one invocation walking the host's order (in chunks, one dispatch each:
// llvmpipe stops a shader's loops after 65,535 iterations in all, see
// docs/reliability.md). The visit order's shuffle is
// the host's Fisher-Yates with SplitMix64 draws, on 64-bit words held as vec2<u32> (low,
// high; u64.wgsl's helpers), one invocation a chunk.
//
// Bindings: input holds the moving bits (32 bodies a word) then 4 words per constraint (key
// low, key high, body a, body b; contacts, then joints with key low u32::MAX). offsets: per
// body the count of its constraints, scanned (scan.wgsl) into where its list starts;
// adjacency: per body a fill cursor, then the lists. work: COUNTERS words, then per
// constraint its state, its visit position, and the fresh list. fresh: per constraint
// whether it is new, scanned into its place in the fresh list. Then, for the GPU world's
// solver: each colour's ranges and workgroups (colour_ranges), the joint order
// (joint_order_store), and the colours packed for the host (colour_pack).

struct ColourParams {
    // Constraints: the contacts, then the joints.
    count: u32,
    contacts: u32,
    bodies: u32,
    // Words of moving bits at the head of `input`.
    moving_words: u32,
    // Constraints coloured last step, in `previous`.
    previous: u32,
    // keep_round, fresh_round: this round, from 1; the finishers: the rounds before them.
    round: u32,
    // Items of this dispatch (colour_clear: bodies + 1 and at least COUNTERS; a chunk of a
    // serial kernel: its length), and the first of them (a chunk's).
    len: u32,
    first: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
// Last step's constraints: key low, key high, colour, 0.
@group(0) @binding(1) var<storage, read> previous: array<u32>;
@group(0) @binding(2) var<storage, read_write> offsets: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> adjacency: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> work: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> fresh: array<u32>;
// This step's constraints as the next step reads them, as `previous`.
@group(0) @binding(6) var<storage, read_write> next: array<u32>;
// Per constraint (its colour, its index): sorted by colour (radix_sort.wgsl, stable) into
// `sorted`, whose indices are the solve order.
@group(0) @binding(7) var<storage, read_write> items: array<vec2<u32>>;
@group(0) @binding(8) var<uniform> params: ColourParams;
@group(0) @binding(9) var<storage, read> sorted: array<vec2<u32>>;
// The constraint indices by colour, ascending within a colour, the overflow's last (then
// the ones left out): ConstraintGraph's `order`.
@group(0) @binding(10) var<storage, read_write> order: array<u32>;
// The fresh rounds' workgroups, as dispatch_workgroups_indirect reads them: enough for the
// new constraints (written by the shuffle's first chunk).
@group(0) @binding(11) var<storage, read_write> args: array<u32>;
// Per colour (the overflow last): its contacts' first place and count in `order`, its
// joints' first place and count in `joint_order` (ConstraintGraph::solve_order's ranges).
@group(0) @binding(12) var<storage, read_write> ranges: array<vec4<u32>>;
// The joint slots by colour, ascending within a colour, the overflow's last
// (ConstraintGraph's `joint_order`).
@group(0) @binding(13) var<storage, read_write> joint_order: array<u32>;
// The solver's workgroups per colour, as dispatch_workgroups_indirect reads them: its
// contacts' three words, then its joints' three.
@group(0) @binding(14) var<storage, read_write> solve_args: array<u32>;
// The colours, four to a word (the first in the low byte): what the host reads back.
@group(0) @binding(15) var<storage, read_write> packed: array<u32>;
// The GPU world's input, made on the device (colour_input): `input` written, from the
// solver's body states and contact inputs (BodyState and ContactInput of solver.wgsl, read
// as words).
@group(0) @binding(16) var<storage, read_write> input_out: array<u32>;
@group(0) @binding(17) var<storage, read> state_words: array<u32>;
@group(0) @binding(18) var<storage, read> contact_words: array<u32>;

const COLOUR_COUNT: u32 = 24u;
// BodyState and ContactInput as words: their sizes, and where the fields read here sit.
const STATE_WORDS: u32 = 8u;
const STATE_INV_MASS: u32 = 3u;
const CONTACT_WORDS: u32 = 18u;
const CONTACT_BODIES: u32 = 0u;
const CONTACT_KEY: u32 = 2u;
const LEFT_OUT: u32 = 255u;
// The colour of a constraint still undecided after the finishers: only when llvmpipe cut a
// finisher's loops short (docs/reliability.md). It is solved in no colour, and the GPU
// world's host takes it as a failed step (solved on the host).
const UNDECIDED: u32 = 254u;
// A state: DONE | colour (final), KEEP | last step's colour (undecided), or FRESH (new,
// undecided).
const DONE: u32 = 0x100u;
const KEEP: u32 = 0x200u;
const FRESH: u32 = 0x400u;
// work's head: the last keep round and the last fresh round that left a constraint
// undecided; the new contacts and all new constraints (for fresh_finish, whose four
// bindings leave no room for `fresh`).
const COUNTERS: u32 = 4u;
const KEEP_PENDING: u32 = 0u;
const FRESH_PENDING: u32 = 1u;
const FRESH_CONTACTS: u32 = 2u;
const FRESH_TOTAL: u32 = 3u;
// VISIT_SEED (colouring.rs) as (low, high).
const VISIT_SEED: vec2<u32> = vec2<u32>(0xc0100b1eu, 0x5eedu);

fn moves(body: u32) -> bool {
    return ((input[body / 32u] >> (body % 32u)) & 1u) == 1u;
}

// Constraint i: (key low, key high, body a, body b).
fn item(i: u32) -> vec4<u32> {
    let at = params.moving_words + 4u * i;
    return vec4<u32>(input[at], input[at + 1u], input[at + 2u], input[at + 3u]);
}

fn state(i: u32) -> u32 {
    return atomicLoad(&work[COUNTERS + i]);
}

fn set_state(i: u32, s: u32) {
    atomicStore(&work[COUNTERS + i], s);
}

// 0 for a constraint not visited (kept or left out), else 1 + its place in the visit order.
fn visit(i: u32) -> u32 {
    return atomicLoad(&work[COUNTERS + params.count + i]);
}

// Position k of the fresh list: a constraint index.
fn fresh_at(k: u32) -> u32 {
    return atomicLoad(&work[COUNTERS + 2u * params.count + k]);
}

fn set_fresh_at(k: u32, i: u32) {
    atomicStore(&work[COUNTERS + 2u * params.count + k], i);
}

fn key_below(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

// Last step's colour of the constraint with `key` (a binary search of the ascending keys),
// or LEFT_OUT when it had none.
fn previous_colour(key: vec2<u32>) -> u32 {
    var lo = 0u;
    var hi = params.previous;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if key_below(vec2<u32>(previous[4u * mid], previous[4u * mid + 1u]), key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if lo < params.previous && previous[4u * lo] == key.x && previous[4u * lo + 1u] == key.y {
        return previous[4u * lo + 2u];
    }
    return LEFT_OUT;
}

@compute @workgroup_size(64)
fn colour_clear(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < COUNTERS {
        atomicStore(&work[i], 0u);
    }
    if i <= params.bodies {
        atomicStore(&offsets[i], 0u);
    }
    if i < params.bodies {
        atomicStore(&adjacency[i], 0u);
    }
}

// Each constraint's first state (left out, KEEP its old colour, or FRESH), and a count for
// each moving body it acts on.
@compute @workgroup_size(64)
fn colour_start(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    let it = item(i);
    let move_a = moves(it.z);
    let move_b = moves(it.w);
    atomicStore(&work[COUNTERS + params.count + i], 0u);
    if !move_a && !move_b {
        // Between two bodies that do not move: no impulse changes anything.
        set_state(i, DONE | LEFT_OUT);
        return;
    }
    if move_a {
        atomicAdd(&offsets[it.z], 1u);
    }
    if move_b {
        atomicAdd(&offsets[it.w], 1u);
    }
    let old = previous_colour(it.xy);
    set_state(i, select(FRESH, KEEP | old, old < COLOUR_COUNT));
}

// Each constraint into the lists of its moving bodies (in any order: a list is only ever
// read whole).
@compute @workgroup_size(64)
fn adjacency_fill(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    let it = item(i);
    for (var side = 0u; side < 2u; side += 1u) {
        let body = it[2u + side];
        if moves(body) {
            let slot = atomicLoad(&offsets[body]) + atomicAdd(&adjacency[body], 1u);
            atomicStore(&adjacency[params.bodies + slot], i);
        }
    }
}

// The state of constraint i once the earlier constraints on its moving bodies that may
// keep its old colour have decided: DONE | that colour, FRESH when one of them kept it
// (the host's `used` has its bit), or its state unchanged while one has yet to decide.
fn keep_decision(i: u32) -> u32 {
    let s = state(i);
    if (s & KEEP) == 0u {
        return s;
    }
    let colour = s & 0xffu;
    let it = item(i);
    var wait = false;
    for (var side = 0u; side < 2u; side += 1u) {
        let body = it[2u + side];
        if !moves(body) {
            continue;
        }
        let end = atomicLoad(&offsets[body + 1u]);
        for (var slot = atomicLoad(&offsets[body]); slot < end; slot += 1u) {
            let j = atomicLoad(&adjacency[params.bodies + slot]);
            if j >= i {
                continue;
            }
            let t = state(j);
            if t == (DONE | colour) {
                return FRESH;
            }
            wait = wait || t == (KEEP | colour);
        }
    }
    return select(DONE | colour, s, wait);
}

@compute @workgroup_size(64)
fn keep_round(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count || (state(i) & KEEP) == 0u {
        return;
    }
    let s = keep_decision(i);
    set_state(i, s);
    if (s & KEEP) != 0u {
        atomicMax(&work[KEEP_PENDING], params.round);
    }
}

// What the rounds left undecided, in constraint order (as keep_colours walks), when the
// last round left some: this chunk's constraints, the chunks dispatched in order.
@compute @workgroup_size(1)
fn keep_finish() {
    if atomicLoad(&work[KEEP_PENDING]) != params.round {
        return;
    }
    let end = min(params.first + params.len, params.count);
    for (var i = params.first; i < end; i += 1u) {
        set_state(i, keep_decision(i));
    }
}

// fresh[i]: whether constraint i is new (to colour afresh); fresh[count] = 0, so that the
// scan's last entry is the total.
@compute @workgroup_size(64)
fn fresh_flags(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i > params.count {
        return;
    }
    fresh[i] = select(0u, 1u, i < params.count && state(i) == FRESH);
}

// The new constraints in constraint order: the contacts, then the joints.
@compute @workgroup_size(64)
fn fresh_compact(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < params.count && state(i) == FRESH {
        set_fresh_at(fresh[i], i);
    }
}

// a * b mod 2^64 (u64.wgsl's mul32 for the low words' full product).
fn mul_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = mul32(a.x, b.x);
    return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}

// z ^ (z >> s), 0 < s < 32.
fn xor_shift(z: vec2<u32>, s: u32) -> vec2<u32> {
    return vec2<u32>(z.x ^ ((z.x >> s) | (z.y << (32u - s))), z.y ^ (z.y >> s));
}

// SplitMix64's output function, as colouring.rs's mix.
fn mix(z: vec2<u32>) -> vec2<u32> {
    var x = mul_u64(xor_shift(z, 30u), vec2<u32>(0x1ce4e5b9u, 0xbf58476du));
    x = mul_u64(xor_shift(x, 27u), vec2<u32>(0x133111ebu, 0x94d049bbu));
    return xor_shift(x, 31u);
}

// Position k's draw from 0..=k: the high word of mix(seed + k) * (k + 1), a 96-bit product.
fn draw(k: u32) -> u32 {
    let d = mix(add64(VISIT_SEED, vec2<u32>(k, 0u)));
    // d * (k + 1) = high * 2^32 + low, and the draw is its bits 64 to 95.
    let high = mul32(d.y, k + 1u);
    let low = mul32(d.x, k + 1u);
    return add64(high, vec2<u32>(low.y, 0u)).y;
}

// colouring.rs's shuffle of the new contacts (the head of the fresh list): Fisher-Yates
// from the last position down, one invocation a chunk, the chunks dispatched in order
// (this one takes swaps first .. first + len).
@compute @workgroup_size(1)
fn shuffle() {
    let contacts = fresh[params.contacts];
    if params.first == 0u {
        let total = fresh[params.count];
        atomicStore(&work[FRESH_CONTACTS], contacts);
        atomicStore(&work[FRESH_TOTAL], total);
        args[0] = (total + 63u) / 64u;
        args[1] = 1u;
        args[2] = 1u;
    }
    // Swap t takes position contacts - 1 - t; positions 1 and up are swapped.
    let swaps = max(contacts, 1u) - 1u;
    let end = min(params.first + params.len, swaps);
    for (var t = params.first; t < end; t += 1u) {
        let k = contacts - 1u - t;
        let j = draw(k);
        let a = fresh_at(k);
        set_fresh_at(k, fresh_at(j));
        set_fresh_at(j, a);
    }
}

// Each new constraint's place in the visit order: the new joints first, then the shuffled
// new contacts (colouring.rs rotates the list so).
@compute @workgroup_size(64)
fn fresh_visit(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let total = fresh[params.count];
    if k >= total {
        return;
    }
    let contacts = fresh[params.contacts];
    let joints = total - contacts;
    let place = select(joints + k, k - contacts, k >= contacts);
    atomicStore(&work[COUNTERS + params.count + fresh_at(k)], 1u + place);
}

// The colours the moving bodies of constraint i hold among the kept constraints and the
// new ones visited before it: the host's `used` at i's turn. 0xffffffff while one of those
// new ones has yet to decide.
fn used(i: u32) -> u32 {
    let it = item(i);
    let v = visit(i);
    var bits = 0u;
    for (var side = 0u; side < 2u; side += 1u) {
        let body = it[2u + side];
        if !moves(body) {
            continue;
        }
        let end = atomicLoad(&offsets[body + 1u]);
        for (var slot = atomicLoad(&offsets[body]); slot < end; slot += 1u) {
            let j = atomicLoad(&adjacency[params.bodies + slot]);
            // Kept constraints have visit 0, before every new one.
            if j == i || visit(j) >= v {
                continue;
            }
            let t = state(j);
            if t == FRESH {
                return 0xffffffffu;
            }
            let colour = t & 0xffu;
            if colour < COLOUR_COUNT {
                bits |= 1u << colour;
            }
        }
    }
    return bits;
}

// The state of new constraint i once the constraints it waits on have decided: the lowest
// colour its bodies lack (the host's greedy), or the overflow.
fn fresh_decision(i: u32) -> u32 {
    let bits = used(i);
    if bits == 0xffffffffu {
        return FRESH;
    }
    let free = ~bits & ((1u << COLOUR_COUNT) - 1u);
    if free == 0u {
        return DONE | COLOUR_COUNT;
    }
    return DONE | firstTrailingBit(free);
}

// One invocation per new constraint (dispatched from `args`), in fresh-list order.
@compute @workgroup_size(64)
fn fresh_round(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= atomicLoad(&work[FRESH_TOTAL]) {
        return;
    }
    let i = fresh_at(id.x);
    if state(i) != FRESH {
        return;
    }
    let s = fresh_decision(i);
    set_state(i, s);
    if s == FRESH {
        atomicMax(&work[FRESH_PENDING], params.round);
    }
}

// What the rounds left undecided, in visit order, when the last round left some: this
// chunk's places in that order, the chunks dispatched in order.
@compute @workgroup_size(1)
fn fresh_finish() {
    if atomicLoad(&work[FRESH_PENDING]) != params.round {
        return;
    }
    let total = atomicLoad(&work[FRESH_TOTAL]);
    let contacts = atomicLoad(&work[FRESH_CONTACTS]);
    let end = min(params.first + params.len, total);
    for (var place = params.first; place < end; place += 1u) {
        let k = select(contacts + place, place - (total - contacts), place >= total - contacts);
        let i = fresh_at(k);
        if state(i) == FRESH {
            set_state(i, fresh_decision(i));
        }
    }
}

// Each constraint's colour with its index, to sort by colour; and the list the next step
// reads as `previous`.
// Constraint i's colour once the finishers ran: its decision's, or UNDECIDED.
fn final_colour(i: u32) -> u32 {
    let s = state(i);
    return select(UNDECIDED, s & 0xffu, (s & DONE) != 0u);
}

@compute @workgroup_size(64)
fn colour_store(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    let colour = final_colour(i);
    items[i] = vec2<u32>(colour, i);
    let it = item(i);
    next[4u * i] = it.x;
    next[4u * i + 1u] = it.y;
    next[4u * i + 2u] = colour;
    next[4u * i + 3u] = 0u;
}

// The solve order: the sorted items' indices.
@compute @workgroup_size(64)
fn order_store(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < params.count {
        order[k] = sorted[k].y;
    }
}

// The first place in `sorted` whose item is not below (colour, index): the items sort by
// colour, and by constraint index within a colour (the radix sort is stable).
fn sorted_bound(colour: u32, index: u32) -> u32 {
    var lo = 0u;
    var hi = params.count;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        let it = sorted[mid];
        if it.x < colour || (it.x == colour && it.y < index) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The solver's workgroups for `count` constraints of a colour: the overflow's run in one
// invocation, one after another (they may share bodies); the solver's kernels take 64.
fn solve_groups(count: u32, colour: u32) -> u32 {
    if colour == COLOUR_COUNT {
        return min(count, 1u);
    }
    return (count + 63u) / 64u;
}

// Each colour's ranges (a colour's contacts come before its joints, whose indices follow
// every contact's) and the solver's workgroups for them. One invocation: 25 colours of
// three binary searches.
@compute @workgroup_size(1)
fn colour_ranges() {
    var joints = 0u;
    for (var c = 0u; c <= COLOUR_COUNT; c += 1u) {
        let first = sorted_bound(c, 0u);
        let split = sorted_bound(c, params.contacts);
        let end = sorted_bound(c + 1u, 0u);
        ranges[c] = vec4<u32>(first, split - first, joints, end - split);
        joints += end - split;
        solve_args[6u * c] = solve_groups(split - first, c);
        solve_args[6u * c + 3u] = solve_groups(end - split, c);
        for (var k = 0u; k < 2u; k += 1u) {
            solve_args[6u * c + 3u * k + 1u] = 1u;
            solve_args[6u * c + 3u * k + 2u] = 1u;
        }
    }
}

// Each coloured joint's slot (its key's high word) at its place in `joint_order`.
@compute @workgroup_size(64)
fn joint_order_store(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= params.count {
        return;
    }
    let it = sorted[k];
    if it.x > COLOUR_COUNT || it.y < params.contacts {
        return;
    }
    let r = ranges[it.x];
    joint_order[r.z + k - (r.x + r.y)] = item(it.y).y;
}

// The colours packed for the readback, four constraints an invocation.
@compute @workgroup_size(64)
fn colour_pack(@builtin(global_invocation_id) id: vec3<u32>) {
    let w = id.x;
    if 4u * w >= params.count {
        return;
    }
    var word = 0u;
    for (var b = 0u; b < 4u; b += 1u) {
        let i = 4u * w + b;
        if i < params.count {
            word |= final_colour(i) << (8u * b);
        }
    }
    packed[w] = word;
}

// The GPU world's input from the solver's buffers (the host sends the joints' items): per
// word of moving bits, its 32 bodies (a body moves while its inverse mass is positive:
// BodyState::moves); per contact, its key and bodies.
@compute @workgroup_size(64)
fn colour_input(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < params.moving_words {
        var word = 0u;
        for (var b = 0u; b < 32u; b += 1u) {
            let body = 32u * i + b;
            if body < params.bodies {
                let inv_mass = bitcast<f32>(state_words[STATE_WORDS * body + STATE_INV_MASS]);
                word |= select(0u, 1u << b, inv_mass > 0.0);
            }
        }
        input_out[i] = word;
    }
    if i < params.contacts {
        let at = params.moving_words + 4u * i;
        let c = CONTACT_WORDS * i;
        input_out[at] = contact_words[c + CONTACT_KEY];
        input_out[at + 1u] = contact_words[c + CONTACT_KEY + 1u];
        input_out[at + 2u] = contact_words[c + CONTACT_BODIES];
        input_out[at + 3u] = contact_words[c + CONTACT_BODIES + 1u];
    }
}
