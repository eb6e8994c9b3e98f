//! What became of deliveries: one with its attempts, pages of them, and
//! statistics per stream.

use uuid::Uuid;

use crate::sql::SqlStore;
use crate::sql::attempts::{ATTEMPT, attempt_from};
use crate::sql::columns::Columns;
use crate::sql::queue::{DELIVERY, deliveries, delivery_from};
use crate::sql::run::{Sql, Statement};
use crate::{Delivery, DeliveryHistory, Listing, StoreError, StreamStats};

/// The delivery `id` with its attempts, oldest first.
pub(super) async fn delivery<DB: Sql>(store: &SqlStore<DB>, id: Uuid) -> Result<Option<DeliveryHistory>, StoreError> {
    let select = format!("SELECT {DELIVERY} FROM deliveries WHERE id = $1");
    let Some(row) = store.fetch_first(Statement::new(select).bind(id)).await? else {
        return Ok(None);
    };
    let delivery = delivery_from::<DB>(&row)?;
    let attempts = format!(
        "SELECT {ATTEMPT} FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id \
         WHERE a.delivery_id = $1 ORDER BY a.seq"
    );
    let rows = store.fetch(Statement::new(attempts).bind(id)).await?;
    let attempts = rows.iter().map(attempt_from::<DB>).collect::<Result<_, _>>()?;
    Ok(Some((delivery, attempts)))
}

/// Up to `limit` deliveries (of `stream` only, if given) enqueued before
/// the one numbered `before`, newest first.
pub(super) async fn list<DB: Sql>(
    store: &SqlStore<DB>,
    stream: Option<Uuid>,
    before: Option<i64>,
    limit: usize,
) -> Result<Listing<Delivery>, StoreError> {
    let of_stream = if_stream(stream, " AND stream_id = $3");
    let page = format!("SELECT {DELIVERY} FROM deliveries WHERE seq < $1{of_stream} ORDER BY seq DESC LIMIT $2");
    let page = Statement::new(page).bind(before.unwrap_or(i64::MAX)).bind(limit).bind_each(stream);
    let count = format!("SELECT count(*) FROM deliveries{}", if_stream(stream, " WHERE stream_id = $1"));
    let items = deliveries::<DB>(store.fetch(page).await?)?;
    Ok(Listing { items, total: store.count(Statement::new(count).bind_each(stream)).await? })
}

/// Per stream with deliveries (`stream` only, if given), ordered by id:
/// its attempts that delivered and did not, and what its deliveries
/// delivered at least once carried.
pub(super) async fn stats<DB: Sql>(store: &SqlStore<DB>, stream: Option<Uuid>) -> Result<Vec<StreamStats>, StoreError> {
    let of_stream = if_stream(stream, " WHERE d.stream_id = $1");
    let sums = format!(
        "SELECT stream_id, CAST(SUM(delivered) AS BIGINT), CAST(SUM(failed) AS BIGINT), \
         CAST(SUM(CASE WHEN delivered > 0 THEN logs ELSE 0 END) AS BIGINT), \
         CAST(SUM(CASE WHEN delivered > 0 THEN txs ELSE 0 END) AS BIGINT), \
         CAST(SUM(CASE WHEN delivered > 0 THEN txs_internal ELSE 0 END) AS BIGINT) \
         FROM (SELECT d.stream_id, d.logs, d.txs, d.txs_internal, \
         (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.delivered) AS delivered, \
         (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id AND NOT a.delivered) AS failed \
         FROM deliveries d{of_stream}) AS per_delivery \
         GROUP BY stream_id"
    );
    let rows = store.fetch(Statement::new(sums).bind_each(stream)).await?;
    let mut stats = rows.iter().map(stats_from::<DB>).collect::<Result<Vec<_>, _>>()?;
    // Ordered here: the text of the ids sorts as they do, but a database's collation may not.
    stats.sort_unstable_by_key(|stats| stats.stream_id);
    Ok(stats)
}

fn stats_from<DB: Sql>(row: &DB::Row) -> Result<StreamStats, StoreError> {
    let columns = Columns::<DB>::of(row, "stream statistics");
    Ok(StreamStats {
        stream_id: columns.uuid(0)?,
        delivered: columns.number(1)?,
        failed: columns.number(2)?,
        logs: columns.number(3)?,
        txs: columns.number(4)?,
        txs_internal: columns.number(5)?,
    })
}

/// `condition` when a stream is asked for, nothing otherwise.
fn if_stream(stream: Option<Uuid>, condition: &'static str) -> &'static str {
    if stream.is_some() { condition } else { "" }
}
