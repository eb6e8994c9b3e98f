//! Signing with the accounts a development chain holds keys of:
//! `eth_accounts`, `eth_sendTransaction`, `eth_sign` and
//! `eth_signTypedData_v4`.

use std::future::Future;

use w3api_types::rpc::{Bytes, Hash32, TransactionRequest, TypedData};
use w3api_types::{Address, Chain};

use crate::SourceError;

/// Signing with a chain's own accounts.
pub trait Signing: Send + Sync {
    /// The accounts whose keys the chain holds (`eth_accounts`).
    fn signing_accounts(&self, chain: Chain) -> impl Future<Output = Result<Vec<Address>, SourceError>> + Send {
        let _ = chain;
        crate::not_executed()
    }

    /// Fills in `request`, signs it with its sender's key, and sends it.
    fn send_transaction(
        &self,
        chain: Chain,
        request: TransactionRequest,
    ) -> impl Future<Output = Result<Hash32, SourceError>> + Send {
        let _ = (chain, request);
        crate::not_executed()
    }

    /// The EIP-191 signature of `message` by `address` (`eth_sign`, `personal_sign`).
    fn sign(
        &self,
        chain: Chain,
        address: Address,
        message: Bytes,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, message);
        crate::not_executed()
    }

    /// The EIP-712 signature of `typed` by `address` (`eth_signTypedData_v4`).
    fn sign_typed_data(
        &self,
        chain: Chain,
        address: Address,
        typed: TypedData,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, typed);
        crate::not_executed()
    }
}
