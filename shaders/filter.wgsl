// wgpu-sat: a collider's collision filter as the GPU stages hold it (Filter in
// src/broad_phase/filter.rs: its u64 bits as (low, high) words), and Filter::should_collide.
// Included by the stages that filter pairs (pair_set.wgsl, continuous.wgsl), each of which
// keeps the three fields in its own records and makes a CollisionFilter of them.

struct CollisionFilter {
    category: vec2<u32>,
    mask: vec2<u32>,
    group: i32,
}

// Filter::should_collide: a shared non-zero group decides (positive: always, negative:
// never), else each mask must hold one of the other's categories.
fn should_collide(a: CollisionFilter, b: CollisionFilter) -> bool {
    if a.group == b.group && a.group != 0 {
        return a.group > 0;
    }
    let none = vec2<u32>(0u);
    return any((a.mask & b.category) != none) && any((b.mask & a.category) != none);
}
