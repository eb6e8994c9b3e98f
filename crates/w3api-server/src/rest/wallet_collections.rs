//! `getWalletNftCollections`: the NFT collections a wallet holds tokens
//! of, with how many when asked, one page at a time.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::wallet_collections::wallet_collections_page;
use w3api_source::WalletCollectionsQuery;
use w3api_types::params::operations::get_wallet_nft_collections as op;
use w3api_types::{Address, NftCollectionPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};
use w3api_answers::Paging;

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_collections::<S>)
}

/// The request: what to read, whether to count tokens, and which page.
#[derive(Debug)]
struct WalletCollectionsRequest {
    /// What to read.
    query: WalletCollectionsQuery,
    /// Whether to write each collection's token count.
    token_counts: bool,
    /// Which page.
    paging: Paging,
}

impl FromQuery for WalletCollectionsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletCollectionsRequest {
            query: WalletCollectionsQuery {
                chain: q.chain(&op::CHAIN),
                address,
                at_block: None,
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                include_prices: q.flag(&op::INCLUDE_PRICES),
            },
            token_counts: q.flag(&op::TOKEN_COUNTS),
            paging: q.paging(&op::LIMIT, &op::CURSOR),
        }
    }
}

async fn wallet_collections<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletCollectionsRequest { query, token_counts, paging }): Request<WalletCollectionsRequest>,
) -> Result<JsonAnswer<NftCollectionPage>, ApiError> {
    let page = wallet_collections_page((&*app.source, &app.cursors), query, token_counts, &paging).await?;
    Ok(JsonAnswer(page))
}
