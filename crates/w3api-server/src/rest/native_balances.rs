//! `getNativeBalancesForAddresses`: the native balances of several wallets
//! at one block, and their sum.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::native_balances::native_balances as answer;
use w3api_types::params::operations::get_native_balances_for_addresses as op;
use w3api_types::{Address, Chain, ChainNativeBalances};

use super::answer::JsonAnswer;
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
struct NativeBalancesRequest {
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
    let NativeBalancesRequest { chain, wallets, to_block } = request;
    Ok(JsonAnswer(answer(&*app.source, (chain, &wallets), to_block).await?))
}
