//! Node mode: the interface served for any EVM chain by indexing a real
//! node's blocks.
//!
//! [`ChainIndex`] is the index of one chain, kept in memory: blocks with
//! their receipts' logs go in, in order, through the shared ledger
//! (`w3api-ledger`), the same reading of the token standards the devnet
//! answers from; a block whose parent is not the indexed head rolls the
//! index back first. Fetching blocks from a node, and serving the index,
//! come on top of it.

mod block;
mod follow;
mod index;
mod journal;
mod metadata;
mod node;
pub(crate) mod source;
mod tables;

pub use block::{IndexedBlock, IndexedInnerTransfer, IndexedLog, IndexedTransaction, LogPosition};
pub use follow::{FollowConfig, FollowError, Followed, IndexPlace};
pub use index::{Anchors, ChainIndex, CollectionMeta, Continuity, Discovery, IndexError, Refusal, TokenMeta};
pub use journal::Journal;
pub use node::{Answer, CallTraces, Capabilities, FetchLimits, LogsMethod, Node, NodeError};
pub use source::{NodeSource, Upstream};
