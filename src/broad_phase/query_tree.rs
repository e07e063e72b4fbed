//! A bounding volume hierarchy over the colliders' boxes, for the world's queries (ray
//! casts, point and box queries): a query visits the boxes along its way, not every one.
//!
//! ```text
//! build(boxes):  top down; a node's items split at the median of their box centres
//!                along the wider axis of those centres, until LEAF_SIZE or fewer remain
//!                (nodes stored depth first: a node's left child follows it)
//! ray(origin, d, reach):  stack of nodes; a node is entered when the ray's slab test
//!                meets its box before `reach`; the nearer child is visited first, and a
//!                hit shortens `reach`, so farther boxes are skipped (closest-hit casts)
//! boxes(query):  every leaf item whose box overlaps the query box
//! ```
//!
//! The world builds it lazily: on the first query after a step moved the colliders, over
//! their boxes as that step left them, into buffers it keeps (so a warm rebuild allocates
//! nothing). A step that no query follows pays nothing for it. While the collider count
//! stays the same the tree is refitted instead (node boxes made again from the leaves,
//! linear in the colliders), and built anew only every `REBUILD_EVERY`-th time.

use glam::Vec2;

use crate::shapes::aabb::Aabb;

/// Items per leaf: a leaf tests its items' boxes one after another, cheaper than two more
/// levels of nodes for so few.
const LEAF_SIZE: usize = 4;

/// A node: its box, and either its items (a leaf: `items[start..start + count]`) or its
/// children (`count == 0`: the left child is the next node, the right at `start`).
#[derive(Clone, Copy, Debug)]
struct Node {
    aabb: Aabb,
    start: u32,
    count: u32,
}

/// The hierarchy over one set of boxes, with the buffers its builds reuse.
#[derive(Clone, Debug, Default)]
pub(crate) struct QueryTree {
    nodes: Vec<Node>,
    /// Item indices, leaves' items contiguous.
    items: Vec<u32>,
    /// The boxes it was built over, by item (the build's input).
    boxes: Vec<Aabb>,
    /// The same boxes in the order of `items`, so that a leaf reads its items' boxes from
    /// one run of memory rather than from all over the list.
    leaf_boxes: Vec<Aabb>,
    /// Box centres, by item (the build's split keys).
    centers: Vec<Vec2>,
}

impl QueryTree {
    /// Builds the tree over `boxes` (item `i` is `boxes[i]`), reusing the buffers.
    pub fn build(&mut self, boxes: &[Aabb]) {
        self.boxes.clear();
        self.boxes.extend_from_slice(boxes);
        self.centers.clear();
        self.centers.extend(boxes.iter().map(|b| b.center()));
        self.items.clear();
        self.items.extend(0..boxes.len() as u32);
        self.nodes.clear();
        if !boxes.is_empty() {
            self.build_node(0, boxes.len());
        }
        self.leaf_boxes.clear();
        let (items, all) = (&self.items, &self.boxes);
        self.leaf_boxes
            .extend(items.iter().map(|&i| all[i as usize]));
    }

    /// Appends the node over `items[start..end]` and its subtree; returns its index.
    fn build_node(&mut self, start: usize, end: usize) -> usize {
        let aabb = self.items[start..end]
            .iter()
            .map(|&i| self.boxes[i as usize])
            .reduce(|a, b| a.union(&b))
            .unwrap_or(Aabb::new(Vec2::ZERO, Vec2::ZERO));
        let index = self.nodes.len();
        self.nodes.push(Node {
            aabb,
            start: start as u32,
            count: (end - start) as u32,
        });
        if end - start <= LEAF_SIZE {
            return index;
        }
        // Split at the median along the wider spread of the centres.
        let centers = &self.centers;
        let spread = self.items[start..end]
            .iter()
            .map(|&i| centers[i as usize])
            .fold(
                (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                |(lo, hi), c| (lo.min(c), hi.max(c)),
            );
        let extent = spread.1 - spread.0;
        let axis = usize::from(extent.y > extent.x);
        let middle = start + (end - start) / 2;
        self.items[start..end].select_nth_unstable_by(middle - start, |&a, &b| {
            centers[a as usize][axis].total_cmp(&centers[b as usize][axis])
        });
        self.build_node(start, middle);
        let right = self.build_node(middle, end);
        self.nodes[index].start = right as u32;
        self.nodes[index].count = 0;
        index
    }

    /// Brings the tree to `boxes` (as many as it was built over) without changing its
    /// shape: each leaf's boxes are copied in, and every node's box is made again from its
    /// children's, bottom up (children follow their parents in `nodes`). Linear in the
    /// items, and far cheaper than a build; the tree's split choices grow stale as the
    /// items move, so the caller builds again now and then.
    pub fn refit(&mut self, boxes: &[Aabb]) {
        debug_assert_eq!(boxes.len(), self.leaf_boxes.len());
        for (slot, &item) in self.leaf_boxes.iter_mut().zip(&self.items) {
            *slot = boxes[item as usize];
        }
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            let (start, count) = (node.start as usize, node.count as usize);
            self.nodes[i].aabb = if count > 0 {
                self.leaf_boxes[start..start + count]
                    .iter()
                    .copied()
                    .reduce(|a, b| a.union(&b))
                    .unwrap_or(node.aabb)
            } else {
                self.nodes[i + 1].aabb.union(&self.nodes[start].aabb)
            };
        }
    }

    /// How many items it was built over.
    pub fn len(&self) -> usize {
        self.leaf_boxes.len()
    }

    /// Visits the items whose boxes the ray `origin + t * translation` meets for `t` in
    /// `[0, reach]`, nearer subtrees first. `visit(item)` returns a new reach (a hit: boxes
    /// beyond it need no visit) or `None`, and may return a reach of less than 0 to stop.
    pub fn ray(
        &self,
        origin: Vec2,
        translation: Vec2,
        mut reach: f32,
        mut visit: impl FnMut(usize) -> Option<f32>,
    ) {
        if self.nodes.is_empty() {
            return;
        }
        // 1/d per axis; a zero component gives an infinity, which `slab_entry` reads as
        // "parallel to that axis".
        let inverse = translation.recip();
        let enter = |aabb: &Aabb| slab_entry(aabb, origin, inverse);
        let mut stack = [0u32; 64];
        let mut depth = 0;
        let push = |stack: &mut [u32; 64], depth: &mut usize, node: usize| {
            stack[*depth] = node as u32;
            *depth += 1;
        };
        if enter(&self.nodes[0].aabb).is_some_and(|t| t <= reach) {
            push(&mut stack, &mut depth, 0);
        }
        while depth > 0 {
            depth -= 1;
            let node = &self.nodes[stack[depth] as usize];
            if node.count > 0 {
                let (start, count) = (node.start as usize, node.count as usize);
                let leaf = start..start + count;
                for (&item, aabb) in self.items[leaf.clone()].iter().zip(&self.leaf_boxes[leaf]) {
                    let item = item as usize;
                    if !enter(aabb).is_some_and(|t| t <= reach) {
                        continue;
                    }
                    if let Some(r) = visit(item) {
                        if r < 0.0 {
                            return;
                        }
                        reach = reach.min(r);
                    }
                }
                continue;
            }
            let (left, right) = (stack[depth] as usize + 1, node.start as usize);
            let t_left = enter(&self.nodes[left].aabb).filter(|&t| t <= reach);
            let t_right = enter(&self.nodes[right].aabb).filter(|&t| t <= reach);
            // Push the farther first, so the nearer is visited first. The depth of a
            // median-split tree is log2(n / LEAF_SIZE) + 1: 64 slots hold any world.
            match (t_left, t_right) {
                (Some(l), Some(r)) => {
                    let (near, far) = if l <= r { (left, right) } else { (right, left) };
                    push(&mut stack, &mut depth, far);
                    push(&mut stack, &mut depth, near);
                }
                (Some(_), None) => push(&mut stack, &mut depth, left),
                (None, Some(_)) => push(&mut stack, &mut depth, right),
                (None, None) => {}
            }
        }
    }

    /// Visits the items whose boxes overlap `query`; `visit` returns false to stop.
    pub fn boxes(&self, query: &Aabb, mut visit: impl FnMut(usize) -> bool) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = [0u32; 64];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let index = stack[depth] as usize;
            let node = &self.nodes[index];
            if !node.aabb.overlaps(query) {
                continue;
            }
            if node.count > 0 {
                let (start, count) = (node.start as usize, node.count as usize);
                let leaf = start..start + count;
                for (&item, aabb) in self.items[leaf.clone()].iter().zip(&self.leaf_boxes[leaf]) {
                    if aabb.overlaps(query) && !visit(item as usize) {
                        return;
                    }
                }
                continue;
            }
            stack[depth] = (index + 1) as u32;
            stack[depth + 1] = node.start;
            depth += 2;
        }
    }
}

/// Where the ray `origin + t * d` (given as `1 / d` per axis) enters `aabb`, as `t` (0 when
/// it starts inside), or `None` when it misses it for every `t >= 0`. Boundaries count as
/// inside, so a ray that skims along a box's edge meets it.
fn slab_entry(aabb: &Aabb, origin: Vec2, inverse: Vec2) -> Option<f32> {
    let (mut enter, mut exit) = (0.0f32, f32::INFINITY);
    for axis in 0..2 {
        let (o, inv) = (origin[axis], inverse[axis]);
        let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
        if inv.is_infinite() {
            // No motion along this axis: inside its slab throughout, or never.
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) * inv, (hi - o) * inv);
        enter = enter.max(a.min(b));
        exit = exit.min(a.max(b));
    }
    (enter <= exit).then_some(enter)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of unit boxes, 1.5 apart.
    fn grid(n: usize) -> Vec<Aabb> {
        let mut boxes = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let c = Vec2::new(i as f32, j as f32) * 1.5;
                boxes.push(Aabb::new(c - 0.5, c + 0.5));
            }
        }
        boxes
    }

    #[test]
    fn a_refitted_tree_answers_as_a_new_one() {
        let boxes = grid(20);
        let mut tree = QueryTree::default();
        tree.build(&boxes);
        // Every box moves, some far: the refitted tree keeps its shape, not its answers.
        let moved: Vec<Aabb> = boxes
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let shift = Vec2::new((i % 7) as f32 * 1.3, -((i % 5) as f32) * 2.1);
                Aabb::new(b.min + shift, b.max + shift)
            })
            .collect();
        tree.refit(&moved);
        let query = Aabb::new(Vec2::new(4.0, -3.0), Vec2::new(15.0, 9.0));
        let mut found = Vec::new();
        tree.boxes(&query, |i| {
            found.push(i);
            true
        });
        found.sort_unstable();
        let brute: Vec<usize> = (0..moved.len())
            .filter(|&i| moved[i].overlaps(&query))
            .collect();
        assert_eq!(found, brute);
    }

    #[test]
    fn box_queries_find_exactly_the_overlapping_boxes() {
        let boxes = grid(30);
        let mut tree = QueryTree::default();
        tree.build(&boxes);
        for query in [
            Aabb::new(Vec2::new(3.0, 3.0), Vec2::new(9.2, 5.0)),
            Aabb::new(Vec2::splat(-10.0), Vec2::splat(100.0)),
            Aabb::new(Vec2::splat(0.6), Vec2::splat(0.9)),
        ] {
            let mut found = Vec::new();
            tree.boxes(&query, |i| {
                found.push(i);
                true
            });
            found.sort_unstable();
            let brute: Vec<usize> = (0..boxes.len())
                .filter(|&i| boxes[i].overlaps(&query))
                .collect();
            assert_eq!(found, brute, "{query:?}");
        }
    }

    #[test]
    fn a_ray_visits_every_box_it_crosses_and_only_those() {
        let boxes = grid(30);
        let mut tree = QueryTree::default();
        tree.build(&boxes);
        for (origin, d) in [
            (Vec2::new(-2.0, 0.2), Vec2::new(60.0, 31.0)),
            (Vec2::new(10.0, -3.0), Vec2::new(0.0, 60.0)),
            (Vec2::new(50.0, 20.0), Vec2::new(-60.0, 0.0)),
        ] {
            let mut found = Vec::new();
            tree.ray(origin, d, 1.0, |i| {
                found.push(i);
                None
            });
            found.sort_unstable();
            let brute: Vec<usize> = (0..boxes.len())
                .filter(|&i| slab_entry(&boxes[i], origin, d.recip()).is_some_and(|t| t <= 1.0))
                .collect();
            assert!(!brute.is_empty());
            assert_eq!(found, brute, "{origin} {d}");
        }
    }
}
