// wgpu-sat: the hash of a box that the GPU's sums of boxes add up (hash_fat in pair_set.wgsl,
// hash_boxes in sort_sweep.wgsl), held by the host to the same sum of its own boxes
// (box_hash and hash_boxes in src/broad_phase/sort_sweep.rs): multiplications by odd
// constants and xors over the index and the four words' bits (min.x, min.y, max.x, max.y),
// so that a box moved by a bit or swapped with another changes the sum. Integer addition
// wraps and commutes, so the sum is the same in any order on any adapter.
fn box_hash(i: u32, b: vec4<u32>) -> u32 {
    var h = (i + 1u) * 0x9e3779b1u;
    h = (h ^ b.x) * 0x85ebca6bu;
    h = (h ^ b.y) * 0xc2b2ae35u;
    h = (h ^ b.z) * 0x27d4eb2fu;
    h = (h ^ b.w) * 0x165667b1u;
    return h ^ (h >> 15u);
}
