//! `eth_simulateV1`: blocks of calls simulated on top of a block, each
//! block with its own header fields and state assumed, answered as blocks
//! with each call's result (geth's semantics).

use alloy_primitives::Bytes;
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::{Block, BlockOverrides, Log, StateOverrides, TransactionRequest};
use crate::wire::Hex;

/// What to simulate, and how.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SimulatePayload {
    /// The blocks, in order: each a set of header fields, state assumed
    /// before it, and calls.
    pub block_state_calls: Vec<BlockStateCalls>,
    /// Whether native value moved is reported as ERC-20 `Transfer` logs of
    /// 0xeeee…eeee (ERC-7528).
    #[serde(default)]
    pub trace_transfers: bool,
    /// Whether calls are checked as a block includes transactions (nonce,
    /// fees against the base fee); without it the base fee is 0 unless
    /// overridden.
    #[serde(default)]
    pub validation: bool,
    /// Whether blocks carry whole transactions rather than their hashes.
    #[serde(default)]
    pub return_full_transactions: bool,
}

/// One simulated block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockStateCalls {
    /// Header fields replacing those the block would have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_overrides: Option<BlockOverrides>,
    /// State assumed before the block's calls, kept for the blocks after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_overrides: Option<StateOverrides>,
    /// The calls, run one after another as the block's transactions.
    #[serde(default)]
    pub calls: Vec<TransactionRequest>,
}

/// A simulated block: the block as `eth_getBlockByNumber` gives one, with
/// the result of each of its calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SimulatedBlock {
    /// The block.
    #[serde(flatten)]
    pub block: Block,
    /// Each call's result, in order.
    pub calls: Vec<SimulatedCall>,
}

/// What one simulated call did.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SimulatedCall {
    /// What it returned (or its revert data).
    #[serde_as(as = "Hex")]
    pub return_data: Bytes,
    /// Its logs; with `traceTransfers`, its native transfers among them.
    pub logs: Vec<Log>,
    /// Gas it used, after refunds.
    #[serde_as(as = "Hex")]
    pub gas_used: u64,
    /// The most gas it held at once, before refunds: what it needs as a
    /// limit (geth gives it; Anvil and older nodes leave it out).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_used_gas: Option<u64>,
    /// 1 for success, 0 for failure.
    #[serde_as(as = "Hex")]
    pub status: u64,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SimulatedCallError>,
}

/// Why a simulated call failed: error 3 for a revert (with its data),
/// -32015 for any other stop.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SimulatedCallError {
    /// "execution reverted", with the reason where the data is an
    /// `Error(string)`, or the EVM's words for the stop.
    pub message: String,
    /// 3 or -32015.
    pub code: i64,
    /// The revert data.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Bytes>,
}
