//! `getMultipleNFTs`: up to 25 NFTs by contract and token id, in the order
//! asked; `null` in place of one that does not exist, as production
//! answers. An ERC1155 token comes as its largest holding.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::nft_metadata::multiple_nfts as answer;
use w3api_answers::wallet_nfts::NftView;
use w3api_types::params::operations::get_multiple_nfts as op;
use w3api_types::params::operations::multiple_nfts_request as request_body;
use w3api_types::{Address, Chain, MultipleNftsRequest, Nft, TokenIdFormat, U256};

use super::answer::JsonAnswer;
use super::body::{self, JsonBody};
use super::extract::{FromQueryAlone, QueryRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, multiple_nfts::<S>)
}

/// The chain the query names.
#[derive(Debug)]
struct MultipleNftsChain(Chain);

impl FromQueryAlone for MultipleNftsChain {
    fn read(q: &mut Query) -> Self {
        MultipleNftsChain(q.chain(&op::CHAIN))
    }
}

/// The body's tokens, within the spec's bounds.
fn tokens(body: &MultipleNftsRequest) -> Result<Vec<(Address, U256)>, ApiError> {
    if let Some(problem) = body::items_problem(&request_body::TOKENS, body.tokens.len()) {
        return Err(ApiError::bad_request(vec![problem]));
    }
    Ok(body.tokens.iter().map(|item| (item.token_address, item.token_id.0)).collect())
}

async fn multiple_nfts<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(MultipleNftsChain(chain)): QueryRequest<MultipleNftsChain>,
    JsonBody(body): JsonBody<MultipleNftsRequest>,
) -> Result<JsonAnswer<Vec<Option<Nft>>>, ApiError> {
    let tokens = tokens(&body)?;
    let view = NftView {
        format: TokenIdFormat::Decimal,
        normalize_metadata: body.normalize_metadata.unwrap_or(true),
        media_items: body.media_items.unwrap_or(false),
    };
    Ok(JsonAnswer(answer(&*app.source, chain, tokens, view).await?))
}
