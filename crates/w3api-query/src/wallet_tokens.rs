//! A wallet's token balances, with USD prices, at any block.

use crate::LedgerReads;
use alloy_primitives::U256;
use w3api_ledger::pricing::PriceFilter;
use w3api_ledger::{Asset, Holder};
use w3api_source::{PageRequest, SourceError, TokenHolding, TokenInfo, WalletTokensPage, WalletTokensQuery};
use w3api_types::NATIVE_TOKEN_ADDRESS;

use crate::blocks::{block_before, ledger_block, resolve};
use crate::{ChainView, DAY, TokenFacts};

/// Every holding a query keeps, before it is ranked into a page.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletTokens {
    /// The block the answer is read at.
    pub block: u64,
    /// The holdings the ledger gives, unordered.
    pub holdings: Vec<TokenHolding>,
    /// The native currency's holding, when the query asks for it and the
    /// ledger does not follow native balances: the caller reads the balance
    /// at `block` (from a node) and gives it to [`WalletTokens::rank`].
    pub native_to_read: Option<TokenHolding>,
}

impl WalletTokens {
    /// The page `page` asks for, with the native balance read, if one was
    /// to be read (a zero balance is not listed, as no zero balance is).
    pub fn rank(self, native_balance: Option<U256>, page: &PageRequest) -> Result<WalletTokensPage, SourceError> {
        let WalletTokens { block, mut holdings, native_to_read } = self;
        if let (Some(mut native), Some(balance)) = (native_to_read, native_balance)
            && balance > U256::ZERO
        {
            native.balance = balance;
            holdings.push(native);
        }
        WalletTokensPage::rank(block, holdings, page)
    }
}

/// The wallet's holdings that the query keeps, at the block it names.
pub fn wallet_tokens(view: &impl ChainView, query: &WalletTokensQuery) -> Result<WalletTokens, SourceError> {
    let block = resolve(view, query.to_block)?;
    let pricing = Pricing {
        block,
        day_before: block_before(view, block, DAY),
        filter: PriceFilter { exchange: None, min_side_usd: query.min_pair_side_liquidity_usd },
    };
    let holdings = match view.ledger().find(query.address) {
        Some(holder) => holdings_of(view, holder, query, &pricing),
        None => Vec::new(),
    };
    let native_to_read =
        (!view.follows_native() && wants_native(query)).then(|| holding(view, Asset::NATIVE, U256::ZERO, &pricing));
    Ok(WalletTokens { block, holdings, native_to_read: native_to_read.flatten() })
}

/// Where an answer's holdings are priced: at its block and a day before.
#[derive(Clone, Copy)]
struct Pricing {
    block: u64,
    day_before: Option<u64>,
    filter: PriceFilter,
}

/// Every holding of `holder` at `block` that the query keeps, unordered.
fn holdings_of(
    view: &impl ChainView,
    holder: Holder,
    query: &WalletTokensQuery,
    pricing: &Pricing,
) -> Vec<TokenHolding> {
    let ledger = view.ledger();
    let at = ledger_block(pricing.block);
    let active_since = active_since(view, pricing.block, query.max_token_inactivity_days);
    ledger
        .balances_at(holder, at)
        .into_iter()
        .filter(|(asset, _)| *asset != Asset::NATIVE || view.follows_native())
        .filter_map(|(asset, balance)| {
            if balance == 0 {
                return None;
            }
            let facts = view.token(asset)?;
            (active(view, asset, at, active_since) && keeps(asset, &facts, query))
                .then(|| holding(view, asset, U256::from(balance), pricing))?
        })
        .collect()
}

/// The first block of an inactivity window of `days` ending at `block`
/// (the view's first block where the window reaches further back); `None`
/// without a window.
pub(crate) fn active_since(view: &impl ChainView, block: u64, days: Option<u64>) -> Option<u64> {
    days.map(|days| block_before(view, block, days.saturating_mul(DAY)).unwrap_or(view.first_block()))
}

/// Whether `asset` moved at or after `since`, up to ledger block `at`.
pub(crate) fn active(view: &impl ChainView, asset: Asset, at: u32, since: Option<u64>) -> bool {
    since.is_none_or(|since| view.ledger().last_activity(asset, at).is_some_and(|last| u64::from(last) >= since))
}

/// Whether the query's filters keep a token.
fn keeps(asset: Asset, token: &TokenFacts<'_>, query: &WalletTokensQuery) -> bool {
    (query.token_addresses.is_empty() || query.token_addresses.contains(&token.address))
        && !(token.possible_spam && query.exclude_spam)
        && (token.verified || !query.exclude_unverified_contracts)
        && !(query.exclude_native && asset == Asset::NATIVE)
}

/// Whether the query asks for the native currency. Where the ledger does
/// not follow native balances, nothing says when it last moved, so no
/// inactivity window leaves it out.
fn wants_native(query: &WalletTokensQuery) -> bool {
    !query.exclude_native && (query.token_addresses.is_empty() || query.token_addresses.contains(&NATIVE_TOKEN_ADDRESS))
}

/// One holding, priced at the answer's block and a day before.
fn holding(view: &impl ChainView, asset: Asset, balance: U256, pricing: &Pricing) -> Option<TokenHolding> {
    let Pricing { block, day_before, filter } = *pricing;
    Some(TokenHolding {
        token: token_info(view, asset, block)?,
        balance,
        usd_price: view.usd_price(asset, block, filter),
        usd_price_day_before: day_before.and_then(|before| view.usd_price(asset, before, filter)),
    })
}

/// A token as an answer names it at `block`: its supply then, from the
/// ledger; the native currency for [`Asset::NATIVE`], which has none.
pub fn token_info(view: &impl ChainView, asset: Asset, block: u64) -> Option<TokenInfo> {
    let token = view.token(asset)?;
    let native = asset == Asset::NATIVE;
    Some(TokenInfo {
        address: token.address,
        native,
        name: token.name.to_string(),
        symbol: token.symbol.to_string(),
        logo: token.logo.map(str::to_string),
        thumbnail: token.thumbnail.map(str::to_string),
        decimals: token.decimals,
        possible_spam: token.possible_spam,
        verified_contract: token.verified,
        total_supply: (!native).then(|| U256::from(view.ledger().supply_at(asset, ledger_block(block)))),
    })
}
