//! What can go wrong calling the gateway.

use jsonrpsee::core::ClientError;
use jsonrpsee::http_client::transport::Error as TransportError;
use serde_json::Value;

use crate::ErrorCode;

/// An error from a gateway call. Texts never contain the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RpcError {
    /// The gateway answered with a JSON-RPC error object.
    #[error("JSON-RPC error {code}: {message}")]
    Rpc {
        /// The error code.
        code: i32,
        /// The message.
        message: String,
        /// Extra data the server attached.
        data: Option<Value>,
    },
    /// The gateway refused the request with an HTTP status (401 for an
    /// unknown key, 400 for an unknown chain, 429 when rate limited).
    #[error("the gateway answered HTTP {status}")]
    Http {
        /// The HTTP status.
        status: u16,
    },
    /// No answer within the timeout.
    #[error("no answer within the timeout")]
    Timeout,
    /// The request could not be sent or the answer not received.
    #[error("transport: {0}")]
    Transport(String),
    /// The answer is not a JSON-RPC response of the expected shape.
    #[error("invalid response: {0}")]
    InvalidResponse(String),
    /// The client is misconfigured (chain, key or address), or a batch is empty.
    #[error("{0}")]
    Config(String),
}

impl RpcError {
    /// The spec's error this is, by JSON-RPC code or by HTTP status.
    pub fn kind(&self) -> Option<ErrorCode> {
        match self {
            RpcError::Rpc { code, .. } => ErrorCode::from_code(*code),
            RpcError::Http { status: 401 | 403 } => Some(ErrorCode::Unauthorized),
            RpcError::Http { status: 400 } => Some(ErrorCode::ServerError),
            RpcError::Http { status: 429 } => Some(ErrorCode::RateLimited),
            _ => None,
        }
    }

    pub(crate) fn from_client_error(error: ClientError, redact: &dyn Fn(&str) -> String) -> RpcError {
        match error {
            ClientError::Call(object) => RpcError::Rpc {
                code: object.code(),
                message: redact(object.message()),
                data: object.data().and_then(|raw| serde_json::from_str(raw.get()).ok()),
            },
            ClientError::RequestTimeout => RpcError::Timeout,
            ClientError::ParseError(e) => RpcError::InvalidResponse(redact(&e.to_string())),
            ClientError::InvalidRequestId(e) => RpcError::InvalidResponse(redact(&e.to_string())),
            ClientError::Transport(e) if crate::retry::timed_out(&e) => RpcError::Timeout,
            ClientError::Transport(e) => match e.downcast_ref::<TransportError>() {
                Some(TransportError::Rejected { status_code }) => RpcError::Http { status: *status_code },
                _ => RpcError::Transport(redact(&e.to_string())),
            },
            other => RpcError::Transport(redact(&other.to_string())),
        }
    }
}
