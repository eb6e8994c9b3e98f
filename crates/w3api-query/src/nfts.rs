//! A wallet's NFTs and NFT collections, at any block.
//!
//! What the ledger says (which tokens a wallet holds, how many, since when,
//! and the collections they belong to) is read here; what lies behind a
//! token (its URI, its metadata document, media and rarity) is the
//! backend's, which it adds to the page afterwards.

use crate::LedgerReads;
use std::collections::BTreeMap;
use std::str::FromStr;

use alloy_primitives::{Address, U256};
use w3api_ledger::Holder;
use w3api_source::{
    CollectionHolding, CollectionInfo, NftHolding, Page, PageRequest, SourceError, WalletCollectionsQuery,
    WalletNftsQuery,
};
use w3api_types::ContractType;

use crate::ChainView;
use crate::blocks::{ledger_block, resolve};
use crate::view::CollectionFacts;
use crate::view::TokenId;

/// One page of an NFT answer, before its indexing status is known: the
/// status depends on when the collections it `concerns` started indexing
/// (or on what the node has beyond the index), which the backend knows.
#[derive(Clone, Debug, PartialEq)]
pub struct NftListing<T> {
    /// The block the answer is read at.
    pub block: u64,
    /// The page.
    pub page: Page<T>,
    /// Items on all pages.
    pub total: u64,
    /// The collections whose indexing decides the status: those of the
    /// filter and of the whole result, each once, in address order.
    pub concerns: Vec<Address>,
}

/// One NFT a wallet holds at a block (or, for a token listed by itself,
/// all its holders together).
pub(crate) struct Holding<Id> {
    pub collection: u16,
    pub address: Address,
    pub id: Id,
    pub amount: u64,
    /// Block the holding last changed.
    pub since: u32,
}

/// One page of the wallet's NFTs at the query's block, by collection
/// address then token id, with their prices when asked; each with the
/// ledger's facts only, for the backend to describe (its URI, metadata
/// document, media, rarity and syncs).
pub fn wallet_nfts<V: ChainView>(
    view: &V,
    query: &WalletNftsQuery,
    page: &PageRequest,
) -> Result<NftListing<NftHolding>, SourceError> {
    let block = resolve(view, query.at_block)?;
    let kept = holdings(view, query.address, block, |c| passes(c, &query.token_addresses, query.exclude_spam));
    let mut concerns: Vec<Address> =
        kept.iter().map(|h| h.address).chain(query.token_addresses.iter().copied()).collect();
    concerns.sort_unstable();
    concerns.dedup();
    let total = kept.len() as u64;
    let cut = page.cut(kept, |h| (h.address, h.id), |(a, id)| format!("{a:#x}:{id}"), decode_key::<V::Id>)?;
    let prices = query.include_prices.then_some(block);
    let page = cut.map(|h| record(view, &h, Some(query.address), prices));
    Ok(NftListing { block, page, total, concerns })
}

/// One page of the collections the wallet holds tokens of at the query's
/// block, in address order, with how many tokens of each.
pub fn wallet_collections(
    view: &impl ChainView,
    query: &WalletCollectionsQuery,
    page: &PageRequest,
) -> Result<NftListing<CollectionHolding>, SourceError> {
    let block = resolve(view, query.at_block)?;
    let mut counts: BTreeMap<Address, (u16, u64)> = BTreeMap::new();
    for holding in holdings(view, query.address, block, |c| passes(c, &[], query.exclude_spam)) {
        counts.entry(holding.address).or_insert((holding.collection, 0)).1 += 1;
    }
    let concerns: Vec<Address> = counts.keys().copied().collect();
    let total = counts.len() as u64;
    let cut = page.cut(counts, |(address, _)| *address, |a| format!("{a:#x}"), |t| t.parse().ok())?;
    let page = cut.map(|(address, (collection, token_count))| CollectionHolding {
        collection: collection_info(view, collection).expect("a collection the view named"),
        token_count,
        prices: query.include_prices.then(|| view.nft_prices(block, address, None)),
    });
    Ok(NftListing { block, page, total, concerns })
}

/// Every NFT `owner` has at `block` of the collections `keep` keeps, by
/// collection address then id; those of collections the view does not name
/// are left out.
pub(crate) fn holdings<V: ChainView>(
    view: &V,
    owner: Address,
    block: u64,
    keep: impl Fn(&CollectionFacts<'_>) -> bool,
) -> Vec<Holding<V::Id>> {
    let ledger = view.ledger();
    let Some(holder) = ledger.find(owner) else { return Vec::new() };
    let at = ledger_block(block);
    let mut holdings: Vec<Holding<V::Id>> = ledger
        .nfts_of(holder)
        .iter()
        .copied()
        .filter_map(|(collection, id)| {
            let facts = view.collection(collection).filter(|facts| keep(facts))?;
            let (since, amount) = held(view, holder, collection, id, facts.kind == ContractType::Erc1155, at)?;
            (amount > 0).then_some(Holding { collection, address: facts.address, id, amount, since })
        })
        .collect();
    holdings.sort_by_key(|h| (h.address, h.id));
    holdings
}

/// How many of a token `holder` has at `at`, and since which block.
pub(crate) fn held<V: ChainView>(
    view: &V,
    holder: Holder,
    collection: u16,
    id: V::Id,
    erc1155: bool,
    at: u32,
) -> Option<(u32, u64)> {
    let ledger = view.ledger();
    if erc1155 {
        ledger.amount_at(holder, collection, id, at)
    } else {
        let (since, owner) = ledger.owner_at(collection, id, at)?;
        Some((since, u64::from(owner == holder)))
    }
}

/// Whether a collection passes a query's collection filters.
fn passes(collection: &CollectionFacts<'_>, token_addresses: &[Address], exclude_spam: bool) -> bool {
    (token_addresses.is_empty() || token_addresses.contains(&collection.address))
        && !(exclude_spam && collection.possible_spam)
}

/// The record of one NFT as the ledger knows it, held by `owner` (`None`:
/// an ERC1155 token listed with all its holders), priced at `prices`' block
/// when asked.
pub(crate) fn record<V: ChainView>(
    view: &V,
    holding: &Holding<V::Id>,
    owner: Option<Address>,
    prices: Option<u64>,
) -> NftHolding {
    let minted = view.ledger().minted_at(holding.collection, holding.id).unwrap_or(holding.since);
    let token_id = holding.id.to_u256();
    NftHolding {
        collection: collection_info(view, holding.collection).expect("a collection the view named"),
        token_id,
        owner,
        amount: U256::from(holding.amount),
        block_number: u64::from(holding.since),
        block_number_minted: u64::from(minted),
        token_uri: None,
        metadata: None,
        normalized_metadata: None,
        media: None,
        token_hash: w3api_types::nft_token_hash(holding.address, token_id),
        rarity: None,
        last_token_uri_sync: None,
        last_metadata_sync: None,
        prices: prices.map(|block| view.nft_prices(block, holding.address, Some(token_id))),
    }
}

/// A collection as an answer names it.
pub fn collection_info(view: &impl ChainView, collection: u16) -> Option<CollectionInfo> {
    let facts = view.collection(collection)?;
    Some(CollectionInfo {
        address: facts.address,
        contract_type: facts.kind,
        name: facts.name.to_string(),
        symbol: facts.symbol.to_string(),
        possible_spam: facts.possible_spam,
        verified: facts.verified,
        logo: facts.logo.map(str::to_string),
        banner: facts.banner.map(str::to_string),
    })
}

/// An NFT page's position: `collection:id`.
fn decode_key<Id: FromStr>(text: &str) -> Option<(Address, Id)> {
    let (address, id) = text.split_once(':')?;
    Some((address.parse().ok()?, id.parse().ok()?))
}
