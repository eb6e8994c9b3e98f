//! The addresses each stream watches.

use uuid::Uuid;

use w3api_types::Address;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{MOST_VALUES, Sql, Statement, tuples};
use crate::{Listing, StoreError};

/// Adds those of `addresses` the stream `id` does not watch yet, if the
/// stream exists (checked by each insert itself, so that none outlives a
/// stream deleted meanwhile); returns how many.
pub(super) async fn add<DB: Sql>(store: &SqlStore<DB>, id: Uuid, addresses: &[Address]) -> Result<u64, StoreError> {
    per_batch(store, id, addresses, |count| {
        format!(
            "INSERT INTO stream_addresses (stream_id, address) SELECT $1, column1 FROM (VALUES {}) AS added \
             WHERE EXISTS (SELECT 1 FROM streams WHERE id = $1) ON CONFLICT DO NOTHING",
            tuples(count, 1, 2)
        )
    })
    .await
}

/// Removes those of `addresses` the stream `id` watches; returns how many.
pub(super) async fn remove<DB: Sql>(store: &SqlStore<DB>, id: Uuid, addresses: &[Address]) -> Result<u64, StoreError> {
    per_batch(store, id, addresses, |count| {
        format!("DELETE FROM stream_addresses WHERE stream_id = $1 AND address IN {}", tuples(1, count, 2))
    })
    .await
}

/// Runs the statement `sql` makes for a batch of so many addresses, with
/// the stream `id` as `$1` and the batch after it, over every address
/// once, in one transaction; returns the rows changed.
async fn per_batch<DB: Sql>(
    store: &SqlStore<DB>,
    id: Uuid,
    addresses: &[Address],
    sql: impl Fn(usize) -> String + Sync,
) -> Result<u64, StoreError> {
    let mut addresses = addresses.to_vec();
    addresses.sort_unstable();
    addresses.dedup();
    store
        .in_batches(&addresses, MOST_VALUES - 1, |batch| {
            Statement::batch(sql(batch.len())).bind(id).bind_each(batch.iter().copied())
        })
        .await
}

/// Up to `limit` of the addresses the stream `id` watches, ascending,
/// those after `after` only.
pub(super) async fn list<DB: Sql>(
    store: &SqlStore<DB>,
    id: Uuid,
    after: Option<Address>,
    limit: usize,
) -> Result<Listing<Address>, StoreError> {
    let page = "SELECT address FROM stream_addresses WHERE stream_id = $1 AND address > $2 ORDER BY address LIMIT $3";
    // Every address sorts after the empty bytes.
    let after = after.as_ref().map_or(&[][..], |after| after.as_slice());
    let rows = store.fetch(Statement::new(page).bind(id).bind(after).bind(limit)).await?;
    let items = rows.iter().map(|row| Columns::<DB>::of(row, "stream address").address(0)).collect::<Result<_, _>>()?;
    let total =
        store.count(Statement::new("SELECT count(*) FROM stream_addresses WHERE stream_id = $1").bind(id)).await?;
    Ok(Listing { items, total })
}
