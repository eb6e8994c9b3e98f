//! The journal of a node-mode index: each block the indexer took from a
//! chain's node, kept so that the index outlives the process and replicas
//! that do not index can follow the one that does.

use w3api_types::rpc::Hash32;

/// One block of a node-mode index, as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexBlock {
    /// The block's number.
    pub number: u64,
    /// The block's hash.
    pub hash: Hash32,
    /// Its parent's hash: the block it follows, kept or not.
    pub parent_hash: Hash32,
    /// The block's timestamp, in Unix seconds.
    pub timestamp: u64,
    /// What the indexer keeps of the block; opaque to the store.
    pub payload: Vec<u8>,
}
