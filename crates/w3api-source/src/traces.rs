//! Traces of how transactions executed, as geth's `debug_trace*` methods
//! give them. A source that executes runs the transaction again to trace
//! it; node mode passes each method to its node.
//!
//! The gateway checks a [`TraceConfig`] before it reaches a source
//! ([`TraceConfig::tracer_kind`]), so a source takes it as valid.

use std::future::Future;

use w3api_types::Chain;
use w3api_types::rpc::{BlockTraceResult, GethTrace, Hash32, TraceConfig, TransactionRequest};

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
}
