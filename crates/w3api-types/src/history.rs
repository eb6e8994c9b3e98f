//! A wallet's history (`GET /api/v2.2/wallets/{address}/history`, and
//! `eth_getDecodedTransactions` on the gateway): each transaction the
//! wallet took part in, with its receipt, what it moved for the wallet,
//! its logs decoded, a category and a one-line summary.

use alloy_primitives::{Address, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::nft::NormalizedMetadata;
use crate::page::NumberedPage;
use crate::transactions::{InternalTransaction, LogVerbose, MinedTransaction};
use crate::transfers::{NftTransactionType, TransferParties};
use crate::{ContractType, wire};

/// One page of a wallet's history.
pub type WalletHistoryPage = NumberedPage<HistoryTransaction>;

/// What a transaction was, for the wallet whose history lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum HistoryCategory {
    /// It sent the native currency.
    #[serde(rename = "send")]
    Send,
    /// It received the native currency.
    #[serde(rename = "receive")]
    Receive,
    /// It sent tokens.
    #[serde(rename = "token send")]
    TokenSend,
    /// It received tokens.
    #[serde(rename = "token receive")]
    TokenReceive,
    /// It sent NFTs.
    #[serde(rename = "nft send")]
    NftSend,
    /// It received NFTs.
    #[serde(rename = "nft receive")]
    NftReceive,
    /// It gave one token (or the native currency) for another.
    #[serde(rename = "token swap")]
    TokenSwap,
    /// It wrapped the native currency.
    #[serde(rename = "deposit")]
    Deposit,
    /// It unwrapped the native currency.
    #[serde(rename = "withdraw")]
    Withdraw,
    /// It paid for an NFT.
    #[serde(rename = "nft purchase")]
    NftPurchase,
    /// It was paid for an NFT.
    #[serde(rename = "nft sale")]
    NftSale,
    /// Another's transaction gave it and others the same token.
    #[serde(rename = "airdrop")]
    Airdrop,
    /// It received new tokens or NFTs.
    #[serde(rename = "mint")]
    Mint,
    /// It destroyed tokens or NFTs.
    #[serde(rename = "burn")]
    Burn,
    /// It borrowed from a lending protocol.
    #[serde(rename = "borrow")]
    Borrow,
    /// It let another spend its tokens or NFTs.
    #[serde(rename = "approve")]
    Approve,
    /// It took such a permission back.
    #[serde(rename = "revoke")]
    Revoke,
    /// Anything else it called.
    #[serde(rename = "contract interaction")]
    ContractInteraction,
}

/// A transaction of a wallet's history.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct HistoryTransaction {
    /// The transaction and its receipt.
    #[serde(flatten)]
    pub transaction: MinedTransaction,
    /// The fee paid, in the native currency's units.
    pub transaction_fee: String,
    /// What it was for the wallet.
    pub category: HistoryCategory,
    /// The approvals and revocations it made, where it made any.
    pub contract_interactions: Option<ContractInteractions>,
    /// Whether a token or NFT it moved is flagged as spam.
    pub possible_spam: bool,
    /// The name of the function it called, with `include_input_data`
    /// and where the server knows the function.
    pub method_label: Option<String>,
    /// What happened, in one line.
    pub summary: String,
    /// The wallet's NFTs it moved.
    pub nft_transfers: Vec<HistoryNftTransfer>,
    /// The wallet's tokens it moved.
    pub erc20_transfers: Vec<HistoryErc20Transfer>,
    /// The native currency it sent to or from the wallet.
    pub native_transfers: Vec<NativeTransfer>,
    /// Its logs, decoded where the server knows the event.
    pub logs: Vec<LogVerbose>,
    /// With `include_internal_transactions`, the calls it made inside the
    /// EVM, in the order they began; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_transactions: Option<Vec<InternalTransaction>>,
}

/// Which way something moved, seen from the wallet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// To the wallet.
    Incoming,
    /// From the wallet.
    Outgoing,
}

/// An NFT a history transaction moved to or from the wallet.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct HistoryNftTransfer {
    /// The collection's contract.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// The token id, in decimal.
    pub token_id: String,
    /// The collection's name.
    pub token_name: String,
    /// The collection's symbol.
    pub token_symbol: String,
    /// Who sent it and who received it.
    #[serde(flatten)]
    pub parties: TransferParties,
    /// The native value of the transaction that moved it.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// How many were moved (1 for ERC721).
    #[serde_as(as = "wire::DecStr")]
    pub amount: u64,
    /// ERC721 or ERC1155.
    pub contract_type: ContractType,
    /// Batch for an ERC1155 `TransferBatch`, Single otherwise.
    pub transaction_type: NftTransactionType,
    /// The log's position in the block.
    pub log_index: u64,
    /// ERC1155's operator; `None` for ERC721.
    #[serde_as(as = "Option<wire::Hex>")]
    pub operator: Option<Address>,
    /// Whether the collection is flagged as spam.
    pub possible_spam: bool,
    /// Whether the collection's contract is verified.
    pub verified_collection: bool,
    /// Which way it moved.
    pub direction: Direction,
    /// The collection's logo, where one is known.
    pub collection_logo: Option<String>,
    /// The collection's banner, where one is known.
    pub collection_banner_image: Option<String>,
    /// The token's metadata, normalized, with `nft_metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_metadata: Option<NormalizedMetadata>,
}

/// Tokens a history transaction moved to or from the wallet.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct HistoryErc20Transfer {
    /// The token's name.
    pub token_name: String,
    /// The token's symbol.
    pub token_symbol: String,
    /// The token's logo, where one is known.
    pub token_logo: Option<String>,
    /// The token's decimals.
    #[serde_as(as = "wire::DecStr")]
    pub token_decimals: u8,
    /// The token's contract.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// Its block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: chrono::DateTime<chrono::Utc>,
    /// Who sent it and who received it.
    #[serde(flatten)]
    pub parties: TransferParties,
    /// The raw amount.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// The amount in the token's units.
    pub value_formatted: String,
    /// Which way it moved.
    pub direction: Direction,
    /// The log's position in the block.
    pub log_index: u64,
    /// Whether the token is flagged as spam.
    pub possible_spam: bool,
    /// Whether the token's contract is verified.
    pub verified_contract: bool,
}

/// The native currency a history transaction sent to or from the wallet.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NativeTransfer {
    /// Who sent it and who received it.
    #[serde(flatten)]
    pub parties: TransferParties,
    /// The amount, in wei.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// The amount in the native currency's units.
    pub value_formatted: String,
    /// Which way it moved.
    pub direction: Direction,
    /// Whether a call inside the transaction sent it (never here: only
    /// the transaction's own value is listed).
    pub internal_transaction: bool,
    /// The native currency's symbol.
    pub token_symbol: String,
    /// Its logo, where one is known.
    pub token_logo: Option<String>,
}

/// The permissions a transaction gave or took back, by kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContractInteractions {
    /// ERC20 allowances set above zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<Permission>,
    /// ERC20 allowances set to zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revokes: Vec<Permission>,
    /// Operators approved for all of a collection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_approvals_all: Vec<Permission>,
    /// Operators no longer approved for all of a collection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_revokes_all: Vec<Permission>,
}

/// One permission given or taken back.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Permission {
    /// The allowance, raw; 0 for a revocation; for all of a collection,
    /// 1 when approved and 0 when not.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// The allowance in the token's units, where the token has decimals.
    pub value_formatted: Option<String>,
    /// The token or collection.
    pub token: PermissionToken,
    /// Who may spend.
    pub spender: PermissionSpender,
}

/// The token or collection of a permission.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PermissionToken {
    /// Its contract.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// A label production gives known addresses; `None` here.
    pub address_label: Option<String>,
    /// Its name.
    pub token_name: String,
    /// Its logo, where one is known.
    pub token_logo: Option<String>,
    /// Its symbol.
    pub token_symbol: String,
}

/// Who a permission lets spend.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PermissionSpender {
    /// The spender.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// A label production gives known addresses; `None` here.
    pub address_label: Option<String>,
}

/// The single parameter of `eth_getDecodedTransactions`: whose history,
/// whether with NFT metadata, and which way.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DecodedTransactionsParams {
    /// The wallet.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// Whether to add each NFT's normalized metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nft_metadata: Option<bool>,
    /// Which way; newest first when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<HistoryOrder>,
}

/// Which way `eth_getDecodedTransactions` lists, in production's lower
/// case (the REST twin's upper case is read too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum HistoryOrder {
    /// Oldest first.
    #[serde(rename = "asc", alias = "ASC")]
    Ascending,
    /// Newest first.
    #[serde(rename = "desc", alias = "DESC")]
    Descending,
}
