//! What a dApp asks of a chain that executes contract code: calls, gas
//! estimates, access lists, code, storage and proofs at a block, sending a
//! signed transaction, filters to poll, and signing with the accounts a
//! development node holds.
//!
//! The devnet answers each with its own EVM, state and filters; node mode
//! passes each to its node. A source keeps the provided method of what it
//! cannot answer, which refuses with [`SourceError::NotExecuted`]: the
//! gateway's one refusal for a method its backend lacks.

use std::future::Future;

use w3api_types::rpc::{
    AccessListResult, AccountProof, Bytes, FilterChanges, FilterId, Hash32, Log, LogFilter, StateOverrides, StorageKey,
    TransactionRequest, TxpoolContent, TypedData,
};
use w3api_types::{Address, Chain, U256};

use crate::{BlockRef, SourceError};

fn refused<T: Send>() -> impl Future<Output = Result<T, SourceError>> + Send {
    std::future::ready(Err(SourceError::NotExecuted))
}

/// The execution, state and filter methods of a chain.
pub trait Execution: Send + Sync {
    /// The return data of executing `request` after `block`, with
    /// `overrides` assumed where the chain takes them.
    fn call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, request, block, overrides);
        refused()
    }

    /// The gas `request` needs after `block`.
    fn estimate_gas(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> impl Future<Output = Result<U256, SourceError>> + Send {
        let _ = (chain, request, block, overrides);
        refused()
    }

    /// The accounts and slots `request` touches after `block`.
    fn create_access_list(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
    ) -> impl Future<Output = Result<AccessListResult, SourceError>> + Send {
        let _ = (chain, request, block);
        refused()
    }

    /// An account's code after `block`.
    fn code(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, block);
        refused()
    }

    /// One storage slot of an account after `block`.
    fn storage_at(
        &self,
        chain: Chain,
        address: Address,
        slot: U256,
        block: BlockRef,
    ) -> impl Future<Output = Result<Hash32, SourceError>> + Send {
        let _ = (chain, address, slot, block);
        refused()
    }

    /// An account and some of its slots after `block`, with proofs.
    fn proof(
        &self,
        chain: Chain,
        address: Address,
        keys: Vec<StorageKey>,
        block: BlockRef,
    ) -> impl Future<Output = Result<AccountProof, SourceError>> + Send {
        let _ = (chain, address, keys, block);
        refused()
    }

    /// Sends a signed transaction; answers its hash.
    fn send_raw_transaction(
        &self,
        chain: Chain,
        transaction: Bytes,
    ) -> impl Future<Output = Result<Hash32, SourceError>> + Send {
        let _ = (chain, transaction);
        refused()
    }

    /// A new log filter, kept for the API key `owner` (a source may cap
    /// how many each key keeps).
    fn new_filter(
        &self,
        chain: Chain,
        owner: &str,
        filter: LogFilter,
    ) -> impl Future<Output = Result<FilterId, SourceError>> + Send {
        let _ = (chain, owner, filter);
        refused()
    }

    /// A new filter of blocks, kept for the API key `owner`.
    fn new_block_filter(
        &self,
        chain: Chain,
        owner: &str,
    ) -> impl Future<Output = Result<FilterId, SourceError>> + Send {
        let _ = (chain, owner);
        refused()
    }

    /// A new filter of the transactions the chain accepts, kept for the API key `owner`.
    fn new_pending_transaction_filter(
        &self,
        chain: Chain,
        owner: &str,
    ) -> impl Future<Output = Result<FilterId, SourceError>> + Send {
        let _ = (chain, owner);
        refused()
    }

    /// Every transaction waiting in the chain's pending pool (`txpool_content`).
    fn pool_content(&self, chain: Chain) -> impl Future<Output = Result<TxpoolContent, SourceError>> + Send {
        let _ = chain;
        refused()
    }

    /// What a filter saw since it was last polled.
    fn filter_changes(
        &self,
        chain: Chain,
        id: FilterId,
    ) -> impl Future<Output = Result<FilterChanges, SourceError>> + Send {
        let _ = (chain, id);
        refused()
    }

    /// Every log a log filter matches.
    fn filter_logs(&self, chain: Chain, id: FilterId) -> impl Future<Output = Result<Vec<Log>, SourceError>> + Send {
        let _ = (chain, id);
        refused()
    }

    /// Removes a filter; whether it existed.
    fn uninstall_filter(&self, chain: Chain, id: FilterId) -> impl Future<Output = Result<bool, SourceError>> + Send {
        let _ = (chain, id);
        refused()
    }

    /// The accounts whose keys the chain holds (`eth_accounts`).
    fn signing_accounts(&self, chain: Chain) -> impl Future<Output = Result<Vec<Address>, SourceError>> + Send {
        let _ = chain;
        refused()
    }

    /// Fills in `request`, signs it with its sender's key, and sends it.
    fn send_transaction(
        &self,
        chain: Chain,
        request: TransactionRequest,
    ) -> impl Future<Output = Result<Hash32, SourceError>> + Send {
        let _ = (chain, request);
        refused()
    }

    /// The EIP-191 signature of `message` by `address` (`eth_sign`, `personal_sign`).
    fn sign(
        &self,
        chain: Chain,
        address: Address,
        message: Bytes,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, message);
        refused()
    }

    /// The EIP-712 signature of `typed` by `address` (`eth_signTypedData_v4`).
    fn sign_typed_data(
        &self,
        chain: Chain,
        address: Address,
        typed: TypedData,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, typed);
        refused()
    }
}
