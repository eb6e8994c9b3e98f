//! Bodies and answers of the streams management API: creating, changing and
//! listing streams, their addresses, the project's settings, the delivery
//! history and its statistics.

use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::open_enum::open_enum;
use crate::page::CountedPage;
use crate::stream::{AbiItem, EvmStream, StreamAdvancedOption, StreamNativeBalances, StreamTrigger};
use crate::stream_webhook::StreamWebhook;

/// The settings of a new stream (`PUT /streams/evm`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvmStreamCreate {
    /// Where deliveries are posted.
    pub webhook_url: String,
    /// What the stream is for.
    pub description: String,
    /// Label sent with each delivery.
    pub tag: String,
    /// Events listened for, as signatures or topic hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic0: Option<Vec<String>>,
    /// Deliver the events of every contract (needs `abi` and `topic0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_addresses: Option<bool>,
    /// Deliver transactions from or to watched addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_native_txs: Option<bool>,
    /// Deliver logs of transactions a watched address sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_contract_logs: Option<bool>,
    /// Deliver value moves inside contract calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_internal_txs: Option<bool>,
    /// Deliver every log of a transaction that matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_all_tx_logs: Option<bool>,
    /// Native balances to attach to deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_native_balances: Option<Vec<StreamNativeBalances>>,
    /// ABI of the events in `topic0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abi: Option<Vec<AbiItem>>,
    /// Per-topic filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advanced_options: Option<Vec<StreamAdvancedOption>>,
    /// Hex ids of the chains watched.
    pub chain_ids: Vec<String>,
    /// Whether this is a demo stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demo: Option<bool>,
    /// Contract reads whose results are attached to deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTrigger>>,
    /// Leave out transfers of tokens flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_possible_spam_addresses: Option<bool>,
}

/// Settings of a stream to change (`POST /streams/evm/{id}`); a field left
/// out keeps its value, and `null` clears a nullable one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvmStreamUpdate {
    /// Where deliveries are posted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    /// What the stream is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Label sent with each delivery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Events listened for.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "::serde_with::rust::double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<String>>"))]
    pub topic0: Option<Option<Vec<String>>>,
    /// Deliver the events of every contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_addresses: Option<bool>,
    /// Deliver transactions from or to watched addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_native_txs: Option<bool>,
    /// Deliver logs of transactions a watched address sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_contract_logs: Option<bool>,
    /// Deliver value moves inside contract calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_internal_txs: Option<bool>,
    /// Deliver every log of a transaction that matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_all_tx_logs: Option<bool>,
    /// Native balances to attach to deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_native_balances: Option<Vec<StreamNativeBalances>>,
    /// ABI of the events in `topic0`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "::serde_with::rust::double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<AbiItem>>"))]
    pub abi: Option<Option<Vec<AbiItem>>>,
    /// Per-topic filters.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "::serde_with::rust::double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<StreamAdvancedOption>>"))]
    pub advanced_options: Option<Option<Vec<StreamAdvancedOption>>>,
    /// Hex ids of the chains watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_ids: Option<Vec<String>>,
    /// Whether this is a demo stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demo: Option<bool>,
    /// Contract reads whose results are attached to deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "::serde_with::rust::double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<StreamTrigger>>"))]
    pub triggers: Option<Option<Vec<StreamTrigger>>>,
    /// Leave out transfers of tokens flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_possible_spam_addresses: Option<bool>,
}

/// Stream settings to compute one block's payload with
/// (`POST /streams/evm/{chainId}/block/{blockNumber}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StreamBlockRequest {
    /// Label put in the payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Events listened for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic0: Option<Vec<String>>,
    /// Match the events of every contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_addresses: Option<bool>,
    /// Match transactions from or to the addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_native_txs: Option<bool>,
    /// Match logs of transactions the addresses sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_contract_logs: Option<bool>,
    /// Match value moves inside contract calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_internal_txs: Option<bool>,
    /// Every log of a transaction that matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_all_tx_logs: Option<bool>,
    /// Leave out transfers of tokens flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_possible_spam_addresses: Option<bool>,
    /// Native balances to attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_native_balances: Option<Vec<StreamNativeBalances>>,
    /// ABI of the events in `topic0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abi: Option<Vec<AbiItem>>,
    /// Per-topic filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advanced_options: Option<Vec<StreamAdvancedOption>>,
    /// Contract reads whose results are attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTrigger>>,
    /// The addresses watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses: Option<Vec<String>>,
}

/// A page of streams, oldest first.
pub type EvmStreamsPage = CountedPage<EvmStream>;

/// A new status for a stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StreamStatusUpdate {
    /// `active` or `paused`.
    pub status: crate::StreamStatus,
}

/// One address or a list of them, as the address operations take and answer them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum AddressList {
    /// One address.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl AddressList {
    /// The addresses, one or many, as sent.
    pub fn as_slice(&self) -> &[String] {
        match self {
            AddressList::One(one) => std::slice::from_ref(one),
            AddressList::Many(many) => many,
        }
    }
}

/// Addresses to add, remove, or replace a stream's with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StreamAddressChange {
    /// The addresses.
    pub address: AddressList,
}

/// The answer of the address operations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamAddressResponse {
    /// The stream changed.
    pub stream_id: Uuid,
    /// The addresses, as sent.
    pub address: AddressList,
}

/// An address a stream watches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamAddress {
    /// The address, lowercase hex.
    pub address: String,
}

/// A page of a stream's addresses, in ascending order.
pub type StreamAddressesPage = CountedPage<StreamAddress>;

open_enum! {
    /// Where production posts webhooks from.
    pub enum SettingsRegion {
        /// US East (N. Virginia).
        UsEast1 = "us-east-1",
        /// US West (Oregon).
        UsWest2 = "us-west-2",
        /// Europe (Frankfurt).
        EuCentral1 = "eu-central-1",
        /// Asia Pacific (Singapore).
        ApSoutheast1 = "ap-southeast-1",
    }
}

/// The project's webhook settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StreamSettings {
    /// Where production posts webhooks from (kept and shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<SettingsRegion>,
    /// The secret deliveries are signed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<String>,
}

/// A delivery, in brief.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamTinyPayload {
    /// Hex id of the chain.
    pub chain_id: String,
    /// Whether the block was confirmed.
    pub confirmed: bool,
    /// The block's number, in decimal.
    pub block: String,
    /// Logs, transactions and internal transactions carried.
    pub records: u64,
    /// Attempts made.
    pub retries: u64,
}

/// A delivery, as the history lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamHistoryItem {
    /// The delivery's identifier.
    pub id: Uuid,
    /// When it was queued.
    pub date: DateTime<Utc>,
    /// Its body; left out with `excludePayload=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<StreamWebhook>,
    /// Its body, in brief.
    pub tiny_payload: StreamTinyPayload,
    /// Why the last attempt failed; empty when it did not.
    pub error_message: String,
    /// Where it is posted.
    pub webhook_url: String,
    /// The stream.
    pub stream_id: String,
    /// The stream's tag.
    pub tag: String,
}

/// A page of deliveries, newest first.
pub type StreamHistoryPage = CountedPage<StreamHistoryItem>;

open_enum! {
    /// How an attempt ended.
    pub enum DeliveryStatus {
        /// The receiver did not answer 2xx.
        Failed = "failed",
        /// The receiver answered 2xx.
        Success = "success",
    }
}

/// One attempt to deliver.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamDeliveryLog {
    /// The delivery attempted.
    pub id: Uuid,
    /// The stream.
    pub stream_id: String,
    /// Hex id of the chain.
    pub chain: String,
    /// Where it was posted.
    pub webhook_url: String,
    /// The stream's tag.
    pub tag: String,
    /// Attempts of the delivery before this one.
    pub retries: u64,
    /// How it ended.
    pub delivery_status: DeliveryStatus,
    /// The block delivered.
    pub block_number: u64,
    /// Why it failed; empty when it did not.
    pub error_message: String,
    /// Always `evm` here.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// The receiver's HTTP status; null when it did not answer.
    #[serde(default)]
    pub status_code: Option<u16>,
    /// How long the receiver took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

/// A page of attempts, newest first.
pub type StreamDeliveryLogsPage = CountedPage<StreamDeliveryLog>;

/// Delivery totals of one stream.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamUsage {
    /// Attempts answered 2xx.
    pub total_webhooks_delivered: u64,
    /// Attempts not answered 2xx.
    pub total_webhooks_failed: u64,
    /// Logs in delivered payloads.
    pub total_logs_processed: u64,
    /// Transactions in delivered payloads.
    pub total_txs_processed: u64,
    /// Internal transactions in delivered payloads.
    pub total_txs_internal_processed: u64,
    /// The stream.
    pub stream_id: String,
}

/// Delivery totals of the project, or of one stream.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamUsageStats {
    /// Attempts answered 2xx.
    pub total_webhooks_delivered: u64,
    /// Attempts not answered 2xx.
    pub total_webhooks_failed: u64,
    /// Logs in delivered payloads.
    pub total_logs_processed: u64,
    /// Transactions in delivered payloads.
    pub total_txs_processed: u64,
    /// Internal transactions in delivered payloads.
    pub total_txs_internal_processed: u64,
    /// The totals of each stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<StreamUsage>>,
    /// Since when the totals count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime<Utc>>,
    /// When they last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
}
