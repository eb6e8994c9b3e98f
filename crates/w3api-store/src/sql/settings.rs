//! The project's settings: one row, shared by every replica.

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{Sql, Statement};
use crate::{Settings, StoreError};

/// The settings, if any were set.
pub(super) async fn get<DB: Sql>(store: &SqlStore<DB>) -> Result<Option<Settings>, StoreError> {
    let row = store.fetch_first(Statement::new("SELECT secret_key, region FROM project_settings WHERE id = 1")).await?;
    let settings = |row: &DB::Row| {
        let columns = Columns::<DB>::of(row, "settings");
        Ok(Settings { secret_key: columns.text(0)?, region: columns.text(1)? })
    };
    row.as_ref().map(settings).transpose()
}

/// Keeps `settings`, replacing any.
pub(super) async fn set<DB: Sql>(store: &SqlStore<DB>, settings: &Settings) -> Result<(), StoreError> {
    let upsert = "INSERT INTO project_settings (id, secret_key, region) VALUES (1, $1, $2) \
                  ON CONFLICT (id) DO UPDATE SET secret_key = excluded.secret_key, region = excluded.region";
    store.execute(Statement::new(upsert).bind(settings.secret_key.as_str()).bind(settings.region.as_str())).await?;
    Ok(())
}

/// Keeps `settings` if none were set, and returns those kept: replicas
/// starting together agree on the first.
pub(super) async fn init<DB: Sql>(store: &SqlStore<DB>, settings: &Settings) -> Result<Settings, StoreError> {
    let insert = "INSERT INTO project_settings (id, secret_key, region) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING";
    store.execute(Statement::new(insert).bind(settings.secret_key.as_str()).bind(settings.region.as_str())).await?;
    get(store).await?.ok_or_else(|| StoreError::Damaged { what: "settings", why: "gone once kept".into() })
}
