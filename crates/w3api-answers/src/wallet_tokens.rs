//! `getWalletTokenBalancesPrice`: a wallet's token balances with USD prices,
//! values, 24-hour changes and portfolio shares, one page at a time.
//!
//! The answer comes in two steps, so that the server can look for a kept
//! copy between them: [`begin`] settles the page and the block it reads,
//! which make the answer's key; [`page`] reads it.

use w3api_source::{TokenHolding, WalletTokensQuery};
use w3api_types::{TokenBalance, TokenBalancePage, format_units};

use crate::paging::{Cursors, Listing, Paging, Walk, begin_walk};
use crate::{AnswerError, Backend};

/// Production numbers wallet-token pages from 0: its answers of one page
/// say `"page": 0`.
const LISTING: Listing = Listing { kind: "tokens", first_page: 0 };

/// What to read and which page.
#[derive(Debug)]
pub struct WalletTokensRequest {
    /// What to read.
    pub query: WalletTokensQuery,
    /// Which page.
    pub paging: Paging,
}

/// The page `request` asks for and the block it reads: the one its first
/// page read, or else `to_block`, or the newest when that names a later
/// one.
pub async fn begin<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: &WalletTokensRequest,
) -> Result<(Walk, u64), AnswerError> {
    let WalletTokensRequest { query, paging } = request;
    begin_walk((source, cursors), LISTING, query, paging, (query.chain, query.to_block)).await
}

/// The page [`begin`] settled, read at its block.
pub async fn page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: &WalletTokensRequest,
    (walk, block): (Walk, u64),
) -> Result<TokenBalancePage, AnswerError> {
    let WalletTokensRequest { query, paging } = request;
    let at_block = WalletTokensQuery { to_block: Some(block), ..query.clone() };
    let answer = source.wallet_tokens(at_block, walk.request.clone()).await?;
    let total = answer.priced_total_usd;
    Ok(TokenBalancePage {
        cursor: cursors.next(&walk, query, answer.block_number, answer.holdings.next),
        page: walk.page,
        page_size: paging.limit,
        block_number: Some(answer.block_number),
        result: answer.holdings.items.into_iter().map(|h| token_balance(h, total)).collect(),
    })
}

/// A wallet's holding of one token; `priced_total_usd` is the wallet's
/// priced total, of which the holding's value is a share.
pub fn token_balance(holding: TokenHolding, priced_total_usd: f64) -> TokenBalance {
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
