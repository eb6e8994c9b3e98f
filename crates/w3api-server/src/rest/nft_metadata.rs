//! `getNFTMetadata`: one NFT by contract and token id, as the collection's
//! listing has it, with its metadata; a token that does not exist is a 404.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::collection_nfts::{Erc1155As, NftsById};
use w3api_source::SourceError;
use w3api_types::params::operations::get_nft_metadata as op;
use w3api_types::{Address, Chain, Nft, U256};

use super::answer::JsonAnswer;
use super::extract::{FromTokenQuery, TokenRequest};
use super::query::Query;
use super::wallet_nfts::{NftView, nft};
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, nft_metadata::<S>)
}

/// The request: which token, on which chain, and how to write it.
#[derive(Debug)]
pub(crate) struct NftMetadataRequest {
    chain: Chain,
    address: Address,
    token_id: U256,
    include_prices: bool,
    view: NftView,
}

impl FromTokenQuery for NftMetadataRequest {
    fn read(q: &mut Query, address: Address, token_id: U256) -> Self {
        NftMetadataRequest {
            chain: q.chain(&op::CHAIN),
            address,
            token_id,
            include_prices: q.flag(&op::INCLUDE_PRICES),
            view: NftView::read(q, &op::FORMAT, &op::NORMALIZE_METADATA, &op::MEDIA_ITEMS),
        }
    }
}

async fn nft_metadata<S: Backend>(
    State(app): State<Arc<App<S>>>,
    TokenRequest(request): TokenRequest<NftMetadataRequest>,
) -> Result<JsonAnswer<Nft>, ApiError> {
    let NftMetadataRequest { chain, address, token_id, include_prices, view } = request;
    let question = NftsById { tokens: vec![(address, token_id)], include_prices, erc1155: Erc1155As::AllHolders };
    let (block, found) = app.source.ask(chain, question).await?;
    let listed = found.into_iter().flatten().collect::<Vec<_>>();
    let described = app.source.describe_nfts(chain, block, listed).await?;
    let holding = described.into_iter().next().ok_or(SourceError::NoNft { address, token_id })?;
    Ok(JsonAnswer(nft(holding, view)))
}
