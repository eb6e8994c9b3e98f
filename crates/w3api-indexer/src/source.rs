//! The interface answered for real nodes: wallet answers and prices from
//! each chain's index, the standard JSON-RPC methods from the node itself.
//!
//! An answer from the index holds its read lock from start to end, so it
//! is read from one branch; what it asks the node for besides (a native
//! balance) names the indexed block by hash, which a node that has left
//! that branch refuses rather than answering from another.

mod execution;
mod forward;
mod nfts;
pub(crate) mod view;
mod wallet_tokens;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use w3api_query::ChainView;
use w3api_source::{
    BlockRef, ChainControl, Contract, FeeSuggestion, Head, LogQuery, NftHolding, PageRequest, SourceError,
    TokenPriceQuery, WalletCollectionsPage, WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery, WalletTokensPage,
    WalletTokensQuery,
};
use w3api_types::rpc::{
    Block, Bytes, FeeHistory, Hash32, Log, Receipt, SyncProgress, SyncingStatus, TokenPrice, Transaction,
};
use w3api_types::{Address, Chain, SyncStatus, U256};

use crate::follow::{FollowConfig, Followed};
use crate::journal::Journal;
use crate::metadata::{self, MetadataReader};
use crate::node::{Node, NodeError};

/// One chain to serve from a node.
#[derive(Clone, Debug)]
pub struct Upstream {
    /// The chain it is served as.
    pub chain: Chain,
    /// The node's JSON-RPC URL.
    pub url: String,
    /// How it is followed.
    pub follow: FollowConfig,
}

/// Chains served from their nodes' indexes.
#[derive(Clone, Debug)]
pub struct NodeSource {
    chains: Arc<HashMap<Chain, Arc<Followed>>>,
    heads: broadcast::Sender<Head>,
    metadata: Arc<MetadataReader>,
}

/// How long a call to a node may take.
const NODE_TIMEOUT: Duration = Duration::from_secs(30);

impl NodeSource {
    /// Starts following every upstream (on the current tokio runtime);
    /// NFT metadata documents are read from `data:` URIs, and over http(s)
    /// from `metadata_hosts` only. With a `journal`, each index is kept in
    /// its store and shared with the replicas that use the same one.
    pub fn start(
        upstreams: Vec<Upstream>,
        metadata_hosts: Vec<String>,
        journal: Option<Journal>,
    ) -> Result<NodeSource, NodeError> {
        let (heads, _) = broadcast::channel(1024);
        let mut chains = HashMap::new();
        for upstream in upstreams {
            let node = Node::connect(&upstream.url, NODE_TIMEOUT)?
                .wanting_batches_of(upstream.follow.limits.calls_per_batch());
            let followed = Followed::new(upstream.chain, node, upstream.follow, heads.clone(), journal.clone());
            let followed = Arc::new(followed.placed()?);
            tokio::spawn(Arc::clone(&followed).follow());
            chains.insert(upstream.chain, followed);
        }
        let metadata = Arc::new(MetadataReader::new(metadata_hosts, NODE_TIMEOUT, metadata::CACHE_BYTES));
        Ok(NodeSource { chains: Arc::new(chains), heads, metadata })
    }

    fn chain(&self, chain: Chain) -> Result<&Arc<Followed>, SourceError> {
        self.chains.get(&chain).ok_or(SourceError::ChainNotServed(chain))
    }
}

/// Why a chain cannot answer yet: its index holds no block.
pub(crate) fn not_indexed(followed: &Followed) -> SourceError {
    SourceError::Unavailable(format!("chain {}: no block of {} is indexed yet", followed.chain, followed.node.name()))
}

/// The newest indexed block of a chain.
async fn indexed_head(followed: &Followed) -> Result<u64, SourceError> {
    followed.indexed_head().await?.ok_or_else(|| not_indexed(followed))
}

/// What an answer reads of a chain's index, whichever way it is kept:
/// run over the in-memory index, or over a snapshot of its tables.
pub(crate) trait Reading: Send + 'static {
    /// What is read.
    type Out: Send + 'static;

    /// It, read from `view`.
    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Self::Out, SourceError>;
}

impl<Q: w3api_query::Question> Reading for Q {
    type Out = Q::Answer;

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Q::Answer, SourceError> {
        self.answer(view)
    }
}

/// A node's failure, as the source reports it.
impl From<NodeError> for SourceError {
    fn from(error: NodeError) -> Self {
        SourceError::Unavailable(error.to_string())
    }
}

impl ChainControl for NodeSource {}

/// The query core's questions, over the chain's index.
impl w3api_query::Asks for NodeSource {
    async fn ask<Q: w3api_query::Question>(&self, chain: Chain, question: Q) -> Result<Q::Answer, SourceError> {
        self.chain(chain)?.read(question).await
    }
}

impl w3api_source::Blocks for NodeSource {
    async fn latest_block(&self, chain: Chain) -> Result<u64, SourceError> {
        indexed_head(self.chain(chain)?).await
    }

    fn revision(&self, chain: Chain) -> u64 {
        self.chains.get(&chain).map_or(0, |followed| followed.revision())
    }

    async fn block(&self, chain: Chain, block: BlockRef, full: bool) -> Result<Option<Block>, SourceError> {
        forward::block(self.chain(chain)?, block, full).await
    }

    async fn transaction(&self, chain: Chain, block: BlockRef, index: u64) -> Result<Option<Transaction>, SourceError> {
        forward::transaction(self.chain(chain)?, block, index).await
    }

    fn kind(&self) -> &'static str {
        "node"
    }

    fn chain_id(&self, chain: Chain) -> Option<u64> {
        self.chains.get(&chain)?.chain_id()
    }

    /// Syncing while the index is behind the node.
    async fn syncing(&self, chain: Chain) -> Result<SyncingStatus, SourceError> {
        let followed = self.chain(chain)?;
        let (first, indexed) = (followed.first_block(), followed.indexed_head().await?);
        let node_head = followed.node_head();
        Ok(match (indexed, node_head) {
            (Some(indexed), Some(node)) if indexed >= node => SyncingStatus::NotSyncing,
            (indexed, node) => SyncingStatus::Syncing(SyncProgress {
                starting_block: first,
                current_block: indexed.unwrap_or(first),
                highest_block: node.unwrap_or(first),
            }),
        })
    }

    async fn block_number(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        forward::block_number(self.chain(chain)?, block).await
    }

    async fn block_transaction_count(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        forward::block_transaction_count(self.chain(chain)?, block).await
    }

    async fn transaction_by_hash(&self, chain: Chain, hash: Hash32) -> Result<Option<Transaction>, SourceError> {
        let followed = self.chain(chain)?;
        let found: Option<Transaction> = forward::by_hash(followed, "eth_getTransactionByHash", hash).await?;
        // A pending transaction (no block yet) is the node's to show.
        Ok(forward::in_view(followed, found, |t| t.block_number.zip(t.block_hash)).await)
    }

    async fn receipt(&self, chain: Chain, hash: Hash32) -> Result<Option<Receipt>, SourceError> {
        let followed = self.chain(chain)?;
        let found: Option<Receipt> = forward::by_hash(followed, "eth_getTransactionReceipt", hash).await?;
        Ok(forward::in_view(followed, found, |r| Some((r.block_number, r.block_hash))).await)
    }

    async fn capabilities(&self, chain: Chain) -> Result<w3api_types::rpc::EthCapabilities, SourceError> {
        forward::request(self.chain(chain)?, "eth_capabilities", serde_json::json!([])).await
    }

    async fn chain_config(&self, chain: Chain) -> Result<w3api_types::rpc::EthConfig, SourceError> {
        forward::request(self.chain(chain)?, "eth_config", serde_json::json!([])).await
    }

    async fn raw(&self, chain: Chain, raw: w3api_source::Raw) -> Result<Option<Bytes>, SourceError> {
        forward::raw(self.chain(chain)?, raw).await
    }

    async fn raw_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Bytes>>, SourceError> {
        forward::raw_receipts(self.chain(chain)?, block).await
    }

    async fn transactions_with_receipts(
        &self,
        chain: Chain,
        hashes: Vec<Hash32>,
    ) -> Result<Vec<Option<(Transaction, Receipt)>>, SourceError> {
        let followed = self.chain(chain)?;
        let found = followed.node.transactions_with_receipts(&hashes).await.map_err(forward::passed_on)?;
        let mut read = Vec::with_capacity(found.len());
        for pair in found {
            let mined = pair.0.zip(pair.1);
            read.push(forward::in_view(followed, mined, |(_, r)| Some((r.block_number, r.block_hash))).await);
        }
        Ok(read)
    }

    async fn block_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
        forward::block_receipts(self.chain(chain)?, block).await
    }

    async fn logs(&self, query: LogQuery) -> Result<Vec<Log>, SourceError> {
        forward::logs(self.chain(query.chain)?, &query).await
    }

    async fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: Vec<f64>,
    ) -> Result<FeeHistory, SourceError> {
        forward::fee_history(self.chain(chain)?, count, newest, &percentiles).await
    }

    async fn fee_suggestion(&self, chain: Chain) -> Result<FeeSuggestion, SourceError> {
        forward::fee_suggestion(self.chain(chain)?).await
    }

    fn heads(&self) -> Option<broadcast::Receiver<Head>> {
        Some(self.heads.subscribe())
    }
}

impl w3api_source::DataApi for NodeSource {
    async fn wallet_tokens(
        &self,
        query: WalletTokensQuery,
        page: PageRequest,
    ) -> Result<WalletTokensPage, SourceError> {
        wallet_tokens::answer(self.chain(query.chain)?, query, &page).await
    }

    async fn wallet_nfts(&self, query: WalletNftsQuery, page: PageRequest) -> Result<WalletNftsPage, SourceError> {
        nfts::wallet_nfts(self.chain(query.chain)?, &self.metadata, query, &page).await
    }

    async fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
        page: PageRequest,
    ) -> Result<WalletCollectionsPage, SourceError> {
        nfts::wallet_collections(self.chain(query.chain)?, query, &page).await
    }

    async fn describe_nfts(
        &self,
        chain: Chain,
        block: u64,
        nfts: Vec<NftHolding>,
    ) -> Result<Vec<NftHolding>, SourceError> {
        Ok(nfts::describe(self.chain(chain)?, &self.metadata, nfts, block).await)
    }

    async fn nft_status(&self, chain: Chain, collections: Vec<Address>) -> Result<SyncStatus, SourceError> {
        let followed = self.chain(chain)?;
        nfts::sync_status(followed, indexed_head(followed).await?, collections).await
    }

    async fn token_price(&self, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        wallet_tokens::token_price(self.chain(query.chain)?, query).await
    }

    async fn contracts(&self, chain: Chain, addresses: Vec<Address>) -> Result<Vec<Contract>, SourceError> {
        self.chain(chain)?.read(KnownContracts(addresses)).await
    }
}

/// The tokens and collections among some addresses, as they are now.
struct KnownContracts(Vec<Address>);

impl Reading for KnownContracts {
    type Out = Vec<Contract>;

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Vec<Contract>, SourceError> {
        let head = view.head().unwrap_or(0);
        Ok(self
            .0
            .iter()
            .filter_map(|address| match view.asset_at(*address) {
                Some(asset) => w3api_query::wallet_tokens::token_info(view, asset, head).map(Contract::Token),
                None => {
                    w3api_query::nfts::collection_info(view, view.collection_at(*address)?).map(Contract::Collection)
                }
            })
            .collect())
    }
}
