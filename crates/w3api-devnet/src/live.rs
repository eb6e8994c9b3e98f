//! A chain that changes while it is read: many requests read it at once,
//! blocks are added one at a time, and snapshots let a test go back.
//!
//! Reads and block making share a read-write lock: a request holds a read
//! lock for the synchronous part of its answer, a new block holds the write
//! lock while it is made (about a millisecond). A snapshot is a copy of the
//! chain; reverting swaps the copy in. Going back changes blocks that were
//! already served, so it moves the chain's revision on: answers cached
//! under the old revision are never read again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use alloy_primitives::{Address, B256, U256};
use parking_lot::{Mutex, RawRwLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use w3api_chain::StateAt;
use w3api_chain::revm::DatabaseRef;
use w3api_chain::revm::bytecode::Bytecode;
use w3api_chain::revm::database_interface::DBErrorMarker;
use w3api_chain::revm::state::AccountInfo;
use w3api_source::SourceError;
use w3api_types::Chain;

use crate::generate::ChainData;
use crate::journal::Standing;

/// A chain held for reading; blocks wait to be added until it is dropped.
pub type ChainRead = parking_lot::lock_api::ArcRwLockReadGuard<RawRwLock, ChainData>;

pub(crate) struct LiveChain {
    data: Arc<RwLock<ChainData>>,
    snapshots: Mutex<Snapshots>,
    revision: AtomicU64,
    /// Set when making a block panicked (a bug): the chain may be half
    /// changed, so it answers nothing until it is reset.
    damaged: AtomicBool,
    /// The newest block as the seed made it: what the journal is written on.
    base: (u64, B256),
    /// Whether the changes kept in the journal were made on it.
    restored: AtomicBool,
}

#[derive(Default)]
struct Snapshots {
    /// Ids count up and are never reused, as Hardhat's and Anvil's.
    last_id: u64,
    /// Oldest first.
    taken: Vec<(u64, ChainData)>,
}

impl LiveChain {
    pub(crate) fn new(data: ChainData) -> LiveChain {
        let base = (data.latest(), data.blocks.last().map_or(B256::ZERO, |block| block.hash));
        LiveChain {
            base,
            restored: AtomicBool::new(false),
            data: Arc::new(RwLock::new(data)),
            snapshots: Mutex::new(Snapshots::default()),
            revision: AtomicU64::new(0),
            damaged: AtomicBool::new(false),
        }
    }

    /// An error when the chain is damaged (see [`LiveChain::mark_damaged`]).
    pub(crate) fn check(&self, chain: Chain) -> Result<(), SourceError> {
        if self.damaged.load(Ordering::Acquire) {
            return Err(SourceError::Unavailable(format!(
                "chain {chain} is damaged: making a block failed part-way (a bug; the log has it); anvil_reset \
                 starts the chain over"
            )));
        }
        Ok(())
    }

    /// The state after `block` as a call reads it without holding the chain.
    pub(crate) fn shared_state(self: &Arc<Self>, block: u64) -> SharedState {
        SharedState { live: self.clone(), block, revision: self.revision() }
    }

    /// The newest block as the seed made it: number and hash.
    pub(crate) fn base(&self) -> (u64, B256) {
        self.base
    }

    /// Where the chain stands: its newest block, and the last snapshot id given.
    pub(crate) fn standing(&self) -> Standing {
        let data = self.read();
        let hash = data.blocks.last().map_or(B256::ZERO, |block| block.hash);
        Standing { number: data.latest(), hash, snapshots: self.snapshots.lock().last_id }
    }

    /// Gives the next snapshot an id after `last`, at least: snapshots
    /// forgotten with the changes that took them used theirs.
    pub(crate) fn skip_snapshot_ids(&self, last: u64) {
        let mut snapshots = self.snapshots.lock();
        snapshots.last_id = snapshots.last_id.max(last);
    }

    /// The last snapshot id given.
    pub(crate) fn last_snapshot_id(&self) -> u64 {
        self.snapshots.lock().last_id
    }

    /// The chain's data, when nothing else holds the chain.
    pub(crate) fn into_data(self) -> Option<ChainData> {
        Arc::try_unwrap(self.data).ok().map(RwLock::into_inner)
    }

    /// Whether the changes kept in the journal were made on the chain.
    pub(crate) fn restored(&self) -> bool {
        self.restored.load(Ordering::Acquire)
    }

    pub(crate) fn mark_restored(&self) {
        self.restored.store(true, Ordering::Release);
    }

    /// Marks the chain damaged: a change panicked while it held the chain.
    pub(crate) fn mark_damaged(&self) {
        self.damaged.store(true, Ordering::Release);
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, ChainData> {
        self.data.read()
    }

    pub(crate) fn read_arc(&self) -> ChainRead {
        self.data.read_arc()
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, ChainData> {
        self.data.write()
    }

    /// Changes whenever blocks already made are replaced.
    pub(crate) fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Keeps a copy of the chain as it is now; returns its id.
    pub(crate) fn snapshot(&self) -> u64 {
        let copy = self.read().clone();
        let mut snapshots = self.snapshots.lock();
        snapshots.last_id += 1;
        let id = snapshots.last_id;
        snapshots.taken.push((id, copy));
        id
    }

    /// Puts the chain back as snapshot `id` found it. That snapshot and
    /// every later one are used up. `false` when there is no such snapshot.
    pub(crate) fn revert(&self, id: u64) -> bool {
        let mut snapshots = self.snapshots.lock();
        let Some(position) = snapshots.taken.iter().position(|(taken, _)| *taken == id) else {
            return false;
        };
        let mut later = snapshots.taken.split_off(position);
        let (_, data) = later.swap_remove(0);
        let replaced = self.replace(data);
        drop(snapshots);
        // The chain given up and the later snapshots are freed here, outside every lock.
        drop((replaced, later));
        true
    }

    /// Starts the chain over from `data`, forgetting every snapshot (and any damage).
    pub(crate) fn reset(&self, data: ChainData) {
        let forgotten = std::mem::take(&mut self.snapshots.lock().taken);
        let replaced = self.replace(data);
        self.damaged.store(false, Ordering::Release);
        drop((replaced, forgotten));
    }

    fn replace(&self, data: ChainData) -> ChainData {
        let mut current = self.write();
        let replaced = std::mem::replace(&mut *current, data);
        // Moved while the write lock is held: a request that reads the new
        // revision can only read the new chain.
        self.revision.fetch_add(1, Ordering::AcqRel);
        replaced
    }
}

/// The state after one block, as a call reads it: one value at a time,
/// each under a short hold of the chain, so that a call running for
/// seconds holds nothing a new block waits for. Blocks added meanwhile
/// change nothing it reads (they write only the blocks after theirs); a
/// revert or a reset, which replace the chain, end the call instead, so
/// that it never reads two chains.
pub(crate) struct SharedState {
    live: Arc<LiveChain>,
    block: u64,
    revision: u64,
}

/// The chain a call was reading was replaced (reverted, reset) or damaged.
#[derive(Debug)]
pub(crate) struct Replaced;

impl std::fmt::Display for Replaced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the chain was reverted or reset while the call ran; send it again")
    }
}

impl std::error::Error for Replaced {}

impl DBErrorMarker for Replaced {}

impl SharedState {
    /// The same chain, as it stood after another block.
    pub(crate) fn at(&self, block: u64) -> SharedState {
        SharedState { live: self.live.clone(), block, revision: self.revision }
    }

    fn read<T>(&self, read: impl FnOnce(StateAt<'_>) -> Result<T, std::convert::Infallible>) -> Result<T, Replaced> {
        let data = self.live.read();
        // Checked under the hold: a replacement moves the revision under the write lock.
        if self.live.revision() != self.revision || self.live.damaged.load(Ordering::Acquire) {
            return Err(Replaced);
        }
        Ok(read(data.state.archive().at(self.block)).unwrap_or_else(|never| match never {}))
    }
}

impl DatabaseRef for SharedState {
    type Error = Replaced;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Replaced> {
        self.read(|state| state.basic_ref(address))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Replaced> {
        self.read(|state| state.code_by_hash_ref(code_hash))
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Replaced> {
        self.read(|state| state.storage_ref(address, index))
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Replaced> {
        self.read(|state| state.block_hash_ref(number))
    }
}
