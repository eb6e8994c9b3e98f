//! The writer: one batch of blocks at a time, applied by the in-memory
//! index's own rules over a window ledger, written as rows.

use std::collections::{HashMap, HashSet, VecDeque};

use alloy_primitives::{Address, U256};
use w3api_ledger::apply::{self, Read};
use w3api_ledger::pricing::PairSides;
use w3api_ledger::{Asset, Holder, Ledger, Movement, PairInfo, PairReserves, events};
use w3api_store::IndexTables;
use w3api_store::StoreError;
use w3api_store::index_tables::{
    AmountRow, BalanceRow, CarriedKeys, CollectionRow, HeaderRow, InnerRow, MoveRow, Moved, NftFirst, OwnerRow,
    PairRow, Progress, ReserveRow, SupplyRow, TableBatch, TablesState, TokenRow, TransactionRow,
};
use w3api_types::Chain;

use crate::follow::FollowError;
use crate::index::{Anchors, ChainIndex, Continuity, Discovery, IndexError};
use crate::journal::{Entry, Journal};

/// Most holders a chain's tables number (their column is a signed 32-bit integer).
const MOST_HOLDERS: u32 = i32::MAX as u32;

/// A chain's index as its writer keeps it in tables.
#[derive(Debug)]
pub(crate) struct TableWriter {
    tables: IndexTables,
    chain: Chain,
    /// The contracts, exchanges and pairs; its ledger holds one batch.
    window: ChainIndex,
    /// The newest blocks written, oldest first: what a reorganisation may
    /// be rolled back to.
    recent: VecDeque<HeaderRow>,
    /// Most blocks a reorganisation may undo.
    reorg_depth: u64,
    /// The number of the next block to write.
    next: u64,
    progress: Progress,
    next_holder: u32,
    /// Exchanges and pairs the tables hold.
    exchanges_written: usize,
    pairs_written: usize,
}

/// Why the tables cannot be written from here.
fn refused(why: String) -> FollowError {
    FollowError::Store(StoreError::Damaged { what: "index tables", why })
}

impl TableWriter {
    /// The writer of `chain`'s index from where the tables stand: indexing
    /// from `first_block` with `anchors` when they hold nothing yet.
    pub(crate) async fn open(
        tables: IndexTables,
        chain: Chain,
        first_block: u64,
        anchors: Anchors,
        reorg_depth: u64,
    ) -> Result<TableWriter, FollowError> {
        let state = tables.state(chain, reorg_depth + 1).await?;
        let progress = state.progress.unwrap_or(Progress { first_block, next_move: 0, next_inner: 0, revision: 0 });
        if progress.first_block != first_block {
            return Err(refused(format!(
                "{chain}'s tables index it from block {}, and this server from block {first_block}: \
                 start it with the same first block, or on another database",
                progress.first_block
            )));
        }
        let window = restored(&state, first_block, anchors, reorg_depth)?;
        Ok(TableWriter {
            tables,
            chain,
            next: state.headers.last().map_or(first_block, |head| head.number + 1),
            recent: state.headers.into_iter().collect(),
            reorg_depth,
            progress,
            // Number 0 is the zero address's, given with the first batch.
            next_holder: state.next_holder.max(1),
            exchanges_written: window.factories().len(),
            pairs_written: window.pairs().len(),
            window,
        })
    }

    /// The number of the next block to write.
    pub(crate) fn next_block(&self) -> u64 {
        self.next
    }

    /// Where the tables stand.
    pub(crate) fn progress(&self) -> Progress {
        self.progress
    }

    /// The newest block written; `None` before the first.
    pub(crate) fn head(&self) -> Option<u64> {
        self.next.checked_sub(1).filter(|head| *head >= self.progress.first_block)
    }

    /// The hash of one of the newest blocks written.
    pub(crate) fn hash_at(&self, number: u64) -> Option<alloy_primitives::B256> {
        let oldest = self.recent.front()?.number;
        let offset = usize::try_from(number.checked_sub(oldest)?).ok()?;
        self.recent.get(offset).map(|header| header.hash)
    }

    /// The oldest block a reorganisation may be rolled back to.
    pub(crate) fn lowest_kept(&self) -> Option<u64> {
        self.recent.front().map(|header| header.number)
    }

    /// The contracts `block` names that must be registered before it is written.
    pub(crate) fn discoveries(&self, block: &crate::IndexedBlock) -> Vec<Discovery> {
        self.window.discoveries(block)
    }

    /// Writes `entries` (blocks in order, each with the contracts it
    /// registers) after dropping every block after `rollback_after`, in one
    /// transaction under `lease`. `false`, with nothing written, when this
    /// replica no longer holds the lease; the writer must then be opened
    /// again, as after any error, since it may have taken in what the
    /// tables did not.
    pub(crate) async fn write(
        &mut self,
        lease: &Journal,
        rollback_after: Option<u64>,
        entries: &[Entry],
    ) -> Result<bool, FollowError> {
        if let Some(after) = rollback_after {
            self.rewind(after).await?;
        }
        let first = self.next_block();
        if let Some(Entry { block, .. }) = entries.first() {
            if block.number != first {
                let continuity = Continuity::Gap { expected: first };
                return Err(IndexError::NotNext { number: block.number, continuity }.into());
            }
            // A zero parent links by number, as in memory (Hardhat's mined runs).
            let parent = first.checked_sub(1).and_then(|number| self.hash_at(number));
            if parent.is_some_and(|parent| parent != block.parent_hash) && !block.parent_hash.is_zero() {
                return Err(FollowError::Forked(block.number));
            }
        }
        self.window.start_window(first);
        for entry in entries {
            for (token, meta) in &entry.tokens {
                self.window.register_token(*token, meta.clone())?;
            }
            for (collection, meta) in &entry.collections {
                self.window.register_collection(*collection, meta.clone())?;
            }
        }
        let numbered = self.carry_in(first, entries).await?;
        for entry in entries {
            for refusal in self.window.apply(&entry.block)? {
                tracing::warn!(chain = %self.chain, block = entry.block.number, %refusal, "log not applied");
            }
        }
        let mut batch = self.rows(first, entries, numbered).await?;
        batch.rollback_after = rollback_after;
        if let (Some(_), Some(progress)) = (rollback_after, batch.progress.as_mut()) {
            progress.revision += 1;
        }
        if !lease.write_tables(&self.tables, self.chain, &batch).await? {
            return Ok(false);
        }
        self.written(&batch);
        Ok(true)
    }

    /// Forgets what the tables hold of the chain, to index it again from
    /// its first block; `false` when this replica no longer holds the lease.
    pub(crate) async fn clear(&mut self, lease: &Journal) -> Result<bool, FollowError> {
        if !lease.clear_tables(&self.tables, self.chain).await? {
            return Ok(false);
        }
        let (first_block, anchors) = (self.progress.first_block, self.window.anchors());
        *self = TableWriter::open(self.tables.clone(), self.chain, first_block, anchors, self.reorg_depth).await?;
        Ok(true)
    }

    /// Drops, from what the writer holds, the blocks after `after`.
    async fn rewind(&mut self, after: u64) -> Result<(), FollowError> {
        while self.recent.back().is_some_and(|head| head.number > after) {
            self.recent.pop_back();
        }
        self.next = self.next.min(after + 1).max(self.progress.first_block);
        self.window.drop_pairs_after(after);
        self.pairs_written = self.window.pairs().len();
        let (next_move, next_inner) = self.tables.sequences_after(self.chain, after).await?;
        self.progress.next_move = next_move;
        self.progress.next_inner = next_inner;
        Ok(())
    }

    /// Gives the window's ledger the values its blocks read, as the blocks
    /// before `first` left them; the tables' numbers of the holders it
    /// looked up.
    async fn carry_in(&mut self, first: u64, entries: &[Entry]) -> Result<HashMap<Address, u32>, FollowError> {
        let Some(before) = first.checked_sub(1) else { return Ok(HashMap::new()) };
        let mut reads = HashSet::new();
        for entry in entries {
            for log in &entry.block.logs {
                let Some(event) = events::decode(&log.topics, &log.data) else { continue };
                reads.extend(apply::reads(log.address, &event, &self.window));
            }
        }
        let addresses: Vec<Address> = reads
            .iter()
            .filter_map(|read| match read {
                Read::Balance(address, _) | Read::Amount(address, _, _) => Some(*address),
                Read::Supply(_) | Read::Owner(..) => None,
            })
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let numbered: HashMap<Address, u32> = self.tables.holders(self.chain, &addresses).await?.into_iter().collect();
        let mut keys = CarriedKeys::default();
        for read in &reads {
            match *read {
                Read::Balance(address, asset) => {
                    keys.balances.extend(numbered.get(&address).map(|holder| (*holder, asset.0)));
                }
                Read::Supply(asset) => keys.supplies.push(asset.0),
                Read::Owner(collection, id) => keys.owners.push((collection, id)),
                Read::Amount(address, collection, id) => {
                    keys.amounts.extend(numbered.get(&address).map(|holder| (*holder, collection, id)));
                }
            }
        }
        let carried = self.tables.carried(self.chain, before, &keys).await?;
        let addresses: HashMap<u32, Address> = numbered.iter().map(|(address, n)| (*n, *address)).collect();
        let owners = self.tables.addresses(self.chain, carried.owners.iter().map(|(_, _, owner)| *owner)).await?;
        let block = ledger_block(before);
        let ledger = self.window.window_ledger();
        for (holder, asset, balance) in carried.balances {
            ledger.carry_balance(block, addresses[&holder], Asset(asset), balance);
        }
        for (asset, supply) in carried.supplies {
            ledger.carry_supply(block, Asset(asset), supply);
        }
        for (collection, id, owner) in carried.owners {
            ledger.carry_owner(block, collection, id, owners[&owner]);
        }
        for (holder, collection, id, amount) in carried.amounts {
            ledger.carry_amount(block, addresses[&holder], collection, id, amount);
        }
        Ok(numbered)
    }

    /// Every address the window's ledger knows, by its number in the
    /// tables (those `known` already, and the others looked up); new ones
    /// are numbered now.
    async fn number_holders(
        &mut self,
        mut known: HashMap<Address, u32>,
        batch: &mut TableBatch,
    ) -> Result<Vec<u32>, FollowError> {
        let ledger = self.window.ledger();
        let addresses: Vec<Address> = (0..ledger.holders()).map(|i| ledger.address(Holder(i as u32))).collect();
        let unknown: Vec<Address> = addresses.iter().filter(|address| !known.contains_key(*address)).copied().collect();
        known.extend(self.tables.holders(self.chain, &unknown).await?);
        let mut numbers = Vec::with_capacity(addresses.len());
        for address in addresses {
            let number = match known.get(&address) {
                Some(number) => *number,
                // The zero address is number 0: mints' source, burns' sink.
                None if address == Address::ZERO => 0,
                None if self.next_holder >= MOST_HOLDERS => {
                    return Err(refused(format!("{} has more than {MOST_HOLDERS} addresses", self.chain)));
                }
                None => {
                    self.next_holder += 1;
                    self.next_holder - 1
                }
            };
            if !known.contains_key(&address) {
                batch.holders.push((number, address));
            }
            numbers.push(number);
        }
        Ok(numbers)
    }

    /// What the window's blocks add to the tables.
    async fn rows(
        &mut self,
        first: u64,
        entries: &[Entry],
        numbered: HashMap<Address, u32>,
    ) -> Result<TableBatch, FollowError> {
        let mut batch = TableBatch::default();
        let numbers = self.number_holders(numbered, &mut batch).await?;
        let id = |holder: Holder| numbers[holder.0 as usize];
        let ledger = self.window.ledger();
        self.contract_rows(entries, &mut batch);
        block_rows(entries, ledger, &id, self.progress.next_inner, &mut batch);
        movement_rows(ledger, &id, self.progress.next_move, &mut batch);
        value_rows(ledger, &id, ledger_block(first), &mut batch);
        pair_rows(self.window.pairs(), self.pairs_written, first, &mut batch);
        batch.progress = Some(Progress {
            first_block: self.progress.first_block,
            next_move: self.progress.next_move + batch.moves.len() as u64,
            next_inner: self.progress.next_inner + batch.inner.len() as u64,
            revision: self.progress.revision,
        });
        Ok(batch)
    }

    fn contract_rows(&self, entries: &[Entry], batch: &mut TableBatch) {
        for entry in entries {
            for (address, meta) in &entry.tokens {
                if let Some(asset) = self.window.asset(*address) {
                    let (name, symbol) = (meta.name.clone(), meta.symbol.clone());
                    batch.tokens.push(TokenRow {
                        asset: asset.0,
                        address: *address,
                        name,
                        symbol,
                        decimals: meta.decimals,
                    });
                }
            }
            for (address, meta) in &entry.collections {
                if let Some(collection) = self.window.collection_index(*address) {
                    let (name, symbol, erc1155) = (meta.name.clone(), meta.symbol.clone(), meta.erc1155);
                    batch.collections.push(CollectionRow { collection, address: *address, name, symbol, erc1155 });
                }
            }
        }
        let factories = self.window.factories().iter().enumerate().skip(self.exchanges_written);
        batch.exchanges.extend(factories.map(|(number, factory)| (number as u32, *factory)));
    }

    /// Takes in what a written batch changed.
    fn written(&mut self, batch: &TableBatch) {
        self.recent.extend(batch.headers.iter().copied());
        if let Some(head) = batch.headers.last() {
            self.next = head.number + 1;
        }
        let keep = usize::try_from(self.reorg_depth + 1).unwrap_or(usize::MAX);
        while self.recent.len() > keep {
            self.recent.pop_front();
        }
        if let Some(progress) = batch.progress {
            self.progress = progress;
        }
        self.exchanges_written = self.window.factories().len();
        self.pairs_written = self.window.pairs().len();
    }
}

/// The block number as the ledger counts blocks.
fn ledger_block(number: u64) -> u32 {
    u32::try_from(number).unwrap_or(u32::MAX)
}

/// The window index of a writer whose tables hold `state`: its contracts,
/// exchanges and pairs, numbered as the tables number them.
pub(super) fn restored(
    state: &TablesState,
    first: u64,
    anchors: Anchors,
    reorg_depth: u64,
) -> Result<ChainIndex, FollowError> {
    let mut window = ChainIndex::new(first, anchors, reorg_depth);
    let mismatch = |what: &str, kept: u64, got: u64| {
        refused(format!(
            "the tables number {what} {kept} as {got} here: they were written with other anchors (--wrapped, \
             --stablecoin); start with the same ones, or on another database"
        ))
    };
    for token in &state.tokens {
        let meta =
            crate::TokenMeta { name: token.name.clone(), symbol: token.symbol.clone(), decimals: token.decimals };
        let asset = window.register_token(token.address, meta)?;
        if asset.0 != token.asset {
            return Err(mismatch("token", u64::from(token.asset), u64::from(asset.0)));
        }
    }
    for collection in &state.collections {
        let meta = crate::CollectionMeta {
            name: collection.name.clone(),
            symbol: collection.symbol.clone(),
            erc1155: collection.erc1155,
        };
        let number = window.register_collection(collection.address, meta)?;
        if number != collection.collection {
            return Err(mismatch("collection", u64::from(collection.collection), u64::from(number)));
        }
    }
    for factory in &state.exchanges {
        window.restore_exchange(*factory);
    }
    for pair in &state.pairs {
        let sides =
            PairSides { token0: Asset(pair.token0), token1: Asset(pair.token1), exchange: pair.exchange as usize };
        let created = ledger_block(pair.created);
        window.restore_pair(PairInfo { address: pair.address, sides, created });
    }
    Ok(window)
}

/// Pairs numbered `from` on, and every reserve set in block `first` or after.
pub(super) fn pair_rows(pairs: &PairReserves, from: usize, first: u64, batch: &mut TableBatch) {
    for number in from..pairs.len() {
        let Some(pair) = pairs.pair(number) else { continue };
        batch.pairs.push(PairRow {
            pair: number as u32,
            address: pair.address,
            token0: pair.sides.token0.0,
            token1: pair.sides.token1.0,
            exchange: pair.sides.exchange as u32,
            created: u64::from(pair.created),
        });
    }
    for number in 0..pairs.len() {
        for block in pairs.change_blocks(number).filter(|block| u64::from(*block) >= first) {
            let reserves = pairs.reserves_at(number, u64::from(block));
            batch.reserves.push(ReserveRow { pair: number as u32, block: u64::from(block), reserves });
        }
    }
}

/// Headers, transactions and inner transfers of the blocks.
pub(super) fn block_rows(
    entries: &[Entry],
    ledger: &Ledger<U256>,
    id: &impl Fn(Holder) -> u32,
    next_inner: u64,
    batch: &mut TableBatch,
) {
    let number_of = |address: Address| ledger.find(address).map_or(0, id);
    for entry in entries {
        let block = &entry.block;
        batch.headers.push(HeaderRow {
            number: block.number,
            hash: block.hash,
            parent_hash: block.parent_hash,
            timestamp: block.timestamp,
        });
        for (position, tx) in block.transactions.iter().enumerate() {
            batch.transactions.push(TransactionRow {
                block: block.number,
                position: position as u32,
                hash: tx.hash,
                sender: number_of(tx.from),
                recipient: tx.to.map(number_of),
                value: tx.value,
            });
        }
        for inner in &block.inner {
            batch.inner.push(InnerRow {
                seq: next_inner + batch.inner.len() as u64,
                block: block.number,
                position: inner.transaction_index,
                payer: number_of(inner.from),
                payee: number_of(inner.to),
                value: inner.value,
            });
        }
    }
}

/// The window's movements, numbered from `next_move`, and the NFTs they
/// gave and minted for the first time (as the ledger's own lists keep them).
pub(super) fn movement_rows(
    ledger: &Ledger<U256>,
    id: &impl Fn(Holder) -> u32,
    next_move: u64,
    batch: &mut TableBatch,
) {
    let (mut held, mut minted) = (HashSet::new(), HashSet::new());
    for (offset, movement) in ledger.movements().iter().enumerate() {
        let seq = next_move + offset as u64;
        let row = match *movement {
            Movement::Fungible { at, asset, from, to, amount } => MoveRow {
                seq,
                block: u64::from(at.block),
                position: at.transaction,
                log: at.log,
                moved: Moved::Fungible { asset: asset.0 },
                sender: id(from),
                recipient: id(to),
                amount,
            },
            Movement::Nft { at, collection, id: token_id, from, to, amount, multi, operator, batch: in_batch } => {
                let block = u64::from(at.block);
                if to != Holder::NOBODY && held.insert((to, collection, token_id)) {
                    batch.held.push(NftFirst { holder: id(to), collection, token_id, block, seq });
                }
                if from == Holder::NOBODY && minted.insert((collection, token_id)) {
                    batch.minted.push(NftFirst { holder: 0, collection, token_id, block, seq });
                }
                MoveRow {
                    seq,
                    block,
                    position: at.transaction,
                    log: at.log,
                    moved: Moved::Nft { collection, token_id, multi, operator: operator.map(id), batch: in_batch },
                    sender: id(from),
                    recipient: id(to),
                    amount: u128::from(amount),
                }
            }
        };
        batch.moves.push(row);
    }
}

/// The checkpoints the window's movements set from block `first` on:
/// balances, supplies, owners and amounts.
pub(super) fn value_rows(ledger: &Ledger<U256>, id: &impl Fn(Holder) -> u32, first: u32, batch: &mut TableBatch) {
    let (mut balances, mut supplies, mut owners, mut amounts) =
        (HashSet::new(), HashSet::new(), HashSet::new(), HashSet::new());
    for movement in ledger.movements() {
        match *movement {
            Movement::Fungible { asset, from, to, .. } => {
                supplies.insert(asset);
                balances.extend([from, to].into_iter().filter(|h| *h != Holder::NOBODY).map(|h| (h, asset)));
            }
            Movement::Nft { collection, id: token_id, multi: false, .. } => {
                owners.insert((collection, token_id));
            }
            Movement::Nft { collection, id: token_id, from, to, .. } => {
                let sides = [from, to].into_iter().filter(|h| *h != Holder::NOBODY);
                amounts.extend(sides.map(|h| (h, collection, token_id)));
            }
        }
    }
    for (holder, asset) in balances {
        let Some(history) = ledger.balance_history(holder, asset) else { continue };
        batch.balances.extend(history.since(first).map(|(block, balance)| BalanceRow {
            holder: id(holder),
            asset: asset.0,
            block: u64::from(block),
            balance,
        }));
    }
    for asset in supplies {
        let Some(history) = ledger.supply_history(asset) else { continue };
        batch.supplies.extend(history.since(first).map(|(block, supply)| SupplyRow {
            asset: asset.0,
            block: u64::from(block),
            supply,
        }));
    }
    for (collection, token_id) in owners {
        let Some(history) = ledger.erc721_history(collection, token_id) else { continue };
        batch.owners.extend(history.view().since(first).map(|(block, owner)| OwnerRow {
            collection,
            token_id,
            block: u64::from(block),
            owner: id(owner),
        }));
    }
    for (holder, collection, token_id) in amounts {
        let Some(history) = ledger.erc1155_history(holder, collection, token_id) else { continue };
        batch.amounts.extend(history.view().since(first).map(|(block, amount)| AmountRow {
            holder: id(holder),
            collection,
            token_id,
            block: u64::from(block),
            amount,
        }));
    }
}
