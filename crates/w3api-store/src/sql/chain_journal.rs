//! Each devnet chain's journal on either engine.
//!
//! A writer's transaction starts by writing the chain's row of
//! `chain_journals` (creating it with the writer's origin, or rewriting the
//! kept one unchanged). On PostgreSQL that locks the row until the
//! transaction ends, so writers of one chain on any replica queue there; a
//! replica that dies mid-write loses its connection, and the lock with it.
//! A database this process alone writes (SQLite) is ordered by turns in
//! the process instead ([`write`]). Either way, a writer that then reads
//! the changes kept after its own sees every change committed before it,
//! and none commits until it is done.

use futures::future::BoxFuture;
use sqlx::Pool;
use tokio::sync::OwnedMutexGuard;
use w3api_types::Chain;

use crate::sql::SqlStore;
use crate::sql::columns::Columns;
use crate::sql::run::{Sql, Statement, Tx};
use crate::{ChainWrite, KeptChange, StoreError};

/// What this process knows of a chain's journal that it alone writes,
/// learnt by the writers before: exact, as nothing else changes it, and
/// spared a statement each time a writer would ask it again.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// The origin found or created in the journal's row.
    origin: Option<String>,
    /// The newest change kept.
    newest: Option<u64>,
}

/// A change's columns, as [`change_from`] reads them.
const CHANGE: &str = "seq, change, outcome";

/// The chains with a journal, and the origin each was written on.
pub(super) async fn kept<DB: Sql>(store: &SqlStore<DB>) -> Result<Vec<(Chain, String)>, StoreError> {
    let rows = store.fetch(Statement::new("SELECT chain, origin FROM chain_journals ORDER BY chain")).await?;
    rows.iter()
        .map(|row| {
            let columns = Columns::<DB>::of(row, "chain journal");
            let name = columns.text(0)?;
            let chain = name
                .parse()
                .map_err(|e| StoreError::Damaged { what: "chain journal", why: format!("chain {name:?}: {e}") })?;
            Ok((chain, columns.text(1)?))
        })
        .collect()
}

/// Up to `limit` of `chain`'s changes after `after`, oldest first.
pub(super) async fn changes<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    after: u64,
    limit: usize,
) -> Result<Vec<KeptChange>, StoreError> {
    let page = format!("SELECT {CHANGE} FROM chain_changes WHERE chain = $1 AND seq > $2 ORDER BY seq LIMIT $3");
    let rows = store.fetch(Statement::new(page).bind(chain.as_str()).bind(after).bind(limit)).await?;
    rows.iter().map(change_from::<DB>).collect()
}

/// The number of `chain`'s newest change; 0 when none is kept.
pub(super) async fn head<DB: Sql>(store: &SqlStore<DB>, chain: Chain) -> Result<u64, StoreError> {
    let newest = "SELECT COALESCE(MAX(seq), 0) FROM chain_changes WHERE chain = $1";
    store.count(Statement::new(newest).bind(chain.as_str())).await
}

/// Holds `chain`'s journal for writing, on top of `origin`: refused with
/// [`StoreError::ChainOriginDiffers`] when the journal was written on
/// another.
///
/// A database this process alone writes is not held for the writer's whole
/// turn: the writer may take long (mining many blocks), and sign-in and
/// streams share the database meanwhile. Writers then take turns in this
/// process, and what they append is written in one transaction when they
/// commit.
pub(super) async fn write<DB: Sql>(
    store: &SqlStore<DB>,
    chain: Chain,
    origin: &str,
) -> Result<Box<dyn ChainWrite>, StoreError> {
    let held = match store.chain_turn(chain) {
        Some(turn) => {
            let mut turn = turn.lock_owned().await;
            if turn.origin.as_deref() != Some(origin) {
                let connection = &mut *store.pool().acquire().await.map_err(StoreError::from_driver)?;
                check_origin::<DB>(connection, chain, origin).await?;
                turn.origin = Some(origin.to_owned());
            }
            Held::Alone { pool: store.pool().clone(), appended: Vec::new(), turn }
        }
        None => {
            let mut tx = store.begin().await?;
            check_origin::<DB>(tx.connection(), chain, origin).await?;
            Held::Shared(tx)
        }
    };
    Ok(Box::new(Writer { held, chain }))
}

/// Creates `chain`'s journal on `origin`, or finds the one kept, writing
/// its row (which, in a transaction, holds it until the end); refuses one
/// kept on another origin.
async fn check_origin<DB: Sql>(connection: &mut DB::Connection, chain: Chain, origin: &str) -> Result<(), StoreError> {
    let claim = "INSERT INTO chain_journals (chain, origin) VALUES ($1, $2) \
                 ON CONFLICT (chain) DO UPDATE SET origin = chain_journals.origin RETURNING origin";
    let rows = DB::fetch(connection, Statement::new(claim).bind(chain.as_str()).bind(origin)).await?;
    let row = rows.first().ok_or_else(|| StoreError::Damaged { what: "chain journal", why: "no row".into() })?;
    let kept = Columns::<DB>::of(row, "chain journal").text(0)?;
    if kept != origin {
        return Err(StoreError::ChainOriginDiffers { chain, kept });
    }
    Ok(())
}

/// Forgets `chain`'s journal and its origin.
pub(super) async fn forget<DB: Sql>(store: &SqlStore<DB>, chain: Chain) -> Result<(), StoreError> {
    let turn = store.chain_turn(chain);
    let mut known = match &turn {
        Some(turn) => Some(turn.lock().await),
        None => None,
    };
    let mut tx = store.begin().await?;
    tx.execute(Statement::new("DELETE FROM chain_journals WHERE chain = $1").bind(chain.as_str())).await?;
    tx.execute(Statement::new("DELETE FROM chain_changes WHERE chain = $1").bind(chain.as_str())).await?;
    if let Some(known) = &mut known {
        **known = Known::default();
    }
    tx.commit().await
}

struct Writer<DB: Sql> {
    held: Held<DB>,
    chain: Chain,
}

/// How a writer holds the journal.
enum Held<DB: Sql> {
    /// In a transaction that wrote the journal's row first.
    Shared(Tx<DB>),
    /// By this process's turn; the changes to write when it commits.
    Alone { pool: Pool<DB>, appended: Vec<(KeptChange, Option<u64>)>, turn: OwnedMutexGuard<Known> },
}

impl<DB: Sql> Writer<DB> {
    async fn fetch(&mut self, statement: Statement) -> Result<Vec<DB::Row>, StoreError> {
        match &mut self.held {
            Held::Shared(tx) => tx.fetch(statement).await,
            Held::Alone { pool, .. } => {
                DB::fetch(&mut *pool.acquire().await.map_err(StoreError::from_driver)?, statement).await
            }
        }
    }

    /// The newest change kept, or appended in this turn.
    async fn newest(&mut self) -> Result<u64, StoreError> {
        if let Held::Alone { appended, turn, .. } = &self.held
            && let Some(newest) = appended.last().map(|(last, _)| last.seq).or(turn.newest)
        {
            return Ok(newest);
        }
        let newest = "SELECT COALESCE(MAX(seq), 0) FROM chain_changes WHERE chain = $1";
        let rows = self.fetch(Statement::new(newest).bind(self.chain.as_str())).await?;
        let newest = match rows.first() {
            Some(row) => Columns::<DB>::of(row, "chain journal").number(0)?,
            None => 0,
        };
        if let Held::Alone { turn, .. } = &mut self.held {
            turn.newest = Some(newest);
        }
        Ok(newest)
    }
}

impl<DB: Sql> ChainWrite for Writer<DB> {
    fn changes_after(&mut self, after: u64) -> BoxFuture<'_, Result<Vec<KeptChange>, StoreError>> {
        Box::pin(async move {
            if let Held::Alone { turn, .. } = &self.held
                && turn.newest.is_some_and(|newest| newest <= after)
            {
                return Ok(Vec::new());
            }
            let since = format!("SELECT {CHANGE} FROM chain_changes WHERE chain = $1 AND seq > $2 ORDER BY seq");
            let rows = self.fetch(Statement::new(since).bind(self.chain.as_str()).bind(after)).await?;
            rows.iter().map(change_from::<DB>).collect()
        })
    }

    fn append<'a>(
        &'a mut self,
        change: &'a KeptChange,
        forget_after: Option<u64>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let newest = self.newest().await?;
            if change.seq <= newest {
                return Err(StoreError::ChangeOutOfOrder { chain: self.chain, newest, got: change.seq });
            }
            match &mut self.held {
                Held::Shared(tx) => write_change(tx, self.chain, change, forget_after).await,
                Held::Alone { appended, .. } => {
                    appended.push((change.clone(), forget_after));
                    Ok(())
                }
            }
        })
    }

    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        let chain = self.chain;
        Box::pin(async move {
            match self.held {
                Held::Shared(tx) => tx.commit().await,
                Held::Alone { pool, appended, mut turn } => {
                    let Some((last, _)) = appended.last() else { return Ok(()) };
                    let newest = last.seq;
                    // Unknown until it is seen kept.
                    turn.newest = None;
                    if let [(change, None)] = appended.as_slice() {
                        // One statement alone is a transaction already.
                        let connection = &mut *pool.acquire().await.map_err(StoreError::from_driver)?;
                        DB::execute(connection, insert(chain, change)).await?;
                    } else {
                        let mut tx = pool.begin().await.map(Tx).map_err(StoreError::from_driver)?;
                        for (change, forget_after) in &appended {
                            write_change(&mut tx, chain, change, *forget_after).await?;
                        }
                        tx.commit().await?;
                    }
                    turn.newest = Some(newest);
                    Ok(())
                }
            }
        })
    }
}

/// Forgets the changes after `forget_after`, if given, then keeps `change`.
async fn write_change<DB: Sql>(
    tx: &mut Tx<DB>,
    chain: Chain,
    change: &KeptChange,
    forget_after: Option<u64>,
) -> Result<(), StoreError> {
    if let Some(after) = forget_after {
        let forget = "DELETE FROM chain_changes WHERE chain = $1 AND seq > $2";
        tx.execute(Statement::new(forget).bind(chain.as_str()).bind(after)).await?;
    }
    tx.execute(insert(chain, change)).await?;
    Ok(())
}

/// The statement that keeps `change`.
fn insert(chain: Chain, change: &KeptChange) -> Statement {
    let insert = "INSERT INTO chain_changes (chain, seq, change, outcome) VALUES ($1, $2, $3, $4)";
    Statement::new(insert)
        .bind(chain.as_str())
        .bind(change.seq)
        .bind(change.change.as_str())
        .bind(change.outcome.as_str())
}

/// A change, read as [`CHANGE`] lists its columns.
fn change_from<DB: Sql>(row: &DB::Row) -> Result<KeptChange, StoreError> {
    let columns = Columns::<DB>::of(row, "chain change");
    Ok(KeptChange { seq: columns.number(0)?, change: columns.text(1)?, outcome: columns.text(2)? })
}
