//! `getWalletNftCollections`: the NFT collections a wallet holds tokens
//! of, with how many when asked, one page at a time.

use w3api_source::{CollectionHolding, WalletCollectionsQuery};
use w3api_types::{NftCollection, NftCollectionPage};

use crate::paging::{Cursors, FIRST_NFT_PAGE, Listing, Paging, begin_walk};
use crate::{AnswerError, Backend};

/// The page of a wallet's collections `paging` asks for: the REST answer,
/// and what `eth_getNFTCollections` writes.
pub async fn wallet_collections_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    query: WalletCollectionsQuery,
    token_counts: bool,
    paging: &Paging,
) -> Result<NftCollectionPage, AnswerError> {
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
pub fn collection(holding: CollectionHolding, token_counts: bool) -> NftCollection {
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
    use super::*;

    #[test]
    fn collections_count_tokens_only_when_asked() {
        let info = crate::fixtures::collection_info();
        let holding = || CollectionHolding { collection: info.clone(), token_count: 3, prices: None };
        assert_eq!(collection(holding(), true).count, Some(3));
        assert_eq!(collection(holding(), false).count, None);
    }
}
