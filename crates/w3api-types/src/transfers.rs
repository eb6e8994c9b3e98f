//! Token transfers as the Data API lists them: ERC20 transfers of a wallet
//! or a token (`GET /api/v2.2/{address}/erc20/transfers`,
//! `GET /api/v2.2/erc20/{address}/transfers`), and NFT transfers of a
//! wallet or a collection (`GET /api/v2.2/{address}/nft/transfers`,
//! `GET /api/v2.2/nft/{address}/transfers`).

use alloy_primitives::{Address, B256, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::nft::{ContractType, NftLastSale};
use crate::page::NumberedPage;
use crate::wire;

/// Which way a listing runs (`order` query parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum ListingOrder {
    /// Oldest first.
    #[serde(rename = "ASC")]
    Ascending,
    /// Newest first (the default).
    #[default]
    #[serde(rename = "DESC")]
    Descending,
}

impl ListingOrder {
    /// The order's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ListingOrder::Ascending => "ASC",
            ListingOrder::Descending => "DESC",
        }
    }
}

impl std::fmt::Display for ListingOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`ListingOrder`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an order (ASC or DESC)")]
pub struct InvalidListingOrder(pub String);

impl std::str::FromStr for ListingOrder {
    type Err = InvalidListingOrder;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [ListingOrder::Ascending, ListingOrder::Descending]
            .into_iter()
            .find(|order| order.as_str() == text)
            .ok_or_else(|| InvalidListingOrder(text.into()))
    }
}

/// The sender and recipient of a transfer, with what the server knows of
/// them (production's labels and entities; `None` where it knows nothing,
/// as a chain says nothing of who owns an address).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TransferParties {
    /// Sender (the zero address for a mint).
    #[serde_as(as = "wire::Hex")]
    pub from_address: Address,
    /// The sender's label, where the server knows one.
    pub from_address_label: Option<String>,
    /// The entity the sender belongs to, where the server knows one.
    pub from_address_entity: Option<String>,
    /// That entity's logo.
    pub from_address_entity_logo: Option<String>,
    /// Recipient (the zero address for a burn).
    #[serde_as(as = "wire::Hex")]
    pub to_address: Address,
    /// The recipient's label, where the server knows one.
    pub to_address_label: Option<String>,
    /// The entity the recipient belongs to, where the server knows one.
    pub to_address_entity: Option<String>,
    /// That entity's logo.
    pub to_address_entity_logo: Option<String>,
}

impl TransferParties {
    /// `from` and `to`, of whom nothing more is known.
    pub fn unlabelled(from: Address, to: Address) -> TransferParties {
        TransferParties {
            from_address: from,
            from_address_label: None,
            from_address_entity: None,
            from_address_entity_logo: None,
            to_address: to,
            to_address_label: None,
            to_address_entity: None,
            to_address_entity_logo: None,
        }
    }
}

/// One page of ERC20 transfers.
pub type Erc20TransferPage = NumberedPage<Erc20Transfer>;

/// One ERC20 transfer, as one log tells it.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Erc20Transfer {
    /// The token's name.
    pub token_name: String,
    /// The token's symbol.
    pub token_symbol: String,
    /// The token's logo, where one is known.
    pub token_logo: Option<String>,
    /// The token's decimals.
    #[serde_as(as = "wire::DecStr")]
    pub token_decimals: u8,
    /// The transaction that moved it.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: B256,
    /// The token's contract.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// Its block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Its block's number.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// Its block's hash.
    #[serde_as(as = "wire::Hex")]
    pub block_hash: B256,
    /// Who sent it and who received it.
    #[serde(flatten)]
    pub parties: TransferParties,
    /// The raw amount.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// The transaction's position in the block.
    pub transaction_index: u64,
    /// The log's position in the block.
    pub log_index: u64,
    /// Whether the token is flagged as spam.
    pub possible_spam: bool,
    /// Whether the token's contract is verified.
    pub verified_contract: bool,
}

/// One page of NFT transfers.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftTransferPage {
    /// Number of this page, from 0.
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page: u64,
    /// Number of items a full page holds.
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Whether the chain has the listing's last block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_exists: Option<bool>,
    /// Whether every block of the listing is indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_complete: Option<bool>,
    /// The transfers of this page.
    pub result: Vec<NftTransfer>,
}

/// How an NFT transfer was logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum NftTransactionType {
    /// ERC721 `Transfer` or ERC1155 `TransferSingle`.
    Single,
    /// ERC1155 `TransferBatch`.
    Batch,
}

/// One NFT token id moved by one log.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftTransfer {
    /// The collection's contract.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// The token id: decimal digits, or `0x` hex with `format=hex`.
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
    /// The collection's standard.
    pub contract_type: ContractType,
    /// Its block's number.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// Its block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Its block's hash.
    #[serde_as(as = "wire::Hex")]
    pub block_hash: B256,
    /// The transaction that moved it.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: B256,
    /// Whether a batch moved it.
    pub transaction_type: NftTransactionType,
    /// The transaction's position in the block.
    pub transaction_index: u64,
    /// The log's position in the block.
    pub log_index: u64,
    /// ERC1155's operator; `None` for ERC721.
    #[serde_as(as = "Option<wire::Hex>")]
    pub operator: Option<Address>,
    /// Whether the collection is flagged as spam.
    pub possible_spam: bool,
    /// Whether the collection's contract is verified.
    pub verified_collection: bool,
    /// The token's last sale up to the transfer's block, with
    /// `include_prices`; `None` without, or where it had none.
    #[serde(default)]
    pub last_sale: Option<NftLastSale>,
}
