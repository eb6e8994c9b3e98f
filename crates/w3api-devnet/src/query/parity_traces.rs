//! Traces on the devnet as parity's `trace_*` methods give them: the same
//! replay of a block as `debug_trace*` (see [`super::traces`]), with
//! revm-inspectors' parity tracer, then localized with the block and
//! transaction each call is of.

use alloy_primitives::B256;
use alloy_primitives::map::HashSet;
use w3api_chain::trace::{TraceType as EvmTraceType, Traced, Tracer};
use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{LocalizedTrace, TraceFilter, TraceResults, TraceType, TransactionTrace};

use super::traces::{BlockReplay, TracedTx, unwritten};
use crate::generate::ChainData;

/// Parity's tracer, recording the `types` asked for.
pub(crate) fn parity_tracer(types: &[TraceType]) -> Tracer {
    let types: HashSet<EvmTraceType> = types
        .iter()
        .map(|kind| match kind {
            TraceType::Trace => EvmTraceType::Trace,
            TraceType::VmTrace => EvmTraceType::VmTrace,
            TraceType::StateDiff => EvmTraceType::StateDiff,
        })
        .collect();
    Tracer::Parity(types)
}

/// Parity's tracer recording the calls alone, as `trace_transaction`,
/// `trace_block` and `trace_filter` answer them.
pub(crate) fn calls_tracer() -> Tracer {
    parity_tracer(&[TraceType::Trace])
}

/// A parity trace as the gateway writes it.
pub(crate) fn results(trace: Traced) -> Result<TraceResults, SourceError> {
    let Traced::Parity(results) = trace else {
        return Err(SourceError::Unavailable("a trace in geth's shape where parity's was asked".into()));
    };
    serde_json::to_value(&results).and_then(serde_json::from_value).map_err(unwritten)
}

impl TracedTx {
    /// Its calls, each with its block and transaction; the transaction's
    /// error when it could not be traced.
    pub(crate) fn localized(self, (number, hash): (u64, B256)) -> Result<Vec<LocalizedTrace>, SourceError> {
        let trace = self.trace.map_err(SourceError::Untraced)?;
        let calls: Vec<TransactionTrace> = results(trace)?.trace;
        let place = |trace| LocalizedTrace {
            trace,
            block_hash: hash,
            block_number: number,
            transaction_hash: Some(self.hash),
            transaction_position: Some(self.position),
        };
        Ok(calls.into_iter().map(place).collect())
    }
}

/// The calls of each transaction of `block` traced, localized, in order.
pub(crate) fn localized(traced: Vec<TracedTx>, block: (u64, B256)) -> Result<Vec<LocalizedTrace>, SourceError> {
    let mut calls = Vec::new();
    for tx in traced {
        calls.extend(tx.localized(block)?);
    }
    Ok(calls)
}

impl ChainData {
    /// The blocks of `filter`'s range (resolved to numbers by the gateway)
    /// that hold transactions, read for a replay; those past the newest
    /// block do not exist yet.
    pub(crate) fn filter_replays(&self, filter: &TraceFilter) -> Result<Vec<BlockReplay>, SourceError> {
        let number = |block: Option<_>| match block.map(BlockRef::from) {
            Some(BlockRef::Number(number)) => Ok(number),
            other => Err(SourceError::InvalidRequest(format!("the trace filter's range is unresolved: {other:?}"))),
        };
        let (from, to) = (number(filter.from_block)?.max(1), number(filter.to_block)?.min(self.latest()));
        (from..=to)
            .filter(|block| self.blocks[*block as usize].tx_count > 0)
            .map(|block| self.block_replay(BlockRef::Number(block)))
            .collect()
    }
}

/// The traces `filter` matches, past its first `after` and at most `count`.
pub(crate) fn filtered(calls: Vec<LocalizedTrace>, filter: &TraceFilter) -> Vec<LocalizedTrace> {
    let skip = usize::try_from(filter.after.unwrap_or(0)).unwrap_or(usize::MAX);
    let take = filter.count.map_or(usize::MAX, |count| usize::try_from(count).unwrap_or(usize::MAX));
    calls.into_iter().filter(|call| filter.matches(&call.trace)).skip(skip).take(take).collect()
}
