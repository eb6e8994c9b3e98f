//! `testing_buildBlockV1`: a block built on top of another from the
//! attributes a consensus client would give, answered as the engine API
//! answers a payload.

use alloy_primitives::{Address, B256, Bloom, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::Withdrawal;
use crate::wire::Hex;

/// What the block is built with (the engine API's `PayloadAttributesV3`).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PayloadAttributes {
    /// Its time, in Unix seconds.
    #[serde_as(as = "Hex")]
    pub timestamp: u64,
    /// Its PREVRANDAO.
    #[serde_as(as = "Hex")]
    pub prev_randao: B256,
    /// Who is paid its fees.
    #[serde_as(as = "Hex")]
    pub suggested_fee_recipient: Address,
    /// Its withdrawals (Shanghai and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawals: Option<Vec<Withdrawal>>,
    /// Its parent beacon block root (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_beacon_block_root: Option<B256>,
}

/// The block built, as `engine_getPayload` answers one.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BuiltPayload {
    /// The block.
    pub execution_payload: ExecutionPayload,
    /// The tips it pays its fee recipient, in wei.
    #[serde_as(as = "Hex")]
    pub block_value: U256,
    /// The blobs of its blob transactions (none: the devnet keeps no blobs).
    pub blobs_bundle: BlobsBundle,
    /// Its EIP-7685 requests, each its type byte then its data (Prague and later).
    #[serde_as(as = "Option<Vec<Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_requests: Option<Vec<Bytes>>,
    /// Whether the consensus client should prefer an external builder's block.
    pub should_override_builder: bool,
}

/// A block as the engine API writes it (`ExecutionPayloadV3`).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExecutionPayload {
    /// Its parent's hash.
    #[serde_as(as = "Hex")]
    pub parent_hash: B256,
    /// Who is paid its fees.
    #[serde_as(as = "Hex")]
    pub fee_recipient: Address,
    /// State root after it.
    #[serde_as(as = "Hex")]
    pub state_root: B256,
    /// Root of its receipts.
    #[serde_as(as = "Hex")]
    pub receipts_root: B256,
    /// Bloom of its logs.
    #[serde_as(as = "Hex")]
    pub logs_bloom: Bloom,
    /// Its PREVRANDAO.
    #[serde_as(as = "Hex")]
    pub prev_randao: B256,
    /// Its number.
    #[serde_as(as = "Hex")]
    pub block_number: u64,
    /// Its gas limit.
    #[serde_as(as = "Hex")]
    pub gas_limit: u64,
    /// Gas its transactions used.
    #[serde_as(as = "Hex")]
    pub gas_used: u64,
    /// Its time, in Unix seconds.
    #[serde_as(as = "Hex")]
    pub timestamp: u64,
    /// Its extra data.
    #[serde_as(as = "Hex")]
    pub extra_data: Bytes,
    /// Its base fee per gas.
    #[serde_as(as = "Hex")]
    pub base_fee_per_gas: U256,
    /// Its hash.
    #[serde_as(as = "Hex")]
    pub block_hash: B256,
    /// Its transactions, each as sent raw.
    #[serde_as(as = "Vec<Hex>")]
    pub transactions: Vec<Bytes>,
    /// Its withdrawals (Shanghai and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawals: Option<Vec<Withdrawal>>,
    /// Blob gas its transactions used (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_gas_used: Option<u64>,
    /// Its excess blob gas (Cancun and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excess_blob_gas: Option<u64>,
}

/// The blobs of a payload's blob transactions, with their commitments and proofs.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BlobsBundle {
    /// KZG commitments.
    #[serde_as(as = "Vec<Hex>")]
    pub commitments: Vec<Bytes>,
    /// KZG proofs.
    #[serde_as(as = "Vec<Hex>")]
    pub proofs: Vec<Bytes>,
    /// The blobs.
    #[serde_as(as = "Vec<Hex>")]
    pub blobs: Vec<Bytes>,
}
