//! `eth_config` (EIP-7910): the rules a chain follows now, and the next and
//! last forks it has scheduled by time.

use std::collections::BTreeMap;

use alloy_primitives::{Address, FixedBytes};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire::Hex;

/// The fork in force and the ones scheduled after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct EthConfig {
    /// The fork the newest block follows.
    pub current: ForkConfig,
    /// The next fork scheduled by time; `None` when none is.
    pub next: Option<ForkConfig>,
    /// The last fork scheduled by time; `None` when none is after the current.
    pub last: Option<ForkConfig>,
}

/// One fork's rules.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ForkConfig {
    /// Unix seconds it takes effect at; 0 for a chain that starts with it.
    pub activation_time: u64,
    /// Its blob parameters; `None` before Cancun.
    pub blob_schedule: Option<BlobSchedule>,
    /// The chain's id.
    #[serde_as(as = "Hex")]
    pub chain_id: u64,
    /// Its EIP-2124 fork id: the CRC32 of the genesis hash and every fork up to it.
    #[serde_as(as = "Hex")]
    pub fork_id: FixedBytes<4>,
    /// Its precompiled contracts, by name.
    #[serde_as(as = "BTreeMap<_, Hex>")]
    pub precompiles: BTreeMap<String, Address>,
    /// The system contracts its blocks call, by name.
    #[serde_as(as = "BTreeMap<_, Hex>")]
    pub system_contracts: BTreeMap<String, Address>,
}

/// A fork's blob parameters (EIP-4844, EIP-7840).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BlobSchedule {
    /// Blobs a block aims at.
    pub target: u64,
    /// Most blobs a block holds.
    pub max: u64,
    /// How fast the blob base fee follows the excess blob gas.
    pub base_fee_update_fraction: u64,
}

/// `eth_capabilities`: which blocks' data the node holds, for routers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EthCapabilities {
    /// The newest block.
    pub head: CapabilitiesHead,
    /// Accounts and storage (balances, code, calls).
    pub state: ResourceCapability,
    /// Transactions by hash and position.
    pub tx: ResourceCapability,
    /// Logs.
    pub logs: ResourceCapability,
    /// Receipts.
    pub receipts: ResourceCapability,
    /// Headers and bodies.
    pub blocks: ResourceCapability,
    /// Merkle proofs of state.
    pub stateproofs: ResourceCapability,
}

/// The newest block, by number and hash.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesHead {
    /// Its number.
    #[serde_as(as = "Hex")]
    pub number: u64,
    /// Its hash.
    #[serde_as(as = "Hex")]
    pub hash: alloy_primitives::B256,
}

/// How far back one kind of data goes.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceCapability {
    /// Whether the node serves it at all.
    pub disabled: bool,
    /// The oldest block it holds it for.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oldest_block: Option<u64>,
    /// How it drops old blocks' data; none when it keeps them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_strategy: Option<DeleteStrategy>,
}

/// A node that keeps the newest blocks' data only.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteStrategy {
    /// Always `window`: a sliding window of blocks.
    #[serde(rename = "type")]
    pub kind: DeleteStrategyKind,
    /// How many of the newest blocks it keeps.
    #[serde_as(as = "Hex")]
    pub retention_blocks: u64,
}

/// The kinds of [`DeleteStrategy`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DeleteStrategyKind {
    /// The newest blocks only.
    Window,
}
