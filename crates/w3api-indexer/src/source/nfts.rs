//! NFTs and NFT collections of a wallet from the index, with token URIs
//! read from the contracts and metadata documents where they may be read.

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};
use chrono::Utc;
use futures::StreamExt;
use serde_json::json;
use w3api_ledger::Holder;
use w3api_source::{
    CollectionHolding, CollectionInfo, NftHolding, PageRequest, SourceError, WalletCollectionsPage,
    WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery,
};
use w3api_types::{ContractType, SyncStatus, nft_token_hash};

use super::{not_indexed, resolve};
use crate::follow::Followed;
use crate::index::ChainIndex;
use crate::metadata::{self, MetadataReader};

/// A collection is `SYNCING` without asking the node while the index is
/// further behind it than this; closer, while the node has its logs in
/// blocks not indexed yet.
const SYNC_LOOKAHEAD: u64 = 10_000;

/// Token URIs and documents read at once for one page.
const READS_IN_FLIGHT: usize = 16;

/// One NFT a wallet holds at a block.
struct Holding {
    collection: u16,
    address: Address,
    id: U256,
    amount: u64,
    /// Block the holding last changed.
    since: u32,
    minted: Option<u32>,
}

/// Every NFT `holder` has at `block`, by collection address then id.
fn holdings(index: &ChainIndex, holder: Holder, block: u32) -> Vec<Holding> {
    let ledger = index.ledger();
    let mut holdings: Vec<Holding> = ledger
        .nfts_of(holder)
        .iter()
        .filter_map(|&(collection, id)| {
            let (address, meta) = index.collection(collection)?;
            let (since, amount) = if meta.erc1155 {
                ledger.erc1155_history(holder, collection, id)?.checkpoint_at(block)?
            } else {
                let (since, owner) = ledger.erc721_history(collection, id)?.checkpoint_at(block)?;
                (since, u64::from(owner == holder))
            };
            let minted = ledger.minted_at(collection, id);
            (amount > 0).then_some(Holding { collection, address: *address, id, amount, since, minted })
        })
        .collect();
    holdings.sort_by_key(|h| (h.address, h.id));
    holdings
}

pub(super) fn collection_info(index: &ChainIndex, collection: u16) -> CollectionInfo {
    let (address, meta) = index.collection(collection).expect("a collection index the index gave");
    CollectionInfo {
        address: *address,
        contract_type: if meta.erc1155 { ContractType::Erc1155 } else { ContractType::Erc721 },
        name: meta.name.clone(),
        symbol: meta.symbol.clone(),
        possible_spam: false,
        verified: false,
        logo: None,
        banner: None,
    }
}

/// An NFT page's position: `collection:id`.
fn decode_key(text: &str) -> Option<(Address, U256)> {
    let (address, id) = text.split_once(':')?;
    Some((address.parse().ok()?, id.parse().ok()?))
}

pub(super) async fn wallet_nfts(
    followed: &Followed,
    reader: &MetadataReader,
    query: WalletNftsQuery,
    page: &PageRequest,
) -> Result<WalletNftsPage, SourceError> {
    let (head, total, mut concerns, items) = {
        let index = followed.index.read();
        let head = index.head().ok_or_else(|| not_indexed(followed))?;
        let block = resolve(query.at_block, head)?;
        let owned = match index.ledger().find(query.address) {
            Some(holder) => holdings(&index, holder, u32::try_from(block).unwrap_or(u32::MAX)),
            None => Vec::new(),
        };
        let kept: Vec<Holding> = owned
            .into_iter()
            .filter(|h| query.token_addresses.is_empty() || query.token_addresses.contains(&h.address))
            .collect();
        let concerns: Vec<Address> = kept.iter().map(|h| h.address).collect();
        let total = kept.len() as u64;
        let cut = page.cut(kept, |h| (h.address, h.id), |(a, id)| format!("{a:#x}:{id}"), decode_key)?;
        let items = cut.map(|h| {
            let holding = NftHolding {
                collection: collection_info(&index, h.collection),
                token_id: h.id,
                owner: query.address,
                amount: U256::from(h.amount),
                block_number: u64::from(h.since),
                block_number_minted: u64::from(h.minted.unwrap_or(h.since)),
                token_uri: None,
                metadata: None,
                normalized_metadata: None,
                media: None,
                token_hash: nft_token_hash(h.address, h.id),
                rarity: None,
                last_token_uri_sync: None,
                last_metadata_sync: None,
                prices: query.include_prices.then(Default::default),
            };
            let erc1155 = index.collection(h.collection).is_some_and(|(_, meta)| meta.erc1155);
            (holding, erc1155)
        });
        (head, total, concerns, items)
    };
    let holdings = futures::stream::iter(items.items)
        .map(|(holding, erc1155)| with_metadata(followed, reader, holding, erc1155, head))
        .buffered(READS_IN_FLIGHT)
        .collect()
        .await;
    concerns.extend(&query.token_addresses);
    let status = sync_status(followed, head, concerns).await?;
    Ok(WalletNftsPage {
        status,
        holdings: w3api_source::Page { items: holdings, next: items.next },
        total: Some(total),
    })
}

/// The NFT with its token URI, read from the contract at the indexed head,
/// and the document it points to.
async fn with_metadata(
    followed: &Followed,
    reader: &MetadataReader,
    mut holding: NftHolding,
    erc1155: bool,
    head: u64,
) -> NftHolding {
    let address = holding.collection.address;
    holding.token_uri = followed.node.token_uri(address, holding.token_id, erc1155, head).await;
    holding.last_token_uri_sync = Some(Utc::now());
    if let Some(uri) = &holding.token_uri
        && let Some(document) = reader.document(uri).await
    {
        holding.normalized_metadata = metadata::normalize(&document);
        holding.metadata = Some(document.to_string());
        holding.last_metadata_sync = Some(Utc::now());
    }
    holding
}

pub(super) async fn wallet_collections(
    followed: &Followed,
    query: WalletCollectionsQuery,
    page: &PageRequest,
) -> Result<WalletCollectionsPage, SourceError> {
    let (head, concerns, holdings) = {
        let index = followed.index.read();
        let head = index.head().ok_or_else(|| not_indexed(followed))?;
        let block = resolve(query.at_block, head)?;
        let mut counts: BTreeMap<Address, (u16, u64)> = BTreeMap::new();
        if let Some(holder) = index.ledger().find(query.address) {
            for holding in holdings(&index, holder, u32::try_from(block).unwrap_or(u32::MAX)) {
                counts.entry(holding.address).or_insert((holding.collection, 0)).1 += 1;
            }
        }
        let concerns: Vec<Address> = counts.keys().copied().collect();
        let cut = page.cut(counts, |(address, _)| *address, |a| format!("{a:#x}"), |t| t.parse().ok())?;
        let holdings = cut.map(|(_, (collection, token_count))| CollectionHolding {
            collection: collection_info(&index, collection),
            token_count,
            prices: query.include_prices.then(Default::default),
        });
        (head, concerns, holdings)
    };
    let status = sync_status(followed, head, concerns).await?;
    Ok(WalletCollectionsPage { status, holdings })
}

/// `SYNCED` when the index has reached the newest block in which the node
/// has a log of each collection concerned; `SYNCING` before.
async fn sync_status(followed: &Followed, head: u64, mut concerns: Vec<Address>) -> Result<SyncStatus, SourceError> {
    concerns.sort_unstable();
    concerns.dedup();
    let Some(node_head) = followed.node_head() else { return Ok(SyncStatus::Syncing) };
    if head >= node_head || concerns.is_empty() {
        return Ok(SyncStatus::Synced);
    }
    if node_head - head > SYNC_LOOKAHEAD {
        return Ok(SyncStatus::Syncing);
    }
    let filter = json!([{
        "fromBlock": format!("{:#x}", head + 1),
        "toBlock": format!("{node_head:#x}"),
        "address": concerns,
    }]);
    let later: Vec<serde_json::Value> = followed.node.request("eth_getLogs", filter).await?;
    Ok(if later.is_empty() { SyncStatus::Synced } else { SyncStatus::Syncing })
}
