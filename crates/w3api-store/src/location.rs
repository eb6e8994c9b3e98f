//! Where the store lives, as the command line names it, and opening it.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Pool, Postgres, Sqlite};

use crate::engine::{Engine, migrator};
use crate::{SqlStore, Store, StoreError};

/// The file an embedded store keeps in its data directory.
pub const DATA_FILE: &str = "w3api.sqlite3";

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
    let options = SqliteConnectOptions::new().in_memory(true);
    // An in-memory database lives as long as its one connection: the pool
    // keeps exactly one, forever.
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .min_connections(1)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open { what: "an in-memory SQLite database".into(), source })?;
    let store = migrated(pool, "memory".into()).await?;
    Ok(store.bounded(capacity, 0))
}

async fn in_directory(dir: &std::path::Path, capacity: usize) -> Result<SqlStore<Sqlite>, StoreError> {
    let file = dir.join(DATA_FILE);
    let what = format!("SQLite file {}", file.display());
    std::fs::create_dir_all(dir)
        .map_err(|e| StoreError::Open { what: format!("data directory {}", dir.display()), source: e.into() })?;
    // WAL with a full sync at each commit: a verified challenge is on disk
    // before the client hears of it, whatever happens to the process next.
    let options = SqliteConnectOptions::new()
        .filename(&file)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(Duration::from_secs(5));
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open { what: what.clone(), source })?;
    let store = migrated(pool, what).await?;
    let held: i64 = sqlx::query_scalar("SELECT count(*) FROM challenges")
        .fetch_one(store.pool())
        .await
        .map_err(StoreError::from_driver)?;
    Ok(store.bounded(capacity, usize::try_from(held).unwrap_or(0)))
}

async fn postgres(url: &str) -> Result<SqlStore<Postgres>, StoreError> {
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
    migrated(pool, what).await
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
