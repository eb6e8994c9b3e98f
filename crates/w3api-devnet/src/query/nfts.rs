//! NFTs and NFT collections of a wallet, at any block.

use std::collections::BTreeMap;

use alloy_primitives::{U256, keccak256};
use chrono::{DateTime, Utc};
use w3api_source::{SourceError, WalletCollectionsQuery, WalletNftsQuery};
use w3api_types::{
    ContractType, Nft, NftAttribute, NftCollection, NftMedia, NftMediaCollection, NftMediaItem, NormalizedMetadata,
    TokenIdFormat, TraitValue,
};

use crate::generate::ChainData;
use crate::ledger::Holder;

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

    /// The wallet's NFTs, by collection (in address order) then token id.
    pub fn wallet_nfts(&self, query: &WalletNftsQuery) -> Result<Vec<Nft>, SourceError> {
        let block = self.resolve_block(query.at_block)? as u32;
        let Some(holder) = self.ledger.find(query.address) else { return Ok(Vec::new()) };
        let mut holdings: Vec<Holding> = self
            .holdings(holder, block)
            .into_iter()
            .filter(|h| self.collection_passes(h.collection, &query.token_addresses, query.exclude_spam))
            .collect();
        holdings.sort_by_key(|h| (self.world.collections[usize::from(h.collection)].address, h.id));
        Ok(holdings.iter().map(|h| self.nft(h, query)).collect())
    }

    fn nft(&self, holding: &Holding, query: &WalletNftsQuery) -> Nft {
        let collection = &self.world.collections[usize::from(holding.collection)];
        let index = holding.id as usize - 1;
        let metadata = &collection.metadata[index];
        let rarity = &collection.rarity[index];
        let minted = self.ledger.minted_at(holding.collection, holding.id).unwrap_or(holding.since);
        let synced = self.block_time(u64::from(minted));
        let token_id = match query.format {
            TokenIdFormat::Decimal => holding.id.to_string(),
            TokenIdFormat::Hex => format!("{:#x}", holding.id),
        };
        let token_hash =
            keccak256([collection.address.as_slice(), &U256::from(holding.id).to_be_bytes::<32>()].concat());
        Nft {
            token_address: collection.address,
            token_id,
            contract_type: collection.kind.clone(),
            owner_of: query.address,
            block_number: u64::from(holding.since),
            block_number_minted: u64::from(minted),
            token_uri: Some(metadata.token_uri.clone()),
            metadata: Some(metadata.to_json()),
            normalized_metadata: query.normalize_metadata.then(|| NormalizedMetadata {
                name: Some(metadata.name.clone()),
                description: Some(metadata.description.clone()),
                image: Some(metadata.image.clone()),
                external_link: Some(metadata.external_url.clone()),
                animation_url: None,
                attributes: Some(
                    metadata
                        .attributes
                        .iter()
                        .map(|(trait_type, value)| NftAttribute {
                            trait_type: Some(trait_type.to_string()),
                            value: Some(TraitValue::Text(value.to_string())),
                            display_type: None,
                            max_value: None,
                            trait_count: Some(self.trait_count(holding.collection, trait_type, value)),
                            order: None,
                        })
                        .collect(),
                ),
            }),
            media: query.media_items.then(|| NftMedia {
                status: "success".into(),
                original_media_url: Some(metadata.image.clone()),
                updated_at: Some(synced),
                mimetype: Some("image/png".into()),
                parent_hash: Some(format!("{:#x}", keccak256(metadata.image.as_bytes()))),
                media_collection: Some(NftMediaCollection {
                    low: preview(&metadata.image, "low", 100),
                    medium: preview(&metadata.image, "medium", 250),
                    high: preview(&metadata.image, "high", 500),
                }),
            }),
            amount: Some(U256::from(holding.amount)),
            name: collection.name.clone(),
            symbol: collection.symbol.clone(),
            token_hash: alloy_primitives::hex::encode(&token_hash[..16]),
            rarity_rank: Some(u64::from(rarity.rank)),
            rarity_label: Some(rarity.label.to_string()),
            rarity_percentage: Some(rarity.percentage),
            last_token_uri_sync: Some(synced),
            last_metadata_sync: Some(synced),
            possible_spam: Some(collection.spam),
            verified_collection: Some(collection.verified),
            prices: None,
        }
    }

    fn trait_count(&self, collection: u16, trait_type: &'static str, value: &'static str) -> u64 {
        let collection = &self.world.collections[usize::from(collection)];
        collection.trait_counts.get(&(trait_type, value)).copied().map_or(0, u64::from)
    }

    /// The collections the wallet holds tokens of, in address order.
    pub fn wallet_collections(&self, query: &WalletCollectionsQuery) -> Result<Vec<NftCollection>, SourceError> {
        let block = self.resolve_block(query.at_block)? as u32;
        let Some(holder) = self.ledger.find(query.address) else { return Ok(Vec::new()) };
        let mut counts: BTreeMap<alloy_primitives::Address, (u16, u64)> = BTreeMap::new();
        for holding in self.holdings(holder, block) {
            if self.collection_passes(holding.collection, &[], query.exclude_spam) {
                let address = self.world.collections[usize::from(holding.collection)].address;
                counts.entry(address).or_insert((holding.collection, 0)).1 += 1;
            }
        }
        Ok(counts
            .into_values()
            .map(|(index, count)| {
                let collection = &self.world.collections[usize::from(index)];
                NftCollection {
                    token_address: collection.address,
                    contract_type: collection.kind.clone(),
                    name: collection.name.clone(),
                    symbol: collection.symbol.clone(),
                    possible_spam: Some(collection.spam),
                    verified_collection: Some(collection.verified),
                    count: query.token_counts.then_some(count),
                    collection_logo: collection.logo.clone(),
                    collection_banner_image: collection.banner.clone(),
                    prices: None,
                }
            })
            .collect())
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
