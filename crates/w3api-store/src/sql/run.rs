//! Running statements on either engine: what the store's SQL needs of a
//! database is named once here, so that the statements elsewhere are
//! generic over [`Sql`] alone.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use sqlx::database::HasStatementCache;
use sqlx::pool::PoolConnection;
use sqlx::query::Query;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Transaction, Type};
use uuid::Uuid;

use w3api_types::Address;
use w3api_types::rpc::Hash32;

use crate::StoreError;
use crate::engine::Engine;
use crate::sql::SqlStore;
use crate::sql::columns::Columns;

/// Most values one statement binds; longer batches take several. Both
/// engines take far more (SQLite 32,766, PostgreSQL 65,535), but SQLite
/// finds each numbered parameter by a walk of the list of them, so that a
/// statement's cost grows with the square of its values: 30,000 took
/// seconds, a thousand takes a few milliseconds.
pub(crate) const MOST_VALUES: usize = 1_000;

/// A value bound to a statement's parameter. Times are Unix milliseconds,
/// ids their hyphenated lowercase text, addresses their 20 bytes, hashes
/// their 32.
pub(crate) enum Value {
    /// An integer, or NULL.
    Int(Option<i64>),
    /// A text, or NULL.
    Text(Option<String>),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A boolean.
    Flag(bool),
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Int(Some(value))
    }
}

/// Counts and block numbers beyond `i64::MAX`, which none reaches, are kept as `i64::MAX`.
impl From<u64> for Value {
    fn from(value: u64) -> Value {
        Value::Int(Some(i64::try_from(value).unwrap_or(i64::MAX)))
    }
}

impl From<usize> for Value {
    fn from(value: usize) -> Value {
        Value::Int(Some(i64::try_from(value).unwrap_or(i64::MAX)))
    }
}

impl From<Option<u16>> for Value {
    fn from(value: Option<u16>) -> Value {
        Value::Int(value.map(i64::from))
    }
}

impl From<DateTime<Utc>> for Value {
    fn from(value: DateTime<Utc>) -> Value {
        Value::Int(Some(value.timestamp_millis()))
    }
}

impl From<Option<DateTime<Utc>>> for Value {
    fn from(value: Option<DateTime<Utc>>) -> Value {
        Value::Int(value.map(|at| at.timestamp_millis()))
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Value {
        Value::Text(Some(value.to_owned()))
    }
}

impl From<Option<&str>> for Value {
    fn from(value: Option<&str>) -> Value {
        Value::Text(value.map(str::to_owned))
    }
}

impl From<Uuid> for Value {
    fn from(value: Uuid) -> Value {
        Value::Text(Some(value.hyphenated().to_string()))
    }
}

impl From<&[u8]> for Value {
    fn from(value: &[u8]) -> Value {
        Value::Bytes(value.to_vec())
    }
}

impl From<Address> for Value {
    fn from(value: Address) -> Value {
        Value::Bytes(value.to_vec())
    }
}

impl From<Hash32> for Value {
    fn from(value: Hash32) -> Value {
        Value::Bytes(value.to_vec())
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Value {
        Value::Flag(value)
    }
}

/// One SQL statement and the values of its parameters (`$1`, `$2`, …).
pub(crate) struct Statement {
    sql: Cow<'static, str>,
    values: Vec<Value>,
    /// Whether each connection prepares it once and keeps it.
    kept: bool,
}

impl Statement {
    /// A statement of fixed text, prepared once per connection.
    pub(crate) fn new(sql: impl Into<Cow<'static, str>>) -> Statement {
        Statement { sql: sql.into(), values: Vec::new(), kept: true }
    }

    /// A statement whose text varies with the size of its batch, prepared
    /// for this one run: kept, each size would take a place in the cache.
    pub(crate) fn batch(sql: String) -> Statement {
        Statement { kept: false, ..Statement::new(sql) }
    }

    /// Binds the next parameter.
    pub(crate) fn bind(mut self, value: impl Into<Value>) -> Statement {
        self.values.push(value.into());
        self
    }

    /// Binds each of `values` to the next parameters, in order.
    pub(crate) fn bind_each<V: Into<Value>>(mut self, values: impl IntoIterator<Item = V>) -> Statement {
        self.values.extend(values.into_iter().map(Into::into));
        self
    }
}

/// `rows` tuples of `width` parameters each, numbered from `$first`:
/// `($1, $2), ($3, $4)`.
pub(crate) fn tuples(rows: usize, width: usize, first: usize) -> String {
    let tuple = |row: usize| {
        let numbers: Vec<String> = (0..width).map(|column| format!("${}", first + row * width + column)).collect();
        format!("({})", numbers.join(", "))
    };
    (0..rows).map(tuple).collect::<Vec<_>>().join(", ")
}

/// What the store's statements need of a database; both engines have it.
pub(crate) trait Sql: Engine {
    /// `statement` as the driver runs it.
    fn query(statement: Statement) -> Query<'static, Self, Self::Arguments>;

    /// Runs `statement` on `connection`: the rows it changed.
    fn execute(connection: &mut Self::Connection, statement: Statement) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// Runs `statement` on `connection`: the rows it returned.
    fn fetch(
        connection: &mut Self::Connection,
        statement: Statement,
    ) -> BoxFuture<'_, Result<Vec<Self::Row>, StoreError>>;

    /// The integer in `column` of `row`, or `None` for NULL.
    fn int(row: &Self::Row, column: usize) -> Result<Option<i64>, sqlx::Error>;

    /// The text in `column` of `row`, or `None` for NULL.
    fn text(row: &Self::Row, column: usize) -> Result<Option<String>, sqlx::Error>;

    /// The bytes in `column` of `row`, or `None` for NULL.
    fn bytes(row: &Self::Row, column: usize) -> Result<Option<Vec<u8>>, sqlx::Error>;

    /// The boolean in `column` of `row`, or `None` for NULL.
    fn flag(row: &Self::Row, column: usize) -> Result<Option<bool>, sqlx::Error>;
}

impl<DB> Sql for DB
where
    DB: Engine + HasStatementCache,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'r> String: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    for<'r> Option<String>: Encode<'r, DB>,
    for<'r> i64: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    for<'r> Option<i64>: Encode<'r, DB>,
    for<'r> Vec<u8>: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    for<'r> bool: Encode<'r, DB> + Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    fn query(statement: Statement) -> Query<'static, DB, DB::Arguments> {
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement.sql)).persistent(statement.kept);
        for value in statement.values {
            query = match value {
                Value::Int(value) => query.bind(value),
                Value::Text(value) => query.bind(value),
                Value::Bytes(value) => query.bind(value),
                Value::Flag(value) => query.bind(value),
            };
        }
        query
    }

    fn execute(connection: &mut DB::Connection, statement: Statement) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let result = DB::query(statement).execute(connection).await.map_err(StoreError::from_driver)?;
            Ok(DB::rows_affected(&result))
        })
    }

    fn fetch(connection: &mut DB::Connection, statement: Statement) -> BoxFuture<'_, Result<Vec<DB::Row>, StoreError>> {
        Box::pin(async move { DB::query(statement).fetch_all(connection).await.map_err(StoreError::from_driver) })
    }

    fn int(row: &DB::Row, column: usize) -> Result<Option<i64>, sqlx::Error> {
        row.try_get(column)
    }

    fn text(row: &DB::Row, column: usize) -> Result<Option<String>, sqlx::Error> {
        row.try_get(column)
    }

    fn bytes(row: &DB::Row, column: usize) -> Result<Option<Vec<u8>>, sqlx::Error> {
        row.try_get(column)
    }

    fn flag(row: &DB::Row, column: usize) -> Result<Option<bool>, sqlx::Error> {
        row.try_get(column)
    }
}

/// Running statements: the helpers that need [`Sql`] name it one by one,
/// as the store is public and the trait is not.
impl<DB: Engine> SqlStore<DB> {
    /// Runs `statement` on its own: the rows it changed.
    pub(crate) async fn execute(&self, statement: Statement) -> Result<u64, StoreError>
    where
        DB: Sql,
    {
        DB::execute(&mut *self.connection().await?, statement).await
    }

    /// Runs `statement` on its own: the rows it returned.
    pub(crate) async fn fetch(&self, statement: Statement) -> Result<Vec<DB::Row>, StoreError>
    where
        DB: Sql,
    {
        DB::fetch(&mut *self.connection().await?, statement).await
    }

    /// Runs `statement` on its own: the first row it returned, if any.
    pub(crate) async fn fetch_first(&self, statement: Statement) -> Result<Option<DB::Row>, StoreError>
    where
        DB: Sql,
    {
        Ok(self.fetch(statement).await?.into_iter().next())
    }

    /// Runs `statement` on its own: the count in the one row it returns.
    pub(crate) async fn count(&self, statement: Statement) -> Result<u64, StoreError>
    where
        DB: Sql,
    {
        let row = self.fetch_first(statement).await?;
        let row = row.ok_or_else(|| StoreError::Damaged { what: "count", why: "no row".into() })?;
        Columns::<DB>::of(&row, "count").number(0)
    }

    /// Runs the statement `statement` makes of each batch of `items`, at
    /// most `size` long, in one transaction: the rows they changed.
    pub(crate) async fn in_batches<T: Sync>(
        &self,
        items: &[T],
        size: usize,
        statement: impl Fn(&[T]) -> Statement + Sync,
    ) -> Result<u64, StoreError>
    where
        DB: Sql,
    {
        if items.is_empty() {
            return Ok(0);
        }
        let mut tx = self.begin().await?;
        let changed = tx.execute_batches(items, size, statement).await?;
        tx.commit().await?;
        Ok(changed)
    }

    /// Starts a transaction.
    pub(crate) async fn begin(&self) -> Result<Tx<DB>, StoreError> {
        self.pool.begin().await.map(Tx).map_err(StoreError::from_driver)
    }

    async fn connection(&self) -> Result<PoolConnection<DB>, StoreError> {
        self.pool.acquire().await.map_err(StoreError::from_driver)
    }
}

/// A transaction: its statements take effect together when it commits,
/// and not at all if it is dropped before.
pub(crate) struct Tx<DB: Engine>(pub(crate) Transaction<'static, DB>);

impl<DB: Sql> Tx<DB> {
    /// Runs `statement` in the transaction: the rows it changed.
    pub(crate) async fn execute(&mut self, statement: Statement) -> Result<u64, StoreError> {
        DB::execute(&mut self.0, statement).await
    }

    /// Runs the statement `statement` makes of each batch of `items`, at
    /// most `size` long, in the transaction: the rows they changed.
    pub(crate) async fn execute_batches<T: Sync>(
        &mut self,
        items: &[T],
        size: usize,
        statement: impl Fn(&[T]) -> Statement + Sync,
    ) -> Result<u64, StoreError> {
        let mut changed = 0;
        for batch in items.chunks(size) {
            changed += self.execute(statement(batch)).await?;
        }
        Ok(changed)
    }

    /// Runs `statement` in the transaction: the rows it returned.
    pub(crate) async fn fetch(&mut self, statement: Statement) -> Result<Vec<DB::Row>, StoreError> {
        DB::fetch(&mut self.0, statement).await
    }

    /// The transaction's connection, for statements run through [`Sql`].
    pub(crate) fn connection(&mut self) -> &mut DB::Connection {
        &mut self.0
    }

    /// Makes the transaction's changes take effect.
    pub(crate) async fn commit(self) -> Result<(), StoreError> {
        self.0.commit().await.map_err(StoreError::from_driver)
    }
}
