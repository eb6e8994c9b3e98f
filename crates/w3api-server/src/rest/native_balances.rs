//! `getNativeBalancesForAddresses`: the native balances of several wallets
//! at one block, and their sum.

use std::sync::Arc;

use axum::extract::State;
use chrono::DateTime;
use futures::future::try_join_all;
use w3api_source::{BlockRef, SourceError};
use w3api_types::params::operations::get_native_balances_for_addresses as op;
use w3api_types::{Address, Chain, ChainNativeBalances, U256, WalletNativeBalance, format_units};

use super::answer::JsonAnswer;
use super::block_at;
use super::extract::{FromQueryAlone, QueryRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, native_balances::<S>)
}

/// The request: whose balances, where and when.
#[derive(Debug)]
pub(crate) struct NativeBalancesRequest {
    chain: Chain,
    wallets: Vec<Address>,
    to_block: Option<u64>,
}

impl FromQueryAlone for NativeBalancesRequest {
    fn read(q: &mut Query) -> Self {
        let wallets = q.required_addresses(&op::WALLET_ADDRESSES);
        NativeBalancesRequest { chain: q.chain(&op::CHAIN), wallets, to_block: q.integer(&op::TO_BLOCK) }
    }
}

async fn native_balances<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(request): QueryRequest<NativeBalancesRequest>,
) -> Result<JsonAnswer<Vec<ChainNativeBalances>>, ApiError> {
    let chain = request.chain;
    let block = block_at(&*app.source, chain, request.to_block).await?;
    let header = app.source.block(chain, BlockRef::Number(block), false).await?;
    let header = header.ok_or_else(|| SourceError::Unavailable(format!("block {block} is not there any more")))?;
    let balances =
        try_join_all(request.wallets.iter().map(|wallet| app.source.balance(chain, *wallet, BlockRef::Number(block))))
            .await?;
    let total = balances.iter().fold(U256::ZERO, |sum, balance| sum.saturating_add(*balance));
    let decimals = 18;
    let wallet_balances = request
        .wallets
        .iter()
        .zip(balances)
        .map(|(address, balance)| WalletNativeBalance {
            address: *address,
            balance,
            balance_formatted: format_units(balance, decimals),
        })
        .collect();
    let id = app.source.chain_id(chain).or(chain.id()).unwrap_or_default();
    Ok(JsonAnswer(vec![ChainNativeBalances {
        chain: chain.data_api_name().unwrap_or(chain.as_str()).to_string(),
        chain_id: format!("{id:#x}"),
        block_number: block,
        block_timestamp: DateTime::from_timestamp(i64::try_from(header.timestamp).unwrap_or(i64::MAX), 0)
            .unwrap_or_default(),
        total_balance: total,
        total_balance_formatted: format_units(total, decimals),
        wallet_balances,
    }]))
}
