//! Prices from DEX pair reserves.
//!
//! Every pair quotes a token in the wrapped native token or in the USD
//! stablecoin ([`Asset::WRAPPED`], [`Asset::STABLE`]). The stablecoin is
//! the USD anchor (worth exactly 1), and the native currency's USD price
//! comes from the deepest wrapped-native/stablecoin pair. A token's price
//! comes from its deepest pair (optionally on one exchange, optionally
//! among pairs whose every side holds a minimum of USD). The native
//! currency is priced as its wrapped token.
//!
//! Where the reserves come from is the caller's: the devnet reads them off
//! its ledger, an indexer from pairs' `Sync` events.

use alloy_primitives::{U256, U512};

use crate::ledger::Asset;

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

/// The two sides of a pair and the exchange that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSides {
    /// The token with the lower address.
    pub token0: Asset,
    /// The other token.
    pub token1: Asset,
    /// Index of the exchange.
    pub exchange: usize,
}

/// The pairs of a chain and their reserves over time.
pub trait PairBook {
    /// The pairs `asset` is a side of, by index.
    fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)>;
    /// A pair's reserves `(token0, token1)` at the end of `block`.
    fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128);
    /// Decimals of an asset.
    fn decimals(&self, asset: Asset) -> u8;
}

/// `raw / 10^decimals` as a float, for USD arithmetic.
pub fn to_f64(raw: u128, decimals: u8) -> f64 {
    raw as f64 / 10f64.powi(i32::from(decimals))
}

/// The price of `asset` at `block` from the reserves, or `None` when no
/// eligible pair prices it.
pub fn price(book: &impl PairBook, asset: Asset, block: u64, filter: PriceFilter) -> Option<Price> {
    let asset = if asset == Asset::NATIVE { Asset::WRAPPED } else { asset };
    let native = native_reference(book, block)?;
    let mut best: Option<Price> = None;
    for (index, pair) in book.pairs_of(asset) {
        if filter.exchange.is_some_and(|e| e != pair.exchange) {
            continue;
        }
        let Some(price) = price_in_pair(book, asset, index, pair, block, &native) else { continue };
        if filter.min_side_usd.is_some_and(|min| price.liquidity_usd / 2.0 < min) {
            continue;
        }
        if best.as_ref().is_none_or(|b| price.liquidity_usd > b.liquidity_usd) {
            best = Some(price);
        }
    }
    best
}

/// A pair's reserves at a block, oriented as (asset, the side that quotes).
struct Quote {
    reserve_token: u128,
    reserve_quote: u128,
    quote: Asset,
}

/// The native currency's USD price and the reserves it comes from.
struct NativeReference {
    usd: f64,
    reserve_wrapped: u128,
    reserve_stable: u128,
    /// Stablecoin side in whole units: the pair's depth.
    stable: f64,
}

/// The price from one pair, or `None` when a side is empty or the other
/// side quotes nothing.
fn price_in_pair(
    book: &impl PairBook,
    asset: Asset,
    index: usize,
    pair: PairSides,
    block: u64,
    native: &NativeReference,
) -> Option<Price> {
    let quote = quote(book, asset, index, pair, block)?;
    if quote.quote != Asset::WRAPPED && quote.quote != Asset::STABLE {
        return None;
    }
    let token_decimals = book.decimals(asset);
    let quote_decimals = book.decimals(quote.quote);
    let quote_usd = if quote.quote == Asset::STABLE { 1.0 } else { native.usd };
    let quote_side_usd = to_f64(quote.reserve_quote, quote_decimals) * quote_usd;
    let whole_tokens = to_f64(quote.reserve_token, token_decimals);
    let usd = if asset == Asset::STABLE { 1.0 } else { quote_side_usd / whole_tokens };
    // Wei per whole token, in integers: quote units per token, converted to wei.
    let scale = U512::from(10u8).pow(U512::from(token_decimals));
    let native_wei = if quote.quote == Asset::WRAPPED {
        U512::from(quote.reserve_quote) * scale / U512::from(quote.reserve_token)
    } else {
        // The stablecoin quotes: through the native reference pair.
        U512::from(quote.reserve_quote) * scale * U512::from(native.reserve_wrapped)
            / (U512::from(quote.reserve_token) * U512::from(native.reserve_stable))
    };
    Some(Price { usd, native_wei: U256::saturating_from(native_wei), pair: index, liquidity_usd: 2.0 * quote_side_usd })
}

fn quote(book: &impl PairBook, asset: Asset, index: usize, pair: PairSides, block: u64) -> Option<Quote> {
    let (reserve0, reserve1) = book.reserves_at(index, block);
    let (reserve_token, reserve_quote, quote) =
        if asset == pair.token0 { (reserve0, reserve1, pair.token1) } else { (reserve1, reserve0, pair.token0) };
    (reserve_token > 0 && reserve_quote > 0).then_some(Quote { reserve_token, reserve_quote, quote })
}

/// The native currency's USD price, from the deepest wrapped/stable pair.
fn native_reference(book: &impl PairBook, block: u64) -> Option<NativeReference> {
    book.pairs_of(Asset::WRAPPED)
        .filter_map(|(index, pair)| {
            let quote = quote(book, Asset::WRAPPED, index, pair, block).filter(|q| q.quote == Asset::STABLE)?;
            let stable = to_f64(quote.reserve_quote, book.decimals(Asset::STABLE));
            let usd = stable / to_f64(quote.reserve_token, book.decimals(Asset::WRAPPED));
            Some(NativeReference {
                usd,
                reserve_wrapped: quote.reserve_token,
                reserve_stable: quote.reserve_quote,
                stable,
            })
        })
        .max_by(|a, b| a.stable.total_cmp(&b.stable))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: Asset = Asset(3);
    const OTHER: Asset = Asset(4);

    /// Pairs with fixed reserves: wrapped/stable at 2,000 USD (twice, the
    /// deeper one first), TOKEN/wrapped on exchange 0, TOKEN/stable on
    /// exchange 1, TOKEN/OTHER (which quotes nothing).
    struct Book(Vec<(PairSides, (u128, u128))>);

    const ETH: u128 = 1_000_000_000_000_000_000;
    const USD: u128 = 1_000_000;

    fn book() -> Book {
        let pair = |token0, token1, exchange| PairSides { token0, token1, exchange };
        Book(vec![
            (pair(Asset::WRAPPED, Asset::STABLE, 0), (1_000 * ETH, 2_000_000 * USD)),
            (pair(Asset::WRAPPED, Asset::STABLE, 1), (10 * ETH, 30_000 * USD)),
            (pair(TOKEN, Asset::WRAPPED, 0), (4_000 * ETH, 2 * ETH)),
            (pair(Asset::STABLE, TOKEN, 1), (500 * USD, 1_000 * ETH)),
            (pair(TOKEN, OTHER, 0), (ETH, ETH)),
        ])
    }

    impl PairBook for Book {
        fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> {
            self.0.iter().map(|(p, _)| *p).enumerate().filter(move |(_, p)| p.token0 == asset || p.token1 == asset)
        }
        fn reserves_at(&self, pair: usize, _block: u64) -> (u128, u128) {
            self.0[pair].1
        }
        fn decimals(&self, asset: Asset) -> u8 {
            if asset == Asset::STABLE { 6 } else { 18 }
        }
    }

    #[test]
    fn the_deepest_pair_prices_through_the_deepest_native_reference() {
        let book = book();
        let native = price(&book, Asset::NATIVE, 1, PriceFilter::default()).unwrap();
        assert_eq!((native.usd, native.pair), (2_000.0, 0), "the deeper wrapped/stable pair");
        assert_eq!(native.native_wei, U256::from(ETH));
        let token = price(&book, TOKEN, 1, PriceFilter::default()).unwrap();
        // Pair 2: 2 ETH (4,000 USD) against 4,000 tokens, deeper than pair 3's 500 USD.
        assert_eq!((token.usd, token.pair, token.liquidity_usd), (1.0, 2, 8_000.0));
        assert_eq!(token.native_wei, U256::from(ETH / 2_000));
    }

    #[test]
    fn filters_pick_among_pairs() {
        let book = book();
        let on_one = price(&book, TOKEN, 1, PriceFilter { exchange: Some(1), min_side_usd: None }).unwrap();
        assert_eq!((on_one.usd, on_one.pair), (0.5, 3));
        // Through the stablecoin, in wei: 0.5 USD at 2,000 USD per ETH.
        assert_eq!(on_one.native_wei, U256::from(ETH / 4_000));
        let deep = PriceFilter { exchange: Some(1), min_side_usd: Some(1_000.0) };
        assert_eq!(price(&book, TOKEN, 1, deep), None, "no side of pair 3 holds 1,000 USD");
        assert_eq!(price(&book, OTHER, 1, PriceFilter::default()), None, "quoted by nothing");
    }

    #[test]
    fn without_a_native_reference_nothing_is_priced() {
        let mut book = book();
        book.0[0].1 = (0, 0);
        book.0[1].1 = (ETH, 0);
        assert_eq!(price(&book, TOKEN, 1, PriceFilter::default()), None);
    }
}
