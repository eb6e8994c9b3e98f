//! The development accounts every Hardhat and Anvil user already has: the
//! first ten keys of the standard test mnemonic, on BIP-44's Ethereum path,
//! each funded at genesis on every chain as those nodes fund them. The
//! devnet signs with them what a dApp asks a development node to sign:
//! messages (EIP-191), typed data (EIP-712) and transactions.

use std::sync::OnceLock;

use alloy_dyn_abi::TypedData;
use alloy_primitives::{Address, B256, Bytes};
use alloy_signer::SignerSync;
use alloy_signer_local::{MnemonicBuilder, PrivateKeySigner};
use w3api_source::SourceError;

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

/// The key of dev account `address`; refused, naming the accounts, for any other.
pub(crate) fn dev_signer(address: Address) -> Result<&'static PrivateKeySigner, SourceError> {
    dev_signers().iter().find(|signer| signer.address() == address).ok_or_else(|| {
        SourceError::InvalidRequest(format!(
            "{address} is not a dev account: the devnet signs only for the first {DEV_ACCOUNTS} accounts of the \
             standard test mnemonic, which eth_accounts lists"
        ))
    })
}

/// The EIP-191 signature of `message` by dev account `address` (65 bytes, v 27 or 28).
pub(crate) fn sign_message(address: Address, message: &[u8]) -> Result<Bytes, SourceError> {
    let signer = dev_signer(address)?;
    let signature = signer.sign_message_sync(message).map_err(|e| SourceError::InvalidRequest(e.to_string()))?;
    Ok(Bytes::copy_from_slice(&signature.as_bytes()))
}

/// The EIP-712 signature of `typed` (the object, or it as JSON text) by dev
/// account `address`.
pub(crate) fn sign_typed_data(address: Address, typed: &serde_json::Value) -> Result<Bytes, SourceError> {
    let signer = dev_signer(address)?;
    let invalid = |why: String| SourceError::InvalidRequest(format!("typedData: {why}"));
    let parsed: TypedData = match typed {
        serde_json::Value::String(text) => serde_json::from_str(text),
        object => serde_json::from_value(object.clone()),
    }
    .map_err(|e| invalid(e.to_string()))?;
    let hash: B256 = parsed.eip712_signing_hash().map_err(|e| invalid(e.to_string()))?;
    let signature = signer.sign_hash_sync(&hash).map_err(|e| invalid(e.to_string()))?;
    Ok(Bytes::copy_from_slice(&signature.as_bytes()))
}
