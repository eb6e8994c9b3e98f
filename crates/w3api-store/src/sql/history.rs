//! What became of deliveries: one with its attempts, pages of them, and
//! statistics per stream.

use uuid::Uuid;

use crate::sql::SqlStore;
use crate::sql::attempts::{ATTEMPT, attempt_from};
use crate::sql::columns::Columns;
use crate::sql::queue::{DELIVERY, deliveries, delivery_from};
use crate::sql::run::{Sql, Statement, Value};
use crate::{Delivery, DeliveryFilter, DeliveryHistory, Listing, StoreError, StreamStats};

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

/// Up to `limit` deliveries that `filter` selects, enqueued before the one
/// numbered `before`, newest first.
pub(super) async fn list<DB: Sql>(
    store: &SqlStore<DB>,
    filter: &DeliveryFilter,
    before: Option<i64>,
    limit: usize,
) -> Result<Listing<Delivery>, StoreError> {
    let page = Conditions::of_deliveries(filter, "d.created_at", 3);
    let select =
        format!("SELECT {DELIVERY} FROM deliveries d WHERE d.seq < $1{} ORDER BY d.seq DESC LIMIT $2", page.sql);
    let select = page.statement(select).bind(before.unwrap_or(i64::MAX)).bind(limit).bind_each(page.values);
    let counted = Conditions::of_deliveries(filter, "d.created_at", 1);
    let count = counted.statement(format!("SELECT count(*) FROM deliveries d WHERE TRUE{}", counted.sql));
    let items = deliveries::<DB>(store.fetch(select).await?)?;
    Ok(Listing { items, total: store.count(count.bind_each(counted.values)).await? })
}

/// The conditions of a filter, as SQL to append to a `WHERE` (each one
/// starting ` AND `) and the values of its parameters, numbered on from a
/// given one.
pub(super) struct Conditions {
    pub(super) sql: String,
    pub(super) values: Vec<Value>,
    next: usize,
}

impl Conditions {
    /// The conditions of `filter` on deliveries `d`, whose time is `time`,
    /// with parameters numbered from `first`.
    pub(super) fn of_deliveries(filter: &DeliveryFilter, time: &str, first: usize) -> Conditions {
        let mut conditions = Conditions { sql: String::new(), values: Vec::new(), next: first };
        if let Some(stream) = filter.stream {
            conditions.add("d.stream_id = {}", [stream]);
        }
        if let Some(hash) = &filter.transaction {
            let carried = "d.id IN (SELECT delivery_id FROM delivery_transactions WHERE hash = {})";
            conditions.add(carried, [hash.as_str()]);
        }
        conditions.one_of("d.chain_id", filter.chain_ids.iter().map(String::as_str));
        conditions.one_of("d.block_number", filter.block_numbers.iter().copied());
        if let Some(from) = filter.from {
            conditions.add(&format!("{time} >= {{}}"), [from]);
        }
        if let Some(to) = filter.to {
            conditions.add(&format!("{time} <= {{}}"), [to]);
        }
        conditions
    }

    /// Adds `condition`, each `{}` in it a parameter bound to the next of `values`.
    pub(super) fn add<V: Into<Value>>(&mut self, condition: &str, values: impl IntoIterator<Item = V>) {
        let mut text = condition.to_owned();
        for value in values {
            text = text.replacen("{}", &format!("${}", self.next), 1);
            self.values.push(value.into());
            self.next += 1;
        }
        self.sql.push_str(" AND ");
        self.sql.push_str(&text);
    }

    /// Adds `column IN (…)` for `values`; nothing when there are none.
    fn one_of<V: Into<Value>>(&mut self, column: &str, values: impl ExactSizeIterator<Item = V>) {
        if values.len() > 0 {
            let marks = vec!["{}"; values.len()].join(", ");
            self.add(&format!("{column} IN ({marks})"), values);
        }
    }

    /// A statement of `sql`: prepared once per connection when no condition
    /// varies it, for this run only otherwise (each list length is a text).
    pub(super) fn statement(&self, sql: String) -> Statement {
        if self.values.is_empty() { Statement::new(sql) } else { Statement::batch(sql) }
    }
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
