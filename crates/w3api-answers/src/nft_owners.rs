//! `getNFTOwners` and `getNFTTokenIdOwners`: who holds a collection's
//! tokens (or one of them), one item per token and holder, one page at a
//! time, with the collection's indexing status.

use w3api_query::collection_nfts::NftOwners;
use w3api_types::{Address, Chain, NftPage, U256};

use crate::paging::{Cursors, FIRST_NFT_PAGE, Listing, Paging, begin_walk};
use crate::wallet_nfts::{NftView, nft};
use crate::{AnswerError, Backend};

/// Whose holders (a collection's, or one token's), how to write them, and
/// which page.
#[derive(Debug)]
pub struct NftOwnersRequest {
    /// The chain read.
    pub chain: Chain,
    /// The collection.
    pub address: Address,
    /// One token of it, or all.
    pub token_id: Option<U256>,
    /// How to write the tokens.
    pub view: NftView,
    /// Which page.
    pub paging: Paging,
}

/// The page of holders `request` asks for.
pub async fn nft_owners<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: NftOwnersRequest,
) -> Result<NftPage, AnswerError> {
    let NftOwnersRequest { chain, address, token_id, view, ref paging } = request;
    let listing = Listing { kind: "nft_owners", first_page: FIRST_NFT_PAGE };
    let key = (chain, address, token_id, view);
    let (walk, block) = begin_walk((source, cursors), listing, &key, paging, (chain, None)).await?;
    let question = NftOwners { address, token_id, at_block: Some(block), page: walk.request.clone() };
    let answer = source.ask(chain, question).await?;
    let status = source.nft_status(chain, answer.concerns).await?;
    let described = source.describe_nfts(chain, block, answer.page.items).await?;
    Ok(NftPage {
        status: Some(status),
        total: Some(answer.total),
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        result: described.into_iter().map(|holding| nft(holding, view)).collect(),
    })
}
