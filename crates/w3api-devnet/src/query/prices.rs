//! Prices from DEX pair reserves, as `w3api_ledger::pricing` computes them.
//!
//! A pair's reserves are its token balances in the ledger, so a price at
//! block N is read from the balances at N.
//!
//! Prices change only in blocks that move a pair's reserves, so the
//! unrestricted price of every asset is indexed once, after generation, at
//! each block that moves its pairs or the native reference pairs: a query is
//! then a binary search. Restricted queries (one exchange, a liquidity
//! floor) are computed from the reserves at the block.

use rayon::prelude::*;
use w3api_ledger::pricing::{self, PairBook, PairSides, Price, PriceFilter};
use w3api_ledger::{Asset, History};

use crate::generate::ChainData;

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
            self.indexes.prices.price(asset, block)
        } else {
            self.compute_price(asset, block, filter)
        }
    }

    /// The USD price of one whole `asset` at `block`: [`price`](Self::price)'s `usd`.
    pub fn usd_price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<f64> {
        let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
        if filter == PriceFilter::default() {
            self.indexes.prices.usd(asset, block)
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
        let index = &mut self.indexes.prices;
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
        pricing::price(self, asset, block, filter)
    }

    /// The newest block a day or more before `block`, if the chain is that old.
    pub fn day_before(&self, block: u64) -> Option<u64> {
        self.block_before(block, super::DAY)
    }
}

/// A pair's reserves are its balances in the ledger.
impl PairBook for ChainData {
    fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> {
        self.world.pairs_of(asset).map(|(index, pair)| {
            (index, PairSides { token0: pair.token0, token1: pair.token1, exchange: pair.exchange })
        })
    }

    fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128) {
        let pair = &self.world.pairs[pair];
        let Some(holder) = self.ledger.find(pair.address) else { return (0, 0) };
        let block = u32::try_from(block).unwrap_or(u32::MAX);
        (self.ledger.balance_at(holder, pair.token0, block), self.ledger.balance_at(holder, pair.token1, block))
    }

    fn decimals(&self, asset: Asset) -> u8 {
        self.world.decimals(asset)
    }
}
