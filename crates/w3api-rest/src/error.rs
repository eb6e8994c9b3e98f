//! What can go wrong calling the REST interface.

use std::fmt;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::BuildError;
use crate::retry::UNPARSED_BODY_HEADER;

/// An error from a REST call. The generated `send()` returns progenitor's
/// error; `?` (or `Error::from`) turns it into this one.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server answered with an error status.
    #[error("{0}")]
    Api(ApiError),
    /// No response arrived: the connection failed, timed out, or broke.
    #[error("no response: {0}")]
    Transport(#[source] reqwest::Error),
    /// A parameter given to a request builder is invalid; nothing was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// A success response whose body does not have the shape the spec gives.
    #[error("the response body does not match the spec: {source}")]
    InvalidResponse {
        /// The body as received.
        body: bytes::Bytes,
        /// Why it did not decode.
        #[source]
        source: serde_json::Error,
    },
    /// A status the spec does not provide for (informational or redirect).
    #[error("unexpected response status {status}")]
    UnexpectedStatus {
        /// The status.
        status: StatusCode,
    },
    /// A next-page cursor equal to the one just used: following it would
    /// return the same page forever.
    #[error("the server returned the cursor it was given; pagination would not end")]
    CursorLoop,
    /// The client could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// An error status, with the server's `Error` body (or the raw body when it
/// was not one).
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers (`Retry-After` among them).
    pub headers: HeaderMap,
    /// The `Error` body, when the body was one.
    pub body: Option<w3api_types::Error>,
    /// The body as received, when it was not an `Error` body.
    pub raw_body: Option<String>,
}

impl ApiError {
    /// The server's messages (one per problem), or the raw body.
    pub fn messages(&self) -> Vec<&str> {
        match (&self.body, &self.raw_body) {
            (Some(body), _) => body.messages().iter().map(String::as_str).collect(),
            (None, Some(raw)) => vec![raw.as_str()],
            (None, None) => Vec::new(),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.status)?;
        let messages = self.messages();
        if !messages.is_empty() {
            write!(f, ": {}", messages.join("; "))?;
        }
        Ok(())
    }
}

impl Error {
    /// The HTTP status, for errors that have one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::UnexpectedStatus { status } => Some(*status),
            _ => None,
        }
    }

    /// The API error, if the server answered with an error status.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(api) => Some(api),
            _ => None,
        }
    }
}

impl From<progenitor_client::Error<w3api_types::Error>> for Error {
    fn from(error: progenitor_client::Error<w3api_types::Error>) -> Self {
        use progenitor_client::Error as Generated;
        match error {
            Generated::ErrorResponse(response) => {
                let status = response.status();
                let headers = response.headers().clone();
                let body = response.into_inner();
                // See crate::retry: an unparsable body arrives as the message of a marked Error.
                if headers.contains_key(UNPARSED_BODY_HEADER) {
                    let raw = body.messages().join("\n");
                    Error::Api(ApiError { status, headers, body: None, raw_body: Some(raw) })
                } else {
                    Error::Api(ApiError { status, headers, body: Some(body), raw_body: None })
                }
            }
            Generated::CommunicationError(e) | Generated::ResponseBodyError(e) => Error::Transport(e),
            Generated::InvalidRequest(message) => Error::InvalidRequest(message),
            Generated::InvalidResponsePayload(body, source) => Error::InvalidResponse { body, source },
            Generated::UnexpectedResponse(response) => Error::UnexpectedStatus { status: response.status() },
            Generated::InvalidUpgrade(e) => Error::Transport(e),
            Generated::Custom(message) => Error::InvalidRequest(message),
        }
    }
}
