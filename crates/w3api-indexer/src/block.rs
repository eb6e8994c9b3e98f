//! A block as the index reads it: its header's links and the logs of its
//! receipts.

use alloy_primitives::{Address, B256, Bytes};

/// A block with the logs of its transactions, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedBlock {
    /// Its number.
    pub number: u64,
    /// Its hash.
    pub hash: B256,
    /// Its parent's hash.
    pub parent_hash: B256,
    /// Seconds since the Unix epoch.
    pub timestamp: u64,
    /// The logs of its receipts, in block order (a failed transaction has none).
    pub logs: Vec<IndexedLog>,
}

/// One log of a receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedLog {
    /// The contract that logged it.
    pub address: Address,
    /// Its topics.
    pub topics: Vec<B256>,
    /// Its data.
    pub data: Bytes,
}
