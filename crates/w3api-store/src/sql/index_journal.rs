//! The journal of each chain's node-mode index, and the lease of the one
//! replica that writes it.
//!
//! Every write to a chain's journal is one transaction whose first
//! statement is a write to the chain's lease row that changes nothing,
//! made only if the writer holds the lease ([`hold`]). On PostgreSQL that
//! update locks the row, as `SELECT … FOR UPDATE` would, until the
//! transaction ends; a takeover's upsert ([`lead`]) locks it too. On SQLite
//! a transaction that writes first takes the database's one write lock at
//! once, waiting its turn, rather than upgrading a read later, which fails
//! at once if another connection wrote in between. So, on either engine:
//! - writes to one chain's journal run one after the other: an append's
//!   check of the newest kept block and its inserts see no other write
//!   between them, and a truncation never lands amid an append;
//! - a takeover waits for the write in flight and then sees all of it,
//!   and a write after a takeover finds another holder and writes nothing:
//!   the old leader's writes and the new one's never interleave. Leases are
//!   judged by the callers' clocks (`now`), so a leader whose clock lags
//!   may write until a takeover commits, but never after it.
//!
//! The primary key (chain, number) is the backstop: whatever a writer
//! does, a chain keeps one block per number, and a batch that repeats a
//! number kept fails whole. The lock is what makes the check of parent
//! hashes sound, so that the journal is one line of blocks, each the
//! child of the one before.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use w3api_types::Chain;
use w3api_types::rpc::Hash32;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{MOST_VALUES, Sql, Statement, Tx, tuples};
use crate::{IndexBlock, StoreError};

/// A block's columns, as [`block_from`] reads them.
const BLOCK: &str = "number, hash, parent_hash, timestamp, payload";

/// The columns [`append`] binds for each block: the chain, then [`BLOCK`].
const APPENDED: usize = 6;

/// Takes `chain`'s lease for `holder` until `until` if it is free, expired
/// before `now` or `holder`'s already, in one statement: of replicas
/// taking an expired lease at once, the first to lock its row takes it,
/// and the others then see its holder and leave it.
pub(super) async fn lead<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, StoreError> {
    lead_in(store, "index_leases", chain, holder, now, until).await
}

/// [`lead`], on the leases of `table` (one of the schema's lease tables,
/// which have the same columns).
pub(super) async fn lead_in<DB: Sql>(
    store: &SqlStore<DB>,
    table: &'static str,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let upsert = format!(
        "INSERT INTO {table} (chain, holder, expires_at) VALUES ($1, $2, $3) \
         ON CONFLICT (chain) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at \
         WHERE {table}.holder = excluded.holder OR {table}.expires_at < $4"
    );
    let upsert = Statement::new(upsert).bind(chain.as_str()).bind(holder).bind(until).bind(now);
    Ok(store.execute(upsert).await? == 1)
}

/// A transaction that writes `chain`'s journal, if `holder` holds its
/// lease at `now` (it expires after `expires_at`): checked first thing by a
/// write to the lease's row that changes nothing, which is what orders
/// writers (see the module's documentation).
async fn hold<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<Tx<DB>>, StoreError> {
    let mut tx = store.begin().await?;
    let held = held_in(&mut tx, chain, holder, now).await?;
    Ok(held.then_some(tx))
}

/// Whether `holder` holds `chain`'s lease at `now`, asked first thing in
/// `tx` by the write that orders writers; the index's tables are written
/// under the same lease as its journal.
pub(crate) async fn held_in<DB: Sql>(
    tx: &mut Tx<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let touch = "UPDATE index_leases SET holder = holder WHERE chain = $1 AND holder = $2 AND expires_at >= $3";
    Ok(tx.execute(Statement::new(touch).bind(chain.as_str()).bind(holder).bind(now)).await? == 1)
}

/// Runs `statements` in one transaction while `holder` holds `chain`'s
/// lease; `false`, and nothing written, if it does not.
async fn while_held<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
    statements: impl IntoIterator<Item = Statement>,
) -> Result<bool, StoreError> {
    let Some(mut tx) = hold(store, chain, holder, now).await? else {
        return Ok(false);
    };
    for statement in statements {
        tx.execute(statement).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// Appends `blocks` to `chain`'s journal while `holder` holds its lease,
/// in one transaction: all of them, or none if the lease is not held
/// (`false`) or they do not follow the newest kept block and each other
/// ([`StoreError::IndexOutOfOrder`]). A batch of any size takes one
/// statement per [`MOST_VALUES`] values.
pub(super) async fn append<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
    blocks: &[IndexBlock],
) -> Result<bool, StoreError> {
    // A batch that does not follow itself is the caller's mistake, found
    // before the database is asked anything.
    if let Some(pair) = blocks.windows(2).find(|pair| !follows(&pair[1], pair[0].number, pair[0].hash)) {
        return Err(StoreError::IndexOutOfOrder { chain, newest: Some(pair[0].number), got: pair[1].number });
    }
    let Some(mut tx) = hold(store, chain, holder, now).await? else {
        return Ok(false);
    };
    let Some(first) = blocks.first() else {
        return Ok(true);
    };
    let newest = "SELECT number, hash FROM index_blocks WHERE chain = $1 ORDER BY number DESC LIMIT 1";
    if let Some(row) = tx.fetch(Statement::new(newest).bind(chain.as_str())).await?.first() {
        let columns = Columns::<DB>::of(row, "index block");
        let newest = columns.number(0)?;
        if !follows(first, newest, columns.hash(1)?) {
            return Err(StoreError::IndexOutOfOrder { chain, newest: Some(newest), got: first.number });
        }
    }
    for batch in blocks.chunks(MOST_VALUES / APPENDED) {
        let insert = format!("INSERT INTO index_blocks (chain, {BLOCK}) VALUES {}", tuples(batch.len(), APPENDED, 1));
        let insert = batch.iter().fold(Statement::batch(insert), |statement, block| {
            statement
                .bind(chain.as_str())
                .bind(block.number)
                .bind(block.hash)
                .bind(block.parent_hash)
                .bind(block.timestamp)
                .bind(block.payload.as_slice())
        });
        tx.execute(insert).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// Whether `block` is the child of the block numbered `number` whose hash
/// is `hash`: numbered one past it, and naming its hash as parent.
fn follows(block: &IndexBlock, number: u64, hash: Hash32) -> bool {
    number.checked_add(1) == Some(block.number) && block.parent_hash == hash
}

/// Forgets `chain`'s blocks numbered after `after` while `holder` holds
/// its lease, in one transaction; `false` if it does not.
pub(super) async fn truncate<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
    after: u64,
) -> Result<bool, StoreError> {
    let delete = "DELETE FROM index_blocks WHERE chain = $1 AND number > $2";
    while_held(store, chain, holder, now, [Statement::new(delete).bind(chain.as_str()).bind(after)]).await
}

/// Forgets `chain`'s whole journal and its lease while `holder` holds it,
/// in one transaction; `false` if it does not. The lease is then free.
pub(super) async fn clear<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    holder: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let forget = ["DELETE FROM index_blocks WHERE chain = $1", "DELETE FROM index_leases WHERE chain = $1"];
    while_held(store, chain, holder, now, forget.map(|delete| Statement::new(delete).bind(chain.as_str()))).await
}

/// Up to `limit` of `chain`'s kept blocks numbered `from` on, ascending,
/// in one statement: a page is as the journal was at one moment, and a
/// reader that reads several follows their parent hashes across a reorg
/// written between them.
pub(super) async fn blocks<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    from: u64,
    limit: usize,
) -> Result<Vec<IndexBlock>, StoreError> {
    let page = format!("SELECT {BLOCK} FROM index_blocks WHERE chain = $1 AND number >= $2 ORDER BY number LIMIT $3");
    let rows = store.fetch(Statement::new(page).bind(chain.as_str()).bind(from).bind(limit)).await?;
    rows.iter().map(block_from::<DB>).collect()
}

/// The number and hash of each of `chain`'s kept blocks numbered
/// `from..=to`, ascending.
pub(super) async fn hashes<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    from: u64,
    to: u64,
) -> Result<Vec<(u64, Hash32)>, StoreError> {
    let range = "SELECT number, hash FROM index_blocks WHERE chain = $1 AND number >= $2 AND number <= $3 \
                 ORDER BY number";
    let rows = store.fetch(Statement::new(range).bind(chain.as_str()).bind(from).bind(to)).await?;
    rows.iter()
        .map(|row| {
            let columns = Columns::<DB>::of(row, "index block");
            Ok((columns.number(0)?, columns.hash(1)?))
        })
        .collect()
}

/// A block, read as [`BLOCK`] lists its columns.
fn block_from<DB: Sql>(row: &DB::Row) -> Result<IndexBlock, StoreError> {
    let columns = Columns::<DB>::of(row, "index block");
    Ok(IndexBlock {
        number: columns.number(0)?,
        hash: columns.hash(1)?,
        parent_hash: columns.hash(2)?,
        timestamp: columns.number(3)?,
        payload: columns.bytes(4)?,
    })
}
