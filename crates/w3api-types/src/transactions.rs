//! Blocks and transactions as the Data API writes them
//! (`GET /api/v2.2/block/{block_number_or_hash}`,
//! `GET /api/v2.2/transaction/{transaction_hash}` and its `/verbose` form):
//! the node's block, transactions, receipts and logs, with numbers in
//! decimal and times as dates.

use std::borrow::Cow;

use alloy_primitives::{Address, B256, Bytes, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::page::NumberedPage;
use crate::wire;

/// A block with every transaction, each with its receipt and logs.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChainBlock {
    /// The block's time.
    pub timestamp: DateTime<Utc>,
    /// Its number.
    #[serde_as(as = "wire::DecStr")]
    pub number: u64,
    /// Its hash.
    #[serde_as(as = "wire::Hex")]
    pub hash: B256,
    /// Its parent's hash.
    #[serde_as(as = "wire::Hex")]
    pub parent_hash: B256,
    /// Its nonce, in hex (zero after the merge).
    pub nonce: String,
    /// The hash of its uncles' list.
    #[serde_as(as = "wire::Hex")]
    pub sha3_uncles: B256,
    /// The bloom filter of its logs, in hex.
    #[serde_as(as = "wire::Hex")]
    pub logs_bloom: Bytes,
    /// The root of its transactions' trie.
    #[serde_as(as = "wire::Hex")]
    pub transactions_root: B256,
    /// The root of the state after it.
    #[serde_as(as = "wire::Hex")]
    pub state_root: B256,
    /// The root of its receipts' trie.
    #[serde_as(as = "wire::Hex")]
    pub receipts_root: B256,
    /// Who collects its fees.
    #[serde_as(as = "wire::Hex")]
    pub miner: Address,
    /// Its difficulty.
    #[serde_as(as = "wire::DecStr")]
    pub difficulty: U256,
    /// The chain's difficulty up to it; 0 where the node does not say.
    #[serde_as(as = "wire::DecStr")]
    pub total_difficulty: U256,
    /// Its size in bytes.
    #[serde_as(as = "wire::DecStr")]
    pub size: u64,
    /// Its extra data, in hex.
    #[serde_as(as = "wire::Hex")]
    pub extra_data: Bytes,
    /// Its gas limit.
    #[serde_as(as = "wire::DecStr")]
    pub gas_limit: u64,
    /// The gas its transactions used.
    #[serde_as(as = "wire::DecStr")]
    pub gas_used: u64,
    /// How many transactions it holds.
    #[serde_as(as = "wire::DecStr")]
    pub transaction_count: u64,
    /// Its transactions, in order.
    pub transactions: Vec<BlockTransaction>,
}

/// A transaction with its receipt and logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BlockTransaction {
    /// The transaction and its receipt.
    #[serde(flatten)]
    pub transaction: MinedTransaction,
    /// Its logs, in order.
    pub logs: Vec<TransactionLog>,
    /// With `include=internal_transactions`, the calls it made inside the
    /// EVM, in the order they began; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_transactions: Option<Vec<InternalTransaction>>,
}

/// A mined transaction and its receipt, without its logs: what
/// [`BlockTransaction`] and [`BlockTransactionVerbose`] share.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MinedTransaction {
    /// Its hash.
    #[serde_as(as = "wire::Hex")]
    pub hash: B256,
    /// The sender's nonce.
    #[serde_as(as = "wire::DecStr")]
    pub nonce: u64,
    /// Its position in the block.
    #[serde_as(as = "wire::DecStr")]
    pub transaction_index: u64,
    /// The sender.
    #[serde_as(as = "wire::Hex")]
    pub from_address: Address,
    /// The sender's label, where the server knows one.
    pub from_address_label: Option<String>,
    /// The entity the sender belongs to, where the server knows one.
    pub from_address_entity: Option<String>,
    /// That entity's logo.
    pub from_address_entity_logo: Option<String>,
    /// The recipient; `None` for a contract creation.
    #[serde_as(as = "Option<wire::Hex>")]
    pub to_address: Option<Address>,
    /// The recipient's label, where the server knows one.
    pub to_address_label: Option<String>,
    /// The entity the recipient belongs to, where the server knows one.
    pub to_address_entity: Option<String>,
    /// That entity's logo.
    pub to_address_entity_logo: Option<String>,
    /// Wei sent.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// Its gas limit.
    #[serde_as(as = "wire::DecStr")]
    pub gas: u64,
    /// The price paid per gas, in wei.
    #[serde_as(as = "wire::DecStr")]
    pub gas_price: U256,
    /// Its call data, in hex.
    #[serde_as(as = "wire::Hex")]
    pub input: Bytes,
    /// Gas used in the block up to and with it.
    #[serde_as(as = "wire::DecStr")]
    pub receipt_cumulative_gas_used: u64,
    /// Gas it used.
    #[serde_as(as = "wire::DecStr")]
    pub receipt_gas_used: u64,
    /// The contract it created.
    #[serde_as(as = "Option<wire::Hex>")]
    pub receipt_contract_address: Option<Address>,
    /// The state root of a pre-Byzantium receipt.
    #[serde_as(as = "Option<wire::Hex>")]
    pub receipt_root: Option<B256>,
    /// `1` when it succeeded, `0` when it reverted.
    #[serde_as(as = "wire::DecStr")]
    pub receipt_status: u8,
    /// Its block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Its block's number.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// Its block's hash.
    #[serde_as(as = "wire::Hex")]
    pub block_hash: B256,
}

/// A log of a transaction.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TransactionLog {
    /// Its position in the block.
    #[serde_as(as = "wire::DecStr")]
    pub log_index: u64,
    /// The transaction that logged it.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: B256,
    /// That transaction's position in the block.
    #[serde_as(as = "wire::DecStr")]
    pub transaction_index: u64,
    /// The contract that logged it.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// Its data, in hex.
    #[serde_as(as = "wire::Hex")]
    pub data: Bytes,
    /// Its first topic (the event's signature hash, for an event that is not anonymous).
    #[serde_as(as = "Option<wire::Hex>")]
    pub topic0: Option<B256>,
    /// Its second topic.
    #[serde_as(as = "Option<wire::Hex>")]
    pub topic1: Option<B256>,
    /// Its third topic.
    #[serde_as(as = "Option<wire::Hex>")]
    pub topic2: Option<B256>,
    /// Its fourth topic.
    #[serde_as(as = "Option<wire::Hex>")]
    pub topic3: Option<B256>,
    /// Its block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Its block's number.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// Its block's hash.
    #[serde_as(as = "wire::Hex")]
    pub block_hash: B256,
}

/// A transaction with its call and logs decoded where their ABI is known.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BlockTransactionVerbose {
    /// The transaction and its receipt.
    #[serde(flatten)]
    pub transaction: MinedTransaction,
    /// The fee it paid, in whole units of the native currency.
    pub transaction_fee: String,
    /// Its logs, each decoded where its event is known.
    pub logs: Vec<LogVerbose>,
    /// Its call, decoded where its function is known.
    pub decoded_call: Option<DecodedCall>,
    /// With `include=internal_transactions`, the calls it made inside the
    /// EVM, in the order they began; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_transactions: Option<Vec<InternalTransaction>>,
}

/// A log, with its event decoded where the event is known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LogVerbose {
    /// The log.
    #[serde(flatten)]
    pub log: TransactionLog,
    /// Its event; `None` where the server knows no ABI for it.
    pub decoded_event: Option<DecodedEvent>,
}

/// An event or a function call, decoded: the spec's `DecodedEvent` and
/// `DecodedCall` have the same fields, and `kind` tells them apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DecodedItem {
    /// Its signature, such as `Transfer(address,address,uint256)` or
    /// `transfer(address,uint256)`.
    pub signature: Cow<'static, str>,
    /// Its name.
    pub label: Cow<'static, str>,
    /// `event` or `function`.
    #[serde(rename = "type")]
    pub kind: Cow<'static, str>,
    /// Its parameters (a call's arguments), in order.
    pub params: Vec<DecodedParam>,
}

/// An event, decoded (`kind` is `event`).
pub type DecodedEvent = DecodedItem;

/// A function call, decoded (`kind` is `function`).
pub type DecodedCall = DecodedItem;

/// One decoded parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DecodedParam {
    /// Its name in the ABI.
    pub name: Cow<'static, str>,
    /// Its value as text: decimal for numbers, hex for bytes and addresses.
    pub value: String,
    /// Its Solidity type.
    #[serde(rename = "type")]
    pub kind: Cow<'static, str>,
}

/// A block as a Data API path names it: its number in decimal digits, or
/// its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockNumberOrHash {
    /// By number.
    Number(u64),
    /// By hash.
    Hash(B256),
}

/// Text that is not a [`BlockNumberOrHash`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a block number (decimal digits) or hash (0x and 64 hex digits)")]
pub struct InvalidBlockNumberOrHash(pub String);

impl std::str::FromStr for BlockNumberOrHash {
    type Err = InvalidBlockNumberOrHash;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidBlockNumberOrHash(text.into());
        if let Some(hex) = text.strip_prefix("0x") {
            if hex.len() != 64 {
                return Err(invalid());
            }
            return hex.parse::<B256>().map(BlockNumberOrHash::Hash).map_err(|_| invalid());
        }
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        text.parse().map(BlockNumberOrHash::Number).map_err(|_| invalid())
    }
}

impl From<u64> for BlockNumberOrHash {
    fn from(number: u64) -> Self {
        BlockNumberOrHash::Number(number)
    }
}

impl From<B256> for BlockNumberOrHash {
    fn from(hash: B256) -> Self {
        BlockNumberOrHash::Hash(hash)
    }
}

impl std::fmt::Display for BlockNumberOrHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockNumberOrHash::Number(number) => write!(f, "{number}"),
            BlockNumberOrHash::Hash(hash) => write!(f, "{hash:#x}"),
        }
    }
}

wire::text_form!(BlockNumberOrHash);

#[cfg(feature = "schema")]
impl JsonSchema for BlockNumberOrHash {
    fn schema_name() -> Cow<'static, str> {
        "BlockNumberOrHash".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": "^([0-9]{1,20}|0x[0-9a-fA-F]{64})$" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_named_by_decimal_number_or_full_hash() {
        assert_eq!("15863321".parse(), Ok(BlockNumberOrHash::Number(15_863_321)));
        let hash = format!("0x{}", "ab".repeat(32));
        assert_eq!(hash.parse::<BlockNumberOrHash>().map(|b| b.to_string()), Ok(hash));
        for bad in ["", "0x12", "-1", "1e3", "0x1b", "18446744073709551616", &format!("0x{}", "g".repeat(64))] {
            assert!(bad.parse::<BlockNumberOrHash>().is_err(), "{bad:?}");
        }
    }
}

/// One page of a wallet's transactions (`GET /api/v2.2/{address}`, and
/// `eth_getTransactions` on the gateway).
pub type WalletTransactionPage = NumberedPage<WalletTransaction>;

/// A mined transaction with its receipt and the fee paid, without its logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WalletTransaction {
    /// The transaction and its receipt.
    #[serde(flatten)]
    pub transaction: MinedTransaction,
    /// Gas used times the price paid per gas, in whole units of the native currency.
    pub transaction_fee: String,
    /// With `include=internal_transactions`, the calls it made inside the
    /// EVM, in the order they began; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_transactions: Option<Vec<InternalTransaction>>,
}

/// A call, creation or self-destruct a transaction made inside the EVM,
/// below its own call, as geth's `callTracer` sees it.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct InternalTransaction {
    /// The transaction it is part of.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: B256,
    /// The transaction's block's number.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// The transaction's block's hash.
    #[serde_as(as = "wire::Hex")]
    pub block_hash: B256,
    /// `CALL`, `STATICCALL`, `DELEGATECALL`, `CALLCODE`, `CREATE`,
    /// `CREATE2` or `SELFDESTRUCT`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The caller.
    #[serde_as(as = "wire::Hex")]
    pub from: Address,
    /// The callee, the contract created, or the address a self-destruct paid.
    #[serde_as(as = "wire::Hex")]
    pub to: Address,
    /// Wei it moved.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// Gas it was given.
    #[serde_as(as = "wire::DecStr")]
    pub gas: U256,
    /// Gas it used.
    #[serde_as(as = "wire::DecStr")]
    pub gas_used: U256,
    /// Its call data, or a creation's init code.
    #[serde_as(as = "wire::Hex")]
    pub input: Bytes,
    /// What it returned: the code created, or the revert data.
    #[serde_as(as = "wire::Hex")]
    pub output: Bytes,
    /// Why it failed; absent when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a transaction answer may add.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TransactionInclude {
    /// Add `internal_transactions`.
    InternalTransactions,
}

impl std::str::FromStr for TransactionInclude {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "internal_transactions" => Ok(TransactionInclude::InternalTransactions),
            other => Err(format!("{other:?} is not one of: internal_transactions")),
        }
    }
}
