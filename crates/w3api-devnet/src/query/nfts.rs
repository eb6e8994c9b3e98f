//! NFTs and NFT collections of a wallet, at any block.

use alloy_primitives::keccak256;
use chrono::{DateTime, Utc};
use w3api_source::{
    CollectionHolding, CollectionInfo, NftHolding, NftRarity, Page, PageRequest, SourceError, WalletCollectionsQuery,
    WalletNftsQuery,
};
use w3api_types::{
    ContractType, NftAttribute, NftMedia, NftMediaCollection, NftMediaItem, NormalizedMetadata, TraitValue,
};

use crate::generate::ChainData;
use crate::metadata::{NftMetadata, Rarity};
use w3api_ledger::discovery;

/// One page of an NFT answer, before its indexing status is known: the
/// status depends on when the collections it `concerns` started indexing,
/// which the store, not the chain, knows.
pub struct NftPage<T> {
    /// The page.
    pub holdings: Page<T>,
    /// Items on all pages, when the listing counts them.
    pub total: Option<u64>,
    /// The collections whose indexing decides the status: those of the
    /// filter and of the whole result, each once.
    pub concerns: Vec<alloy_primitives::Address>,
}

impl ChainData {
    /// One page of the wallet's NFTs, by collection (in address order) then
    /// token id, each described by the devnet's own metadata (or, for a
    /// user's token, by what its contract answers for its URI).
    pub fn wallet_nfts(&self, query: &WalletNftsQuery, page: &PageRequest) -> Result<NftPage<NftHolding>, SourceError> {
        let listing = w3api_query::nfts::wallet_nfts(self, query, page)?;
        let block = listing.block;
        let holdings = listing.page.map(|nft| self.described(nft, block));
        Ok(NftPage { holdings, total: Some(listing.total), concerns: listing.concerns })
    }

    pub(crate) fn collection_info(&self, collection: u16) -> CollectionInfo {
        w3api_query::nfts::collection_info(self, collection).expect("a collection of the world")
    }

    /// An NFT the query core listed, with what the devnet knows of it;
    /// one of a collection the world does not have is left as it is.
    pub fn described(&self, mut nft: NftHolding, block: u64) -> NftHolding {
        let Some(index) = self.world.collection_at(nft.collection.address) else { return nft };
        let collection = &self.world.collections[usize::from(index)];
        let synced = self.block_time(nft.block_number_minted);
        nft.last_token_uri_sync = Some(synced);
        nft.last_metadata_sync = Some(synced);
        let id = u32::try_from(nft.token_id).ok();
        let described = id.and_then(|id| id.checked_sub(1)).and_then(|index| {
            let index = index as usize;
            Some((collection.metadata.get(index)?, collection.rarity.get(index)?))
        });
        match described {
            Some((metadata, rarity)) => self.describe(&mut nft, index, metadata, rarity, synced),
            // A user's token: its URI is what its contract answers at the
            // block; the document behind it is the user's, not read.
            None => {
                let erc1155 = collection.kind == ContractType::Erc1155;
                let input = discovery::token_uri_call(nft.token_id, erc1155);
                let returned = self.view(collection.address, input, block);
                nft.token_uri = returned.and_then(|r| discovery::read_token_uri(&r, nft.token_id, erc1155));
            }
        }
        nft
    }

    /// What the devnet's own metadata says of one of its tokens.
    fn describe(
        &self,
        nft: &mut NftHolding,
        collection: u16,
        metadata: &NftMetadata,
        rarity: &Rarity,
        synced: DateTime<Utc>,
    ) {
        nft.token_uri = Some(metadata.token_uri.clone());
        nft.metadata = Some(metadata.to_json());
        nft.normalized_metadata = Some(self.normalized_metadata(collection, metadata));
        nft.media = Some(NftMedia {
            status: Some("success".into()),
            category: w3api_types::media_category("image/png").map(str::to_owned),
            original_media_url: Some(metadata.image.clone()),
            updated_at: Some(synced),
            mimetype: Some("image/png".into()),
            parent_hash: Some(format!("{:#x}", keccak256(metadata.image.as_bytes()))),
            media_collection: Some(NftMediaCollection {
                low: preview(&metadata.image, "low", 100),
                medium: preview(&metadata.image, "medium", 250),
                high: preview(&metadata.image, "high", 500),
            }),
        });
        nft.rarity = Some(NftRarity {
            rank: u64::from(rarity.rank),
            percentage: rarity.percentage,
            label: rarity.label.to_string(),
        });
    }

    fn normalized_metadata(&self, collection: u16, metadata: &NftMetadata) -> NormalizedMetadata {
        NormalizedMetadata {
            name: Some(metadata.name.clone()),
            description: Some(metadata.description.clone()),
            image: Some(metadata.image.clone()),
            external_link: Some(metadata.external_url.clone()),
            external_url: Some(metadata.external_url.clone()),
            animation_url: None,
            attributes: Some(
                metadata
                    .attributes
                    .iter()
                    .map(|attribute| NftAttribute {
                        trait_type: Some(attribute.0.to_string()),
                        value: Some(TraitValue::Text(attribute.1.to_string())),
                        display_type: None,
                        max_value: None,
                        trait_count: Some(self.trait_count(collection, attribute)),
                        order: None,
                    })
                    .collect(),
            ),
        }
    }

    fn trait_count(&self, collection: u16, attribute: &crate::metadata::Trait) -> u64 {
        let collection = &self.world.collections[usize::from(collection)];
        collection.trait_counts.get(attribute).copied().map_or(0, u64::from)
    }

    /// One page of the collections the wallet holds tokens of, in address order.
    pub fn wallet_collections(
        &self,
        query: &WalletCollectionsQuery,
        page: &PageRequest,
    ) -> Result<NftPage<CollectionHolding>, SourceError> {
        let listing = w3api_query::nfts::wallet_collections(self, query, page)?;
        Ok(NftPage { holdings: listing.page, total: Some(listing.total), concerns: listing.concerns })
    }

    /// A block's timestamp as a date.
    pub fn block_time(&self, number: u64) -> DateTime<Utc> {
        DateTime::from_timestamp(self.timestamp(number) as i64, 0).expect("devnet timestamps are in range")
    }
}

fn preview(image: &str, size: &str, pixels: u32) -> NftMediaItem {
    let url = format!("{}_{size}.png", image.trim_end_matches(".png"));
    NftMediaItem { height: pixels, width: pixels, url }
}
