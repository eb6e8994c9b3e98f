//! What users do to a chain is kept in the store and replayed: a devnet
//! started again on the same store serves the same chain, on every store;
//! a store written by another devnet is refused.

use std::sync::Arc;

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use w3api_contracts::Token;
use w3api_devnet::{Devnet, Scale, dev_addresses};
use w3api_source::prelude::*;
use w3api_source::{BlockRef, ChainControl, NewToken, PageRequest, WalletTokensQuery};
use w3api_store::{Location, Store};
use w3api_types::Chain;
use w3api_types::rpc::{Block, Hash32, TransactionRequest};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A chain of the table no other test on a shared database writes: the
/// journal of a chain is per database, and each run of this suite on a
/// PostgreSQL database starts by forgetting its own.
const CHAIN: Chain = Chain::Sepolia;

fn devnet(seed: u64, store: &Arc<dyn Store>) -> Devnet {
    Devnet::new(seed, Scale::TINY).with_store(store.clone())
}

/// Everything a restart must give back, read through the data source.
#[derive(Debug, PartialEq)]
struct Seen {
    head: Option<Block>,
    blocks: Vec<Option<Block>>,
    code: Vec<u8>,
    slot: Hash32,
    balances: Vec<U256>,
    nonces: Vec<u64>,
    token_balance: Vec<u8>,
    wallet_tokens: String,
}

async fn seen(devnet: &Devnet, token: Address, deployer: Address) -> Seen {
    let latest = devnet.latest_block(CHAIN).await.unwrap();
    let mut blocks = Vec::new();
    for number in latest.saturating_sub(12)..=latest {
        blocks.push(devnet.block(CHAIN, BlockRef::Number(number), true).await.unwrap());
    }
    let watched = [deployer, Address::repeat_byte(0x44), Address::repeat_byte(0x55)];
    let mut balances = Vec::new();
    let mut nonces = Vec::new();
    for who in watched {
        balances.push(devnet.balance(CHAIN, who, BlockRef::Latest).await.unwrap());
        nonces.push(devnet.transaction_count(CHAIN, who, BlockRef::Latest).await.unwrap());
    }
    let read = TransactionRequest {
        to: Some(token),
        input: Some(Token::balanceOfCall::new((deployer,)).abi_encode().into()),
        ..TransactionRequest::default()
    };
    let tokens = devnet.wallet_tokens(WalletTokensQuery::new(CHAIN, deployer), PageRequest::first(100)).await.unwrap();
    Seen {
        head: devnet.block(CHAIN, BlockRef::Latest, false).await.unwrap(),
        blocks,
        code: devnet.code(CHAIN, token, BlockRef::Latest).await.unwrap().to_vec(),
        slot: devnet.storage_at(CHAIN, Address::repeat_byte(0x55), U256::from(7), BlockRef::Latest).await.unwrap(),
        balances,
        nonces,
        token_balance: devnet.call(CHAIN, read, BlockRef::Latest, None).await.unwrap().to_vec(),
        wallet_tokens: format!("{tokens:?}"),
    }
}

/// Deploys an ERC20 from a dev account, mints, sends, cheats, snapshots
/// and reverts; returns the token and the deployer.
async fn shape(devnet: &Devnet) -> (Address, Address) {
    let deployer = dev_addresses().next().unwrap();
    let constructor = Token::constructorCall {
        name_: "Kept".into(),
        symbol_: "KEPT".into(),
        decimals_: 18,
        owner_: deployer,
        initialSupply: U256::from(10).pow(U256::from(24)),
    };
    let deploy = TransactionRequest {
        from: Some(deployer),
        input: Some([Token::BYTECODE.as_ref(), &constructor.abi_encode()].concat().into()),
        ..TransactionRequest::default()
    };
    devnet.send_transaction(CHAIN, deploy).await.unwrap();
    let token = deployer.create(0);
    let send = TransactionRequest {
        from: Some(deployer),
        to: Some(token),
        input: Some(Token::transferCall::new((Address::repeat_byte(0x44), U256::from(5))).abi_encode().into()),
        ..TransactionRequest::default()
    };
    devnet.send_transaction(CHAIN, send.clone()).await.unwrap();
    // Undone by the revert, and forgotten with it.
    let snapshot = devnet.snapshot(CHAIN).await.unwrap();
    devnet.send_transaction(CHAIN, send.clone()).await.unwrap();
    devnet.mine(CHAIN, 3, Some(60)).await.unwrap();
    assert!(devnet.revert(CHAIN, snapshot).await.unwrap());
    // Kept.
    devnet.set_balance(CHAIN, Address::repeat_byte(0x44), U256::from(77)).await.unwrap();
    devnet.set_storage_at(CHAIN, Address::repeat_byte(0x55), U256::from(7), Hash32::repeat_byte(9)).await.unwrap();
    devnet.increase_time(CHAIN, 3_600).await.unwrap();
    devnet.mine(CHAIN, 2, None).await.unwrap();
    let listed = NewToken {
        name: "Listed".into(),
        symbol: "LST".into(),
        decimals: 6,
        logo: None,
        spam: false,
        verified: true,
        usd_price: Some(2.5),
        liquidity_usd: None,
        supply: None,
    };
    let listed = devnet.create_token(CHAIN, listed).await.unwrap();
    devnet.mint_token(CHAIN, listed, deployer, U256::from(1_000_000)).await.unwrap();
    // Taken and kept: the next snapshot after a restart has a later id.
    devnet.snapshot(CHAIN).await.unwrap();
    // Waiting for the next block, with automine off.
    devnet.set_automine(CHAIN, false).await.unwrap();
    devnet.send_transaction(CHAIN, send).await.unwrap();
    devnet.impersonate(CHAIN, Address::repeat_byte(0x55), true).await.unwrap();
    (token, deployer)
}

async fn restarts_give_the_same_chain(store: Arc<dyn Store>, name: &str) {
    store.forget_chain(CHAIN).await.unwrap();
    let first = devnet(3, &store);
    let (token, deployer) = shape(&first).await;
    let before = seen(&first, token, deployer).await;
    let next_snapshot = first.snapshot(CHAIN).await.unwrap();
    assert!(first.revert(CHAIN, next_snapshot).await.unwrap());
    drop(first);

    let again = devnet(3, &store);
    assert_eq!(seen(&again, token, deployer).await, before, "{name}: the same chain after a restart");
    assert!(!before.code.is_empty(), "{name}: the token has code");
    assert!(again.snapshot(CHAIN).await.unwrap() > next_snapshot, "{name}: snapshot ids are never given twice");
    // What waited for a block, and the impersonation, came back too.
    assert!(!again.automine(CHAIN).await.unwrap(), "{name}");
    let latest = again.mine(CHAIN, 1, None).await.unwrap();
    let block = again.block(CHAIN, BlockRef::Number(latest), false).await.unwrap().unwrap();
    assert_eq!(block.transactions.len(), 1, "{name}: the transaction that waited is mined");
    let impersonated = TransactionRequest {
        from: Some(Address::repeat_byte(0x55)),
        to: Some(Address::repeat_byte(0x44)),
        value: Some(U256::ZERO),
        ..TransactionRequest::default()
    };
    assert!(again.send_transaction(CHAIN, impersonated).await.is_ok(), "{name}: still impersonated");

    // The revert forgot what it undid: the journal holds what the chain is made of.
    let kept = store.chain_changes(CHAIN, 0, 1_000).await.unwrap();
    let sends = kept.iter().filter(|change| change.change.contains("sendTransaction")).count();
    assert_eq!(sends, 4, "{name}: the deploy, a transfer, the transfer that waited and the impersonated one");

    // A reset forgets every change before it.
    again.reset(CHAIN).await.unwrap();
    assert_eq!(store.chain_changes(CHAIN, 0, 1_000).await.unwrap().len(), 1, "{name}: the reset alone");
    let fresh = devnet(3, &store);
    let seed_only = Devnet::new(3, Scale::TINY);
    assert_eq!(
        fresh.block(CHAIN, BlockRef::Latest, false).await.unwrap(),
        seed_only.block(CHAIN, BlockRef::Latest, false).await.unwrap(),
        "{name}: after a reset, the seed's chain"
    );
}

#[test]
fn a_devnet_started_again_on_its_store_serves_the_same_chain() {
    let runtime = runtime();
    runtime.block_on(async {
        let memory = w3api_store::open(&Location::Memory, 100).await.unwrap();
        restarts_give_the_same_chain(memory, "memory").await;
        let dir = tempfile::tempdir().unwrap();
        let directory = w3api_store::open(&Location::Directory(dir.path().to_owned()), 100).await.unwrap();
        restarts_give_the_same_chain(directory.clone(), "directory").await;
        drop(directory);
        if let Some(url) = w3api_store::testing::database_url("the devnet's journal on PostgreSQL") {
            let postgres = w3api_store::open(&Location::Postgres(url), 100).await.unwrap();
            restarts_give_the_same_chain(postgres, "postgres").await;
        }
    });
}

#[test]
fn a_journal_written_by_another_devnet_is_refused() {
    let runtime = runtime();
    runtime.block_on(async {
        let store = w3api_store::open(&Location::Memory, 100).await.unwrap();
        let first = devnet(3, &store);
        first.mine(CHAIN, 1, None).await.unwrap();
        let other = devnet(4, &store);
        let refused = other.latest_block(CHAIN).await.unwrap_err().to_string();
        assert!(refused.contains("another seed") && refused.contains("--seed"), "{refused}");
        assert!(other.mine(CHAIN, 1, None).await.is_err(), "nor written");
        // Chains without a journal are served as before.
        assert!(other.latest_block(Chain::Eth).await.is_ok());
    });
}
