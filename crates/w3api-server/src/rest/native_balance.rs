//! `getNativeBalance`: a wallet's native balance at a block, as
//! `eth_getBalance` gives it.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::native_balances::native_balance as answer;
use w3api_types::params::operations::get_native_balance as op;
use w3api_types::{Address, Chain, NativeBalance};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, native_balance::<S>)
}

/// The request: whose balance, where and when.
#[derive(Debug)]
struct NativeBalanceRequest {
    chain: Chain,
    address: Address,
    to_block: Option<u64>,
}

impl FromQuery for NativeBalanceRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        NativeBalanceRequest { chain: q.chain(&op::CHAIN), address, to_block: q.integer(&op::TO_BLOCK) }
    }
}

async fn native_balance<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NativeBalanceRequest>,
) -> Result<JsonAnswer<NativeBalance>, ApiError> {
    let NativeBalanceRequest { chain, address, to_block } = request;
    Ok(JsonAnswer(answer(&*app.source, (chain, address), to_block).await?))
}
