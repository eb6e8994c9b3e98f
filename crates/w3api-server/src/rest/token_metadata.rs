//! `getTokenMetadata`: what is known of up to 10 ERC20 tokens, from the
//! query core over the chain's view.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::token_metadata::TokenMetadata;
use w3api_types::params::operations::get_token_metadata as op;
use w3api_types::{Chain, Erc20Metadata};

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
pub(crate) struct TokenMetadataRequest {
    chain: Chain,
    question: TokenMetadata,
}

impl FromQueryAlone for TokenMetadataRequest {
    fn read(q: &mut Query) -> Self {
        let addresses = q.required_addresses(&op::ADDRESSES);
        TokenMetadataRequest { chain: q.chain(&op::CHAIN), question: TokenMetadata { addresses } }
    }
}

async fn token_metadata<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(request): QueryRequest<TokenMetadataRequest>,
) -> Result<JsonAnswer<Vec<Erc20Metadata>>, ApiError> {
    Ok(JsonAnswer(app.source.ask(request.chain, request.question).await?))
}
