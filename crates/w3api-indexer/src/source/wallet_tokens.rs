//! Token balances of a wallet with USD prices, and token prices, from the
//! index; the native balance from the node at the same block.

use alloy_primitives::{B256, U256};
use serde_json::json;
use w3api_ledger::Asset;
use w3api_ledger::pricing::PriceFilter;
use w3api_source::{
    PageRequest, SourceError, TokenHolding, TokenInfo, TokenPriceQuery, WalletTokensPage, WalletTokensQuery,
};
use w3api_types::rpc::{NativePrice, TokenPrice};
use w3api_types::{Chain, NATIVE_TOKEN_ADDRESS};

use super::{not_indexed, resolve};
use crate::follow::Followed;
use crate::index::ChainIndex;

/// Seconds in the day that 24-hour changes and inactivity count in.
const DAY: u64 = 86_400;

pub(super) async fn answer(
    followed: &Followed,
    query: WalletTokensQuery,
    page: &PageRequest,
) -> Result<WalletTokensPage, SourceError> {
    let (block, hash, mut holdings, native) = {
        let index = followed.index.read();
        let head = index.head().ok_or_else(|| not_indexed(followed))?;
        let block = resolve(query.to_block, head)?;
        let hash = index.hash_at(block).ok_or_else(|| not_indexed(followed))?;
        let holdings = token_holdings(&index, &query, block);
        let native =
            keeps_native(&query).then(|| holding(&index, query.chain, Asset::NATIVE, U256::ZERO, block, &query));
        (block, hash, holdings, native)
    };
    if let Some(mut native) = native {
        native.balance = native_balance(followed, query.address, block, hash).await?;
        if native.balance > U256::ZERO {
            holdings.push(native);
        }
    }
    WalletTokensPage::rank(block, holdings, page)
}

/// The native balance at the indexed block: a node that has left that
/// branch refuses rather than answering from another.
async fn native_balance(
    followed: &Followed,
    address: alloy_primitives::Address,
    block: u64,
    hash: B256,
) -> Result<U256, SourceError> {
    followed.node.state_at("eth_getBalance", vec![json!(address)], (block, Some(hash)), Vec::new()).await.map_err(
        |error| {
            SourceError::Unavailable(format!("{error} (the chain may have reorganised during the answer; ask again)"))
        },
    )
}

/// Whether the native currency is asked for. The index does not follow
/// native transfers (they log nothing), so no inactivity leaves it out.
fn keeps_native(query: &WalletTokensQuery) -> bool {
    !query.exclude_native && (query.token_addresses.is_empty() || query.token_addresses.contains(&NATIVE_TOKEN_ADDRESS))
}

/// Every ERC20 holding the query keeps at `block`, unordered.
fn token_holdings(index: &ChainIndex, query: &WalletTokensQuery, block: u64) -> Vec<TokenHolding> {
    let ledger = index.ledger();
    let Some(holder) = ledger.find(query.address) else { return Vec::new() };
    let at = u32::try_from(block).unwrap_or(u32::MAX);
    let active_since = query
        .max_token_inactivity_days
        .map(|days| index.block_before(block, days.saturating_mul(DAY)).unwrap_or(index.first_block()));
    ledger
        .holdings_of(holder)
        .filter(|(asset, _)| *asset != Asset::NATIVE)
        .filter_map(|(asset, history)| {
            let balance = history.at(at).unwrap_or(0);
            let (address, _) = index.token(asset)?;
            let recent = active_since
                .is_none_or(|since| ledger.last_activity(asset, at).is_some_and(|last| u64::from(last) >= since));
            // Indexed tokens are neither flagged as spam nor verified:
            // nothing on chain says either.
            let kept = (query.token_addresses.is_empty() || query.token_addresses.contains(address))
                && !query.exclude_unverified_contracts
                && recent;
            (balance > 0 && kept).then(|| holding(index, query.chain, asset, U256::from(balance), block, query))
        })
        .collect()
}

fn holding(
    index: &ChainIndex,
    chain: Chain,
    asset: Asset,
    balance: U256,
    block: u64,
    query: &WalletTokensQuery,
) -> TokenHolding {
    let filter = PriceFilter { exchange: None, min_side_usd: query.min_pair_side_liquidity_usd };
    let usd = |at: u64| w3api_ledger::pricing::price(index, asset, at, filter).map(|price| price.usd);
    TokenHolding {
        token: token_info(index, chain, asset, block),
        balance,
        usd_price: usd(block),
        usd_price_day_before: index.block_before(block, DAY).and_then(usd),
    }
}

/// A token as the index knows it at `block`; the native currency for [`Asset::NATIVE`].
pub(super) fn token_info(index: &ChainIndex, chain: Chain, asset: Asset, block: u64) -> TokenInfo {
    let Some((address, meta)) = index.token(asset).filter(|_| asset != Asset::NATIVE) else {
        let (name, symbol) = chain.native_currency();
        return TokenInfo {
            address: NATIVE_TOKEN_ADDRESS,
            native: true,
            name: name.to_string(),
            symbol: symbol.to_string(),
            logo: None,
            thumbnail: None,
            decimals: 18,
            possible_spam: false,
            verified_contract: true,
            total_supply: None,
        };
    };
    let supply = index.ledger().supply_at(asset, u32::try_from(block).unwrap_or(u32::MAX));
    TokenInfo {
        address: *address,
        native: false,
        name: meta.name.clone(),
        symbol: meta.symbol.clone(),
        logo: None,
        thumbnail: None,
        decimals: meta.decimals,
        possible_spam: false,
        verified_contract: false,
        total_supply: Some(U256::from(supply)),
    }
}

/// `eth_getTokenPrice`: the token's price from its deepest pair at the
/// block (on one exchange, named by its factory's address, when asked).
pub(super) fn token_price(followed: &Followed, query: &TokenPriceQuery) -> Result<TokenPrice, SourceError> {
    let index = followed.index.read();
    let head = index.head().ok_or_else(|| not_indexed(followed))?;
    let block = resolve(query.to_block, head)?;
    let exchange = query.exchange.as_deref().map(|name| exchange_index(&index, name)).transpose()?;
    let no_price = || SourceError::NoPrice { token: query.address, exchange: query.exchange.clone() };
    let asset = index.asset(query.address).ok_or_else(no_price)?;
    let filter = PriceFilter { exchange, min_side_usd: None };
    let price = w3api_ledger::pricing::price(&*index, asset, block, filter).ok_or_else(no_price)?;
    let percent_change = query.include_percent_change.then(|| {
        let before =
            index.block_before(block, DAY).and_then(|b| w3api_ledger::pricing::price(&*index, asset, b, filter))?;
        (before.usd > 0.0).then(|| (price.usd - before.usd) / before.usd * 100.0)
    });
    let token = token_info(&index, query.chain, asset, block);
    let pair = index.pair(price.pair);
    let factory = pair.and_then(|p| index.factories().get(p.sides.exchange)).copied().unwrap_or_default();
    let (native_name, native_symbol) = query.chain.native_currency();
    Ok(TokenPrice {
        token_name: Some(token.name),
        token_symbol: Some(token.symbol),
        token_logo: None,
        token_decimals: Some(token.decimals),
        native_price: NativePrice {
            value: price.native_wei,
            decimals: 18,
            name: native_name.to_string(),
            symbol: native_symbol.to_string(),
            address: index.anchors().wrapped.map(|wrapped| format!("{wrapped:#x}")),
        },
        usd_price: price.usd,
        usd_price_formatted: Some(price.usd.to_string()),
        percent_change_24hr: percent_change.flatten(),
        exchange_address: factory,
        // A node says nothing of an exchange's name: its factory names it.
        exchange_name: format!("{factory:#x}"),
        token_address: Some(token.address),
        to_block: Some(block),
        possible_spam: Some(false),
        verified_contract: Some(false),
        pair_address: pair.map(|p| p.address),
        pair_total_liquidity_usd: Some(price.liquidity_usd),
    })
}

/// The exchange named by its factory's address.
fn exchange_index(index: &ChainIndex, name: &str) -> Result<usize, SourceError> {
    let factory = name.trim().parse::<alloy_primitives::Address>().ok();
    index.factories().iter().position(|f| Some(*f) == factory).ok_or_else(|| SourceError::UnknownExchange {
        name: name.to_string(),
        known: index.factories().iter().map(|f| format!("{f:#x}")).collect(),
    })
}
