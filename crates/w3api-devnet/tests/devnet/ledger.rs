//! Ledger invariants, for random seeds and chains at the tiny scale, against
//! a naive replay of every movement from genesis:
//! - no balance ever goes negative;
//! - each asset's supply equals the sum of its balances;
//! - every ERC721 token has one owner;
//! - indexed answers at any block equal the replay up to that block;
//! - portfolio percentages sum to 100;
//! - prices are those the pair reserves give.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::sample::select;
use w3api_devnet::{Asset, ChainData, ChainRead, Devnet, Holder, Movement, PriceFilter, Scale, TokenKind};
use w3api_source::{PageRequest, TokenPriceQuery, WalletNftsQuery, WalletTokensQuery};
use w3api_types::{Chain, ContractType};

/// State rebuilt by applying movements one by one.
#[derive(Default)]
struct Replay {
    balances: HashMap<(Holder, Asset), i128>,
    supply: HashMap<Asset, i128>,
    owners: HashMap<(u16, u32), Holder>,
    amounts: HashMap<(Holder, u16, u32), i64>,
}

impl Replay {
    fn apply(&mut self, movement: &Movement) {
        match *movement {
            Movement::Fungible { asset, from, to, amount, .. } => {
                let amount = amount as i128;
                if from == Holder::NOBODY {
                    *self.supply.entry(asset).or_default() += amount;
                } else {
                    let balance = self.balances.entry((from, asset)).or_default();
                    *balance -= amount;
                    assert!(*balance >= 0, "{from:?} went negative in {asset:?}: {movement:?}");
                }
                if to == Holder::NOBODY {
                    *self.supply.entry(asset).or_default() -= amount;
                } else {
                    *self.balances.entry((to, asset)).or_default() += amount;
                }
            }
            Movement::Nft { collection, id, from, to, amount, multi: false, .. } => {
                assert_eq!(amount, 1);
                let owner = self.owners.insert((collection, id), to).unwrap_or(Holder::NOBODY);
                assert_eq!(owner, from, "token {id} of collection {collection} moved by a non-owner");
            }
            Movement::Nft { collection, id, from, to, amount, multi: true, .. } => {
                if from != Holder::NOBODY {
                    let held = self.amounts.entry((from, collection, id)).or_default();
                    *held -= amount as i64;
                    assert!(*held >= 0, "{from:?} went negative in ERC1155 {collection}/{id}");
                }
                *self.amounts.entry((to, collection, id)).or_default() += amount as i64;
            }
        }
    }

    /// Compares every replayed value with the ledger's answer at `block`.
    fn matches_ledger_at(&self, data: &ChainData, block: u32) {
        let ledger = &data.ledger;
        for (&(holder, asset), &balance) in &self.balances {
            assert_eq!(ledger.balance_at(holder, asset, block) as i128, balance, "{holder:?} {asset:?} at {block}");
        }
        for (&asset, &supply) in &self.supply {
            assert_eq!(ledger.supply_at(asset, block) as i128, supply, "supply of {asset:?} at {block}");
            let held: i128 = self.balances.iter().filter(|((_, a), _)| *a == asset).map(|(_, b)| *b).sum();
            assert_eq!(held, supply, "balances of {asset:?} add up to its supply at {block}");
        }
        for (&(collection, id), &owner) in &self.owners {
            assert_eq!(
                ledger.erc721_history(collection, id).unwrap().at(block),
                Some(owner),
                "owner of {collection}/{id}"
            );
        }
        for (&(holder, collection, id), &amount) in &self.amounts {
            let indexed = ledger.erc1155_history(holder, collection, id).unwrap().at(block).unwrap_or(0);
            assert_eq!(indexed as i64, amount, "{holder:?} amount of {collection}/{id} at {block}");
        }
    }
}

fn tiny(seed: u64, chain: Chain) -> ChainRead {
    Devnet::new(seed, Scale::TINY).chain(chain)
}

fn chains() -> impl Strategy<Value = Chain> {
    select(Chain::all().collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Replays every movement and compares with the indexed ledger at
    /// sampled blocks (and at the last one).
    #[test]
    fn indexed_history_equals_a_naive_replay(seed in any::<u64>(), chain in chains(), every in 20u32..90) {
        let data = tiny(seed, chain);
        let mut replay = Replay::default();
        let mut movements = data.ledger.movements().iter().peekable();
        for block in 0..=data.latest() as u32 {
            while let Some(movement) = movements.next_if(|m| block_of(m) <= block) {
                replay.apply(movement);
            }
            if block % every == 0 || block == data.latest() as u32 {
                replay.matches_ledger_at(&data, block);
            }
        }
    }

    /// The wallet-level answers equal the replay too, and their derived
    /// figures hold: percentages sum to 100, NFTs have one owner.
    #[test]
    fn wallet_answers_at_any_block_hold_together(seed in any::<u64>(), chain in chains(), at in 0.0..1.0f64) {
        let data = tiny(seed, chain);
        let block = (data.latest() as f64 * at) as u64;
        let mut replay = Replay::default();
        for movement in data.ledger.movements().iter().take_while(|m| u64::from(block_of(m)) <= block) {
            replay.apply(movement);
        }
        let accounts = Devnet::new(seed, Scale::TINY).accounts().addresses().to_vec();
        let mut owners_seen = HashMap::new();
        for address in accounts {
            let Some(holder) = data.ledger.find(address) else { continue };
            let query = WalletTokensQuery { to_block: Some(block), ..WalletTokensQuery::new(chain, address) };
            let tokens = data.wallet_tokens(&query, &PageRequest::first(usize::MAX)).unwrap();
            for item in &tokens.holdings.items {
                let asset = if item.token.native { Asset::NATIVE } else { data.world.asset_at(item.token.address).unwrap() };
                prop_assert_eq!(item.balance.to::<u128>() as i128, replay.balances[&(holder, asset)]);
            }
            let priced: f64 = tokens.holdings.items.iter().filter_map(w3api_source::TokenHolding::usd_value).sum();
            prop_assert!((priced - tokens.priced_total_usd).abs() <= 1e-9 * priced.max(1.0), "total {} vs {}", priced, tokens.priced_total_usd);
            let query = WalletNftsQuery { at_block: Some(block), ..WalletNftsQuery::new(chain, address) };
            let nfts = data.wallet_nfts(&query, &PageRequest::first(usize::MAX)).unwrap();
            for nft in nfts.holdings.items.iter().filter(|n| n.collection.contract_type == ContractType::Erc721) {
                let key = (nft.collection.address, nft.token_id);
                prop_assert!(owners_seen.insert(key, address).is_none(), "an ERC721 token listed for two owners");
            }
        }
        let minted: usize = replay.owners.len();
        prop_assert_eq!(owners_seen.len(), minted, "every minted ERC721 token is listed once");
    }

    /// Prices are recomputed here from the pairs' reserves (their ledger
    /// balances) and must equal what the API says.
    #[test]
    fn prices_are_those_the_reserves_give(seed in any::<u64>(), chain in chains(), at in 0.0..1.0f64) {
        let data = tiny(seed, chain);
        let block = (data.latest() as f64 * at) as u64;
        let native_usd = best_quote(&data, Asset::WRAPPED, block, 1.0);
        for (index, token) in data.world.tokens.iter().enumerate() {
            let asset = Asset(index as u16 + 1);
            let expected = match token.kind {
                TokenKind::Stable => best_quote(&data, asset, block, 0.0).map(|(_, pair, liq)| (1.0, pair, liq)),
                TokenKind::Wrapped => native_usd,
                _ => native_usd.and_then(|(usd, _, _)| best_quote(&data, asset, block, usd)),
            };
            let api = data.price(asset, block, PriceFilter::default());
            prop_assert_eq!(&api, &data.compute_price(asset, block, PriceFilter::default()), "indexed price of {}", &token.symbol);
            prop_assert_eq!(api.as_ref().map(|p| p.pair), expected.map(|e| e.1), "pair of {}", &token.symbol);
            if let (Some(api), Some((usd, _, liquidity))) = (api, expected) {
                prop_assert!((api.usd - usd).abs() <= usd * 1e-9, "{}: {} vs {}", &token.symbol, api.usd, usd);
                prop_assert!((api.liquidity_usd - liquidity).abs() <= liquidity * 1e-9);
                let rpc = data.token_price(&TokenPriceQuery {
                    chain, address: token.address, exchange: None, to_block: Some(block), include_percent_change: false, max_token_inactivity_days: None, min_pair_side_liquidity_usd: None,
                }).unwrap();
                prop_assert_eq!(rpc.usd_price, api.usd);
                prop_assert_eq!(rpc.pair_address, Some(data.world.pairs[api.pair].address));
            }
        }
    }
}

fn block_of(movement: &Movement) -> u32 {
    match movement {
        Movement::Fungible { at, .. } | Movement::Nft { at, .. } => at.block,
    }
}

/// The deepest pair quoting `asset` in the wrapped native token (worth
/// `native_usd`) or the stablecoin (worth 1), as (USD price, pair, liquidity).
/// With `native_usd` 0 the stablecoin's own pairs are ranked by their
/// wrapped side at the reference price.
fn best_quote(data: &ChainData, asset: Asset, block: u64, native_usd: f64) -> Option<(f64, usize, f64)> {
    let reference = if native_usd == 0.0 { best_quote(data, Asset::WRAPPED, block, 1.0)?.0 } else { native_usd };
    let mut best: Option<(f64, usize, f64)> = None;
    for (index, pair) in data.world.pairs.iter().enumerate() {
        if pair.token0 != asset && pair.token1 != asset {
            continue;
        }
        let quote = pair.other(asset);
        let quote_usd = match quote {
            Asset::STABLE => 1.0,
            Asset::WRAPPED => reference,
            _ => continue,
        };
        let holder = data.ledger.find(pair.address)?;
        let own =
            data.ledger.balance_at(holder, asset, block as u32) as f64 / 10f64.powi(data.world.decimals(asset).into());
        let other =
            data.ledger.balance_at(holder, quote, block as u32) as f64 / 10f64.powi(data.world.decimals(quote).into());
        if own == 0.0 || other == 0.0 {
            continue;
        }
        let liquidity = 2.0 * other * quote_usd;
        if best.is_none_or(|b| liquidity > b.2) {
            best = Some((other * quote_usd / own, index, liquidity));
        }
    }
    best
}
