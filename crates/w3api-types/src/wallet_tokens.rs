//! Token balances of a wallet with USD prices
//! (`GET /api/v2.2/wallets/{address}/tokens`).

use alloy_primitives::{Address, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// The address production uses for a chain's native currency in token lists
/// (`0xeeee…eeee`; it may arrive in any letter case).
pub const NATIVE_TOKEN_ADDRESS: Address = Address::new([0xee; 20]);

/// One page of a wallet's token balances.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenBalancePage {
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Number of this page, from 0 (production numbers token pages from 0,
    /// NFT pages from 1).
    #[serde_as(as = "wire::Num")]
    #[serde(default)]
    pub page: u64,
    /// Number of items a full page holds.
    #[serde_as(as = "wire::Num")]
    #[serde(default)]
    pub page_size: u64,
    /// Block the balances are at, written as decimal text as production
    /// documents it; a JSON number is accepted on input.
    #[serde_as(as = "Option<wire::DecStr>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_number: Option<u64>,
    /// One item per token, the native currency included unless excluded.
    pub result: Vec<TokenBalance>,
}

/// A wallet's balance of one token, with its price.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenBalance {
    /// Contract of the token; [`NATIVE_TOKEN_ADDRESS`] for the native currency.
    #[serde_as(as = "Option<wire::Hex>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_address: Option<Address>,
    /// Token symbol.
    pub symbol: String,
    /// Token name.
    pub name: String,
    /// URL of the logo; `None` when unknown.
    #[serde(default)]
    pub logo: Option<String>,
    /// URL of the thumbnail; `None` when unknown.
    #[serde(default)]
    pub thumbnail: Option<String>,
    /// Decimals of the token.
    #[serde_as(as = "wire::NumOrStr")]
    pub decimals: u8,
    /// Raw balance in the smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub balance: U256,
    /// Whether the token looks like spam.
    #[serde_as(as = "wire::FlagOrStr")]
    pub possible_spam: bool,
    /// Whether the contract's source is verified.
    #[serde_as(as = "Option<wire::Flag>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_contract: Option<bool>,
    /// The balance scaled by the decimals, as an exact decimal string.
    pub balance_formatted: String,
    /// Price of one token in USD; `None` when the token has no price.
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price: Option<f64>,
    /// Percent change of the price over 24 hours.
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price_24hr_percent_change: Option<f64>,
    /// USD change of the price over 24 hours.
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_price_24hr_usd_change: Option<f64>,
    /// Value of the balance in USD.
    #[serde_as(as = "Option<wire::Num>")]
    pub usd_value: Option<f64>,
    /// USD change of the value over 24 hours.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd_value_24hr_usd_change: Option<f64>,
    /// True for the chain's native currency.
    #[serde_as(as = "wire::Flag")]
    pub native_token: bool,
    /// Share of this item in the wallet's priced total, in percent.
    #[serde_as(as = "wire::Num")]
    pub portfolio_percentage: f64,
    // The four fields below are written even when `None`, as production
    // does: `null` for the native currency, which has no supply on chain.
    /// Total supply of the token, raw.
    #[serde_as(as = "Option<wire::DecStr>")]
    pub total_supply: Option<U256>,
    /// Total supply scaled by the decimals.
    #[serde(default)]
    pub total_supply_formatted: Option<String>,
    /// This balance as a percentage of the total supply.
    #[serde_as(as = "Option<wire::Num>")]
    pub percentage_relative_to_total_supply: Option<f64>,
    /// Security score of the token contract (0 to 100); `None` where not scored.
    #[serde_as(as = "Option<wire::Num>")]
    pub security_score: Option<f64>,
}
