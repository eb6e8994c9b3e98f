//! Webhook streams as the store keeps them, and the project's settings.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use w3api_types::Address;

/// A stream as kept: its settings are the API's JSON, which the store keeps and does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredStream {
    /// The stream's identifier.
    pub id: Uuid,
    /// Order of creation, unique; the key pages are cut at.
    pub seq: i64,
    /// The stream's settings as a JSON object text.
    pub settings: String,
    /// `"active"`, `"paused"`, `"error"` or `"terminated"` (not checked by the store).
    pub status: String,
    /// Why the stream has its status, for its owner.
    pub status_message: String,
    /// When it was created (whole milliseconds are kept).
    pub created_at: DateTime<Utc>,
    /// When its settings or status last changed.
    pub updated_at: DateTime<Utc>,
}

/// An active stream with every address it watches, ascending (the same
/// type as the pair: a name for it).
pub type ActiveStream = (StoredStream, Vec<Address>);

/// A stream to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewStream {
    /// Its identifier, unique among streams.
    pub id: Uuid,
    /// Its settings as a JSON object text.
    pub settings: String,
    /// Its status (see [`StoredStream::status`]).
    pub status: String,
    /// Why it has that status.
    pub status_message: String,
    /// When it is created: its `created_at` and `updated_at`.
    pub at: DateTime<Utc>,
}

/// The project's settings: one set, shared by every replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The key webhook bodies are signed with.
    pub secret_key: String,
    /// Where the project's streams run.
    pub region: String,
}

/// One page of a listing, and how many items the whole listing holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing<T> {
    /// The page's items, in the listing's order.
    pub items: Vec<T>,
    /// Items in the whole listing, on every page.
    pub total: u64,
}
