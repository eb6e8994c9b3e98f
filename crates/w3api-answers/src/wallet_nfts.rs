//! `getWalletNfts`: the NFTs a wallet holds, with their metadata, media
//! and rarity as the request asks, one page at a time.

use w3api_source::{NftHolding, WalletNftsQuery};
use w3api_types::{Nft, NftPage, TokenIdFormat};

use crate::paging::{Cursors, FIRST_NFT_PAGE, Listing, Paging, begin_walk};
use crate::{AnswerError, Backend};

/// How NFTs are written, as the request asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NftView {
    /// How token ids are written.
    pub format: TokenIdFormat,
    /// Whether to add `normalized_metadata`.
    pub normalize_metadata: bool,
    /// Whether to add `media`.
    pub media_items: bool,
}

/// The page of a wallet's NFTs `paging` asks for: the REST answer, and
/// what `eth_getNFTBalances` writes briefly.
pub async fn wallet_nfts_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    query: WalletNftsQuery,
    view: NftView,
    paging: &Paging,
) -> Result<NftPage, AnswerError> {
    let listing = Listing { kind: "nfts", first_page: FIRST_NFT_PAGE };
    let (walk, block) = begin_walk((source, cursors), listing, &(&query, view), paging, (query.chain, None)).await?;
    let at_block = WalletNftsQuery { at_block: Some(block), ..query.clone() };
    let answer = source.wallet_nfts(at_block, walk.request.clone()).await?;
    Ok(NftPage {
        status: Some(answer.status),
        total: answer.total,
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &(&query, view), block, answer.holdings.next),
        result: answer.holdings.items.into_iter().map(|h| nft(h, view)).collect(),
    })
}

/// An NFT and its holder, written as `view` asks.
pub fn nft(holding: NftHolding, view: NftView) -> Nft {
    let NftHolding { collection, rarity, .. } = holding;
    Nft {
        token_address: collection.address,
        token_id: view.format.write(holding.token_id),
        contract_type: collection.contract_type,
        owner_of: holding.owner,
        block_number: holding.block_number,
        block_number_minted: holding.block_number_minted,
        token_uri: holding.token_uri,
        metadata: holding.metadata,
        normalized_metadata: holding.normalized_metadata.filter(|_| view.normalize_metadata),
        media: holding.media.filter(|_| view.media_items),
        amount: Some(holding.amount),
        name: collection.name,
        symbol: collection.symbol,
        token_hash: holding.token_hash,
        rarity_rank: rarity.as_ref().map(|r| r.rank),
        rarity_percentage: rarity.as_ref().map(|r| r.percentage),
        rarity_label: rarity.map(|r| r.label),
        last_token_uri_sync: holding.last_token_uri_sync,
        last_metadata_sync: holding.last_metadata_sync,
        possible_spam: Some(collection.possible_spam),
        verified_collection: Some(collection.verified),
        prices: holding.prices,
    }
}

#[cfg(test)]
mod tests {
    use w3api_source::NftRarity;
    use w3api_types::{Address, U256};

    use super::*;

    fn nft_holding() -> NftHolding {
        NftHolding {
            collection: crate::fixtures::collection_info(),
            token_id: U256::from(255),
            owner: Some(Address::repeat_byte(1)),
            amount: U256::from(1),
            block_number: 5,
            block_number_minted: 3,
            token_uri: Some("https://example.org/255.json".into()),
            metadata: Some("{}".into()),
            normalized_metadata: Some(Default::default()),
            media: Some(w3api_types::NftMedia {
                status: Some("success".into()),
                category: None,
                original_media_url: None,
                updated_at: None,
                mimetype: None,
                parent_hash: None,
                media_collection: None,
            }),
            token_hash: "ab".into(),
            rarity: Some(NftRarity { rank: 2, percentage: 1.5, label: "Top 5%".into() }),
            last_token_uri_sync: None,
            last_metadata_sync: None,
            prices: None,
        }
    }

    #[test]
    fn nfts_are_written_as_the_view_asks() {
        let plain = NftView { format: TokenIdFormat::Decimal, normalize_metadata: false, media_items: false };
        let written = nft(nft_holding(), plain);
        assert_eq!(written.token_id, "255");
        assert!(written.normalized_metadata.is_none() && written.media.is_none());
        assert_eq!((written.rarity_rank, written.rarity_label.as_deref()), (Some(2), Some("Top 5%")));
        assert_eq!((written.possible_spam, written.verified_collection), (Some(true), Some(false)));
        let full = NftView { format: TokenIdFormat::Hex, normalize_metadata: true, media_items: true };
        let written = nft(nft_holding(), full);
        assert_eq!(written.token_id, "0xff");
        assert!(written.normalized_metadata.is_some() && written.media.is_some());
    }
}
