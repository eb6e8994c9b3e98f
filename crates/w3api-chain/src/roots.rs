//! The state root after each block, and EIP-1186 proofs.
//!
//! The tries of the latest state are kept between blocks, so a block's root
//! costs the paths it touched. Each account's storage root is also kept by
//! block, so a proof at an older block rebuilds only the account trie and
//! the one storage trie it asks about.

use std::collections::HashMap;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_trie::{EMPTY_ROOT_HASH, TrieAccount};
use w3api_trie::Trie;

use crate::archive::{Account, Archive, History, Touched};

/// The account trie and every storage trie, as of the last block sealed.
#[derive(Clone, Debug, Default)]
pub(crate) struct StateTries {
    accounts: Trie,
    storage: HashMap<Address, Trie>,
    storage_roots: HashMap<Address, History<B256>>,
    /// The block the tries hold the state after.
    sealed: Option<u64>,
}

impl StateTries {
    /// Applies what `block` changed; answers the state root after it.
    pub(crate) fn seal(&mut self, archive: &Archive, block: u64, touched: Touched) -> B256 {
        for (address, slots) in touched {
            let trie = self.storage.entry(address).or_default();
            for slot in slots {
                let key = keccak256(slot.to_be_bytes::<32>());
                match archive.latest_storage(address, slot) {
                    value if value.is_zero() => trie.remove(key),
                    value => trie.insert(key, alloy_rlp::encode(value)),
                }
            }
            let storage_root = trie.root();
            let account = archive.latest_account(address);
            let roots = self.storage_roots.entry(address).or_default();
            if roots.at(block) != storage_root {
                roots.set(block, storage_root);
            }
            let key = keccak256(address);
            if !archive.exists_latest(address) && storage_root == EMPTY_ROOT_HASH {
                self.accounts.remove(key);
                self.storage.remove(&address);
            } else {
                self.accounts.insert(key, leaf(&account, storage_root));
            }
        }
        self.sealed = Some(block);
        self.accounts.root()
    }

    /// The account trie after `block`: the one kept when `block` is the
    /// last sealed, else rebuilt from the archive.
    pub(crate) fn account_trie_at(&self, archive: &Archive, block: u64) -> Trie {
        if self.sealed == Some(block) {
            return self.accounts.clone();
        }
        let mut accounts = Trie::default();
        for (holder, account) in archive.accounts_at(block) {
            accounts.insert(keccak256(holder), leaf(&account, self.storage_root(holder, block)));
        }
        // An account emptied but holding storage is still in the trie.
        for (holder, _) in self.storage_roots.iter().filter(|(a, _)| archive.account(**a, block).is_empty()) {
            let root = self.storage_root(*holder, block);
            if root != EMPTY_ROOT_HASH {
                accounts.insert(keccak256(holder), leaf(&Account::default(), root));
            }
        }
        accounts
    }

    /// The storage trie of `address` after `block`, kept or rebuilt as
    /// [`StateTries::account_trie_at`] is.
    pub(crate) fn storage_trie_at(&self, archive: &Archive, address: Address, block: u64) -> Trie {
        if self.sealed == Some(block) {
            return self.storage.get(&address).cloned().unwrap_or_default();
        }
        let mut storage = Trie::default();
        for (slot, value) in archive.slots_at(address, block) {
            storage.insert(keccak256(slot.to_be_bytes::<32>()), alloy_rlp::encode(value));
        }
        storage
    }

    /// The storage root of `address` after `block`.
    pub(crate) fn storage_root(&self, address: Address, block: u64) -> B256 {
        self.storage_roots.get(&address).map_or(EMPTY_ROOT_HASH, |h| match h.at(block) {
            root if root == B256::ZERO => EMPTY_ROOT_HASH,
            root => root,
        })
    }

    /// Forgets every root after `block`; the tries are rebuilt from the
    /// archive, which must already be truncated the same way.
    pub(crate) fn truncate_after(&mut self, archive: &Archive, block: u64) {
        self.storage_roots.retain(|_, history| history.truncate_after(block));
        self.accounts = Trie::default();
        self.storage.clear();
        let mut touched = Touched::new();
        for (address, _) in archive.accounts_at(block) {
            touched.entry(address).or_default().extend(archive.slots_at(address, block).into_iter().map(|(s, _)| s));
        }
        self.seal(archive, block, touched);
    }
}

/// An account's leaf in the state trie.
pub(crate) fn leaf(account: &Account, storage_root: B256) -> Vec<u8> {
    let account =
        TrieAccount { nonce: account.nonce, balance: account.balance, storage_root, code_hash: account.code_hash };
    alloy_rlp::encode(account)
}

/// An account after a block with the proof of it and of some of its slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The account (all zero and the empty code hash when it does not exist).
    pub account: Account,
    /// Root of its storage trie.
    pub storage_root: B256,
    /// Nodes from the state root to the account's leaf, or to where it would be.
    pub account_proof: Vec<Bytes>,
    /// Each slot asked for: its key, its value, and its proof from the storage root.
    pub storage: Vec<(B256, U256, Vec<Bytes>)>,
}

/// The proof of `address` and `slots` after `block`.
pub(crate) fn prove(tries: &StateTries, archive: &Archive, block: u64, address: Address, slots: &[B256]) -> Proof {
    let account_proof = tries.account_trie_at(archive, block).proof(&keccak256(address));
    let mut storage = tries.storage_trie_at(archive, address, block);
    let storage = slots
        .iter()
        .map(|key| {
            let value = archive.storage(address, U256::from_be_bytes(key.0), block);
            (*key, value, storage.proof(&keccak256(key)))
        })
        .collect();
    Proof {
        account: archive.account(address, block),
        storage_root: tries.storage_root(address, block),
        account_proof,
        storage,
    }
}
