//! NFTs and NFT collections of a wallet, at any block.

use std::collections::BTreeMap;

use alloy_primitives::{U256, keccak256};
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
use w3api_ledger::Holder;
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

/// One NFT a wallet holds at a block.
struct Holding {
    collection: u16,
    id: u32,
    amount: u64,
    /// Block the holding last changed.
    since: u32,
}

impl ChainData {
    /// Token ids a holder has at `block`, in the order it first got them.
    fn holdings(&self, holder: Holder, block: u32) -> Vec<Holding> {
        self.ledger
            .nfts_of(holder)
            .iter()
            .filter_map(|&(collection, id)| {
                let (since, amount) = if self.world.collections[usize::from(collection)].kind == ContractType::Erc721 {
                    let (since, owner) = self.ledger.erc721_history(collection, id)?.checkpoint_at(block)?;
                    (since, u64::from(owner == holder))
                } else {
                    // The devnet deploys ERC721 and ERC1155 collections only.
                    self.ledger.erc1155_history(holder, collection, id)?.checkpoint_at(block)?
                };
                (amount > 0).then_some(Holding { collection, id, amount, since })
            })
            .collect()
    }

    /// Whether a collection passes a query's collection filters.
    fn collection_passes(
        &self,
        collection: u16,
        token_addresses: &[alloy_primitives::Address],
        exclude_spam: bool,
    ) -> bool {
        let collection = &self.world.collections[usize::from(collection)];
        (token_addresses.is_empty() || token_addresses.contains(&collection.address))
            && !(exclude_spam && collection.spam)
    }

    /// One page of the wallet's NFTs, by collection (in address order) then
    /// token id.
    pub fn wallet_nfts(&self, query: &WalletNftsQuery, page: &PageRequest) -> Result<NftPage<NftHolding>, SourceError> {
        let block = self.resolve_block(query.at_block)?;
        let mut holdings: Vec<Holding> = match self.ledger.find(query.address) {
            Some(holder) => self
                .holdings(holder, block as u32)
                .into_iter()
                .filter(|h| self.collection_passes(h.collection, &query.token_addresses, query.exclude_spam))
                .collect(),
            None => Vec::new(),
        };
        holdings.sort_by_key(|h| (self.collection_address(h.collection), h.id));
        let mut concerns: Vec<_> = holdings.iter().map(|h| self.collection_address(h.collection)).collect();
        concerns.extend(&query.token_addresses);
        concerns.sort_unstable();
        concerns.dedup();
        let total = Some(holdings.len() as u64);
        let key = |h: &Holding| (self.collection_address(h.collection), h.id);
        let page = page.cut(holdings, key, |(a, id)| format!("{a:#x}:{id}"), decode_nft_key)?;
        let holdings = page.map(|h| self.nft(&h, query.address, block, query.include_prices));
        Ok(NftPage { holdings, total, concerns })
    }

    fn collection_address(&self, collection: u16) -> alloy_primitives::Address {
        self.world.collections[usize::from(collection)].address
    }

    pub(crate) fn collection_info(&self, collection: u16) -> CollectionInfo {
        let collection = &self.world.collections[usize::from(collection)];
        CollectionInfo {
            address: collection.address,
            contract_type: collection.kind.clone(),
            name: collection.name.clone(),
            symbol: collection.symbol.clone(),
            possible_spam: collection.spam,
            verified: collection.verified,
            logo: collection.logo.clone(),
            banner: collection.banner.clone(),
        }
    }

    fn nft(&self, holding: &Holding, owner: alloy_primitives::Address, block: u64, include_prices: bool) -> NftHolding {
        let collection = &self.world.collections[usize::from(holding.collection)];
        let minted = self.ledger.minted_at(holding.collection, holding.id).unwrap_or(holding.since);
        let synced = self.block_time(u64::from(minted));
        let token_id = U256::from(holding.id);
        let described = holding.id.checked_sub(1).and_then(|index| {
            let index = index as usize;
            Some((collection.metadata.get(index)?, collection.rarity.get(index)?))
        });
        let mut nft = NftHolding {
            collection: self.collection_info(holding.collection),
            token_id,
            owner,
            amount: U256::from(holding.amount),
            block_number: u64::from(holding.since),
            block_number_minted: u64::from(minted),
            token_uri: None,
            metadata: None,
            normalized_metadata: None,
            media: None,
            token_hash: w3api_types::nft_token_hash(collection.address, token_id),
            rarity: None,
            last_token_uri_sync: Some(synced),
            last_metadata_sync: Some(synced),
            prices: include_prices
                .then(|| self.nft_prices(block, collection.address, Some(token_id)).unwrap_or_default()),
        };
        match described {
            Some((metadata, rarity)) => self.describe(&mut nft, holding.collection, metadata, rarity, synced),
            // A user's token: its URI is what its contract answers at the
            // block; the document behind it is the user's, not read.
            None => {
                let erc1155 = collection.kind == ContractType::Erc1155;
                let input = discovery::token_uri_call(token_id, erc1155);
                let returned = self.view(collection.address, input, block);
                nft.token_uri = returned.and_then(|r| discovery::read_token_uri(&r, token_id, erc1155));
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
        let block = self.resolve_block(query.at_block)?;
        let mut counts: BTreeMap<alloy_primitives::Address, (u16, u64)> = BTreeMap::new();
        if let Some(holder) = self.ledger.find(query.address) {
            for holding in self.holdings(holder, block as u32) {
                if self.collection_passes(holding.collection, &[], query.exclude_spam) {
                    counts.entry(self.collection_address(holding.collection)).or_insert((holding.collection, 0)).1 += 1;
                }
            }
        }
        let concerns: Vec<_> = counts.keys().copied().collect();
        let total = Some(counts.len() as u64);
        let page = page.cut(counts, |(address, _)| *address, |a| format!("{a:#x}"), |t| t.parse().ok())?;
        let holdings = page.map(|(address, (index, token_count))| CollectionHolding {
            collection: self.collection_info(index),
            token_count,
            prices: query.include_prices.then(|| self.nft_prices(block, address, None).unwrap_or_default()),
        });
        Ok(NftPage { holdings, total, concerns })
    }

    /// A block's timestamp as a date.
    pub fn block_time(&self, number: u64) -> DateTime<Utc> {
        DateTime::from_timestamp(self.timestamp(number) as i64, 0).expect("devnet timestamps are in range")
    }
}

/// Reads the position `collection:id` of an NFT page.
fn decode_nft_key(text: &str) -> Option<(alloy_primitives::Address, u32)> {
    let (address, id) = text.split_once(':')?;
    Some((address.parse().ok()?, id.parse().ok()?))
}

fn preview(image: &str, size: &str, pixels: u32) -> NftMediaItem {
    let url = format!("{}_{size}.png", image.trim_end_matches(".png"));
    NftMediaItem { height: pixels, width: pixels, url }
}
