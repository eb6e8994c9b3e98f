//! `getNativeBalance`: a wallet's native balance at a block, as
//! `eth_getBalance` gives it.

use std::sync::Arc;

use axum::extract::State;
use w3api_source::BlockRef;
use w3api_types::params::operations::get_native_balance as op;
use w3api_types::{Address, Chain, NativeBalance};

use super::answer::JsonAnswer;
use super::block_at;
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
pub(crate) struct NativeBalanceRequest {
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
    let block = block_at(&*app.source, request.chain, request.to_block).await?;
    let balance = app.source.balance(request.chain, request.address, BlockRef::Number(block)).await?;
    Ok(JsonAnswer(NativeBalance { balance }))
}
