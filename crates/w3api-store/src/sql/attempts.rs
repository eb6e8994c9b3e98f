//! Attempts: what the workers that claimed deliveries report, kept only
//! while their claims hold, and the log of them.

use std::collections::HashMap;

use uuid::Uuid;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::history::Conditions;
use crate::sql::run::{MOST_VALUES, Sql, Statement, Tx, tuples};
use crate::{Attempt, AttemptFilter, AttemptOutcome, AttemptRecord, DeliveryState, Listing, StoreError};

/// An attempt's columns, with its delivery's, as [`attempt_from`] reads
/// them; `a` is the attempt, `d` its delivery.
pub(super) const ATTEMPT: &str = "a.seq, a.delivery_id, d.stream_id, d.chain_id, d.block_number, d.webhook_url, \
                                  d.tag, a.number, a.attempted_at, a.latency_ms, a.status_code, a.error, a.delivered";

/// The columns recorded for each attempt.
const RECORDED: usize = 8;

/// Records each of `attempts` whose worker still holds its delivery's
/// claim, in one transaction: the delivery counts it, leaves its lease and
/// takes the state the outcome names; returns how many were recorded.
/// Two statements a batch, whatever its size.
pub(super) async fn record<DB: Sql>(store: &SqlStore<DB>, attempts: &[Attempt]) -> Result<u64, StoreError> {
    if attempts.is_empty() {
        return Ok(0);
    }
    let mut tx = store.begin().await?;
    let mut recorded = 0;
    for round in rounds(attempts) {
        for batch in round.chunks(MOST_VALUES / RECORDED) {
            recorded += record_batch(&mut tx, batch).await?;
        }
    }
    tx.commit().await?;
    Ok(recorded)
}

/// `attempts` in rounds in which no delivery comes twice, each in order:
/// reports of one delivery are then settled one after the other, as if
/// they came one by one (the first that holds the claim releases it).
fn rounds(attempts: &[Attempt]) -> Vec<Vec<&Attempt>> {
    let mut rounds: Vec<Vec<&Attempt>> = Vec::new();
    let mut next_round: HashMap<Uuid, usize> = HashMap::new();
    for attempt in attempts {
        let round = next_round.entry(attempt.delivery_id).or_default();
        if *round == rounds.len() {
            rounds.push(Vec::new());
        }
        rounds[*round].push(attempt);
        *round += 1;
    }
    rounds
}

async fn record_batch<DB: Sql>(tx: &mut Tx<DB>, batch: &[&Attempt]) -> Result<u64, StoreError> {
    let numbers = settle(tx, batch).await?;
    let recorded: Vec<(&Attempt, i64)> =
        batch.iter().filter_map(|attempt| Some((*attempt, *numbers.get(&attempt.delivery_id)?))).collect();
    if recorded.is_empty() {
        return Ok(0);
    }
    let insert = format!(
        "INSERT INTO delivery_attempts (delivery_id, number, worker, attempted_at, latency_ms, status_code, error, \
         delivered) VALUES {}",
        tuples(recorded.len(), RECORDED, 1)
    );
    let insert = recorded.iter().fold(Statement::batch(insert), |statement, (attempt, number)| {
        statement
            .bind(attempt.delivery_id)
            .bind(*number)
            .bind(attempt.worker.as_str())
            .bind(attempt.at)
            .bind(attempt.latency_ms)
            .bind(attempt.status_code)
            .bind(attempt.error.as_deref())
            .bind(attempt.outcome == AttemptOutcome::Delivered)
    });
    tx.execute(insert).await
}

/// Moves each delivery of `batch` still claimed by the attempt's worker to
/// the state its outcome names; returns the number of the attempt for each
/// delivery moved.
async fn settle<DB: Sql>(tx: &mut Tx<DB>, batch: &[&Attempt]) -> Result<HashMap<Uuid, i64>, StoreError> {
    let update = format!(
        "UPDATE deliveries SET attempts = attempts + 1, state = reported.column3, due_at = reported.column4, \
         claimed_by = NULL, lease_until = NULL FROM (VALUES {}) AS reported \
         WHERE deliveries.id = reported.column1 AND deliveries.claimed_by = reported.column2 \
         AND deliveries.state = 'pending' RETURNING id, attempts",
        tuples(batch.len(), 4, 1)
    );
    let update = batch.iter().fold(Statement::batch(update), |statement, attempt| {
        let (state, due_at) = match attempt.outcome {
            AttemptOutcome::Delivered => (DeliveryState::Delivered, attempt.at),
            AttemptOutcome::RetryAt(at) => (DeliveryState::Pending, at),
            AttemptOutcome::Failed => (DeliveryState::Failed, attempt.at),
        };
        statement.bind(attempt.delivery_id).bind(attempt.worker.as_str()).bind(state.as_str()).bind(due_at)
    });
    let rows = tx.fetch(update).await?;
    rows.iter()
        .map(|row| {
            let columns = Columns::<DB>::of(row, "delivery");
            Ok((columns.uuid(0)?, columns.int(1)?))
        })
        .collect()
}

/// Up to `limit` attempts that `filter` selects, recorded before the one
/// numbered `before`, newest first.
pub(super) async fn log<DB: Sql>(
    store: &SqlStore<DB>,
    filter: &AttemptFilter,
    before: Option<i64>,
    limit: usize,
) -> Result<Listing<AttemptRecord>, StoreError> {
    const JOINED: &str = "FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id";
    let page = conditions(filter, 3);
    let select = format!("SELECT {ATTEMPT} {JOINED} WHERE a.seq < $1{} ORDER BY a.seq DESC LIMIT $2", page.sql);
    let select = page.statement(select).bind(before.unwrap_or(i64::MAX)).bind(limit).bind_each(page.values);
    let counted = conditions(filter, 1);
    let count = counted.statement(format!("SELECT count(*) {JOINED} WHERE TRUE{}", counted.sql));
    let rows = store.fetch(select).await?;
    let items = rows.iter().map(attempt_from::<DB>).collect::<Result<_, _>>()?;
    Ok(Listing { items, total: store.count(count.bind_each(counted.values)).await? })
}

/// The conditions of `filter` on attempts `a` of deliveries `d`, numbered from `first`.
fn conditions(filter: &AttemptFilter, first: usize) -> Conditions {
    let mut conditions = Conditions::of_deliveries(&filter.deliveries, "a.attempted_at", first);
    if let Some(delivered) = filter.delivered {
        conditions.add("a.delivered = {}", [delivered]);
    }
    conditions
}

/// An attempt, read as [`ATTEMPT`] lists its columns.
pub(super) fn attempt_from<DB: Sql>(row: &DB::Row) -> Result<AttemptRecord, StoreError> {
    let columns = Columns::<DB>::of(row, "delivery attempt");
    Ok(AttemptRecord {
        seq: columns.int(0)?,
        delivery_id: columns.uuid(1)?,
        stream_id: columns.uuid(2)?,
        chain_id: columns.text(3)?,
        block_number: columns.number(4)?,
        webhook_url: columns.text(5)?,
        tag: columns.text(6)?,
        number: columns.number(7)?,
        at: columns.time(8)?,
        latency_ms: columns.number(9)?,
        status_code: columns.maybe_number(10)?,
        error: columns.maybe_text(11)?,
        delivered: columns.flag(12)?,
    })
}
