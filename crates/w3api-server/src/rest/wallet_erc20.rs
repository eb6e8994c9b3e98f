//! `getWalletTokenBalances`: a wallet's ERC20 balances, without prices,
//! all in one answer.

use std::sync::Arc;

use axum::extract::State;
use w3api_source::{PageRequest, SourceError, TokenHolding, WalletTokensQuery};
use w3api_types::params::operations::get_wallet_token_balances as op;
use w3api_types::{Address, Erc20TokenBalance};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_erc20::<S>)
}

/// The request: the wallet tokens query without the native currency.
#[derive(Debug)]
pub(crate) struct WalletErc20Request(WalletTokensQuery);

impl FromQuery for WalletErc20Request {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletErc20Request(WalletTokensQuery {
            to_block: q.integer(&op::TO_BLOCK),
            token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
            exclude_spam: q.flag(&op::EXCLUDE_SPAM),
            exclude_native: true,
            ..WalletTokensQuery::new(q.chain(&op::CHAIN), address)
        })
    }
}

async fn wallet_erc20<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletErc20Request(query)): Request<WalletErc20Request>,
) -> Result<JsonAnswer<Vec<Erc20TokenBalance>>, ApiError> {
    Ok(JsonAnswer(erc20_balances(&*app.source, query).await?))
}

/// Every ERC20 balance the query keeps, the native currency aside, at its
/// block (the newest when it names a later one): the answer of this
/// operation and of `eth_getTokenBalances`.
pub(crate) async fn erc20_balances<S: Backend>(
    source: &S,
    query: WalletTokensQuery,
) -> Result<Vec<Erc20TokenBalance>, SourceError> {
    let to_block = Some(super::block_at(source, query.chain, query.to_block).await?);
    let query = WalletTokensQuery { to_block, exclude_native: true, ..query };
    let answer = source.wallet_tokens(query, PageRequest::first(usize::MAX)).await?;
    Ok(answer.holdings.items.into_iter().map(erc20_balance).collect())
}

fn erc20_balance(holding: TokenHolding) -> Erc20TokenBalance {
    let TokenHolding { token, balance, .. } = holding;
    Erc20TokenBalance {
        token_address: token.address,
        name: token.name,
        symbol: token.symbol,
        logo: token.logo,
        thumbnail: token.thumbnail,
        decimals: token.decimals,
        balance,
        possible_spam: token.possible_spam,
        verified_contract: token.verified_contract,
    }
}
