//! The tables, written batch by batch with reorganisations between, hold
//! what the in-memory index holds of the same blocks: compared row for row,
//! holders by address.

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{B256, LogData, U256, Uint};
use alloy_sol_types::{SolEvent, sol};
use sqlx::Row;
use w3api_store::{Location, Store};

use std::collections::{HashMap, HashSet};

use alloy_primitives::Address;
use w3api_ledger::Holder;
use w3api_store::IndexTables;
use w3api_store::index_tables::{
    AmountRow, BalanceRow, HeaderRow, InnerRow, MoveRow, Moved, NftFirst, OwnerRow, PairRow, ReserveRow, SupplyRow,
    TableBatch, TransactionRow,
};
use w3api_types::Chain;

use super::read::TablesView;
use super::write::*;
use super::*;
use crate::block::{IndexedBlock, IndexedInnerTransfer, IndexedLog, IndexedTransaction, LogPosition};
use crate::follow::Followed;
use crate::index::{Anchors, ChainIndex, Discovery};
use crate::index::{CollectionMeta, TokenMeta};
use crate::journal::{Entry, Journal};

sol! {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index);
    event Sync(uint112 reserve0, uint112 reserve1);
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
}

mod erc721 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    }
}

const WETH: Address = Address::repeat_byte(0xe0);
const USDC: Address = Address::repeat_byte(0xe1);
const TOKENS: [Address; 4] = [WETH, USDC, Address::repeat_byte(0xe2), Address::repeat_byte(0xe3)];
const ERC721: Address = Address::repeat_byte(0xc1);
const ERC1155: Address = Address::repeat_byte(0xc2);
const FACTORY: Address = Address::repeat_byte(0xf0);
const ANCHORS: Anchors = Anchors { wrapped: Some(WETH), stable: Some(USDC) };

fn wallet(rng: &mut fastrand::Rng) -> Address {
    // The zero address now and then: mints and burns.
    if rng.u8(..10) == 0 { Address::ZERO } else { Address::with_last_byte(rng.u8(1..7)) }
}

fn log(address: Address, data: LogData) -> IndexedLog {
    IndexedLog { address, topics: data.topics().to_vec(), data: data.data, position: LogPosition::default() }
}

/// A log of the kinds the index reads, picked at random: transfers that
/// may overdraw (refused), NFTs moved by owners and by others (refused),
/// ERC1155 singles and batches, pairs and their reserves.
fn random_log(rng: &mut fastrand::Rng, pairs: &mut Vec<Address>) -> IndexedLog {
    let (mut from, to) = (wallet(rng), wallet(rng));
    // A third of the fungible logs mint, so that most transfers have
    // something to move; the others may still overdraw.
    if rng.u8(..3) == 0 {
        from = Address::ZERO;
    }
    match rng.u8(..10) {
        0..=3 => {
            let token = TOKENS[rng.usize(..TOKENS.len())];
            let value = if from.is_zero() { rng.u64(..1_000) } else { rng.u64(..60) };
            log(token, Transfer { from, to, value: U256::from(value) }.encode_log_data())
        }
        4 | 5 => {
            let id = U256::from(rng.u8(..6));
            log(ERC721, erc721::Transfer { from, to, tokenId: id }.encode_log_data())
        }
        6 => {
            let (operator, id, value) = (wallet(rng), U256::from(rng.u8(..4)), U256::from(rng.u8(..5)));
            log(ERC1155, TransferSingle { operator, from, to, id, value }.encode_log_data())
        }
        7 => {
            let ids = vec![U256::from(rng.u8(..4)), U256::from(rng.u8(4..8))];
            let values = vec![U256::from(rng.u8(..3)), U256::from(rng.u8(..3))];
            log(ERC1155, TransferBatch { operator: from, from, to, ids, values }.encode_log_data())
        }
        8 => {
            let pair = Address::with_last_byte(0x80 + pairs.len() as u8);
            pairs.push(pair);
            let (token0, token1) = (TOKENS[rng.usize(..2)], TOKENS[rng.usize(2..4)]);
            log(FACTORY, PairCreated { token0, token1, pair, index: U256::ZERO }.encode_log_data())
        }
        _ => {
            let pair = pairs.get(rng.usize(..pairs.len().max(1))).copied().unwrap_or(Address::with_last_byte(0x80));
            let reserve = |rng: &mut fastrand::Rng| Uint::from(u128::from(rng.u64(1_000_000..1 << 40)) * 1_000_000_000);
            let (reserve0, reserve1) = (reserve(rng), reserve(rng));
            log(pair, Sync { reserve0, reserve1 }.encode_log_data())
        }
    }
}

/// Pairs of WETH and of TOKENS[2] with USDC, created and synced.
fn priced_pairs(pairs: &mut Vec<Address>) -> Vec<IndexedLog> {
    const ETH: u128 = 1_000_000_000_000_000_000;
    let listings = [(WETH, 1_000 * ETH, 2_000_000_000_000), (TOKENS[2], 50_000 * ETH, 100_000_000_000)];
    let mut logs = Vec::new();
    for (token, token_reserve, usdc_reserve) in listings {
        let pair = Address::with_last_byte(0x80 + pairs.len() as u8);
        pairs.push(pair);
        let (token0, token1) = if token < USDC { (token, USDC) } else { (USDC, token) };
        let (reserve0, reserve1) =
            if token < USDC { (token_reserve, usdc_reserve) } else { (usdc_reserve, token_reserve) };
        logs.push(log(FACTORY, PairCreated { token0, token1, pair, index: U256::ZERO }.encode_log_data()));
        let (reserve0, reserve1) = (Uint::from(reserve0), Uint::from(reserve1));
        logs.push(log(pair, Sync { reserve0, reserve1 }.encode_log_data()));
    }
    logs
}

/// NFTs the random logs do not touch: token 100 minted and burned in block
/// 1, token 101 minted then and burned in block 3.
fn scripted_nfts(number: u64) -> Vec<IndexedLog> {
    let (one, two) = (Address::with_last_byte(1), Address::with_last_byte(2));
    let moved =
        |from, to, id: u64| log(ERC721, erc721::Transfer { from, to, tokenId: U256::from(id) }.encode_log_data());
    match number {
        1 => vec![moved(Address::ZERO, one, 100), moved(one, Address::ZERO, 100), moved(Address::ZERO, two, 101)],
        _ => vec![moved(two, Address::ZERO, 101)],
    }
}

/// Blocks `from..=to` of branch `branch`, the first a child of `parent`.
fn branch(rng: &mut fastrand::Rng, branch: u8, from: u64, to: u64, parent: B256) -> Vec<IndexedBlock> {
    let mut pairs = Vec::new();
    let mut parent_hash = parent;
    (from..=to)
        .map(|number| {
            let hash = B256::left_padding_from(&[branch, number as u8]);
            let transactions: Vec<IndexedTransaction> = (0..rng.u8(..4))
                .map(|i| IndexedTransaction {
                    hash: B256::left_padding_from(&[branch, number as u8, i]),
                    from: wallet(rng),
                    to: (rng.u8(..5) != 0).then(|| wallet(rng)),
                    value: U256::from(rng.u64(..100)),
                })
                .collect();
            // The first block lists WETH and TOKENS[2] against USDC, deep
            // enough to price them; random syncs move the prices after.
            let listed = match number {
                1 => priced_pairs(&mut pairs).into_iter().chain(scripted_nfts(1)).collect(),
                3 => scripted_nfts(3),
                _ => Vec::new(),
            };
            let random = (0..rng.u8(..12)).map(|_| random_log(rng, &mut pairs)).collect::<Vec<_>>();
            let logs = listed
                .into_iter()
                .chain(random)
                .enumerate()
                .map(|(i, log)| {
                    let position = LogPosition { transaction_index: i as u32 / 2, log_index: i as u32 };
                    IndexedLog { position, ..log }
                })
                .collect();
            let inner = (0..rng.u8(..3))
                .map(|i| IndexedInnerTransfer {
                    transaction_index: u32::from(i),
                    from: wallet(rng),
                    to: wallet(rng),
                    value: U256::from(rng.u64(1..50)),
                })
                .collect();
            let block = IndexedBlock { number, hash, parent_hash, timestamp: number * 12, transactions, logs, inner };
            parent_hash = hash;
            block
        })
        .collect()
}

/// The entries a follower makes of `blocks` for `index`: each block with
/// the contracts it registers first.
fn entries(index: &mut ChainIndex, blocks: &[IndexedBlock]) -> Vec<Entry> {
    blocks
        .iter()
        .map(|block| {
            let mut entry = Entry { tokens: Vec::new(), collections: Vec::new(), block: block.clone() };
            for discovery in index.discoveries(block) {
                match discovery {
                    Discovery::Token(address) => {
                        let meta = TokenMeta { name: "Token".into(), symbol: "T".into(), decimals: 18 };
                        index.register_token(address, meta.clone()).unwrap();
                        entry.tokens.push((address, meta));
                    }
                    Discovery::Collection { address, erc1155 } => {
                        let meta = CollectionMeta { name: "NFTs".into(), symbol: "N".into(), erc1155 };
                        index.register_collection(address, meta.clone()).unwrap();
                        entry.collections.push((address, meta));
                    }
                }
            }
            index.apply(block).unwrap();
            entry
        })
        .collect()
}

/// What the in-memory index holds, as rows: the rows a writer makes of
/// one window from the first block, over the whole index.
fn expected(index: &ChainIndex, chain: &[Entry]) -> TableBatch {
    let mut batch = TableBatch::default();
    let ledger = index.ledger();
    let id = |holder: Holder| holder.0;
    batch.holders = (0..ledger.holders()).map(|i| (i as u32, ledger.address(Holder(i as u32)))).collect();
    block_rows(chain, ledger, &id, 0, &mut batch);
    movement_rows(ledger, &id, 0, &mut batch);
    value_rows(ledger, &id, 0, &mut batch);
    // The whole index is one window: every pair, every reserve.
    pair_rows(index.pairs(), 0, 0, &mut batch);
    batch
}

/// Everything the tables hold of `chain`, as rows.
async fn dump(tables: &IndexTables, chain: Chain) -> TableBatch {
    let pool = tables.pool();
    let all = |sql: &'static str| sqlx::query(sql).bind(chain.as_str()).fetch_all(pool);
    let num = |text: &str| text.parse::<U256>().unwrap();
    let small = |row: &sqlx::postgres::PgRow, i: usize| row.get::<i32, _>(i) as u32;
    let mut batch = TableBatch::default();
    for row in all("SELECT holder, address FROM index_holders WHERE chain = $1").await.unwrap() {
        batch.holders.push((small(&row, 0), Address::from_slice(row.get(1))));
    }
    for row in all("SELECT number, hash, parent_hash, timestamp FROM index_headers WHERE chain = $1").await.unwrap() {
        batch.headers.push(HeaderRow {
            number: row.get::<i64, _>(0) as u64,
            hash: B256::from_slice(row.get(1)),
            parent_hash: B256::from_slice(row.get(2)),
            timestamp: row.get::<i64, _>(3) as u64,
        });
    }
    let sql = "SELECT block, position, hash, sender, recipient, value::TEXT FROM index_transactions WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.transactions.push(TransactionRow {
            block: row.get::<i64, _>(0) as u64,
            position: small(&row, 1),
            hash: B256::from_slice(row.get(2)),
            sender: small(&row, 3),
            recipient: row.get::<Option<i32>, _>(4).map(|r| r as u32),
            value: num(row.get(5)),
        });
    }
    let sql = "SELECT seq, block, position, payer, payee, value::TEXT FROM index_inner WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.inner.push(InnerRow {
            seq: row.get::<i64, _>(0) as u64,
            block: row.get::<i64, _>(1) as u64,
            position: small(&row, 2),
            payer: small(&row, 3),
            payee: small(&row, 4),
            value: num(row.get(5)),
        });
    }
    let sql = "SELECT seq, block, position, log, asset, collection, token_id::TEXT, sender, recipient, amount::TEXT, \
               multi, operator, batch FROM index_moves WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        let moved = match row.get::<Option<i32>, _>(4) {
            Some(asset) => Moved::Fungible { asset: asset as u16 },
            None => Moved::Nft {
                collection: row.get::<i32, _>(5) as u16,
                token_id: num(row.get(6)),
                multi: row.get(10),
                operator: row.get::<Option<i32>, _>(11).map(|o| o as u32),
                batch: row.get(12),
            },
        };
        batch.moves.push(MoveRow {
            seq: row.get::<i64, _>(0) as u64,
            block: row.get::<i64, _>(1) as u64,
            position: row.get::<Option<i32>, _>(2).map(|p| p as u32),
            log: row.get::<Option<i32>, _>(3).map(|l| l as u32),
            moved,
            sender: small(&row, 7),
            recipient: small(&row, 8),
            amount: row.get::<&str, _>(9).parse().unwrap(),
        });
    }
    for row in all("SELECT holder, asset, block, balance::TEXT FROM index_balances WHERE chain = $1").await.unwrap() {
        batch.balances.push(BalanceRow {
            holder: small(&row, 0),
            asset: row.get::<i32, _>(1) as u16,
            block: row.get::<i64, _>(2) as u64,
            balance: row.get::<&str, _>(3).parse().unwrap(),
        });
    }
    for row in all("SELECT asset, block, supply::TEXT FROM index_supplies WHERE chain = $1").await.unwrap() {
        batch.supplies.push(SupplyRow {
            asset: row.get::<i32, _>(0) as u16,
            block: row.get::<i64, _>(1) as u64,
            supply: row.get::<&str, _>(2).parse().unwrap(),
        });
    }
    let sql = "SELECT collection, token_id::TEXT, block, owner FROM index_owners WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.owners.push(OwnerRow {
            collection: row.get::<i32, _>(0) as u16,
            token_id: num(row.get(1)),
            block: row.get::<i64, _>(2) as u64,
            owner: small(&row, 3),
        });
    }
    let sql = "SELECT holder, collection, token_id::TEXT, block, amount::TEXT FROM index_amounts WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.amounts.push(AmountRow {
            holder: small(&row, 0),
            collection: row.get::<i32, _>(1) as u16,
            token_id: num(row.get(2)),
            block: row.get::<i64, _>(3) as u64,
            amount: row.get::<&str, _>(4).parse().unwrap(),
        });
    }
    let sql = "SELECT h.holder, h.collection, h.token_id::TEXT, m.block, h.seq FROM index_held h \
               JOIN index_moves m ON m.chain = h.chain AND m.seq = h.seq WHERE h.chain = $1";
    for row in all(sql).await.unwrap() {
        batch.held.push(NftFirst {
            holder: small(&row, 0),
            collection: row.get::<i32, _>(1) as u16,
            token_id: num(row.get(2)),
            block: row.get::<i64, _>(3) as u64,
            seq: row.get::<i64, _>(4) as u64,
        });
    }
    let sql = "SELECT collection, token_id::TEXT, block, seq FROM index_minted WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.minted.push(NftFirst {
            holder: 0,
            collection: row.get::<i32, _>(0) as u16,
            token_id: num(row.get(1)),
            block: row.get::<i64, _>(2) as u64,
            seq: row.get::<i64, _>(3) as u64,
        });
    }
    let sql = "SELECT pair, address, token0, token1, exchange, created FROM index_pairs WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.pairs.push(PairRow {
            pair: small(&row, 0),
            address: Address::from_slice(row.get(1)),
            token0: row.get::<i32, _>(2) as u16,
            token1: row.get::<i32, _>(3) as u16,
            exchange: small(&row, 4),
            created: row.get::<i64, _>(5) as u64,
        });
    }
    let sql = "SELECT pair, block, reserve0::TEXT, reserve1::TEXT FROM index_reserves WHERE chain = $1";
    for row in all(sql).await.unwrap() {
        batch.reserves.push(ReserveRow {
            pair: small(&row, 0),
            block: row.get::<i64, _>(1) as u64,
            reserves: (row.get::<&str, _>(2).parse().unwrap(), row.get::<&str, _>(3).parse().unwrap()),
        });
    }
    batch
}

/// `batch` with every holder named by its address's rank among the
/// addresses it numbers, and every list in one order: two batches that
/// number holders differently compare equal when they hold the same.
fn canonical(mut batch: TableBatch) -> TableBatch {
    let mut addresses: Vec<Address> = batch.holders.iter().map(|(_, address)| *address).collect();
    addresses.sort_unstable();
    let rank: HashMap<u32, u32> = batch
        .holders
        .iter()
        .map(|(number, address)| (*number, addresses.binary_search(address).unwrap() as u32))
        .collect();
    let to = |number: &mut u32| *number = rank[number];
    batch.holders = addresses.iter().enumerate().map(|(i, address)| (i as u32, *address)).collect();
    batch.transactions.iter_mut().for_each(|t| {
        to(&mut t.sender);
        t.recipient.as_mut().map(to);
    });
    batch.inner.iter_mut().for_each(|i| {
        to(&mut i.payer);
        to(&mut i.payee);
    });
    for row in &mut batch.moves {
        to(&mut row.sender);
        to(&mut row.recipient);
        if let Moved::Nft { operator: Some(operator), .. } = &mut row.moved {
            to(operator);
        }
    }
    batch.balances.iter_mut().for_each(|b| to(&mut b.holder));
    batch.owners.iter_mut().for_each(|o| to(&mut o.owner));
    batch.amounts.iter_mut().for_each(|a| to(&mut a.holder));
    batch.held.iter_mut().for_each(|h| to(&mut h.holder));
    batch.headers.sort_by_key(|h| h.number);
    batch.transactions.sort_by_key(|t| (t.block, t.position));
    batch.inner.sort_by_key(|i| i.seq);
    batch.moves.sort_by_key(|m| m.seq);
    batch.balances.sort_by_key(|b| (b.holder, b.asset, b.block));
    batch.supplies.sort_by_key(|s| (s.asset, s.block));
    batch.owners.sort_by_key(|o| (o.collection, o.token_id, o.block));
    batch.amounts.sort_by_key(|a| (a.holder, a.collection, a.token_id, a.block));
    batch.held.sort_by_key(|h| (h.holder, h.collection, h.token_id));
    batch.minted.sort_by_key(|m| (m.collection, m.token_id));
    batch.pairs.sort_by_key(|p| p.pair);
    batch.reserves.sort_by_key(|r| (r.pair, r.block));
    batch
}

/// Holders both number, whatever else the tables number (holders of a
/// dropped branch stay numbered, as the ledger keeps them).
fn same_holders(mut batch: TableBatch, of: &TableBatch) -> TableBatch {
    let used: HashSet<Address> = of.holders.iter().map(|(_, address)| *address).collect();
    batch.holders.retain(|(_, address)| used.contains(address));
    batch
}

/// The tables hold what the in-memory `index` of the blocks `kept` holds.
async fn assert_same_tables(index: &ChainIndex, kept: &[Entry], tables: &IndexTables, chain: Chain, case: &str) {
    let want = canonical(expected(index, kept));
    let got = dump(tables, chain).await;
    let got = canonical(same_holders(got, &want));
    let transfers = want.moves.iter().filter(|m| m.sender != 0 && m.recipient != 0).count();
    let (held, reserves) = (want.held.len(), want.reserves.len());
    assert!(transfers > 30 && held > 10 && reserves > 5, "{case}: too little moved: {transfers} {held} {reserves}");
    for (what, equal) in [
        ("holders", want.holders == got.holders),
        ("headers", want.headers == got.headers),
        ("transactions", want.transactions == got.transactions),
        ("inner transfers", want.inner == got.inner),
        ("movements", want.moves == got.moves),
        ("balances", want.balances == got.balances),
        ("supplies", want.supplies == got.supplies),
        ("owners", want.owners == got.owners),
        ("amounts", want.amounts == got.amounts),
        ("held", want.held == got.held),
        ("minted", want.minted == got.minted),
        ("pairs", want.pairs == got.pairs),
        ("reserves", want.reserves == got.reserves),
    ] {
        assert!(equal, "{case}: the tables' {what} differ from the in-memory index's");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_that_dies_mid_batch_writes_nothing_of_it_and_the_next_goes_on_from_the_tables() {
    use sqlx::Connection;
    let Some(url) = w3api_store::testing::database_url("the index tables' takeover test") else { return };
    let url = w3api_store::testing::fresh_database(&url).await;
    let store = w3api_store::open(&Location::Postgres(url.clone()), 1_000).await.unwrap();
    let tables = store.index_tables().unwrap();
    let lease = Duration::from_millis(800);
    let (first, second) = (Journal::new(Arc::clone(&store), lease), Journal::new(Arc::clone(&store), lease));
    let chain = Chain::Eth;
    let mut rng = fastrand::Rng::with_seed(7);
    let mut index = ChainIndex::new(1, ANCHORS, 64);
    let blocks = branch(&mut rng, 1, 1, 50, B256::ZERO);
    let all = entries(&mut index, &blocks);

    assert!(first.lead(chain).await.unwrap());
    let mut dying = TableWriter::open(tables.clone(), chain, 1, ANCHORS, 64).await.unwrap();
    for batch in all[..20].chunks(6) {
        assert!(dying.write(&first, None, batch).await.unwrap());
    }
    // The next batch stops in the middle of its transaction, behind a lock
    // held elsewhere, and its writer dies there, as under kill -9.
    let mut locker = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut locker).await.unwrap();
    sqlx::query("LOCK TABLE index_balances IN EXCLUSIVE MODE").execute(&mut locker).await.unwrap();
    let batch = all[20..30].to_vec();
    let killed = tokio::spawn(async move { dying.write(&first, None, &batch).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!killed.is_finished(), "the batch waits on the lock, in its transaction");
    killed.abort();
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    let (head, _) = tables.head(chain).await.unwrap();
    assert_eq!(head, Some(20), "nothing of the dead writer's batch is kept");

    // Its lease runs out; another replica takes it and goes on from the tables.
    tokio::time::sleep(lease + Duration::from_millis(200)).await;
    assert!(second.lead(chain).await.unwrap(), "the lease of the dead writer is free");
    let mut next = TableWriter::open(tables.clone(), chain, 1, ANCHORS, 64).await.unwrap();
    assert_eq!(next.next_block(), 21);
    for batch in all[20..].chunks(7) {
        assert!(next.write(&second, None, batch).await.unwrap());
    }
    assert_same_tables(&index, &all, &tables, chain, "after the takeover").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_replica_answers_at_the_newest_block_it_has() {
    let Some(url) = w3api_store::testing::database_url("the index tables' read replica test") else { return };
    let Some(replica) = w3api_store::testing::replica_url("the index tables' read replica test") else { return };
    let url = w3api_store::testing::fresh_database(&url).await;
    let name = url.rsplit('/').next().unwrap();
    let replica_cluster = replica.rsplit_once('/').unwrap().0;
    let replica = format!("{replica_cluster}/{name}");
    let (_store, journal, tables) = writer_on(&url).await;
    let chain = Chain::Eth;
    let mut rng = fastrand::Rng::with_seed(11);
    let blocks = branch(&mut rng, 1, 1, 45, B256::ZERO);
    let (mut older, mut newer) = (ChainIndex::new(1, ANCHORS, 64), ChainIndex::new(1, ANCHORS, 64));
    entries(&mut older, &blocks[..30]);
    let all = entries(&mut newer, &blocks);
    assert!(journal.lead(chain).await.unwrap());
    let mut writer = TableWriter::open(tables.clone(), chain, 1, ANCHORS, 64).await.unwrap();
    for batch in all[..30].chunks(10) {
        assert!(writer.write(&journal, None, batch).await.unwrap());
    }
    // The replica's database appears, then catches up with block 30; then
    // it stops replaying, and the primary goes on to block 45.
    let reads = tables.reading_from_when_ready(&replica, |head| head == Some(30)).await;
    let standby = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(&replica).await.unwrap();
    sqlx::query("SELECT pg_wal_replay_pause()").execute(&standby).await.unwrap();
    for batch in all[30..].chunks(10) {
        assert!(writer.write(&journal, None, batch).await.unwrap());
    }
    assert_eq!(tables.head(chain).await.unwrap().0, Some(45));
    let followed = followed(chain);
    let want = answers(&crate::source::view::IndexView { index: &older, followed: &followed });
    let contracts = Contracts::new(tables.clone(), chain, ANCHORS);
    let view = TablesView::open(Arc::clone(&followed), &reads, &contracts).await.unwrap();
    assert_eq!(w3api_query::ChainView::head(&view).unwrap(), 30, "the replica answers at the block it has");
    let got = tokio::task::spawn_blocking(move || {
        let answers = answers(&view);
        view.finish(Ok(answers))
    })
    .await
    .unwrap()
    .unwrap();
    assert!(want == got, "the lagging replica answers as the in-memory index of blocks 1 to 30 does");
    sqlx::query("SELECT pg_wal_replay_resume()").execute(&standby).await.unwrap();
    tables.reading_from_when_ready(&replica, |head| head == Some(45)).await;
}

async fn writer_on(url: &str) -> (Arc<dyn Store>, Journal, IndexTables) {
    let store = w3api_store::open(&Location::Postgres(url.to_owned()), 1_000).await.unwrap();
    let journal = Journal::new(Arc::clone(&store), Duration::from_secs(30));
    let tables = store.index_tables().expect("PostgreSQL keeps index tables");
    (store, journal, tables)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_with_reorganisations_between_hold_what_the_in_memory_index_holds() {
    let Some(url) = w3api_store::testing::database_url("the index tables' differential test") else { return };
    let url = w3api_store::testing::fresh_database(&url).await;
    let (_store, journal, tables) = writer_on(&url).await;
    let chain = Chain::Eth;
    for seed in [1_u64, 2, 3] {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut index = ChainIndex::new(1, ANCHORS, 64);
        let first = branch(&mut rng, 1, 1, 30, B256::ZERO);
        let first_entries = entries(&mut index, &first);
        // A reorganisation drops blocks 25 to 30 for another branch, then
        // one drops 38 to 40 (of the second branch) for a third.
        index.rollback_to(24).unwrap();
        let second = branch(&mut rng, 2, 25, 40, first[23].hash);
        let second_entries = entries(&mut index, &second);
        index.rollback_to(37).unwrap();
        let third = branch(&mut rng, 3, 38, 45, second[12].hash);
        let third_entries = entries(&mut index, &third);

        assert!(journal.lead(chain).await.unwrap());
        let mut writer = TableWriter::open(tables.clone(), chain, 1, ANCHORS, 64).await.unwrap();
        let runs = [(None, &first_entries[..]), (Some(24), &second_entries[..]), (Some(37), &third_entries[..])];
        for (rollback, run) in runs {
            let mut rollback = rollback;
            let mut rest = run;
            while !rest.is_empty() {
                let (batch, left) = rest.split_at(rng.usize(1..=rest.len().min(7)));
                assert!(writer.write(&journal, rollback.take(), batch).await.unwrap(), "the lease is held");
                rest = left;
            }
        }
        assert_eq!((writer.head(), writer.hash_at(45)), (Some(45), Some(third[7].hash)));

        let kept: Vec<Entry> =
            first_entries[..24].iter().chain(&second_entries[..13]).chain(&third_entries).cloned().collect();
        assert_same_tables(&index, &kept, &tables, chain, &format!("seed {seed}")).await;
        same_answers(&index, &tables, chain, seed).await;
        // A writer opened again reads back where the tables stand.
        let again = TableWriter::open(tables.clone(), chain, 1, ANCHORS, 64).await.unwrap();
        assert_eq!((again.next_block(), again.progress()), (46, writer.progress()));
        assert_eq!(again.progress().next_move, index.ledger().movements().len() as u64);
        assert!(writer.clear(&journal).await.unwrap());
        assert_eq!(dump(&tables, chain).await, TableBatch::default(), "cleared");
    }
}

/// A followed chain with no node behind it, for views.
fn followed(chain: Chain) -> Arc<Followed> {
    let node = crate::Node::connect("http://127.0.0.1:9", Duration::from_secs(1)).unwrap();
    let config = crate::FollowConfig {
        start_block: 1,
        anchors: ANCHORS,
        reorg_depth: 64,
        limits: crate::FetchLimits::default(),
        poll: Duration::from_secs(1),
        place: crate::IndexPlace::Tables,
    };
    Arc::new(Followed::new(chain, node, config, tokio::sync::broadcast::channel(1).0, None))
}

/// Every question the query core answers, for each wallet, token and
/// collection, at the head and at older blocks, each listing read page by
/// page: written out, so that two views' answers compare.
fn answers(view: &impl w3api_query::ChainView<Id = U256>) -> Vec<String> {
    use w3api_query::listing::{Order, Span};
    use w3api_query::transfers::{NftTransfers, NftTransfersOf, TokenTransfers, TokenTransfersOf};
    use w3api_query::{Question, collection_nfts, wallet_activity, wallet_history, wallet_transactions};
    use w3api_source::{PageRequest, WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery};

    let mut out = Vec::new();
    let head = view.head().unwrap();
    let blocks = [None, Some(head / 2), Some(20), Some(30)];
    let mut wallets: Vec<Address> = (1..7).map(Address::with_last_byte).collect();
    wallets.extend([Address::ZERO, Address::repeat_byte(0x77)]);
    fn pages(mut ask: impl FnMut(PageRequest) -> (String, Option<w3api_source::PagePosition>)) -> Vec<String> {
        let mut page = PageRequest::first(3);
        let mut read = Vec::new();
        for _ in 0..50 {
            let (answer, next) = ask(page.clone());
            read.push(answer);
            match next {
                Some(next) => page = PageRequest { limit: 3, after: Some(next) },
                None => break,
            }
        }
        read
    }
    for wallet in &wallets {
        for at in blocks {
            let mut query = WalletTokensQuery::new(Chain::Eth, *wallet);
            query.to_block = at;
            // Holdings come unordered; a page of them is ranked.
            let ranked = |query: &WalletTokensQuery| {
                let tokens = w3api_query::wallet_tokens::wallet_tokens(view, query).unwrap();
                format!("{:?}", tokens.rank(Some(U256::from(5)), &PageRequest::first(100)))
            };
            out.push(ranked(&query));
            query.max_token_inactivity_days = Some(0);
            out.push(ranked(&query));
            let mut nfts = WalletNftsQuery::new(Chain::Eth, *wallet);
            nfts.at_block = at;
            out.extend(pages(|page| {
                let listing = w3api_query::nfts::wallet_nfts(view, &nfts, &page).unwrap();
                (format!("{listing:?}"), listing.page.next.clone())
            }));
            let collections = WalletCollectionsQuery {
                chain: Chain::Eth,
                address: *wallet,
                at_block: at,
                exclude_spam: false,
                include_prices: false,
            };
            let listing = w3api_query::nfts::wallet_collections(view, &collections, &PageRequest::first(10));
            out.push(format!("{listing:?}"));
        }
        for order in [Order::Ascending, Order::Descending] {
            let span = Span { from_block: Some(3), to_block: Some(40), ..Span::default() };
            for span in [Span::default(), span] {
                out.extend(pages(|page| {
                    let of = TokenTransfersOf::Wallet { address: *wallet, contracts: Vec::new() };
                    let answer = TokenTransfers { of, span, at_block: None, order, page }.answer(view).unwrap();
                    (format!("{answer:?}"), answer.page.next.clone())
                }));
                out.extend(pages(|page| {
                    let of = NftTransfersOf::Wallet { address: *wallet, contracts: Vec::new() };
                    let question = NftTransfers { of, span, at_block: None, order, include_prices: false, page };
                    let answer = question.answer(view).unwrap();
                    (format!("{answer:?}"), answer.page.next.clone())
                }));
                out.extend(pages(|page| {
                    let question =
                        wallet_history::WalletHistory { address: *wallet, span, at_block: None, order, page };
                    let answer = question.answer(view).unwrap();
                    (format!("{answer:?}"), answer.page.next.clone())
                }));
                out.extend(pages(|page| {
                    let question =
                        wallet_transactions::WalletTransactions { address: *wallet, span, at_block: None, order, page };
                    let answer = question.answer(view).unwrap();
                    (format!("{answer:?}"), answer.page.next.clone())
                }));
            }
        }
        out.push(format!("{:?}", wallet_activity::WalletStats { address: *wallet }.answer(view)));
        out.push(format!("{:?}", wallet_activity::WalletActivity { address: *wallet }.answer(view)));
    }
    for token in TOKENS {
        out.extend(pages(|page| {
            let of = TokenTransfersOf::Token(token);
            let question = TokenTransfers { of, span: Span::default(), at_block: None, order: Order::Descending, page };
            let answer = question.answer(view).unwrap();
            (format!("{answer:?}"), answer.page.next.clone())
        }));
        let metadata = w3api_query::token_metadata::TokenMetadata { addresses: vec![token] }.answer(view);
        out.push(format!("{metadata:?}"));
        for at in blocks {
            let query = w3api_source::TokenPriceQuery {
                chain: Chain::Eth,
                address: token,
                exchange: None,
                to_block: at,
                include_percent_change: true,
                max_token_inactivity_days: None,
                min_pair_side_liquidity_usd: None,
            };
            out.push(format!("{:?}", w3api_query::token_price::token_price(view, &query)));
        }
    }
    for collection in [ERC721, ERC1155] {
        out.extend(pages(|page| {
            let of = NftTransfersOf::Collection(collection);
            let order = Order::Ascending;
            let question =
                NftTransfers { of, span: Span::default(), at_block: None, order, include_prices: false, page };
            let answer = question.answer(view).unwrap();
            (format!("{answer:?}"), answer.page.next.clone())
        }));
        for at in blocks {
            let question = collection_nfts::ContractNfts {
                address: collection,
                at_block: at,
                page: PageRequest::first(100),
                include_prices: false,
                range: None,
            };
            out.push(format!("{:?}", question.answer(view)));
            let owners = collection_nfts::NftOwners {
                address: collection,
                token_id: None,
                at_block: at,
                page: PageRequest::first(100),
            };
            out.push(format!("{:?}", owners.answer(view)));
        }
        for erc1155 in [collection_nfts::Erc1155As::AllHolders, collection_nfts::Erc1155As::LargestHolder] {
            let tokens = (0..8).map(|id| (collection, U256::from(id))).collect();
            let question = collection_nfts::NftsById { tokens, include_prices: false, erc1155 };
            out.push(format!("{:?}", question.answer(view)));
        }
    }
    for timestamp in [0, 100, 250, 400, 10_000] {
        out.push(format!("{:?}", w3api_query::block_at::BlockAt { timestamp }.answer(view)));
    }
    out
}

trait ReadingFromWhenReady {
    /// The tables, read from the replica at `url` once its head passes `ready`.
    async fn reading_from_when_ready(&self, url: &str, ready: impl Fn(Option<u64>) -> bool) -> IndexTables;
}

impl ReadingFromWhenReady for IndexTables {
    async fn reading_from_when_ready(&self, url: &str, ready: impl Fn(Option<u64>) -> bool) -> IndexTables {
        for _ in 0..200 {
            if let Ok(reads) = self.reading_from(url).await {
                let snapshot = reads.snapshot(Chain::Eth).await;
                if let Ok(snapshot) = snapshot
                    && let Ok(bounds) = snapshot.bounds().await
                    && ready(bounds.head)
                {
                    return reads;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the replica at {url} did not catch up in 10 s");
    }
}

/// The tables answer every question as the in-memory index does.
async fn same_answers(index: &ChainIndex, tables: &IndexTables, chain: Chain, seed: u64) {
    let followed = followed(chain);
    let want = answers(&crate::source::view::IndexView { index, followed: &followed });
    let contracts = Contracts::new(tables.clone(), chain, ANCHORS);
    let view = TablesView::open(Arc::clone(&followed), tables, &contracts).await.unwrap();
    let got = tokio::task::spawn_blocking(move || {
        let answers = answers(&view);
        view.finish(Ok(answers))
    })
    .await
    .unwrap()
    .unwrap();
    for (want, got) in want.iter().zip(&got) {
        let differs = want.bytes().zip(got.bytes()).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
        let around = |text: &str| {
            text.get(differs.saturating_sub(300)..(differs + 200).min(text.len())).unwrap_or(text).to_owned()
        };
        assert!(want == got, "seed {seed}: the tables answer otherwise:\n{}\n---\n{}", around(want), around(got));
    }
    assert_eq!(want.len(), got.len());
    let priced = want.iter().filter(|answer| answer.contains("usd_price: Some")).count();
    assert!(priced > 10, "seed {seed}: only {priced} answers price anything");
}
