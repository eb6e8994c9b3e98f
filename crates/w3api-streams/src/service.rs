//! The streams management API: what each operation does with the store.
//! The HTTP layer calls these and writes their answers; the engine's
//! shared state is in `engine.rs`, the conversions of stored records in
//! `records.rs`.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use alloy_primitives::Address;
use chrono::Utc;
use tokio::sync::Notify;
use uuid::Uuid;
use w3api_source::{DataSource, SourceError};
use w3api_store::{AttemptFilter, DeliveryFilter, Settings, Store, StoreCell, StoredStream};
use w3api_types::{
    AddressList, EvmStream, EvmStreamCreate, EvmStreamUpdate, EvmStreamsPage, SettingsRegion, StreamAddress,
    StreamAddressResponse, StreamAddressesPage, StreamBlockRequest, StreamDeliveryLogsPage, StreamHistoryItem,
    StreamHistoryPage, StreamSettings, StreamStatus, StreamUsage, StreamUsageStats, StreamWebhook,
};

use crate::config::StreamsConfig;
use crate::cursor::{self, Listing};
use crate::deliver;
use crate::engine::{self, Engine, Inner};
use crate::error::StreamsError;
use crate::follow;
use crate::records::{
    DashboardDelivery, Kept, apply, chain_of, cut, dashboard_attempt, delivery_log, history_item, kept_of, new_stream,
    open_value, parse_addresses, preview_settings, settings_of, shown, state_name, status_message,
};
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
        engine::start(&self.inner)
    }

    async fn store(&self) -> Result<&Arc<dyn Store>, StreamsError> {
        self.inner.store().await
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
        let stored = self.stored(id).await?;
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
        let kept = kept_of(&self.stored(id).await?)?;
        let spec = StreamSpec::parse(apply(kept.api.clone(), change))?;
        spec.check_deliverable(&self.inner.config.webhook_hosts)?;
        let starts = self.starts(&spec, &kept).await?;
        self.send_test_webhook(&spec.api.webhook_url).await?;
        let settings = serde_json::to_string(&Kept { api: spec.api, starts }).expect("settings encode");
        let store = self.store().await?;
        let updated = store.update_stream(id, &settings, Utc::now()).await?.ok_or(StreamsError::StreamNotFound(id))?;
        self.read(updated).await
    }

    /// Deletes a stream: deliveries not yet made are dropped, its history is kept.
    pub async fn delete(&self, id: Uuid) -> Result<EvmStream, StreamsError> {
        let shown = self.read(self.stored(id).await?).await?;
        self.store().await?.delete_stream(id).await?.ok_or(StreamsError::StreamNotFound(id))?;
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
        let api = settings_of(&self.stored(id).await?)?;
        let starts = self.starts(&StreamSpec::parse(api.clone())?, &Kept::default()).await?;
        let store = self.store().await?;
        let copy = store.create_stream(&new_stream(Kept { api, starts })).await?;
        store.add_addresses(copy.id, &self.every_address(id).await?).await?;
        self.read(copy).await
    }

    /// A page of the addresses a stream watches.
    pub async fn addresses(
        &self,
        id: Uuid,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<StreamAddressesPage, StreamsError> {
        self.stored(id).await?;
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
        let mut listing = self.store().await?.addresses(id, after, limit + 1).await?;
        let next = cut(&mut listing.items, limit).copied();
        Ok(StreamAddressesPage {
            result: listing.items.iter().map(|a| StreamAddress { address: format!("{a:#x}") }).collect(),
            cursor: next.map(|a| cursor::encode(Listing::Addresses, &format!("{id}/{a:#x}"))),
            total: listing.total,
        })
    }

    /// Adds addresses to a stream.
    pub async fn add_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let addresses = self.listed_for(id, &list).await?;
        self.store().await?.add_addresses(id, &addresses).await?;
        Ok(StreamAddressResponse { stream_id: id, address: list })
    }

    /// Removes addresses from a stream.
    pub async fn remove_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let addresses = self.listed_for(id, &list).await?;
        self.store().await?.remove_addresses(id, &addresses).await?;
        Ok(StreamAddressResponse { stream_id: id, address: list })
    }

    /// Makes a stream watch exactly the addresses sent.
    pub async fn replace_addresses(&self, id: Uuid, list: AddressList) -> Result<StreamAddressResponse, StreamsError> {
        let wanted: HashSet<Address> = self.listed_for(id, &list).await?.into_iter().collect();
        let mut gone = self.every_address(id).await?;
        gone.retain(|a| !wanted.contains(a));
        let store = self.store().await?;
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
    async fn effective_settings(&self) -> Result<Settings, StreamsError> {
        self.inner.settings().await
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
            self.stored(id).await?;
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

    /// The stream `id`, which must exist.
    async fn stored(&self, id: Uuid) -> Result<StoredStream, StreamsError> {
        self.store().await?.stream(id).await?.ok_or(StreamsError::StreamNotFound(id))
    }

    /// The addresses of `list`, sent to change those of the stream `id`: an
    /// invalid list is refused before a missing stream.
    async fn listed_for(&self, id: Uuid, list: &AddressList) -> Result<Vec<Address>, StreamsError> {
        let addresses = parse_addresses(list)?;
        self.stored(id).await?;
        Ok(addresses)
    }

    /// Every address the stream `id` watches, read in pages a store answers
    /// at once.
    async fn every_address(&self, id: Uuid) -> Result<Vec<Address>, StreamsError> {
        let store = self.store().await?;
        let mut every = Vec::new();
        loop {
            let page = store.addresses(id, every.last().copied(), 1000).await?;
            let full = page.items.len() == 1000;
            every.extend(page.items);
            if !full {
                return Ok(every);
            }
        }
    }
}
