//! NFTs of a wallet (`GET /api/v2.2/{address}/nft`) and the collections they
//! belong to (`GET /api/v2.2/{address}/nft/collections`).

use alloy_primitives::{Address, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::open_enum::open_enum;
use crate::wire;

/// The `token_hash` of an NFT: the first half of the keccak-256 of its
/// collection's address and its 32-byte id, in hex; the same pair always
/// has the same hash.
pub fn nft_token_hash(collection: Address, token_id: U256) -> String {
    let hash = alloy_primitives::keccak256([collection.as_slice(), &token_id.to_be_bytes::<32>()].concat());
    alloy_primitives::hex::encode(&hash[..16])
}

open_enum! {
    /// Indexing state of the contracts behind a page of NFTs or collections.
    pub enum SyncStatus {
        /// Every contract of the result is indexed.
        Synced = "SYNCED",
        /// Some contract of the result is still being indexed; the result may be incomplete.
        Syncing = "SYNCING",
    }
}

open_enum! {
    /// Token standard of an NFT contract.
    pub enum ContractType {
        /// One owner per token id.
        Erc721 = "ERC721",
        /// Fungible amounts per token id.
        Erc1155 = "ERC1155",
    }
}

/// How token ids are written (`format` query parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TokenIdFormat {
    /// Decimal digits (the default).
    #[default]
    Decimal,
    /// `0x` and hex digits.
    Hex,
}

impl TokenIdFormat {
    /// Every format, in the order of the spec.
    pub const ALL: [TokenIdFormat; 2] = [TokenIdFormat::Decimal, TokenIdFormat::Hex];

    /// The format's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenIdFormat::Decimal => "decimal",
            TokenIdFormat::Hex => "hex",
        }
    }

    /// A token id written in this format.
    pub fn write(self, id: U256) -> String {
        match self {
            TokenIdFormat::Decimal => id.to_string(),
            TokenIdFormat::Hex => format!("{id:#x}"),
        }
    }
}

impl std::fmt::Display for TokenIdFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`TokenIdFormat`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a token id format (decimal or hex)")]
pub struct InvalidTokenIdFormat(pub String);

impl std::str::FromStr for TokenIdFormat {
    type Err = InvalidTokenIdFormat;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TokenIdFormat::ALL.into_iter().find(|f| f.as_str() == text).ok_or_else(|| InvalidTokenIdFormat(text.into()))
    }
}

/// One page of the NFTs a wallet owns.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftPage {
    /// Whether the contracts of the result are indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SyncStatus>,
    /// Total number of NFTs across pages; `None` when not counted (production
    /// often sends `null`).
    #[serde_as(as = "Option<wire::NumOrStr>")]
    #[serde(default)]
    pub total: Option<u64>,
    /// Number of this page, from 1 (0 when an answer leaves it out).
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page: u64,
    /// Number of items a full page holds (0 when an answer leaves it out).
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The NFTs of this page.
    pub result: Vec<Nft>,
}

/// One NFT (or, for ERC1155, one token id with an amount) and its holder.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Nft {
    /// Contract of the collection.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Token id: decimal digits, or `0x` hex with `format=hex`.
    pub token_id: String,
    /// Token standard of the contract.
    pub contract_type: ContractType,
    /// Holder of the token; `None` for an ERC1155 token listed by itself,
    /// which has many (its `amount` is what they all hold).
    #[serde_as(as = "Option<wire::Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_of: Option<Address>,
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
    /// Floor price and last sale, present with `include_prices=true`.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<NftPrices>,
}

/// The NFTs `getMultipleNFTs` reads, and how it writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MultipleNftsRequest {
    /// One to 25 NFTs.
    pub tokens: Vec<NftTokenItem>,
    /// Whether to add `normalized_metadata` (yes when absent).
    #[serde(rename = "normalizeMetadata", default, skip_serializing_if = "Option::is_none")]
    pub normalize_metadata: Option<bool>,
    /// Whether to add `media` (no when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_items: Option<bool>,
}

/// One NFT, by contract and token id.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftTokenItem {
    /// The collection's contract.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// The token id.
    pub token_id: NftTokenId,
}

/// What `include_prices=true` adds to an NFT or a collection. Every field is
/// written, `null` where there is no price; on input, the group is present
/// when any of its fields is.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftPrices {
    /// Floor price of the collection, in `floor_price_currency`.
    pub floor_price: Option<String>,
    /// Floor price in USD.
    pub floor_price_usd: Option<String>,
    /// Currency of the floor price, such as `eth`.
    pub floor_price_currency: Option<String>,
    /// The last marketplace sale of the token (of a token of the collection).
    pub last_sale: Option<NftLastSale>,
}

impl<'de> Deserialize<'de> for NftPrices {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Flattened into its item, this group sees every key the item does
        // not claim. Failing when none of its own keys is there is what makes
        // the item's `prices` `None` (include_prices was off) rather than a
        // group of nulls.
        #[derive(Deserialize)]
        struct Present {
            #[serde(default, with = "serde_with::rust::double_option")]
            floor_price: Option<Option<String>>,
            #[serde(default, with = "serde_with::rust::double_option")]
            floor_price_usd: Option<Option<String>>,
            #[serde(default, with = "serde_with::rust::double_option")]
            floor_price_currency: Option<Option<String>>,
            #[serde(default, with = "serde_with::rust::double_option")]
            last_sale: Option<Option<NftLastSale>>,
        }
        let present = Present::deserialize(deserializer)?;
        let any = present.floor_price.is_some()
            || present.floor_price_usd.is_some()
            || present.floor_price_currency.is_some()
            || present.last_sale.is_some();
        if !any {
            return Err(serde::de::Error::custom("no price field"));
        }
        Ok(NftPrices {
            floor_price: present.floor_price.flatten(),
            floor_price_usd: present.floor_price_usd.flatten(),
            floor_price_currency: present.floor_price_currency.flatten(),
            last_sale: present.last_sale.flatten(),
        })
    }
}

/// A marketplace sale of an NFT.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftLastSale {
    /// Transaction of the sale.
    #[serde_as(as = "wire::Hex")]
    pub transaction_hash: alloy_primitives::B256,
    /// Time of the block of the sale.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// Who bought.
    #[serde_as(as = "wire::Hex")]
    pub buyer_address: Address,
    /// Who sold.
    #[serde_as(as = "wire::Hex")]
    pub seller_address: Address,
    /// Price paid, raw, in the smallest unit of the payment token.
    #[serde_as(as = "wire::DecStr")]
    pub price: U256,
    /// Price scaled by the payment token's decimals.
    pub price_formatted: String,
    /// Price in USD at the time of the sale.
    #[serde(default)]
    pub usd_price_at_sale: Option<String>,
    /// What the price paid is worth in USD now.
    #[serde(default)]
    pub current_usd_value: Option<String>,
    /// Contract of the NFT sold.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Token id of the NFT sold, in decimal digits.
    pub token_id: String,
    /// The token the sale was paid in.
    pub payment_token: NftPaymentToken,
}

/// The token a sale was paid in.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftPaymentToken {
    /// Name of the token.
    pub token_name: String,
    /// Symbol of the token.
    pub token_symbol: String,
    /// URL of the token's logo.
    #[serde(default)]
    pub token_logo: Option<String>,
    /// Decimals of the token (production writes them as a string).
    #[serde_as(as = "wire::DecStr")]
    pub token_decimals: u8,
    /// Contract of the token; `0xeeee…eeee` for the native currency.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
}

/// NFT metadata in a fixed shape, whatever shape the token URI served.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
    /// The same page, under the second name production answers with.
    #[serde(default)]
    pub external_url: Option<String>,
    /// URL of an animation.
    #[serde(default)]
    pub animation_url: Option<String>,
    /// Traits of the token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Vec<NftAttribute>>,
}

/// One trait of an NFT.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftAttribute {
    /// Name of the trait.
    #[serde(default)]
    pub trait_type: Option<String>,
    /// Value of the trait; `None` when absent or `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<TraitValue>,
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

/// Value of an NFT trait: metadata documents mostly use text, numbers and
/// booleans, and production passes on whatever else a token's metadata holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum TraitValue {
    /// A boolean trait.
    Bool(bool),
    /// A numeric trait.
    Number(f64),
    /// A textual trait.
    Text(String),
    /// Any other JSON value (a list, an object), kept as sent.
    Json(serde_json::Value),
}

/// Preview media of an NFT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftMedia {
    /// Processing state, such as `success` or `processing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// What the original media is: `image`, `audio` or `video`.
    #[serde(default)]
    pub category: Option<String>,
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

/// What media of `mimetype` is, as `NftMedia::category` says it: `image`,
/// `audio` or `video`; `None` for any other type.
pub fn media_category(mimetype: &str) -> Option<&'static str> {
    let top = mimetype.split('/').next().unwrap_or_default().trim();
    ["image", "audio", "video"].into_iter().find(|category| top.eq_ignore_ascii_case(category))
}

/// Previews of an NFT's media in three sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NftCollectionPage {
    /// Whether the collections of the result are indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SyncStatus>,
    /// Number of this page, from 1 (0 when an answer leaves it out).
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page: u64,
    /// Number of items a full page holds (0 when an answer leaves it out).
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The collections of this page.
    pub result: Vec<NftCollection>,
}

/// An NFT collection a wallet holds tokens of.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
    /// Floor price and last sale, present with `include_prices=true`.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<NftPrices>,
}

/// A token id as a request names it: decimal digits, or `0x` and hex
/// digits, within `uint256`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NftTokenId(pub U256);

/// Text that is not an [`NftTokenId`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a token id (decimal digits, or 0x and hex digits, at most 2^256 - 1)")]
pub struct InvalidTokenId(pub String);

impl std::str::FromStr for NftTokenId {
    type Err = InvalidTokenId;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let parsed = match text.strip_prefix("0x") {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => U256::from_str_radix(hex, 16),
            None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => U256::from_str_radix(text, 10),
            _ => return Err(InvalidTokenId(text.into())),
        };
        parsed.map(NftTokenId).map_err(|_| InvalidTokenId(text.into()))
    }
}

impl From<U256> for NftTokenId {
    fn from(id: U256) -> Self {
        NftTokenId(id)
    }
}

/// Decimal digits.
impl std::fmt::Display for NftTokenId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

wire::text_form!(NftTokenId);

#[cfg(feature = "schema")]
impl JsonSchema for NftTokenId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NftTokenId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": NftTokenId::PATTERN })
    }
}

impl NftTokenId {
    /// The pattern of its text, as the spec gives it.
    pub const PATTERN: &'static str = "^([0-9]{1,78}|0x[0-9a-fA-F]{1,64})$";
}

#[cfg(test)]
mod token_id_tests {
    use super::*;

    #[test]
    fn token_ids_are_read_in_decimal_or_hex_within_uint256() {
        let id = |text: &str| text.parse::<NftTokenId>().map(|id| id.0);
        assert_eq!(id("15"), Ok(U256::from(15)));
        assert_eq!(id("0xff"), Ok(U256::from(255)));
        assert_eq!(id("0xFF"), Ok(U256::from(255)));
        assert_eq!(id(&U256::MAX.to_string()), Ok(U256::MAX));
        for bad in [
            "",
            "0x",
            "-1",
            "1.0",
            "12a",
            "0xg",
            "115792089237316195423570985008687907853269984665640564039457584007913129639936",
        ] {
            assert!(id(bad).is_err(), "{bad:?}");
        }
        assert_eq!(NftTokenId(U256::from(255)).to_string(), "255");
    }
}
