//! A webhook receiver for tests of stream deliveries: it records every
//! delivery with its exact body and signature, checks signatures against a
//! secret, and can answer with failures on purpose.
//!
//! ```
//! use std::time::Duration;
//! use w3api_testkit::Webhooks;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let webhooks = Webhooks::start().await;
//! webhooks.fail_next(2); // the next two deliveries get a 500
//! # let _ = webhooks.url();
//! // … create a stream whose webhookUrl is webhooks.url() …
//! # }
//! ```

use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::LOCATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use tokio::sync::Notify;
use w3api_streams::{SIGNATURE_HEADER, signature};
use w3api_types::StreamWebhook;

/// A delivery as the receiver got it.
#[derive(Clone, Debug)]
pub struct Received {
    /// The body, byte for byte.
    pub body: Bytes,
    /// The `x-signature` header.
    pub signature: Option<String>,
    /// The body read as a payload; `None` when it is not one.
    pub webhook: Option<StreamWebhook>,
    /// The status the receiver answered.
    pub answered: u16,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    /// Whether this is the test webhook sent when a stream is created or changed.
    pub fn is_test(&self) -> bool {
        self.webhook.as_ref().is_some_and(|webhook| webhook.block.hash.is_empty())
    }

    /// Whether the signature is the body's under `secret`.
    pub fn verifies(&self, secret: &str) -> bool {
        self.signature.as_deref() == Some(signature(&self.body, secret).as_str())
    }
}

#[derive(Default)]
struct Log {
    received: Mutex<Vec<Received>>,
    /// Deliveries (not test webhooks) still to be answered with a 500.
    failures: Mutex<usize>,
    /// How long each answer waits.
    delay: Mutex<Duration>,
    /// Where every request is redirected (HTTP 307), when set.
    redirect: Mutex<Option<String>>,
    arrived: Notify,
}

/// A receiver listening on 127.0.0.1; dropped, it stops.
pub struct Webhooks {
    url: String,
    log: Arc<Log>,
    task: tokio::task::JoinHandle<()>,
}

impl Webhooks {
    /// A receiver on 127.0.0.1 that answers every delivery 200.
    pub async fn start() -> Webhooks {
        Webhooks::start_on(Ipv4Addr::LOCALHOST).await.expect("binding 127.0.0.1:0")
    }

    /// A receiver on another loopback address (such as 127.0.0.2, which
    /// Linux answers and macOS does not without an alias): an error when
    /// it cannot be bound.
    pub async fn start_on(ip: Ipv4Addr) -> std::io::Result<Webhooks> {
        let listener = tokio::net::TcpListener::bind((ip, 0)).await?;
        let address = listener.local_addr()?;
        let log = Arc::new(Log::default());
        let app = Router::new().route("/hook", post(receive)).with_state(log.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Webhooks { url: format!("http://{address}/hook"), log, task })
    }

    /// The URL to give a stream as its `webhookUrl`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Answers the next `n` deliveries (not test webhooks) with a 500.
    pub fn fail_next(&self, n: usize) {
        *self.log.failures.lock().unwrap_or_else(PoisonError::into_inner) = n;
    }

    /// Answers every request, test webhooks included, with a 307 to `url`
    /// (a receiver trying to send deliveries elsewhere); `None` stops it.
    pub fn redirect_to(&self, url: Option<&str>) {
        *self.log.redirect.lock().unwrap_or_else(PoisonError::into_inner) = url.map(str::to_owned);
    }

    /// Answers every request only after `delay` (a slow receiver).
    pub fn delay(&self, delay: Duration) {
        *self.log.delay.lock().unwrap_or_else(PoisonError::into_inner) = delay;
    }

    /// Everything received so far, in order of arrival.
    pub fn received(&self) -> Vec<Received> {
        self.log.received.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Waits until `done` holds for what was received, at most `timeout`;
    /// answers what was received then, or an error saying how much came.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Result<Vec<Received>, String> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let arrived = self.log.arrived.notified();
            let received = self.received();
            if done(&received) {
                return Ok(received);
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return Err(format!("waited {timeout:?}; {} requests had arrived", received.len()));
            }
        }
    }
}

impl Drop for Webhooks {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn receive(State(log): State<Arc<Log>>, headers: HeaderMap, body: Bytes) -> Response {
    let delay = *log.delay.lock().unwrap_or_else(PoisonError::into_inner);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let webhook = serde_json::from_slice::<StreamWebhook>(&body).ok();
    let test = webhook.as_ref().is_some_and(|webhook| webhook.block.hash.is_empty());
    let redirect = log.redirect.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let fail = !test && redirect.is_none() && {
        let mut failures = log.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let fail = *failures > 0;
        *failures = failures.saturating_sub(1);
        fail
    };
    let status = match (&redirect, fail) {
        (Some(_), _) => StatusCode::TEMPORARY_REDIRECT,
        (None, true) => StatusCode::INTERNAL_SERVER_ERROR,
        (None, false) => StatusCode::OK,
    };
    let signature = headers.get(SIGNATURE_HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
    let received = Received { body, signature, webhook, answered: status.as_u16(), at: Instant::now() };
    log.received.lock().unwrap_or_else(PoisonError::into_inner).push(received);
    log.arrived.notify_waiters();
    match redirect {
        Some(url) => (status, [(LOCATION, url)]).into_response(),
        None => status.into_response(),
    }
}
