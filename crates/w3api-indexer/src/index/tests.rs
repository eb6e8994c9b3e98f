use alloy_primitives::{LogData, U256, Uint};
use alloy_sol_types::{SolEvent, sol};

use super::*;
use crate::block::{IndexedLog, LogPosition};

sol! {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index);
    event Sync(uint112 reserve0, uint112 reserve1);
}

mod erc721 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    }
}

const WETH: Address = Address::repeat_byte(0xe0);
const USDC: Address = Address::repeat_byte(0xe1);
const TOKEN: Address = Address::repeat_byte(0xe2);
const NFTS: Address = Address::repeat_byte(0xe3);
const FACTORY: Address = Address::repeat_byte(0xf0);
const WETH_USDC: Address = Address::repeat_byte(0xd0);
const TOKEN_WETH: Address = Address::repeat_byte(0xd1);
const ALICE: Address = Address::repeat_byte(0xa1);
const BOB: Address = Address::repeat_byte(0xb0);
const ETH: u128 = 1_000_000_000_000_000_000;
const USD: u128 = 1_000_000;

fn log(address: Address, data: LogData) -> IndexedLog {
    IndexedLog { address, topics: data.topics().to_vec(), data: data.data, position: LogPosition::default() }
}

fn transfer(token: Address, from: Address, to: Address, value: u128) -> IndexedLog {
    log(token, Transfer { from, to, value: U256::from(value) }.encode_log_data())
}

fn pair_created(token0: Address, token1: Address, pair: Address) -> IndexedLog {
    log(FACTORY, PairCreated { token0, token1, pair, index: U256::ZERO }.encode_log_data())
}

fn sync(pair: Address, reserve0: u128, reserve1: u128) -> IndexedLog {
    log(pair, Sync { reserve0: Uint::from(reserve0), reserve1: Uint::from(reserve1) }.encode_log_data())
}

/// Block `number` of branch `branch`, whose parent is the same branch's.
fn block(number: u64, branch: u8, logs: Vec<IndexedLog>) -> IndexedBlock {
    let hash = |n: u64| B256::left_padding_from(&[branch, n as u8]);
    // Each log in a transaction of its own, as the ledger's places need.
    let logs = logs
        .into_iter()
        .enumerate()
        .map(|(i, log)| IndexedLog {
            position: LogPosition { transaction_index: i as u32, log_index: i as u32 },
            ..log
        })
        .collect();
    let (hash, parent_hash, timestamp) = (hash(number), hash(number.wrapping_sub(1)), number * 12);
    IndexedBlock { number, hash, parent_hash, timestamp, transactions: Vec::new(), logs, inner: Vec::new() }
}

fn meta(symbol: &str, decimals: u8) -> TokenMeta {
    TokenMeta { name: symbol.into(), symbol: symbol.into(), decimals }
}

/// An index that registers what each block discovers, as a follower does.
fn index_of(blocks: &[IndexedBlock]) -> ChainIndex {
    let mut index = ChainIndex::new(1, Anchors { wrapped: Some(WETH), stable: Some(USDC) }, 8);
    for block in blocks {
        register(&mut index, block);
        index.apply(block).unwrap();
    }
    index
}

fn register(index: &mut ChainIndex, block: &IndexedBlock) {
    for discovery in index.discoveries(block) {
        match discovery {
            Discovery::Token(address) if address == USDC => index.register_token(address, meta("USDC", 6)),
            Discovery::Token(address) => index.register_token(address, meta("T", 18)),
            Discovery::Collection { address, erc1155 } => index
                .register_collection(address, CollectionMeta { name: "NFTs".into(), symbol: "NFT".into(), erc1155 })
                .map(|_| Asset::NATIVE),
        }
        .unwrap();
    }
}

/// Tokens minted, pairs created and filled: WETH at 2,000 USD, TOKEN at 1 USD.
fn chain() -> Vec<IndexedBlock> {
    vec![
        block(
            1,
            0,
            vec![
                transfer(TOKEN, Address::ZERO, ALICE, 10_000 * ETH),
                transfer(USDC, Address::ZERO, ALICE, 4_000_000 * USD),
            ],
        ),
        block(2, 0, vec![pair_created(WETH, USDC, WETH_USDC), pair_created(TOKEN, WETH, TOKEN_WETH)]),
        block(
            3,
            0,
            vec![
                transfer(USDC, ALICE, WETH_USDC, 2_000_000 * USD),
                sync(WETH_USDC, 1_000 * ETH, 2_000_000 * USD),
                transfer(TOKEN, ALICE, TOKEN_WETH, 4_000 * ETH),
                sync(TOKEN_WETH, 4_000 * ETH, 2 * ETH),
            ],
        ),
        block(4, 0, vec![transfer(TOKEN, ALICE, BOB, 1_000 * ETH)]),
    ]
}

#[test]
fn balances_and_prices_come_from_the_blocks_logs() {
    let index = index_of(&chain());
    assert_eq!(index.head(), Some(4));
    assert_eq!(index.asset(WETH), Some(Asset::WRAPPED), "the anchors take the reserved assets");
    assert_eq!(index.asset(USDC), Some(Asset::STABLE));
    assert_eq!(index.balance_at(ALICE, TOKEN, 4), U256::from(5_000 * ETH));
    assert_eq!(index.balance_at(BOB, TOKEN, 4), U256::from(1_000 * ETH));
    assert_eq!(index.balance_at(BOB, TOKEN, 3), U256::ZERO, "history by block");
    assert_eq!(index.price(TOKEN, 2, PriceFilter::default()), None, "no reserves yet");
    let price = index.price(TOKEN, 4, PriceFilter::default()).unwrap();
    assert_eq!((price.usd, price.native_wei), (1.0, U256::from(ETH / 2_000)));
    assert_eq!(index.price(WETH, 4, PriceFilter::default()).unwrap().usd, 2_000.0);
    assert_eq!(index.timestamp_at(3), Some(36));
}

#[test]
fn a_block_naming_an_unknown_contract_or_out_of_order_is_not_applied() {
    let chain = chain();
    let mut index = ChainIndex::new(1, Anchors::default(), 8);
    assert_eq!(index.discoveries(&chain[0]), [Discovery::Token(USDC), Discovery::Token(TOKEN)]);
    assert_eq!(index.apply(&chain[0]), Err(IndexError::Unregistered { number: 1, discovery: Discovery::Token(USDC) }));
    assert_eq!(
        index.apply(&chain[1]),
        Err(IndexError::NotNext { number: 2, continuity: Continuity::Gap { expected: 1 } })
    );
    assert_eq!(index.head(), None);
}

#[test]
fn a_refused_log_is_left_out_and_reported_and_the_rest_of_its_block_applied() {
    let mut chain = chain();
    chain.push(block(5, 0, vec![transfer(TOKEN, BOB, ALICE, 10 * ETH), transfer(TOKEN, BOB, ALICE, 2_000 * ETH)]));
    let mut index = index_of(&chain[..4]);
    let refused = index.apply(&chain[4]).unwrap();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].log_index, 1);
    assert!(matches!(refused[0].source, LedgerError::Overdrawn { .. }), "{}", refused[0]);
    assert_eq!(index.head(), Some(5));
    assert_eq!(index.balance_at(BOB, TOKEN, 9), U256::from(990 * ETH), "the first transfer stands");
}

#[test]
fn a_fork_is_seen_and_rolled_back_to_the_common_ancestor() {
    let mut index = index_of(&chain());
    let other = block(5, 1, vec![transfer(TOKEN, BOB, ALICE, ETH)]);
    assert_eq!(index.continuity(&other), Continuity::Fork);
    // Branch 1 forks after block 2: its blocks 3 and 4 replace ours.
    let mut fork = vec![block(3, 1, vec![]), block(4, 1, vec![transfer(TOKEN, ALICE, BOB, 7 * ETH)])];
    fork[0].parent_hash = index.hash_at(2).unwrap();
    index.rollback_to(2).unwrap();
    assert_eq!((index.head(), index.hash_at(3)), (Some(2), None));
    for block in &fork {
        index.apply(block).unwrap();
    }
    assert_eq!(index.balance_at(BOB, TOKEN, 4), U256::from(7 * ETH), "no answer shows the abandoned branch");
    assert_eq!(index.price(TOKEN, 4, PriceFilter::default()), None, "its reserves are gone with it");
    index.rollback_to(0).unwrap();
    assert_eq!(index.head(), None, "back to before the first block");
    assert_eq!(index.balance_at(ALICE, TOKEN, 9), U256::ZERO);
}

#[test]
fn a_rollback_deeper_than_the_limit_is_refused() {
    let mut index = ChainIndex::new(1, Anchors::default(), 2);
    for number in 1..=5 {
        index.apply(&block(number, 0, vec![])).unwrap();
    }
    assert_eq!(index.rollback_to(2), Err(IndexError::TooDeep { depth: 3, limit: 2 }));
    index.rollback_to(3).unwrap();
    assert_eq!(index.head(), Some(3));
}

#[test]
fn nfts_are_owned_by_their_last_recipient() {
    let mint = erc721::Transfer { from: Address::ZERO, to: ALICE, tokenId: U256::MAX }.encode_log_data();
    let send = erc721::Transfer { from: ALICE, to: BOB, tokenId: U256::MAX }.encode_log_data();
    let index = index_of(&[block(1, 0, vec![log(NFTS, mint)]), block(2, 0, vec![log(NFTS, send)])]);
    let ledger = index.ledger();
    assert_eq!(ledger.erc721_owner(0, U256::MAX), ledger.find(BOB), "any token id, up to 2^256 - 1");
}

#[test]
fn a_block_naming_no_parent_follows_by_number() {
    let chain = chain();
    let index = index_of(&chain[..2]);
    let mut orphan = block(3, 0, vec![]);
    orphan.parent_hash = B256::ZERO;
    assert_eq!(index.continuity(&orphan), Continuity::Next);
    let mut other = block(3, 0, vec![]);
    other.parent_hash = B256::repeat_byte(9);
    assert_eq!(index.continuity(&other), Continuity::Fork);
}
