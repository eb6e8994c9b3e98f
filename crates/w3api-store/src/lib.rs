//! What the server writes while it runs, kept where it outlives the process
//! and can be shared: sign-in challenges, issued and verified once, and when
//! indexing of each NFT collection started.
//!
//! [`Store`] is the boundary; [`open`] picks an implementation from a
//! [`Location`]:
//! - **embedded** (the default): SQLite, in memory or in one file under a
//!   data directory. SQLite rather than redb because the same SQL, the same
//!   migration runner and the same driver (sqlx) then serve both engines, and
//!   the one suite (`suite.rs`) checks both against the same expectations.
//! - **PostgreSQL**, for several replicas on one database.
//!
//! Every operation that decides something (a challenge verified once) is
//! one SQL statement, so it holds across replicas without locks of ours.

mod cell;
mod challenge;
mod engine;
mod error;
mod location;
mod sql;
#[cfg(test)]
mod suite;
pub mod testing;

pub use cell::StoreCell;
pub use challenge::Challenge;
pub use error::StoreError;
pub use location::{DATA_FILE, LOCK_FILE, Location, open};
pub use sql::SqlStore;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
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

    /// Where the data lives, for the start-up banner and logs (no password).
    fn describe(&self) -> String;
}
