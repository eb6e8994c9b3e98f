//! The store on a SQL database, written once for both engines.

mod addresses;
mod attempts;
mod chain_journal;
mod columns;
mod history;
pub(crate) mod index_journal;
mod queue;
pub(crate) mod run;
mod settings;
mod streams;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use sqlx::Pool;
use uuid::Uuid;

use w3api_types::rpc::Hash32;
use w3api_types::{Address, Chain};

use crate::engine::Engine;
use crate::location::Anchor;
use crate::sql::columns::Columns;
use crate::sql::run::{Sql, Statement};
use crate::{
    ActiveStream, Attempt, AttemptFilter, AttemptRecord, ChainWrite, Challenge, Delivery, DeliveryFilter,
    DeliveryHistory, IndexBlock, KeptChange, Listing, NewDelivery, NewStream, NftSyncStart, Settings, Store,
    StoreError, StoredStream, StreamStats,
};

/// A store in a SQL database reached through a connection pool.
pub struct SqlStore<DB: Engine> {
    pool: Pool<DB>,
    /// For a store in this process's memory or data directory; `None` for
    /// a database shared by replicas, which no one process can count.
    alone: Option<OnlyWriter>,
    /// NFT sync starts read or written: a start never changes once kept,
    /// so none is read twice. Complete for a store this process alone
    /// writes, which then answers every listing without a query.
    starts: Starts,
    what: String,
}

/// What a store that this process alone writes keeps, exact because
/// nothing else changes its database.
struct OnlyWriter {
    /// Most unexpired challenges kept.
    limit: usize,
    /// Challenges held now.
    held: AtomicUsize,
    /// Each devnet chain's turn to write its journal, with what the turns
    /// before learnt of it.
    chain_turns: Mutex<HashMap<String, std::sync::Arc<tokio::sync::Mutex<chain_journal::Known>>>>,
    _anchor: Anchor,
}

/// NFT sync starts known to this process, by chain.
#[derive(Default)]
struct Starts {
    by_chain: Mutex<HashMap<String, HashMap<Address, DateTime<Utc>>>>,
    /// Whether every start in the database is here.
    complete: bool,
}

impl Starts {
    fn by_chain(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<Address, DateTime<Utc>>>> {
        self.by_chain.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `at` as the start of those of `collections` that have none
    /// here; returns those.
    fn claim(&self, chain: Chain, collections: &[Address], at: DateTime<Utc>) -> Vec<Address> {
        let mut by_chain = self.by_chain();
        let starts = by_chain.entry(chain.as_str().to_owned()).or_default();
        let mut new = Vec::new();
        for collection in collections {
            starts.entry(*collection).or_insert_with(|| {
                new.push(*collection);
                at
            });
        }
        new
    }

    /// The starts of those of `collections` known here, and the others.
    fn known(&self, chain: Chain, collections: &[Address]) -> (Vec<NftSyncStart>, Vec<Address>) {
        let by_chain = self.by_chain();
        let starts = by_chain.get(chain.as_str());
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for collection in collections {
            match starts.and_then(|starts| starts.get(collection)) {
                Some(started_at) => known.push(NftSyncStart { collection: *collection, started_at: *started_at }),
                None => unknown.push(*collection),
            }
        }
        (known, unknown)
    }

    fn remember(&self, chain: Chain, read: &[NftSyncStart]) {
        let mut by_chain = self.by_chain();
        let starts = by_chain.entry(chain.as_str().to_owned()).or_default();
        starts.extend(read.iter().map(|start| (start.collection, start.started_at)));
    }
}

/// What an embedded store holds when it opens.
pub(crate) struct Held {
    /// Challenges, expired or not.
    pub(crate) challenges: usize,
    /// NFT sync starts, with their chains.
    pub(crate) syncs: Vec<(String, NftSyncStart)>,
}

const COLUMNS: &str = "nonce, id, message, public_key, profile_id, expires_at, verified_at";

impl<DB: Engine> SqlStore<DB> {
    /// A store on `pool`, already migrated, described as `what`.
    pub(crate) fn new(pool: Pool<DB>, what: String) -> SqlStore<DB> {
        SqlStore { pool, alone: None, starts: Starts::default(), what }
    }

    /// A store that this process alone writes, which `held` is in now,
    /// bounded to `limit` challenges; `anchor` lives as long as the store.
    pub(crate) fn only_writer(mut self, limit: usize, held: Held, anchor: Anchor) -> SqlStore<DB> {
        let mut by_chain: HashMap<String, HashMap<Address, DateTime<Utc>>> = HashMap::new();
        for (chain, start) in held.syncs {
            by_chain.entry(chain).or_default().insert(start.collection, start.started_at);
        }
        self.starts = Starts { by_chain: Mutex::new(by_chain), complete: true };
        self.alone = Some(OnlyWriter {
            limit,
            held: AtomicUsize::new(held.challenges),
            chain_turns: Mutex::default(),
            _anchor: anchor,
        });
        self
    }

    /// For a store this process alone writes, `chain`'s turn to write its
    /// journal; `None` for a shared database, where the database orders
    /// writers.
    pub(crate) fn chain_turn(&self, chain: Chain) -> Option<std::sync::Arc<tokio::sync::Mutex<chain_journal::Known>>> {
        let alone = self.alone.as_ref()?;
        let mut turns = alone.chain_turns.lock().unwrap_or_else(PoisonError::into_inner);
        Some(turns.entry(chain.as_str().to_owned()).or_default().clone())
    }

    /// The pool, for the engine-specific openers.
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }
}

impl<DB: Sql> Store for SqlStore<DB> {
    fn insert_challenge<'a>(&'a self, challenge: &'a Challenge) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if let Some(alone) = &self.alone
                && alone.held.load(Ordering::Relaxed) >= alone.limit
            {
                self.sweep_expired(Utc::now()).await?;
                if alone.held.load(Ordering::Relaxed) >= alone.limit {
                    return Err(StoreError::Full(alone.limit));
                }
            }
            let insert = format!("INSERT INTO challenges ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)");
            let insert = Statement::new(insert)
                .bind(challenge.nonce.as_str())
                .bind(challenge.id.as_str())
                .bind(challenge.message.as_str())
                .bind(&challenge.public_key[..])
                .bind(challenge.profile_id.as_str())
                .bind(challenge.expires_at)
                .bind(challenge.verified_at);
            match self.execute(insert).await {
                Ok(_) => {}
                Err(StoreError::Failed(sqlx::Error::Database(db))) if db.is_unique_violation() => {
                    return Err(StoreError::DuplicateNonce(challenge.nonce.clone()));
                }
                Err(error) => return Err(error),
            }
            if let Some(alone) = &self.alone {
                alone.held.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
    }

    fn challenge<'a>(&'a self, nonce: &'a str) -> BoxFuture<'a, Result<Option<Challenge>, StoreError>> {
        Box::pin(async move {
            let select = format!("SELECT {COLUMNS} FROM challenges WHERE nonce = $1");
            let row = self.fetch_first(Statement::new(select).bind(nonce)).await?;
            row.as_ref().map(challenge_from::<DB>).transpose()
        })
    }

    fn mark_verified<'a>(&'a self, nonce: &'a str, at: DateTime<Utc>) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let update = "UPDATE challenges SET verified_at = $1 WHERE nonce = $2 AND verified_at IS NULL";
            Ok(self.execute(Statement::new(update).bind(at).bind(nonce)).await? == 1)
        })
    }

    fn sweep_expired(&self, now: DateTime<Utc>) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let sweep = Statement::new("DELETE FROM challenges WHERE expires_at <= $1").bind(now);
            let swept = self.execute(sweep).await?;
            if let Some(alone) = &self.alone {
                let swept = usize::try_from(swept).unwrap_or(usize::MAX);
                let _ = alone
                    .held
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| Some(held.saturating_sub(swept)));
            }
            Ok(swept)
        })
    }

    fn start_nft_sync<'a>(
        &'a self,
        chain: Chain,
        collections: &'a [Address],
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Vec<NftSyncStart>, StoreError>> {
        Box::pin(async move {
            // Complete, the copy decides between this process's concurrent
            // starts, and the database follows it; shared, the database
            // decides between replicas.
            let new = if self.starts.complete {
                self.starts.claim(chain, collections, at)
            } else {
                self.starts.known(chain, collections).1
            };
            // One statement per collection: a request names at most a few,
            // and a statement whose parameters repeat reads differently on
            // the two engines.
            for collection in new {
                let insert =
                    "INSERT INTO nft_syncs (chain, collection, started_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
                self.execute(Statement::new(insert).bind(chain.as_str()).bind(collection).bind(at)).await?;
            }
            self.nft_sync_starts(chain, collections).await
        })
    }

    fn nft_sync_starts<'a>(
        &'a self,
        chain: Chain,
        collections: &'a [Address],
    ) -> BoxFuture<'a, Result<Vec<NftSyncStart>, StoreError>> {
        Box::pin(async move {
            let (mut known, unknown) = self.starts.known(chain, collections);
            if self.starts.complete || unknown.is_empty() {
                return Ok(known);
            }
            // Another replica may have started one of these since.
            let placeholders: Vec<String> = (2..unknown.len() + 2).map(|n| format!("${n}")).collect();
            let select = format!(
                "SELECT collection, started_at FROM nft_syncs WHERE chain = $1 AND collection IN ({})",
                placeholders.join(", ")
            );
            let select = Statement::new(select).bind(chain.as_str()).bind_each(unknown.iter().copied());
            let rows = self.fetch(select).await?;
            let read = rows.iter().map(sync_start_from::<DB>).collect::<Result<Vec<_>, _>>()?;
            self.starts.remember(chain, &read);
            known.extend(read);
            Ok(known)
        })
    }

    fn create_stream<'a>(&'a self, stream: &'a NewStream) -> BoxFuture<'a, Result<StoredStream, StoreError>> {
        Box::pin(streams::create(self, stream))
    }

    fn stream(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredStream>, StoreError>> {
        Box::pin(streams::get(self, id))
    }

    fn streams<'a>(
        &'a self,
        status: Option<&'a str>,
        after: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<StoredStream>, StoreError>> {
        Box::pin(streams::list(self, status, after, limit))
    }

    fn update_stream<'a>(
        &'a self,
        id: Uuid,
        settings: &'a str,
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Option<StoredStream>, StoreError>> {
        Box::pin(streams::update(self, id, settings, at))
    }

    fn set_stream_status<'a>(
        &'a self,
        id: Uuid,
        status: &'a str,
        message: &'a str,
        at: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Option<StoredStream>, StoreError>> {
        Box::pin(streams::set_status(self, id, status, message, at))
    }

    fn delete_stream(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredStream>, StoreError>> {
        Box::pin(streams::delete(self, id))
    }

    fn active_streams(&self) -> BoxFuture<'_, Result<Vec<ActiveStream>, StoreError>> {
        Box::pin(streams::active(self))
    }

    fn add_addresses<'a>(&'a self, id: Uuid, addresses: &'a [Address]) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(addresses::add(self, id, addresses))
    }

    fn remove_addresses<'a>(&'a self, id: Uuid, addresses: &'a [Address]) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(addresses::remove(self, id, addresses))
    }

    fn addresses(
        &self,
        id: Uuid,
        after: Option<Address>,
        limit: usize,
    ) -> BoxFuture<'_, Result<Listing<Address>, StoreError>> {
        Box::pin(addresses::list(self, id, after, limit))
    }

    fn settings(&self) -> BoxFuture<'_, Result<Option<Settings>, StoreError>> {
        Box::pin(settings::get(self))
    }

    fn set_settings<'a>(&'a self, settings: &'a Settings) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(settings::set(self, settings))
    }

    fn init_settings<'a>(&'a self, settings: &'a Settings) -> BoxFuture<'a, Result<Settings, StoreError>> {
        Box::pin(settings::init(self, settings))
    }

    fn enqueue<'a>(&'a self, deliveries: &'a [NewDelivery]) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(queue::enqueue(self, deliveries))
    }

    fn claim<'a>(
        &'a self,
        worker: &'a str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Delivery>, StoreError>> {
        Box::pin(queue::claim(self, worker, now, lease_until, limit))
    }

    fn record_attempts<'a>(&'a self, attempts: &'a [Attempt]) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(attempts::record(self, attempts))
    }

    fn delivery(&self, id: Uuid) -> BoxFuture<'_, Result<Option<DeliveryHistory>, StoreError>> {
        Box::pin(history::delivery(self, id))
    }

    fn deliveries<'a>(
        &'a self,
        filter: &'a DeliveryFilter,
        before: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<Delivery>, StoreError>> {
        Box::pin(history::list(self, filter, before, limit))
    }

    fn attempt_log<'a>(
        &'a self,
        filter: &'a AttemptFilter,
        before: Option<i64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Listing<AttemptRecord>, StoreError>> {
        Box::pin(attempts::log(self, filter, before, limit))
    }

    fn replay(
        &self,
        stream_id: Uuid,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<Option<Delivery>, StoreError>> {
        Box::pin(queue::replay(self, stream_id, id, now))
    }

    fn stream_stats(&self, stream: Option<Uuid>) -> BoxFuture<'_, Result<Vec<StreamStats>, StoreError>> {
        Box::pin(history::stats(self, stream))
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<DateTime<Utc>>, StoreError>> {
        Box::pin(queue::next_due(self))
    }

    fn lead_index(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(index_journal::lead(self, chain, holder, now, until))
    }

    fn append_index_blocks<'a>(
        &'a self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        blocks: &'a [IndexBlock],
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(index_journal::append(self, chain, holder, now, blocks))
    }

    fn truncate_index(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        after: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(index_journal::truncate(self, chain, holder, now, after))
    }

    fn index_blocks(
        &self,
        chain: Chain,
        from: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<IndexBlock>, StoreError>> {
        Box::pin(index_journal::blocks(self, chain, from, limit))
    }

    fn index_hashes(&self, chain: Chain, from: u64, to: u64) -> BoxFuture<'_, Result<Vec<(u64, Hash32)>, StoreError>> {
        Box::pin(index_journal::hashes(self, chain, from, to))
    }

    fn clear_index(&self, chain: Chain, holder: Uuid, now: DateTime<Utc>) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(index_journal::clear(self, chain, holder, now))
    }

    fn kept_chains(&self) -> BoxFuture<'_, Result<Vec<(Chain, String)>, StoreError>> {
        Box::pin(chain_journal::kept(self))
    }

    fn chain_changes(
        &self,
        chain: Chain,
        after: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<KeptChange>, StoreError>> {
        Box::pin(chain_journal::changes(self, chain, after, limit))
    }

    fn chain_head(&self, chain: Chain) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(chain_journal::head(self, chain))
    }

    fn write_chain<'a>(
        &'a self,
        chain: Chain,
        origin: &'a str,
    ) -> BoxFuture<'a, Result<Box<dyn ChainWrite>, StoreError>> {
        Box::pin(chain_journal::write(self, chain, origin))
    }

    fn forget_chain(&self, chain: Chain) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(chain_journal::forget(self, chain))
    }

    fn lead_live_blocks(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(index_journal::lead_in(self, "live_block_leases", chain, holder, now, until))
    }

    fn is_shared(&self) -> bool {
        self.alone.is_none()
    }

    fn describe(&self) -> String {
        self.what.clone()
    }

    fn index_tables(&self) -> Option<crate::IndexTables> {
        DB::index_tables(&self.pool)
    }
}

fn sync_start_from<DB: Sql>(row: &DB::Row) -> Result<NftSyncStart, StoreError> {
    let columns = Columns::<DB>::of(row, "NFT sync start");
    Ok(NftSyncStart { collection: columns.address(0)?, started_at: columns.time(1)? })
}

fn challenge_from<DB: Sql>(row: &DB::Row) -> Result<Challenge, StoreError> {
    let columns = Columns::<DB>::of(row, "challenge");
    Ok(Challenge {
        nonce: columns.text(0)?,
        id: columns.text(1)?,
        message: columns.text(2)?,
        public_key: columns.fixed(3)?,
        profile_id: columns.text(4)?,
        expires_at: columns.time(5)?,
        verified_at: columns.maybe_time(6)?,
    })
}

/// A stored time, in Unix milliseconds, of a record of kind `what`.
pub(crate) fn time_from(millis: i64, what: &'static str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(millis)
        .ok_or_else(|| StoreError::Damaged { what, why: format!("time {millis} ms is out of range") })
}
