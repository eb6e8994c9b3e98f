//! `getWalletNfts`: the NFTs a wallet holds, with their metadata, media
//! and rarity as the request asks, one page at a time.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_nfts::{NftView, wallet_nfts_page};
use w3api_source::WalletNftsQuery;
use w3api_types::params::operations::get_wallet_nfts as op;
use w3api_types::{Address, NftPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};
use w3api_answers::Paging;

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_nfts::<S>)
}

/// The request: what to read, how to write it, and which page.
#[derive(Debug)]
struct WalletNftsRequest {
    /// What to read.
    query: WalletNftsQuery,
    /// How to write it.
    view: NftView,
    /// Which page.
    paging: Paging,
}

impl FromQuery for WalletNftsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletNftsRequest {
            query: WalletNftsQuery {
                chain: q.chain(&op::CHAIN),
                address,
                at_block: None,
                token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                include_prices: q.flag(&op::INCLUDE_PRICES),
            },
            view: q.nft_view(&op::FORMAT, &op::NORMALIZE_METADATA, &op::MEDIA_ITEMS),
            paging: q.paging(&op::LIMIT, &op::CURSOR),
        }
    }
}

async fn wallet_nfts<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletNftsRequest { query, view, paging }): Request<WalletNftsRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    Ok(JsonAnswer(wallet_nfts_page((&*app.source, &app.cursors), query, view, &paging).await?))
}
