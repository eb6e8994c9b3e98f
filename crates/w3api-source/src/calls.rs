//! Executing a transaction without sending it: `eth_call`,
//! `eth_estimateGas`, `eth_createAccessList` and `eth_simulateV1`. A backend that does not
//! execute keeps the provided methods, which refuse.

use std::future::Future;

use w3api_types::rpc::{
    AccessListResult, BuiltPayload, Bytes, Hash32, PayloadAttributes, SimulatePayload, SimulatedBlock, StateOverrides,
    TransactionRequest,
};
use w3api_types::{Chain, U256};

use crate::{BlockRef, SourceError};

/// Calls executed against a block's state.
pub trait Calls: Send + Sync {
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
        crate::not_executed()
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
        crate::not_executed()
    }

    /// The accounts and slots `request` touches after `block`.
    fn create_access_list(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
    ) -> impl Future<Output = Result<AccessListResult, SourceError>> + Send {
        let _ = (chain, request, block);
        crate::not_executed()
    }

    /// Blocks of calls simulated on top of `block` (`eth_simulateV1`).
    fn simulate(
        &self,
        chain: Chain,
        payload: SimulatePayload,
        block: BlockRef,
    ) -> impl Future<Output = Result<Vec<SimulatedBlock>, SourceError>> + Send {
        let _ = (chain, payload, block);
        crate::not_executed()
    }

    /// The block after `parent` built with `attributes` from `transactions`
    /// (the pool's when none are given), not kept (`testing_buildBlockV1`).
    fn build_block(
        &self,
        chain: Chain,
        parent: Hash32,
        attributes: PayloadAttributes,
        transactions: Option<Vec<Bytes>>,
        extra_data: Option<Bytes>,
    ) -> impl Future<Output = Result<BuiltPayload, SourceError>> + Send {
        let _ = (chain, parent, attributes, transactions, extra_data);
        crate::not_executed()
    }
}
