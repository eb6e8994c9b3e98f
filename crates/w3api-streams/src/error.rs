//! Why a streams operation failed; the HTTP layer turns each into a status
//! and a body in one place.

use uuid::Uuid;
use w3api_source::SourceError;
use w3api_store::StoreError;

/// A streams operation that could not be done.
#[derive(Debug, thiserror::Error)]
pub enum StreamsError {
    /// No stream has this id.
    #[error("stream {0} not found")]
    StreamNotFound(Uuid),
    /// The stream has no delivery with this id.
    #[error("delivery {id} of stream {stream} not found")]
    DeliveryNotFound {
        /// The stream asked for.
        stream: Uuid,
        /// The delivery asked for.
        id: Uuid,
    },
    /// The request is invalid; one message per problem, each naming its field.
    #[error("invalid request: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// The webhook URL did not answer the test webhook with 2xx.
    #[error("the test webhook to {url} failed: {why}")]
    WebhookRejected {
        /// The stream's webhook URL.
        url: String,
        /// What the receiver did instead (for the log).
        why: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The chain data could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A stored record that does not read back (written by something else).
    #[error("a stored {what} is damaged: {why}")]
    Damaged {
        /// Which kind of record.
        what: &'static str,
        /// What is wrong with it.
        why: String,
    },
}

impl StreamsError {
    /// One invalid field.
    pub(crate) fn invalid(message: impl Into<String>) -> StreamsError {
        StreamsError::Invalid(vec![message.into()])
    }
}
