//! `getNFTMetadata` and `getMultipleNFTs`: NFTs by contract and token id,
//! as their collections' listings have them, with their metadata.

use w3api_query::collection_nfts::{Erc1155As, NftsById};
use w3api_source::SourceError;
use w3api_types::{Address, Chain, Nft, U256};

use crate::Backend;
use crate::wallet_nfts::{NftView, nft};

/// Which token, on which chain, and how to write it.
#[derive(Debug)]
pub struct NftMetadataRequest {
    /// The chain read.
    pub chain: Chain,
    /// The collection.
    pub address: Address,
    /// The token.
    pub token_id: U256,
    /// Whether to add its last sale.
    pub include_prices: bool,
    /// How to write it.
    pub view: NftView,
}

/// The token `request` names; a token that does not exist is
/// [`SourceError::NoNft`].
pub async fn nft_metadata<S: Backend>(source: &S, request: NftMetadataRequest) -> Result<Nft, SourceError> {
    let NftMetadataRequest { chain, address, token_id, include_prices, view } = request;
    let question = NftsById { tokens: vec![(address, token_id)], include_prices, erc1155: Erc1155As::AllHolders };
    let (block, found) = source.ask(chain, question).await?;
    let listed = found.into_iter().flatten().collect::<Vec<_>>();
    let described = source.describe_nfts(chain, block, listed).await?;
    let holding = described.into_iter().next().ok_or(SourceError::NoNft { address, token_id })?;
    Ok(nft(holding, view))
}

/// `tokens`, in the order asked, `None` in place of one that does not
/// exist, as production answers; an ERC1155 token comes as its largest
/// holding.
pub async fn multiple_nfts<S: Backend>(
    source: &S,
    chain: Chain,
    tokens: Vec<(Address, U256)>,
    view: NftView,
) -> Result<Vec<Option<Nft>>, SourceError> {
    // Production's items here are `nftOwner`s, whose holder clients insist on.
    let question = NftsById { tokens, include_prices: false, erc1155: Erc1155As::LargestHolder };
    let (block, found) = source.ask(chain, question).await?;
    let present: Vec<bool> = found.iter().map(Option::is_some).collect();
    let described = source.describe_nfts(chain, block, found.into_iter().flatten().collect()).await?;
    let mut described = described.into_iter().map(|holding| nft(holding, view));
    Ok(present.into_iter().map(|present| if present { described.next() } else { None }).collect())
}
