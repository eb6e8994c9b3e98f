//! The deliverer: claims due deliveries from the store, posts each signed,
//! and records every attempt. Claims are leased: a server that dies
//! mid-delivery leaves its deliveries to another once the lease runs out,
//! so a delivery is made at least once and, while servers live, once.

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use w3api_source::DataSource;
use w3api_store::{Attempt, AttemptOutcome, Delivery};
use w3api_types::{StreamStatus, StreamWebhook};

use crate::engine::Inner;
use crate::error::StreamsError;
use crate::sign::{SIGNATURE_HEADER, signature};

/// Attempt results recorded in one transaction at most.
const RECORD_BATCH: usize = 512;

/// Delivers until the task is aborted (which abandons attempts in flight:
/// their leases run out and they are made again).
pub(crate) async fn run<S: DataSource>(inner: Arc<Inner<S>>) {
    let (results, finished) = mpsc::unbounded_channel();
    tokio::join!(claim_loop(inner.clone(), results), record_loop(inner, finished));
}

async fn claim_loop<S: DataSource>(inner: Arc<Inner<S>>, results: mpsc::UnboundedSender<Attempt>) {
    let mut in_flight = JoinSet::new();
    let concurrency = inner.config.concurrency.max(1);
    loop {
        while in_flight.try_join_next().is_some() {}
        let free = concurrency - in_flight.len().min(concurrency);
        if free == 0 {
            in_flight.join_next().await;
            continue;
        }
        let claimed = match claim(&inner, free).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::error!(%error, "deliveries could not be claimed; trying again");
                tokio::time::sleep(inner.config.poll).await;
                continue;
            }
        };
        if claimed.0.is_empty() {
            wait_for_work(&inner, &mut in_flight).await;
            continue;
        }
        let (deliveries, secret) = claimed;
        for delivery in deliveries {
            let (inner, results, secret) = (inner.clone(), results.clone(), secret.clone());
            in_flight.spawn(async move {
                let _ = results.send(attempt(&inner, delivery, &secret).await);
            });
        }
    }
}

/// Up to `limit` due deliveries, claimed, and the secret to sign them with.
async fn claim<S: DataSource>(inner: &Inner<S>, limit: usize) -> Result<(Vec<Delivery>, String), StreamsError> {
    let store = inner.store.get().await?;
    let now = Utc::now();
    let lease = chrono::Duration::from_std(inner.config.lease).unwrap_or(chrono::Duration::MAX);
    let deliveries = store.claim(&inner.config.worker, now, now + lease, limit).await?;
    if deliveries.is_empty() {
        return Ok((deliveries, String::new()));
    }
    let secret = match store.settings().await? {
        Some(settings) => settings.secret_key,
        None => inner.default_secret.clone(),
    };
    Ok((deliveries, secret))
}

/// Sleeps until a delivery is queued here, the next one falls due, an
/// attempt ends, or the poll interval passes (for deliveries other servers
/// queued).
async fn wait_for_work<S: DataSource>(inner: &Inner<S>, in_flight: &mut JoinSet<()>) {
    let mut sleep = inner.config.poll;
    if let Ok(store) = inner.store.get().await
        && let Ok(Some(due)) = store.next_due().await
    {
        sleep = sleep.min((due - Utc::now()).to_std().unwrap_or_default());
    }
    tokio::select! {
        () = inner.wake.notified() => {}
        () = tokio::time::sleep(sleep) => {}
        Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
    }
}

async fn record_loop<S: DataSource>(inner: Arc<Inner<S>>, mut finished: mpsc::UnboundedReceiver<Attempt>) {
    let mut batch = Vec::with_capacity(RECORD_BATCH);
    while finished.recv_many(&mut batch, RECORD_BATCH).await > 0 {
        if let Err(error) = record(&inner, &batch).await {
            // The claims stay until their leases run out; the deliveries are then made again.
            tracing::error!(%error, attempts = batch.len(), "delivery attempts could not be recorded");
        }
        batch.clear();
    }
}

async fn record<S: DataSource>(inner: &Inner<S>, attempts: &[Attempt]) -> Result<(), StreamsError> {
    let store = inner.store.get().await?;
    store.record_attempts(attempts).await?;
    for failed in attempts.iter().filter(|a| matches!(a.outcome, AttemptOutcome::Failed)) {
        let Some((delivery, tries)) = store.delivery(failed.delivery_id).await? else { continue };
        let why = failed.error.as_deref().unwrap_or("no answer");
        let message = format!("Webhook delivery failed after {} attempts: {why}", tries.len());
        tracing::warn!(stream = %delivery.stream_id, delivery = %delivery.id, %message, "the stream goes to status error");
        store.set_stream_status(delivery.stream_id, StreamStatus::Error.as_str(), &message, Utc::now()).await?;
    }
    Ok(())
}

/// One attempt at a claimed delivery.
async fn attempt<S: DataSource>(inner: &Inner<S>, delivery: Delivery, secret: &str) -> Attempt {
    let at = Utc::now();
    let started = Instant::now();
    let posted = match body(&delivery) {
        Ok(body) => post(&inner.http, &delivery.webhook_url, body, secret).await,
        Err(error) => Err(error.to_string()),
    };
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (status_code, error) = match posted {
        Ok(answer) => (Some(answer.status.as_u16()), answer.failure()),
        Err(error) => (None, Some(error)),
    };
    let retries = &inner.config.retries;
    let made = usize::try_from(delivery.attempts).unwrap_or(usize::MAX);
    let outcome = match (&error, retries.get(made)) {
        (None, _) => AttemptOutcome::Delivered,
        (Some(_), Some(wait)) => {
            AttemptOutcome::RetryAt(Utc::now() + chrono::Duration::from_std(*wait).unwrap_or(chrono::Duration::MAX))
        }
        (Some(_), None) => AttemptOutcome::Failed,
    };
    Attempt {
        delivery_id: delivery.id,
        worker: inner.config.worker.clone(),
        at,
        latency_ms,
        status_code,
        error,
        outcome,
    }
}

/// The body a delivery's next attempt sends: its payload with `retries`
/// set to the attempts made before.
pub(crate) fn body(delivery: &Delivery) -> Result<Vec<u8>, StreamsError> {
    with_retries(delivery, delivery.attempts)
}

/// The body a delivery's last attempt sent (its first, before any).
pub(crate) fn body_as_sent(delivery: &Delivery) -> Result<Vec<u8>, StreamsError> {
    with_retries(delivery, delivery.attempts.saturating_sub(1))
}

fn with_retries(delivery: &Delivery, retries: u32) -> Result<Vec<u8>, StreamsError> {
    let damaged = |e: serde_json::Error| StreamsError::Damaged { what: "delivery", why: e.to_string() };
    let mut webhook: StreamWebhook = serde_json::from_str(&delivery.payload).map_err(damaged)?;
    webhook.retries = u64::from(retries);
    serde_json::to_vec(&webhook).map_err(damaged)
}

/// How a receiver answered a post.
pub(crate) struct Answered {
    pub(crate) status: StatusCode,
    /// Where a 3xx pointed; never followed, since a receiver on an allowed
    /// host could otherwise send the signed body to any host.
    pub(crate) location: Option<String>,
}

impl Answered {
    /// Why the post did not deliver; `None` when the receiver took it (2xx).
    pub(crate) fn failure(&self) -> Option<String> {
        let code = self.status.as_u16();
        match &self.location {
            _ if self.status.is_success() => None,
            Some(location) if self.status.is_redirection() => Some(format!(
                "the receiver answered HTTP {code} redirecting to {location}; webhooks do not follow redirects"
            )),
            _ => Some(format!("the receiver answered HTTP {code}")),
        }
    }
}

/// Posts `body` to `url`, signed with `secret`: how the receiver answered,
/// or why it did not.
pub(crate) async fn post(http: &reqwest::Client, url: &str, body: Vec<u8>, secret: &str) -> Result<Answered, String> {
    let signed = signature(&body, secret);
    let sent =
        http.post(url).header(CONTENT_TYPE, "application/json").header(SIGNATURE_HEADER, signed).body(body).send();
    match sent.await {
        Ok(response) => {
            let location =
                response.headers().get(LOCATION).map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
            Ok(Answered { status: response.status(), location })
        }
        Err(error) if error.is_timeout() => Err("the receiver did not answer in time".into()),
        Err(error) if error.is_connect() => Err(format!("could not connect to the receiver ({error})")),
        Err(error) => Err(format!("posting failed ({error})")),
    }
}
