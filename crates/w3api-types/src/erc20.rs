//! ERC20 metadata (`GET /api/v2.2/erc20/metadata`) and the body of
//! `POST /api/v2.2/erc20/prices`.

use alloy_primitives::{Address, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// What is known of an ERC20 token. Every field is present; what the server
/// does not know is `null` or empty.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Erc20Metadata {
    /// The token's contract.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// A label of the address.
    #[serde(default)]
    pub address_label: Option<String>,
    /// Its name.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// Its decimals, written as decimal digits.
    #[serde_as(as = "wire::DecStr")]
    pub decimals: u8,
    /// URL of its logo.
    #[serde(default)]
    pub logo: Option<String>,
    /// Hash of the logo's image.
    #[serde(default)]
    pub logo_hash: Option<String>,
    /// URL of its thumbnail.
    #[serde(default)]
    pub thumbnail: Option<String>,
    /// Minted less burned, in the smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub total_supply: U256,
    /// The supply in whole units.
    pub total_supply_formatted: String,
    /// The supply times the USD price, two decimals.
    #[serde(default)]
    pub fully_diluted_valuation: Option<String>,
    /// The block of the token's first transfer.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// A data provider's validation mark.
    #[serde(default)]
    #[serde_as(as = "Option<wire::Num>")]
    pub validated: Option<f64>,
    /// The time of that block.
    pub created_at: DateTime<Utc>,
    /// Whether the token looks like spam.
    #[serde_as(as = "wire::Flag")]
    pub possible_spam: bool,
    /// Whether its contract is verified.
    #[serde_as(as = "wire::Flag")]
    pub verified_contract: bool,
    /// Category slugs.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// The project's pages.
    #[serde(default)]
    pub links: TokenLinks,
    /// The same token on other chains.
    #[serde(default)]
    pub implementations: Vec<TokenImplementation>,
    /// Supply in circulation, as decimal text.
    #[serde(default)]
    pub circulating_supply: Option<String>,
    /// Circulating supply times the price, as decimal text.
    #[serde(default)]
    pub market_cap: Option<String>,
}

/// A project's pages, by site.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[allow(missing_docs)]
pub struct TokenLinks {
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub bitbucket: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub discord: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub facebook: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub github: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub instagram: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub linkedin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub medium: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub reddit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub telegram: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub tiktok: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub twitter: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub website: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub youtube: Option<String>,
}

/// A deployment of a token on another chain.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenImplementation {
    /// The chain's id, in hex.
    pub chain_id: String,
    /// The chain's name.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub chain: Option<String>,
    /// The chain's display name.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub chain_name: Option<String>,
    /// The token's contract there.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
}

/// The tokens `getMultipleTokenPrices` prices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MultipleTokenPricesRequest {
    /// One to 30 tokens.
    pub tokens: Vec<TokenPriceItem>,
}

/// One token to price, and where.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenPriceItem {
    /// The token's contract.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Price from this exchange only, by its name or its factory's address.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "wire::present")]
    pub exchange: Option<String>,
    /// Price at this block (any decimal number; one past the newest block
    /// reads the newest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde_as(as = "Option<wire::DecStr>")]
    pub to_block: Option<U256>,
}
