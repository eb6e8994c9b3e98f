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
fn signer(seed: u64, index: u32) -> PrivateKeySigner {
    let mut key: B256 = seed::derive(seed, &[b"account", &index.to_be_bytes()]);
    loop {
        match PrivateKeySigner::from_bytes(&key) {
            Ok(signer) => return signer,
            Err(_) => key = seed::derive(seed, &[b"account-retry", key.as_slice()]),
        }
    }
}
