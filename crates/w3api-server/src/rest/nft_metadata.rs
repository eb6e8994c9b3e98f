//! `getNFTMetadata`: one NFT by contract and token id, as the collection's
//! listing has it, with its metadata; a token that does not exist is a 404.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::nft_metadata::{NftMetadataRequest, nft_metadata as answer};
use w3api_types::params::operations::get_nft_metadata as op;
use w3api_types::{Address, Nft, U256};

use super::answer::JsonAnswer;
use super::extract::{FromTokenQuery, TokenRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, nft_metadata::<S>)
}

impl FromTokenQuery for NftMetadataRequest {
    fn read(q: &mut Query, address: Address, token_id: U256) -> Self {
        NftMetadataRequest {
            chain: q.chain(&op::CHAIN),
            address,
            token_id,
            include_prices: q.flag(&op::INCLUDE_PRICES),
            view: q.nft_view(&op::FORMAT, &op::NORMALIZE_METADATA, &op::MEDIA_ITEMS),
        }
    }
}

async fn nft_metadata<S: Backend>(
    State(app): State<Arc<App<S>>>,
    TokenRequest(request): TokenRequest<NftMetadataRequest>,
) -> Result<JsonAnswer<Nft>, ApiError> {
    Ok(JsonAnswer(answer(&*app.source, request).await?))
}
