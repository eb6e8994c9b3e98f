//! `getNFTOwners` and `getNFTTokenIdOwners`: who holds a collection's
//! tokens (or one of them), one item per token and holder, one page at a
//! time, with the collection's indexing status.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::collection_nfts::NftOwners;
use w3api_types::params::operations::{get_nft_owners as all, get_nft_token_id_owners as one};
use w3api_types::{Address, Chain, NftPage, U256};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, FromTokenQuery, Paging, Request, TokenRequest};
use super::query::Query;
use super::wallet_nfts::{NftView, nft};
use super::{FIRST_NFT_PAGE, Listing, begin_walk};
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &all::OPERATION, collection_owners::<S>);
    super::operation(router, &one::OPERATION, token_owners::<S>)
}

/// The request: whose holders (a collection's, or one token's), how to
/// write them, and which page.
#[derive(Debug)]
pub(crate) struct NftOwnersRequest {
    chain: Chain,
    address: Address,
    token_id: Option<U256>,
    view: NftView,
    paging: Paging,
}

impl FromQuery for NftOwnersRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        NftOwnersRequest {
            chain: q.chain(&all::CHAIN),
            address,
            token_id: None,
            view: NftView::read(q, &all::FORMAT, &all::NORMALIZE_METADATA, &all::MEDIA_ITEMS),
            paging: Paging::read(q, &all::LIMIT, &all::CURSOR),
        }
    }
}

impl FromTokenQuery for NftOwnersRequest {
    fn read(q: &mut Query, address: Address, token_id: U256) -> Self {
        NftOwnersRequest {
            chain: q.chain(&one::CHAIN),
            address,
            token_id: Some(token_id),
            view: NftView::read(q, &one::FORMAT, &one::NORMALIZE_METADATA, &one::MEDIA_ITEMS),
            paging: Paging::read(q, &one::LIMIT, &one::CURSOR),
        }
    }
}

async fn collection_owners<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NftOwnersRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    owners(&app, request).await
}

async fn token_owners<S: Backend>(
    State(app): State<Arc<App<S>>>,
    TokenRequest(request): TokenRequest<NftOwnersRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    owners(&app, request).await
}

async fn owners<S: Backend>(app: &App<S>, request: NftOwnersRequest) -> Result<JsonAnswer<NftPage>, ApiError> {
    let NftOwnersRequest { chain, address, token_id, view, ref paging } = request;
    let listing = Listing { kind: "nft_owners", first_page: FIRST_NFT_PAGE };
    let key = (chain, address, token_id, view);
    let (walk, block) = begin_walk((&*app.source, &app.cursors), listing, &key, paging, (chain, None)).await?;
    let question = NftOwners { address, token_id, at_block: Some(block), page: walk.request.clone() };
    let answer = app.source.ask(chain, question).await?;
    let status = app.source.nft_status(chain, answer.concerns).await?;
    let described = app.source.describe_nfts(chain, block, answer.page.items).await?;
    Ok(JsonAnswer(NftPage {
        status: Some(status),
        total: Some(answer.total),
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &key, block, answer.page.next),
        result: described.into_iter().map(|holding| nft(holding, view)).collect(),
    }))
}
