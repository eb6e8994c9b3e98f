//! Webhook deliveries: the queue replicas share, the log of their
//! attempts, and statistics of both.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Counts of what a delivery's payload carries, for statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Records {
    /// Event logs.
    pub logs: u64,
    /// Transactions.
    pub txs: u64,
    /// Internal transactions.
    pub txs_internal: u64,
}

/// A delivery to enqueue: one webhook body for one stream and one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewDelivery {
    /// Its identifier, unique among deliveries.
    pub id: Uuid,
    /// The stream it is for.
    pub stream_id: Uuid,
    /// The block's chain, as `"0x1"`.
    pub chain_id: String,
    /// The block's number.
    pub block_number: u64,
    /// The block's hash, as `"0x…"`.
    pub block_hash: String,
    /// Whether the block is confirmed; a stream gets each block once
    /// unconfirmed and once confirmed.
    pub confirmed: bool,
    /// The webhook body's JSON text.
    pub payload: String,
    /// What the payload carries.
    pub records: Records,
    /// The hashes of the transactions it carries (in its transactions,
    /// logs and internal transactions), lowercase `0x…`, each once.
    pub transactions: Vec<String>,
    /// Where it is posted.
    pub webhook_url: String,
    /// The stream's tag, sent with it.
    pub tag: String,
    /// When it was made; it is due then (whole milliseconds are kept).
    pub created_at: DateTime<Utc>,
}

/// Which deliveries a page of history holds: each condition given must
/// hold (for a list, one of its values).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    /// Deliveries of this stream.
    pub stream: Option<Uuid>,
    /// Deliveries that carry this transaction (lowercase `0x…`).
    pub transaction: Option<String>,
    /// Deliveries of blocks of these chains (`"0x1"`).
    pub chain_ids: Vec<String>,
    /// Deliveries of blocks with these numbers.
    pub block_numbers: Vec<u64>,
    /// Made at this time or later (for attempts: attempted).
    pub from: Option<DateTime<Utc>>,
    /// Made at this time or earlier (for attempts: attempted).
    pub to: Option<DateTime<Utc>>,
}

/// Which attempts a page of the log holds: those of the deliveries
/// `deliveries` selects (its times are the attempts'), with this outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttemptFilter {
    /// Conditions on the attempt's delivery, and on when it was made.
    pub deliveries: DeliveryFilter,
    /// Attempts that delivered (`true`) or failed (`false`).
    pub delivered: Option<bool>,
}

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryState {
    /// To be posted (again) when due.
    Pending,
    /// Its last attempt delivered it.
    Delivered,
    /// Given up on.
    Failed,
}

impl DeliveryState {
    /// The state as stored.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
        }
    }

    /// The state stored as `text`, if it is one.
    pub(crate) fn from_stored(text: &str) -> Option<DeliveryState> {
        [DeliveryState::Pending, DeliveryState::Delivered, DeliveryState::Failed]
            .into_iter()
            .find(|state| state.as_str() == text)
    }
}

/// A delivery as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Order of enqueueing, unique; the key pages are cut at.
    pub seq: i64,
    /// Its identifier.
    pub id: Uuid,
    /// The stream it is for.
    pub stream_id: Uuid,
    /// The block's chain, as `"0x1"`.
    pub chain_id: String,
    /// The block's number.
    pub block_number: u64,
    /// The block's hash.
    pub block_hash: String,
    /// Whether the block is confirmed.
    pub confirmed: bool,
    /// The webhook body's JSON text.
    pub payload: String,
    /// What the payload carries.
    pub records: Records,
    /// Where it is posted.
    pub webhook_url: String,
    /// The stream's tag.
    pub tag: String,
    /// When it was enqueued.
    pub created_at: DateTime<Utc>,
    /// Where it stands.
    pub state: DeliveryState,
    /// Attempts made so far.
    pub attempts: u32,
    /// When it is next due (pending) or was last attempted.
    pub due_at: DateTime<Utc>,
}

/// A delivery with its attempts, oldest first (the same type as the pair:
/// a name for it).
pub type DeliveryHistory = (Delivery, Vec<AttemptRecord>);

/// What an attempt leaves its delivery in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// Delivered: done.
    Delivered,
    /// Not delivered; pending again, due at this time.
    RetryAt(DateTime<Utc>),
    /// Not delivered, and given up on.
    Failed,
}

/// One POST of a delivery, as the worker that claimed it reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The delivery posted.
    pub delivery_id: Uuid,
    /// The worker that claimed it (see [`crate::Store::claim`]).
    pub worker: String,
    /// When the POST was sent.
    pub at: DateTime<Utc>,
    /// How long the answer took, or the wait for it.
    pub latency_ms: u64,
    /// The answer's HTTP status; `None`: no answer (refused, timed out).
    pub status_code: Option<u16>,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// What the attempt leaves the delivery in.
    pub outcome: AttemptOutcome,
}

/// An attempt as logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptRecord {
    /// Order of recording, unique; the key pages are cut at.
    pub seq: i64,
    /// The delivery posted.
    pub delivery_id: Uuid,
    /// Its stream.
    pub stream_id: Uuid,
    /// Its block's chain.
    pub chain_id: String,
    /// Its block's number.
    pub block_number: u64,
    /// Where it was posted.
    pub webhook_url: String,
    /// Its stream's tag.
    pub tag: String,
    /// 1 for the first attempt of the delivery (counting replays on).
    pub number: u32,
    /// When the POST was sent.
    pub at: DateTime<Utc>,
    /// How long the answer took, or the wait for it.
    pub latency_ms: u64,
    /// The answer's HTTP status; `None`: no answer.
    pub status_code: Option<u16>,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// Whether it delivered.
    pub delivered: bool,
}

/// What a stream's deliveries came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// The stream.
    pub stream_id: Uuid,
    /// Attempts that delivered.
    pub delivered: u64,
    /// Attempts that did not.
    pub failed: u64,
    /// Logs in its deliveries delivered at least once.
    pub logs: u64,
    /// Transactions in its deliveries delivered at least once.
    pub txs: u64,
    /// Internal transactions in its deliveries delivered at least once.
    pub txs_internal: u64,
}
