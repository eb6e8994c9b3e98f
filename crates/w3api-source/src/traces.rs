//! Traces of how transactions executed: as geth's `debug_trace*` methods
//! give them, and as parity's `trace_*` do. A source that executes runs
//! the transaction again to trace it; node mode passes each method to its
//! node.
//!
//! The gateway checks a [`TraceConfig`] before it reaches a source
//! ([`TraceConfig::tracer_kind`]), so a source takes it as valid.

use std::future::Future;

use w3api_types::Chain;
use w3api_types::rpc::{
    BlockTraceResult, GethTrace, Hash32, LocalizedTrace, TraceConfig, TraceFilter, TraceResults, TraceType,
    TransactionRequest,
};

use crate::{BlockRef, SourceError};

fn refused<T: Send>() -> impl Future<Output = Result<T, SourceError>> + Send {
    std::future::ready(Err(SourceError::NotExecuted))
}

/// The tracing methods of a chain; each refuses with
/// [`SourceError::NotExecuted`] unless the source takes it.
pub trait Tracing: Send + Sync {
    /// How the mined transaction `hash` executed, at its place in its block.
    fn trace_transaction(
        &self,
        chain: Chain,
        hash: Hash32,
        config: TraceConfig,
    ) -> impl Future<Output = Result<GethTrace, SourceError>> + Send {
        let _ = (chain, hash, config);
        refused()
    }

    /// How `request` would execute after `block`, with the config's
    /// overrides of state and block.
    fn trace_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        config: TraceConfig,
    ) -> impl Future<Output = Result<GethTrace, SourceError>> + Send {
        let _ = (chain, request, block, config);
        refused()
    }

    /// How each of `block`'s transactions executed, in order.
    fn trace_block(
        &self,
        chain: Chain,
        block: BlockRef,
        config: TraceConfig,
    ) -> impl Future<Output = Result<Vec<BlockTraceResult>, SourceError>> + Send {
        let _ = (chain, block, config);
        refused()
    }

    /// The calls the mined transaction `hash` made, in parity's shape;
    /// `None` when no block holds it.
    fn parity_transaction(
        &self,
        chain: Chain,
        hash: Hash32,
    ) -> impl Future<Output = Result<Option<Vec<LocalizedTrace>>, SourceError>> + Send {
        let _ = (chain, hash);
        refused()
    }

    /// The calls each of `block`'s transactions made, in order; `None`
    /// when there is no such block.
    fn parity_block(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<Vec<LocalizedTrace>>, SourceError>> + Send {
        let _ = (chain, block);
        refused()
    }

    /// The calls of the blocks `filter` spans that it matches, paged by
    /// its `after` and `count`.
    fn parity_filter(
        &self,
        chain: Chain,
        filter: TraceFilter,
    ) -> impl Future<Output = Result<Vec<LocalizedTrace>, SourceError>> + Send {
        let _ = (chain, filter);
        refused()
    }

    /// What `request` would do after `block`, with the `types` of trace asked.
    fn parity_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        types: Vec<TraceType>,
    ) -> impl Future<Output = Result<TraceResults, SourceError>> + Send {
        let _ = (chain, request, block, types);
        refused()
    }

    /// What the mined transaction `hash` did, run again at its place with
    /// the `types` of trace asked.
    fn parity_replay(
        &self,
        chain: Chain,
        hash: Hash32,
        types: Vec<TraceType>,
    ) -> impl Future<Output = Result<TraceResults, SourceError>> + Send {
        let _ = (chain, hash, types);
        refused()
    }
}
