//! What the server logs, and how it stays cheap.
//!
//! At `info` the server logs nothing per request except failures: a tracing
//! span per request costs about a sixth of the throughput of a fast
//! endpoint, so the request span (id, method, path, and `tower_http`'s
//! request and response events) is at `debug`, and its layer is in place
//! only when `debug` is on at the server's start. Server errors are logged at
//! `error` whatever the level, with the request id the client saw in
//! `x-request-id`. API keys never appear: the RPC path's key segment is
//! redacted (only it: REST paths are logged whole) and headers are not logged.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};

use axum::Json;
use axum::body::Body;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service};
use tower_http::request_id::{MakeRequestId, RequestId};

use w3api_types::params::Operation;

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
        path = %redact(request.method(), request.uri().path()),
    )
}

/// Logs every response with a 5xx status at `error`, with the request's id,
/// method, path and, for a failure of the server's own, its cause; the body
/// of such a failure then gets the id and no cause.
///
/// A layer of its own rather than `axum::middleware::from_fn`, which boxes a
/// future and clones the whole service below it on every request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ServerErrorsLayer;

impl<S> Layer<S> for ServerErrorsLayer {
    type Service = ServerErrors<S>;

    fn layer(&self, inner: S) -> ServerErrors<S> {
        ServerErrors { inner }
    }
}

/// The service of [`ServerErrorsLayer`].
#[derive(Clone, Debug)]
pub(crate) struct ServerErrors<S> {
    inner: S,
}

impl<S, B, ResBody> Service<http::Request<B>> for ServerErrors<S>
where
    S: Service<http::Request<B>, Response = http::Response<ResBody>>,
    ResBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    ResBody::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = ServerErrorsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // Cheap clones (reference counts): the request goes to the inner service.
        let line = RequestLine {
            id: request.extensions().get::<RequestId>().cloned(),
            method: request.method().clone(),
            uri: request.uri().clone(),
        };
        ServerErrorsFuture { inner: self.inner.call(request), line: Some(line) }
    }
}

/// What the log says of a failed request.
#[derive(Debug)]
struct RequestLine {
    id: Option<RequestId>,
    method: http::Method,
    uri: http::Uri,
}

pin_project_lite::pin_project! {
    /// The response future of [`ServerErrors`].
    pub(crate) struct ServerErrorsFuture<F> {
        #[pin]
        inner: F,
        line: Option<RequestLine>,
    }
}

impl<F, E, ResBody> Future for ServerErrorsFuture<F>
where
    F: Future<Output = Result<http::Response<ResBody>, E>>,
    ResBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    ResBody::Error: Into<axum::BoxError>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?.map(Body::new);
        if !response.status().is_server_error() {
            return Poll::Ready(Ok(response));
        }
        let line = this.line.take().expect("a response future completes once");
        Poll::Ready(Ok(log_server_error(response, &line)))
    }
}

fn log_server_error(response: Response, line: &RequestLine) -> Response {
    let status = response.status();
    let id = line.id.as_ref().and_then(|id| id.header_value().to_str().ok()).unwrap_or("-");
    let (method, path) = (&line.method, redact(&line.method, line.uri.path()));
    let Some(FailureCause { cause, public }) = response.extensions().get::<FailureCause>().cloned() else {
        tracing::error!(id, %method, %path, status = status.as_u16(), "server error");
        return response;
    };
    tracing::error!(id, %method, %path, status = status.as_u16(), %cause, "server error");
    // The handler's headers (Retry-After, CORS) stay; the body is written here.
    let mut answer = (status, Json(ApiError::failure_body(public, id))).into_response();
    let (parts, _) = response.into_parts();
    for (name, value) in &parts.headers {
        if name != http::header::CONTENT_TYPE && name != http::header::CONTENT_LENGTH {
            answer.headers_mut().append(name, value.clone());
        }
    }
    answer
}

fn request_id(request: &Request) -> Option<&str> {
    request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok())
}

/// The path as logged: a request for none of the spec's operations whose
/// path has two segments is the RPC route, `/{chain}/{key}`, and its key
/// becomes `<redacted>`; every other path is kept, as it holds no secret.
pub(crate) fn redact(method: &http::Method, path: &str) -> String {
    if Operation::find(method.as_str(), path).is_some() {
        return path.to_string();
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [chain, _key] => format!("/{chain}/<redacted>"),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    #[test]
    fn only_the_rpc_key_is_hidden_in_logs() {
        assert_eq!(redact(&Method::POST, "/eth/secret"), "/eth/<redacted>");
        assert_eq!(redact(&Method::GET, "/eth/secret"), "/eth/<redacted>", "a wrong method does not show the key");
        assert_eq!(redact(&Method::GET, "/streams/evm"), "/streams/evm");
        assert_eq!(redact(&Method::PUT, "/streams/evm"), "/streams/evm");
        assert_eq!(
            redact(&Method::GET, "/stats/0b4c8e52-3c4f-4f6e-9a55-2b8f3c1e7d10"),
            "/stats/0b4c8e52-3c4f-4f6e-9a55-2b8f3c1e7d10"
        );
        assert_eq!(redact(&Method::GET, "/history/logs"), "/history/logs");
        assert_eq!(redact(&Method::GET, "/streams/evm/1234"), "/streams/evm/1234");
        assert_eq!(redact(&Method::GET, "/health"), "/health");
    }
}
