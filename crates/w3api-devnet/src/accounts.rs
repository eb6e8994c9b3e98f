//! The devnet's externally owned accounts: deterministic secp256k1 keys,
//! the same on every chain.

use alloy_primitives::{Address, B256};
use alloy_signer_local::PrivateKeySigner;
use rayon::prelude::*;

use crate::seed;

/// What an account does on the devnet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Deploys every contract, holds the supplies, funds the pairs and hands tokens out.
    Deployer,
    /// Owns the spam tokens and airdrops them.
    Spammer,
    /// Swaps on the DEXes (and nothing else).
    Trader,
    /// Transfers native currency and tokens, mints and trades NFTs.
    Wallet,
}

/// Every account, by index: the deployer, the spammer, the traders, then the wallets.
pub struct Accounts {
    signers: Vec<PrivateKeySigner>,
    addresses: Vec<Address>,
    traders: u32,
}

impl Accounts {
    /// The accounts for `seed`, with this many traders and wallets. Keys are
    /// derived in parallel: a scalar multiplication each.
    pub fn generate(seed: u64, traders: u32, wallets: u32) -> Accounts {
        let count = 2 + traders + wallets;
        let signers: Vec<PrivateKeySigner> = (0..count).into_par_iter().map(|i| signer(seed, i)).collect();
        let addresses = signers.iter().map(PrivateKeySigner::address).collect();
        Accounts { signers, addresses, traders }
    }

    /// Number of accounts.
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// Whether there are none (never, once generated).
    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }

    /// The address of account `index`.
    pub fn address(&self, index: u32) -> Address {
        self.addresses[index as usize]
    }

    /// The signer of account `index`.
    pub fn signer(&self, index: u32) -> &PrivateKeySigner {
        &self.signers[index as usize]
    }

    /// What account `index` does.
    pub fn role(&self, index: u32) -> Role {
        match index {
            0 => Role::Deployer,
            1 => Role::Spammer,
            i if i < 2 + self.traders => Role::Trader,
            _ => Role::Wallet,
        }
    }

    /// Index of the deployer.
    pub const DEPLOYER: u32 = 0;
    /// Index of the spammer.
    pub const SPAMMER: u32 = 1;

    /// Indices of the traders.
    pub fn traders(&self) -> std::ops::Range<u32> {
        2..2 + self.traders
    }

    /// Indices of the ordinary wallets.
    pub fn wallets(&self) -> std::ops::Range<u32> {
        2 + self.traders..self.addresses.len() as u32
    }

    /// Every address, by index.
    pub fn addresses(&self) -> &[Address] {
        &self.addresses
    }
}

/// The key of account `index`: a hash of the seed and the index, rehashed in
/// the (astronomically unlikely) case it is not a valid secp256k1 scalar.
/// The devnet's accounts and the wallets a test created on one chain:
/// indexes past the accounts' are the created wallets, in order. Created
/// wallets are ordinary wallets to the chain, but no random activity picks
/// them: they hold what the test gave them.
#[derive(Clone, Copy)]
pub(crate) struct Signers<'a> {
    accounts: &'a Accounts,
    created: &'a [PrivateKeySigner],
}

impl<'a> Signers<'a> {
    pub(crate) fn new(accounts: &'a Accounts, created: &'a [PrivateKeySigner]) -> Signers<'a> {
        Signers { accounts, created }
    }

    /// The devnet's own accounts, created wallets not counted.
    pub(crate) fn len(self) -> usize {
        self.accounts.len()
    }

    pub(crate) fn address(self, index: u32) -> Address {
        match (index as usize).checked_sub(self.accounts.len()) {
            Some(created) => self.created[created].address(),
            None => self.accounts.address(index),
        }
    }

    pub(crate) fn signer(self, index: u32) -> &'a PrivateKeySigner {
        match (index as usize).checked_sub(self.accounts.len()) {
            Some(created) => &self.created[created],
            None => self.accounts.signer(index),
        }
    }

    pub(crate) fn role(self, index: u32) -> Role {
        if index as usize >= self.accounts.len() { Role::Wallet } else { self.accounts.role(index) }
    }

    pub(crate) fn traders(self) -> std::ops::Range<u32> {
        self.accounts.traders()
    }

    /// The devnet's own wallets, which random activity picks from.
    pub(crate) fn wallets(self) -> std::ops::Range<u32> {
        self.accounts.wallets()
    }

    /// The index of the account or created wallet with this address.
    pub(crate) fn index_of(self, address: Address) -> Option<u32> {
        let own = self.accounts.addresses().iter().position(|a| *a == address);
        let created = || self.created.iter().position(|s| s.address() == address).map(|i| i + self.accounts.len());
        own.or_else(created).map(|i| i as u32)
    }
}

/// The key of account `index` of the devnet of `seed`; past the devnet's
/// own accounts, the keys of the wallets tests create.
pub(crate) fn signer(seed: u64, index: u32) -> PrivateKeySigner {
    let mut key: B256 = seed::derive(seed, &[b"account", &index.to_be_bytes()]);
    loop {
        match PrivateKeySigner::from_bytes(&key) {
            Ok(signer) => return signer,
            Err(_) => key = seed::derive(seed, &[b"account-retry", key.as_slice()]),
        }
    }
}
