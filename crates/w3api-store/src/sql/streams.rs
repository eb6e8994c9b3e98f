//! Streams: created, read, listed in pages, changed and deleted.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use w3api_types::Address;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{Sql, Statement};
use crate::{ActiveStream, Listing, NewStream, StoreError, StoredStream};

const COLUMNS: &str = "seq, id, settings, status, status_message, created_at, updated_at";

/// Creates `new`; the database numbers it.
pub(super) async fn create<DB: Sql>(store: &SqlStore<DB>, new: &NewStream) -> Result<StoredStream, StoreError> {
    let insert = format!(
        "INSERT INTO streams (id, settings, status, status_message, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING {COLUMNS}"
    );
    let insert = Statement::new(insert)
        .bind(new.id)
        .bind(new.settings.as_str())
        .bind(new.status.as_str())
        .bind(new.status_message.as_str())
        .bind(new.at)
        .bind(new.at);
    let created = one(store, insert).await?;
    created.ok_or_else(|| StoreError::Damaged { what: "stream", why: "its insert returned no row".into() })
}

/// The stream `id`, if there is one.
pub(super) async fn get<DB: Sql>(store: &SqlStore<DB>, id: Uuid) -> Result<Option<StoredStream>, StoreError> {
    one(store, Statement::new(format!("SELECT {COLUMNS} FROM streams WHERE id = $1")).bind(id)).await
}

/// Up to `limit` streams created after the one numbered `after`, oldest first.
pub(super) async fn list<DB: Sql>(
    store: &SqlStore<DB>,
    status: Option<&str>,
    after: Option<i64>,
    limit: usize,
) -> Result<Listing<StoredStream>, StoreError> {
    let in_status = if status.is_some() { " AND status = $3" } else { "" };
    let page = format!("SELECT {COLUMNS} FROM streams WHERE seq > $1{in_status} ORDER BY seq LIMIT $2");
    let page = Statement::new(page).bind(after.unwrap_or(i64::MIN)).bind(limit).bind_each(status);
    let rows = store.fetch(page).await?;
    let items = rows.iter().map(stream_from::<DB>).collect::<Result<_, _>>()?;
    let count = if status.is_some() {
        "SELECT count(*) FROM streams WHERE status = $1"
    } else {
        "SELECT count(*) FROM streams"
    };
    Ok(Listing { items, total: store.count(Statement::new(count).bind_each(status)).await? })
}

/// Sets the settings of the stream `id`.
pub(super) async fn update<DB: Sql>(
    store: &SqlStore<DB>,
    id: Uuid,
    settings: &str,
    at: DateTime<Utc>,
) -> Result<Option<StoredStream>, StoreError> {
    let update = format!("UPDATE streams SET settings = $1, updated_at = $2 WHERE id = $3 RETURNING {COLUMNS}");
    one(store, Statement::new(update).bind(settings).bind(at).bind(id)).await
}

/// Sets the status of the stream `id`.
pub(super) async fn set_status<DB: Sql>(
    store: &SqlStore<DB>,
    id: Uuid,
    status: &str,
    message: &str,
    at: DateTime<Utc>,
) -> Result<Option<StoredStream>, StoreError> {
    let update = format!(
        "UPDATE streams SET status = $1, status_message = $2, updated_at = $3 WHERE id = $4 RETURNING {COLUMNS}"
    );
    one(store, Statement::new(update).bind(status).bind(message).bind(at).bind(id)).await
}

/// Deletes the stream `id` (its addresses go with it: the foreign key
/// cascades) and fails its pending deliveries, in one transaction.
pub(super) async fn delete<DB: Sql>(store: &SqlStore<DB>, id: Uuid) -> Result<Option<StoredStream>, StoreError> {
    let mut tx = store.begin().await?;
    let delete = format!("DELETE FROM streams WHERE id = $1 RETURNING {COLUMNS}");
    let Some(row) = tx.fetch(Statement::new(delete).bind(id)).await?.into_iter().next() else {
        return Ok(None);
    };
    let deleted = stream_from::<DB>(&row)?;
    let fail = "UPDATE deliveries SET state = 'failed', claimed_by = NULL, lease_until = NULL \
                WHERE stream_id = $1 AND state = 'pending'";
    tx.execute(Statement::new(fail).bind(id)).await?;
    tx.commit().await?;
    Ok(Some(deleted))
}

/// The active streams, each with every address it watches (ascending).
pub(super) async fn active<DB: Sql>(store: &SqlStore<DB>) -> Result<Vec<ActiveStream>, StoreError> {
    let streams = format!("SELECT {COLUMNS} FROM streams WHERE status = 'active' ORDER BY seq");
    let streams = store.fetch(Statement::new(streams)).await?;
    let addresses = "SELECT a.stream_id, a.address FROM stream_addresses a JOIN streams s ON s.id = a.stream_id \
                     WHERE s.status = 'active' ORDER BY a.stream_id, a.address";
    let mut watched: HashMap<Uuid, Vec<Address>> = HashMap::new();
    for row in store.fetch(Statement::new(addresses)).await? {
        let columns = Columns::<DB>::of(&row, "stream address");
        watched.entry(columns.uuid(0)?).or_default().push(columns.address(1)?);
    }
    streams
        .iter()
        .map(|row| {
            let stream = stream_from::<DB>(row)?;
            let addresses = watched.remove(&stream.id).unwrap_or_default();
            Ok((stream, addresses))
        })
        .collect()
}

/// The stream `statement` returns, if any.
async fn one<DB: Sql>(store: &SqlStore<DB>, statement: Statement) -> Result<Option<StoredStream>, StoreError> {
    store.fetch_first(statement).await?.as_ref().map(stream_from::<DB>).transpose()
}

fn stream_from<DB: Sql>(row: &DB::Row) -> Result<StoredStream, StoreError> {
    let columns = Columns::<DB>::of(row, "stream");
    Ok(StoredStream {
        seq: columns.int(0)?,
        id: columns.uuid(1)?,
        settings: columns.text(2)?,
        status: columns.text(3)?,
        status_message: columns.text(4)?,
        created_at: columns.time(5)?,
        updated_at: columns.time(6)?,
    })
}
