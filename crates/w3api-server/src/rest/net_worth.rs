//! `getWalletNetWorth`: the USD value of a wallet's native and ERC20
//! balances, per chain and in total: on each chain, the sum of the values
//! `getWalletTokenBalancesPrice` gives with the same filters.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::net_worth::{NetWorthRequest, net_worth as answer};
use w3api_source::WalletTokensQuery;
use w3api_types::params::operations::get_wallet_net_worth as op;
use w3api_types::{Address, Chain, NetWorth};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, net_worth::<S>)
}

impl FromQuery for NetWorthRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let chains = q.chains(&op::CHAINS);
        let query = WalletTokensQuery {
            exclude_spam: q.flag(&op::EXCLUDE_SPAM),
            exclude_unverified_contracts: q.flag(&op::EXCLUDE_UNVERIFIED_CONTRACTS),
            max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
            min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
            ..WalletTokensQuery::new(Chain::Eth, address)
        };
        NetWorthRequest { chains, query }
    }
}

async fn net_worth<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NetWorthRequest>,
) -> Result<JsonAnswer<NetWorth>, ApiError> {
    Ok(JsonAnswer(answer(&*app.source, request).await?))
}
