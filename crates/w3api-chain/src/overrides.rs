//! State assumed for some accounts during one call (geth's state
//! overrides): their balance, nonce or code, and their storage replaced
//! whole or changed slot by slot. Nothing is written: the call reads
//! through them.

use std::collections::HashMap;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::state::AccountInfo;

/// What one account is assumed to hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountOverride {
    /// Balance in wei.
    pub balance: Option<U256>,
    /// Nonce.
    pub nonce: Option<u64>,
    /// Code.
    pub code: Option<Bytes>,
    /// The whole storage, replaced: every other slot reads zero.
    pub storage: Option<HashMap<U256, U256>>,
    /// Some slots, changed; the rest as the chain has them.
    pub storage_diff: HashMap<U256, U256>,
}

/// Accounts and what each is assumed to hold.
pub type Overrides = HashMap<Address, AccountOverride>;

/// A state read through overrides.
pub(crate) struct Overridden<'a, D> {
    state: D,
    overrides: &'a Overrides,
    codes: HashMap<B256, Bytecode>,
}

impl<'a, D: DatabaseRef> Overridden<'a, D> {
    pub(crate) fn new(state: D, overrides: &'a Overrides) -> Overridden<'a, D> {
        let codes = overrides
            .values()
            .filter_map(|o| o.code.as_ref())
            .map(|code| (keccak256(code), Bytecode::new_raw(code.clone())))
            .collect();
        Overridden { state, overrides, codes }
    }
}

impl<D: DatabaseRef> DatabaseRef for Overridden<'_, D> {
    type Error = D::Error;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, D::Error> {
        let found = self.state.basic_ref(address)?;
        let Some(assumed) = self.overrides.get(&address) else { return Ok(found) };
        let mut info = found.unwrap_or_default();
        if let Some(balance) = assumed.balance {
            info.balance = balance;
        }
        if let Some(nonce) = assumed.nonce {
            info.nonce = nonce;
        }
        if let Some(code) = &assumed.code {
            info = info.with_code(Bytecode::new_raw(code.clone()));
        }
        Ok(Some(info))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, D::Error> {
        match self.codes.get(&code_hash) {
            Some(code) => Ok(code.clone()),
            None => self.state.code_by_hash_ref(code_hash),
        }
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, D::Error> {
        let Some(assumed) = self.overrides.get(&address) else { return self.state.storage_ref(address, index) };
        if let Some(value) = assumed.storage_diff.get(&index) {
            return Ok(*value);
        }
        match &assumed.storage {
            Some(storage) => Ok(storage.get(&index).copied().unwrap_or_default()),
            None => self.state.storage_ref(address, index),
        }
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, D::Error> {
        self.state.block_hash_ref(number)
    }
}
