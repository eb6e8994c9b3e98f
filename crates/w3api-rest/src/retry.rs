//! Sending a request: retries for GETs, and error bodies made decodable.
//!
//! The generated clients hand every request to `ClientHooks::exec`, which
//! this module implements for them. It retries GET requests that failed in a
//! way that may pass (408, 429, 500, 502, 503, 504, a refused connection, a
//! timeout) with exponential backoff and jitter, waiting at least as long as
//! `Retry-After` asks. Other methods are sent once: a POST that timed out may
//! have been applied.
//!
//! It also makes sure an error response reaches the generated code with a
//! body that decodes as the spec's `Error`: a body that does not (an HTML
//! page from a proxy) is replaced by an `Error` carrying the text, marked
//! with [`UNPARSED_BODY_HEADER`], so that [`crate::Error`] can report the
//! status and the raw body instead of losing the status to a decode error.

use std::time::{Duration, SystemTime};

use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};
use reqwest::header::{HeaderValue, RETRY_AFTER};
use reqwest::{Method, Request, Response, StatusCode};

use crate::ClientState;
use crate::generated::{auth, data, streams};

/// Marks an error response whose body was not the spec's `Error`; its
/// message holds the raw body.
pub(crate) const UNPARSED_BODY_HEADER: &str = "x-w3api-unparsed-body";

/// How failed GET requests are retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first one included; 1 disables retries.
    pub max_attempts: u32,
    /// Delay before the first retry; each further retry doubles it.
    pub initial_backoff: Duration,
    /// Longest delay between attempts computed by backoff.
    pub max_backoff: Duration,
    /// Longest `Retry-After` honoured; a server asking for more gets its
    /// error returned instead of a long wait.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    /// Four attempts, 250 ms doubling up to 8 s, `Retry-After` up to 60 s.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Every request is sent once.
    pub fn none() -> Self {
        RetryPolicy { max_attempts: 1, ..RetryPolicy::default() }
    }

    /// The delay before retry number `retry` (1 for the first), with jitter:
    /// a random point in the upper half of the exponential delay, so that
    /// clients failing together do not retry together.
    fn backoff(&self, retry: u32) -> Duration {
        let exponential = self.initial_backoff.saturating_mul(2u32.saturating_pow(retry.saturating_sub(1)));
        let capped = exponential.min(self.max_backoff);
        capped / 2 + capped.mul_f64(fastrand::f64() / 2.0)
    }
}

/// Statuses that say "try again".
fn is_retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 429 | 500 | 502 | 503 | 504)
}

/// What `Retry-After` asks for: seconds, or an HTTP date.
fn retry_after(response: &Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or_default())
}

/// How long to wait before retrying `outcome`, or `None` to return it.
fn retry_delay(policy: &RetryPolicy, retry: u32, outcome: &reqwest::Result<Response>) -> Option<Duration> {
    let backoff = policy.backoff(retry);
    match outcome {
        Ok(response) if is_retryable_status(response.status()) => match retry_after(response) {
            Some(asked) if asked > policy.max_retry_after => None,
            Some(asked) => Some(asked.max(backoff)),
            None => Some(backoff),
        },
        Ok(_) => None,
        Err(error) if error.is_connect() || error.is_timeout() => Some(backoff),
        Err(_) => None,
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
        let retry_copy = (retries_allowed && attempt < policy.max_attempts).then(|| request.try_clone()).flatten();
        let Some(copy) = retry_copy else {
            return decodable_error_body(client.execute(request).await).await;
        };
        let outcome = client.execute(copy).await;
        let Some(delay) = retry_delay(policy, attempt, &outcome) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let policy = RetryPolicy { initial_backoff: Duration::from_millis(100), ..RetryPolicy::default() };
        for retry in 1..=3u32 {
            let full = Duration::from_millis(100 * 2u64.pow(retry - 1));
            for _ in 0..50 {
                let delay = policy.backoff(retry);
                assert!(delay >= full / 2 && delay <= full, "retry {retry}: {delay:?}");
            }
        }
        assert!(policy.backoff(30) <= policy.max_backoff);
    }

    fn response(status: u16, retry_after: Option<&str>) -> Response {
        let mut response = http::Response::builder().status(status);
        if let Some(value) = retry_after {
            response = response.header(RETRY_AFTER, value);
        }
        Response::from(response.body(bytes::Bytes::new()).unwrap())
    }

    #[test]
    fn retry_after_is_honoured_within_limits() {
        let policy = RetryPolicy::default();
        let delay = retry_delay(&policy, 1, &Ok(response(429, Some("3")))).unwrap();
        assert!(delay >= Duration::from_secs(3));
        assert_eq!(retry_delay(&policy, 1, &Ok(response(503, Some("3600")))), None, "too long: give up");
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(5));
        let delay = retry_delay(&policy, 1, &Ok(response(503, Some(&date)))).unwrap();
        assert!(delay >= Duration::from_secs(3) && delay <= Duration::from_secs(5), "{delay:?}");
    }

    #[test]
    fn only_transient_statuses_are_retried() {
        let policy = RetryPolicy::default();
        for status in [408, 429, 500, 502, 503, 504] {
            assert!(retry_delay(&policy, 1, &Ok(response(status, None))).is_some(), "{status}");
        }
        for status in [200, 201, 400, 401, 404, 413, 422, 501] {
            assert!(retry_delay(&policy, 1, &Ok(response(status, None))).is_none(), "{status}");
        }
    }
}
