//! Sending a request: retries for GETs, and error bodies made decodable.
//!
//! The generated clients hand every request to `ClientHooks::exec`, which
//! this module implements for them. It retries GET requests as
//! [`w3api_retry`] says (transient statuses, refused connections and
//! timeouts, `Retry-After` honoured). Other methods are sent once: a POST
//! that timed out may have been applied.
//!
//! It also makes sure an error response reaches the generated code with a
//! body that decodes as the spec's `Error`: a body that does not (an HTML
//! page from a proxy) is replaced by an `Error` carrying the text, marked
//! with [`UNPARSED_BODY_HEADER`], so that [`crate::Error`] can report the
//! status and the raw body instead of losing the status to a decode error.

use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};
use reqwest::header::HeaderValue;
use reqwest::{Method, Request, Response};
use w3api_retry::{Outcome, RetryPolicy};

use crate::ClientState;
use crate::generated::{auth, data, streams};

/// Marks an error response whose body was not the spec's `Error`; its
/// message holds the raw body.
pub(crate) const UNPARSED_BODY_HEADER: &str = "x-w3api-unparsed-body";

/// How an attempt ended, as the policy weighs it.
fn outcome(sent: &reqwest::Result<Response>) -> Outcome<'_> {
    match sent {
        Ok(response) => Outcome::Answered(response.status(), response.headers()),
        Err(error) if error.is_connect() || error.is_timeout() => Outcome::Unreachable,
        Err(_) => Outcome::Failed,
    }
}

/// Sends `request`, retrying as the policy allows.
async fn execute(
    client: &reqwest::Client,
    policy: &RetryPolicy,
    request: Request,
    info: &OperationInfo,
) -> reqwest::Result<Response> {
    let retries_allowed = request.method() == Method::GET;
    let mut attempt = 1;
    loop {
        let retry_copy = (retries_allowed && policy.allows_after(attempt)).then(|| request.try_clone()).flatten();
        let Some(copy) = retry_copy else {
            return decodable_error_body(client.execute(request).await).await;
        };
        let outcome = client.execute(copy).await;
        let Some(delay) = policy.delay(attempt, self::outcome(&outcome)) else {
            return decodable_error_body(outcome).await;
        };
        tracing::debug!(
            operation = info.operation_id,
            attempt,
            status = outcome.as_ref().ok().map(|r| r.status().as_u16()),
            error = outcome.as_ref().err().map(ToString::to_string),
            delay_ms = delay.as_millis() as u64,
            "retrying"
        );
        tokio::time::sleep(delay).await;
        attempt += 1;
    }
}

/// Passes success responses through; buffers error responses and replaces a
/// body that is not the spec's `Error` (see the module docs).
async fn decodable_error_body(outcome: reqwest::Result<Response>) -> reqwest::Result<Response> {
    let response = outcome?;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(response);
    }
    let version = response.version();
    let mut headers = response.headers().clone();
    let body = response.bytes().await?;
    let body = if serde_json::from_slice::<w3api_types::Error>(&body).is_ok() {
        body
    } else {
        headers.insert(UNPARSED_BODY_HEADER, HeaderValue::from_static("1"));
        headers.insert(reqwest::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let raw = String::from_utf8_lossy(&body).into_owned();
        serde_json::to_vec(&w3api_types::Error::new(raw)).expect("an error body serializes").into()
    };
    let mut rebuilt = http::Response::new(body);
    *rebuilt.status_mut() = status;
    *rebuilt.version_mut() = version;
    *rebuilt.headers_mut() = headers;
    Ok(Response::from(rebuilt))
}

macro_rules! retrying_clients {
    ($($group:ident),*) => {$(
        impl ClientHooks<ClientState> for $group::Client {
            async fn exec(&self, request: Request, info: &OperationInfo) -> reqwest::Result<Response> {
                execute(self.client(), &self.inner().retry, request, info).await
            }
        }
    )*};
}

retrying_clients!(auth, data, streams);
