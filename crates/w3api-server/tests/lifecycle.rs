//! Shutting down: requests in flight finish, new ones are not taken.

use std::time::Duration;

use uuid::Uuid;
use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, router, serve};
use w3api_source::{
    BlockRef, DataSource, FeeSuggestion, LogQuery, SourceError, TokenPriceQuery, WalletCollectionsQuery,
    WalletNftsQuery, WalletTokens, WalletTokensQuery,
};
use w3api_types::rpc::{Block, FeeHistory, Hash32, Log, Receipt, SyncingStatus, TokenPrice, Transaction};
use w3api_types::{Address, Chain, EvmStream, Nft, NftCollection, U256};

/// The devnet, answering wallet tokens after a pause.
struct Slow(Devnet);

impl DataSource for Slow {
    async fn latest_block(&self, chain: Chain) -> Result<u64, SourceError> {
        self.0.latest_block(chain).await
    }
    async fn wallet_tokens(&self, query: WalletTokensQuery) -> Result<WalletTokens, SourceError> {
        tokio::time::sleep(Duration::from_millis(600)).await;
        self.0.wallet_tokens(query).await
    }
    async fn wallet_nfts(&self, query: WalletNftsQuery) -> Result<Vec<Nft>, SourceError> {
        self.0.wallet_nfts(query).await
    }
    async fn wallet_collections(&self, query: WalletCollectionsQuery) -> Result<Vec<NftCollection>, SourceError> {
        self.0.wallet_collections(query).await
    }
    async fn token_price(&self, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        self.0.token_price(query).await
    }
    async fn block(&self, chain: Chain, block: BlockRef, full: bool) -> Result<Option<Block>, SourceError> {
        self.0.block(chain, block, full).await
    }
    async fn transaction(&self, chain: Chain, block: BlockRef, index: u64) -> Result<Option<Transaction>, SourceError> {
        self.0.transaction(chain, block, index).await
    }
    fn kind(&self) -> &'static str {
        "slow devnet"
    }
    async fn syncing(&self, chain: Chain) -> Result<SyncingStatus, SourceError> {
        self.0.syncing(chain).await
    }
    async fn block_number(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.0.block_number(chain, block).await
    }
    async fn block_transaction_count(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.0.block_transaction_count(chain, block).await
    }
    async fn transaction_by_hash(&self, chain: Chain, hash: Hash32) -> Result<Option<Transaction>, SourceError> {
        self.0.transaction_by_hash(chain, hash).await
    }
    async fn receipt(&self, chain: Chain, hash: Hash32) -> Result<Option<Receipt>, SourceError> {
        self.0.receipt(chain, hash).await
    }
    async fn block_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
        self.0.block_receipts(chain, block).await
    }
    async fn logs(&self, query: LogQuery) -> Result<Vec<Log>, SourceError> {
        self.0.logs(query).await
    }
    async fn balance(&self, chain: Chain, address: Address, block: BlockRef) -> Result<U256, SourceError> {
        self.0.balance(chain, address, block).await
    }
    async fn transaction_count(&self, chain: Chain, address: Address, block: BlockRef) -> Result<u64, SourceError> {
        self.0.transaction_count(chain, address, block).await
    }
    async fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: &[f64],
    ) -> Result<FeeHistory, SourceError> {
        self.0.fee_history(chain, count, newest, percentiles).await
    }
    async fn fee_suggestion(&self, chain: Chain) -> Result<FeeSuggestion, SourceError> {
        self.0.fee_suggestion(chain).await
    }
    async fn stream(&self, id: Uuid) -> Result<Option<EvmStream>, SourceError> {
        self.0.stream(id).await
    }
    async fn streams(&self) -> Result<Vec<EvmStream>, SourceError> {
        DataSource::streams(&self.0).await
    }
}

#[tokio::test]
async fn requests_in_flight_finish_after_shutdown_begins() {
    let devnet = Devnet::new(0, Scale::TINY);
    let wallet = devnet.sample_wallets(1)[0];
    devnet.chain(Chain::Eth);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, router(Slow(devnet), ServerConfig::new(vec!["k".into()])), async {
        let _ = stopped.await;
    }));
    let http = w3api_tests::http_client();
    let url = format!("{base}/api/v2.2/wallets/{wallet:#x}/tokens");
    let in_flight = tokio::spawn({
        let http = http.clone();
        async move { http.get(url).header("x-api-key", "k").send().await.map(|r| r.status().as_u16()) }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).unwrap();
    assert_eq!(in_flight.await.unwrap().unwrap(), 200, "the request in flight completes");
    tokio::time::timeout(Duration::from_secs(5), server).await.expect("the server stops").unwrap().unwrap();
    let after = http.get(format!("{base}/health")).send().await;
    assert!(after.is_err(), "no new connection is accepted");
}
