//! The state a simulation writes: a chain's state after its base block,
//! read through what the simulated blocks changed, which is never written
//! back. Each simulated block's state root is the base's tries with the
//! changed accounts applied.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_trie::EMPTY_ROOT_HASH;
use revm::bytecode::Bytecode;
use revm::primitives::KECCAK_EMPTY;
use revm::state::{AccountInfo, EvmState};
use revm::{Database, DatabaseCommit, DatabaseRef};
use w3api_trie::Trie;

use crate::archive::{Account, StateAt};
use crate::roots::leaf;
use crate::{AccountOverride, ChainState};

/// An account as the simulation left it.
#[derive(Clone, Debug, Default)]
struct Changed {
    /// Its nonce, balance and code hash; `None` once it is gone.
    info: Option<AccountInfo>,
    /// Slots written, by their value now.
    storage: HashMap<U256, U256>,
    /// Whether every slot not written reads zero (storage replaced or destroyed).
    cleared: bool,
}

/// The base state with the simulation's changes over it.
pub(crate) struct Overlay<'a> {
    chain: &'a ChainState,
    base: StateAt<'a>,
    accounts: HashMap<Address, Changed>,
    codes: HashMap<B256, Bytecode>,
    /// Hashes of the simulated blocks, which BLOCKHASH reads before the chain's.
    hashes: HashMap<u64, B256>,
    /// Accounts changed since the last state root.
    dirty: HashSet<Address>,
    /// Whether an account left empty is gone (EIP-161).
    pub(crate) clear_empty: bool,
    /// The state trie brought along the simulated blocks, from the base's.
    state_trie: Option<Trie>,
}

impl std::fmt::Debug for Overlay<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlay").field("base", &self.base.block()).field("changed", &self.accounts.len()).finish()
    }
}

impl<'a> Overlay<'a> {
    pub(crate) fn new(chain: &'a ChainState, base: u64) -> Overlay<'a> {
        Overlay {
            chain,
            base: chain.archive().at(base),
            accounts: HashMap::new(),
            codes: HashMap::new(),
            hashes: HashMap::new(),
            dirty: HashSet::new(),
            clear_empty: true,
            state_trie: None,
        }
    }

    /// Records a simulated block's hash for BLOCKHASH.
    pub(crate) fn set_block_hash(&mut self, number: u64, hash: B256) {
        self.hashes.insert(number, hash);
    }

    /// The account as the simulation sees it now.
    fn changed(&mut self, address: Address) -> &mut Changed {
        let base = &self.base;
        self.dirty.insert(address);
        self.accounts.entry(address).or_insert_with(|| Changed {
            info: base.basic_ref(address).unwrap_or_default(),
            storage: HashMap::new(),
            cleared: false,
        })
    }

    /// Writes what a state override assumes for `address`, as a change
    /// made before the block's first call.
    pub(crate) fn assume(&mut self, address: Address, assumed: &AccountOverride) {
        let code = assumed.code.as_ref().map(|code| Bytecode::new_raw(code.clone()));
        if let Some(code) = &code {
            self.codes.insert(code.hash_slow(), code.clone());
        }
        let account = self.changed(address);
        let info = account.info.get_or_insert_with(AccountInfo::default);
        if let Some(nonce) = assumed.nonce {
            info.nonce = nonce;
        }
        if let Some(balance) = assumed.balance {
            info.balance = balance;
        }
        if let Some(code) = code {
            info.code_hash = code.hash_slow();
            info.code = None;
        }
        if let Some(storage) = &assumed.storage {
            account.cleared = true;
            account.storage = storage.clone();
        }
        account.storage.extend(assumed.storage_diff.iter().map(|(slot, value)| (*slot, *value)));
    }

    /// Sets an account's nonce outside any transaction.
    pub(crate) fn set_nonce(&mut self, address: Address, nonce: u64) {
        if let Some(info) = self.changed(address).info.as_mut() {
            info.nonce = nonce;
        }
    }

    /// The state root after every change so far.
    pub(crate) fn root(&mut self) -> B256 {
        let (chain, block) = (self.chain, self.base.block());
        let state_trie = self.state_trie.get_or_insert_with(|| chain.account_trie_at(block));
        for address in self.dirty.drain() {
            let account = &self.accounts[&address];
            let key = keccak256(address);
            let Some(info) = &account.info else {
                state_trie.remove(key);
                continue;
            };
            let mut storage = if account.cleared { Trie::default() } else { chain.storage_trie_at(address, block) };
            for (slot, value) in &account.storage {
                let slot_key = keccak256(slot.to_be_bytes::<32>());
                match value {
                    value if value.is_zero() => storage.remove(slot_key),
                    value => storage.insert(slot_key, alloy_rlp::encode(value)),
                }
            }
            let storage_root = storage.root();
            let state = Account { nonce: info.nonce, balance: info.balance, code_hash: info.code_hash };
            if state.is_empty() && storage_root == EMPTY_ROOT_HASH && self.clear_empty {
                state_trie.remove(key);
            } else {
                state_trie.insert(key, leaf(&state, storage_root));
            }
        }
        state_trie.root()
    }
}

impl Database for Overlay<'_> {
    type Error = Infallible;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        match self.accounts.get(&address) {
            Some(account) => Ok(account.info.clone()),
            None => self.base.basic_ref(address),
        }
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, Infallible> {
        match self.codes.get(&code_hash) {
            Some(code) => Ok(code.clone()),
            None => self.base.code_by_hash_ref(code_hash),
        }
    }

    fn storage(&mut self, address: Address, index: U256) -> Result<U256, Infallible> {
        match self.accounts.get(&address) {
            Some(account) => match account.storage.get(&index) {
                Some(value) => Ok(*value),
                None if account.cleared || account.info.is_none() => Ok(U256::ZERO),
                None => self.base.storage_ref(address, index),
            },
            None => self.base.storage_ref(address, index),
        }
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, Infallible> {
        match self.hashes.get(&number) {
            Some(hash) => Ok(*hash),
            None if number > self.base.block() => Ok(B256::ZERO),
            None => self.base.block_hash_ref(number),
        }
    }
}

impl DatabaseCommit for Overlay<'_> {
    fn commit(&mut self, changes: EvmState) {
        for (address, account) in changes {
            if !account.is_touched() {
                continue;
            }
            if account.is_selfdestructed() {
                let gone = self.changed(address);
                *gone = Changed { info: None, storage: HashMap::new(), cleared: true };
                continue;
            }
            let mut info = account.info;
            if let Some(code) = info.code.take()
                && info.code_hash != KECCAK_EMPTY
            {
                self.codes.entry(info.code_hash).or_insert(code);
            }
            // An account left empty stays readable as one; the state root
            // leaves it out (EIP-161).
            let changed = self.changed(address);
            for (slot, value) in account.storage {
                if value.is_changed() {
                    changed.storage.insert(slot, value.present_value);
                }
            }
            changed.info = Some(info);
        }
    }
}
