//! When a client sends a request again: one policy for the REST client
//! (`w3api-rest`) and the JSON-RPC client (`w3api-rpc`), so that both treat
//! a busy or failing server alike.
//!
//! A request is sent again only when it is safe to send twice (a REST GET,
//! a JSON-RPC read) and its failure may pass: HTTP 408, 429, 500, 502, 503
//! or 504, a refused connection, or a timeout. Delays double from
//! [`RetryPolicy::initial_backoff`] with jitter, and are at least what
//! `Retry-After` asks; a server asking for longer than
//! [`RetryPolicy::max_retry_after`] gets its error returned instead.

use std::time::{Duration, SystemTime};

use http::header::RETRY_AFTER;
use http::{HeaderMap, StatusCode};

/// How failed requests that are safe to send twice are retried.
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

/// How an attempt ended, as far as retrying is concerned.
#[derive(Clone, Copy, Debug)]
pub enum Outcome<'a> {
    /// The server answered with this status and headers.
    Answered(StatusCode, &'a HeaderMap),
    /// No answer: the connection was refused or the attempt timed out.
    Unreachable,
    /// Any other failure (a broken TLS handshake, a body that stopped),
    /// which sending again would not mend.
    Failed,
}

impl RetryPolicy {
    /// Every request is sent once.
    pub fn none() -> Self {
        RetryPolicy { max_attempts: 1, ..RetryPolicy::default() }
    }

    /// Whether attempt number `attempt` (1 for the first) may be followed
    /// by another.
    pub fn allows_after(&self, attempt: u32) -> bool {
        attempt < self.max_attempts
    }

    /// How long to wait before retry number `retry` (1 for the first) after
    /// `outcome`, or `None` to return it as it is.
    pub fn delay(&self, retry: u32, outcome: Outcome<'_>) -> Option<Duration> {
        let backoff = self.backoff(retry);
        match outcome {
            Outcome::Answered(status, headers) if is_retryable_status(status) => match retry_after(headers) {
                Some(asked) if asked > self.max_retry_after => None,
                Some(asked) => Some(asked.max(backoff)),
                None => Some(backoff),
            },
            Outcome::Answered(..) | Outcome::Failed => None,
            Outcome::Unreachable => Some(backoff),
        }
    }

    /// The longest all attempts and the waits between them may take, each
    /// attempt allowed `attempt_timeout`: a bound for a caller that needs
    /// one deadline over the whole exchange.
    pub fn longest_exchange(&self, attempt_timeout: Duration) -> Duration {
        let waits = self.max_attempts.saturating_sub(1);
        let longest_wait = self.max_backoff.max(self.max_retry_after);
        attempt_timeout.saturating_mul(self.max_attempts.max(1)).saturating_add(longest_wait.saturating_mul(waits))
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
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or_default())
}

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

    fn answered(status: u16, retry_after: Option<&str>, policy: &RetryPolicy) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        if let Some(value) = retry_after {
            headers.insert(RETRY_AFTER, value.parse().unwrap());
        }
        policy.delay(1, Outcome::Answered(StatusCode::from_u16(status).unwrap(), &headers))
    }

    #[test]
    fn retry_after_is_honoured_within_limits() {
        let policy = RetryPolicy::default();
        assert!(answered(429, Some("3"), &policy).unwrap() >= Duration::from_secs(3));
        assert_eq!(answered(503, Some("3600"), &policy), None, "too long: give up");
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(5));
        let delay = answered(503, Some(&date), &policy).unwrap();
        assert!(delay >= Duration::from_secs(3) && delay <= Duration::from_secs(5), "{delay:?}");
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let policy = RetryPolicy::default();
        for status in [408, 429, 500, 502, 503, 504] {
            assert!(answered(status, None, &policy).is_some(), "{status}");
        }
        for status in [200, 201, 400, 401, 404, 413, 422, 501] {
            assert!(answered(status, None, &policy).is_none(), "{status}");
        }
        assert!(policy.delay(1, Outcome::Unreachable).is_some());
        assert!(policy.delay(1, Outcome::Failed).is_none());
    }

    #[test]
    fn attempts_are_counted_from_one() {
        let policy = RetryPolicy { max_attempts: 3, ..RetryPolicy::default() };
        assert!(policy.allows_after(1) && policy.allows_after(2) && !policy.allows_after(3));
        assert!(!RetryPolicy::none().allows_after(1));
        let bound = policy.longest_exchange(Duration::from_secs(1));
        assert_eq!(bound, Duration::from_secs(3) + 2 * policy.max_retry_after);
    }
}
