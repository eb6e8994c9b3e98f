//! The devnet behind a hook that sees every question a server asks it, to
//! count calls or to answer some of them late.

use std::sync::Arc;
use std::time::Duration;

use w3api_devnet::Devnet;
use w3api_source::{
    BlockRef, ChainControl, Contract, FeeSuggestion, Head, LogQuery, NftHolding, PageRequest, SourceError,
    TokenPriceQuery, WalletCollectionsPage, WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery, WalletTokensPage,
    WalletTokensQuery,
};
use w3api_types::rpc::{Block, FeeHistory, Hash32, Log, Receipt, SyncingStatus, TokenPrice, Transaction};
use w3api_types::{Address, Chain, SyncStatus, U256};

/// Called with the name of each `DataSource` method before the devnet
/// answers it; a returned duration delays the answer by that much.
pub type Hook = Arc<dyn Fn(&'static str) -> Option<Duration> + Send + Sync>;

/// The devnet, with a [`Hook`] on every question.
pub struct Observed {
    devnet: Devnet,
    hook: Hook,
}

impl Observed {
    /// `devnet`, observed by `hook`.
    pub fn new(devnet: Devnet, hook: impl Fn(&'static str) -> Option<Duration> + Send + Sync + 'static) -> Observed {
        Observed { devnet, hook: Arc::new(hook) }
    }

    async fn reach(&self, method: &'static str) -> &Devnet {
        if let Some(delay) = (self.hook)(method) {
            tokio::time::sleep(delay).await;
        }
        &self.devnet
    }
}

/// Tests that observe the devnet read it as generated: chain control keeps
/// its refusals.
impl ChainControl for Observed {}

/// Nor does it execute contract code, send, sign, keep filters or trace;
/// of an account's state it reads the balance and nonce alone (`State`'s
/// code, storage and proofs keep their refusals).
impl w3api_source::Calls for Observed {}
impl w3api_source::Sending for Observed {}
impl w3api_source::Filters for Observed {}
impl w3api_source::Signing for Observed {}
impl w3api_source::Tracing for Observed {}

impl w3api_query::Asks for Observed {
    async fn ask<Q: w3api_query::Question>(&self, chain: Chain, question: Q) -> Result<Q::Answer, SourceError> {
        self.reach("ask").await.ask(chain, question).await
    }
}

impl w3api_source::Blocks for Observed {
    async fn latest_block(&self, chain: Chain) -> Result<u64, SourceError> {
        self.reach("latest_block").await.latest_block(chain).await
    }
    async fn block(&self, chain: Chain, block: BlockRef, full: bool) -> Result<Option<Block>, SourceError> {
        self.reach("block").await.block(chain, block, full).await
    }
    async fn transaction(&self, chain: Chain, block: BlockRef, index: u64) -> Result<Option<Transaction>, SourceError> {
        self.reach("transaction").await.transaction(chain, block, index).await
    }
    fn kind(&self) -> &'static str {
        self.devnet.kind()
    }
    async fn syncing(&self, chain: Chain) -> Result<SyncingStatus, SourceError> {
        self.reach("syncing").await.syncing(chain).await
    }
    async fn block_number(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.reach("block_number").await.block_number(chain, block).await
    }
    async fn block_transaction_count(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.reach("block_transaction_count").await.block_transaction_count(chain, block).await
    }
    async fn transaction_by_hash(&self, chain: Chain, hash: Hash32) -> Result<Option<Transaction>, SourceError> {
        self.reach("transaction_by_hash").await.transaction_by_hash(chain, hash).await
    }
    async fn receipt(&self, chain: Chain, hash: Hash32) -> Result<Option<Receipt>, SourceError> {
        self.reach("receipt").await.receipt(chain, hash).await
    }
    async fn block_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
        self.reach("block_receipts").await.block_receipts(chain, block).await
    }
    async fn logs(&self, query: LogQuery) -> Result<Vec<Log>, SourceError> {
        self.reach("logs").await.logs(query).await
    }
    async fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: Vec<f64>,
    ) -> Result<FeeHistory, SourceError> {
        self.reach("fee_history").await.fee_history(chain, count, newest, percentiles).await
    }
    async fn fee_suggestion(&self, chain: Chain) -> Result<FeeSuggestion, SourceError> {
        self.reach("fee_suggestion").await.fee_suggestion(chain).await
    }
    fn heads(&self) -> Option<tokio::sync::broadcast::Receiver<Head>> {
        self.devnet.heads()
    }
}

impl w3api_source::State for Observed {
    async fn balance(&self, chain: Chain, address: Address, block: BlockRef) -> Result<U256, SourceError> {
        self.reach("balance").await.balance(chain, address, block).await
    }
    async fn transaction_count(&self, chain: Chain, address: Address, block: BlockRef) -> Result<u64, SourceError> {
        self.reach("transaction_count").await.transaction_count(chain, address, block).await
    }
}

impl w3api_source::DataApi for Observed {
    async fn wallet_tokens(
        &self,
        query: WalletTokensQuery,
        page: PageRequest,
    ) -> Result<WalletTokensPage, SourceError> {
        self.reach("wallet_tokens").await.wallet_tokens(query, page).await
    }
    async fn wallet_nfts(&self, query: WalletNftsQuery, page: PageRequest) -> Result<WalletNftsPage, SourceError> {
        self.reach("wallet_nfts").await.wallet_nfts(query, page).await
    }
    async fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
        page: PageRequest,
    ) -> Result<WalletCollectionsPage, SourceError> {
        self.reach("wallet_collections").await.wallet_collections(query, page).await
    }
    async fn describe_nfts(
        &self,
        chain: Chain,
        block: u64,
        nfts: Vec<NftHolding>,
    ) -> Result<Vec<NftHolding>, SourceError> {
        self.reach("describe_nfts").await.describe_nfts(chain, block, nfts).await
    }
    async fn nft_status(&self, chain: Chain, collections: Vec<Address>) -> Result<SyncStatus, SourceError> {
        self.reach("nft_status").await.nft_status(chain, collections).await
    }
    async fn token_price(&self, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        self.reach("token_price").await.token_price(query).await
    }
    async fn contracts(&self, chain: Chain, addresses: Vec<Address>) -> Result<Vec<Contract>, SourceError> {
        self.reach("contracts").await.contracts(chain, addresses).await
    }
}
