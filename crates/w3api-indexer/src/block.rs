//! A block as the index reads it: its header's links, its transactions'
//! hashes, parties and values, and the logs of its receipts.

use alloy_primitives::{Address, B256, Bytes, U256};

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
    /// Its transactions, in block order.
    pub transactions: Vec<IndexedTransaction>,
    /// The logs of its receipts, in block order (a failed transaction has none).
    pub logs: Vec<IndexedLog>,
    /// The native value calls inside its transactions moved, in order; none
    /// where the node does not trace calls.
    pub inner: Vec<IndexedInnerTransfer>,
}

/// Native value a call inside a transaction moved, as the node's trace of
/// the block tells it (no receipt does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexedInnerTransfer {
    /// The index of its transaction in the block.
    pub transaction_index: u32,
    /// Who paid it.
    pub from: Address,
    /// Who received it.
    pub to: Address,
    /// How much, in wei.
    pub value: U256,
}

/// What the index keeps of a transaction: who sent what to whom. The rest
/// is the node's to answer, by hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedTransaction {
    /// Its hash.
    pub hash: B256,
    /// Its sender.
    pub from: Address,
    /// Its recipient; `None` for a contract creation.
    pub to: Option<Address>,
    /// The native value it sends.
    pub value: U256,
}

/// Where a log stands in its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogPosition {
    /// The index of its transaction in the block.
    pub transaction_index: u32,
    /// Its index among the block's logs.
    pub log_index: u32,
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
    /// Where it stands in its block.
    pub position: LogPosition,
}
