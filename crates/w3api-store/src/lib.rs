//! What the server writes while it runs, kept where it outlives the process
//! and can be shared: sign-in challenges, issued and verified once, when
//! indexing of each NFT collection started, and webhook streams with their
//! watched addresses, the project's settings, the queue of deliveries that
//! replicas share (each claimed by one worker at a time, for a lease), the
//! log of delivery attempts, and the journal of each chain's node-mode
//! index (written by one replica at a time, for a lease, and read by all),
//! and the journal of what users did to each devnet chain (written by one
//! writer at a time, in one order, and replayed by all).
//!
//! [`Store`] is the boundary; [`open`] picks an implementation from a
//! [`Location`]:
//! - **embedded** (the default): SQLite, in memory or in one file under a
//!   data directory. SQLite rather than redb because the same SQL, the same
//!   migration runner and the same driver (sqlx) then serve both engines, and
//!   the one suite (`suite.rs`) checks both against the same expectations.
//! - **PostgreSQL**, for several replicas on one database.
//!
//! Every operation that decides something (a challenge verified once, a
//! delivery claimed by one worker) is one SQL statement or one transaction,
//! so it holds across replicas without locks of ours.

mod cell;
mod chain_journal;
mod challenge;
mod deliveries;
mod engine;
mod error;
mod index_journal;
pub mod index_tables;
mod location;
mod sql;
mod streams;
#[cfg(test)]
mod suite;
pub mod testing;

pub use cell::StoreCell;
pub use chain_journal::{ChainWrite, KeptChange};
pub use challenge::Challenge;
pub use deliveries::{
    Attempt, AttemptFilter, AttemptOutcome, AttemptRecord, Delivery, DeliveryFilter, DeliveryHistory, DeliveryState,
    NewDelivery, Records, StreamStats,
};
pub use error::StoreError;
pub use index_journal::IndexBlock;
pub use index_tables::IndexTables;
pub use location::{DATA_FILE, LOCK_FILE, Location, open};
pub use sql::SqlStore;
pub use streams::{ActiveStream, Listing, NewStream, Settings, StoredStream};

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use uuid::Uuid;
use w3api_types::rpc::Hash32;
use w3api_types::{Address, Chain};

/// When indexing of an NFT collection started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NftSyncStart {
    /// The collection's contract.
    pub collection: Address,
    /// The first start, on any replica (whole milliseconds are kept).
    pub started_at: DateTime<Utc>,
}

/// Everything the server keeps beyond one request.
///
/// Methods return boxed futures so that the server can hold any store as
/// `Arc<dyn Store>`, picked at start from its command line.
pub trait Store: Send + Sync + 'static {
    /// Keeps a newly issued challenge. [`StoreError::Full`] when a bounded
    /// store holds as many unexpired challenges as it may.
    fn insert_challenge<'a>(&'a self, challenge: &'a Challenge) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The challenge issued with `nonce`, verified or not, until it is swept.
    fn challenge<'a>(&'a self, nonce: &'a str) -> BoxFuture<'a, Result<Option<Challenge>, StoreError>>;

    /// Marks the challenge verified at `at`, if nothing did before: `true`
    /// for the one call, among any number on any replica, that did it.
    fn mark_verified<'a>(&'a self, nonce: &'a str, at: DateTime<Utc>) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Deletes the challenges that expired before `now`; returns how many.
    fn sweep_expired(&self, now: DateTime<Utc>) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// Records `at` as the start of indexing for each of `collections` on
    /// `chain` that has none (the first start, from any replica, is kept),
    /// and returns the start of each of them.
    fn start_nft_sync<'a>(
        &'a self,
        chain: Chain,
        collections: &'a [Address],
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Vec<NftSyncStart>, StoreError>>;

    /// When indexing started, for those of `collections` on `chain` that
    /// ever started; the others are absent from the answer.
    fn nft_sync_starts<'a>(
        &'a self,
        chain: Chain,
        collections: &'a [Address],
    ) -> BoxFuture<'a, Result<Vec<NftSyncStart>, StoreError>>;

    /// Creates a stream; the database numbers it (`seq`). An id that
    /// exists already is an error.
    fn create_stream<'a>(&'a self, stream: &'a NewStream) -> BoxFuture<'a, Result<StoredStream, StoreError>>;

    /// The stream `id`, if there is one.
    fn stream(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredStream>, StoreError>>;

    /// Up to `limit` streams (in `status` only, if given) created after the
    /// one numbered `after` (from the first without), oldest first; `total`
    /// counts every stream (in `status`).
    fn streams<'a>(
        &'a self,
        status: Option<&'a str>,
        after: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<StoredStream>, StoreError>>;

    /// Sets the settings of the stream `id`, changed `at`; `None` if there
    /// is no such stream.
    fn update_stream<'a>(
        &'a self,
        id: Uuid,
        settings: &'a str,
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Option<StoredStream>, StoreError>>;

    /// Sets the status of the stream `id`, and why, changed `at`; `None` if
    /// there is no such stream.
    fn set_stream_status<'a>(
        &'a self,
        id: Uuid,
        status: &'a str,
        message: &'a str,
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Option<StoredStream>, StoreError>>;

    /// Deletes the stream `id` and its addresses, and fails its pending
    /// deliveries (its deliveries and their attempts are kept); returns the
    /// stream as it was, `None` if there is no such stream.
    fn delete_stream(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredStream>, StoreError>>;

    /// The streams whose status is `"active"`, oldest first, each with
    /// every address it watches (ascending).
    fn active_streams(&self) -> BoxFuture<'_, Result<Vec<ActiveStream>, StoreError>>;

    /// Adds `addresses` to those the stream `id` watches; returns how many
    /// it did not watch yet (0 if there is no such stream).
    fn add_addresses<'a>(&'a self, id: Uuid, addresses: &'a [Address]) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// Removes `addresses` from those the stream `id` watches; returns how
    /// many it watched.
    fn remove_addresses<'a>(&'a self, id: Uuid, addresses: &'a [Address]) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// Up to `limit` of the addresses the stream `id` watches, ascending by
    /// their bytes, those after `after` only; `total` counts all of them.
    fn addresses(
        &self,
        id: Uuid,
        after: Option<Address>,
        limit: usize,
    ) -> BoxFuture<'_, Result<Listing<Address>, StoreError>>;

    /// The project's settings, if any were set.
    fn settings(&self) -> BoxFuture<'_, Result<Option<Settings>, StoreError>>;

    /// Sets the project's settings, replacing any.
    fn set_settings<'a>(&'a self, settings: &'a Settings) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Keeps `settings` if none are set, and returns the settings kept:
    /// replicas starting together agree on the first.
    fn init_settings<'a>(&'a self, settings: &'a Settings) -> BoxFuture<'a, Result<Settings, StoreError>>;

    /// Enqueues `deliveries`, pending, due at their `created_at`, in one
    /// transaction; returns how many were new. One stream gets one delivery
    /// per block hash and confirmation: another (enqueued by any replica)
    /// is left out.
    fn enqueue<'a>(&'a self, deliveries: &'a [NewDelivery]) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// Claims for `worker`, until `lease_until`, up to `limit` pending
    /// deliveries due at or before `now` whose lease is free or expired
    /// (before `now`), oldest due first. Concurrent claimers, on any
    /// replica, never get one delivery both.
    fn claim<'a>(
        &'a self,
        worker: &'a str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Delivery>, StoreError>>;

    /// Records each of `attempts` whose delivery its worker still holds
    /// (claimed by it, pending), in one transaction: logs it, counts it,
    /// releases the lease and moves the delivery as the outcome says.
    /// Returns how many were recorded: the others lost their claim.
    fn record_attempts<'a>(&'a self, attempts: &'a [Attempt]) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// The delivery `id` with its attempts, oldest first.
    fn delivery(&self, id: Uuid) -> BoxFuture<'_, Result<Option<DeliveryHistory>, StoreError>>;

    /// Up to `limit` deliveries that `filter` selects, enqueued before the
    /// one numbered `before`, newest first; `total` counts every delivery
    /// it selects.
    fn deliveries<'a>(
        &'a self,
        filter: &'a DeliveryFilter,
        before: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<Delivery>, StoreError>>;

    /// Up to `limit` attempts that `filter` selects, recorded before the
    /// one numbered `before`, newest first; `total` counts every attempt it
    /// selects.
    fn attempt_log<'a>(
        &'a self,
        filter: &'a AttemptFilter,
        before: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<AttemptRecord>, StoreError>>;

    /// Makes the delivery `id` of the stream `stream_id`, in any state,
    /// pending again, due `now`, its lease released; `None` if the stream
    /// has no such delivery.
    fn replay(
        &self,
        stream_id: Uuid,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<Option<Delivery>, StoreError>>;

    /// For each stream with deliveries (or `stream` only), ordered by id:
    /// its attempts that delivered and did not, and the records of its
    /// deliveries delivered at least once. A stream without deliveries has
    /// no entry.
    fn stream_stats(&self, stream: Option<Uuid>) -> BoxFuture<'_, Result<Vec<StreamStats>, StoreError>>;

    /// When the first pending delivery is due, whatever its lease: how
    /// long a worker may sleep.
    fn next_due(&self) -> BoxFuture<'_, Result<Option<DateTime<Utc>>, StoreError>>;

    /// Takes or renews `chain`'s indexing lease for `holder` until `until`:
    /// true when `holder` holds it afterwards (it was free, had expired
    /// before `now`, or was already `holder`'s). Of replicas taking one
    /// lease at once, one gets it.
    fn lead_index(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Appends `blocks` (ascending, contiguous) to `chain`'s journal in one
    /// transaction, only while `holder` holds an unexpired lease at `now`
    /// (one that expires at `now` or later): `Ok(false)` and nothing
    /// written otherwise. The first block must follow the newest kept one
    /// (number + 1 and parent_hash = its hash) or the journal must be
    /// empty, and each next block the one before it; otherwise
    /// [`StoreError::IndexOutOfOrder`] and nothing is written. No other
    /// write to the chain's journal, nor a takeover of its lease, comes
    /// between the check and the append.
    fn append_index_blocks<'a>(
        &'a self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        blocks: &'a [IndexBlock],
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Forgets `chain`'s blocks numbered after `after` (a reorg's, before
    /// its new branch is appended), only while `holder` holds the lease
    /// (`Ok(false)` otherwise).
    fn truncate_index(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        after: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Up to `limit` kept blocks of `chain` from number `from` on,
    /// ascending, as the journal was at one moment; any replica reads them,
    /// lease or not.
    fn index_blocks(&self, chain: Chain, from: u64, limit: usize)
    -> BoxFuture<'_, Result<Vec<IndexBlock>, StoreError>>;

    /// (number, hash) of kept blocks of `chain` numbered `from..=to`,
    /// ascending (no payloads: for finding a common ancestor).
    fn index_hashes(&self, chain: Chain, from: u64, to: u64) -> BoxFuture<'_, Result<Vec<(u64, Hash32)>, StoreError>>;

    /// Forgets `chain`'s whole journal and lease (an index started again
    /// from scratch), only while `holder` holds the lease (`Ok(false)`
    /// otherwise); the lease is then free, `holder`'s included.
    fn clear_index(&self, chain: Chain, holder: Uuid, now: DateTime<Utc>) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// The devnet chains with a journal, each with the origin it was
    /// written on, ordered by chain.
    fn kept_chains(&self) -> BoxFuture<'_, Result<Vec<(Chain, String)>, StoreError>>;

    /// Up to `limit` of `chain`'s kept changes numbered after `after`,
    /// oldest first, as the journal was at one moment.
    fn chain_changes(
        &self,
        chain: Chain,
        after: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<KeptChange>, StoreError>>;

    /// The number of `chain`'s newest kept change (0 when none is): a
    /// replica that has applied it has every change committed before.
    fn chain_head(&self, chain: Chain) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// Holds `chain`'s journal for writing, waiting for any other writer
    /// (on any replica) to finish. The journal is created on `origin` if
    /// it has none; one kept on another origin is refused with
    /// [`StoreError::ChainOriginDiffers`].
    fn write_chain<'a>(
        &'a self,
        chain: Chain,
        origin: &'a str,
    ) -> BoxFuture<'a, Result<Box<dyn ChainWrite>, StoreError>>;

    /// Forgets `chain`'s journal and its origin.
    fn forget_chain(&self, chain: Chain) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Takes or renews the lease on making `chain`'s live blocks for
    /// `holder` until `until`, as [`Store::lead_index`] does the indexing
    /// lease: true when `holder` holds it afterwards, so that replicas
    /// make one block per tick between them.
    fn lead_live_blocks(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Whether other processes may write the store (a database replicas
    /// share), so that what this process holds may be behind it.
    fn is_shared(&self) -> bool;

    /// Where the data lives, for the start-up banner and logs (no password).
    fn describe(&self) -> String;

    /// Node mode's index in tables, on a store that can hold it (PostgreSQL).
    fn index_tables(&self) -> Option<IndexTables>;
}
