//! `getMultipleTokenPrices`: the prices of several tokens, each as
//! `getTokenPrice` gives it; a token without a price is left out.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use futures::future::join_all;
use w3api_answers::token_price::price;
use w3api_source::TokenPriceQuery;
use w3api_types::params::operations::get_multiple_token_prices as op;
use w3api_types::params::operations::multiple_token_prices_request as request_body;
use w3api_types::params::operations::token_price_item as item_bounds;
use w3api_types::{MultipleTokenPricesRequest, TokenPrice, TokenPriceInclude};

use super::answer::JsonAnswer;
use super::body::{self, JsonBody};
use super::extract::{FromQueryAlone, QueryRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, multiple_token_prices::<S>)
}

/// The bounds the spec sets on the body: how many tokens, and an exchange
/// that names something.
fn check(body: &MultipleTokenPricesRequest) -> Result<(), ApiError> {
    let mut problems: Vec<String> = body::items_problem(&request_body::TOKENS, body.tokens.len()).into_iter().collect();
    for (index, item) in body.tokens.iter().enumerate() {
        if item.exchange.as_deref().is_some_and(|exchange| !item_bounds::EXCHANGE.admits_length(exchange)) {
            problems.push(format!("tokens[{index}].exchange: empty; name an exchange or leave the field out"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(ApiError::bad_request(problems)) }
}

/// How every token of the body is priced (each may add its exchange and block).
#[derive(Debug)]
pub(crate) struct PricingRequest(TokenPriceQuery);

impl FromQueryAlone for PricingRequest {
    fn read(q: &mut Query) -> Self {
        PricingRequest(TokenPriceQuery {
            chain: q.chain(&op::CHAIN),
            address: Default::default(),
            exchange: None,
            to_block: None,
            include_percent_change: q.schema_value(&op::INCLUDE) == Some(TokenPriceInclude::PercentChange),
            max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
            min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
        })
    }
}

async fn multiple_token_prices<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(PricingRequest(pricing)): QueryRequest<PricingRequest>,
    JsonBody(body): JsonBody<MultipleTokenPricesRequest>,
) -> Result<JsonAnswer<Vec<TokenPrice>>, ApiError> {
    check(&body)?;
    let prices = join_all(body.tokens.into_iter().map(|item| {
        let query = TokenPriceQuery {
            address: item.token_address,
            exchange: item.exchange,
            // Past `u64` is past the newest block, which reads the newest.
            to_block: item.to_block.map(|block| block.saturating_to::<u64>()),
            ..pricing.clone()
        };
        price(&*app.source, query)
    }))
    .await;
    let mut found = Vec::with_capacity(prices.len());
    for price in prices {
        match price.map_err(ApiError::from) {
            Ok(price) => found.push(price),
            // No pair prices it: production leaves the token out.
            Err(error) if error.status == StatusCode::NOT_FOUND => {}
            Err(error) => return Err(error),
        }
    }
    Ok(JsonAnswer(found))
}
