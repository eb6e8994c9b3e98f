//! A token's price from its deepest pair at a block (`eth_getTokenPrice`).

use w3api_ledger::Asset;
use w3api_ledger::pricing::PriceFilter;
use w3api_source::{SourceError, TokenPriceQuery};
use w3api_types::rpc::{NativePrice, TokenPrice};

use crate::blocks::{block_before, ledger_block, resolve};
use crate::wallet_tokens::{active, active_since};
use crate::{ChainView, DAY, Exchange};

/// The token's price at the query's block, from its deepest pair (on one
/// exchange when the query names it), with the change over a day when asked.
pub fn token_price(view: &impl ChainView, query: &TokenPriceQuery) -> Result<TokenPrice, SourceError> {
    let block = resolve(view, query.to_block)?;
    let exchanges = view.exchanges();
    let exchange = query.exchange.as_deref().map(|name| exchange_named(&exchanges, name)).transpose()?;
    let no_price = || SourceError::NoPrice { token: query.address, exchange: query.exchange.clone() };
    let asset = view.asset_at(query.address).filter(|asset| *asset != Asset::NATIVE).ok_or_else(no_price)?;
    let token = view.token(asset).ok_or_else(no_price)?;
    let since = active_since(view, block, query.max_token_inactivity_days);
    if !active(view, asset, ledger_block(block), since) {
        return Err(no_price());
    }
    let filter = PriceFilter { exchange, min_side_usd: query.min_pair_side_liquidity_usd };
    let price = view.price(asset, block, filter).ok_or_else(no_price)?;
    let day_before = block_before(view, block, DAY).and_then(|b| view.price(asset, b, filter)).map(|p| p.usd);
    let percent_change = day_before.filter(|before| *before > 0.0).map(|before| (price.usd - before) / before * 100.0);
    let dex = view.pairs_of(asset).find(|(pair, _)| *pair == price.pair).and_then(|(_, s)| exchanges.get(s.exchange));
    let factory = dex.map(|dex| dex.factory).unwrap_or_default();
    let native = view.token(Asset::NATIVE);
    Ok(TokenPrice {
        token_name: Some(token.name.to_string()),
        token_symbol: Some(token.symbol.to_string()),
        token_logo: token.logo.map(str::to_string),
        token_decimals: Some(token.decimals),
        native_price: NativePrice {
            value: price.native_wei,
            decimals: 18,
            name: native.map(|n| n.name.to_string()).unwrap_or_default(),
            symbol: native.map(|n| n.symbol.to_string()).unwrap_or_default(),
            address: view.wrapped_native().map(|wrapped| format!("{wrapped:#x}")),
        },
        usd_price: price.usd,
        usd_price_formatted: Some(price.usd.to_string()),
        usd_price_24h: day_before,
        usd_price_24hr_usd_change: day_before.map(|before| price.usd - before),
        usd_price_24hr_percent_change: percent_change,
        percent_change_24hr: percent_change.filter(|_| query.include_percent_change),
        exchange_address: factory,
        // Where the backend knows no name (a node), the factory names it.
        exchange_name: dex.and_then(|dex| dex.name).map_or_else(|| format!("{factory:#x}"), str::to_string),
        token_address: Some(token.address),
        to_block: Some(block),
        possible_spam: Some(token.possible_spam),
        verified_contract: Some(token.verified),
        pair_address: view.pair_address(price.pair),
        pair_total_liquidity_usd: Some(price.liquidity_usd),
        security_score: None,
    })
}

/// The exchange a query names: by its name (any case) or its factory's address.
fn exchange_named(exchanges: &[Exchange<'_>], name: &str) -> Result<usize, SourceError> {
    let wanted = name.trim();
    let by_factory = wanted.parse::<alloy_primitives::Address>().ok();
    let matches =
        |e: &Exchange<'_>| e.name.is_some_and(|n| n.eq_ignore_ascii_case(wanted)) || Some(e.factory) == by_factory;
    exchanges.iter().position(matches).ok_or_else(|| SourceError::UnknownExchange {
        name: name.to_string(),
        known: exchanges
            .iter()
            .map(|e| e.name.map_or_else(|| format!("{:#x}", e.factory), |n| format!("{n} ({:#x})", e.factory)))
            .collect(),
    })
}
