//! The bytes of each input, from its target, seed and index alone: the driver's, and the
//! property test's (`tests/cpu/snapshot_roundtrip.rs` replays inputs this harness found).

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The bytes of input `index` of `target`: ChaCha8 keyed by the three numbers, so any input
/// can be rebuilt alone. Most inputs are short; a few are long enough for big point sets.
pub fn input_bytes(seed: u64, target: &str, index: u64, buffer: &mut Vec<u8>) {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&index.to_le_bytes());
    // The target's name, not its position in a list, so that adding a target changes no
    // other target's inputs.
    for (k, b) in target.bytes().take(16).enumerate() {
        key[16 + k] = b;
    }
    let mut rng = ChaCha8Rng::from_seed(key);
    let size = match rng.random_range(0u32..100) {
        0..=79 => rng.random_range(16..1024),
        80..=97 => rng.random_range(1024..8192),
        _ => rng.random_range(8192..65536),
    };
    buffer.resize(size, 0);
    rng.fill_bytes(buffer);
}
