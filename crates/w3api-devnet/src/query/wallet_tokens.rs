//! Token balances of a wallet, with USD prices, at any block.

use alloy_primitives::U256;
use w3api_source::{PageRequest, SourceError, TokenHolding, TokenInfo, WalletTokensPage, WalletTokensQuery};
use w3api_types::NATIVE_TOKEN_ADDRESS;

use super::DAY;
use crate::generate::ChainData;
use crate::world::TokenKind;
use w3api_ledger::Asset;
use w3api_ledger::Holder;
use w3api_ledger::pricing::PriceFilter;

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

    /// One page of the wallet's balances at the query's block, filtered,
    /// priced and ordered.
    pub fn wallet_tokens(
        &self,
        query: &WalletTokensQuery,
        page: &PageRequest,
    ) -> Result<WalletTokensPage, SourceError> {
        let block = self.resolve_block(query.to_block)?;
        let holdings = match self.ledger.find(query.address) {
            Some(holder) => self.holdings_of(holder, block, query),
            None => Vec::new(),
        };
        WalletTokensPage::rank(block, holdings, page)
    }

    /// Every holding of `holder` at `block` that the query keeps, unordered.
    fn holdings_of(&self, holder: Holder, block: u64, query: &WalletTokensQuery) -> Vec<TokenHolding> {
        let filter = PriceFilter { exchange: None, min_side_usd: query.min_pair_side_liquidity_usd };
        let active_since =
            query.max_token_inactivity_days.map(|days| self.block_before(block, days.saturating_mul(DAY)).unwrap_or(0));
        self.ledger
            .holdings_of(holder)
            .filter_map(|(asset, history)| {
                let balance = history.at(block as u32).unwrap_or(0);
                (balance > 0 && self.keeps(asset, block, active_since, query))
                    .then(|| self.token_holding(asset, balance, block, filter))
            })
            .collect()
    }

    /// Whether the query's filters keep `asset`.
    /// `active_since`: the first block of the query's activity window, if it has one.
    fn keeps(&self, asset: Asset, block: u64, active_since: Option<u64>, query: &WalletTokensQuery) -> bool {
        let token = self.world.token(asset);
        let address = token.map_or(NATIVE_TOKEN_ADDRESS, |t| t.address);
        let spam = token.is_some_and(|t| t.kind == TokenKind::Spam);
        let verified = token.is_none_or(|t| t.verified);
        let recently_active = active_since.is_none_or(|since| {
            self.ledger.last_activity(asset, block as u32).is_some_and(|last| u64::from(last) >= since)
        });
        (query.token_addresses.is_empty() || query.token_addresses.contains(&address))
            && !(spam && query.exclude_spam)
            && (verified || !query.exclude_unverified_contracts)
            && !(query.exclude_native && asset == Asset::NATIVE)
            && recently_active
    }

    fn token_holding(&self, asset: Asset, balance: u128, block: u64, filter: PriceFilter) -> TokenHolding {
        TokenHolding {
            token: self.token_info(asset, block),
            balance: U256::from(balance),
            usd_price: self.usd_price(asset, block, filter),
            usd_price_day_before: self.day_before(block).and_then(|b| self.usd_price(asset, b, filter)),
        }
    }

    pub(crate) fn token_info(&self, asset: Asset, block: u64) -> TokenInfo {
        let Some(token) = self.world.token(asset) else {
            return TokenInfo {
                address: NATIVE_TOKEN_ADDRESS,
                native: true,
                name: self.world.native.name.to_string(),
                symbol: self.world.native.symbol.to_string(),
                logo: Some(self.world.native.logo.clone()),
                thumbnail: Some(self.world.native.thumbnail.clone()),
                decimals: self.world.decimals(asset),
                possible_spam: false,
                verified_contract: true,
                total_supply: None,
            };
        };
        TokenInfo {
            address: token.address,
            native: false,
            name: token.name.clone(),
            symbol: token.symbol.clone(),
            logo: token.logo.clone(),
            thumbnail: token.thumbnail.clone(),
            decimals: token.decimals,
            possible_spam: token.kind == TokenKind::Spam,
            verified_contract: token.verified,
            total_supply: Some(U256::from(self.ledger.supply_at(asset, block as u32))),
        }
    }
}
