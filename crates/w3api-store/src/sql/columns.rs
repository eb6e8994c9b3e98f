//! Reading a returned row column by column: a column that does not
//! decode as its record needs is damage to the record.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use w3api_types::Address;
use w3api_types::rpc::Hash32;

use crate::StoreError;
use crate::sql::run::Sql;
use crate::sql::time_from;

/// A row returned for a record of kind `what`.
pub(crate) struct Columns<'r, DB: Sql> {
    row: &'r DB::Row,
    what: &'static str,
}

/// How a column of some type is read, or `None` for NULL.
type Read<DB, T> = fn(&<DB as sqlx::Database>::Row, usize) -> Result<Option<T>, sqlx::Error>;

impl<'r, DB: Sql> Columns<'r, DB> {
    /// The columns of `row`, a record of kind `what`.
    pub(crate) fn of(row: &'r DB::Row, what: &'static str) -> Columns<'r, DB> {
        Columns { row, what }
    }

    fn damaged(&self, column: usize, why: impl std::fmt::Display) -> StoreError {
        StoreError::Damaged { what: self.what, why: format!("column {column}: {why}") }
    }

    fn maybe<T>(&self, column: usize, read: Read<DB, T>) -> Result<Option<T>, StoreError> {
        read(self.row, column).map_err(|error| self.damaged(column, error))
    }

    fn present<T>(&self, column: usize, read: Read<DB, T>) -> Result<T, StoreError> {
        self.maybe(column, read)?.ok_or_else(|| self.damaged(column, "NULL"))
    }

    fn fit<T: TryFrom<i64>>(&self, column: usize, value: i64) -> Result<T, StoreError> {
        T::try_from(value).map_err(|_| self.damaged(column, format_args!("{value} is out of range")))
    }

    /// An integer.
    pub(crate) fn int(&self, column: usize) -> Result<i64, StoreError> {
        self.present(column, DB::int)
    }

    /// An integer that fits `T` (a count, a block number, a status code).
    pub(crate) fn number<T: TryFrom<i64>>(&self, column: usize) -> Result<T, StoreError> {
        self.fit(column, self.int(column)?)
    }

    /// An integer that fits `T`, or NULL.
    pub(crate) fn maybe_number<T: TryFrom<i64>>(&self, column: usize) -> Result<Option<T>, StoreError> {
        self.maybe(column, DB::int)?.map(|value| self.fit(column, value)).transpose()
    }

    /// A text.
    pub(crate) fn text(&self, column: usize) -> Result<String, StoreError> {
        self.present(column, DB::text)
    }

    /// A text, or NULL.
    pub(crate) fn maybe_text(&self, column: usize) -> Result<Option<String>, StoreError> {
        self.maybe(column, DB::text)
    }

    /// Bytes of any length.
    pub(crate) fn bytes(&self, column: usize) -> Result<Vec<u8>, StoreError> {
        self.present(column, DB::bytes)
    }

    /// A boolean.
    pub(crate) fn flag(&self, column: usize) -> Result<bool, StoreError> {
        self.present(column, DB::flag)
    }

    /// A time, kept in Unix milliseconds.
    pub(crate) fn time(&self, column: usize) -> Result<DateTime<Utc>, StoreError> {
        time_from(self.int(column)?, self.what)
    }

    /// A time, or NULL.
    pub(crate) fn maybe_time(&self, column: usize) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.maybe(column, DB::int)?.map(|millis| time_from(millis, self.what)).transpose()
    }

    /// An id, kept as its text.
    pub(crate) fn uuid(&self, column: usize) -> Result<Uuid, StoreError> {
        let text = self.text(column)?;
        Uuid::parse_str(&text).map_err(|error| self.damaged(column, format_args!("id {text:?}: {error}")))
    }

    /// Exactly `N` bytes.
    pub(crate) fn fixed<const N: usize>(&self, column: usize) -> Result<[u8; N], StoreError> {
        let bytes = self.present(column, DB::bytes)?;
        <[u8; N]>::try_from(bytes.as_slice())
            .map_err(|_| self.damaged(column, format_args!("{} bytes, not {N}", bytes.len())))
    }

    /// An address, kept as its 20 bytes.
    pub(crate) fn address(&self, column: usize) -> Result<Address, StoreError> {
        self.fixed(column).map(Address::from)
    }

    /// A hash, kept as its 32 bytes.
    pub(crate) fn hash(&self, column: usize) -> Result<Hash32, StoreError> {
        self.fixed(column).map(Hash32::from)
    }
}
