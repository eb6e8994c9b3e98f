//! `getWalletTokenBalancesPrice`: a wallet's token balances with USD prices,
//! values, 24-hour changes and portfolio shares, one page at a time.

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use w3api_source::{TokenHolding, WalletTokensQuery};

use crate::Backend;
use w3api_types::params::operations::get_wallet_token_balances_price as op;
use w3api_types::{Address, TokenBalance, TokenBalancePage, format_units};

use super::answer::{self, json_bytes};
use super::extract::{FromQuery, Paging, Request};
use super::query::Query;
use super::{Listing, begin_walk};
use crate::error::ApiError;
use crate::{App, answers};

/// Production numbers wallet-token pages from 0: its answers of one page
/// say `"page": 0`.
const LISTING: Listing = Listing { kind: "tokens", first_page: 0 };

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_tokens::<S>)
}

/// The request: what to read and which page.
#[derive(Debug)]
pub(crate) struct WalletTokensRequest {
    /// What to read.
    pub query: WalletTokensQuery,
    /// Which page.
    pub paging: Paging,
}

impl FromQuery for WalletTokensRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletTokensRequest {
            query: WalletTokensQuery {
                chain: q.chain(&op::CHAIN),
                address,
                to_block: q.integer(&op::TO_BLOCK),
                token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                exclude_unverified_contracts: q.flag(&op::EXCLUDE_UNVERIFIED_CONTRACTS),
                exclude_native: q.flag(&op::EXCLUDE_NATIVE),
                max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
                min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
            },
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
        }
    }
}

async fn wallet_tokens<S: Backend>(
    State(app): State<Arc<App<S>>>,
    uri: Uri,
    Request(WalletTokensRequest { query, paging }): Request<WalletTokensRequest>,
) -> Result<Response, ApiError> {
    // Read before the answer: see `DataSource::revision`.
    let revision = app.source.revision(query.chain);
    let (walk, block) =
        begin_walk((&*app.source, &app.cursors), LISTING, &query, &paging, (query.chain, query.to_block)).await?;
    let key = answers::key(&uri, block, revision);
    if let Some(answer) = app.answers.get(&key) {
        return Ok(json_bytes(answer));
    }
    let at_block = WalletTokensQuery { to_block: Some(block), ..query.clone() };
    let answer = app.source.wallet_tokens(at_block, walk.request.clone()).await?;
    let total = answer.priced_total_usd;
    let body = TokenBalancePage {
        cursor: app.cursors.next(&walk, &query, answer.block_number, answer.holdings.next),
        page: walk.page,
        page_size: paging.limit,
        block_number: Some(answer.block_number),
        result: answer.holdings.items.into_iter().map(|h| token_balance(h, total)).collect(),
    };
    let bytes = answer::encode(&body)?;
    app.answers.insert(key, bytes.clone());
    Ok(json_bytes(bytes))
}

/// A wallet's holding of one token; `priced_total_usd` is the wallet's
/// priced total, of which the holding's value is a share.
pub(crate) fn token_balance(holding: TokenHolding, priced_total_usd: f64) -> TokenBalance {
    let usd_value = holding.usd_value();
    let whole = holding.whole_tokens();
    let change = holding.usd_price.zip(holding.usd_price_day_before).map(|(now, then)| now - then);
    let percent_change = holding
        .usd_price
        .zip(holding.usd_price_day_before)
        .filter(|(_, then)| *then > 0.0)
        .map(|(now, then)| (now - then) / then * 100.0);
    let portfolio_percentage = match usd_value {
        Some(value) if priced_total_usd > 0.0 => value / priced_total_usd * 100.0,
        _ => 0.0,
    };
    let TokenHolding { token, balance, usd_price, .. } = holding;
    let supply_share = token
        .total_supply
        .filter(|supply| !supply.is_zero())
        .map(|supply| f64::from(balance) / f64::from(supply) * 100.0);
    TokenBalance {
        token_address: Some(token.address),
        balance_formatted: format_units(balance, token.decimals),
        total_supply_formatted: token.total_supply.map(|supply| format_units(supply, token.decimals)),
        symbol: token.symbol,
        name: token.name,
        logo: token.logo,
        thumbnail: token.thumbnail,
        decimals: token.decimals,
        balance,
        possible_spam: token.possible_spam,
        verified_contract: Some(token.verified_contract),
        usd_price,
        usd_price_24hr_percent_change: percent_change,
        usd_price_24hr_usd_change: change,
        usd_value,
        usd_value_24hr_usd_change: change.map(|c| c * whole),
        native_token: token.native,
        portfolio_percentage,
        total_supply: token.total_supply,
        percentage_relative_to_total_supply: supply_share,
        security_score: None,
    }
}

#[cfg(test)]
mod tests {
    use w3api_source::TokenInfo;
    use w3api_types::{Address, NATIVE_TOKEN_ADDRESS, U256};

    use super::*;

    fn holding(decimals: u8, balance: u64, price: Option<f64>, before: Option<f64>) -> TokenHolding {
        TokenHolding {
            token: TokenInfo {
                address: Address::repeat_byte(7),
                native: false,
                name: "Token".into(),
                symbol: "TKN".into(),
                logo: None,
                thumbnail: None,
                decimals,
                possible_spam: false,
                verified_contract: true,
                total_supply: Some(U256::from(balance * 4)),
            },
            balance: U256::from(balance),
            usd_price: price,
            usd_price_day_before: before,
        }
    }

    #[test]
    fn token_values_changes_and_shares_follow_from_balance_and_prices() {
        let balance = token_balance(holding(6, 1_500_000, Some(2.0), Some(1.6)), 12.0);
        assert_eq!(balance.balance_formatted, "1.5");
        assert_eq!(balance.total_supply_formatted.as_deref(), Some("6"));
        assert_eq!(balance.usd_value, Some(3.0));
        assert!((balance.usd_price_24hr_usd_change.unwrap() - 0.4).abs() < 1e-12);
        assert!((balance.usd_price_24hr_percent_change.unwrap() - 25.0).abs() < 1e-9);
        assert!((balance.usd_value_24hr_usd_change.unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(balance.portfolio_percentage, 25.0);
        assert_eq!(balance.percentage_relative_to_total_supply, Some(25.0));
    }

    #[test]
    fn unpriced_tokens_have_no_value_and_no_share() {
        let balance = token_balance(holding(0, 42, None, Some(1.0)), 100.0);
        assert_eq!(balance.balance_formatted, "42");
        assert_eq!((balance.usd_value, balance.usd_price_24hr_usd_change), (None, None));
        assert_eq!(balance.portfolio_percentage, 0.0);
        let alone = token_balance(holding(0, 42, Some(0.0), Some(0.0)), 0.0);
        assert_eq!(alone.portfolio_percentage, 0.0, "a zero total gives no share rather than NaN");
        assert_eq!(alone.usd_price_24hr_percent_change, None, "no percent change from a zero price");
    }

    #[test]
    fn the_native_currency_keeps_its_address_and_has_no_supply() {
        let mut native = holding(18, 10, Some(1.0), None);
        native.token.address = NATIVE_TOKEN_ADDRESS;
        native.token.native = true;
        native.token.total_supply = None;
        let balance = token_balance(native, 1.0);
        assert!(balance.native_token);
        assert_eq!(balance.token_address, Some(NATIVE_TOKEN_ADDRESS));
        assert_eq!((balance.total_supply, balance.percentage_relative_to_total_supply), (None, None));
    }
}
