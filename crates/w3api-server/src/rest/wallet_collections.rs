//! `getWalletNftCollections`: the NFT collections a wallet holds tokens
//! of, with how many when asked, one page at a time.

use std::sync::Arc;

use axum::extract::State;
use w3api_source::{CollectionHolding, WalletCollectionsQuery};
use w3api_types::params::operations::get_wallet_nft_collections as op;
use w3api_types::{Address, NftCollection, NftCollectionPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Paging, Request};
use super::pagination::Cursors;
use super::query::Query;
use super::{FIRST_NFT_PAGE, Listing, begin_walk};
use crate::App;
use crate::Backend;
use crate::error::ApiError;

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_collections::<S>)
}

/// The request: what to read, whether to count tokens, and which page.
#[derive(Debug)]
pub(crate) struct WalletCollectionsRequest {
    /// What to read.
    pub query: WalletCollectionsQuery,
    /// Whether to write each collection's token count.
    pub token_counts: bool,
    /// Which page.
    pub paging: Paging,
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
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
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

/// The page of a wallet's collections `paging` asks for: the REST answer,
/// and what `eth_getNFTCollections` writes.
pub(crate) async fn wallet_collections_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    query: WalletCollectionsQuery,
    token_counts: bool,
    paging: &Paging,
) -> Result<NftCollectionPage, ApiError> {
    let listing = Listing { kind: "collections", first_page: FIRST_NFT_PAGE };
    let key = (&query, token_counts);
    let (walk, block) = begin_walk((source, cursors), listing, &key, paging, (query.chain, None)).await?;
    let at_block = WalletCollectionsQuery { at_block: Some(block), ..query.clone() };
    let answer = source.wallet_collections(at_block, walk.request.clone()).await?;
    Ok(NftCollectionPage {
        status: Some(answer.status),
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.holdings.next),
        result: answer.holdings.items.into_iter().map(|h| collection(h, token_counts)).collect(),
    })
}

/// A collection a wallet holds tokens of; its token count when asked.
pub(crate) fn collection(holding: CollectionHolding, token_counts: bool) -> NftCollection {
    let CollectionHolding { collection, token_count, prices } = holding;
    NftCollection {
        token_address: collection.address,
        contract_type: collection.contract_type,
        name: collection.name,
        symbol: collection.symbol,
        possible_spam: Some(collection.possible_spam),
        verified_collection: Some(collection.verified),
        count: token_counts.then_some(token_count),
        collection_logo: collection.logo,
        collection_banner_image: collection.banner,
        prices,
    }
}

#[cfg(test)]
mod tests {
    use w3api_source::CollectionInfo;
    use w3api_types::{Address, ContractType};

    use super::*;

    #[test]
    fn collections_count_tokens_only_when_asked() {
        let info = CollectionInfo {
            address: Address::repeat_byte(9),
            contract_type: ContractType::Erc721,
            name: "Things".into(),
            symbol: "THG".into(),
            possible_spam: true,
            verified: false,
            logo: None,
            banner: None,
        };
        let holding = || CollectionHolding { collection: info.clone(), token_count: 3, prices: None };
        assert_eq!(collection(holding(), true).count, Some(3));
        assert_eq!(collection(holding(), false).count, None);
    }
}
