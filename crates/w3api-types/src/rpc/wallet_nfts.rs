//! `eth_getNFTBalances` and `eth_getNFTCollections`: a wallet's NFTs and
//! collections, a page at a time, in the shapes production's extended RPC
//! documents (briefer than their REST twins'); and the parameter of
//! `eth_getTransactions`, whose page is its REST twin's.

use alloy_primitives::{Address, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire::{self, Hex};
use crate::{ContractType, SyncStatus};

/// The single parameter of both methods: whose NFTs, and which page.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WalletNftParams {
    /// The wallet.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Page size; the REST twin's default when absent or 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The single parameter of `eth_getTransactions`: whose transactions,
/// within which blocks, and which page.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WalletTransactionsParams {
    /// The wallet.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// The first block; the chain's first when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_block: Option<u64>,
    /// The last block; the newest when absent or later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<u64>,
    /// Page size; the REST twin's default when absent or 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// What to add to each transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<crate::TransactionInclude>,
}

/// One page of a wallet's NFTs, briefly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftBalancesPage {
    /// The NFTs.
    pub nfts: Vec<NftBalance>,
    /// The next page's cursor; `None` on the last page.
    pub cursor: Option<String>,
    /// Items a full page holds.
    pub page_size: u64,
    /// This page's number, from 1.
    pub page: u64,
}

/// One NFT a wallet holds.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftBalance {
    /// The token id, in decimal digits.
    pub token_id: String,
    /// The collection's contract.
    #[serde_as(as = "Hex")]
    pub contract_address: Address,
    /// How many the wallet holds: 1 for ERC721.
    #[serde_as(as = "wire::DecStr")]
    pub amount: U256,
    /// The name and image its metadata gives, where it has any.
    pub metadata: Option<NftBalanceMetadata>,
}

/// What an NFT's metadata names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftBalanceMetadata {
    /// Its name.
    pub name: Option<String>,
    /// Its image's URL.
    pub image: Option<String>,
}

/// One page of the collections a wallet holds tokens of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftCollectionsPage {
    /// Whether the collections of the result are indexed.
    pub status: SyncStatus,
    /// This page's number, from 1.
    pub page: u64,
    /// Items a full page holds.
    pub page_size: u64,
    /// The next page's cursor; `None` on the last page.
    pub cursor: Option<String>,
    /// The collections.
    pub result: Vec<HeldCollection>,
}

/// A collection a wallet holds tokens of, and how many.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct HeldCollection {
    /// The collection's contract.
    #[serde_as(as = "Hex")]
    pub token_address: Address,
    /// Its token standard.
    pub contract_type: ContractType,
    /// Its name.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// Whether it looks like spam.
    pub possible_spam: bool,
    /// Whether it is verified.
    pub verified_collection: bool,
    /// How many of its tokens the wallet holds.
    pub count: u64,
    /// Its logo's URL.
    pub collection_logo: Option<String>,
    /// Its banner's URL.
    pub collection_banner_image: Option<String>,
}
