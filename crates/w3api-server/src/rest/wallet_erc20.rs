//! `getWalletTokenBalances`: a wallet's ERC20 balances, without prices,
//! all in one answer.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_erc20::erc20_balances;
use w3api_source::WalletTokensQuery;
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
struct WalletErc20Request(WalletTokensQuery);

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
