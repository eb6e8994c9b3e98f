//! A block as the execution API returns it.

use alloy_primitives::{Address, B64, B256, Bloom, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::Transaction;
use crate::Lenient;
use crate::wire::Hex;

/// A block: its header fields (those of the fork it follows), its
/// transactions as hashes or in full, its uncles and its withdrawals.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Block {
    /// Base fee per gas (London and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_fee_per_gas: Option<u64>,
    /// Blob gas used (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_gas_used: Option<u64>,
    /// Proof-of-work difficulty; zero after the merge.
    #[serde_as(as = "Hex")]
    pub difficulty: U256,
    /// Excess blob gas (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excess_blob_gas: Option<u64>,
    /// Extra data chosen by the block's producer.
    #[serde_as(as = "Hex")]
    pub extra_data: Bytes,
    /// Gas limit.
    #[serde_as(as = "Hex")]
    pub gas_limit: u64,
    /// Gas used by the transactions.
    #[serde_as(as = "Hex")]
    pub gas_used: u64,
    /// Hash of the header.
    #[serde_as(as = "Hex")]
    pub hash: B256,
    /// Bloom filter of the logs.
    pub logs_bloom: Lenient<Bloom>,
    /// Beneficiary of the fees.
    #[serde_as(as = "Hex")]
    pub miner: Address,
    /// Mix hash (proof-of-work) or previous RANDAO value.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mix_hash: Option<B256>,
    /// Proof-of-work nonce; zero after the merge.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nonce: Option<B64>,
    /// Block number.
    #[serde_as(as = "Hex")]
    pub number: u64,
    /// Beacon block root of the parent (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_beacon_block_root: Option<B256>,
    /// Hash of the parent block.
    #[serde_as(as = "Hex")]
    pub parent_hash: B256,
    /// Root of the receipts trie.
    #[serde_as(as = "Hex")]
    pub receipts_root: B256,
    /// Hash of the execution requests (Prague and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_hash: Option<B256>,
    /// Hash of the uncles list.
    #[serde_as(as = "Hex")]
    pub sha3_uncles: B256,
    /// Size of the block in bytes.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Root of the state trie.
    #[serde_as(as = "Hex")]
    pub state_root: B256,
    /// Unix time in seconds.
    #[serde_as(as = "Hex")]
    pub timestamp: u64,
    /// Sum of difficulties up to this block (nodes before the merge report it).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_difficulty: Option<U256>,
    /// The transactions, as hashes or in full.
    pub transactions: BlockTransactions,
    /// Root of the transactions trie.
    #[serde_as(as = "Hex")]
    pub transactions_root: B256,
    /// Hashes of the uncles.
    #[serde_as(as = "Vec<Hex>")]
    pub uncles: Vec<B256>,
    /// Validator withdrawals (Shanghai and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawals: Option<Vec<Withdrawal>>,
    /// Root of the withdrawals trie (Shanghai and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withdrawals_root: Option<B256>,
}

/// The transactions of a block: hashes, or full objects when asked for.
#[serde_as]
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BlockTransactions {
    /// Transaction hashes.
    Hashes(#[serde_as(as = "Vec<Hex>")] Vec<B256>),
    /// Full transactions.
    Full(Vec<Transaction>),
}

/// An empty list reads back as hashes, so the two empty forms are one value.
impl PartialEq for BlockTransactions {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Hashes(a), Self::Hashes(b)) => a == b,
            (Self::Full(a), Self::Full(b)) => a == b,
            (a, b) => a.is_empty() && b.is_empty(),
        }
    }
}

impl BlockTransactions {
    /// Number of transactions.
    pub fn len(&self) -> usize {
        match self {
            Self::Hashes(hashes) => hashes.len(),
            Self::Full(transactions) => transactions.len(),
        }
    }

    /// Whether the block has no transactions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The transactions in full; an empty list of either form is no
    /// transactions, as the two read the same on the wire (a node's empty
    /// block asked for in full reads back as hashes). `None` for hashes.
    pub fn into_full(self) -> Option<Vec<Transaction>> {
        match self {
            Self::Full(transactions) => Some(transactions),
            Self::Hashes(hashes) if hashes.is_empty() => Some(Vec::new()),
            Self::Hashes(_) => None,
        }
    }

    /// The transaction hashes, whichever form the block carries.
    pub fn hashes(&self) -> Vec<B256> {
        match self {
            Self::Hashes(hashes) => hashes.clone(),
            Self::Full(transactions) => transactions.iter().map(|tx| tx.hash).collect(),
        }
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for BlockTransactions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BlockTransactions".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let transaction = generator.subschema_for::<Transaction>();
        json_schema!({
            "anyOf": [
                { "type": "array", "items": { "type": "string", "pattern": crate::wire::pattern::HASH32 } },
                { "type": "array", "items": transaction }
            ]
        })
    }
}

/// A validator withdrawal (Shanghai and later).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Withdrawal {
    /// Monotonic index of the withdrawal.
    #[serde_as(as = "Hex")]
    pub index: u64,
    /// Index of the validator.
    #[serde_as(as = "Hex")]
    pub validator_index: u64,
    /// Recipient.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Amount in gwei.
    #[serde_as(as = "Hex")]
    pub amount: u64,
}

impl Block {
    /// This block as alloy's RPC type, for re-deriving its hash and roots.
    /// Fails when a field holds malformed text.
    pub fn to_alloy(&self) -> Result<alloy_rpc_types_eth::Block, serde_json::Error> {
        super::via_json(self)
    }
}

impl TryFrom<&alloy_rpc_types_eth::Block> for Block {
    type Error = serde_json::Error;

    /// Carries alloy's own JSON encoding over, so the two cannot disagree.
    fn try_from(block: &alloy_rpc_types_eth::Block) -> Result<Self, Self::Error> {
        super::via_json(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_block_read_back_is_full_of_nothing_and_hashes_are_not_full() {
        let empty: BlockTransactions = serde_json::from_str("[]").unwrap();
        assert_eq!(empty.into_full(), Some(Vec::new()));
        let hashes = BlockTransactions::Hashes(vec![B256::repeat_byte(1)]);
        assert_eq!(hashes.into_full(), None);
    }
}
