//! `getWalletTransactions`: a wallet's transactions, a page at a time
//! (`w3api_answers::wallet_transactions`, which `eth_getTransactions`
//! answers from too).

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_transactions::{WalletTransactionsRequest, wallet_transactions_page};
use w3api_types::params::operations::get_wallet_transactions as op;
use w3api_types::{Address, WalletTransactionPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_transactions::<S>)
}

impl FromQuery for WalletTransactionsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletTransactionsRequest {
            chain: q.chain(&op::CHAIN),
            address,
            window: q.window([&op::FROM_BLOCK, &op::TO_BLOCK, &op::FROM_DATE, &op::TO_DATE, &op::ORDER]),
            paging: q.paging(&op::LIMIT, &op::CURSOR),
            include: q.schema_value(&op::INCLUDE),
        }
    }
}

async fn wallet_transactions<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<WalletTransactionsRequest>,
) -> Result<JsonAnswer<WalletTransactionPage>, ApiError> {
    Ok(JsonAnswer(wallet_transactions_page((&*app.source, &app.cursors), request).await?))
}
