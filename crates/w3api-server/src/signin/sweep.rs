//! Expired challenges are deleted now and then, on a task of their own, so
//! that no request waits for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};
use w3api_store::Store;

/// Milliseconds between two sweeps of one server.
const EVERY_MS: i64 = 30_000;

/// When this server last swept.
pub(crate) struct Sweeps {
    last_ms: AtomicI64,
}

impl Sweeps {
    pub(crate) fn new() -> Sweeps {
        Sweeps { last_ms: AtomicI64::new(0) }
    }

    /// Starts a sweep on its own task if none started in the last
    /// `EVERY_MS`; of requests arriving together, one starts it.
    pub(crate) fn maybe_sweep(&self, store: &Arc<dyn Store>, now: DateTime<Utc>) {
        let now_ms = now.timestamp_millis();
        let last = self.last_ms.load(Ordering::Relaxed);
        if now_ms - last < EVERY_MS
            || self.last_ms.compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed).is_err()
        {
            return;
        }
        let store = store.clone();
        tokio::spawn(async move {
            match store.sweep_expired(now).await {
                Ok(swept) => tracing::debug!(swept, "expired sign-in challenges deleted"),
                Err(error) => tracing::warn!(%error, "sweeping expired sign-in challenges"),
            }
        });
    }
}
