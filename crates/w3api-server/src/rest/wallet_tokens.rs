//! `getWalletTokenBalancesPrice`: a wallet's token balances with USD prices,
//! values, 24-hour changes and portfolio shares, one page at a time.

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use w3api_answers::wallet_tokens::{self as tokens, WalletTokensRequest};
use w3api_source::WalletTokensQuery;

use crate::Backend;
use w3api_types::Address;
use w3api_types::params::operations::get_wallet_token_balances_price as op;

use super::answer::{self, json_bytes};
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, answer_cache};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_tokens::<S>)
}

impl FromQuery for WalletTokensRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletTokensRequest {
            query: WalletTokensQuery {
                chain: q.chain(&op::CHAIN),
                address,
                to_block: q.integer(&op::TO_BLOCK),
                token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                exclude_unverified_contracts: q.flag(&op::EXCLUDE_UNVERIFIED_CONTRACTS),
                exclude_native: q.flag(&op::EXCLUDE_NATIVE),
                max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
                min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
            },
            paging: q.paging(&op::LIMIT, &op::CURSOR),
        }
    }
}

async fn wallet_tokens<S: Backend>(
    State(app): State<Arc<App<S>>>,
    uri: Uri,
    Request(request): Request<WalletTokensRequest>,
) -> Result<Response, ApiError> {
    // Read before the answer: see `Blocks::revision`.
    let revision = app.source.revision(request.query.chain);
    let source = (&*app.source, &app.cursors);
    let (walk, block) = tokens::begin(source, &request).await?;
    let key = answer_cache::key(&uri, block, revision);
    if let Some(answer) = app.answers.get(&key) {
        return Ok(json_bytes(answer));
    }
    let bytes = answer::encode(&tokens::page(source, &request, (walk, block)).await?)?;
    app.answers.insert(key, bytes.clone());
    Ok(json_bytes(bytes))
}
