//! `getWalletStats` and `getWalletActiveChains`: a wallet's counts on one
//! chain, and its first and last transactions on each chain asked.

use std::sync::Arc;

use axum::extract::State;
use futures::future::join_all;
use w3api_query::wallet_activity::{ActivityMark, WalletActivity, WalletCounts, WalletStats};
use w3api_types::params::operations::{get_wallet_active_chains as chains_op, get_wallet_stats as stats_op};
use w3api_types::{ActiveChain, ActiveChains, Address, Chain, ChainActivity, StatTotal};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use super::transaction::block_time;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &stats_op::OPERATION, wallet_stats::<S>);
    super::operation(router, &chains_op::OPERATION, active_chains::<S>)
}

/// `getWalletStats`' request: whose counts, on which chain.
#[derive(Debug)]
pub(crate) struct StatsRequest {
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
    let counts: WalletCounts = app.source.ask(request.chain, WalletStats { address: request.address }).await?;
    Ok(JsonAnswer(w3api_types::WalletStats {
        nfts: counts.nfts,
        collections: counts.collections,
        transactions: StatTotal { total: counts.transactions },
        nft_transfers: StatTotal { total: counts.nft_transfers },
        token_transfers: StatTotal { total: counts.token_transfers },
    }))
}

/// `getWalletActiveChains`' request: whose activity, on which chains
/// (each once, in the order asked; `eth` when none is).
#[derive(Debug)]
pub(crate) struct ActiveChainsRequest {
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
    let ActiveChainsRequest { chains, address } = request;
    let answers = join_all(chains.iter().map(|chain| app.source.ask(*chain, WalletActivity { address }))).await;
    let mut active_chains = Vec::with_capacity(chains.len());
    for (chain, answer) in chains.into_iter().zip(answers) {
        let marks = answer?;
        let id = app.source.chain_id(chain).or(chain.id()).map_or_else(|| chain.to_string(), |id| format!("{id:#x}"));
        let (first_transaction, last_transaction) = match marks {
            Some((first, last)) => (Some(activity(first)?), Some(activity(last)?)),
            None => (None, None),
        };
        let name = chain.data_api_name().unwrap_or(chain.as_str()).to_string();
        active_chains.push(ActiveChain { chain: name, chain_id: id, first_transaction, last_transaction });
    }
    Ok(JsonAnswer(ActiveChains { address, active_chains }))
}

fn activity(mark: ActivityMark) -> Result<ChainActivity, ApiError> {
    Ok(ChainActivity {
        block_number: mark.block,
        block_timestamp: block_time(mark.timestamp)?,
        transaction_hash: mark.hash,
    })
}
