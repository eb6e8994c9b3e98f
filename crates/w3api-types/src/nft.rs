//! NFTs of a wallet (`GET /api/v2.2/{address}/nft`) and the collections they
//! belong to (`GET /api/v2.2/{address}/nft/collections`).

use alloy_primitives::{Address, U256};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// Indexing state of the contracts behind a page of NFTs or collections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum SyncStatus {
    /// Every contract of the result is indexed.
    Synced,
    /// Some contract of the result is still being indexed; the result may be incomplete.
    Syncing,
}

/// Token standard of an NFT contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ContractType {
    /// One owner per token id.
    #[serde(rename = "ERC721")]
    Erc721,
    /// Fungible amounts per token id.
    #[serde(rename = "ERC1155")]
    Erc1155,
}

/// How token ids are written (`format` query parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TokenIdFormat {
    /// Decimal digits (the default).
    #[default]
    Decimal,
    /// `0x` and hex digits.
    Hex,
}

/// One page of the NFTs a wallet owns.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NftPage {
    /// Whether the contracts of the result are indexed.
    pub status: SyncStatus,
    /// Total number of NFTs across pages, when known.
    #[serde_as(as = "Option<wire::NumOrStr>")]
    pub total: Option<u64>,
    /// Number of this page, from 1.
    #[serde_as(as = "wire::NumOrStr")]
    pub page: u64,
    /// Number of items a full page holds.
    #[serde_as(as = "wire::NumOrStr")]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The NFTs of this page.
    pub result: Vec<Nft>,
}

/// One NFT (or, for ERC1155, one token id with an amount) owned by a wallet.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Nft {
    /// Contract of the collection.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Token id: decimal digits, or `0x` hex with `format=hex`.
    pub token_id: String,
    /// Token standard of the contract.
    pub contract_type: ContractType,
    /// Owner of the token.
    #[serde_as(as = "wire::Hex")]
    pub owner_of: Address,
    /// Block of the owner's last transfer of this token.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// Block the token was minted in.
    #[serde_as(as = "wire::DecStr")]
    pub block_number_minted: u64,
    /// Where the token's metadata lives.
    #[serde(default)]
    pub token_uri: Option<String>,
    /// The metadata document, serialized as a JSON string.
    #[serde(default)]
    pub metadata: Option<String>,
    /// The metadata in a fixed shape.
    #[serde_as(as = "Option<wire::ObjectOrJsonText>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalized_metadata: Option<NormalizedMetadata>,
    /// Preview media of the token.
    #[serde_as(as = "Option<wire::ObjectOrJsonText>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<NftMedia>,
    /// Amount owned: "1" for ERC721.
    #[serde_as(as = "Option<wire::DecStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<U256>,
    /// Name of the collection.
    pub name: String,
    /// Symbol of the collection.
    pub symbol: String,
    /// Hash identifying the token's metadata.
    pub token_hash: String,
    /// Rank by rarity within the collection (1 is the rarest).
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rarity_rank: Option<u64>,
    /// Rarity bucket label, such as "Top 1%".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rarity_label: Option<String>,
    /// Rarity as a percentile within the collection.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rarity_percentage: Option<f64>,
    /// When the token URI was last read.
    #[serde(default)]
    pub last_token_uri_sync: Option<DateTime<Utc>>,
    /// When the metadata was last read.
    #[serde(default)]
    pub last_metadata_sync: Option<DateTime<Utc>>,
    /// Whether the collection looks like spam. Required by the spec; absent
    /// from some production samples, so decoding does not insist on it.
    #[serde_as(as = "Option<wire::FlagOrStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub possible_spam: Option<bool>,
    /// Whether the collection is verified.
    #[serde_as(as = "Option<wire::FlagOrStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_collection: Option<bool>,
}

/// NFT metadata in a fixed shape, whatever shape the token URI served.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NormalizedMetadata {
    /// Name of the token.
    #[serde(default)]
    pub name: Option<String>,
    /// Description of the token.
    #[serde(default)]
    pub description: Option<String>,
    /// URL of the image.
    #[serde(default)]
    pub image: Option<String>,
    /// External page of the token.
    #[serde(default)]
    pub external_link: Option<String>,
    /// URL of an animation.
    #[serde(default)]
    pub animation_url: Option<String>,
    /// Traits of the token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Vec<NftAttribute>>,
}

/// One trait of an NFT.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NftAttribute {
    /// Name of the trait.
    #[serde(default)]
    pub trait_type: Option<String>,
    /// Value of the trait.
    pub value: TraitValue,
    /// How to display the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_type: Option<String>,
    /// Maximum of a numeric trait.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_value: Option<f64>,
    /// How many tokens of the collection have this trait value.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trait_count: Option<u64>,
    /// Position of the trait for display.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<u64>,
}

/// Value of an NFT trait: metadata documents use text, numbers and booleans.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TraitValue {
    /// A boolean trait.
    Bool(bool),
    /// A numeric trait.
    Number(f64),
    /// A textual trait.
    Text(String),
}

/// Preview media of an NFT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NftMedia {
    /// Processing state, such as `success` or `processing`.
    pub status: String,
    /// The media as the metadata named it.
    #[serde(default)]
    pub original_media_url: Option<String>,
    /// When the previews were last made.
    #[serde(rename = "updatedAt", default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    /// MIME type of the media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mimetype: Option<String>,
    /// Hash of the original media the previews were made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_hash: Option<String>,
    /// Previews in three sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_collection: Option<NftMediaCollection>,
}

/// Previews of an NFT's media in three sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NftMediaCollection {
    /// Smallest preview.
    pub low: NftMediaItem,
    /// Middle preview.
    pub medium: NftMediaItem,
    /// Largest preview.
    pub high: NftMediaItem,
}

/// One preview image.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NftMediaItem {
    /// Height in pixels.
    #[serde_as(as = "wire::Num")]
    pub height: u32,
    /// Width in pixels.
    #[serde_as(as = "wire::Num")]
    pub width: u32,
    /// Where the preview is.
    pub url: String,
}

/// One page of the NFT collections a wallet holds tokens of.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NftCollectionPage {
    /// Whether the collections of the result are indexed.
    pub status: SyncStatus,
    /// Number of this page, from 1.
    #[serde_as(as = "wire::NumOrStr")]
    pub page: u64,
    /// Number of items a full page holds.
    #[serde_as(as = "wire::NumOrStr")]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The collections of this page.
    pub result: Vec<NftCollection>,
}

/// An NFT collection a wallet holds tokens of.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NftCollection {
    /// Contract of the collection.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Token standard of the contract.
    pub contract_type: ContractType,
    /// Name of the collection.
    pub name: String,
    /// Symbol of the collection.
    pub symbol: String,
    /// Whether the collection looks like spam. Required by the spec; absent
    /// from some production samples, so decoding does not insist on it.
    #[serde_as(as = "Option<wire::FlagOrStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub possible_spam: Option<bool>,
    /// Whether the collection is verified. Required by the spec; absent from
    /// some production samples, so decoding does not insist on it.
    #[serde_as(as = "Option<wire::FlagOrStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_collection: Option<bool>,
    /// Number of the wallet's tokens in the collection (with `token_counts=true`).
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// URL of the collection's logo; `None` when unknown.
    #[serde(default)]
    pub collection_logo: Option<String>,
    /// URL of the collection's banner image; `None` when unknown.
    #[serde(default)]
    pub collection_banner_image: Option<String>,
}
