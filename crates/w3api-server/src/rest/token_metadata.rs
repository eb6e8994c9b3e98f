//! `getTokenMetadata`: what is known of up to 10 ERC20 tokens, from the
//! query core over the chain's view.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::token_metadata::token_metadata as answer;
use w3api_types::params::operations::get_token_metadata as op;
use w3api_types::{Address, Chain, Erc20Metadata};

use super::answer::JsonAnswer;
use super::extract::{FromQueryAlone, QueryRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, token_metadata::<S>)
}

/// The request: which tokens, on which chain.
#[derive(Debug)]
struct TokenMetadataRequest {
    chain: Chain,
    addresses: Vec<Address>,
}

impl FromQueryAlone for TokenMetadataRequest {
    fn read(q: &mut Query) -> Self {
        let addresses = q.required_addresses(&op::ADDRESSES);
        TokenMetadataRequest { chain: q.chain(&op::CHAIN), addresses }
    }
}

async fn token_metadata<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(request): QueryRequest<TokenMetadataRequest>,
) -> Result<JsonAnswer<Vec<Erc20Metadata>>, ApiError> {
    Ok(JsonAnswer(answer(&*app.source, request.chain, request.addresses).await?))
}
