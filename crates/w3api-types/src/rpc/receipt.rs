//! Receipts and logs as the execution API returns them.

use alloy_primitives::{Address, B256, Bloom, Bytes};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire::Hex;

/// An event a transaction emitted, with where it stands on the chain.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// Contract that emitted it.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Indexed topics, the event signature's hash first (anonymous events have none).
    #[serde_as(as = "Vec<Hex>")]
    pub topics: Vec<B256>,
    /// ABI-encoded non-indexed arguments.
    #[serde_as(as = "Hex")]
    pub data: Bytes,
    /// Number of the block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub block_number: Option<u64>,
    /// Hash of the block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub block_hash: Option<B256>,
    /// Timestamp of the block, where the node reports it.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_timestamp: Option<u64>,
    /// Hash of the transaction; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub transaction_hash: Option<B256>,
    /// Position of the transaction in its block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub transaction_index: Option<u64>,
    /// Position of the log among all logs of its block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub log_index: Option<u64>,
    /// True when a reorganisation took the log's block off the chain.
    #[serde(default)]
    pub removed: bool,
}

/// The outcome of an included transaction.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// Hash of the transaction.
    #[serde_as(as = "Hex")]
    pub transaction_hash: B256,
    /// Position of the transaction in its block.
    #[serde_as(as = "Hex")]
    pub transaction_index: u64,
    /// Hash of the block.
    #[serde_as(as = "Hex")]
    pub block_hash: B256,
    /// Number of the block.
    #[serde_as(as = "Hex")]
    pub block_number: u64,
    /// Sender.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// Recipient; `None` for a contract creation.
    #[serde_as(as = "Option<Hex>")]
    pub to: Option<Address>,
    /// Gas used by this transaction and every one before it in the block.
    #[serde_as(as = "Hex")]
    pub cumulative_gas_used: u64,
    /// Gas used by this transaction.
    #[serde_as(as = "Hex")]
    pub gas_used: u64,
    /// Address of the contract a creation made; `None` otherwise.
    #[serde_as(as = "Option<Hex>")]
    pub contract_address: Option<Address>,
    /// Logs the transaction emitted.
    pub logs: Vec<Log>,
    /// Bloom filter of the logs.
    #[serde_as(as = "Hex")]
    pub logs_bloom: Bloom,
    /// Transaction type.
    #[serde(rename = "type")]
    #[serde_as(as = "Hex")]
    pub tx_type: u8,
    /// 1 on success, 0 on failure (Byzantium and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u8>,
    /// State root after the transaction (before Byzantium).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<B256>,
    /// Price per gas the sender paid: base fee plus the tip actually given.
    #[serde_as(as = "Hex")]
    pub effective_gas_price: u128,
    /// Blob gas used (EIP-4844).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_gas_used: Option<u64>,
    /// Price per blob gas paid (EIP-4844).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_gas_price: Option<u128>,
}

impl Receipt {
    /// This receipt as alloy's RPC type, for re-deriving receipts roots and
    /// blooms.
    pub fn to_alloy(&self) -> Result<alloy_rpc_types_eth::TransactionReceipt, serde_json::Error> {
        super::via_json(self)
    }
}

impl Log {
    /// This log as alloy's RPC type.
    pub fn to_alloy(&self) -> Result<alloy_rpc_types_eth::Log, serde_json::Error> {
        super::via_json(self)
    }
}
