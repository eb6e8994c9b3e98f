//! The REST error type: every failure of a REST route becomes one of these,
//! and this is the one place that turns them into a status and a body.
//!
//! A failure of the server itself (a 500, or a 503 when the data source is
//! down) keeps its cause out of the body: the cause rides in the response's
//! extensions to the logging middleware, which logs it with the request id
//! and writes that id into the body, so that a user's report can be matched
//! with the log.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use w3api_answers::AnswerError;
use w3api_source::SourceError;
use w3api_store::StoreError;
use w3api_types::{Error as ErrorBody, ErrorMessage};

/// An error answer of the REST interface: a status and the spec's `Error` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// One message per problem.
    pub messages: Vec<String>,
    /// The methods a path allows (405 only).
    pub allow: Option<String>,
    /// What went wrong inside the server (for the log only), and what the
    /// client may read of it.
    failure: Option<FailureCause>,
    /// Seconds the client should wait before retrying (`Retry-After`).
    retry_after: Option<u32>,
}

/// The cause of a server-side failure, carried from the handler to the
/// logging middleware in the response's extensions, with what the client
/// may read of it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FailureCause {
    pub cause: String,
    pub public: &'static str,
}

const INTERNAL: &str = "internal error";
const SOURCE_DOWN: &str = "the data source is unavailable; retry later";
const STORE_DOWN: &str = "the database is unavailable; retry later";

impl ApiError {
    fn new(status: StatusCode, messages: Vec<String>) -> Self {
        ApiError { status, messages, allow: None, failure: None, retry_after: None }
    }

    /// 400: a parameter or the body is invalid; one message per problem.
    pub fn bad_request(messages: Vec<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, messages)
    }

    /// 401: the key is missing or unknown.
    pub fn unauthorized(message: &str) -> Self {
        ApiError::new(StatusCode::UNAUTHORIZED, vec![message.to_string()])
    }

    /// Any status with one message (an injected fault's).
    pub(crate) fn with_status(status: StatusCode, message: String) -> Self {
        ApiError::new(status, vec![message])
    }

    /// 404 with a message.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, vec![message.into()])
    }

    /// 405: the path exists, the method does not.
    pub fn method_not_allowed(method: &str, path: &str, allow: Option<String>) -> Self {
        let allowed = allow.as_deref().map(|a| format!("; allowed: {a}")).unwrap_or_default();
        ApiError {
            allow,
            ..ApiError::new(StatusCode::METHOD_NOT_ALLOWED, vec![format!("{method} is not allowed on {path}{allowed}")])
        }
    }

    /// 413: the body is over the limit.
    pub fn payload_too_large(limit: usize) -> Self {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, vec![format!("Request body exceeds {limit} bytes")])
    }

    /// 429: too many things pending. No `Retry-After` is sent: production
    /// documents none, and the spec promises none.
    pub fn too_many(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, vec![message.into()])
    }

    /// 500: the server failed because of `cause`, which is logged; the
    /// client reads "internal error" and the request id.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::failure(StatusCode::INTERNAL_SERVER_ERROR, INTERNAL, cause)
    }

    /// 503: the data source could not answer because of `cause`, which is
    /// logged; the client is told to retry.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        ApiError::failure(StatusCode::SERVICE_UNAVAILABLE, SOURCE_DOWN, cause)
    }

    /// 503 with `Retry-After: 1`: the store's database cannot be reached
    /// because of `cause`, which is logged. The pool reconnects by itself,
    /// so a retry a second later may well succeed.
    pub fn store_unavailable(cause: impl std::fmt::Display) -> Self {
        ApiError { retry_after: Some(1), ..ApiError::failure(StatusCode::SERVICE_UNAVAILABLE, STORE_DOWN, cause) }
    }

    fn failure(status: StatusCode, public: &'static str, cause: impl std::fmt::Display) -> Self {
        let failure = FailureCause { cause: cause.to_string(), public };
        ApiError { failure: Some(failure), ..ApiError::new(status, vec![public.to_string()]) }
    }

    /// The body of a server-side failure: what the client may know, and the
    /// request id to quote.
    pub(crate) fn failure_body(public: &str, request_id: &str) -> ErrorBody {
        ErrorBody { message: ErrorMessage::One(format!("{public} (request id {request_id})")), details: None }
    }

    /// The body as the spec writes it: one message as a string, several as a list.
    pub fn body(&self) -> ErrorBody {
        let message = match self.messages.as_slice() {
            [one] => ErrorMessage::One(one.clone()),
            many => ErrorMessage::Many(many.to_vec()),
        };
        ErrorBody { message, details: None }
    }

    /// Prefixes every message with the name of what it is about.
    pub fn about(mut self, name: &str) -> Self {
        for message in &mut self.messages {
            *message = format!("{name}: {message}");
        }
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = match self.failure {
            Some(failure) => {
                // The logging middleware writes the body, with the request id.
                let mut response = self.status.into_response();
                response.extensions_mut().insert(failure);
                response
            }
            None => (self.status, Json(self.body())).into_response(),
        };
        if let Some(allow) = self.allow.as_deref().and_then(|a| HeaderValue::from_str(a).ok()) {
            response.headers_mut().insert(header::ALLOW, allow);
        }
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<SourceError> for ApiError {
    fn from(error: SourceError) -> Self {
        match error {
            SourceError::ChainNotServed(_) => ApiError::bad_request(vec![format!("chain: {error}")]),
            SourceError::BlockOutOfRange { .. } => ApiError::bad_request(vec![format!("to_block: {error}")]),
            // An exchange the server does not know has no pair to price
            // from: production cannot know every name either, and answers 404.
            SourceError::NoPrice { .. }
            | SourceError::UnknownExchange { .. }
            | SourceError::NoBlockAt { .. }
            | SourceError::NoNft { .. }
            | SourceError::NoTransaction(_)
            | SourceError::NoBlock(_) => ApiError::not_found(error.to_string()),
            // Only JSON-RPC calls name blocks by hash or read logs.
            // Only JSON-RPC calls change chains, too.
            SourceError::UnknownBlockHash(_)
            | SourceError::TooManyLogs { .. }
            | SourceError::InvalidChange(_)
            | SourceError::NoChanges(_)
            | SourceError::InvalidRequest(_)
            | SourceError::TransactionRefused(_)
            | SourceError::Reverted { .. }
            | SourceError::Halted(_)
            | SourceError::SimulationRefused { .. }
            | SourceError::NotExecuted => ApiError::bad_request(vec![error.to_string()]),
            // A REST answer that needs what the node lacks cannot be given by this server.
            SourceError::NodeLacks(_) => ApiError::unavailable(error),
            // Positions come from our own signed cursors, so a source that
            // cannot read one has a bug; the client cannot fix it.
            SourceError::BadPosition => ApiError::internal(error),
            // Only JSON-RPC calls are passed on to a node; a REST answer
            // the node refused a part of could not be given.
            SourceError::Unavailable(_)
            | SourceError::NodeRefused { .. }
            | SourceError::Interrupted(_)
            | SourceError::Untraced(_) => ApiError::unavailable(error),
            // Only JSON-RPC calls run the EVM; the answer is the gateway's
            // (a 429 with `Retry-After`), were a REST answer ever to need one.
            SourceError::Busy { .. } => ApiError { retry_after: Some(1), ..ApiError::too_many(error.to_string()) },
            SourceError::Store { retry: true, .. } => ApiError::store_unavailable(error),
            SourceError::Store { retry: false, .. } => ApiError::internal(error),
        }
    }
}

impl From<AnswerError> for ApiError {
    fn from(error: AnswerError) -> Self {
        match error {
            AnswerError::Invalid(messages) => ApiError::bad_request(messages),
            AnswerError::Source(error) => error.into(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => ApiError::store_unavailable(error),
            StoreError::Full(_) => {
                ApiError::too_many("too many pending sign-in challenges; retry once some have expired")
            }
            StoreError::DuplicateNonce(_)
            | StoreError::Open { .. }
            | StoreError::InUse(_)
            | StoreError::Failed(_)
            | StoreError::Damaged { .. }
            | StoreError::IndexOutOfOrder { .. }
            | StoreError::ChangeOutOfOrder { .. }
            | StoreError::ChainOriginDiffers { .. } => ApiError::internal(error),
        }
    }
}
