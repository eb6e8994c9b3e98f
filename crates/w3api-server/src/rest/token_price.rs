//! `getTokenPrice`: a token's price from its deepest DEX pair, the answer
//! `eth_getTokenPrice` gives.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::token_price::price;
use w3api_source::TokenPriceQuery;
use w3api_types::params::operations::get_token_price as op;
use w3api_types::{Address, TokenPrice, TokenPriceInclude};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, token_price::<S>)
}

/// The request: the token and how to price it.
#[derive(Debug)]
struct TokenPriceRequest(TokenPriceQuery);

impl FromQuery for TokenPriceRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        TokenPriceRequest(TokenPriceQuery {
            chain: q.chain(&op::CHAIN),
            address,
            exchange: q.text(&op::EXCHANGE),
            to_block: q.integer(&op::TO_BLOCK),
            include_percent_change: q.schema_value(&op::INCLUDE) == Some(TokenPriceInclude::PercentChange),
            max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
            min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
        })
    }
}

async fn token_price<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(TokenPriceRequest(query)): Request<TokenPriceRequest>,
) -> Result<JsonAnswer<TokenPrice>, ApiError> {
    Ok(JsonAnswer(price(&*app.source, query).await?))
}
