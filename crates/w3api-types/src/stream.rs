//! Configuration of an EVM stream (`GET /streams/evm/{id}`).

use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;
use uuid::Uuid;

use crate::open_enum::open_enum;
use crate::wire;

open_enum! {
    /// Lifecycle state of a stream.
    pub enum StreamStatus {
        /// Deliveries are being made.
        Active = "active",
        /// Deliveries are suspended by the owner.
        Paused = "paused",
        /// Deliveries failed and were suspended; see `statusMessage`.
        Error = "error",
        /// The stream is shut down for good.
        Terminated = "terminated",
    }
}

/// An EVM stream: which on-chain activity is delivered to which webhook.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EvmStream {
    /// Identifier of the stream.
    pub id: Uuid,
    /// Where deliveries are posted.
    pub webhook_url: String,
    /// What the stream is for.
    pub description: String,
    /// Label sent with each delivery.
    pub tag: String,
    /// Event signatures or topic hashes the stream listens for.
    #[serde(default)]
    pub topic0: Option<Vec<String>>,
    /// Whether every address is watched rather than a list.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_addresses: Option<bool>,
    /// Whether native transactions are delivered.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_native_txs: Option<bool>,
    /// Whether contract logs are delivered.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_contract_logs: Option<bool>,
    /// Whether internal transactions are delivered.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_internal_txs: Option<bool>,
    /// Whether every log of a matching transaction is delivered.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_all_tx_logs: Option<bool>,
    /// Native balances to attach to deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_native_balances: Option<Vec<StreamNativeBalances>>,
    /// ABI of the events the stream decodes.
    #[serde(default)]
    pub abi: Option<Vec<AbiItem>>,
    /// Per-topic filters.
    #[serde(default)]
    pub advanced_options: Option<Vec<StreamAdvancedOption>>,
    /// Hex chain ids the stream watches (`"0x1"`).
    pub chain_ids: Vec<String>,
    /// Whether this is a demo stream.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demo: Option<bool>,
    /// Contract reads whose results are attached to deliveries.
    #[serde(default)]
    pub triggers: Option<Vec<StreamTrigger>>,
    /// Whether addresses flagged as spam are filtered out.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_possible_spam_addresses: Option<bool>,
    /// Lifecycle state.
    pub status: StreamStatus,
    /// Explanation of the state.
    pub status_message: String,
    /// When the configuration last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    /// How many addresses the stream watches.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_of_addresses: Option<u64>,
}

/// Which native balances a delivery carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamNativeBalances {
    /// Selectors naming the addresses, such as `$fromAddress`.
    pub selectors: Vec<String>,
    /// Kind of record the selectors apply to.
    #[serde(rename = "type")]
    pub kind: StreamNativeBalanceType,
}

open_enum! {
    /// Kind of record a trigger applies to.
    pub enum StreamTriggerType {
        /// A transaction.
        Tx = "tx",
        /// A log.
        Log = "log",
        /// An ERC20 transfer.
        Erc20transfer = "erc20transfer",
        /// An ERC20 approval.
        Erc20approval = "erc20approval",
        /// An NFT transfer.
        Nfttransfer = "nfttransfer",
    }
}

open_enum! {
    /// Kind of record a native-balance selector applies to: the trigger
    /// kinds, and internal transactions.
    pub enum StreamNativeBalanceType {
        /// A transaction.
        Tx = "tx",
        /// A log.
        Log = "log",
        /// An ERC20 transfer.
        Erc20transfer = "erc20transfer",
        /// An ERC20 approval.
        Erc20approval = "erc20approval",
        /// An NFT transfer.
        Nfttransfer = "nfttransfer",
        /// An internal transaction.
        InternalTx = "internalTx",
    }
}

/// A filter for one event topic.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamAdvancedOption {
    /// The event the filter applies to.
    pub topic0: String,
    /// The filter expression, such as `{"eq": ["tokenId", "1"]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<serde_json::Map<String, serde_json::Value>>,
    /// Whether native transactions are delivered for this topic.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_native_txs: Option<bool>,
}

/// A contract read whose result is attached to deliveries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamTrigger {
    /// Kind of record the trigger runs for.
    #[serde(rename = "type")]
    pub kind: StreamTriggerType,
    /// Contract to call, or a selector such as `$contract`.
    pub contract_address: String,
    /// Arguments of the call: values or selectors such as `$to`, or lists of
    /// them for array arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<TriggerInput>>,
    /// ABI of the function called.
    pub function_abi: AbiItem,
    /// Event the trigger is restricted to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic0: Option<String>,
    /// Address the call is made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_from: Option<String>,
}

/// One argument of a trigger's call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum TriggerInput {
    /// A value or a selector such as `$to`.
    One(String),
    /// Values or selectors for an array argument; production types the
    /// items as any JSON.
    Many(Vec<serde_json::Value>),
}

/// One entry of a contract ABI: an event, a function, a constructor or an error.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AbiItem {
    /// Whether the event is anonymous.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<bool>,
    /// Whether the function is read-only (pre-0.5 ABIs).
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constant: Option<bool>,
    /// Parameters of the event or function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<AbiParameter>>,
    /// Name of the event or function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Return values of the function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Vec<AbiParameter>>,
    /// Whether the function accepts ether (pre-0.5 ABIs).
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payable: Option<bool>,
    /// `pure`, `view`, `nonpayable` or `payable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_mutability: Option<String>,
    /// `event`, `function`, `constructor`, `fallback`, `receive` or `error`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Gas limit of the call.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas: Option<u64>,
}

/// A parameter or return value in an ABI entry.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AbiParameter {
    /// Parameter name; empty for unnamed ones.
    pub name: String,
    /// Solidity type, such as `address` or `tuple`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether an event parameter is indexed.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
    /// Members of a tuple.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<AbiParameter>>,
    /// Type as the compiler names it, such as `struct Order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_type: Option<String>,
}
