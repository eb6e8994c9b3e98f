//! What a wallet has done, as the Data API sums it up: its counts on one
//! chain (`GET /api/v2.2/wallets/{address}/stats`) and its first and last
//! transactions on each chain asked (`GET /api/v2.2/wallets/{address}/chains`).

use alloy_primitives::{Address, B256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// A wallet's counts on one chain.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WalletStats {
    /// NFTs held.
    #[serde_as(as = "wire::DecStr")]
    pub nfts: u64,
    /// Collections of the NFTs held.
    #[serde_as(as = "wire::DecStr")]
    pub collections: u64,
    /// Transactions sent or received.
    pub transactions: StatTotal,
    /// NFT transfers.
    pub nft_transfers: StatTotal,
    /// ERC20 transfers.
    pub token_transfers: StatTotal,
}

/// A total.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StatTotal {
    /// How many.
    #[serde_as(as = "wire::DecStr")]
    pub total: u64,
}

/// The chains asked, and a wallet's activity on each.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ActiveChains {
    /// The wallet.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// One entry per chain asked, in the order asked.
    pub active_chains: Vec<ActiveChain>,
}

/// A wallet's first and last transactions on one chain; `None` for both
/// where it has none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ActiveChain {
    /// The chain's name.
    pub chain: String,
    /// The chain's id, in hex.
    pub chain_id: String,
    /// Its first transaction.
    pub first_transaction: Option<ChainActivity>,
    /// Its last transaction.
    pub last_transaction: Option<ChainActivity>,
}

/// A transaction that marks where a wallet's activity on a chain starts or ends.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChainActivity {
    /// Its block.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// The block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Its hash.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: B256,
}
