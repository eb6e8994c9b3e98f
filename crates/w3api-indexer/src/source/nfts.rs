//! NFTs and NFT collections of a wallet from the index, with token URIs
//! read from the contracts and metadata documents where they may be read.

use alloy_primitives::Address;
use chrono::DateTime;
use futures::StreamExt;
use serde_json::json;
use w3api_query::ChainView;
use w3api_query::nfts::NftListing;
use w3api_source::{
    NftHolding, PageRequest, SourceError, WalletCollectionsPage, WalletCollectionsQuery, WalletNftsPage,
    WalletNftsQuery,
};
use w3api_types::{ContractType, SyncStatus};

use std::sync::Arc;

use w3api_types::U256;

use super::Reading;
use crate::follow::Followed;
use crate::metadata::{self, MetadataReader};

/// A collection is `SYNCING` without asking the node while the index is
/// further behind it than this; closer, while the node has its logs in
/// blocks not indexed yet.
const SYNC_LOOKAHEAD: u64 = 10_000;

/// Token URIs and documents read at once for one page.
const READS_IN_FLIGHT: usize = 16;

pub(super) async fn wallet_nfts(
    followed: &Arc<Followed>,
    reader: &MetadataReader,
    query: WalletNftsQuery,
    page: &PageRequest,
) -> Result<WalletNftsPage, SourceError> {
    let (head, listing) = followed.read(Nfts(query, page.clone())).await?;
    let NftListing { page: cut, total, concerns, .. } = listing;
    let holdings = describe(followed, reader, cut.items, head).await;
    let status = sync_status(followed, head, concerns).await?;
    Ok(WalletNftsPage { status, holdings: w3api_source::Page { items: holdings, next: cut.next }, total: Some(total) })
}

/// NFTs with their token URIs, read from their contracts at `block`, and
/// the documents they point to, a few at a time.
pub(super) async fn describe(
    followed: &Followed,
    reader: &MetadataReader,
    nfts: Vec<NftHolding>,
    block: u64,
) -> Vec<NftHolding> {
    futures::stream::iter(nfts)
        .map(|nft| {
            let erc1155 = nft.collection.contract_type == ContractType::Erc1155;
            with_metadata(followed, reader, nft, erc1155, block)
        })
        .buffered(READS_IN_FLIGHT)
        .collect()
        .await
}

/// The NFT with its token URI, read from the contract at `head`, and the
/// document it points to. The URI is as recent as the block it was read
/// at, so its sync time is that block's: the same in every answer at that
/// block. A fetched document's is when it was fetched.
async fn with_metadata(
    followed: &Followed,
    reader: &MetadataReader,
    mut holding: NftHolding,
    erc1155: bool,
    head: u64,
) -> NftHolding {
    let address = holding.collection.address;
    holding.token_uri = followed.node.token_uri(address, holding.token_id, erc1155, head).await;
    let timestamp = followed.indexed_header(head).await.ok().flatten().map(|(_, timestamp)| timestamp);
    let read_at = timestamp.and_then(|t| DateTime::from_timestamp(i64::try_from(t).ok()?, 0));
    holding.last_token_uri_sync = read_at;
    if let Some(uri) = &holding.token_uri
        && let Some(document) = reader.document(uri).await
    {
        holding.normalized_metadata = metadata::normalize(&document.text);
        holding.metadata = Some(document.text.to_string());
        holding.last_metadata_sync = document.fetched.or(read_at);
    }
    holding
}

pub(super) async fn wallet_collections(
    followed: &Arc<Followed>,
    query: WalletCollectionsQuery,
    page: &PageRequest,
) -> Result<WalletCollectionsPage, SourceError> {
    let (head, listing) = followed.read(Collections(query, page.clone())).await?;
    let status = sync_status(followed, head, listing.concerns).await?;
    Ok(WalletCollectionsPage { status, holdings: listing.page })
}

/// A page of a wallet's NFTs, with the head it was read at.
struct Nfts(WalletNftsQuery, PageRequest);

impl Reading for Nfts {
    type Out = (u64, NftListing<NftHolding>);

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Self::Out, SourceError> {
        Ok((view.head()?, w3api_query::nfts::wallet_nfts(view, &self.0, &self.1)?))
    }
}

/// A page of a wallet's collections, with the head it was read at.
struct Collections(WalletCollectionsQuery, PageRequest);

impl Reading for Collections {
    type Out = (u64, NftListing<w3api_source::CollectionHolding>);

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Self::Out, SourceError> {
        Ok((view.head()?, w3api_query::nfts::wallet_collections(view, &self.0, &self.1)?))
    }
}

/// `SYNCED` when the index has reached the newest block in which the node
/// has a log of each collection concerned; `SYNCING` before.
pub(super) async fn sync_status(
    followed: &Followed,
    head: u64,
    mut concerns: Vec<Address>,
) -> Result<SyncStatus, SourceError> {
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
