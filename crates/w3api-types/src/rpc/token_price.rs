//! Result of `eth_getTokenPrice`.

use alloy_primitives::{Address, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire::{self, Hex};

/// Price of a token in USD and in the chain's native currency, from one DEX pair.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenPrice {
    /// Name of the token.
    #[serde(default)]
    pub token_name: Option<String>,
    /// Symbol of the token.
    #[serde(default)]
    pub token_symbol: Option<String>,
    /// URL of the token's logo.
    #[serde(default)]
    pub token_logo: Option<String>,
    /// Decimals of the token, written as a string.
    #[serde_as(as = "Option<wire::DecStr>")]
    pub token_decimals: Option<u8>,
    /// Price in the native currency.
    pub native_price: NativePrice,
    /// Price in USD.
    #[serde_as(as = "wire::Num")]
    pub usd_price: f64,
    /// Price in USD, as text.
    #[serde(default)]
    pub usd_price_formatted: Option<String>,
    /// Price in USD a day before the block; `None` when the token had no
    /// price then.
    #[serde(default, rename = "usdPrice24h")]
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price_24h: Option<f64>,
    /// `usd_price` less `usd_price_24h`.
    #[serde(default, rename = "usdPrice24hrUsdChange")]
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price_24hr_usd_change: Option<f64>,
    /// That change as a percentage of `usd_price_24h`.
    #[serde(default, rename = "usdPrice24hrPercentChange")]
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price_24hr_percent_change: Option<f64>,
    /// Percent change over 24 hours, as text (with `include: percent_change`).
    #[serde(rename = "24hrPercentChange")]
    #[serde_as(as = "Option<wire::FloatStr>")]
    pub percent_change_24hr: Option<f64>,
    /// Factory address of the exchange the price comes from.
    #[serde_as(as = "Hex")]
    pub exchange_address: Address,
    /// Name of that exchange.
    pub exchange_name: String,
    /// Contract of the token.
    #[serde_as(as = "Option<Hex>")]
    pub token_address: Option<Address>,
    /// Block the price is at, as decimal text.
    #[serde_as(as = "Option<wire::DecStr>")]
    pub to_block: Option<u64>,
    /// Whether the token looks like spam.
    #[serde_as(as = "Option<wire::FlagOrStr>")]
    pub possible_spam: Option<bool>,
    /// Whether the token contract is verified.
    #[serde_as(as = "Option<wire::Flag>")]
    pub verified_contract: Option<bool>,
    /// The pair the price comes from.
    #[serde_as(as = "Option<Hex>")]
    pub pair_address: Option<Address>,
    /// Liquidity of that pair in USD, as text.
    #[serde_as(as = "Option<wire::FloatStr>")]
    pub pair_total_liquidity_usd: Option<f64>,
    /// A data provider's trust score, 0 to 100; `None` where there is none.
    #[serde(default)]
    #[serde_as(as = "Option<wire::Num>")]
    pub security_score: Option<f64>,
}

/// A price in the chain's native currency.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NativePrice {
    /// Raw price in the native currency's smallest unit, as decimal text.
    #[serde_as(as = "wire::DecStr")]
    pub value: U256,
    /// Decimals of the native currency.
    #[serde_as(as = "wire::Num")]
    pub decimals: u8,
    /// Name of the native currency.
    pub name: String,
    /// Symbol of the native currency.
    pub symbol: String,
    /// Address of the wrapped native token.
    #[serde(default)]
    pub address: Option<String>,
}
