//! An account's state after a block: its balance and nonce, which every
//! backend reads, and its code, storage and proofs, which a backend that
//! holds no state refuses (the provided methods).

use std::future::Future;

use w3api_types::rpc::{AccountProof, Bytes, Hash32, StorageKey};
use w3api_types::{Address, Chain, U256};

use crate::{BlockRef, SourceError};

/// Accounts' state after a block.
pub trait State: Send + Sync {
    /// The native balance of an account after a block; a block that does not
    /// exist is [`SourceError::BlockOutOfRange`] or [`SourceError::UnknownBlockHash`].
    fn balance(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<U256, SourceError>> + Send;

    /// How many transactions an account has sent up to and including a
    /// block; a missing block is an error, as for [`State::balance`].
    fn transaction_count(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<u64, SourceError>> + Send;

    /// An account's code after `block`.
    fn code(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<Bytes, SourceError>> + Send {
        let _ = (chain, address, block);
        crate::not_executed()
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
        crate::not_executed()
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
        crate::not_executed()
    }
}
