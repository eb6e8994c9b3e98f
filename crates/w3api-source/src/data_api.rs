//! What the Data API asks a backend beyond the query core's questions:
//! wallets' token balances, NFTs and collections a page at a time, NFTs
//! described with their metadata, collections' indexing status, token
//! prices and contracts' metadata.

use std::future::Future;

use w3api_types::rpc::TokenPrice;
use w3api_types::{Address, Chain};

use crate::{
    Contract, NftHolding, PageRequest, SourceError, TokenPriceQuery, WalletCollectionsPage, WalletCollectionsQuery,
    WalletNftsPage, WalletNftsQuery, WalletTokensPage, WalletTokensQuery,
};

/// The Data API's questions about wallets, NFTs and tokens.
pub trait DataApi: Send + Sync {
    /// One page of a wallet's token balances, native currency included, at a block.
    fn wallet_tokens(
        &self,
        query: WalletTokensQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletTokensPage, SourceError>> + Send;

    /// One page of the NFTs a wallet owns, with the indexing status of the
    /// collections the answer concerns.
    fn wallet_nfts(
        &self,
        query: WalletNftsQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletNftsPage, SourceError>> + Send;

    /// One page of the NFT collections a wallet holds tokens of.
    fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletCollectionsPage, SourceError>> + Send;

    /// NFTs the query core listed at `block` with the ledger's facts alone,
    /// each described as the source knows it: its URI, metadata document,
    /// media, rarity and sync times.
    fn describe_nfts(
        &self,
        chain: Chain,
        block: u64,
        nfts: Vec<NftHolding>,
    ) -> impl Future<Output = Result<Vec<NftHolding>, SourceError>> + Send;

    /// Whether `collections`, which an NFT answer concerns, are indexed;
    /// asking about a collection starts its indexing where it never
    /// started, as production does.
    fn nft_status(
        &self,
        chain: Chain,
        collections: Vec<Address>,
    ) -> impl Future<Output = Result<w3api_types::SyncStatus, SourceError>> + Send;

    /// The price of a token from its DEX pairs.
    fn token_price(&self, query: TokenPriceQuery) -> impl Future<Output = Result<TokenPrice, SourceError>> + Send;

    /// The tokens and collections among `addresses`, as they are now; an
    /// address that is neither is left out.
    fn contracts(
        &self,
        chain: Chain,
        addresses: Vec<Address>,
    ) -> impl Future<Output = Result<Vec<Contract>, SourceError>> + Send;
}
