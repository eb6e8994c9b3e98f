//! `getNFTOwners` and `getNFTTokenIdOwners`: who holds a collection's
//! tokens (or one of them), one item per token and holder, one page at a
//! time, with the collection's indexing status.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::nft_owners::{NftOwnersRequest, nft_owners as answer};
use w3api_types::params::operations::{get_nft_owners as all, get_nft_token_id_owners as one};
use w3api_types::{Address, NftPage, U256};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, FromTokenQuery, Request, TokenRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &all::OPERATION, collection_owners::<S>);
    super::operation(router, &one::OPERATION, token_owners::<S>)
}

impl FromQuery for NftOwnersRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        NftOwnersRequest {
            chain: q.chain(&all::CHAIN),
            address,
            token_id: None,
            view: q.nft_view(&all::FORMAT, &all::NORMALIZE_METADATA, &all::MEDIA_ITEMS),
            paging: q.paging(&all::LIMIT, &all::CURSOR),
        }
    }
}

impl FromTokenQuery for NftOwnersRequest {
    fn read(q: &mut Query, address: Address, token_id: U256) -> Self {
        NftOwnersRequest {
            chain: q.chain(&one::CHAIN),
            address,
            token_id: Some(token_id),
            view: q.nft_view(&one::FORMAT, &one::NORMALIZE_METADATA, &one::MEDIA_ITEMS),
            paging: q.paging(&one::LIMIT, &one::CURSOR),
        }
    }
}

async fn collection_owners<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NftOwnersRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request).await?))
}

async fn token_owners<S: Backend>(
    State(app): State<Arc<App<S>>>,
    TokenRequest(request): TokenRequest<NftOwnersRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request).await?))
}
