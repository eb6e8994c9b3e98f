//! The embedded chain's state, executed by revm: every account and slot by
//! block (`archive`), the EVM over it (`evm`), and the state root after
//! each block with EIP-1186 proofs (`roots`).
//!
//! Whoever drives the chain (the devnet's traffic generator, a user's
//! transaction) runs each transaction with [`ChainState::transact`], keeps
//! it with [`ChainState::commit`], and closes the block with
//! [`ChainState::seal`], which answers the header's state root.

mod archive;
mod evm;
pub mod forks;
pub mod genesis;
pub mod import;
mod overrides;
mod roots;
pub mod simulate;
pub mod trace;
mod transfers;
pub mod watch;

use alloy_primitives::{Address, B256};

pub use archive::{Account, Archive, StateAt};
pub use evm::{BlockSpec, Checks, Outcome, Refused, SPEC, Unfinished, describe, describe_invalid};
pub use overrides::{AccountOverride, Overrides};
pub use revm;
pub use roots::Proof;
pub use transfers::{CONSOLE, InnerTransfer, Inside};

use evm::{transact, transact_watched};
use revm::DatabaseRef;
use revm::context::TxEnv;
use revm::state::EvmState;
use roots::StateTries;

/// Runs `tx` in `block` over `state` (a chain's state after the block
/// before, read however its holder shares it) with `overrides` assumed,
/// as a call runs: nothing is committed, and the run ends early once
/// `stop` says so (see [`watch`]).
pub fn execute<D: DatabaseRef>(
    state: D,
    chain_id: u64,
    block: &BlockSpec,
    tx: TxEnv,
    checks: Checks,
    overrides: &Overrides,
    stop: &dyn Fn() -> bool,
) -> Result<Outcome, Unfinished<D::Error>> {
    transact_watched(overrides::Overridden::new(state, overrides), chain_id, block, tx, checks, stop)
}

/// A chain's state at every block, and the tries of its latest.
#[derive(Clone, Debug)]
pub struct ChainState {
    chain_id: u64,
    archive: Archive,
    tries: StateTries,
}

impl ChainState {
    /// An empty state for chain `chain_id`.
    pub fn new(chain_id: u64) -> ChainState {
        ChainState { chain_id, archive: Archive::default(), tries: StateTries::default() }
    }

    /// The chain id transactions are checked against.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// Every account and slot by block.
    pub fn archive(&self) -> &Archive {
        &self.archive
    }

    /// For changes outside transactions: genesis allocations and cheat methods.
    pub fn archive_mut(&mut self) -> &mut Archive {
        &mut self.archive
    }

    /// Runs `tx` in `block` over the state after `after` (the block
    /// before, or `block` itself for one in progress); commits nothing.
    pub fn transact(&self, after: u64, block: &BlockSpec, tx: TxEnv, checks: Checks) -> Result<Outcome, Refused> {
        transact(self.archive.at(after), self.chain_id, block, tx, checks)
    }

    /// Runs `tx` as [`ChainState::transact`] does, for a block being made:
    /// also answers what it did inside, the native value its inner calls
    /// moved (which the ledger learns) and its `console.log` calls.
    pub fn transact_moving(
        &self,
        after: u64,
        block: &BlockSpec,
        tx: TxEnv,
        checks: Checks,
    ) -> Result<(Outcome, Inside), Refused> {
        transfers::transact_moving(self.archive.at(after), self.chain_id, block, tx, checks)
    }

    /// Keeps what a transaction of `block` changed.
    pub fn commit(&mut self, block: u64, changes: EvmState) {
        self.archive.commit(block, changes);
    }

    /// Closes `block`: answers the state root after it.
    pub fn seal(&mut self, block: u64) -> B256 {
        let touched = self.archive.take_touched();
        self.tries.seal(&self.archive, block, touched)
    }

    /// An account and some of its slots after `block`, proven against that block's state root.
    pub fn proof(&self, block: u64, address: Address, slots: &[B256]) -> Proof {
        roots::prove(&self.tries, &self.archive, block, address, slots)
    }

    /// The account trie after `block`.
    pub(crate) fn account_trie_at(&self, block: u64) -> w3api_trie::Trie {
        self.tries.account_trie_at(&self.archive, block)
    }

    /// The storage trie of `address` after `block`.
    pub(crate) fn storage_trie_at(&self, address: Address, block: u64) -> w3api_trie::Trie {
        self.tries.storage_trie_at(&self.archive, address, block)
    }

    /// Forgets every block after `block`.
    pub fn truncate_after(&mut self, block: u64) {
        self.archive.truncate_after(block);
        self.tries.truncate_after(&self.archive, block);
    }
}
