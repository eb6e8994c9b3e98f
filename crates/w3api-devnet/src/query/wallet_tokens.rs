//! Token balances of a wallet, with USD prices, at any block.

use alloy_primitives::U256;
use w3api_source::{SourceError, WalletTokens, WalletTokensQuery};
use w3api_types::{NATIVE_TOKEN_ADDRESS, TokenBalance};

use super::BLOCKS_PER_DAY;
use super::prices::PriceFilter;
use crate::decimal::{format_units, to_f64};
use crate::generate::ChainData;
use crate::world::{Asset, MEDIA_HOST, TokenKind};

impl ChainData {
    /// The block a query asks for, checked against the chain.
    pub fn resolve_block(&self, requested: Option<u64>) -> Result<u64, SourceError> {
        let latest = self.latest();
        match requested {
            None => Ok(latest),
            Some(block) if block <= latest => Ok(block),
            Some(requested) => Err(SourceError::BlockOutOfRange { requested, latest }),
        }
    }

    /// The wallet's balances at the query's block, filtered, priced and ordered.
    pub fn wallet_tokens(&self, query: &WalletTokensQuery) -> Result<WalletTokens, SourceError> {
        let block = self.resolve_block(query.to_block)?;
        let Some(holder) = self.ledger.find(query.address) else {
            return Ok(WalletTokens { block_number: block, items: Vec::new() });
        };
        let filter = PriceFilter { exchange: None, min_side_usd: query.min_pair_side_liquidity_usd };
        let mut items: Vec<TokenBalance> = self
            .ledger
            .assets_of(holder)
            .iter()
            .filter(|asset| self.keeps(**asset, block, query))
            .filter_map(|asset| {
                let balance = self.ledger.balance_at(holder, *asset, block as u32);
                (balance > 0).then(|| self.token_balance(*asset, balance, block, filter))
            })
            .collect();
        set_portfolio_percentages(&mut items);
        items.sort_by(|a, b| {
            b.native_token
                .cmp(&a.native_token)
                .then(b.usd_value.unwrap_or(-1.0).total_cmp(&a.usd_value.unwrap_or(-1.0)))
                .then(a.token_address.cmp(&b.token_address))
        });
        Ok(WalletTokens { block_number: block, items })
    }

    /// Whether the query's filters keep `asset`.
    fn keeps(&self, asset: Asset, block: u64, query: &WalletTokensQuery) -> bool {
        let token = self.world.token(asset);
        let address = token.map_or(NATIVE_TOKEN_ADDRESS, |t| t.address);
        let spam = token.is_some_and(|t| t.kind == TokenKind::Spam);
        let verified = token.is_none_or(|t| t.verified);
        let recently_active = query.max_token_inactivity_days.is_none_or(|days| {
            let since = block.saturating_sub(days.saturating_mul(BLOCKS_PER_DAY));
            self.ledger.last_activity(asset, block as u32).is_some_and(|last| u64::from(last) >= since)
        });
        (query.token_addresses.is_empty() || query.token_addresses.contains(&address))
            && !(spam && query.exclude_spam)
            && (verified || !query.exclude_unverified_contracts)
            && !(query.exclude_native && asset == Asset::NATIVE)
            && recently_active
    }

    fn token_balance(&self, asset: Asset, balance: u128, block: u64, filter: PriceFilter) -> TokenBalance {
        let decimals = self.world.decimals(asset);
        let price = self.price(asset, block, filter).map(|p| p.usd);
        let price_day_before = self.day_before(block).and_then(|b| self.price(asset, b, filter)).map(|p| p.usd);
        let whole = to_f64(balance, decimals);
        let usd_value = price.map(|p| p * whole);
        let change = price.zip(price_day_before).map(|(now, then)| now - then);
        let percent_change =
            price.zip(price_day_before).filter(|(_, then)| *then > 0.0).map(|(now, then)| (now - then) / then * 100.0);
        let base = TokenBalance {
            token_address: Some(NATIVE_TOKEN_ADDRESS),
            symbol: self.world.native.symbol.to_string(),
            name: self.world.native.name.to_string(),
            logo: Some(format!("{MEDIA_HOST}/tokens/{}/native.png", crate::chain_id(self.chain))),
            thumbnail: Some(format!("{MEDIA_HOST}/tokens/{}/native_thumb.png", crate::chain_id(self.chain))),
            decimals,
            balance: U256::from(balance),
            possible_spam: false,
            verified_contract: Some(true),
            balance_formatted: format_units(U256::from(balance), decimals),
            usd_price: price,
            usd_price_24hr_percent_change: percent_change,
            usd_price_24hr_usd_change: change,
            usd_value,
            usd_value_24hr_usd_change: change.map(|c| c * whole),
            native_token: true,
            portfolio_percentage: 0.0,
            total_supply: None,
            total_supply_formatted: None,
            percentage_relative_to_total_supply: None,
            security_score: None,
        };
        let Some(token) = self.world.token(asset) else { return base };
        let supply = self.ledger.supply_at(asset, block as u32);
        TokenBalance {
            token_address: Some(token.address),
            symbol: token.symbol.clone(),
            name: token.name.clone(),
            logo: token.logo.clone(),
            thumbnail: token.thumbnail.clone(),
            possible_spam: token.kind == TokenKind::Spam,
            verified_contract: Some(token.verified),
            native_token: false,
            total_supply: Some(U256::from(supply)),
            total_supply_formatted: Some(format_units(U256::from(supply), decimals)),
            percentage_relative_to_total_supply: (supply > 0).then(|| balance as f64 / supply as f64 * 100.0),
            ..base
        }
    }
}

/// Each priced item's share of the priced total, in percent.
fn set_portfolio_percentages(items: &mut [TokenBalance]) {
    let total: f64 = items.iter().filter_map(|i| i.usd_value).sum();
    for item in items {
        item.portfolio_percentage = match item.usd_value {
            Some(value) if total > 0.0 => value / total * 100.0,
            _ => 0.0,
        };
    }
}
