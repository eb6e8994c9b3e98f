//! Where the store lives, as the command line names it, and opening it.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Pool, Postgres, Sqlite, SqliteConnection};

use w3api_types::Address;

use crate::engine::{Engine, migrator};
use crate::sql::{Held, time_from};
use crate::{NftSyncStart, SqlStore, Store, StoreError};

/// The file an embedded store keeps in its data directory.
pub const DATA_FILE: &str = "w3api.sqlite3";

/// The file a server locks in its data directory while it uses it.
pub const LOCK_FILE: &str = "w3api.lock";

/// Where a store keeps its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// This process's memory: gone when it stops.
    Memory,
    /// [`DATA_FILE`] in this directory (created if missing).
    Directory(PathBuf),
    /// A PostgreSQL database (`postgres://user:password@host:port/database`),
    /// which several servers may share.
    Postgres(String),
}

/// Opens the store at `location` and brings its schema up to date.
/// `capacity` bounds the challenges an embedded store holds; a shared
/// database is bounded by its disk.
pub async fn open(location: &Location, capacity: usize) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match location {
        Location::Memory => Arc::new(in_memory(capacity).await?),
        Location::Directory(dir) => Arc::new(in_directory(dir, capacity).await?),
        Location::Postgres(url) => Arc::new(postgres(url).await?),
    })
}

async fn in_memory(capacity: usize) -> Result<SqlStore<Sqlite>, StoreError> {
    let open_error = |source| StoreError::Open { what: "an in-memory SQLite database".into(), source };
    // A shared in-memory database of a name of its own, which lives as
    // long as one connection to it is open: the anchor, which no query
    // uses, so that a pool connection closed midway (as sqlx does when a
    // request is abandoned mid-query) loses nothing.
    let options = SqliteConnectOptions::from_str("sqlite::memory:").map_err(open_error)?;
    let anchor = options.connect().await.map_err(open_error)?;
    // One connection: connections to a shared cache lock whole tables
    // against each other.
    let pool = embedded_pool(1).connect_with(options).await.map_err(open_error)?;
    let store = migrated(pool, "memory".into()).await?;
    let held = Held { challenges: 0, syncs: Vec::new() };
    Ok(store.only_writer(capacity, held, Anchor::MemoryConnection(Mutex::new(anchor))))
}

/// A pool of up to `connections` to an embedded database. Such a
/// connection cannot go stale as a network's can, so it is not pinged
/// before each use: that ping was a round trip to the connection's thread
/// on every statement.
fn embedded_pool(connections: u32) -> SqlitePoolOptions {
    SqlitePoolOptions::new().max_connections(connections).test_before_acquire(false)
}

/// What must live as long as an embedded store.
pub(crate) enum Anchor {
    /// The data directory's lock.
    DirectoryLock(#[allow(dead_code, reason = "held, never read")] File),
    /// The connection that keeps an in-memory database.
    MemoryConnection(#[allow(dead_code, reason = "held, never read")] Mutex<SqliteConnection>),
}

async fn in_directory(dir: &Path, capacity: usize) -> Result<SqlStore<Sqlite>, StoreError> {
    let file = dir.join(DATA_FILE);
    let what = format!("SQLite file {}", file.display());
    let lock = lock_directory(dir)?;
    // WAL with a full sync at each commit: a verified challenge is on disk
    // before the client hears of it, whatever happens to the process next.
    let options = SqliteConnectOptions::new()
        .filename(&file)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(Duration::from_secs(5));
    let pool = embedded_pool(4)
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open { what: what.clone(), source })?;
    let store = migrated(pool, what).await?;
    let held = held(store.pool()).await?;
    Ok(store.only_writer(capacity, held, Anchor::DirectoryLock(lock)))
}

/// Creates `dir` if missing and locks it for this process: the store
/// counts and copies what it holds, which holds only while it alone
/// writes. The lock goes with the process, however it ends.
fn lock_directory(dir: &Path) -> Result<File, StoreError> {
    let open_error =
        |e: std::io::Error| StoreError::Open { what: format!("data directory {}", dir.display()), source: e.into() };
    std::fs::create_dir_all(dir).map_err(open_error)?;
    let lock =
        File::options().create(true).truncate(false).write(true).open(dir.join(LOCK_FILE)).map_err(open_error)?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(TryLockError::WouldBlock) => Err(StoreError::InUse(dir.to_owned())),
        Err(TryLockError::Error(e)) => Err(open_error(e)),
    }
}

/// What a data directory's database holds when it opens.
async fn held(pool: &Pool<Sqlite>) -> Result<Held, StoreError> {
    let challenges: i64 =
        sqlx::query_scalar("SELECT count(*) FROM challenges").fetch_one(pool).await.map_err(StoreError::from_driver)?;
    let rows: Vec<(String, Vec<u8>, i64)> = sqlx::query_as("SELECT chain, collection, started_at FROM nft_syncs")
        .fetch_all(pool)
        .await
        .map_err(StoreError::from_driver)?;
    let mut syncs = Vec::with_capacity(rows.len());
    for (chain, collection, started_at) in rows {
        let collection = Address::try_from(collection.as_slice()).map_err(|_| StoreError::Damaged {
            what: "NFT sync start",
            why: format!("collection address of {} bytes", collection.len()),
        })?;
        syncs.push((chain, NftSyncStart { collection, started_at: time_from(started_at, "NFT sync start")? }));
    }
    Ok(Held { challenges: usize::try_from(challenges).unwrap_or(0), syncs })
}

async fn postgres(url: &str) -> Result<SqlStore<Postgres>, StoreError> {
    let (pool, what) = postgres_pool(url).await?;
    migrated(pool, what).await
}

/// A pool of connections to the PostgreSQL database at `url`, and how to
/// name it in messages.
pub(crate) async fn postgres_pool(url: &str) -> Result<(Pool<Postgres>, String), StoreError> {
    if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
        let why = format!("{:?} does not start with postgres:// or postgresql://", redacted(url));
        return Err(StoreError::Open {
            what: "the PostgreSQL URL".into(),
            source: sqlx::Error::Configuration(why.into()),
        });
    }
    let options = PgConnectOptions::from_str(url)
        .map_err(|source| StoreError::Open { what: "the PostgreSQL URL".into(), source })?
        .application_name("w3api");
    let what = format!(
        "PostgreSQL database {} at {}:{}",
        options.get_database().unwrap_or(options.get_username()),
        options.get_host(),
        options.get_port()
    );
    // A request waits at most this long for a connection; past it, the
    // database counts as unavailable and the client hears 503 at once
    // rather than hanging while it is down.
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(Duration::from_secs(2))
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open { what: what.clone(), source })?;
    Ok((pool, what))
}

async fn migrated<DB: Engine>(pool: Pool<DB>, what: String) -> Result<SqlStore<DB>, StoreError>
where
    DB::Connection: sqlx::migrate::Migrate,
{
    migrator::<DB>()
        .run(&pool)
        .await
        .map_err(|e| StoreError::Open { what: format!("{what} (migrating its schema)"), source: e.into() })?;
    Ok(SqlStore::new(pool, what))
}

/// `url` without its password, for error messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => match url[scheme + 3..at].split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
            None => url.to_owned(),
        },
        _ => url.to_owned(),
    }
}
