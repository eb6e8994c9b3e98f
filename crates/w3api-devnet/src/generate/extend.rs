//! Growing a chain after it is generated, a block at a time: live blocks of
//! ordinary activity, and blocks that cheat methods ask for. A new block is
//! made as the generated ones are (simulated on the ledger, signed, sealed
//! onto the last block's hash) and appended, with its prices indexed.

use std::collections::BTreeSet;

use alloy_eips::eip1559::BaseFeeParams;
use alloy_primitives::{Address, Bytes, U256};
use alloy_signer_local::PrivateKeySigner;
use w3api_chain::revm::state::Bytecode;
use w3api_chain::{Archive, ChainState};
use w3api_source::SourceError;

use super::model::{BLOCK_TIME, ChainData};
use super::sealing::{seal, sign};
use super::simulation::{Action, Memory, SignedTransaction, Simulation};
use crate::accounts::{Accounts, Signers};
use crate::pool::Pool;
use crate::scale::Scale;

/// The latest block timestamp a chain takes: 9999-12-31T23:59:59Z. The
/// Data API writes dates as RFC 3339, whose years have four digits, so a
/// block after it would break every answer that dates it.
pub const LAST_TIMESTAMP: u64 = 253_402_300_799;

/// A block timestamp past [`LAST_TIMESTAMP`], refused.
fn too_late(what: String) -> SourceError {
    SourceError::InvalidChange(format!(
        "{what} would take the next block's timestamp past {LAST_TIMESTAMP} (9999-12-31T23:59:59Z), the latest \
         date the Data API writes"
    ))
}

/// What the next block of a chain starts from, besides the chain itself.
#[derive(Clone, Debug)]
pub(crate) struct Producer {
    pub(crate) memory: Memory,
    /// The next block's timestamp, when set (`evm_setNextBlockTimestamp`).
    next_timestamp: Option<u64>,
    /// Seconds the next block comes later than it would (`evm_increaseTime`).
    pending_increase: u64,
    /// Wallets tests created on this chain, in order (account indexes
    /// after the devnet's own).
    pub(crate) created: Vec<PrivateKeySigner>,
    /// Whether a sent transaction is mined at once; the server's default
    /// (`--block-time` turns it off) until `evm_setAutomine` says.
    pub(crate) automine: Option<bool>,
    /// Seconds between the blocks interval mining makes, when it is on
    /// (`evm_setIntervalMining`).
    pub(crate) interval: Option<u64>,
    /// Sent transactions waiting for a block: with automine off, and
    /// those whose nonce is ahead of their sender's.
    pub(crate) pool: Pool,
    /// Accounts `eth_sendTransaction` sends for without their keys.
    pub(crate) impersonated: BTreeSet<Address>,
}

impl Producer {
    pub(super) fn new(memory: Memory) -> Producer {
        Producer {
            memory,
            next_timestamp: None,
            pending_increase: 0,
            created: Vec::new(),
            automine: None,
            interval: None,
            pool: Pool::default(),
            impersonated: BTreeSet::new(),
        }
    }
}

/// A change of an account's state that no transaction makes (the cheat
/// methods `anvil_setCode`, `anvil_setStorageAt`, `anvil_setNonce`,
/// `anvil_setBalance`),
/// written at the start of a new block so that its state root holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateEdit {
    /// The account's code.
    Code(Address, Bytes),
    /// One storage slot.
    Storage(Address, U256, U256),
    /// The account's nonce.
    Nonce(Address, u64),
    /// The account's balance, in wei.
    Balance(Address, U256),
}

impl StateEdit {
    pub(super) fn apply(self, archive: &mut Archive, block: u64) {
        match self {
            StateEdit::Code(address, code) => archive.set_code(block, address, Bytecode::new_raw(code)),
            StateEdit::Storage(address, slot, value) => archive.set_storage(block, address, slot, value),
            StateEdit::Nonce(address, nonce) => {
                let account = archive.account(address, block);
                archive.set_account(block, address, w3api_chain::Account { nonce, ..account });
            }
            StateEdit::Balance(address, balance) => {
                let account = archive.account(address, block);
                archive.set_account(block, address, w3api_chain::Account { balance, ..account });
            }
        }
    }
}

/// A block to make.
#[derive(Clone, Debug, Default)]
pub struct BlockPlan {
    /// Seconds after the block before; [`BLOCK_TIME`] when `None`. A
    /// timestamp set for the next block, or time added, takes precedence.
    pub interval: Option<u64>,
    /// Random transactions of ordinary activity (transfers, swaps, mints),
    /// as the generated blocks have; an empty block otherwise.
    pub activity: bool,
    /// Transactions the block starts with: all are made, or none and the
    /// block neither.
    pub(crate) transactions: Vec<Action>,
    /// State written before them.
    pub(crate) edits: Vec<StateEdit>,
}

impl BlockPlan {
    /// A block with no transactions, as `evm_mine` makes.
    pub fn empty() -> BlockPlan {
        BlockPlan::default()
    }

    /// A block of random activity, as live blocks are.
    pub fn activity() -> BlockPlan {
        BlockPlan { activity: true, ..BlockPlan::default() }
    }

    /// A block whose one transaction is a transfer of `amount` wei of the
    /// native currency from the devnet's faucet (its deployer) to `to`.
    pub fn funding(to: Address, amount: u128) -> BlockPlan {
        BlockPlan::with(vec![Action::NativeTransfer { from: Accounts::DEPLOYER, to, amount }])
    }

    /// A block of one transaction a user signed (automine).
    pub(crate) fn signed(signed: SignedTransaction) -> BlockPlan {
        BlockPlan::with(vec![Action::Signed(Box::new(signed))])
    }

    /// A block of these transactions.
    pub(crate) fn with(transactions: Vec<Action>) -> BlockPlan {
        BlockPlan { transactions, ..BlockPlan::default() }
    }

    /// A block that makes one change of state no transaction makes.
    pub(crate) fn edit(edit: StateEdit) -> BlockPlan {
        BlockPlan { edits: vec![edit], ..BlockPlan::default() }
    }

    /// The same plan, `seconds` after the block before.
    pub fn after(self, seconds: u64) -> BlockPlan {
        BlockPlan { interval: Some(seconds), ..self }
    }
}

impl ChainData {
    /// Makes the next block as planned and appends it; returns its number.
    pub(crate) fn append_block(
        &mut self,
        seed: u64,
        scale: &Scale,
        accounts: &Accounts,
        plan: BlockPlan,
    ) -> Result<u64, SourceError> {
        let number = self.latest() + 1;
        let parent = self.blocks.last().expect("a chain has its genesis block");
        let (parent_header, parent_hash) = (parent.header.clone(), parent.hash);
        let timestamp = self.next_timestamp(parent_header.timestamp, plan.interval);
        if timestamp > LAST_TIMESTAMP {
            return Err(too_late(format!("block {number} at {timestamp}")));
        }
        let bases = (self.transactions.len() as u32, self.logs.len() as u32);
        // The pool's pending transactions go into the next block made.
        let base_fee = parent_header.next_block_base_fee(BaseFeeParams::ethereum()).unwrap_or_default();
        let archive = self.state.archive();
        let waiting = self.producer.pool.ready(|sender| archive.account(sender, number - 1).nonce, base_fee);
        let ledger = std::mem::take(&mut self.ledger);
        let state = std::mem::replace(&mut self.state, ChainState::new(0));
        let memory = self.producer.memory.clone();
        let signers = Signers::new(accounts, &self.producer.created);
        let parts = (ledger, state);
        let mut simulation =
            Simulation::resume(self.chain, seed, scale, signers, &self.world, parts, memory, bases, &parent_header);
        let mut planned = plan.transactions;
        planned.extend(waiting.iter().cloned().map(|signed| Action::Pending(Box::new(signed))));
        let made = simulation.live_block(number as u32, timestamp, plan.edits, planned, plan.activity);
        let memory = simulation.memory();
        let Simulation { mut ledger, chain: mut state, unsigned, pending, receipts, logs, sales, found, .. } =
            simulation;
        if made.is_err() {
            // What the block's first transactions did goes with it.
            ledger.rollback_to(number as u32 - 1);
            state.truncate_after(number - 1);
        }
        (self.ledger, self.state) = (ledger, state);
        made?;
        found.into_world(&mut self.world);
        let transactions = sign(unsigned, Signers::new(accounts, &self.producer.created));
        let mut blocks = seal(seed, self.chain, pending, &transactions, parent_hash);
        self.producer.memory = memory;
        self.producer.next_timestamp = None;
        self.producer.pending_increase = 0;
        for block in &mut blocks {
            self.state.archive_mut().set_block_hash(block.header.number, block.hash);
            block.first_tx += bases.0;
        }
        self.indexes.add_blocks(&blocks, &transactions, bases.0);
        self.indexes.add_sales(&sales, self.sales.len() as u32);
        self.blocks.extend(blocks);
        self.transactions.extend(transactions);
        self.receipts.extend(receipts);
        self.logs.extend(logs);
        self.sales.extend(sales);
        self.index_prices_of(number);
        // What the block took leaves the pool, and what it refused too.
        let left_out: Vec<_> = waiting
            .iter()
            .map(|signed| *signed.envelope.tx_hash())
            .filter(|hash| self.indexes.transaction_position(hash).is_none())
            .collect();
        let archive = self.state.archive();
        self.producer.pool.settle(|sender| archive.account(sender, number).nonce, &left_out);
        Ok(number)
    }

    /// The next block's timestamp: the one set for it, or `interval` (or
    /// [`BLOCK_TIME`]) after its parent plus any time added; always later
    /// than its parent's.
    fn next_timestamp(&self, parent: u64, interval: Option<u64>) -> u64 {
        let timestamp = self.producer.next_timestamp.unwrap_or_else(|| {
            parent.saturating_add(interval.unwrap_or(BLOCK_TIME)).saturating_add(self.producer.pending_increase)
        });
        timestamp.max(parent.saturating_add(1))
    }

    /// Sets the next block's timestamp (`evm_setNextBlockTimestamp`): it
    /// must come after the newest block's, and by [`LAST_TIMESTAMP`].
    pub(crate) fn set_next_timestamp(&mut self, timestamp: u64) -> Result<(), SourceError> {
        if timestamp > LAST_TIMESTAMP {
            return Err(too_late(format!("timestamp {timestamp}")));
        }
        let newest = self.timestamp(self.latest());
        if timestamp <= newest {
            return Err(SourceError::InvalidChange(format!(
                "timestamp {timestamp} is not after the newest block's, {newest}: block timestamps only grow"
            )));
        }
        self.producer.next_timestamp = Some(timestamp);
        Ok(())
    }

    /// Makes the next block come `seconds` later (`evm_increaseTime`);
    /// returns the seconds now added, in all.
    pub(crate) fn increase_time(&mut self, seconds: u64) -> Result<u64, SourceError> {
        let added = self.producer.pending_increase.saturating_add(seconds);
        if self.last_timestamp(1, None, added) > LAST_TIMESTAMP {
            return Err(too_late(format!("adding {seconds} seconds")));
        }
        self.producer.pending_increase = added;
        Ok(added)
    }

    /// Refuses `blocks` blocks `interval` seconds apart (or
    /// [`BLOCK_TIME`]) when the last would be timestamped past
    /// [`LAST_TIMESTAMP`], before any is made.
    pub(crate) fn check_blocks_fit(&self, blocks: u64, interval: Option<u64>) -> Result<(), SourceError> {
        if blocks > 0 && self.last_timestamp(blocks, interval, self.producer.pending_increase) > LAST_TIMESTAMP {
            let every = interval.unwrap_or(BLOCK_TIME);
            return Err(too_late(format!("{blocks} blocks {every} seconds apart")));
        }
        Ok(())
    }

    /// The timestamp of the last of `blocks` blocks made next, `interval`
    /// seconds apart, with `added` seconds before the first.
    fn last_timestamp(&self, blocks: u64, interval: Option<u64>, added: u64) -> u64 {
        let newest = self.timestamp(self.latest());
        let every = interval.unwrap_or(BLOCK_TIME);
        let first = self.producer.next_timestamp.unwrap_or_else(|| newest.saturating_add(every).saturating_add(added));
        let rest = blocks.saturating_sub(1).saturating_mul(every.max(1));
        first.max(newest.saturating_add(1)).saturating_add(rest)
    }
}
