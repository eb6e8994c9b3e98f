//! Conversions between what the store keeps (streams, deliveries,
//! attempts) and what the management API shows, and the checks of the
//! API's inputs that need no store.

use std::collections::BTreeMap;
use std::str::FromStr;

use alloy_primitives::Address;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use w3api_store::{AttemptRecord, Delivery, DeliveryState, NewStream, StoredStream};
use w3api_types::{
    AddressList, Chain, DeliveryStatus, EvmStream, EvmStreamCreate, EvmStreamUpdate, StreamBlockRequest,
    StreamDeliveryLog, StreamHistoryItem, StreamStatus, StreamTinyPayload, StreamWebhook,
};

use crate::error::StreamsError;

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

/// Cuts a page read one item long back to `limit`: the last item kept,
/// where the next page starts, when there is a next page.
pub(crate) fn cut<T>(items: &mut Vec<T>, limit: usize) -> Option<&T> {
    if items.len() <= limit {
        return None;
    }
    items.truncate(limit);
    items.last()
}

/// A value of an open enum, known or not (reading one never fails).
pub(crate) fn open_value<T: FromStr<Err = std::convert::Infallible>>(text: &str) -> T {
    match text.parse() {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

/// A new active stream, to be stored with what `kept` holds.
pub(crate) fn new_stream(kept: Kept) -> NewStream {
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

/// A stored stream as the API shows it, with how many addresses it watches.
pub(crate) fn shown(stored: &StoredStream, addresses: u64) -> Result<EvmStream, StreamsError> {
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
pub(crate) fn apply(mut api: EvmStreamCreate, change: EvmStreamUpdate) -> EvmStreamCreate {
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
pub(crate) fn preview_settings(request: StreamBlockRequest, chain_id: &str) -> EvmStreamCreate {
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

/// The chain of a hex chain id, as a path names it.
pub(crate) fn chain_of(chain_id: &str) -> Result<Chain, StreamsError> {
    if !chain_id.starts_with("0x") {
        return Err(StreamsError::invalid(format!("chainId: {chain_id:?} is not a hex chain id, such as 0x1")));
    }
    Chain::from_str(chain_id).map_err(|e| StreamsError::invalid(format!("chainId: {e}")))
}

/// The addresses of a list, every one that is not refused by name.
pub(crate) fn parse_addresses(list: &AddressList) -> Result<Vec<Address>, StreamsError> {
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

/// A delivery state as the deliveries page names it.
pub(crate) fn state_name(state: DeliveryState) -> &'static str {
    match state {
        DeliveryState::Pending => "pending",
        DeliveryState::Delivered => "delivered",
        DeliveryState::Failed => "failed",
    }
}

/// A delivery as the history lists it, with its last failure and, when
/// asked, its payload.
pub(crate) fn history_item(
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

/// An attempt as the delivery logs list it.
pub(crate) fn delivery_log(attempt: &AttemptRecord) -> StreamDeliveryLog {
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

/// An attempt as the deliveries page shows it.
pub(crate) fn dashboard_attempt(attempt: &AttemptRecord) -> DashboardAttempt {
    DashboardAttempt {
        number: attempt.number,
        at: attempt.at,
        status_code: attempt.status_code,
        latency_ms: attempt.latency_ms,
        error: attempt.error.clone(),
        delivered: attempt.delivered,
    }
}
