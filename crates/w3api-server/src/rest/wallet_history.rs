//! `getWalletHistory`: a wallet's decoded history, a page at a time
//! (`w3api_answers::wallet_history`, which `eth_getDecodedTransactions`
//! answers from too).

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_history::{WalletHistoryRequest, wallet_history_page};
use w3api_types::params::operations::get_wallet_history as op;
use w3api_types::{Address, WalletHistoryPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_history::<S>)
}

impl FromQuery for WalletHistoryRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletHistoryRequest {
            chain: q.chain(&op::CHAIN),
            address,
            window: q.window([&op::FROM_BLOCK, &op::TO_BLOCK, &op::FROM_DATE, &op::TO_DATE, &op::ORDER]),
            nft_metadata: q.flag(&op::NFT_METADATA),
            method_labels: q.flag(&op::INCLUDE_INPUT_DATA),
            internal_transactions: q.flag(&op::INCLUDE_INTERNAL_TRANSACTIONS),
            paging: q.paging(&op::LIMIT, &op::CURSOR),
        }
    }
}

async fn wallet_history<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<WalletHistoryRequest>,
) -> Result<JsonAnswer<WalletHistoryPage>, ApiError> {
    Ok(JsonAnswer(wallet_history_page((&*app.source, &app.cursors), request).await?))
}
