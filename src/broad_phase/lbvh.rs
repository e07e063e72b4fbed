//! A linear bounding volume hierarchy (LBVH, Karras 2012) built from Morton codes and
//! walked once per box: the CPU twin of `shaders/lbvh.wgsl`, function for function. It is
//! the GPU broad phase's other candidate, measured against the sort-and-sweep (see
//! `docs/performance.md`, "Why a sort-based sweep").
//!
//! ```text
//! lbvh(boxes):
//!     the box centres' bounds, on the host (as the sweep fits its bands there)
//!     morton_keys: each centre, scaled to 16 bits an axis, its bits interleaved: (code, box)
//!     radix sort by code (stable: equal codes stay in box order)
//!     build_nodes: internal node i of n - 1 (Karras): the direction and far end of its
//!         range from the common prefixes of neighbouring keys (a code, then its position),
//!         its split by a binary search; children, parents, each node's leaf range
//!     leaf_boxes: leaf k holds the box of sorted item k
//!     refit: from each leaf up, the second child to reach a node (an atomic count on the
//!         GPU) writes the node's box, the union of its children's (min and max are exact:
//!         the same box whatever the order)
//!     walk_count: from leaf k, a depth-first walk of the nodes whose boxes overlap k's,
//!         skipping nodes whose leaves all come before k; count the leaves after k
//!     scan; walk_write: the same walk, writing [min, max] of the two boxes' indices
//!     the pairs sorted by (first, second), as the sweep's are (sort_sweep.rs)
//! ```
//!
//! The pairs are [`BroadPhase::find_pairs`](crate::BroadPhase::find_pairs)' exactly: every
//! overlapping or touching pair once, ascending.

use crate::broad_phase::radix_sort::{index_bits, radix_sort};
use crate::broad_phase::scan::exclusive_scan;
use crate::broad_phase::sort_sweep::{check_boxes, gather_pairs, order_pairs};
use crate::error::Error;
use crate::shapes::aabb::Aabb;

/// Steps a centre takes on each axis: 16 bits, so that two axes make a 32-bit code.
const MORTON_STEPS: f32 = 65_535.0;
/// The deepest walk: a node's common prefix (a 32-bit code, then a 32-bit position) grows
/// by at least one bit from parent to child, so a path holds at most 65 nodes; the stack
/// holds a pushed sibling per level.
pub(crate) const WALK_STACK: usize = 66;

/// The scale the codes take: the lowest centre, and `MORTON_STEPS` over the centres'
/// extent on each axis (0 where the extent is 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MortonFrame {
    pub(crate) low: [f32; 2],
    pub(crate) scale: [f32; 2],
}

/// The centre of a box, as both sides compute it (`Aabb::center`: a sum, then a half).
fn centre(b: &Aabb) -> [f32; 2] {
    b.center().to_array()
}

impl MortonFrame {
    /// The frame of the centres of `boxes` (finite, checked).
    pub(crate) fn fit(boxes: &[Aabb]) -> MortonFrame {
        let mut low = [f32::INFINITY; 2];
        let mut high = [f32::NEG_INFINITY; 2];
        for b in boxes {
            let c = centre(b);
            for axis in 0..2 {
                low[axis] = low[axis].min(c[axis]);
                high[axis] = high[axis].max(c[axis]);
            }
        }
        let scale = [0, 1].map(|axis| {
            let extent = high[axis] - low[axis];
            if extent > 0.0 && extent.is_finite() {
                MORTON_STEPS / extent
            } else {
                0.0
            }
        });
        MortonFrame { low, scale }
    }
}

/// The low 16 bits of `v` spread to the even bits.
fn spread_bits(v: u32) -> u32 {
    let mut x = v & 0xffff;
    x = (x | (x << 8)) & 0x00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333;
    (x | (x << 1)) & 0x5555_5555
}

/// One axis of a centre in steps: clamped within 0..=MORTON_STEPS (the product can round
/// past it), truncated.
fn steps(c: f32, low: f32, scale: f32) -> u32 {
    ((c - low) * scale).clamp(0.0, MORTON_STEPS) as u32
}

/// `items[i]` = (Morton code of box i's centre, i).
pub(crate) fn morton_keys(boxes: &[Aabb], frame: &MortonFrame, items: &mut [[u32; 2]]) {
    for (i, (item, b)) in items.iter_mut().zip(boxes).enumerate() {
        let c = centre(b);
        let x = steps(c[0], frame.low[0], frame.scale[0]);
        let y = steps(c[1], frame.low[1], frame.scale[1]);
        *item = [spread_bits(x) | (spread_bits(y) << 1), i as u32];
    }
}

/// The common prefix of sorted keys `i` and `j` in bits (a code, then its position), or -1
/// when `j` is out of range.
fn prefix(items: &[[u32; 2]], i: i64, j: i64) -> i64 {
    if j < 0 || j >= items.len() as i64 {
        return -1;
    }
    let (a, b) = (items[i as usize][0], items[j as usize][0]);
    if a == b {
        return 32 + ((i as u32) ^ (j as u32)).leading_zeros() as i64;
    }
    (a ^ b).leading_zeros() as i64
}

/// A node of the tree: internal nodes first (`0..n - 1`, the root at 0), then the leaves
/// (`n - 1 + k` for sorted item `k`). An internal node's children and leaf range; a leaf's
/// box index (in `left`) and its own position as the range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) first: u32,
    pub(crate) last: u32,
}

/// Internal node `i` of the sorted `items` (Karras 2012, section 4): its range's
/// direction, far end and split, as node indices of its children; each child's parent.
pub(crate) fn build_nodes(items: &[[u32; 2]], nodes: &mut [Node], parents: &mut [u32]) {
    let n = items.len() as i64;
    for i in 0..n - 1 {
        let d: i64 = if prefix(items, i, i + 1) > prefix(items, i, i - 1) {
            1
        } else {
            -1
        };
        let below = prefix(items, i, i - d);
        let mut reach = 2;
        while prefix(items, i, i + reach * d) > below {
            reach *= 2;
        }
        let mut length = 0;
        let mut step = reach / 2;
        while step >= 1 {
            if prefix(items, i, i + (length + step) * d) > below {
                length += step;
            }
            step /= 2;
        }
        let j = i + length * d;
        let node_prefix = prefix(items, i, j);
        let mut split = 0;
        let mut step = length;
        loop {
            step = (step + 1) / 2;
            if prefix(items, i, i + (split + step) * d) > node_prefix {
                split += step;
            }
            if step <= 1 {
                break;
            }
        }
        let gamma = i + split * d + d.min(0);
        let (first, last) = (i.min(j), i.max(j));
        let left = if first == gamma { n - 1 + gamma } else { gamma };
        let right = if last == gamma + 1 {
            n + gamma
        } else {
            gamma + 1
        };
        nodes[i as usize] = Node {
            left: left as u32,
            right: right as u32,
            first: first as u32,
            last: last as u32,
        };
        parents[left as usize] = i as u32;
        parents[right as usize] = i as u32;
    }
}

/// Leaf `k`'s node and box: sorted item `k`'s.
pub(crate) fn leaf_boxes(
    boxes: &[Aabb],
    items: &[[u32; 2]],
    nodes: &mut [Node],
    node_boxes: &mut [Aabb],
) {
    let leaves = items.len() - 1;
    for (k, item) in items.iter().enumerate() {
        nodes[leaves + k] = Node {
            left: item[1],
            right: item[1],
            first: k as u32,
            last: k as u32,
        };
        node_boxes[leaves + k] = boxes[item[1] as usize];
    }
}

/// From each leaf up: the second child to reach a node writes its box. `arrived` counts
/// arrivals per internal node (the GPU's atomic counters); the walks run leaf by leaf
/// here, concurrently there, to the same boxes.
pub(crate) fn refit(nodes: &[Node], parents: &[u32], node_boxes: &mut [Aabb], arrived: &mut [u32]) {
    let leaves = arrived.len() + 1;
    for k in 0..leaves {
        let mut node = leaves - 1 + k;
        while node != 0 {
            let parent = parents[node] as usize;
            arrived[parent] += 1;
            if arrived[parent] == 1 {
                break;
            }
            let Node { left, right, .. } = nodes[parent];
            node_boxes[parent] = node_boxes[left as usize].union(&node_boxes[right as usize]);
            node = parent;
        }
    }
}

/// The walk from leaf `k`: every leaf after it whose box overlaps (or touches) its box,
/// by box index, to `found` in the walk's order.
fn walk(nodes: &[Node], node_boxes: &[Aabb], k: usize, mut found: impl FnMut(u32)) {
    // 2n - 1 nodes: n leaves.
    let leaves = nodes.len().div_ceil(2);
    let own = node_boxes[leaves - 1 + k];
    let mut stack = [0u32; WALK_STACK];
    let mut depth = 1;
    while depth > 0 {
        depth -= 1;
        let node = stack[depth] as usize;
        let Node {
            left, right, last, ..
        } = nodes[node];
        if last as usize <= k || !node_boxes[node].overlaps(&own) {
            continue;
        }
        if node >= leaves - 1 {
            found(left);
            continue;
        }
        // The right child pushed first: the left one is walked first.
        stack[depth] = right;
        stack[depth + 1] = left;
        depth += 2;
    }
}

/// `counts[k]`: the pairs of leaf `k` with the leaves after it; `counts[n]` = 0.
pub(crate) fn walk_count(nodes: &[Node], node_boxes: &[Aabb], counts: &mut [u32]) {
    let leaves = counts.len() - 1;
    for (k, count) in counts[..leaves].iter_mut().enumerate() {
        let mut c = 0;
        walk(nodes, node_boxes, k, |_| c += 1);
        *count = c;
    }
    counts[leaves] = 0;
}

/// Leaf `k`'s pairs, from `offsets[k]` on: `[min, max]` of the two box indices.
pub(crate) fn walk_write(
    nodes: &[Node],
    node_boxes: &[Aabb],
    offsets: &[u32],
    found: &mut [[u32; 2]],
) {
    let leaves = offsets.len() - 1;
    for k in 0..leaves {
        let own = nodes[leaves - 1 + k].left;
        let mut at = offsets[k] as usize;
        walk(nodes, node_boxes, k, |other| {
            found[at] = [own.min(other), own.max(other)];
            at += 1;
        });
    }
}

/// The pairs of overlapping or touching boxes through the LBVH, ascending: the GPU's
/// LBVH stages one after the other on the CPU. Errors as
/// [`sort_sweep`](crate::broad_phase::sort_sweep).
pub fn lbvh_pairs(boxes: &[Aabb]) -> Result<Vec<[u32; 2]>, Error> {
    check_boxes(boxes)?;
    let n = boxes.len();
    if n < 2 {
        return Ok(Vec::new());
    }
    let frame = MortonFrame::fit(boxes);
    let mut items = vec![[0u32; 2]; n];
    morton_keys(boxes, &frame, &mut items);
    radix_sort(&mut items, &mut Vec::new(), 32);
    let mut nodes = vec![Node::default(); 2 * n - 1];
    let mut parents = vec![0u32; 2 * n - 1];
    build_nodes(&items, &mut nodes, &mut parents);
    let mut node_boxes = vec![Aabb::default(); 2 * n - 1];
    leaf_boxes(boxes, &items, &mut nodes, &mut node_boxes);
    refit(&nodes, &parents, &mut node_boxes, &mut vec![0; n - 1]);
    let mut counts = vec![0u32; n + 1];
    walk_count(&nodes, &node_boxes, &mut counts);
    exclusive_scan(&mut counts);
    let total = counts[n] as usize;
    let mut found = vec![[0u32; 2]; total];
    walk_write(&nodes, &node_boxes, &counts, &mut found);
    let order = order_pairs(&found, total, index_bits(n));
    let mut pairs = vec![[0u32; 2]; total];
    gather_pairs(&found, &order, &mut pairs);
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::BroadPhase;

    #[test]
    fn lbvh_pairs_equal_the_sweeps() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut random = |n: usize, extent: f32, size: f32| -> Vec<Aabb> {
            (0..n)
                .map(|_| {
                    let min = Vec2::new(
                        rng.random_range(-extent..extent),
                        rng.random_range(-extent..extent),
                    );
                    let s = Vec2::new(rng.random_range(0.01..size), rng.random_range(0.01..size));
                    Aabb::new(min, min + s)
                })
                .collect()
        };
        let mut cases = vec![
            random(3_000, 30.0, 2.0),
            random(500, 5.0, 3.0),
            random(2, 1.0, 1.0),
        ];
        // Identical boxes (equal codes), an edge-touching grid, a huge box over tiny ones,
        // a row on one line (no extent in y), far from the origin.
        cases.push(vec![Aabb::new(Vec2::ZERO, Vec2::ONE); 40]);
        cases.push(
            (0..400)
                .map(|i| {
                    let min = Vec2::new((i % 20) as f32, (i / 20) as f32);
                    Aabb::new(min, min + Vec2::ONE)
                })
                .collect(),
        );
        let mut huge = random(300, 10.0, 0.1);
        huge.push(Aabb::new(Vec2::splat(-20.0), Vec2::splat(20.0)));
        cases.push(huge);
        cases.push(
            (0..100)
                .map(|i| {
                    Aabb::new(
                        Vec2::new(i as f32 * 0.5, 0.0),
                        Vec2::new(i as f32 * 0.5 + 1.0, 1.0),
                    )
                })
                .collect(),
        );
        cases.push(
            random(300, 5.0, 1.0)
                .iter()
                .map(|b| Aabb::new(b.min + Vec2::splat(1e6), b.max + Vec2::splat(1e6)))
                .collect(),
        );
        for (c, boxes) in cases.iter().enumerate() {
            let expected = BroadPhase::new().find_pairs(boxes).to_vec();
            assert_eq!(lbvh_pairs(boxes).unwrap(), expected, "case {c}");
        }
        assert!(lbvh_pairs(&[]).unwrap().is_empty());
    }
}
