//! Shutting down: requests in flight finish, new ones are not taken.

use std::time::Duration;

use uuid::Uuid;
use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, spawn};
use w3api_source::{
    BlockRef, DataSource, FeeSuggestion, LogQuery, SourceError, TokenPriceQuery, WalletCollectionsQuery,
    WalletNftsQuery, WalletTokens, WalletTokensQuery,
};
use w3api_tests::local::Setup;
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

#[test]
fn requests_in_flight_finish_after_shutdown_begins() {
    let mut server = Setup::new().scale(Scale::TINY).source(Slow).start();
    let (base, key) = {
        let session = server.session();
        (session.base().to_string(), session.key().to_string())
    };
    let wallet = server.devnet().sample_wallets(1)[0];
    server.devnet().chain(Chain::Eth);
    let http = w3api_tests::http_client();
    let url = format!("{base}/api/v2.2/wallets/{wallet:#x}/tokens");
    let in_flight = server.spawn({
        let http = http.clone();
        async move { http.get(url).header("x-api-key", key).send().await.map(|r| r.status().as_u16()) }
    });
    std::thread::sleep(Duration::from_millis(200));
    server.stop();
    assert_eq!(server.run(in_flight).unwrap().unwrap(), 200, "the request in flight completes");
    let after = server.run(http.get(format!("{base}/health")).send());
    assert!(after.is_err(), "no new connection is accepted");
}

/// The harness stops its servers with `shutdown`; this is the other way.
#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = spawn(listener, Devnet::new(0, Scale::TINY), ServerConfig::new(vec!["k".into()])).unwrap();
    let health = format!("{}/health", server.url());
    let http = w3api_tests::http_client();
    assert_eq!(http.get(&health).send().await.unwrap().status(), 200);
    drop(server);
    // Stopping is asynchronous: the server's task sees the signal on its next turn.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while http.get(&health).send().await.is_ok() {
        assert!(tokio::time::Instant::now() < deadline, "the server still answers 5 s after its handle was dropped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
