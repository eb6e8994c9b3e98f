//! Prices from DEX pair reserves.
//!
//! A pair's reserves are its token balances in the ledger, so a price at
//! block N is read from the balances at N. Every pair quotes a token in the
//! wrapped native token or in the USD stablecoin; the stablecoin is the USD
//! anchor (worth exactly 1), and the native currency's USD price comes from
//! the deepest wrapped-native/stablecoin pair. A token's price comes from
//! its deepest pair (optionally on one exchange, optionally among pairs
//! whose every side holds a minimum of USD).
//!
//! Prices change only in blocks that move a pair's reserves, so the
//! unrestricted price of every asset is indexed once, after generation, at
//! each block that moves its pairs or the native reference pairs: a query is
//! then a binary search. Restricted queries (one exchange, a liquidity
//! floor) are computed from the reserves at the block.

use alloy_primitives::{U256, U512};
use rayon::prelude::*;

use crate::decimal::to_f64;
use crate::generate::ChainData;
use crate::ledger::History;
use crate::world::Asset;

/// A token's price at one block, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// USD per whole token.
    pub usd: f64,
    /// Wei of the native currency per whole token.
    pub native_wei: U256,
    /// Index of the pair that priced it.
    pub pair: usize,
    /// USD value of both sides of that pair.
    pub liquidity_usd: f64,
}

/// Which pairs may price a token.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PriceFilter {
    /// Only pairs of this exchange (index).
    pub exchange: Option<usize>,
    /// Only pairs whose every side is worth at least this many USD.
    pub min_side_usd: Option<f64>,
}

/// A pair's reserves at a block, with the side that quotes.
struct Quote {
    reserve_token: u128,
    reserve_quote: u128,
    quote: Asset,
}

/// Unrestricted prices of every asset over time (the native currency
/// shares its wrapped token's).
///
/// Wallet answers read two USD prices per token (now and a day before) and
/// nothing else of a price, at blocks all over the chain. Those are kept
/// apart, a row of every asset's per block: the tokens of one answer are
/// then read from two rows of neighbouring values rather than by a binary
/// search of a dozen cache lines each. The rows cover the generated chain;
/// blocks added later are read from the histories.
#[derive(Clone, Debug, Default)]
pub(crate) struct PriceIndex {
    /// By asset, at each block that can change the price.
    assets: Vec<History<Option<Price>>>,
    /// USD per whole token, block by block from 0, asset by asset within a
    /// block; NaN where nothing prices it.
    usd_rows: Vec<f64>,
    /// Assets in a row of `usd_rows`.
    row_width: usize,
}

impl PriceIndex {
    /// The index of `assets`' prices (by asset) on a chain whose newest block is `latest`.
    fn new(assets: Vec<History<Option<Price>>>, latest: u64) -> PriceIndex {
        let usd =
            |prices: &History<Option<Price>>, block: u64| prices.at(block as u32).flatten().map_or(f64::NAN, |p| p.usd);
        let usd_rows = (0..=latest).flat_map(|block| assets.iter().map(move |prices| usd(prices, block))).collect();
        PriceIndex { row_width: assets.len(), assets, usd_rows }
    }

    fn price(&self, asset: Asset, block: u64) -> Option<Price> {
        let block = u32::try_from(block).unwrap_or(u32::MAX);
        self.assets.get(usize::from(asset.0))?.at(block).flatten()
    }

    fn usd(&self, asset: Asset, block: u64) -> Option<f64> {
        let column = usize::from(asset.0);
        let row = usize::try_from(block).ok().and_then(|b| b.checked_mul(self.row_width));
        let usd = match row.filter(|_| column < self.row_width).and_then(|row| self.usd_rows.get(row + column)) {
            Some(usd) => *usd,
            None => self.price(asset, block).map_or(f64::NAN, |p| p.usd),
        };
        (!usd.is_nan()).then_some(usd)
    }
}

impl ChainData {
    /// The price of `asset` at `block` (the native currency is priced as
    /// its wrapped token), or `None` when no eligible pair prices it.
    pub fn price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<Price> {
        let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
        if filter == PriceFilter::default() {
            self.price_index.price(asset, block)
        } else {
            self.compute_price(asset, block, filter)
        }
    }

    /// The USD price of one whole `asset` at `block`: [`price`](Self::price)'s `usd`.
    pub fn usd_price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<f64> {
        let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
        if filter == PriceFilter::default() {
            self.price_index.usd(asset, block)
        } else {
            self.compute_price(asset, block, filter).map(|p| p.usd)
        }
    }

    /// Indexes the unrestricted price of every asset at every block that
    /// can change it.
    pub(crate) fn build_price_index(&self) -> PriceIndex {
        let reference_pairs: Vec<usize> = self.world.pairs_of(Asset::WRAPPED).map(|(i, _)| i).collect();
        let assets = self
            .world
            .assets()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|asset| {
                let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
                let pairs = self.world.pairs_of(asset).map(|(i, _)| i).chain(reference_pairs.iter().copied());
                let mut blocks: Vec<u32> = pairs.flat_map(|pair| self.reserve_change_blocks(pair)).collect();
                blocks.sort_unstable();
                blocks.dedup();
                let mut history = History::default();
                for block in blocks {
                    history.push(block, self.compute_price(asset, u64::from(block), PriceFilter::default()));
                }
                history
            })
            .collect();
        PriceIndex::new(assets, self.latest())
    }

    /// Indexes the prices block `number` changed: those of the assets of
    /// each pair whose reserves moved in it, or every price when a pair of
    /// the wrapped native token moved (the native currency's USD price
    /// comes from those). Blocks are indexed in order, each once.
    pub(crate) fn index_prices_of(&mut self, number: u64) {
        let block = number as u32;
        let moved: Vec<usize> =
            (0..self.world.pairs.len()).filter(|pair| self.reserves_moved_in(*pair, block)).collect();
        let reference_moved = moved.iter().any(|pair| self.world.pairs_of(Asset::WRAPPED).any(|(i, _)| i == *pair));
        let mut assets: Vec<Asset> = if reference_moved {
            self.world.assets().collect()
        } else {
            moved.iter().flat_map(|pair| [self.world.pairs[*pair].token0, self.world.pairs[*pair].token1]).collect()
        };
        assets.sort_unstable();
        assets.dedup();
        let prices: Vec<(Asset, Option<Price>)> = assets
            .into_iter()
            .map(|asset| (asset, self.compute_price(asset, number, PriceFilter::default())))
            .collect();
        let index = &mut self.price_index;
        for (asset, price) in prices {
            let column = usize::from(if asset == Asset::NATIVE { Asset::WRAPPED } else { asset }.0);
            if index.assets.len() <= column {
                index.assets.resize_with(column + 1, History::default);
            }
            index.assets[column].set(block, price);
        }
    }

    /// Whether a pair's reserves changed in `block`, the newest block.
    fn reserves_moved_in(&self, pair: usize, block: u32) -> bool {
        let pair = &self.world.pairs[pair];
        let Some(holder) = self.ledger.find(pair.address) else { return false };
        [pair.token0, pair.token1].iter().any(|asset| {
            self.ledger
                .balance_history(holder, *asset)
                .and_then(|history| history.checkpoint_at(u32::MAX))
                .is_some_and(|(last, _)| last == block)
        })
    }

    /// Blocks in which a pair's reserves changed.
    fn reserve_change_blocks(&self, pair: usize) -> Vec<u32> {
        let pair = &self.world.pairs[pair];
        let Some(holder) = self.ledger.find(pair.address) else { return Vec::new() };
        [pair.token0, pair.token1]
            .iter()
            .filter_map(|asset| self.ledger.balance_history(holder, *asset))
            .flat_map(|history| history.blocks().collect::<Vec<_>>())
            .collect()
    }

    /// The price from the reserves at `block`, without the index.
    pub fn compute_price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<Price> {
        let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
        let native = self.native_reference(block)?;
        let mut best: Option<Price> = None;
        for (index, pair) in self.world.pairs_of(asset) {
            if filter.exchange.is_some_and(|e| e != pair.exchange) {
                continue;
            }
            let Some(price) = self.price_in_pair(asset, index, block, &native) else { continue };
            if filter.min_side_usd.is_some_and(|min| price.liquidity_usd / 2.0 < min) {
                continue;
            }
            if best.as_ref().is_none_or(|b| price.liquidity_usd > b.liquidity_usd) {
                best = Some(price);
            }
        }
        best
    }

    /// The price from one pair, or `None` when a side is empty.
    fn price_in_pair(&self, asset: Asset, pair: usize, block: u64, native: &NativeReference) -> Option<Price> {
        let quote = self.quote(asset, pair, block)?;
        // Only the wrapped native token and the stablecoin quote prices.
        if quote.quote != Asset::WRAPPED && quote.quote != Asset::STABLE {
            return None;
        }
        let token_decimals = self.world.decimals(asset);
        let quote_decimals = self.world.decimals(quote.quote);
        let quote_usd = if quote.quote == Asset::STABLE { 1.0 } else { native.usd };
        let quote_side_usd = to_f64(quote.reserve_quote, quote_decimals) * quote_usd;
        let whole_tokens = to_f64(quote.reserve_token, token_decimals);
        let usd = if asset == Asset::STABLE { 1.0 } else { quote_side_usd / whole_tokens };
        // Wei per whole token, in integers: quote units per token, converted to wei.
        let scale = U512::from(10u8).pow(U512::from(token_decimals));
        let native_wei = if quote.quote == Asset::WRAPPED {
            U512::from(quote.reserve_quote) * scale / U512::from(quote.reserve_token)
        } else {
            // Quote is the stablecoin: through the native reference pair.
            U512::from(quote.reserve_quote) * scale * U512::from(native.reserve_wrapped)
                / (U512::from(quote.reserve_token) * U512::from(native.reserve_stable))
        };
        Some(Price { usd, native_wei: U256::saturating_from(native_wei), pair, liquidity_usd: 2.0 * quote_side_usd })
    }

    /// Reserves of `pair` at `block`, oriented as (asset, the other side).
    fn quote(&self, asset: Asset, pair: usize, block: u64) -> Option<Quote> {
        let pair = &self.world.pairs[pair];
        let holder = self.ledger.find(pair.address)?;
        let other = pair.other(asset);
        let reserve_token = self.ledger.balance_at(holder, asset, block as u32);
        let reserve_quote = self.ledger.balance_at(holder, other, block as u32);
        (reserve_token > 0 && reserve_quote > 0).then_some(Quote { reserve_token, reserve_quote, quote: other })
    }

    /// The native currency's USD price, from the deepest wrapped/stable pair.
    fn native_reference(&self, block: u64) -> Option<NativeReference> {
        self.world
            .pairs_of(Asset::WRAPPED)
            .filter_map(|(index, _)| {
                let quote = self.quote(Asset::WRAPPED, index, block).filter(|q| q.quote == Asset::STABLE)?;
                let stable = to_f64(quote.reserve_quote, self.world.decimals(Asset::STABLE));
                let usd = stable / to_f64(quote.reserve_token, 18);
                Some(NativeReference {
                    usd,
                    reserve_wrapped: quote.reserve_token,
                    reserve_stable: quote.reserve_quote,
                    stable,
                })
            })
            .max_by(|a, b| a.stable.total_cmp(&b.stable))
    }

    /// The newest block a day or more before `block`, if the chain is that old.
    pub fn day_before(&self, block: u64) -> Option<u64> {
        self.block_before(block, super::DAY)
    }
}

/// The native currency's USD price and the reserves it comes from.
struct NativeReference {
    usd: f64,
    reserve_wrapped: u128,
    reserve_stable: u128,
    /// Stablecoin side in whole units: the pair's depth.
    stable: f64,
}
