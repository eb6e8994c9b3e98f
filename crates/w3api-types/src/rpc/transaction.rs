//! A transaction as the execution API returns it.

use alloy_primitives::{Address, B256, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::Lenient;
use crate::wire::Hex;

/// A transaction of any type: legacy (`0x0`), EIP-2930 (`0x1`), EIP-1559
/// (`0x2`), EIP-4844 (`0x3`) or EIP-7702 (`0x4`). Fields that a type does
/// not have are `None`.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    /// Hash of the block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub block_hash: Option<B256>,
    /// Number of the block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub block_number: Option<u64>,
    /// Timestamp of the block, when the node reports it.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_timestamp: Option<u64>,
    /// Sender, recovered from the signature.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// Gas limit.
    #[serde_as(as = "Hex")]
    pub gas: u64,
    /// Gas price (legacy and EIP-2930), or the effective gas price of an
    /// included EIP-1559/4844 transaction.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_price: Option<u128>,
    /// Fee cap per gas (EIP-1559 and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_fee_per_gas: Option<u128>,
    /// Tip cap per gas (EIP-1559 and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_priority_fee_per_gas: Option<u128>,
    /// Fee cap per blob gas (EIP-4844).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_fee_per_blob_gas: Option<u128>,
    /// Hash of the signed transaction.
    #[serde_as(as = "Hex")]
    pub hash: B256,
    /// Call data or contract code.
    pub input: Lenient<Bytes>,
    /// Sender's nonce.
    #[serde_as(as = "Hex")]
    pub nonce: u64,
    /// Recipient; `None` for a contract creation.
    #[serde_as(as = "Option<Hex>")]
    pub to: Option<Address>,
    /// Position in the block; `None` while pending.
    #[serde_as(as = "Option<Hex>")]
    pub transaction_index: Option<u64>,
    /// Wei transferred.
    #[serde_as(as = "Hex")]
    pub value: U256,
    /// Transaction type.
    #[serde(rename = "type")]
    #[serde_as(as = "Hex")]
    pub tx_type: u8,
    /// Storage the transaction pre-declares (EIP-2930 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_list: Option<Vec<AccessListItem>>,
    /// Chain id (typed transactions, and EIP-155 legacy ones).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// Versioned hashes of the blobs (EIP-4844).
    #[serde_as(as = "Option<Vec<Hex>>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_versioned_hashes: Option<Vec<B256>>,
    /// The authorizations of a set-code transaction (EIP-7702).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_list: Option<Vec<Authorization>>,
    /// Signature `v`: 27/28 or EIP-155 encoded for legacy, the y parity for typed ones.
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v: Option<U256>,
    /// Signature `r`.
    #[serde_as(as = "Hex")]
    pub r: U256,
    /// Signature `s`.
    #[serde_as(as = "Hex")]
    pub s: U256,
    /// Signature y parity, 0 or 1 (typed transactions).
    #[serde_as(as = "Option<Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y_parity: Option<u8>,
}

/// Storage slots of one account that a transaction pre-declares.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessListItem {
    /// The account.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Its storage slots.
    #[serde_as(as = "Vec<Hex>")]
    pub storage_keys: Vec<B256>,
}

/// One signed authorization of a set-code transaction (EIP-7702).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// The chain it is valid on; 0 for any.
    #[serde_as(as = "Hex")]
    pub chain_id: U256,
    /// The account whose code the signer takes.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// The signer's nonce it is valid at.
    #[serde_as(as = "Hex")]
    pub nonce: u64,
    /// Signature y parity, 0 or 1.
    #[serde_as(as = "Hex")]
    pub y_parity: u8,
    /// Signature `r`.
    #[serde_as(as = "Hex")]
    pub r: U256,
    /// Signature `s`.
    #[serde_as(as = "Hex")]
    pub s: U256,
}

impl Transaction {
    /// This transaction as alloy's RPC type, for hashing and signature
    /// recovery. Fails when a field holds malformed text or the fields do not
    /// make a transaction of the stated type.
    pub fn to_alloy(&self) -> Result<alloy_rpc_types_eth::Transaction, serde_json::Error> {
        super::via_json(self)
    }
}

impl TryFrom<&alloy_rpc_types_eth::Transaction> for Transaction {
    type Error = serde_json::Error;

    /// Carries alloy's own JSON encoding over, so the two cannot disagree.
    fn try_from(tx: &alloy_rpc_types_eth::Transaction) -> Result<Self, Self::Error> {
        super::via_json(tx)
    }
}
