//! Devnet figures: generating a chain, and answering each data-source
//! question at a random block for a random wallet on the large chain.
//!
//! `cargo bench -p w3api-devnet` (all), or with a filter:
//! `cargo bench -p w3api-devnet -- generate/default`, `-- query`,
//! `-- 'generate/(tiny|import)'` (the tiny chain against importing
//! `ethereum/execution-apis`' 54-block chain, `--init` and `--import`),
//! `-- step` (one scenario step: a block made on the default chain).
//! The large generation takes ten samples of about forty seconds.

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {
    alloy_consensus as _, alloy_dyn_abi as _, alloy_eips as _, alloy_primitives as _, alloy_rlp as _,
    alloy_rpc_types_eth as _, alloy_signer as _, alloy_signer_local as _, alloy_sol_types as _, alloy_trie as _,
    bs58 as _, chrono as _, ed25519_dalek as _, parking_lot as _, proptest as _, rayon as _, serde as _, tempfile as _,
    tracing as _, uuid as _, w3api_chain as _, w3api_contracts as _, w3api_ledger as _, w3api_query as _,
    w3api_store as _,
};

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use w3api_devnet::{BlockPlan, ChainData, Devnet, Scale};
use w3api_source::{
    BlockRef, ChainControl, PageRequest, TokenPriceQuery, WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery,
};
use w3api_types::{Address, Chain, U256};

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.bench_function("tiny/eth", |b| b.iter(|| black_box(Devnet::new(0, Scale::TINY).chain(Chain::Eth))));
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/execution-apis");
    let genesis: alloy_genesis::Genesis =
        serde_json::from_slice(&std::fs::read(format!("{fixtures}/genesis.json")).unwrap()).unwrap();
    let blocks = std::fs::read(format!("{fixtures}/chain.rlp")).unwrap();
    group.bench_function("import/execution-apis", |b| {
        b.iter(|| {
            let devnet = Devnet::new(0, Scale::TINY).with_chain(genesis.clone(), &blocks).unwrap();
            black_box(devnet.chain(devnet.genesis_chain().unwrap()))
        });
    });
    group.bench_function("default/eth", |b| b.iter(|| black_box(Devnet::new(0, Scale::DEFAULT).chain(Chain::Eth))));
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("large/eth", |b| b.iter(|| black_box(Devnet::new(0, Scale::LARGE).chain(Chain::Eth))));
    group.finish();
}

/// A fixed, varied sequence of (wallet, block) pairs to query.
struct Inputs {
    wallets: Vec<Address>,
    tokens: Vec<Address>,
    latest: u64,
    rng: fastrand::Rng,
}

impl Inputs {
    fn new(devnet: &Devnet, data: &ChainData) -> Inputs {
        let accounts = devnet.accounts();
        let wallets = accounts.wallets().map(|i| accounts.address(i)).collect();
        let tokens = data.world.tokens.iter().map(|t| t.address).collect();
        Inputs { wallets, tokens, latest: data.latest(), rng: fastrand::Rng::with_seed(42) }
    }
    fn wallet(&mut self) -> Address {
        self.wallets[self.rng.usize(..self.wallets.len())]
    }
    fn token(&mut self) -> Address {
        self.tokens[self.rng.usize(..self.tokens.len())]
    }
    fn block(&mut self) -> u64 {
        self.rng.u64(..=self.latest)
    }
}

fn queries(c: &mut Criterion) {
    let devnet = Devnet::new(0, Scale::LARGE);
    let data = devnet.chain(Chain::Eth);
    let mut inputs = Inputs::new(&devnet, &data);
    // One page of the largest size the API serves, as the server asks.
    let page = PageRequest::first(100);
    let mut group = c.benchmark_group("query/large");
    group.bench_function("wallet_tokens", |b| {
        b.iter(|| {
            let query = WalletTokensQuery {
                to_block: Some(inputs.block()),
                ..WalletTokensQuery::new(Chain::Eth, inputs.wallet())
            };
            black_box(data.wallet_tokens(&query, &page).unwrap())
        });
    });
    // The wallet that holds every token: the heaviest wallet-tokens answer.
    let showcase = devnet.sample_wallets(1)[0];
    group.bench_function("wallet_tokens_showcase", |b| {
        b.iter(|| {
            let query =
                WalletTokensQuery { to_block: Some(inputs.block()), ..WalletTokensQuery::new(Chain::Eth, showcase) };
            black_box(data.wallet_tokens(&query, &page).unwrap())
        });
    });
    group.bench_function("wallet_nfts", |b| {
        b.iter(|| {
            let query =
                WalletNftsQuery { at_block: Some(inputs.block()), ..WalletNftsQuery::new(Chain::Eth, inputs.wallet()) };
            black_box(data.wallet_nfts(&query, &page).unwrap())
        });
    });
    group.bench_function("wallet_collections", |b| {
        b.iter(|| {
            let query = WalletCollectionsQuery {
                chain: Chain::Eth,
                address: inputs.wallet(),
                at_block: Some(inputs.block()),
                exclude_spam: false,
                include_prices: false,
            };
            black_box(data.wallet_collections(&query, &page).unwrap())
        });
    });
    group.bench_function("token_price", |b| {
        b.iter(|| {
            let query = TokenPriceQuery {
                chain: Chain::Eth,
                address: inputs.token(),
                exchange: None,
                to_block: Some(inputs.block()),
                include_percent_change: true,
                max_token_inactivity_days: None,
                min_pair_side_liquidity_usd: None,
            };
            black_box(data.token_price(&query).ok())
        });
    });
    group.bench_function("block_hashes", |b| {
        b.iter(|| black_box(data.rpc_block(BlockRef::Number(inputs.block()), false).unwrap()));
    });
    group.bench_function("block_full", |b| {
        b.iter(|| black_box(data.rpc_block(BlockRef::Number(inputs.block()), true).unwrap()));
    });
    group.bench_function("transaction_by_number", |b| {
        b.iter(|| black_box(data.rpc_transaction(BlockRef::Number(inputs.block()), 0)));
    });
    group.bench_function("transaction_by_hash", |b| {
        b.iter(|| {
            let hash = data.blocks[inputs.block() as usize].hash;
            black_box(data.rpc_transaction(BlockRef::Hash(hash), 0))
        });
    });
    group.finish();
}

/// One scenario step on the default chain, each a new block of real
/// signed transactions: an empty block, a token minted to a wallet, a
/// price set through a pair's reserves, a block of live activity, and a
/// snapshot reverted to at once.
fn steps(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let devnet = Devnet::new(0, Scale::DEFAULT);
    devnet.prepare(Chain::Eth);
    let wallet = devnet.sample_wallets(1)[0];
    let token = devnet.chain(Chain::Eth).world.tokens[4].address;
    let mut group = c.benchmark_group("step");
    group.bench_function("mine/empty", |b| b.iter(|| runtime.block_on(devnet.mine(Chain::Eth, 1, None)).unwrap()));
    group.bench_function("mint_token", |b| {
        b.iter(|| runtime.block_on(devnet.mint_token(Chain::Eth, token, wallet, U256::from(1_000u64))).unwrap());
    });
    let mut usd = 1.0;
    group.bench_function("set_price", |b| {
        b.iter(|| {
            usd = if usd > 1.5 { 1.0 } else { usd * 1.01 };
            runtime.block_on(devnet.set_price(Chain::Eth, token, usd)).unwrap()
        });
    });
    group.bench_function("mine/activity", |b| {
        b.iter(|| runtime.block_on(devnet.mine_blocks(Chain::Eth, 1, BlockPlan::activity())).unwrap());
    });
    // Each snapshot is a copy of the chain: reverting to it at once keeps one alive at a time.
    group.bench_function("snapshot+revert", |b| {
        b.iter(|| {
            let id = runtime.block_on(devnet.snapshot(Chain::Eth)).unwrap();
            runtime.block_on(devnet.revert(Chain::Eth, id)).unwrap()
        });
    });
    group.finish();
}

criterion_group!(benches, generation, queries, steps);
criterion_main!(benches);
