//! What differs between the two SQL engines: counting affected rows,
//! locking the deliveries a worker claims, and the schema's migrations (the
//! column types differ).

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{Database, Postgres, SqlSafeStr, Sqlite};

/// A database the store runs on.
pub trait Engine: Database {
    /// Rows an `UPDATE` or `DELETE` changed.
    fn rows_affected(result: &Self::QueryResult) -> u64;

    /// What the `SELECT` that picks deliveries to claim ends with, so that
    /// concurrent claimers pass over the rows another is taking.
    const SKIP_LOCKED: &'static str;

    /// Node mode's index in tables on this database, where the engine
    /// keeps one (PostgreSQL's).
    fn index_tables(pool: &sqlx::Pool<Self>) -> Option<crate::IndexTables>;
}

impl Engine for Postgres {
    const SKIP_LOCKED: &'static str = " FOR UPDATE SKIP LOCKED";

    fn index_tables(pool: &sqlx::Pool<Self>) -> Option<crate::IndexTables> {
        Some(crate::IndexTables::new(pool.clone()))
    }

    fn rows_affected(result: &Self::QueryResult) -> u64 {
        result.rows_affected()
    }
}

impl Engine for Sqlite {
    // One writer at a time: a claim, one statement, runs alone.
    const SKIP_LOCKED: &'static str = "";

    fn index_tables(_: &sqlx::Pool<Self>) -> Option<crate::IndexTables> {
        None
    }

    fn rows_affected(result: &Self::QueryResult) -> u64 {
        result.rows_affected()
    }
}

/// The schema, in order: (version, description, SQL) for each engine.
const SQLITE: &[(i64, &str, &str)] = &[
    (1, "challenges", include_str!("../migrations/sqlite/0001_challenges.sql")),
    (2, "nft syncs", include_str!("../migrations/sqlite/0002_nft_syncs.sql")),
    (3, "streams", include_str!("../migrations/sqlite/0003_streams.sql")),
    (4, "index journal", include_str!("../migrations/sqlite/0004_index_journal.sql")),
    (5, "delivery transactions", include_str!("../migrations/sqlite/0005_delivery_transactions.sql")),
    (6, "chain journal", include_str!("../migrations/sqlite/0006_chain_journal.sql")),
];
const POSTGRES: &[(i64, &str, &str)] = &[
    (1, "challenges", include_str!("../migrations/postgres/0001_challenges.sql")),
    (2, "nft syncs", include_str!("../migrations/postgres/0002_nft_syncs.sql")),
    (3, "streams", include_str!("../migrations/postgres/0003_streams.sql")),
    (4, "index journal", include_str!("../migrations/postgres/0004_index_journal.sql")),
    (5, "delivery transactions", include_str!("../migrations/postgres/0005_delivery_transactions.sql")),
    (6, "chain journal", include_str!("../migrations/postgres/0006_chain_journal.sql")),
    (7, "index tables", include_str!("../migrations/postgres/0007_index_tables.sql")),
];

/// The migrations compiled into the binary, run at start; sqlx records
/// which ran, refuses a database whose applied migrations were changed, and
/// on PostgreSQL holds an advisory lock so that replicas starting together
/// migrate once. A database migrated further by a newer release is
/// accepted: every migration only adds, so an older replica restarting
/// beside newer ones during an upgrade still runs.
pub(crate) fn migrator<DB: Engine>() -> Migrator {
    let steps = if DB::NAME == Postgres::NAME { POSTGRES } else { SQLITE };
    let mut migrator = Migrator::with_migrations(
        steps
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(version, Cow::Borrowed(description), MigrationType::Simple, sql.into_sql_str(), false)
            })
            .collect(),
    );
    migrator.set_ignore_missing(true);
    migrator
}
