//! The development accounts every Hardhat and Anvil user already has: the
//! first ten keys of the standard test mnemonic, on BIP-44's Ethereum path,
//! each funded at genesis on every chain as those nodes fund them.

use std::sync::OnceLock;

use alloy_primitives::Address;
use alloy_signer_local::{MnemonicBuilder, PrivateKeySigner};

/// The mnemonic Hardhat and Anvil derive their accounts from.
pub const DEV_MNEMONIC: &str = "test test test test test test test test test test test junk";

/// How many accounts are derived from it.
pub const DEV_ACCOUNTS: u32 = 10;

/// What each holds at genesis: 10,000 of the native currency, as Hardhat and Anvil give.
pub const DEV_BALANCE: u128 = 10_000 * 10u128.pow(18);

/// The development accounts' keys, in derivation order.
pub fn dev_signers() -> &'static [PrivateKeySigner] {
    static SIGNERS: OnceLock<Vec<PrivateKeySigner>> = OnceLock::new();
    SIGNERS
        .get_or_init(|| (0..DEV_ACCOUNTS).map(|index| MnemonicBuilder::from_phrase_nth(DEV_MNEMONIC, index)).collect())
}

/// The development accounts' addresses, in derivation order.
pub fn dev_addresses() -> impl Iterator<Item = Address> {
    dev_signers().iter().map(PrivateKeySigner::address)
}
