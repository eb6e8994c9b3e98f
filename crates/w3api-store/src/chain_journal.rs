//! The journal of each devnet chain: every change users made to it beyond
//! its seed (sent transactions, cheats, scenario steps, live blocks), in
//! order, so that a restarted server, or another replica, replays them and
//! serves the same chain.
//!
//! The store keeps each change and its outcome as the devnet wrote them,
//! and does not read them. What it decides is the order: a writer holds the
//! chain's journal ([`ChainWrite`]) from before it catches up with the
//! changes others kept until it commits its own, so that every change has
//! one place, and no two writers, on any replica, interleave.

use futures::future::BoxFuture;

use crate::StoreError;

/// One change kept in a chain's journal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptChange {
    /// Its place: numbers count up, with gaps where a revert or a reset
    /// made changes obsolete.
    pub seq: u64,
    /// The change, as the devnet wrote it.
    pub change: String,
    /// What it did, as the devnet wrote it, for replay to compare.
    pub outcome: String,
}

/// A chain's journal, held for writing until committed or dropped (which
/// keeps nothing of what was appended). While one is held, no other writer,
/// in this process or another, holds the same chain's.
pub trait ChainWrite: Send {
    /// The changes kept after `after`, oldest first: what others wrote
    /// since this writer last caught up.
    fn changes_after(&mut self, after: u64) -> BoxFuture<'_, Result<Vec<KeptChange>, StoreError>>;

    /// Appends `change`, numbered past every change kept, having first
    /// forgotten the changes numbered after `forget_after` (those a revert
    /// or reset made obsolete), if given.
    fn append<'a>(
        &'a mut self,
        change: &'a KeptChange,
        forget_after: Option<u64>,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Keeps what was appended, and lets the next writer in.
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>>;
}
