//! The store on a SQL database, written once for both engines.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Pool, Row, Type};

use w3api_types::{Address, Chain};

use crate::engine::Engine;
use crate::location::Anchor;
use crate::{Challenge, NftSyncStart, Store, StoreError};

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
        self.alone = Some(OnlyWriter { limit, held: AtomicUsize::new(held.challenges), _anchor: anchor });
        self
    }

    /// The pool, for the engine-specific openers.
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }
}

impl<DB> Store for SqlStore<DB>
where
    DB: Engine,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'r> String: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    for<'r> i64: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    for<'r> Option<i64>: Encode<'r, DB>,
    for<'r> Vec<u8>: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
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
            let inserted = sqlx::query(sqlx::AssertSqlSafe(insert))
                .bind(challenge.nonce.clone())
                .bind(challenge.id.clone())
                .bind(challenge.message.clone())
                .bind(challenge.public_key.to_vec())
                .bind(challenge.profile_id.clone())
                .bind(challenge.expires_at.timestamp_millis())
                .bind(challenge.verified_at.map(|at| at.timestamp_millis()))
                .execute(&self.pool)
                .await;
            match inserted {
                Ok(_) => {}
                Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                    return Err(StoreError::DuplicateNonce(challenge.nonce.clone()));
                }
                Err(error) => return Err(StoreError::from_driver(error)),
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
            let row = sqlx::query(sqlx::AssertSqlSafe(select))
                .bind(nonce.to_owned())
                .fetch_optional(&self.pool)
                .await
                .map_err(StoreError::from_driver)?;
            row.map(|row| challenge_from(&row)).transpose()
        })
    }

    fn mark_verified<'a>(&'a self, nonce: &'a str, at: DateTime<Utc>) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let result = sqlx::query("UPDATE challenges SET verified_at = $1 WHERE nonce = $2 AND verified_at IS NULL")
                .bind(at.timestamp_millis())
                .bind(nonce.to_owned())
                .execute(&self.pool)
                .await
                .map_err(StoreError::from_driver)?;
            Ok(DB::rows_affected(&result) == 1)
        })
    }

    fn sweep_expired(&self, now: DateTime<Utc>) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let result = sqlx::query("DELETE FROM challenges WHERE expires_at <= $1")
                .bind(now.timestamp_millis())
                .execute(&self.pool)
                .await
                .map_err(StoreError::from_driver)?;
            let swept = DB::rows_affected(&result);
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
                sqlx::query(
                    "INSERT INTO nft_syncs (chain, collection, started_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                )
                .bind(chain.as_str().to_owned())
                .bind(collection.to_vec())
                .bind(at.timestamp_millis())
                .execute(&self.pool)
                .await
                .map_err(StoreError::from_driver)?;
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
            let mut query = sqlx::query(sqlx::AssertSqlSafe(select)).bind(chain.as_str().to_owned());
            for collection in &unknown {
                query = query.bind(collection.to_vec());
            }
            let rows = query.fetch_all(&self.pool).await.map_err(StoreError::from_driver)?;
            let read = rows.iter().map(sync_start_from::<DB>).collect::<Result<Vec<_>, _>>()?;
            self.starts.remember(chain, &read);
            known.extend(read);
            Ok(known)
        })
    }

    fn describe(&self) -> String {
        self.what.clone()
    }
}

fn sync_start_from<DB>(row: &DB::Row) -> Result<NftSyncStart, StoreError>
where
    DB: Engine,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    for<'r> Vec<u8>: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let damaged = |why: String| StoreError::Damaged { what: "NFT sync start", why };
    let column = |e: sqlx::Error| damaged(e.to_string());
    let collection: Vec<u8> = row.try_get(0).map_err(column)?;
    let collection = Address::try_from(collection.as_slice())
        .map_err(|_| damaged(format!("collection address of {} bytes", collection.len())))?;
    Ok(NftSyncStart { collection, started_at: time_from(row.try_get(1).map_err(column)?, "NFT sync start")? })
}

fn challenge_from<DB>(row: &DB::Row) -> Result<Challenge, StoreError>
where
    DB: Engine,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    for<'r> Vec<u8>: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let damaged = |why: String| StoreError::Damaged { what: "challenge", why };
    let column = |e: sqlx::Error| damaged(e.to_string());
    let time = |millis: i64| time_from(millis, "challenge");
    let public_key: Vec<u8> = row.try_get(3).map_err(column)?;
    let public_key = <[u8; 32]>::try_from(public_key.as_slice())
        .map_err(|_| damaged(format!("public key of {} bytes", public_key.len())))?;
    let verified_at: Option<i64> = row.try_get(6).map_err(column)?;
    Ok(Challenge {
        nonce: row.try_get(0).map_err(column)?,
        id: row.try_get(1).map_err(column)?,
        message: row.try_get(2).map_err(column)?,
        public_key,
        profile_id: row.try_get(4).map_err(column)?,
        expires_at: time(row.try_get(5).map_err(column)?)?,
        verified_at: verified_at.map(time).transpose()?,
    })
}

/// A stored time, in Unix milliseconds, of a record of kind `what`.
pub(crate) fn time_from(millis: i64, what: &'static str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(millis)
        .ok_or_else(|| StoreError::Damaged { what, why: format!("time {millis} ms is out of range") })
}
