//! What the server logs, and how it stays cheap.
//!
//! At `info` the server logs nothing per request except failures: a tracing
//! span per request costs about a sixth of the throughput of a fast
//! endpoint, so the request span (id, method, path, and `tower_http`'s
//! request and response events) is at `debug`. Server errors are logged at
//! `error` whatever the level, with the request id the client saw in
//! `x-request-id`. API keys never appear: the RPC path's key segment is
//! redacted and headers are not logged.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Json;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_http::request_id::{MakeRequestId, RequestId};

use crate::error::{ApiError, FailureCause};
use crate::random;

/// Request ids: a random prefix per server and a sequence number, which is
/// unique without a system call per request.
#[derive(Clone)]
pub(crate) struct SequentialIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl SequentialIds {
    pub(crate) fn new() -> Self {
        SequentialIds { prefix: random::alphanumeric(8).into(), next: Arc::default() }
    }
}

impl MakeRequestId for SequentialIds {
    fn make_request_id<B>(&mut self, _: &http::Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.prefix)).ok().map(RequestId::new)
    }
}

/// The span of a request, at `debug`: its id, method and path.
pub(crate) fn request_span(request: &Request) -> tracing::Span {
    tracing::debug_span!(
        "request",
        id = request_id(request).unwrap_or("-"),
        method = %request.method(),
        path = %redact(request.uri().path()),
    )
}

/// Logs every response with a 5xx status at `error`, with the request's id,
/// method, path and, for a failure of the server's own, its cause; the body
/// of such a failure then gets the id and no cause.
pub(crate) async fn server_errors(request: Request, next: Next) -> Response {
    // Cheap clones (reference counts): the request is consumed by `next`.
    let id = request.extensions().get::<RequestId>().cloned();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = next.run(request).await;
    let status = response.status();
    if !status.is_server_error() {
        return response;
    }
    let id = id.as_ref().and_then(|id| id.header_value().to_str().ok()).unwrap_or("-");
    let path = redact(uri.path());
    let Some(FailureCause(cause)) = response.extensions().get::<FailureCause>().cloned() else {
        tracing::error!(id, %method, %path, status = status.as_u16(), "server error");
        return response;
    };
    tracing::error!(id, %method, %path, status = status.as_u16(), %cause, "server error");
    (status, Json(ApiError::failure_body(status, id))).into_response()
}

fn request_id(request: &Request) -> Option<&str> {
    request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok())
}

/// `/{chain}/{key}` becomes `/{chain}/<redacted>`; other paths are kept.
pub(crate) fn redact(path: &str) -> String {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [chain, _key] => format!("/{chain}/<redacted>"),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_paths_lose_their_key_in_logs() {
        assert_eq!(redact("/eth/secret"), "/eth/<redacted>");
        assert_eq!(redact("/streams/evm/1234"), "/streams/evm/1234");
        assert_eq!(redact("/health"), "/health");
    }
}
