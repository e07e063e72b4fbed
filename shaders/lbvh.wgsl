// wgpu-sat linear bounding volume hierarchy (Karras 2012): the GPU broad phase's other
// candidate, measured against the sort-and-sweep. The twin of src/broad_phase/lbvh.rs,
// function for function (the reasons are there): morton_keys, the radix sort of the codes
// (radix_sort.wgsl), build_nodes, leaf_boxes, refit, walk_count, the scan of the counts
// (scan.wgsl), walk_write, then the pairs sorted as the sweep's (pair_keys, radix sort,
// gather_pairs in sort_sweep.wgsl).
//
// refit is the one kernel with an atomic: a counter per internal node, so that the second
// child to arrive writes the node's box. Which invocation that is varies; the box does not
// (a union of exact minima and maxima). It reads the box its sibling's walk wrote in the
// same dispatch, which WGSL's relaxed atomics do not order: Karras's refit relies on the
// GPU's coherent L2, as CUDA's does with a fence this language lacks. This file is a
// measurement; the sweep, which has no such step, is the broad phase the crate uses.

struct LbvhParams {
    // Boxes (leaves).
    len: u32,
    _pad0: u32,
    // The Morton frame: the lowest centre, and steps per world unit on each axis.
    low: vec2<f32>,
    scale: vec2<f32>,
    _pad1: vec2<u32>,
}

// Internal nodes 0..len-1 (root 0), then leaves len-1+k: children and leaf range; a leaf's
// box index in `left`.
struct Node {
    left: u32,
    right: u32,
    first: u32,
    last: u32,
}

@group(0) @binding(0) var<storage, read> boxes: array<vec4<f32>>;
// (code, box) items, sorted by code between morton_keys and build_nodes.
@group(0) @binding(1) var<storage, read_write> items: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> nodes: array<Node>;
@group(0) @binding(3) var<storage, read_write> parents: array<u32>;
@group(0) @binding(4) var<storage, read_write> node_boxes: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> arrived: array<atomic<u32>>;
// Per leaf its pair count; scanned: where its pairs start, counts[len] the total.
@group(0) @binding(6) var<storage, read_write> counts: array<u32>;
@group(0) @binding(7) var<storage, read_write> found: array<vec2<u32>>;
@group(0) @binding(8) var<uniform> lbvh_params: LbvhParams;

const MORTON_STEPS: f32 = 65535.0;
const WALK_STACK: u32 = 66u;

fn centre(b: vec4<f32>) -> vec2<f32> {
    return vec2<f32>(0.5 * (b.x + b.z), 0.5 * (b.y + b.w));
}

fn spread_bits(v: u32) -> u32 {
    var x = v & 0xffffu;
    x = (x | (x << 8u)) & 0x00ff00ffu;
    x = (x | (x << 4u)) & 0x0f0f0f0fu;
    x = (x | (x << 2u)) & 0x33333333u;
    return (x | (x << 1u)) & 0x55555555u;
}

fn steps(c: f32, low: f32, scale: f32) -> u32 {
    return u32(clamp((c - low) * scale, 0.0, MORTON_STEPS));
}

@compute @workgroup_size(256)
fn morton_keys(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= lbvh_params.len {
        return;
    }
    let c = centre(boxes[i]);
    let x = steps(c.x, lbvh_params.low.x, lbvh_params.scale.x);
    let y = steps(c.y, lbvh_params.low.y, lbvh_params.scale.y);
    items[i] = vec2<u32>(spread_bits(x) | (spread_bits(y) << 1u), i);
}

// The common prefix of sorted keys i and j in bits (code, then position); -1 out of range.
fn prefix(i: i32, j: i32) -> i32 {
    if j < 0 || j >= i32(lbvh_params.len) {
        return -1;
    }
    let a = items[i].x;
    let b = items[j].x;
    if a == b {
        return 32 + i32(countLeadingZeros(u32(i) ^ u32(j)));
    }
    return i32(countLeadingZeros(a ^ b));
}

@compute @workgroup_size(256)
fn build_nodes(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = i32(lbvh_params.len);
    let i = i32(id.x);
    if i >= n - 1 {
        return;
    }
    var d = -1;
    if prefix(i, i + 1) > prefix(i, i - 1) {
        d = 1;
    }
    let below = prefix(i, i - d);
    var reach = 2;
    while prefix(i, i + reach * d) > below {
        reach = reach * 2;
    }
    var length = 0;
    var step = reach / 2;
    while step >= 1 {
        if prefix(i, i + (length + step) * d) > below {
            length = length + step;
        }
        step = step / 2;
    }
    let j = i + length * d;
    let node_prefix = prefix(i, j);
    var split = 0;
    step = length;
    loop {
        step = (step + 1) / 2;
        if prefix(i, i + (split + step) * d) > node_prefix {
            split = split + step;
        }
        if step <= 1 {
            break;
        }
    }
    let gamma = i + split * d + min(d, 0);
    let first = min(i, j);
    let last = max(i, j);
    var left = gamma;
    if first == gamma {
        left = n - 1 + gamma;
    }
    var right = gamma + 1;
    if last == gamma + 1 {
        right = n + gamma;
    }
    nodes[i] = Node(u32(left), u32(right), u32(first), u32(last));
    parents[left] = u32(i);
    parents[right] = u32(i);
    // The refit's counter, cleared for this call.
    atomicStore(&arrived[i], 0u);
}

@compute @workgroup_size(256)
fn leaf_boxes(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let n = lbvh_params.len;
    if k >= n {
        return;
    }
    let b = items[k].y;
    nodes[n - 1u + k] = Node(b, b, k, k);
    node_boxes[n - 1u + k] = boxes[b];
}

fn union_box(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(min(a.xy, b.xy), max(a.zw, b.zw));
}

@compute @workgroup_size(256)
fn refit(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = lbvh_params.len;
    if id.x >= n {
        return;
    }
    var node = n - 1u + id.x;
    while node != 0u {
        let parent = parents[node];
        // The first to arrive stops; the second has both children's boxes.
        if atomicAdd(&arrived[parent], 1u) == 0u {
            return;
        }
        let children = nodes[parent];
        node_boxes[parent] = union_box(node_boxes[children.left], node_boxes[children.right]);
        node = parent;
    }
}

fn overlaps(a: vec4<f32>, b: vec4<f32>) -> bool {
    return a.x <= b.z && b.x <= a.z && a.y <= b.w && b.y <= a.w;
}

// The walk from leaf k: the leaves after it whose boxes overlap its box. With `write`,
// each pair goes to found[at..]; returns how many there were.
fn walk(k: u32, write: bool, start: u32) -> u32 {
    let leaves = lbvh_params.len;
    let own_node = leaves - 1u + k;
    let own = node_boxes[own_node];
    let own_box = nodes[own_node].left;
    var stack: array<u32, WALK_STACK>;
    stack[0] = 0u;
    var depth = 1u;
    var count = 0u;
    while depth > 0u {
        depth = depth - 1u;
        let node = stack[depth];
        let here = nodes[node];
        if here.last <= k || !overlaps(node_boxes[node], own) {
            continue;
        }
        if node >= leaves - 1u {
            if write {
                found[start + count] = vec2<u32>(min(own_box, here.left), max(own_box, here.left));
            }
            count = count + 1u;
            continue;
        }
        // The right child pushed first: the left one is walked first.
        stack[depth] = here.right;
        stack[depth + 1u] = here.left;
        depth = depth + 2u;
    }
    return count;
}

@compute @workgroup_size(256)
fn walk_count(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let n = lbvh_params.len;
    if k == n {
        counts[n] = 0u;
    }
    if k < n {
        counts[k] = walk(k, false, 0u);
    }
}

@compute @workgroup_size(256)
fn walk_write(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k < lbvh_params.len {
        walk(k, true, counts[k]);
    }
}
