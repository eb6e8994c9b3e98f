//! Native balances (`GET /api/v2.2/{address}/balance`,
//! `GET /api/v2.2/wallets/balances`), ERC20 balances without prices
//! (`GET /api/v2.2/{address}/erc20`) and net worth
//! (`GET /api/v2.2/wallets/{address}/net-worth`).

use alloy_primitives::{Address, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// A wallet's balance of the native currency.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NativeBalance {
    /// In the smallest unit (wei).
    #[serde_as(as = "wire::DecStr")]
    pub balance: U256,
}

/// Native balances of several wallets on one chain, at one block.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChainNativeBalances {
    /// The chain's name.
    pub chain: String,
    /// The chain's id, in hex.
    pub chain_id: String,
    /// The block the balances are at.
    #[serde_as(as = "wire::DecStr")]
    pub block_number: u64,
    /// That block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// The sum of the balances, in the smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub total_balance: U256,
    /// That sum in whole units.
    pub total_balance_formatted: String,
    /// Each wallet's balance, in the order asked.
    pub wallet_balances: Vec<WalletNativeBalance>,
}

/// One wallet's native balance.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WalletNativeBalance {
    /// The wallet.
    #[serde_as(as = "wire::Hex")]
    pub address: Address,
    /// In the smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub balance: U256,
    /// In whole units.
    pub balance_formatted: String,
}

/// A wallet's balance of one ERC20 token, without its price.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Erc20TokenBalance {
    /// The token's contract.
    #[serde_as(as = "wire::Hex")]
    pub token_address: Address,
    /// Its name.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// URL of its logo; `None` when unknown.
    #[serde(default)]
    pub logo: Option<String>,
    /// URL of its thumbnail; `None` when unknown.
    #[serde(default)]
    pub thumbnail: Option<String>,
    /// Its decimals.
    #[serde_as(as = "wire::Num")]
    pub decimals: u8,
    /// The raw balance, in the token's smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub balance: U256,
    /// Whether the token looks like spam.
    #[serde_as(as = "wire::Flag")]
    pub possible_spam: bool,
    /// Whether its contract is verified.
    #[serde_as(as = "wire::Flag")]
    pub verified_contract: bool,
}

/// A wallet's USD value, per chain and in total.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NetWorth {
    /// The sum over the chains, two decimals.
    pub total_networth_usd: String,
    /// One item per chain read.
    pub chains: Vec<ChainNetWorth>,
    /// Chains asked that the server does not serve.
    #[serde(default)]
    pub unsupported_chain_ids: Vec<String>,
    /// Chains asked that could not be read now.
    #[serde(default)]
    pub unavailable_chains: Vec<UnavailableChain>,
}

/// A wallet's USD value on one chain.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChainNetWorth {
    /// The chain's name.
    pub chain: String,
    /// The native balance, in the smallest unit.
    #[serde_as(as = "wire::DecStr")]
    pub native_balance: U256,
    /// The native balance in whole units.
    pub native_balance_formatted: String,
    /// Its USD value, two decimals.
    pub native_balance_usd: String,
    /// The USD value of the ERC20 balances, two decimals.
    pub token_balance_usd: String,
    /// The two together, two decimals.
    pub networth_usd: String,
}

/// A chain that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct UnavailableChain {
    /// Its id, in hex.
    pub chain_id: String,
}

/// A USD amount as production writes it in net worth: two decimals.
pub fn usd_text(amount: f64) -> String {
    format!("{amount:.2}")
}
