//! Reading a chain's index from its tables: the query core's ledger reads
//! and the view's block facts, each a query in one snapshot of the tables.
//!
//! The query core reads synchronously, so a view runs on a blocking thread
//! and waits on each query there. A query that fails cannot fail the read
//! that made it: the view keeps the first failure, the read gets a neutral
//! value, and the answer is thrown away for the failure
//! ([`TablesView::finish`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};
use parking_lot::{Mutex, RwLock};
use tokio::runtime::Handle;
use w3api_ledger::pricing::{PairBook, PairSides};
use w3api_ledger::{Asset, Holder, InnerTransfer, Movement, Place};
use w3api_query::{ChainView, CollectionFacts, Exchange, LedgerReads, TokenFacts, TransactionFacts};
use w3api_source::SourceError;
use w3api_store::index_tables::{Bounds, InnerRow, MoveRow, Moved, MovesOf, PairRow, Snapshot, TablesState};
use w3api_store::{IndexTables, StoreError};
use w3api_types::Chain;

use super::write::restored;
use crate::follow::Followed;
use crate::index::{Anchors, ChainIndex};
use crate::source::view::{collection_facts, token_facts};

/// A replica's copy of a chain's contracts as its tables number them:
/// tokens, collections and exchanges, which are only ever added, so the
/// copy is read again only when the tables hold more.
#[derive(Debug)]
pub(crate) struct Contracts {
    tables: IndexTables,
    chain: Chain,
    anchors: Anchors,
    known: RwLock<Arc<Known>>,
}

/// The contracts a replica knows: an index holding them, and how many of
/// each it holds (tokens, collections, exchanges).
#[derive(Debug)]
pub(crate) struct Known {
    index: ChainIndex,
    counts: (usize, usize, usize),
}

impl Contracts {
    /// No contract known yet.
    pub(crate) fn new(tables: IndexTables, chain: Chain, anchors: Anchors) -> Contracts {
        let empty = Known { index: ChainIndex::new(0, anchors, 0), counts: (0, 0, 0) };
        Contracts { tables, chain, anchors, known: RwLock::new(Arc::new(empty)) }
    }

    /// The contracts, holding at least `counts` tokens, collections and exchanges.
    async fn at_least(&self, counts: (usize, usize, usize)) -> Result<Arc<Known>, StoreError> {
        let known = Arc::clone(&self.known.read());
        let (tokens, collections, exchanges) = known.counts;
        if tokens >= counts.0 && collections >= counts.1 && exchanges >= counts.2 {
            return Ok(known);
        }
        let state = self.tables.state(self.chain, 0).await?;
        let kept = (state.tokens.len(), state.collections.len(), state.exchanges.len());
        let contracts = TablesState { pairs: Vec::new(), ..state };
        let index = restored(&contracts, 0, self.anchors, 0)
            .map_err(|error| StoreError::Damaged { what: "index tables", why: error.to_string() })?;
        let fresh = Arc::new(Known { index, counts: kept });
        *self.known.write() = Arc::clone(&fresh);
        Ok(fresh)
    }
}

/// The ledger's reads, answered from one snapshot of the tables.
pub(crate) struct TablesLedger {
    snapshot: Snapshot,
    handle: Handle,
    failure: Mutex<Option<StoreError>>,
    addresses: Mutex<HashMap<u32, Address>>,
    movements: Mutex<HashMap<u32, Movement<U256>>>,
    inner: Mutex<HashMap<u32, InnerTransfer>>,
}

impl TablesLedger {
    /// Waits on `read`; a failure is kept and `T::default()` read instead.
    fn wait<T: Default>(&self, read: impl Future<Output = Result<T, StoreError>>) -> T {
        match self.handle.block_on(read) {
            Ok(value) => value,
            Err(error) => {
                self.failure.lock().get_or_insert(error);
                T::default()
            }
        }
    }

    /// The movements of a holder, asset or collection, each kept for the answer.
    fn moves(&self, of: MovesOf) -> Cow<'static, [u32]> {
        remember(&self.movements, self.wait(self.snapshot.moves(of)), |row| row.seq, movement)
    }
}

/// `key`'s value as this answer read it before, or as `read` reads it now
/// (kept for the rest of the answer).
fn cached<K: Eq + Hash, V: Clone>(known: &Mutex<HashMap<K, V>>, key: K, read: impl FnOnce() -> V) -> V {
    if let Some(value) = known.lock().get(&key) {
        return value.clone();
    }
    let value = read();
    known.lock().insert(key, value.clone());
    value
}

/// A list's numbers, each row kept in `known` as `value` makes it: the
/// items of a list read whole are then read without a query each.
fn remember<R, T>(
    known: &Mutex<HashMap<u32, T>>,
    rows: Vec<R>,
    seq: impl Fn(&R) -> u64,
    value: impl Fn(&R) -> T,
) -> Cow<'static, [u32]> {
    let mut known = known.lock();
    let numbers = rows
        .iter()
        .map(|row| {
            let key = number(seq(row));
            known.insert(key, value(row));
            key
        })
        .collect();
    Cow::Owned(numbers)
}

/// A sequence number as the ledger's lists hold it.
fn number(seq: u64) -> u32 {
    u32::try_from(seq).unwrap_or(u32::MAX)
}

fn movement(row: &MoveRow) -> Movement<U256> {
    let at = Place { block: u32::try_from(row.block).unwrap_or(u32::MAX), transaction: row.position, log: row.log };
    let (from, to) = (Holder(row.sender), Holder(row.recipient));
    match row.moved {
        Moved::Fungible { asset } => Movement::Fungible { at, asset: Asset(asset), from, to, amount: row.amount },
        Moved::Nft { collection, token_id, multi, operator, batch } => Movement::Nft {
            at,
            collection,
            id: token_id,
            from,
            to,
            amount: u64::try_from(row.amount).unwrap_or(u64::MAX),
            multi,
            operator: operator.map(Holder),
            batch,
        },
    }
}

fn inner(row: &InnerRow) -> InnerTransfer {
    let block = u32::try_from(row.block).unwrap_or(u32::MAX);
    InnerTransfer {
        at: Place { block, transaction: Some(row.position), log: None },
        from: Holder(row.payer),
        to: Holder(row.payee),
        value: row.value,
    }
}

/// A checkpoint's block as the ledger counts blocks.
fn since<T>((block, value): (u64, T)) -> (u32, T) {
    (u32::try_from(block).unwrap_or(u32::MAX), value)
}

impl LedgerReads for TablesLedger {
    type Id = U256;

    fn find(&self, address: Address) -> Option<Holder> {
        let holder = self.wait(self.snapshot.find(address))?;
        self.addresses.lock().insert(holder, address);
        Some(Holder(holder))
    }

    fn address(&self, holder: Holder) -> Address {
        cached(&self.addresses, holder.0, || self.wait(self.snapshot.address(holder.0)).unwrap_or_default())
    }

    fn balances_at(&self, holder: Holder, block: u32) -> Vec<(Asset, u128)> {
        let balances = self.wait(self.snapshot.balances_at(holder.0, u64::from(block)));
        balances.into_iter().map(|(asset, balance)| (Asset(asset), balance)).collect()
    }

    fn supply_at(&self, asset: Asset, block: u32) -> u128 {
        self.wait(self.snapshot.supply_at(asset.0, u64::from(block)))
    }

    fn last_activity(&self, asset: Asset, block: u32) -> Option<u32> {
        let last = self.wait(self.snapshot.activity(asset.0, Some(u64::from(block))))?;
        u32::try_from(last).ok()
    }

    fn first_activity(&self, asset: Asset) -> Option<u32> {
        u32::try_from(self.wait(self.snapshot.activity(asset.0, None))?).ok()
    }

    fn movement(&self, index: u32) -> Movement<U256> {
        cached(&self.movements, index, || {
            let row = self.wait(self.snapshot.movement(u64::from(index)));
            let none = Movement::Fungible {
                at: Place::block(0),
                asset: Asset::NATIVE,
                from: Holder(0),
                to: Holder(0),
                amount: 0,
            };
            row.as_ref().map_or(none, movement)
        })
    }

    fn moves_of(&self, holder: Holder) -> Cow<'_, [u32]> {
        self.moves(MovesOf::Holder(holder.0))
    }

    fn moves_of_asset(&self, asset: Asset) -> Cow<'_, [u32]> {
        self.moves(MovesOf::Asset(asset.0))
    }

    fn moves_of_collection(&self, collection: u16) -> Cow<'_, [u32]> {
        self.moves(MovesOf::Collection(collection))
    }

    fn transactions_of(&self, holder: Holder) -> Cow<'_, [(u32, u32)]> {
        let listed = self.wait(self.snapshot.transactions_of(holder.0));
        Cow::Owned(listed.into_iter().map(|(block, position)| (number(block), position)).collect())
    }

    fn inner_transfer(&self, index: u32) -> InnerTransfer {
        cached(&self.inner, index, || {
            let row = self.wait(self.snapshot.inner(u64::from(index)));
            let none = InnerTransfer { at: Place::block(0), from: Holder(0), to: Holder(0), value: U256::ZERO };
            row.as_ref().map_or(none, inner)
        })
    }

    fn inner_transfers_of(&self, holder: Holder) -> Cow<'_, [u32]> {
        remember(&self.inner, self.wait(self.snapshot.inner_of(holder.0)), |row| row.seq, inner)
    }

    fn owner_at(&self, collection: u16, id: U256, block: u32) -> Option<(u32, Holder)> {
        let (since, owner) = since(self.wait(self.snapshot.owner_at(collection, id, u64::from(block)))?);
        Some((since, Holder(owner)))
    }

    fn amount_at(&self, holder: Holder, collection: u16, id: U256, block: u32) -> Option<(u32, u64)> {
        let read = self.wait(self.snapshot.amount_at(holder.0, collection, id, u64::from(block)))?;
        Some(since(read))
    }

    fn minted_at(&self, collection: u16, id: U256) -> Option<u32> {
        u32::try_from(self.wait(self.snapshot.minted_at(collection, id))?).ok()
    }

    fn tokens_of(&self, collection: u16) -> Cow<'_, [U256]> {
        Cow::Owned(self.wait(self.snapshot.tokens_of(collection)))
    }

    fn holders_of(&self, collection: u16, id: U256) -> Cow<'_, [Holder]> {
        Cow::Owned(self.wait(self.snapshot.holders_of(collection, id)).into_iter().map(Holder).collect())
    }

    fn nfts_of(&self, holder: Holder) -> Cow<'_, [(u16, U256)]> {
        Cow::Owned(self.wait(self.snapshot.nfts_of(holder.0)))
    }
}

/// One chain's index read from its tables for one answer: the ledger from
/// a snapshot, and the contracts from the replica's copy.
pub(crate) struct TablesView {
    ledger: TablesLedger,
    contracts: Arc<Known>,
    followed: Arc<Followed>,
    head: Option<u64>,
    first: u64,
    headers: Mutex<HashMap<u64, Option<(B256, u64)>>>,
    pairs: Mutex<HashMap<u16, Vec<PairRow>>>,
}

impl TablesView {
    /// A view of `followed`'s tables as they stand now.
    pub(crate) async fn open(
        followed: Arc<Followed>,
        tables: &IndexTables,
        contracts: &Contracts,
    ) -> Result<TablesView, SourceError> {
        let unavailable = |error: StoreError| SourceError::Unavailable(format!("the index's tables: {error}"));
        let snapshot = tables.snapshot(followed.chain).await.map_err(unavailable)?;
        let Bounds { head, first, contracts: counts } = snapshot.bounds().await.map_err(unavailable)?;
        let contracts = contracts.at_least(counts).await.map_err(unavailable)?;
        Ok(TablesView {
            ledger: TablesLedger {
                snapshot,
                handle: Handle::current(),
                failure: Mutex::new(None),
                addresses: Mutex::new(HashMap::new()),
                movements: Mutex::new(HashMap::new()),
                inner: Mutex::new(HashMap::new()),
            },
            first: first.unwrap_or(followed.first_block()),
            contracts,
            followed,
            head,
            headers: Mutex::new(HashMap::new()),
            pairs: Mutex::new(HashMap::new()),
        })
    }

    /// `answer`, unless a read failed while it was made.
    pub(crate) fn finish<T>(self, answer: Result<T, SourceError>) -> Result<T, SourceError> {
        match self.ledger.failure.into_inner() {
            Some(error) => Err(SourceError::Unavailable(format!("reading the index's tables: {error}"))),
            None => answer,
        }
    }

    fn header(&self, number: u64) -> Option<(B256, u64)> {
        if number > self.head? {
            return None;
        }
        let ledger = &self.ledger;
        cached(&self.headers, number, || ledger.wait(ledger.snapshot.header(number)))
    }

    fn pairs_of_asset(&self, asset: Asset) -> Vec<PairRow> {
        let ledger = &self.ledger;
        cached(&self.pairs, asset.0, || ledger.wait(ledger.snapshot.pairs_of(asset.0)))
    }
}

impl ChainView for TablesView {
    type Id = U256;
    type Ledger = TablesLedger;

    fn ledger(&self) -> &TablesLedger {
        &self.ledger
    }

    fn head(&self) -> Result<u64, SourceError> {
        self.head.ok_or_else(|| crate::source::not_indexed(&self.followed))
    }

    fn first_block(&self) -> u64 {
        self.first
    }

    fn timestamp(&self, block: u64) -> Option<u64> {
        self.header(block).map(|(_, timestamp)| timestamp)
    }

    fn block_hash(&self, block: u64) -> Option<B256> {
        self.header(block).map(|(hash, _)| hash)
    }

    fn last_block_at(&self, time: u64, through: u64) -> Option<u64> {
        let through = through.min(self.head?);
        self.ledger.wait(self.ledger.snapshot.last_block_at(time, self.first, through))
    }

    fn transaction(&self, block: u64, index: u32) -> Option<TransactionFacts> {
        if block > self.head? {
            return None;
        }
        let (hash, from, to, value) = self.ledger.wait(self.ledger.snapshot.transaction(block, index))?;
        Some(TransactionFacts { hash, from, to, value })
    }

    fn token(&self, asset: Asset) -> Option<TokenFacts<'_>> {
        token_facts(&self.contracts.index, &self.followed, asset)
    }

    fn collection(&self, collection: u16) -> Option<CollectionFacts<'_>> {
        collection_facts(&self.contracts.index, collection)
    }

    fn collection_at(&self, address: Address) -> Option<u16> {
        self.contracts.index.collection_index(address)
    }

    fn asset_at(&self, address: Address) -> Option<Asset> {
        self.contracts.index.asset(address)
    }

    fn follows_native(&self) -> bool {
        false
    }

    fn exchanges(&self) -> Vec<Exchange<'_>> {
        self.contracts.index.factories().iter().map(|factory| Exchange { factory: *factory, name: None }).collect()
    }

    fn pair_address(&self, pair: usize) -> Option<Address> {
        let number = u32::try_from(pair).ok()?;
        let known = self.pairs.lock().values().flatten().find(|row| row.pair == number).map(|row| row.address);
        known.or_else(|| self.ledger.wait(self.ledger.snapshot.pair(number)).map(|row| row.address))
    }

    fn wrapped_native(&self) -> Option<Address> {
        self.contracts.index.anchors().wrapped
    }
}

impl PairBook for TablesView {
    fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> {
        self.pairs_of_asset(asset).into_iter().map(|row| {
            let sides =
                PairSides { token0: Asset(row.token0), token1: Asset(row.token1), exchange: row.exchange as usize };
            (row.pair as usize, sides)
        })
    }

    fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128) {
        let Ok(pair) = u32::try_from(pair) else { return (0, 0) };
        self.ledger.wait(self.ledger.snapshot.reserves_at(pair, block))
    }

    fn decimals(&self, asset: Asset) -> u8 {
        PairBook::decimals(&self.contracts.index, asset)
    }
}
