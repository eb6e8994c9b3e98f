//! What a wallet holds: the questions, and the answers as domain data.
//!
//! Answers carry raw amounts, prices and full documents; how they are
//! written (formatted balances, portfolio shares, token-id format, the
//! metadata and media a caller asked for) is the server's business.

use chrono::{DateTime, Utc};
use w3api_types::{Address, Chain, ContractType, NftMedia, NftPrices, NormalizedMetadata, SyncStatus, U256};

use std::cmp::Reverse;

use crate::SourceError;
use crate::page::{Page, PageRequest};

/// Token balances of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletTokensQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The wallet.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub to_block: Option<u64>,
    /// Only these tokens, when not empty (the native currency matches its
    /// `0xeeee…` address).
    pub token_addresses: Vec<Address>,
    /// Leave out tokens flagged as spam.
    pub exclude_spam: bool,
    /// Leave out tokens whose contract is not verified.
    pub exclude_unverified_contracts: bool,
    /// Leave out the native currency.
    pub exclude_native: bool,
    /// Leave out tokens with no transfer in this many days before the block.
    pub max_token_inactivity_days: Option<u64>,
    /// Price only from pairs whose every side holds at least this many USD.
    pub min_pair_side_liquidity_usd: Option<f64>,
}

impl WalletTokensQuery {
    /// Every token of `address` on `chain` at the latest block.
    pub fn new(chain: Chain, address: Address) -> Self {
        WalletTokensQuery {
            chain,
            address,
            to_block: None,
            token_addresses: Vec::new(),
            exclude_spam: false,
            exclude_unverified_contracts: false,
            exclude_native: false,
            max_token_inactivity_days: None,
            min_pair_side_liquidity_usd: None,
        }
    }
}

/// A token, or the native currency, as a wallet's balance names it.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenInfo {
    /// The contract; `0xeeee…` for the native currency.
    pub address: Address,
    /// Whether this is the chain's native currency.
    pub native: bool,
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Logo URL.
    pub logo: Option<String>,
    /// Thumbnail URL.
    pub thumbnail: Option<String>,
    /// Decimals of raw amounts.
    pub decimals: u8,
    /// Flagged as possible spam.
    pub possible_spam: bool,
    /// Whether the contract's source is verified.
    pub verified_contract: bool,
    /// Raw total supply at the block; `None` for the native currency.
    pub total_supply: Option<U256>,
}

/// What a wallet holds of one token at a block.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenHolding {
    /// The token.
    pub token: TokenInfo,
    /// Raw balance, more than zero.
    pub balance: U256,
    /// USD price of one whole token at the block; `None` when unpriced.
    pub usd_price: Option<f64>,
    /// USD price a day of blocks earlier; `None` when unpriced then.
    pub usd_price_day_before: Option<f64>,
}

impl TokenHolding {
    /// The balance in whole tokens, as a float for USD arithmetic.
    pub fn whole_tokens(&self) -> f64 {
        f64::from(self.balance) / ten_to(self.token.decimals)
    }

    /// The balance's USD value; `None` when unpriced.
    pub fn usd_value(&self) -> Option<f64> {
        self.usd_price.map(|price| price * self.whole_tokens())
    }
}

/// 10 to the power `decimals`, as `powi` computes it. Up to 10^22 the power
/// is an exact float, so a table gives the same value without the call;
/// wallet answers need it several times per token.
fn ten_to(decimals: u8) -> f64 {
    const EXACT: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    EXACT.get(usize::from(decimals)).copied().unwrap_or_else(|| 10f64.powi(i32::from(decimals)))
}

/// One page of a wallet's token balances.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletTokensPage {
    /// The block the balances are at.
    pub block_number: u64,
    /// Native currency first, then by USD value (unpriced last), then by address.
    pub holdings: Page<TokenHolding>,
    /// USD value of every priced holding the query keeps, on all pages (for
    /// portfolio shares).
    pub priced_total_usd: f64,
}

impl WalletTokensPage {
    /// The page of `holdings` (every holding the query keeps, in any order)
    /// that `page` asks for, in the listing's order.
    pub fn rank(block_number: u64, holdings: Vec<TokenHolding>, page: &PageRequest) -> Result<Self, SourceError> {
        // Ranks keys and indexes rather than the holdings themselves, which
        // are a few hundred bytes each: a sort moves its items many times.
        let mut ranked: Vec<(HoldingKey, usize)> =
            holdings.iter().enumerate().map(|(index, holding)| (HoldingKey::of(holding), index)).collect();
        ranked.sort_unstable_by_key(|(key, _)| *key);
        // Summed in the listing's order, not the backend's: floating-point
        // sums depend on their order, and every backend must answer alike.
        let priced_total_usd = ranked.iter().filter_map(|(_, index)| holdings[*index].usd_value()).sum();
        let page = page.cut(ranked, |(key, _)| *key, HoldingKey::encode, HoldingKey::decode)?;
        let mut slots: Vec<Option<TokenHolding>> = holdings.into_iter().map(Some).collect();
        let holdings = page.map(|(_, index)| slots[index].take().expect("a page lists each holding once"));
        Ok(WalletTokensPage { block_number, holdings, priced_total_usd })
    }
}

/// Where a holding ranks: the native currency first, then by USD value
/// (unpriced last), then by address; also the page position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct HoldingKey {
    not_native: bool,
    /// The USD value, descending by total order (unpriced as -1, below every price).
    value: Reverse<i64>,
    address: Address,
}

impl HoldingKey {
    fn of(holding: &TokenHolding) -> HoldingKey {
        HoldingKey {
            not_native: !holding.token.native,
            value: Reverse(total_order(holding.usd_value().unwrap_or(-1.0))),
            address: holding.token.address,
        }
    }

    fn encode(&self) -> String {
        format!("{}:{}:{:#x}", u8::from(self.not_native), self.value.0, self.address)
    }

    fn decode(text: &str) -> Option<HoldingKey> {
        let mut parts = text.split(':');
        let not_native = match parts.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        let value = Reverse(parts.next()?.parse().ok()?);
        let address = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(HoldingKey { not_native, value, address })
    }
}

/// An integer that orders as `f64::total_cmp` orders floats.
fn total_order(value: f64) -> i64 {
    let bits = value.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// NFTs of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletNftsQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The owner.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub at_block: Option<u64>,
    /// Only these collections, when not empty.
    pub token_addresses: Vec<Address>,
    /// Leave out collections flagged as spam.
    pub exclude_spam: bool,
    /// Add marketplace prices to each NFT.
    pub include_prices: bool,
}

impl WalletNftsQuery {
    /// Every NFT of `address` on `chain` at the latest block.
    pub fn new(chain: Chain, address: Address) -> Self {
        WalletNftsQuery {
            chain,
            address,
            at_block: None,
            token_addresses: Vec::new(),
            exclude_spam: false,
            include_prices: false,
        }
    }
}

/// An NFT collection, as a holding names it.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionInfo {
    /// The contract.
    pub address: Address,
    /// ERC721 or ERC1155.
    pub contract_type: ContractType,
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Flagged as possible spam.
    pub possible_spam: bool,
    /// Whether the collection is verified.
    pub verified: bool,
    /// Logo URL.
    pub logo: Option<String>,
    /// Banner image URL.
    pub banner: Option<String>,
}

/// Where a token stands in its collection by rarity.
#[derive(Clone, Debug, PartialEq)]
pub struct NftRarity {
    /// 1 is the rarest.
    pub rank: u64,
    /// Rank as a percentile of the collection (lower is rarer).
    pub percentage: f64,
    /// Bucket label, such as "Top 5%".
    pub label: String,
}

/// What a wallet holds of one token id at a block, with everything known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct NftHolding {
    /// The collection.
    pub collection: CollectionInfo,
    /// The token id.
    pub token_id: U256,
    /// The owner; `None` for an ERC1155 token listed with all its holders
    /// together (its `amount` is theirs).
    pub owner: Option<Address>,
    /// How many the owner holds (1 for ERC721).
    pub amount: U256,
    /// Block the holding last changed.
    pub block_number: u64,
    /// Block the token was minted.
    pub block_number_minted: u64,
    /// The token URI.
    pub token_uri: Option<String>,
    /// The metadata document as served at the URI.
    pub metadata: Option<String>,
    /// The metadata in the interface's fixed shape.
    pub normalized_metadata: Option<NormalizedMetadata>,
    /// Previews of the token's media.
    pub media: Option<NftMedia>,
    /// Identifier of the (collection, token id) pair.
    pub token_hash: String,
    /// Rarity within the collection.
    pub rarity: Option<NftRarity>,
    /// When the token URI was last read.
    pub last_token_uri_sync: Option<DateTime<Utc>>,
    /// When the metadata was last read.
    pub last_metadata_sync: Option<DateTime<Utc>>,
    /// Marketplace prices, when the query asked for them.
    pub prices: Option<NftPrices>,
}

/// One page of a wallet's NFTs.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletNftsPage {
    /// `SYNCING` while a collection the answer concerns is being indexed.
    pub status: SyncStatus,
    /// By collection address, then token id.
    pub holdings: Page<NftHolding>,
    /// NFTs on all pages, when the source knows it cheaply.
    pub total: Option<u64>,
}

/// NFT collections of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletCollectionsQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The owner.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub at_block: Option<u64>,
    /// Leave out collections flagged as spam.
    pub exclude_spam: bool,
    /// Add marketplace prices to each collection.
    pub include_prices: bool,
}

/// A collection a wallet holds tokens of.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionHolding {
    /// The collection.
    pub collection: CollectionInfo,
    /// How many of its token ids the wallet holds.
    pub token_count: u64,
    /// Marketplace prices, when the query asked for them.
    pub prices: Option<NftPrices>,
}

/// One page of a wallet's NFT collections.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletCollectionsPage {
    /// `SYNCING` while a collection of the answer is being indexed.
    pub status: SyncStatus,
    /// By collection address.
    pub holdings: Page<CollectionHolding>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_ten_are_what_powi_computes() {
        for decimals in 0..=u8::MAX {
            assert_eq!(ten_to(decimals).to_bits(), 10f64.powi(i32::from(decimals)).to_bits(), "10^{decimals}");
        }
    }
}
