//! `getWalletStats` and `getWalletActiveChains`: a wallet's counts on one
//! chain, and its first and last transactions on each chain asked.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_activity as answers;
use w3api_types::params::operations::{get_wallet_active_chains as chains_op, get_wallet_stats as stats_op};
use w3api_types::{ActiveChains, Address, Chain};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &stats_op::OPERATION, wallet_stats::<S>);
    super::operation(router, &chains_op::OPERATION, active_chains::<S>)
}

/// `getWalletStats`' request: whose counts, on which chain.
#[derive(Debug)]
struct StatsRequest {
    chain: Chain,
    address: Address,
}

impl FromQuery for StatsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        StatsRequest { chain: q.chain(&stats_op::CHAIN), address }
    }
}

async fn wallet_stats<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<StatsRequest>,
) -> Result<JsonAnswer<w3api_types::WalletStats>, ApiError> {
    Ok(JsonAnswer(answers::wallet_stats(&*app.source, request.chain, request.address).await?))
}

/// `getWalletActiveChains`' request: whose activity, on which chains
/// (each once, in the order asked; `eth` when none is).
#[derive(Debug)]
struct ActiveChainsRequest {
    chains: Vec<Chain>,
    address: Address,
}

impl FromQuery for ActiveChainsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        ActiveChainsRequest { chains: q.chains(&chains_op::CHAINS), address }
    }
}

async fn active_chains<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<ActiveChainsRequest>,
) -> Result<JsonAnswer<ActiveChains>, ApiError> {
    Ok(JsonAnswer(answers::active_chains(&*app.source, request.chains, request.address).await?))
}
