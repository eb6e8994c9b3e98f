//! `getContractNFTs`: every token of a collection, by token id, one page at
//! a time; `range` and `totalRanges` list one run of the ids alone.

use w3api_query::collection_nfts::ContractNfts;
use w3api_types::{Address, Chain, NftPage};

use crate::paging::{Cursors, FIRST_NFT_PAGE, Listing, Paging, begin_walk};
use crate::wallet_nfts::{NftView, nft};
use crate::{AnswerError, Backend};

/// Which collection (and run of it), how to write it, and which page.
#[derive(Debug)]
pub struct ContractNftsRequest {
    /// The chain read.
    pub chain: Chain,
    /// The collection.
    pub address: Address,
    /// Whether to add each token's last sale.
    pub include_prices: bool,
    /// One run of the ids (its number from 1, and how many runs), or all.
    pub range: Option<(u64, u64)>,
    /// How to write the tokens.
    pub view: NftView,
    /// Which page.
    pub paging: Paging,
}

/// The page of the collection's tokens `request` asks for.
pub async fn contract_nfts<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: ContractNftsRequest,
) -> Result<NftPage, AnswerError> {
    let ContractNftsRequest { chain, address, include_prices, range, view, ref paging } = request;
    let listing = Listing { kind: "contract_nfts", first_page: FIRST_NFT_PAGE };
    let key = (chain, address, include_prices, range, view);
    let (walk, block) = begin_walk((source, cursors), listing, &key, paging, (chain, None)).await?;
    let question = ContractNfts { address, at_block: Some(block), page: walk.request.clone(), include_prices, range };
    let answer = source.ask(chain, question).await?;
    let described = source.describe_nfts(chain, block, answer.page.items).await?;
    Ok(NftPage {
        status: None,
        total: Some(answer.total),
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        result: described.into_iter().map(|holding| nft(holding, view)).collect(),
    })
}
