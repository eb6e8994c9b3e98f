//! The streams management API: what each operation does with the store.
//! The HTTP layer calls these and writes their answers.

use std::collections::{BTreeMap, HashSet};
use std::str::FromStr;
use std::sync::Arc;

use alloy_primitives::Address;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use uuid::Uuid;
use w3api_source::{DataSource, SourceError};
use w3api_store::{
    AttemptFilter, AttemptRecord, Delivery, DeliveryFilter, DeliveryState, NewStream, Settings, Store, StoreCell,
    StoredStream,
};
use w3api_types::{
    AddressList, Chain, DeliveryStatus, EvmStream, EvmStreamCreate, EvmStreamUpdate, EvmStreamsPage, SettingsRegion,
    StreamAddress, StreamAddressResponse, StreamAddressesPage, StreamBlockRequest, StreamDeliveryLog,
    StreamDeliveryLogsPage, StreamHistoryItem, StreamHistoryPage, StreamSettings, StreamStatus, StreamTinyPayload,
    StreamUsage, StreamUsageStats, StreamWebhook,
};

use crate::config::StreamsConfig;
use crate::cursor::{self, Listing};
use crate::deliver;
use crate::error::StreamsError;
use crate::follow;
use crate::settings::StreamSpec;

/// The streams of a project: their management, and the engine that
/// delivers for them. Cloning is cheap.
pub struct Streams<S> {
    pub(crate) inner: Arc<Inner<S>>,
}

impl<S> Clone for Streams<S> {
    fn clone(&self) -> Self {
        Streams { inner: self.inner.clone() }
    }
}

pub(crate) struct Inner<S> {
    pub(crate) source: Arc<S>,
    pub(crate) store: Arc<StoreCell>,
    pub(crate) config: StreamsConfig,
    pub(crate) http: reqwest::Client,
    /// Rung when deliveries are queued or replayed here.
    pub(crate) wake: Notify,
    /// The secret deliveries are signed with until the project sets one.
    pub(crate) default_secret: String,
}

/// A delivery as the deliveries page shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DashboardDelivery {
    /// The delivery.
    pub id: Uuid,
    /// Its stream.
    pub stream_id: Uuid,
    /// The stream's tag.
    pub tag: String,
    /// Hex id of the chain.
    pub chain_id: String,
    /// The block.
    pub block_number: u64,
    /// The block's hash.
    pub block_hash: String,
    /// Whether the block was confirmed.
    pub confirmed: bool,
    /// `pending`, `delivered` or `failed`.
    pub state: &'static str,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// Where it is posted.
    pub webhook_url: String,
    /// The `x-signature` of the body as its last attempt sent it (as its
    /// first will, before any).
    pub signature: String,
    /// The body.
    pub payload: serde_json::Value,
    /// Every attempt, oldest first.
    pub attempts: Vec<DashboardAttempt>,
}

/// One attempt, as the deliveries page shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DashboardAttempt {
    /// 1 for the first.
    pub number: u32,
    /// When it was made.
    pub at: DateTime<Utc>,
    /// The receiver's status; `None` when it did not answer.
    pub status_code: Option<u16>,
    /// How long the receiver took.
    pub latency_ms: u64,
    /// Why it failed.
    pub error: Option<String>,
    /// Whether it was answered 2xx.
    pub delivered: bool,
}

/// The statuses a user may set.
const SETTABLE: [StreamStatus; 2] = [StreamStatus::Active, StreamStatus::Paused];

impl<S: DataSource> Streams<S> {
    /// The streams kept in `store`, read against `source`; deliveries are
    /// signed with `default_secret` until the project sets a secret
    /// (production signs with the project's API key).
    pub fn new(source: Arc<S>, store: Arc<StoreCell>, config: StreamsConfig, default_secret: String) -> Streams<S> {
        // reqwest leaves the TLS crypto provider to the application: ring,
        // as the REST client installs it; one installed before is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(config.attempt_timeout)
            .connect_timeout(config.attempt_timeout)
            .user_agent(concat!("w3api-streams/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client without TLS roots or proxies to read builds");
        let inner = Inner { source, store, config, http, wake: Notify::new(), default_secret };
        Streams { inner: Arc::new(inner) }
    }

    /// Starts the follower and the deliverer; they stop when the returned
    /// engine is dropped.
    pub fn start(&self) -> Engine {
        let follower = tokio::spawn(follow::run(self.inner.clone()));
        let deliverer = tokio::spawn(deliver::run(self.inner.clone()));
        Engine { tasks: vec![follower, deliverer] }
    }

    pub(crate) async fn store(&self) -> Result<&Arc<dyn Store>, StreamsError> {
        Ok(self.inner.store.get().await?)
    }

    /// Creates a stream, once its webhook answered the test webhook.
    pub async fn create(&self, body: EvmStreamCreate) -> Result<EvmStream, StreamsError> {
        let spec = StreamSpec::parse(body)?;
        spec.check_deliverable(&self.inner.config.webhook_hosts)?;
        let starts = self.starts(&spec, &Kept::default()).await?;
        self.send_test_webhook(&spec.api.webhook_url).await?;
        let created = self.store().await?.create_stream(&new_stream(Kept { api: spec.api, starts })).await?;
        self.inner.wake.notify_one();
        self.read(created).await
    }

    /// One stream.
    pub async fn get(&self, id: Uuid) -> Result<EvmStream, StreamsError> {
        let stored = self.store().await?.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        self.read(stored).await
    }

    /// A page of the project's streams, oldest first.
    pub async fn list(
        &self,
        limit: usize,
        cursor: Option<&str>,
        status: Option<&StreamStatus>,
    ) -> Result<EvmStreamsPage, StreamsError> {
        let after = cursor.map(|c| cursor::decode_number(Listing::Streams, c)).transpose()?;
        let status = status.map(StreamStatus::as_str);
        let mut listing = self.store().await?.streams(status, after, limit + 1).await?;
        let next = cut(&mut listing.items, limit).map(|last| last.seq);
        let mut result = Vec::with_capacity(listing.items.len());
        for stored in listing.items {
            result.push(self.read(stored).await?);
        }
        Ok(EvmStreamsPage {
            result,
            cursor: next.map(|seq| cursor::encode(Listing::Streams, &seq.to_string())),
            total: listing.total,
        })
    }

    /// Changes a stream's settings, once its (new) webhook answered the test webhook.
    pub async fn update(&self, id: Uuid, change: EvmStreamUpdate) -> Result<EvmStream, StreamsError> {
        let store = self.store().await?;
        let stored = store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        let kept = kept_of(&stored)?;
        let spec = StreamSpec::parse(apply(kept.api.clone(), change))?;
        spec.check_deliverable(&self.inner.config.webhook_hosts)?;
        let starts = self.starts(&spec, &kept).await?;
        self.send_test_webhook(&spec.api.webhook_url).await?;
        let settings = serde_json::to_string(&Kept { api: spec.api, starts }).expect("settings encode");
        let updated = store.update_stream(id, &settings, Utc::now()).await?.ok_or(StreamsError::StreamNotFound(id))?;
        self.read(updated).await
    }

    /// Deletes a stream: deliveries not yet made are dropped, its history is kept.
    pub async fn delete(&self, id: Uuid) -> Result<EvmStream, StreamsError> {
        let store = self.store().await?;
        let stored = store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        let shown = self.read(stored).await?;
        store.delete_stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        Ok(shown)
    }

    /// Pauses or resumes a stream.
    pub async fn set_status(&self, id: Uuid, status: StreamStatus) -> Result<EvmStream, StreamsError> {
        if !SETTABLE.contains(&status) {
            return Err(StreamsError::invalid(format!(
                "status: {status} is set by the service; a stream may be set active or paused"
            )));
        }
        let message = status_message(&status);
        let store = self.store().await?;
        let updated = store
            .set_stream_status(id, status.as_str(), &message, Utc::now())
            .await?
            .ok_or(StreamsError::StreamNotFound(id))?;
        self.inner.wake.notify_one();
        self.read(updated).await
    }

    /// A new stream with the settings and addresses of stream `id`.
    pub async fn duplicate(&self, id: Uuid) -> Result<EvmStream, StreamsError> {
        let store = self.store().await?;
        let stored = store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        let api = settings_of(&stored)?;
        let starts = self.starts(&StreamSpec::parse(api.clone())?, &Kept::default()).await?;
        let copy = store.create_stream(&new_stream(Kept { api, starts })).await?;
        let mut after = None;
        loop {
            let page = store.addresses(id, after, 1000).await?;
            store.add_addresses(copy.id, &page.items).await?;
            match page.items.last() {
                Some(last) if page.items.len() == 1000 => after = Some(*last),
                _ => break,
            }
        }
        self.read(copy).await
    }

    /// A page of the addresses a stream watches.
    pub async fn addresses(
        &self,
        id: Uuid,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<StreamAddressesPage, StreamsError> {
        let store = self.store().await?;
        store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        // The cursor names its stream: one from another stream's listing is refused.
        let after = cursor
            .map(|c| {
                let position = cursor::decode(Listing::Addresses, c)?;
                let wrong = || StreamsError::invalid(format!("cursor: {c:?} is not a cursor of this listing"));
                let (of, address) = position.split_once('/').ok_or_else(wrong)?;
                if of != id.to_string() {
                    return Err(wrong());
                }
                address.parse::<Address>().map_err(|_| wrong())
            })
            .transpose()?;
        let mut listing = store.addresses(id, after, limit + 1).await?;
        let next = cut(&mut listing.items, limit).copied();
        Ok(StreamAddressesPage {
            result: listing.items.iter().map(|a| StreamAddress { address: format!("{a:#x}") }).collect(),
            cursor: next.map(|a| cursor::encode(Listing::Addresses, &format!("{id}/{a:#x}"))),
            total: listing.total,
        })
    }

    /// Adds addresses to a stream.
    pub async fn add_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let addresses = parse_addresses(&list)?;
        let store = self.store().await?;
        store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        store.add_addresses(id, &addresses).await?;
        Ok(StreamAddressResponse { stream_id: id, address: list })
    }

    /// Removes addresses from a stream.
    pub async fn remove_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let addresses = parse_addresses(&list)?;
        let store = self.store().await?;
        store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        store.remove_addresses(id, &addresses).await?;
        Ok(StreamAddressResponse { stream_id: id, address: list })
    }

    /// Makes a stream watch exactly the addresses sent.
    pub async fn replace_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let wanted: HashSet<Address> = parse_addresses(&list)?.into_iter().collect();
        let store = self.store().await?;
        store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        let mut gone = Vec::new();
        let mut after = None;
        loop {
            let page = store.addresses(id, after, 1000).await?;
            gone.extend(page.items.iter().filter(|a| !wanted.contains(*a)));
            match page.items.last() {
                Some(last) if page.items.len() == 1000 => after = Some(*last),
                _ => break,
            }
        }
        store.remove_addresses(id, &gone).await?;
        store.add_addresses(id, &wanted.into_iter().collect::<Vec<_>>()).await?;
        Ok(StreamAddressResponse { stream_id: id, address: list })
    }

    /// The secret and region deliveries are made with.
    pub async fn settings(&self) -> Result<StreamSettings, StreamsError> {
        let settings = self.effective_settings().await?;
        Ok(StreamSettings {
            region: Some(open_value::<SettingsRegion>(&settings.region)),
            secret_key: Some(settings.secret_key),
        })
    }

    /// Changes the secret or the region; fields left out keep their value.
    pub async fn set_settings(&self, change: StreamSettings) -> Result<StreamSettings, StreamsError> {
        if change.secret_key.as_deref() == Some("") {
            return Err(StreamsError::invalid("secretKey: an empty secret signs nothing"));
        }
        if let Some(region) = &change.region
            && !SettingsRegion::KNOWN.contains(region)
        {
            return Err(StreamsError::invalid(format!("region: {region} is not one of production's regions")));
        }
        let mut settings = self.effective_settings().await?;
        if let Some(secret) = change.secret_key {
            settings.secret_key = secret;
        }
        if let Some(region) = change.region {
            settings.region = region.as_str().to_owned();
        }
        self.store().await?.set_settings(&settings).await?;
        self.settings().await
    }

    /// The project's settings, the defaults kept if none were.
    pub(crate) async fn effective_settings(&self) -> Result<Settings, StreamsError> {
        let store = self.store().await?;
        if let Some(settings) = store.settings().await? {
            return Ok(settings);
        }
        let defaults = Settings { secret_key: self.inner.default_secret.clone(), region: "us-east-1".into() };
        Ok(store.init_settings(&defaults).await?)
    }

    /// A page of the deliveries `filter` selects, newest first.
    pub async fn history(
        &self,
        limit: usize,
        cursor: Option<&str>,
        exclude_payload: bool,
        filter: &DeliveryFilter,
    ) -> Result<StreamHistoryPage, StreamsError> {
        let scope = filter.stream.map(|id| id.to_string()).unwrap_or_default();
        let before = cursor
            .map(|c| {
                let position = cursor::decode(Listing::History, c)?;
                let wrong = || StreamsError::invalid(format!("cursor: {c:?} is not a cursor of this listing"));
                let (of, seq) = position.split_once('/').ok_or_else(wrong)?;
                if of != scope {
                    return Err(wrong());
                }
                seq.parse::<i64>().map_err(|_| wrong())
            })
            .transpose()?;
        let store = self.store().await?;
        let mut listing = store.deliveries(filter, before, limit + 1).await?;
        let next = cut(&mut listing.items, limit).map(|last| last.seq);
        let mut result = Vec::with_capacity(listing.items.len());
        for delivery in &listing.items {
            let last_error = store.delivery(delivery.id).await?.and_then(|(_, attempts)| attempts.last().cloned());
            result.push(history_item(delivery, last_error.as_ref(), !exclude_payload)?);
        }
        let cursor = next.map(|seq| cursor::encode(Listing::History, &format!("{scope}/{seq}")));
        Ok(StreamHistoryPage { result, cursor, total: listing.total })
    }

    /// A page of the delivery attempts `filter` selects, newest first.
    pub async fn delivery_logs(
        &self,
        limit: usize,
        cursor: Option<&str>,
        filter: &AttemptFilter,
    ) -> Result<StreamDeliveryLogsPage, StreamsError> {
        let before = cursor.map(|c| cursor::decode_number(Listing::Logs, c)).transpose()?;
        let mut listing = self.store().await?.attempt_log(filter, before, limit + 1).await?;
        let next = cut(&mut listing.items, limit).map(|last| last.seq);
        Ok(StreamDeliveryLogsPage {
            result: listing.items.iter().map(delivery_log).collect(),
            cursor: next.map(|seq| cursor::encode(Listing::Logs, &seq.to_string())),
            total: listing.total,
        })
    }

    /// Queues a delivery to be sent again at once.
    pub async fn replay(&self, stream: Uuid, id: Uuid) -> Result<StreamHistoryItem, StreamsError> {
        let store = self.store().await?;
        let delivery =
            store.replay(stream, id, Utc::now()).await?.ok_or(StreamsError::DeliveryNotFound { stream, id })?;
        self.inner.wake.notify_one();
        history_item(&delivery, None, false)
    }

    /// Delivery totals of the project, or of one stream.
    pub async fn stats(&self, stream: Option<Uuid>) -> Result<StreamUsageStats, StreamsError> {
        let store = self.store().await?;
        if let Some(id) = stream {
            store.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
        }
        let per_stream = store.stream_stats(stream).await?;
        let mut stats = StreamUsageStats::default();
        let mut streams = Vec::new();
        for s in per_stream {
            stats.total_webhooks_delivered += s.delivered;
            stats.total_webhooks_failed += s.failed;
            stats.total_logs_processed += s.logs;
            stats.total_txs_processed += s.txs;
            stats.total_txs_internal_processed += s.txs_internal;
            streams.push(StreamUsage {
                total_webhooks_delivered: s.delivered,
                total_webhooks_failed: s.failed,
                total_logs_processed: s.logs,
                total_txs_processed: s.txs,
                total_txs_internal_processed: s.txs_internal,
                stream_id: s.stream_id.to_string(),
            });
        }
        stats.streams = Some(streams);
        Ok(stats)
    }

    /// The payload a stream of these settings would get for a block, unconfirmed, not sent.
    pub async fn block_payload(
        &self,
        chain_id: &str,
        number: u64,
        request: StreamBlockRequest,
    ) -> Result<StreamWebhook, StreamsError> {
        let chain = chain_of(chain_id)?;
        let watched: HashSet<Address> = request
            .addresses
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, a)| a.parse::<Address>().map_err(|_| format!("addresses[{i}]: {a:?} is not an address")))
            .collect::<Result<_, _>>()
            .map_err(StreamsError::invalid)?;
        let spec = StreamSpec::parse(preview_settings(request, chain_id))?;
        let internal = StreamSpec::flag(spec.api.include_internal_txs);
        let data = follow::block_data(self.inner.source.as_ref(), chain, number, internal)
            .await?
            .ok_or_else(|| StreamsError::invalid(format!("blockNumber: chain {chain_id} has no block {number}")))?;
        let built = follow::payload(self.inner.source.as_ref(), &spec, "", &watched, &data, false).await?;
        Ok(built)
    }

    /// The streams and the newest deliveries with their attempts, for the deliveries page.
    pub async fn dashboard(&self, limit: usize) -> Result<(Vec<EvmStream>, Vec<DashboardDelivery>), StreamsError> {
        let streams = self.list(100, None, None).await?.result;
        let store = self.store().await?;
        let secret = self.effective_settings().await?.secret_key;
        let mut deliveries = Vec::new();
        for delivery in store.deliveries(&DeliveryFilter::default(), None, limit).await?.items {
            let attempts = store.delivery(delivery.id).await?.map(|(_, attempts)| attempts).unwrap_or_default();
            let body = deliver::body_as_sent(&delivery)?;
            deliveries.push(DashboardDelivery {
                id: delivery.id,
                stream_id: delivery.stream_id,
                tag: delivery.tag.clone(),
                chain_id: delivery.chain_id.clone(),
                block_number: delivery.block_number,
                block_hash: delivery.block_hash.clone(),
                confirmed: delivery.confirmed,
                state: state_name(delivery.state),
                created_at: delivery.created_at,
                webhook_url: delivery.webhook_url.clone(),
                signature: crate::signature(&body, &secret),
                payload: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
                attempts: attempts.iter().map(dashboard_attempt).collect(),
            });
        }
        Ok((streams, deliveries))
    }

    /// Posts the test webhook to `url`; an error unless it answers 2xx.
    async fn send_test_webhook(&self, url: &str) -> Result<(), StreamsError> {
        let secret = self.effective_settings().await?.secret_key;
        let body = serde_json::to_vec(&StreamWebhook::test()).expect("the test webhook encodes");
        let rejected = |why: String| StreamsError::WebhookRejected { url: url.to_owned(), why };
        let answer = deliver::post(&self.inner.http, url, body, &secret).await.map_err(rejected)?;
        answer.failure().map_or(Ok(()), |why| Err(rejected(why)))
    }

    /// Where delivering starts on each chain of `spec`: after the newest
    /// block when the chain was added (kept from `kept` for chains it had).
    async fn starts(&self, spec: &StreamSpec, kept: &Kept) -> Result<BTreeMap<String, u64>, StreamsError> {
        let mut starts = BTreeMap::new();
        for (i, chain) in spec.chains.iter().enumerate() {
            let id = spec.api.chain_ids[i].to_lowercase();
            let start = match kept.starts.get(&id) {
                Some(start) => *start,
                None => match self.inner.source.latest_block(*chain).await {
                    Ok(latest) => latest,
                    Err(SourceError::ChainNotServed(_)) => {
                        return Err(StreamsError::invalid(format!("chainIds[{i}]: chain {id} is not served here")));
                    }
                    Err(error) => return Err(error.into()),
                },
            };
            starts.insert(id, start);
        }
        Ok(starts)
    }

    /// A stored stream as the API shows it.
    async fn read(&self, stored: StoredStream) -> Result<EvmStream, StreamsError> {
        let amount = self.store().await?.addresses(stored.id, None, 1).await?.total;
        shown(&stored, amount)
    }
}

/// Stops the engine's tasks when dropped.
pub struct Engine {
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Cuts a page read one item long back to `limit`: the last item kept,
/// where the next page starts, when there is a next page.
fn cut<T>(items: &mut Vec<T>, limit: usize) -> Option<&T> {
    if items.len() <= limit {
        return None;
    }
    items.truncate(limit);
    items.last()
}

/// A value of an open enum, known or not (reading one never fails).
fn open_value<T: FromStr<Err = std::convert::Infallible>>(text: &str) -> T {
    match text.parse() {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

fn new_stream(kept: Kept) -> NewStream {
    NewStream {
        id: Uuid::new_v4(),
        settings: serde_json::to_string(&kept).expect("settings encode"),
        status: StreamStatus::Active.as_str().to_owned(),
        status_message: status_message(&StreamStatus::Active),
        at: Utc::now(),
    }
}

/// What the store keeps of a stream: its settings as the API has them, and
/// the newest block of each chain when the chain was added to the stream
/// (deliveries are for the blocks after it).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Kept {
    pub(crate) api: EvmStreamCreate,
    /// By hex chain id.
    pub(crate) starts: BTreeMap<String, u64>,
}

pub(crate) fn status_message(status: &StreamStatus) -> String {
    match status {
        StreamStatus::Paused => "Stream is paused".into(),
        StreamStatus::Error => "Stream has errors".into(),
        StreamStatus::Terminated => "Stream is terminated".into(),
        _ => "Stream is active".into(),
    }
}

/// What a stream was stored with.
pub(crate) fn kept_of(stored: &StoredStream) -> Result<Kept, StreamsError> {
    serde_json::from_str(&stored.settings).map_err(|e| StreamsError::Damaged { what: "stream", why: e.to_string() })
}

/// The settings a stream was stored with.
pub(crate) fn settings_of(stored: &StoredStream) -> Result<EvmStreamCreate, StreamsError> {
    kept_of(stored).map(|kept| kept.api)
}

fn shown(stored: &StoredStream, addresses: u64) -> Result<EvmStream, StreamsError> {
    let api = settings_of(stored)?;
    let flag = |value: Option<bool>| Some(value.unwrap_or(false));
    Ok(EvmStream {
        id: stored.id,
        webhook_url: api.webhook_url,
        description: api.description,
        tag: api.tag,
        topic0: api.topic0,
        all_addresses: flag(api.all_addresses),
        include_native_txs: flag(api.include_native_txs),
        include_contract_logs: flag(api.include_contract_logs),
        include_internal_txs: flag(api.include_internal_txs),
        include_all_tx_logs: flag(api.include_all_tx_logs),
        get_native_balances: api.get_native_balances,
        abi: api.abi,
        advanced_options: api.advanced_options,
        chain_ids: api.chain_ids,
        demo: flag(api.demo),
        triggers: api.triggers,
        filter_possible_spam_addresses: flag(api.filter_possible_spam_addresses),
        status: open_value::<StreamStatus>(&stored.status),
        status_message: stored.status_message.clone(),
        updated_at: Some(stored.updated_at),
        amount_of_addresses: Some(addresses),
    })
}

/// `change` applied to `api`.
fn apply(mut api: EvmStreamCreate, change: EvmStreamUpdate) -> EvmStreamCreate {
    let EvmStreamUpdate {
        webhook_url,
        description,
        tag,
        topic0,
        all_addresses,
        include_native_txs,
        include_contract_logs,
        include_internal_txs,
        include_all_tx_logs,
        get_native_balances,
        abi,
        advanced_options,
        chain_ids,
        demo,
        triggers,
        filter_possible_spam_addresses,
    } = change;
    fn set<T>(field: &mut T, value: Option<T>) {
        if let Some(value) = value {
            *field = value;
        }
    }
    set(&mut api.webhook_url, webhook_url);
    set(&mut api.description, description);
    set(&mut api.tag, tag);
    set(&mut api.topic0, topic0);
    set(&mut api.all_addresses, all_addresses.map(Some));
    set(&mut api.include_native_txs, include_native_txs.map(Some));
    set(&mut api.include_contract_logs, include_contract_logs.map(Some));
    set(&mut api.include_internal_txs, include_internal_txs.map(Some));
    set(&mut api.include_all_tx_logs, include_all_tx_logs.map(Some));
    set(&mut api.get_native_balances, get_native_balances.map(Some));
    set(&mut api.abi, abi);
    set(&mut api.advanced_options, advanced_options);
    set(&mut api.chain_ids, chain_ids);
    set(&mut api.demo, demo.map(Some));
    set(&mut api.triggers, triggers);
    set(&mut api.filter_possible_spam_addresses, filter_possible_spam_addresses.map(Some));
    api
}

/// Settings for a preview: a webhook is not needed, nor any include flag
/// when the caller only wants to see what an address or event gives.
fn preview_settings(request: StreamBlockRequest, chain_id: &str) -> EvmStreamCreate {
    let StreamBlockRequest {
        tag,
        topic0,
        all_addresses,
        include_native_txs,
        include_contract_logs,
        include_internal_txs,
        include_all_tx_logs,
        filter_possible_spam_addresses,
        get_native_balances,
        abi,
        advanced_options,
        triggers,
        addresses: _,
    } = request;
    EvmStreamCreate {
        webhook_url: "http://preview.invalid/".into(),
        description: String::new(),
        tag: tag.unwrap_or_default(),
        topic0,
        all_addresses,
        include_native_txs,
        include_contract_logs,
        include_internal_txs,
        include_all_tx_logs,
        get_native_balances,
        abi,
        advanced_options,
        chain_ids: vec![chain_id.to_owned()],
        demo: None,
        triggers,
        filter_possible_spam_addresses,
    }
}

fn chain_of(chain_id: &str) -> Result<Chain, StreamsError> {
    if !chain_id.starts_with("0x") {
        return Err(StreamsError::invalid(format!("chainId: {chain_id:?} is not a hex chain id, such as 0x1")));
    }
    Chain::from_str(chain_id).map_err(|e| StreamsError::invalid(format!("chainId: {e}")))
}

fn parse_addresses(list: &AddressList) -> Result<Vec<Address>, StreamsError> {
    let texts = list.as_slice();
    if texts.is_empty() {
        return Err(StreamsError::invalid("address: at least one address"));
    }
    let mut problems = Vec::new();
    let mut addresses = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        let at = if matches!(list, AddressList::One(_)) { "address".to_string() } else { format!("address[{i}]") };
        match text.parse::<Address>() {
            Ok(address) if text.starts_with("0x") => addresses.push(address),
            _ => problems.push(format!("{at}: {text:?} is not an address (0x and 40 hex digits)")),
        }
    }
    if problems.is_empty() { Ok(addresses) } else { Err(StreamsError::Invalid(problems)) }
}

fn state_name(state: DeliveryState) -> &'static str {
    match state {
        DeliveryState::Pending => "pending",
        DeliveryState::Delivered => "delivered",
        DeliveryState::Failed => "failed",
    }
}

fn history_item(
    delivery: &Delivery,
    last: Option<&AttemptRecord>,
    with_payload: bool,
) -> Result<StreamHistoryItem, StreamsError> {
    let payload = with_payload
        .then(|| serde_json::from_str::<StreamWebhook>(&delivery.payload))
        .transpose()
        .map_err(|e| StreamsError::Damaged { what: "delivery", why: e.to_string() })?;
    Ok(StreamHistoryItem {
        id: delivery.id,
        date: delivery.created_at,
        payload,
        tiny_payload: StreamTinyPayload {
            chain_id: delivery.chain_id.clone(),
            confirmed: delivery.confirmed,
            block: delivery.block_number.to_string(),
            records: delivery.records.logs + delivery.records.txs + delivery.records.txs_internal,
            // The `retries` of the payload last sent.
            retries: u64::from(delivery.attempts.saturating_sub(1)),
        },
        error_message: last.filter(|a| !a.delivered).and_then(|a| a.error.clone()).unwrap_or_default(),
        webhook_url: delivery.webhook_url.clone(),
        stream_id: delivery.stream_id.to_string(),
        tag: delivery.tag.clone(),
    })
}

fn delivery_log(attempt: &AttemptRecord) -> StreamDeliveryLog {
    StreamDeliveryLog {
        id: attempt.delivery_id,
        stream_id: attempt.stream_id.to_string(),
        chain: attempt.chain_id.clone(),
        webhook_url: attempt.webhook_url.clone(),
        tag: attempt.tag.clone(),
        retries: u64::from(attempt.number.saturating_sub(1)),
        delivery_status: if attempt.delivered { DeliveryStatus::Success } else { DeliveryStatus::Failed },
        block_number: attempt.block_number,
        error_message: attempt.error.clone().unwrap_or_default(),
        kind: "evm".into(),
        created_at: attempt.at,
        status_code: attempt.status_code,
        latency_ms: Some(attempt.latency_ms),
    }
}

fn dashboard_attempt(attempt: &AttemptRecord) -> DashboardAttempt {
    DashboardAttempt {
        number: attempt.number,
        at: attempt.at,
        status_code: attempt.status_code,
        latency_ms: attempt.latency_ms,
        error: attempt.error.clone(),
        delivered: attempt.delivered,
    }
}
