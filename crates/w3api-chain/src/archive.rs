//! Every account and storage slot as it was after each block: what the EVM
//! reads at a block, and what execution writes into the block in progress.
//!
//! A value's history is the list of blocks that changed it, so a read at
//! any block is a binary search, and a chain of thousands of blocks costs
//! only what it changed, not a copy of the state per block.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;

use alloy_primitives::{Address, B256, U256, keccak256};
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::primitives::KECCAK_EMPTY;
use revm::state::{AccountInfo, EvmState};

/// An account's nonce, balance and code. An account with none of them does
/// not exist (EIP-161).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Account {
    /// Transactions sent, or contracts created by a contract.
    pub nonce: u64,
    /// Wei held.
    pub balance: U256,
    /// keccak256 of the code; [`KECCAK_EMPTY`] for none.
    pub code_hash: B256,
}

impl Default for Account {
    fn default() -> Self {
        Account { nonce: 0, balance: U256::ZERO, code_hash: KECCAK_EMPTY }
    }
}

impl Account {
    /// Whether the account is absent from the state (EIP-161's empty).
    pub fn is_empty(&self) -> bool {
        self.nonce == 0 && self.balance.is_zero() && self.code_hash == KECCAK_EMPTY
    }
}

/// A value by block: each entry holds from its block until the next entry's.
#[derive(Clone, Debug)]
pub(crate) struct History<T>(Vec<(u64, T)>);

impl<T: Copy + Default> History<T> {
    pub(crate) fn at(&self, block: u64) -> T {
        match self.0.partition_point(|(changed, _)| *changed <= block) {
            0 => T::default(),
            after => self.0[after - 1].1,
        }
    }

    fn latest(&self) -> T {
        self.0.last().map_or_else(T::default, |(_, value)| *value)
    }

    /// Sets the value from `block` on; a later write in the same block replaces it.
    pub(crate) fn set(&mut self, block: u64, value: T) {
        match self.0.last_mut() {
            Some((changed, last)) if *changed == block => *last = value,
            _ => self.0.push((block, value)),
        }
    }

    /// Forgets every change after `block`; whether anything is left.
    pub(crate) fn truncate_after(&mut self, block: u64) -> bool {
        let keep = self.0.partition_point(|(changed, _)| *changed <= block);
        self.0.truncate(keep);
        !self.0.is_empty()
    }
}

impl<T> Default for History<T> {
    fn default() -> Self {
        History(Vec::new())
    }
}

#[derive(Clone, Debug, Default)]
struct AccountRecord {
    info: History<Account>,
    storage: HashMap<U256, History<U256>>,
    /// Whether the account exists while empty: only before EIP-161
    /// (Spurious Dragon), when a call or a zero transfer made it.
    kept_empty: History<bool>,
}

impl AccountRecord {
    fn exists_at(&self, block: u64) -> bool {
        !self.info.at(block).is_empty() || self.kept_empty.at(block)
    }
}

/// What a block changed, for the state root: the accounts, and which of
/// their slots.
pub(crate) type Touched = HashMap<Address, HashSet<U256>>;

/// The chain's state at every block.
#[derive(Clone, Debug, Default)]
pub struct Archive {
    accounts: HashMap<Address, AccountRecord>,
    codes: HashMap<B256, Bytecode>,
    block_hashes: Vec<B256>,
    /// Changed since the last call to [`Archive::take_touched`].
    touched: Touched,
}

impl Archive {
    /// The state at `block`: what the EVM reads when it executes after it.
    pub fn at(&self, block: u64) -> StateAt<'_> {
        StateAt { archive: self, block }
    }

    /// An account at `block`.
    pub fn account(&self, address: Address, block: u64) -> Account {
        self.accounts.get(&address).map_or_else(Account::default, |record| record.info.at(block))
    }

    /// A storage slot at `block`.
    pub fn storage(&self, address: Address, slot: U256, block: u64) -> U256 {
        self.accounts.get(&address).and_then(|record| record.storage.get(&slot)).map_or(U256::ZERO, |h| h.at(block))
    }

    /// Code by its hash (empty for [`KECCAK_EMPTY`] or unknown hashes).
    pub fn code(&self, hash: B256) -> Bytecode {
        self.codes.get(&hash).cloned().unwrap_or_default()
    }

    /// Every account that exists at `block`.
    pub fn accounts_at(&self, block: u64) -> impl Iterator<Item = (Address, Account)> + '_ {
        self.accounts
            .iter()
            .filter(move |(_, record)| record.exists_at(block))
            .map(move |(address, record)| (*address, record.info.at(block)))
    }

    /// Whether `address` exists at `block`: it is not empty, or it was
    /// made empty before EIP-161 and is kept.
    pub fn exists(&self, address: Address, block: u64) -> bool {
        self.accounts.get(&address).is_some_and(|record| record.exists_at(block))
    }

    /// Whether `address` exists as the newest write left it.
    pub(crate) fn exists_latest(&self, address: Address) -> bool {
        self.accounts.get(&address).is_some_and(|record| !record.info.latest().is_empty() || record.kept_empty.latest())
    }

    /// The non-zero slots of `address` at `block`.
    pub fn slots_at(&self, address: Address, block: u64) -> Vec<(U256, U256)> {
        let Some(record) = self.accounts.get(&address) else { return Vec::new() };
        record.storage.iter().map(|(slot, h)| (*slot, h.at(block))).filter(|(_, value)| !value.is_zero()).collect()
    }

    /// Sets an account from `block` on, outside any transaction (genesis
    /// allocations, and cheat methods).
    pub fn set_account(&mut self, block: u64, address: Address, account: Account) {
        self.accounts.entry(address).or_default().info.set(block, account);
        self.touched.entry(address).or_default();
    }

    /// Sets code from `block` on, keeping the account's nonce and balance.
    pub fn set_code(&mut self, block: u64, address: Address, code: Bytecode) {
        let hash = if code.is_empty() { KECCAK_EMPTY } else { keccak256(code.original_byte_slice()) };
        if hash != KECCAK_EMPTY {
            self.codes.entry(hash).or_insert(code);
        }
        let account = Account { code_hash: hash, ..self.account(address, block) };
        self.set_account(block, address, account);
    }

    /// Sets a storage slot from `block` on.
    pub fn set_storage(&mut self, block: u64, address: Address, slot: U256, value: U256) {
        self.accounts.entry(address).or_default().storage.entry(slot).or_default().set(block, value);
        self.touched.entry(address).or_default().insert(slot);
    }

    /// Writes what a transaction executed in `block` changed.
    pub fn commit(&mut self, block: u64, changes: EvmState) {
        self.commit_by(block, changes, true);
    }

    /// Writes what a transaction executed in `block` changed, by a fork's
    /// rule for empty accounts: from Spurious Dragon (`clear_empty`) an
    /// account left empty is gone; before it, a touched one is kept.
    pub(crate) fn commit_by(&mut self, block: u64, changes: EvmState, clear_empty: bool) {
        for (address, account) in changes {
            if !account.is_touched() {
                continue;
            }
            if account.is_selfdestructed() {
                self.destroy(block, address);
                continue;
            }
            if let Some(code) = &account.info.code
                && account.info.code_hash != KECCAK_EMPTY
            {
                self.codes.entry(account.info.code_hash).or_insert_with(|| code.clone());
            }
            let info = &account.info;
            let next = Account { nonce: info.nonce, balance: info.balance, code_hash: info.code_hash };
            if self.account(address, block) != next {
                self.set_account(block, address, next);
            }
            if next.is_empty() {
                self.keep_empty(block, address, !clear_empty);
            }
            for (slot, value) in account.storage {
                if value.is_changed() {
                    self.set_storage(block, address, slot, value.present_value);
                }
            }
        }
    }

    /// An account gone with all its storage (a contract destroyed in the
    /// transaction that created it, EIP-6780).
    fn destroy(&mut self, block: u64, address: Address) {
        let slots: Vec<U256> = self.slots_at(address, block).into_iter().map(|(slot, _)| slot).collect();
        for slot in slots {
            self.set_storage(block, address, slot, U256::ZERO);
        }
        self.set_account(block, address, Account::default());
        self.keep_empty(block, address, false);
    }

    /// Records whether the empty account `address` exists from `block` on.
    fn keep_empty(&mut self, block: u64, address: Address, kept: bool) {
        let now = self.accounts.get(&address).is_some_and(|record| record.kept_empty.at(block));
        if now != kept {
            self.accounts.entry(address).or_default().kept_empty.set(block, kept);
            self.touched.entry(address).or_default();
        }
    }

    /// Takes what changed since it was last taken.
    pub fn take_touched(&mut self) -> Touched {
        std::mem::take(&mut self.touched)
    }

    /// An account as the newest write left it.
    pub fn latest_account(&self, address: Address) -> Account {
        self.accounts.get(&address).map_or_else(Account::default, |record| record.info.latest())
    }

    /// The latest value of one slot.
    pub fn latest_storage(&self, address: Address, slot: U256) -> U256 {
        self.accounts.get(&address).and_then(|r| r.storage.get(&slot)).map_or(U256::ZERO, History::latest)
    }

    /// Forgets every change made after `block`.
    pub fn truncate_after(&mut self, block: u64) {
        self.accounts.retain(|_, record| {
            record.storage.retain(|_, history| history.truncate_after(block));
            record.kept_empty.truncate_after(block);
            let info = record.info.truncate_after(block);
            info || !record.storage.is_empty()
        });
        self.block_hashes.truncate(block as usize + 1);
        self.touched.clear();
    }

    /// Records block `number`'s hash, for the BLOCKHASH of later blocks.
    pub fn set_block_hash(&mut self, number: u64, hash: B256) {
        let index = number as usize;
        if self.block_hashes.len() <= index {
            self.block_hashes.resize(index + 1, B256::ZERO);
        }
        self.block_hashes[index] = hash;
    }
}

/// The state after one block, as the EVM reads it.
#[derive(Clone, Copy, Debug)]
pub struct StateAt<'a> {
    archive: &'a Archive,
    block: u64,
}

impl StateAt<'_> {
    /// The block this state follows.
    pub fn block(&self) -> u64 {
        self.block
    }
}

impl DatabaseRef for StateAt<'_> {
    type Error = Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        let account = self.archive.account(address, self.block);
        if account.is_empty() && !self.archive.exists(address, self.block) {
            return Ok(None);
        }
        let info = AccountInfo::default().with_code_and_hash(self.archive.code(account.code_hash), account.code_hash);
        Ok(Some(AccountInfo { balance: account.balance, nonce: account.nonce, ..info }))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Infallible> {
        Ok(self.archive.code(code_hash))
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Infallible> {
        Ok(self.archive.storage(address, index, self.block))
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Infallible> {
        // Hashes of blocks generated in bulk are known only once the run is
        // sealed; the devnet's own contracts never ask for one.
        Ok(self.archive.block_hashes.get(number as usize).copied().unwrap_or_default())
    }
}
