//! The client's retries, as a layer under jsonrpsee's HTTP transport: a
//! request whose every call is a read (no method of the spec's
//! `x-changes-state`) is sent again as [`w3api_retry`] says, on transient
//! statuses (429, 5xx…, `Retry-After` honoured), refused connections and
//! timeouts. A request with a send, a filter poll or a cheat method is sent
//! once: a send that timed out may have been applied.
//!
//! At this level the method names are in the body and the status and
//! headers are at hand, which jsonrpsee's call-level middleware never sees.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use jsonrpsee::core::BoxError;
use jsonrpsee::core::http_helpers::HttpError;
use jsonrpsee::http_client::transport::Error as TransportError;
use jsonrpsee::http_client::{HttpBody, HttpRequest, HttpResponse};
use tower::{Layer, Service, ServiceExt};
use w3api_retry::{Outcome, RetryPolicy};

use crate::method;

/// No answer within the time allowed for one attempt (the last one, when
/// it is returned).
#[derive(Debug, thiserror::Error)]
#[error("no answer within {0:?}")]
pub(crate) struct AttemptTimedOut(pub(crate) Duration);

/// Adds [`Retrying`] under the transport.
#[derive(Clone, Debug)]
pub(crate) struct RetryLayer {
    pub(crate) policy: Arc<RetryPolicy>,
    pub(crate) attempt_timeout: Duration,
}

impl<S> Layer<S> for RetryLayer {
    type Service = Retrying<S>;

    fn layer(&self, inner: S) -> Retrying<S> {
        Retrying { inner, policy: self.policy.clone(), attempt_timeout: self.attempt_timeout }
    }
}

/// The service of [`RetryLayer`].
#[derive(Clone, Debug)]
pub(crate) struct Retrying<S> {
    inner: S,
    policy: Arc<RetryPolicy>,
    attempt_timeout: Duration,
}

impl<S, B> Service<HttpRequest> for Retrying<S>
where
    S: Service<HttpRequest, Response = HttpResponse<B>, Error = TransportError> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
{
    type Response = HttpResponse<B>;
    type Error = TransportError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse<B>, TransportError>> + Send>>;

    fn poll_ready(&mut self, context: &mut Context<'_>) -> Poll<Result<(), TransportError>> {
        self.inner.poll_ready(context)
    }

    fn call(&mut self, request: HttpRequest) -> Self::Future {
        // The clone that was made ready is the one to call (tower's rule).
        let ready = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, ready);
        let (policy, attempt_timeout) = (self.policy.clone(), self.attempt_timeout);
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = body.collect().await.map_err(|e| TransportError::Http(HttpError::Stream(e)))?.to_bytes();
            let resendable = only_reads(&body);
            let mut inner = inner;
            let mut attempt = 1;
            loop {
                let request = HttpRequest::from_parts(parts.clone(), HttpBody::new(Full::new(body.clone())));
                let sent = match tokio::time::timeout(attempt_timeout, inner.ready().await?.call(request)).await {
                    Ok(sent) => sent,
                    Err(_) => Err(TransportError::Http(HttpError::Stream(Box::new(AttemptTimedOut(attempt_timeout))))),
                };
                if !(resendable && policy.allows_after(attempt)) {
                    return sent;
                }
                let Some(delay) = policy.delay(attempt, outcome(&sent)) else { return sent };
                tracing::debug!(attempt, delay_ms = delay.as_millis() as u64, outcome = ?outcome(&sent), "retrying");
                tokio::time::sleep(delay).await;
                attempt += 1;
            }
        })
    }
}

/// How an attempt ended, as the policy weighs it.
fn outcome<B>(sent: &Result<HttpResponse<B>, TransportError>) -> Outcome<'_> {
    match sent {
        Ok(response) => Outcome::Answered(response.status(), response.headers()),
        Err(TransportError::Http(HttpError::Stream(cause))) if unreachable(cause.as_ref()) => Outcome::Unreachable,
        Err(_) => Outcome::Failed,
    }
}

/// Whether `error` says the server was not reached or did not answer: a
/// timed-out attempt, or a connection refused, reset or timed out.
fn unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset, NotConnected, TimedOut};
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<AttemptTimedOut>() {
            return true;
        }
        if let Some(io) = error.downcast_ref::<std::io::Error>()
            && matches!(io.kind(), ConnectionRefused | ConnectionReset | ConnectionAborted | NotConnected | TimedOut)
        {
            return true;
        }
        cause = error.source();
    }
    false
}

/// Whether a request body (one call or a batch) calls only methods of the
/// gateway that do not change state; anything else is sent once.
fn only_reads(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        method: &'a str,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Request<'a> {
        #[serde(borrow)]
        One(Call<'a>),
        #[serde(borrow)]
        Batch(Vec<Call<'a>>),
    }
    let is_read = |call: &Call<'_>| method::ALL.contains(&call.method) && !method::CHANGES_STATE.contains(&call.method);
    match serde_json::from_slice::<Request<'_>>(body) {
        Ok(Request::One(call)) => is_read(&call),
        Ok(Request::Batch(calls)) => calls.iter().all(is_read),
        Err(_) => false,
    }
}

/// Whether `error` (from a jsonrpsee transport) is an attempt that timed out.
pub(crate) fn timed_out(error: &BoxError) -> bool {
    matches!(error.downcast_ref::<TransportError>(), Some(TransportError::Http(HttpError::Stream(cause))) if cause.is::<AttemptTimedOut>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_of_reads_alone_are_resendable() {
        assert!(only_reads(br#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#));
        assert!(only_reads(br#"[{"id":1,"method":"eth_getBalance"},{"id":2,"method":"eth_call"}]"#));
        assert!(!only_reads(br#"{"id":1,"method":"eth_sendRawTransaction","params":["0x00"]}"#));
        assert!(!only_reads(br#"[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"eth_sendRawTransaction"}]"#));
        assert!(!only_reads(br#"{"id":1,"method":"eth_getFilterChanges","params":["0x1"]}"#), "a poll consumes");
        assert!(!only_reads(br#"{"id":1,"method":"evm_mine","params":[]}"#), "a cheat method changes the chain");
        assert!(!only_reads(br#"{"id":1,"method":"eth_unknownMethod"}"#));
        assert!(!only_reads(b"not json"));
    }
}
