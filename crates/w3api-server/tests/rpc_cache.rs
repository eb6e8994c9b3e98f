//! The cache of unchanging JSON-RPC answers, seen from the data source: a
//! call it can answer, alone or inside a batch, reaches the source once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use uuid::Uuid;
use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, router, serve};
use w3api_source::{
    BlockRef, DataSource, FeeSuggestion, LogQuery, SourceError, TokenPriceQuery, WalletCollectionsQuery,
    WalletNftsQuery, WalletTokens, WalletTokensQuery,
};
use w3api_types::rpc::{Block, FeeHistory, Hash32, Log, Receipt, SyncingStatus, TokenPrice, Transaction};
use w3api_types::{Address, Chain, EvmStream, Nft, NftCollection, U256};

/// The devnet, counting the questions it is asked.
struct Counting {
    devnet: Devnet,
    calls: Arc<AtomicUsize>,
}

impl Counting {
    fn devnet(&self) -> &Devnet {
        self.calls.fetch_add(1, Ordering::SeqCst);
        &self.devnet
    }
}

impl DataSource for Counting {
    async fn latest_block(&self, chain: Chain) -> Result<u64, SourceError> {
        self.devnet().latest_block(chain).await
    }
    async fn wallet_tokens(&self, query: WalletTokensQuery) -> Result<WalletTokens, SourceError> {
        self.devnet().wallet_tokens(query).await
    }
    async fn wallet_nfts(&self, query: WalletNftsQuery) -> Result<Vec<Nft>, SourceError> {
        self.devnet().wallet_nfts(query).await
    }
    async fn wallet_collections(&self, query: WalletCollectionsQuery) -> Result<Vec<NftCollection>, SourceError> {
        self.devnet().wallet_collections(query).await
    }
    async fn token_price(&self, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        self.devnet().token_price(query).await
    }
    async fn block(&self, chain: Chain, block: BlockRef, full: bool) -> Result<Option<Block>, SourceError> {
        self.devnet().block(chain, block, full).await
    }
    async fn transaction(&self, chain: Chain, block: BlockRef, index: u64) -> Result<Option<Transaction>, SourceError> {
        self.devnet().transaction(chain, block, index).await
    }
    fn kind(&self) -> &'static str {
        "counting devnet"
    }
    async fn syncing(&self, chain: Chain) -> Result<SyncingStatus, SourceError> {
        self.devnet().syncing(chain).await
    }
    async fn block_number(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.devnet().block_number(chain, block).await
    }
    async fn block_transaction_count(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        self.devnet().block_transaction_count(chain, block).await
    }
    async fn transaction_by_hash(&self, chain: Chain, hash: Hash32) -> Result<Option<Transaction>, SourceError> {
        self.devnet().transaction_by_hash(chain, hash).await
    }
    async fn receipt(&self, chain: Chain, hash: Hash32) -> Result<Option<Receipt>, SourceError> {
        self.devnet().receipt(chain, hash).await
    }
    async fn block_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
        self.devnet().block_receipts(chain, block).await
    }
    async fn logs(&self, query: LogQuery) -> Result<Vec<Log>, SourceError> {
        self.devnet().logs(query).await
    }
    async fn balance(&self, chain: Chain, address: Address, block: BlockRef) -> Result<U256, SourceError> {
        self.devnet().balance(chain, address, block).await
    }
    async fn transaction_count(&self, chain: Chain, address: Address, block: BlockRef) -> Result<u64, SourceError> {
        self.devnet().transaction_count(chain, address, block).await
    }
    async fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: &[f64],
    ) -> Result<FeeHistory, SourceError> {
        self.devnet().fee_history(chain, count, newest, percentiles).await
    }
    async fn fee_suggestion(&self, chain: Chain) -> Result<FeeSuggestion, SourceError> {
        self.devnet().fee_suggestion(chain).await
    }
    async fn stream(&self, id: Uuid) -> Result<Option<EvmStream>, SourceError> {
        self.devnet().stream(id).await
    }
    async fn streams(&self) -> Result<Vec<EvmStream>, SourceError> {
        DataSource::streams(self.devnet()).await
    }
}

/// Posts a JSON-RPC body to the eth gateway; the parsed answer.
async fn post(http: &reqwest::Client, url: &str, body: &Value) -> Value {
    let response = http.post(url).json(body).send().await.expect("the server answers");
    assert_eq!(response.status(), 200);
    response.json().await.expect("a JSON answer")
}

#[tokio::test]
async fn calls_inside_a_batch_are_answered_from_the_cache_the_second_time() {
    let calls = Arc::new(AtomicUsize::new(0));
    let source = Counting { devnet: Devnet::new(0, Scale::TINY), calls: calls.clone() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/eth/k", listener.local_addr().unwrap());
    tokio::spawn(serve(listener, router(source, ServerConfig::new(vec!["k".into()])), std::future::pending()));
    let http = w3api_tests::http_client();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["0x1", false]},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_getBlockByNumber", "params": ["0x2", true]},
        {"jsonrpc": "2.0", "id": 3, "method": "eth_getTransactionByBlockNumberAndIndex", "params": ["0x1", "0x0"]},
        {"jsonrpc": "2.0", "id": 4, "method": "eth_getBlockByNumber", "params": ["latest", false]},
    ]);

    let first = post(&http, &url, &batch).await;
    let asked_first = calls.swap(0, Ordering::SeqCst);
    let results = first.as_array().unwrap();
    assert_eq!(results.len(), 4, "{first}");
    assert!(results.iter().all(|r| r["result"].is_object()), "every call has an answer: {first}");
    assert!(asked_first >= 4, "each call reaches the source the first time ({asked_first} questions)");

    let second = post(&http, &url, &batch).await;
    assert_eq!(second, first, "the same answers, each under its own id");
    assert_eq!(calls.swap(0, Ordering::SeqCst), 1, "only the call by tag reaches the source again");

    // What a batch kept answers a single call too, under that call's id.
    let single = json!({"jsonrpc": "2.0", "id": "again", "method": "eth_getBlockByNumber", "params": ["0x2", true]});
    let answer = post(&http, &url, &single).await;
    assert_eq!(answer["id"], "again");
    assert_eq!(answer["result"], results[1]["result"]);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a kept answer does not reach the source");
}
