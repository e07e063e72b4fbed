// wgpu-sat: the GPU world's recycling pass and merge over the device's pair set, the twins
// of the host's (`sort_out_recycled` and `merge_contacts` in src/world/contacts.rs,
// `KeptManifold` in src/collision/recycle.rs): which pairs of the set go to the narrow
// phase, each pair's kept manifold, carried from step to step on the device, and the step's
// contact list as the solver takes it. Compiled after layout.wgsl, transform.wgsl,
// box_hash.wgsl and contact_input.wgsl (src/gpu/collision/recycle/).
//
//   carry_kept:     per pair of the set, its kept manifold from the last step's list
//                   (found by its pair: both lists ascend), or none for a new pair
//   set_overlaps:   per pair, whether its boxes overlap (1) or not (0), and 0 past the
//                   last for the scan's total
//   recycle_slots:  per overlapping pair, kept and still close (carried_points): 0, not
//                   fresh; else fresh, its kept manifold dropped, and a hash of the pair
//                   added to the sum the host holds to its own fresh pairs' sum
//   (the scan, set_compact and the narrow phase, sort_sweep.wgsl and sat_pass.wgsl)
//   record_slots:   per contact record, the set's slot of its pair
//   record_flat:    per record, whether neither collider is curved (a curved one keeps
//                   nothing: see merge_contacts)
//   keep_records:   per record, its index in its slot, and a flat one's manifold kept
//                   there (keep_manifold)
//   merge_flags:    per pair, whether it has a contact this step (recycled, or a record);
//                   the scan of the flags (scan.wgsl): where each goes in the contact list
//   merge_recycled: per recycled pair, its kept manifold carried to the poses
//                   (recycle_into), at its place in the list, with its pair
//   merge_fresh:    per pair with a record, the record's manifold at its place
//   contact_materials: per contact of the list, its bodies and mixed material
//                   (ColliderSurface::mix) from its colliders', and a hash of the whole
//                   input summed, for the host to hold to its own list's (the world's
//                   merge: `merge_contacts`, and its match: `match_warm_starts`) before the
//                   solver takes the device's inputs in place of the host's
//   match_warm_starts: per contact, its warm start from the last step's contacts as the
//                   device's solver left them (match_warm_starts), and a hash of them
//                   summed, which the host holds to its own match's the same way
//
// Every kernel binds at most four storage buffers (the downlevel limit per stage). The
// arithmetic is the host's operation for operation, each product a leaf (keep(), see
// transform.wgsl), so that the kept manifolds and the decisions are the host's bits; the
// host holds the device's fresh pairs to its own by a hash, and a step whose sums differ
// collides the host's instead; and the merged inputs by another, which the solver's upload
// checks before it takes them (else it sends the host's).

// A manifold as the narrow phase computed it, in A's frame, with the pose it was computed
// at (KeptManifold), and the pair it belongs to: KeptGpu in
// src/gpu/collision/recycle/layout.rs.
struct Kept {
    pair: vec2<u32>,
    // B's collider pose in A's collider frame then.
    relative: Pose,
    // The normal in A's frame.
    normal: vec2<f32>,
    depth: f32,
    // Points in use: 0 keeps nothing (the pair is fresh at its next overlap).
    count: u32,
    // In A's frame; a one-point manifold repeats its point in the second slot.
    points: array<ContactPointOut, 2>,
    // What the pair has this step: NO_CONTACT, RECYCLED, or the index of its contact
    // record (the narrow phase's).
    contact: u32,
    _pad: u32,
}

// The kept manifolds of a list, one per pair in the list's order, after the hash of the
// fresh pairs recycle_slots found (zeroed by the host before the pass).
struct KeptList {
    hash: atomic<u32>,
    _pad: u32,
    records: array<Kept>,
}

// The same bytes read only (an atomic cannot be).
struct KeptListIn {
    hash: u32,
    _pad: u32,
    records: array<Kept>,
}

struct RecycleParams {
    // Pairs of the set.
    len: u32,
    // Records of the last step's list (carry_kept's input).
    old_len: u32,
    // World settings' recycling: 0 collides every overlapping pair afresh.
    recycling: u32,
    // Room for contact records (the narrow phase's contact_capacity).
    capacity: u32,
    // RECYCLE_TRANSLATION and RECYCLE_ANGLE (src/collision/recycle.rs), sent by the host
    // rather than written here: a literal product would be folded at another precision.
    translation: f32,
    angle: f32,
    // Never 0xffffffff: keep_flag's source (transform.wgsl).
    never: u32,
    // Contacts of the last step's list (match_warm_starts' `last`).
    last_len: u32,
}

@group(0) @binding(0) var<storage, read> pair_set: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> kept_in: KeptListIn;
@group(0) @binding(2) var<storage, read_write> kept_out: KeptList;
// Each collider's box grown by half the speculative distance (the broad phase's boxes).
@group(0) @binding(3) var<storage, read> boxes: array<vec4<f32>>;
// Per pair its flag, scanned after into where each fresh pair goes (the broad phase's
// counts).
@group(0) @binding(4) var<storage, read_write> flags: array<u32>;
@group(0) @binding(5) var<storage, read> poses: array<Pose>;
@group(0) @binding(6) var<uniform> params: RecycleParams;
@group(0) @binding(7) var<storage, read> contacts: ContactList;
// Each record's two colliders (contact_ends in sat_pass.wgsl).
@group(0) @binding(8) var<storage, read> ends: array<vec2<u32>>;
// Per record: its slot, its pair, and 1 when it is flat.
@group(0) @binding(9) var<storage, read_write> keeps: array<vec4<u32>>;
// The colliders' shape ids, then the narrow phase's pairs (unused here).
@group(0) @binding(10) var<storage, read> indices: array<u32>;
@group(0) @binding(11) var<storage, read> shapes: array<Shape>;
// merge_flags' flags, scanned into where each pair's contact goes; [len] the total.
@group(0) @binding(12) var<storage, read_write> places: array<u32>;
// The world's contact list's inputs, as the solver takes them.
@group(0) @binding(13) var<storage, read_write> merged: array<ContactInput>;
// Per collider: its body and its surface, the friction as its square root.
@group(0) @binding(14) var<storage, read> surfaces: array<ColliderContact>;
// [0] the list's hash, [1] its warm starts' (zeroed by the host); [2] the list's length
// (written there by contact_materials, for match_warm_starts).
@group(0) @binding(15) var<storage, read_write> merged_hash: array<atomic<u32>>;
// The last step's contacts, as the device's solver left them (ascending keys).
@group(0) @binding(16) var<storage, read> last: array<LastContact>;
// Each contact's warm start, matched from `last`.
@group(0) @binding(17) var<storage, read_write> warm: array<WarmStart>;

// ColliderContactGpu in src/gpu/collision/recycle/layout.rs.
struct ColliderContact {
    body: u32,
    // The square root of its friction: a contact's is the product of its two colliders'.
    friction_root: f32,
    restitution: f32,
    tangent_speed: f32,
}

const NO_SLOT: u32 = 0xffffffffu;
// Kept::contact: no contact this step; a recycled one.
const NO_CONTACT: u32 = 0xffffffffu;
const RECYCLED: u32 = 0xfffffffeu;

// An invocation's place in a dispatch of rows of 64-wide workgroups (sat_pass.wgsl's).
fn record_index(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.y * groups.x * 64u + id.x;
}

// Whether pair p orders before q (a first, then b), as [u32; 2] compares.
fn pair_less(p: vec2<u32>, q: vec2<u32>) -> bool {
    return p.x < q.x || (p.x == q.x && p.y < q.y);
}

// The larger of two finite values, as `larger` in recycle.rs.
fn larger(a: f32, b: f32) -> f32 {
    return select(a, b, b > a);
}

struct Carried {
    close: bool,
    points: array<vec2<f32>, 2>,
}

// KeptManifold::carried_points: how far B's side of each kept point has moved in A's frame
// since the manifold was computed, and whether B turned and each point moved little enough
// for the manifold to be kept.
fn carried_points(kept: Kept, ta: Pose, tb: Pose) -> Carried {
    var out: Carried;
    out.close = false;
    let now = inv_mul_kept(ta, tb);
    let moved = now.translation - kept.relative.translation;
    let r = kept.relative.rotation;
    // glam's perp_dot: (x * y') - (y * x').
    let turned = keep(r.x * now.rotation.y) - keep(r.y * now.rotation.x);
    if abs(turned) > params.angle || dot_kept(r, now.rotation) <= 0.0 {
        return out;
    }
    let origin = kept.relative.translation;
    for (var k = 0u; k < 2u; k++) {
        let arm = kept.points[k].point - origin;
        out.points[k] = moved + keep2(turned * vec2<f32>(-arm.y, arm.x));
    }
    let farthest = larger(
        dot_kept(out.points[0], out.points[0]),
        dot_kept(out.points[1], out.points[1]),
    );
    out.close = !(farthest > params.translation * params.translation);
    return out;
}

// KeptManifold::keep: a record's manifold in A's frame, with B's pose there.
fn keep_manifold(pair: vec2<u32>, c: ContactOut, ta: Pose, tb: Pose) -> Kept {
    var kept: Kept;
    kept.pair = pair;
    kept.relative = inv_mul_kept(ta, tb);
    kept.normal = inverse_rotate_kept(ta.rotation, c.normal);
    kept.depth = c.depth;
    // The record's second point is unused when its id is NO_POINT (ContactGpu::manifold):
    // the first is repeated there.
    kept.count = select(2u, 1u, c.points[1].id == NO_POINT);
    for (var k = 0u; k < 2u; k++) {
        var p = c.points[min(k, kept.count - 1u)];
        p.point = inverse_rotate_kept(ta.rotation, p.point - ta.translation);
        kept.points[k] = p;
    }
    return kept;
}

@compute @workgroup_size(256)
fn carry_kept(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    if j >= params.len {
        return;
    }
    let pair = pair_set[j];
    // The first record whose pair is not below this one (a lower bound).
    var low = 0u;
    var high = params.old_len;
    while low < high {
        let mid = (low + high) / 2u;
        if pair_less(kept_in.records[mid].pair, pair) {
            low = mid + 1u;
        } else {
            high = mid;
        }
    }
    if low < params.old_len && all(kept_in.records[low].pair == pair) {
        kept_out.records[j] = kept_in.records[low];
    } else {
        var none: Kept;
        none.pair = pair;
        none.contact = NO_CONTACT;
        kept_out.records[j] = none;
    }
}

@compute @workgroup_size(256)
fn set_overlaps(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    if j == params.len {
        flags[j] = 0u;
    }
    if j < params.len {
        let a = boxes[pair_set[j].x];
        let b = boxes[pair_set[j].y];
        // Aabb::overlaps: closed boxes.
        let overlap = a.x <= b.z && b.x <= a.z && a.y <= b.w && b.y <= a.w;
        flags[j] = select(0u, 1u, overlap);
    }
}

// The workgroup's share of recycle_slots' hash, added to kept_out.hash once.
var<workgroup> group_hash: atomic<u32>;

@compute @workgroup_size(256)
fn recycle_slots(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    keep_flag = params.never == 0xffffffffu;
    if local == 0u {
        atomicStore(&group_hash, 0u);
    }
    workgroupBarrier();
    let j = id.x;
    if j < params.len && flags[j] == 0u {
        kept_out.records[j].contact = NO_CONTACT;
    }
    if j < params.len && flags[j] == 1u {
        let pair = pair_set[j];
        let kept = kept_out.records[j];
        var recycled = false;
        if params.recycling != 0u && kept.count > 0u {
            recycled = carried_points(kept, poses[pair.x], poses[pair.y]).close;
        }
        if recycled {
            flags[j] = 0u;
            kept_out.records[j].contact = RECYCLED;
        } else {
            // Fresh: its manifold is kept anew after the narrow phase, or none is; its
            // contact is its record's, if the narrow phase makes one.
            kept_out.records[j].count = 0u;
            kept_out.records[j].contact = NO_CONTACT;
            atomicAdd(&group_hash, box_hash(j, vec4<u32>(pair, 0u, 0u)));
        }
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&kept_out.hash, atomicLoad(&group_hash));
    }
}

@compute @workgroup_size(64)
fn record_slots(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = record_index(id, groups);
    if k >= min(contacts.count, params.capacity) {
        return;
    }
    let pair = ends[k];
    var low = 0u;
    var high = params.len;
    while low < high {
        let mid = (low + high) / 2u;
        if pair_less(pair_set[mid], pair) {
            low = mid + 1u;
        } else {
            high = mid;
        }
    }
    var slot = NO_SLOT;
    if low < params.len && all(pair_set[low] == pair) {
        slot = low;
    }
    keeps[k] = vec4<u32>(slot, pair, 0u);
}

@compute @workgroup_size(64)
fn record_flat(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = record_index(id, groups);
    if k >= min(contacts.count, params.capacity) {
        return;
    }
    let pair = keeps[k].yz;
    // Shape::is_curved: a circle, a capsule or a rounded polygon, the shapes whose rounding
    // radius is positive.
    let curved = shapes[indices[pair.x]].rounding > 0.0 || shapes[indices[pair.y]].rounding > 0.0;
    keeps[k].w = select(1u, 0u, curved);
}

@compute @workgroup_size(64)
fn keep_records(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    keep_flag = params.never == 0xffffffffu;
    let k = record_index(id, groups);
    if k >= min(contacts.count, params.capacity) {
        return;
    }
    let keep_it = keeps[k];
    if keep_it.x == NO_SLOT {
        return;
    }
    if keep_it.w == 0u {
        kept_out.records[keep_it.x].contact = k;
        return;
    }
    let pair = keep_it.yz;
    var kept = keep_manifold(pair, contacts.records[k], poses[pair.x], poses[pair.y]);
    kept.contact = k;
    kept_out.records[keep_it.x] = kept;
}

@compute @workgroup_size(256)
fn merge_flags(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    if j == params.len {
        places[j] = 0u;
    }
    if j < params.len {
        places[j] = select(1u, 0u, kept_out.records[j].contact == NO_CONTACT);
    }
}

// KeptManifold::recycle_into: the kept manifold carried to the current poses (the pair
// passed the test in recycle_slots, with the same poses: `carried` is the same here), as
// the input of the pair's contact (its bodies and material left to contact_materials).
fn recycle_into(kept: Kept, ta: Pose, tb: Pose) -> ContactInput {
    let carried = carried_points(kept, ta, tb);
    var m: ContactInput;
    m.key = kept.pair;
    m.normal = rotate_kept(ta.rotation, kept.normal);
    m.count = kept.count;
    // The manifold's own depth (the host's moves with its deepest point) is no input of
    // the solver's, and is left out.
    for (var k = 0u; k < kept.count; k++) {
        let d = carried.points[k];
        let p = kept.points[k];
        m.points[k] = keep2(rotate_kept(ta.rotation, p.point + 0.5 * d)) + ta.translation;
        m.depths[k] = p.depth - dot_kept(kept.normal, d);
        m.ids[k] = p.id;
    }
    if kept.count == 1u {
        m.points[1] = m.points[0];
        m.depths[1] = m.depths[0];
    }
    return m;
}

@compute @workgroup_size(256)
fn merge_recycled(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never == 0xffffffffu;
    let j = id.x;
    if j < params.len && kept_out.records[j].contact == RECYCLED {
        let kept = kept_out.records[j];
        merged[places[j]] = recycle_into(kept, poses[kept.pair.x], poses[kept.pair.y]);
    }
}

@compute @workgroup_size(256)
fn merge_fresh(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    if j >= params.len {
        return;
    }
    let k = kept_out.records[j].contact;
    if k < RECYCLED {
        // ContactGpu::manifold: a second point whose id is NO_POINT is unused, and the
        // first is repeated in its place.
        let c = contacts.records[k];
        var m: ContactInput;
        m.key = kept_out.records[j].pair;
        m.normal = c.normal;
        m.count = select(2u, 1u, c.points[1].id == NO_POINT);
        let second = c.points[m.count - 1u];
        m.points = array<vec2<f32>, 2>(c.points[0].point, second.point);
        m.depths = vec2<f32>(c.points[0].depth, second.depth);
        // A second id only for a second point (the host's record has 0 past the count).
        m.ids = vec2<u32>(c.points[0].id, select(0u, second.id, m.count == 2u));
        merged[places[j]] = m;
    }
}

// The hash of contact k's input (input_hash in src/gpu/contact_input.rs): box_hash folded
// over its eighteen words (the last two with two zeros).
fn input_hash(k: u32, c: ContactInput) -> u32 {
    let material = bitcast<vec3<u32>>(vec3<f32>(c.friction, c.restitution, c.tangent_speed));
    let n = bitcast<vec2<u32>>(c.normal);
    let p = bitcast<vec2<u32>>(c.points[0]);
    let q = bitcast<vec2<u32>>(c.points[1]);
    let d = bitcast<vec2<u32>>(c.depths);
    var h = box_hash(k, vec4<u32>(c.bodies, c.key));
    h = box_hash(h, vec4<u32>(material, c.count));
    h = box_hash(h, vec4<u32>(n, p));
    h = box_hash(h, vec4<u32>(q, d));
    return box_hash(h, vec4<u32>(c.ids, 0u, 0u));
}

// The workgroup's share of the list's hash, added to merged_hash[0] once.
var<workgroup> group_merged: atomic<u32>;

@compute @workgroup_size(256)
fn contact_materials(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&group_merged, 0u);
    }
    workgroupBarrier();
    let k = id.x;
    if k == 0u {
        // The list's length, for match_warm_starts (which binds no places).
        atomicStore(&merged_hash[2], places[params.len]);
    }
    if k < places[params.len] {
        var c = merged[k];
        let a = surfaces[c.key.x];
        let b = surfaces[c.key.y];
        // ColliderSurface::mix: the roots' product, the larger restitution, the speeds'
        // sum.
        c.bodies = vec2<u32>(a.body, b.body);
        c.friction = a.friction_root * b.friction_root;
        c.restitution = max(a.restitution, b.restitution);
        c.tangent_speed = a.tangent_speed + b.tangent_speed;
        merged[k] = c;
        atomicAdd(&group_merged, input_hash(k, c));
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&merged_hash[0], atomicLoad(&group_merged));
    }
}

// The hash of contact k's warm start (warm_hash in src/gpu/contact_input.rs): box_hash of
// its four words.
fn warm_hash(k: u32, w: WarmStart) -> u32 {
    let n = bitcast<vec2<u32>>(w.normal_impulses);
    let t = bitcast<vec2<u32>>(w.tangent_impulses);
    return box_hash(k, vec4<u32>(n, t));
}

// The workgroup's share of the warm starts' hash, added to merged_hash[1] once.
var<workgroup> group_warm: atomic<u32>;

// match_warm_starts (src/dynamics/solver/mod.rs), per contact of the merged list: the last
// step's contact of the same colliders (a binary search: both lists ascend by key), and
// per point the impulses of its point with the same feature id; zero where there is none.
// A hash of each warm start summed, for the host to hold to its own match.
@compute @workgroup_size(256)
fn match_warm_starts(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&group_warm, 0u);
    }
    workgroupBarrier();
    let k = id.x;
    if k < atomicLoad(&merged_hash[2]) {
        let c = merged[k];
        var lo = 0u;
        var hi = params.last_len;
        while lo < hi {
            let mid = (lo + hi) / 2u;
            if pair_less(last[mid].key, c.key) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        var w: WarmStart;
        if lo < params.last_len && all(last[lo].key == c.key) {
            let previous = last[lo];
            for (var p = 0u; p < c.count; p++) {
                // The first of the last step's points with this id, as `position` finds it.
                for (var q = 0u; q < previous.count; q++) {
                    if previous.ids[q] == c.ids[p] {
                        w.normal_impulses[p] = previous.impulses[q].x;
                        w.tangent_impulses[p] = previous.impulses[q].y;
                        break;
                    }
                }
            }
        }
        warm[k] = w;
        atomicAdd(&group_warm, warm_hash(k, w));
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&merged_hash[1], atomicLoad(&group_warm));
    }
}
