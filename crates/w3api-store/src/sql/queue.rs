//! The delivery queue: enqueued once per stream and block, claimed by one
//! worker at a time for a lease, replayed.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{MOST_VALUES, Sql, Statement, tuples};
use crate::{Delivery, DeliveryState, NewDelivery, Records, StoreError};

/// A delivery's columns, as [`delivery_from`] reads them.
pub(super) const DELIVERY: &str = "seq, id, stream_id, chain_id, block_number, block_hash, confirmed, payload, \
                                   logs, txs, txs_internal, webhook_url, tag, created_at, state, attempts, due_at";

/// The columns [`enqueue`] binds for each delivery.
const ENQUEUED: usize = 14;

/// Enqueues those of `deliveries` whose stream, block and confirmation
/// none has (from this batch, or another replica that saw the block), with
/// the transactions each carries, in one transaction; returns how many.
pub(super) async fn enqueue<DB: Sql>(store: &SqlStore<DB>, deliveries: &[NewDelivery]) -> Result<u64, StoreError> {
    if deliveries.is_empty() {
        return Ok(0);
    }
    let mut tx = store.begin().await?;
    let enqueued = tx
        .execute_batches(deliveries, MOST_VALUES / ENQUEUED, |batch| {
            let insert = format!(
                "INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, confirmed, payload, \
                 logs, txs, txs_internal, webhook_url, tag, created_at, due_at, state, attempts) \
                 SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9, column10, \
                 column11, column12, column13, column14, 'pending', 0 FROM (VALUES {}) AS enqueued WHERE TRUE \
                 ON CONFLICT (stream_id, block_hash, confirmed) DO NOTHING",
                tuples(batch.len(), ENQUEUED, 1)
            );
            batch.iter().fold(Statement::batch(insert), bind_new)
        })
        .await?;
    let carried: Vec<(Uuid, &str)> = deliveries
        .iter()
        .flat_map(|delivery| delivery.transactions.iter().map(move |hash| (delivery.id, hash.as_str())))
        .collect();
    tx.execute_batches(&carried, MOST_VALUES / 2, |batch| {
        // Only for deliveries enqueued here: one another replica enqueued
        // first kept its own id, and recorded its own transactions.
        let insert = format!(
            "INSERT INTO delivery_transactions (delivery_id, hash) SELECT column1, column2 \
             FROM (VALUES {}) AS carried WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.id = carried.column1) \
             ON CONFLICT DO NOTHING",
            tuples(batch.len(), 2, 1)
        );
        batch.iter().fold(Statement::batch(insert), |statement, (id, hash)| statement.bind(*id).bind(*hash))
    })
    .await?;
    tx.commit().await?;
    Ok(enqueued)
}

/// `statement` with the [`ENQUEUED`] values of `new` bound next.
fn bind_new(statement: Statement, new: &NewDelivery) -> Statement {
    statement
        .bind(new.id)
        .bind(new.stream_id)
        .bind(new.chain_id.as_str())
        .bind(new.block_number)
        .bind(new.block_hash.as_str())
        .bind(new.confirmed)
        .bind(new.payload.as_str())
        .bind(new.records.logs)
        .bind(new.records.txs)
        .bind(new.records.txs_internal)
        .bind(new.webhook_url.as_str())
        .bind(new.tag.as_str())
        .bind(new.created_at)
        .bind(new.created_at)
}

/// Claims for `worker`, until `lease_until`, up to `limit` pending
/// deliveries due by `now` that no lease holds at `now`, oldest due first,
/// in one statement: concurrent claimers (on PostgreSQL, which rows each
/// locks first decides) never take one delivery both.
pub(super) async fn claim<DB: Sql>(
    store: &SqlStore<DB>,
    worker: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<Delivery>, StoreError> {
    // Materialized: the pick runs once, whatever plan the update takes.
    let claim = format!(
        "WITH picked AS MATERIALIZED (SELECT seq FROM deliveries \
         WHERE state = 'pending' AND due_at <= $3 AND (lease_until IS NULL OR lease_until < $3) \
         ORDER BY due_at, seq LIMIT $4{}) \
         UPDATE deliveries SET claimed_by = $1, lease_until = $2 WHERE seq IN (SELECT seq FROM picked) \
         RETURNING {DELIVERY}",
        DB::SKIP_LOCKED
    );
    let claim = Statement::new(claim).bind(worker).bind(lease_until).bind(now).bind(limit);
    let mut claimed = deliveries::<DB>(store.fetch(claim).await?)?;
    claimed.sort_by_key(|delivery| (delivery.due_at, delivery.seq));
    Ok(claimed)
}

/// Makes the delivery `id` of the stream `stream_id` pending again, due
/// `now`, whatever its state, and frees its lease.
pub(super) async fn replay<DB: Sql>(
    store: &SqlStore<DB>,
    stream_id: Uuid,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<Delivery>, StoreError> {
    let replay = format!(
        "UPDATE deliveries SET state = 'pending', due_at = $1, claimed_by = NULL, lease_until = NULL \
         WHERE id = $2 AND stream_id = $3 RETURNING {DELIVERY}"
    );
    let row = store.fetch_first(Statement::new(replay).bind(now).bind(id).bind(stream_id)).await?;
    row.as_ref().map(delivery_from::<DB>).transpose()
}

/// When the first pending delivery is due, leases aside.
pub(super) async fn next_due<DB: Sql>(store: &SqlStore<DB>) -> Result<Option<DateTime<Utc>>, StoreError> {
    let row = store.fetch_first(Statement::new("SELECT min(due_at) FROM deliveries WHERE state = 'pending'")).await?;
    row.as_ref().map_or(Ok(None), |row| Columns::<DB>::of(row, "delivery").maybe_time(0))
}

/// The deliveries in `rows`, read as [`DELIVERY`] lists them.
pub(super) fn deliveries<DB: Sql>(rows: Vec<DB::Row>) -> Result<Vec<Delivery>, StoreError> {
    rows.iter().map(delivery_from::<DB>).collect()
}

/// A delivery, read as [`DELIVERY`] lists its columns.
pub(super) fn delivery_from<DB: Sql>(row: &DB::Row) -> Result<Delivery, StoreError> {
    let columns = Columns::<DB>::of(row, "delivery");
    let state = columns.text(14)?;
    let state = DeliveryState::from_stored(&state)
        .ok_or_else(|| StoreError::Damaged { what: "delivery", why: format!("state {state:?}") })?;
    Ok(Delivery {
        seq: columns.int(0)?,
        id: columns.uuid(1)?,
        stream_id: columns.uuid(2)?,
        chain_id: columns.text(3)?,
        block_number: columns.number(4)?,
        block_hash: columns.text(5)?,
        confirmed: columns.flag(6)?,
        payload: columns.text(7)?,
        records: Records { logs: columns.number(8)?, txs: columns.number(9)?, txs_internal: columns.number(10)? },
        webhook_url: columns.text(11)?,
        tag: columns.text(12)?,
        created_at: columns.time(13)?,
        state,
        attempts: columns.number(15)?,
        due_at: columns.time(16)?,
    })
}
