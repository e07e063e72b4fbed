// wgpu-sat: the hash of a box that the GPU's sums of boxes add up (hash_fat in pair_set.wgsl,
// hash_boxes in sort_sweep.wgsl), held by the host to the same sum of its own boxes
// (box_hash and hash_boxes in src/broad_phase/sort_sweep.rs): multiplications by odd
// constants and xors over the index and the four words' bits (min.x, min.y, max.x, max.y),
// so that a box moved by a bit or swapped with another changes the sum. Integer addition
// wraps and commutes, so the sum is the same in any order on any adapter.
fn box_hash(i: u32, b: vec4<u32>) -> u32 {
    var h = (i + 1u) * 0x9e3779b1u;
    h = mix_word(h, b.x, 0x85ebca6bu);
    h = mix_word(h, b.y, 0xc2b2ae35u);
    h = mix_word(h, b.z, 0x27d4eb2fu);
    h = mix_word(h, b.w, 0x165667b1u);
    return h ^ (h >> 15u);
}

// One word into the hash: xor, multiply, and the high half folded into the low. Without
// the fold a word's top bit only ever flips the product's top bit, and two words' top bits
// flipped together (a vector negated: a sign in each) left the hash as it was.
fn mix_word(h: u32, w: u32, c: u32) -> u32 {
    let m = (h ^ w) * c;
    return m ^ (m >> 16u);
}
