//! The answers of injected faults: an error status in the API's own format
//! (REST `{message}`, or JSON-RPC errors on the gateway), a connection
//! closed before an answer or partway through one, a body that is not JSON.

use std::io;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderValue, StatusCode, header};
use serde_json::Value;
use w3api_rpc::ErrorCode;

use crate::ApiError;

/// The JSON-RPC calls of a gateway request, as far as its body tells.
#[derive(Debug, Default)]
pub(super) struct Calls {
    /// Each call's id (`null` when the body is no JSON-RPC request).
    pub(super) ids: Vec<Value>,
    /// Each call's method.
    pub(super) methods: Vec<String>,
    /// Whether the body is a batch, answered with an array.
    pub(super) batch: bool,
}

impl Calls {
    pub(super) fn read(body: &[u8]) -> Calls {
        let one =
            |call: &Value| (call.get("id").cloned().unwrap_or(Value::Null), call["method"].as_str().map(String::from));
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Array(calls)) => {
                let (ids, methods): (Vec<_>, Vec<_>) = calls.iter().map(one).unzip();
                Calls { ids, methods: methods.into_iter().flatten().collect(), batch: true }
            }
            Ok(call) => {
                let (id, method) = one(&call);
                Calls { ids: vec![id], methods: method.into_iter().collect(), batch: false }
            }
            Err(_) => Calls { ids: vec![Value::Null], methods: Vec::new(), batch: false },
        }
    }
}

/// An error answer with `status` and `message`: the API's `{message}` on
/// REST, a JSON-RPC error for each call of `calls` on the gateway. A 429
/// carries `Retry-After: 1`.
pub(super) fn error(status: StatusCode, message: String, calls: Option<&Calls>) -> Response {
    let mut response = match calls {
        None => ApiError::with_status(status, message).into_response(),
        Some(calls) => crate::rpc::refusal_of_calls(status, rpc_code(status), message, &calls.ids, calls.batch),
    };
    if status == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1));
    }
    response
}

/// The JSON-RPC error code that goes with an HTTP status.
fn rpc_code(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        status if status.is_server_error() => ErrorCode::InternalError,
        _ => ErrorCode::InvalidRequest,
    }
}

/// No answer: the connection is closed before the status line (hyper
/// drops what it has not written when a body fails at once).
pub(super) fn reset() -> Response {
    let failure = io::Error::new(io::ErrorKind::ConnectionReset, "injected fault");
    Response::new(Body::from_stream(futures::stream::once(async { Err::<Bytes, _>(failure) })))
}

/// `answer`'s status and headers, with its full `Content-Length`, then half
/// its body, then the connection closes.
pub(super) async fn truncate(answer: Response) -> Response {
    let (mut parts, body) = answer.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    parts.headers.insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    Response::from_parts(parts, failing_after(bytes.slice(..bytes.len() / 2)))
}

/// `answer`'s status and headers with a body that is not JSON: its first
/// half (or a lone `{` for an empty one).
pub(super) async fn malformed(answer: Response) -> Response {
    let (mut parts, body) = answer.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let broken = if bytes.len() < 2 { Bytes::from_static(b"{") } else { bytes.slice(..bytes.len() / 2) };
    parts.headers.insert(header::CONTENT_LENGTH, HeaderValue::from(broken.len()));
    Response::from_parts(parts, Body::from(broken))
}

/// A body that yields `first`, then fails, which makes the server drop the
/// connection. hyper discards what it has not yet written when a body
/// fails, so after `first` the body waits once: hyper writes while it
/// waits, and the client gets the status, the headers and `first`.
fn failing_after(first: Bytes) -> Body {
    let failure = async {
        tokio::task::yield_now().await;
        Err(io::Error::new(io::ErrorKind::ConnectionReset, "injected fault"))
    };
    Body::from_stream(futures::stream::once(async { Ok(first) }).chain(futures::stream::once(failure)))
}
