//! A node that says "too many requests" is slowed down and asked again.
//!
//! Hosted endpoints answer HTTP 429, or a JSON-RPC error such as Infura's
//! -32005 or Alchemy's 429, when a client asks faster than its plan allows.
//! Such a refusal means "later", never "no": the call is sent again after a
//! pause that doubles up to [`MAX_PAUSE`], for as long as [`PATIENCE`]
//! allows. Each pause is a random time up to that length ("full jitter"):
//! callers refused together would otherwise come back together, and a
//! caller whose pauses keep in step with another's polling would meet the
//! same refusal every time (a node that takes one request in two, between
//! a follower's rounds of three, refused one call for a whole minute). The follower starts its round again after that, so indexing never
//! gives up; a forwarded call fails with [`super::NodeError::Throttled`].

use std::time::Duration;

use alloy_transport::{RpcError, TransportErrorKind};

/// The first pause after a refusal.
pub(super) const FIRST_PAUSE: Duration = Duration::from_millis(50);
/// The longest pause between two tries.
pub(super) const MAX_PAUSE: Duration = Duration::from_secs(2);
/// How long one call keeps being tried while the node refuses it.
pub(super) const PATIENCE: Duration = Duration::from_secs(60);

/// JSON-RPC error codes that hosted endpoints give for "too many requests".
const RATE_LIMIT_CODES: [i64; 2] = [429, -32005];

/// Whether an error is the node asking to be called less often.
pub(super) fn rate_limited(error: &RpcError<TransportErrorKind>) -> bool {
    match error {
        RpcError::ErrorResp(payload) => {
            RATE_LIMIT_CODES.contains(&payload.code) || says_rate_limited(&payload.message.to_lowercase())
        }
        RpcError::Transport(TransportErrorKind::HttpError(http)) => http.status == 429,
        RpcError::Transport(TransportErrorKind::HttpErrorWithRetryAfter { error, .. }) => error.status == 429,
        _ => false,
    }
}

fn says_rate_limited(message: &str) -> bool {
    ["rate limit", "too many requests", "rate exceeded", "request limit"].iter().any(|words| message.contains(words))
}

/// The pause after `pause`: twice as long, up to [`MAX_PAUSE`].
pub(super) fn next_pause(pause: Duration) -> Duration {
    (pause * 2).min(MAX_PAUSE)
}

/// How long to actually wait for a `pause`: a random time from half the
/// first pause up to all of it, so that no rhythm of other callers keeps
/// meeting this one's tries.
pub(super) fn jittered(pause: Duration) -> Duration {
    let least = FIRST_PAUSE / 2;
    least + pause.saturating_sub(least).mul_f64(fastrand::f64())
}

#[cfg(test)]
mod tests {
    use alloy_json_rpc::ErrorPayload;
    use alloy_transport::HttpError;

    use super::*;

    fn refusal(code: i64, message: &'static str) -> RpcError<TransportErrorKind> {
        RpcError::ErrorResp(ErrorPayload { code, message: message.into(), data: None })
    }

    #[test]
    fn rate_limits_are_told_apart_from_other_refusals() {
        assert!(rate_limited(&refusal(-32005, "limit exceeded")));
        assert!(rate_limited(&refusal(429, "")));
        assert!(rate_limited(&refusal(-32000, "Too Many Requests, slow down")));
        let http =
            |status| RpcError::Transport(TransportErrorKind::HttpError(HttpError { status, body: String::new() }));
        assert!(rate_limited(&http(429)));
        assert!(!rate_limited(&http(500)));
        // Infura's "header not found" is retryable for alloy, but Ganache
        // gives it for a block it will never have: not a rate limit.
        assert!(!rate_limited(&refusal(-32000, "header not found")));
        assert!(!rate_limited(&refusal(3, "execution reverted")));
    }

    #[test]
    fn pauses_double_up_to_the_longest() {
        let mut pause = FIRST_PAUSE;
        let mut pauses = Vec::new();
        for _ in 0..8 {
            pauses.push(pause.as_millis());
            pause = next_pause(pause);
        }
        assert_eq!(pauses, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    }

    #[test]
    fn pauses_are_spread_over_the_whole_pause() {
        let pause = Duration::from_millis(2000);
        let waits: Vec<Duration> = (0..400).map(|_| jittered(pause)).collect();
        assert!(waits.iter().all(|w| *w >= FIRST_PAUSE / 2 && *w <= pause), "{waits:?}");
        // Callers refused together must not come back together, and tries
        // must fall both within and beyond another caller's one-second rhythm.
        let short = waits.iter().filter(|w| **w < Duration::from_millis(900)).count();
        let long = waits.iter().filter(|w| **w > Duration::from_millis(1100)).count();
        assert!(short > 100 && long > 100, "{short} short and {long} long of 400");
        assert_eq!(jittered(FIRST_PAUSE / 2), FIRST_PAUSE / 2, "never below half the first pause");
    }
}
