//! Deterministic randomness: every choice of the devnet comes from a
//! generator seeded by the devnet seed and a label, so the same seed makes
//! the same chains, byte for byte.

use alloy_primitives::{B256, keccak256};

/// 32 bytes derived from the seed and the parts that name what they are for.
pub(crate) fn derive(seed: u64, parts: &[&[u8]]) -> B256 {
    let mut input = b"w3api-devnet".to_vec();
    input.extend_from_slice(&seed.to_be_bytes());
    for part in parts {
        input.extend_from_slice(&(part.len() as u32).to_be_bytes());
        input.extend_from_slice(part);
    }
    keccak256(input)
}

/// A random generator for one purpose.
pub(crate) fn rng(seed: u64, parts: &[&[u8]]) -> fastrand::Rng {
    let bytes = derive(seed, parts);
    fastrand::Rng::with_seed(u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")))
}
