//! Traces of how transactions executed: as geth's `debug_trace*` methods
//! give them, and as parity's `trace_*` do. A source that executes runs
//! the transaction again to trace it; node mode passes each method to its
//! node.
//!
//! The gateway checks a [`TraceConfig`] before it reaches a source
//! ([`TraceConfig::tracer_kind`]), so a source takes it as valid.

use std::future::Future;

use w3api_types::rpc::{
    BlockTraceResult, CallFrame, GethTrace, Hash32, LocalizedTrace, TraceAction, TraceConfig, TraceFilter, TraceOutput,
    TraceResults, TraceType, TransactionRequest, TransactionTrace,
};
use w3api_types::{Bytes, Chain, U256};

use crate::{BlockRef, SourceError};

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
        crate::not_executed()
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
        crate::not_executed()
    }

    /// How each of `block`'s transactions executed, in order.
    fn trace_block(
        &self,
        chain: Chain,
        block: BlockRef,
        config: TraceConfig,
    ) -> impl Future<Output = Result<Vec<BlockTraceResult>, SourceError>> + Send {
        let _ = (chain, block, config);
        crate::not_executed()
    }

    /// The calls the mined transaction `hash` made, in parity's shape;
    /// `None` when no block holds it.
    fn parity_transaction(
        &self,
        chain: Chain,
        hash: Hash32,
    ) -> impl Future<Output = Result<Option<Vec<LocalizedTrace>>, SourceError>> + Send {
        let _ = (chain, hash);
        crate::not_executed()
    }

    /// The calls each of `block`'s transactions made, in order; `None`
    /// when there is no such block.
    fn parity_block(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<Vec<LocalizedTrace>>, SourceError>> + Send {
        let _ = (chain, block);
        crate::not_executed()
    }

    /// The calls of the blocks `filter` spans that it matches, paged by
    /// its `after` and `count`.
    fn parity_filter(
        &self,
        chain: Chain,
        filter: TraceFilter,
    ) -> impl Future<Output = Result<Vec<LocalizedTrace>, SourceError>> + Send {
        let _ = (chain, filter);
        crate::not_executed()
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
        crate::not_executed()
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
        crate::not_executed()
    }

    /// The tree of calls the mined transaction `hash` made, as geth's
    /// `callTracer` gives it; `None` when the source cannot trace its chain.
    /// What internal transactions are read from.
    fn call_tree(
        &self,
        chain: Chain,
        hash: Hash32,
    ) -> impl Future<Output = Result<Option<CallFrame>, SourceError>> + Send {
        async move { geth_call_tree(self, chain, hash).await.map(Some) }
    }

    /// The tree of calls of each transaction of the block `hash`, in order,
    /// with the transaction's hash; `None` when the source cannot trace its
    /// chain.
    fn call_trees(
        &self,
        chain: Chain,
        block: Hash32,
    ) -> impl Future<Output = Result<Option<Vec<(Hash32, CallFrame)>>, SourceError>> + Send {
        async move { geth_call_trees(self, chain, block).await.map(Some) }
    }
}

/// The tree of calls of `hash` from `source`'s `callTracer` trace.
pub async fn geth_call_tree<S: Tracing + ?Sized>(
    source: &S,
    chain: Chain,
    hash: Hash32,
) -> Result<CallFrame, SourceError> {
    call_frame(source.trace_transaction(chain, hash, call_tracer()).await?)
}

/// The trees of calls of block `block`'s transactions from `source`'s
/// `callTracer` trace of the block.
pub async fn geth_call_trees<S: Tracing + ?Sized>(
    source: &S,
    chain: Chain,
    block: Hash32,
) -> Result<Vec<(Hash32, CallFrame)>, SourceError> {
    geth_trees(source.trace_block(chain, BlockRef::Hash(block), call_tracer()).await?)
}

/// The trees of calls of a block's `callTracer` trace, one per
/// transaction, in order; an error names a transaction that was not traced.
pub fn geth_trees(traces: Vec<BlockTraceResult>) -> Result<Vec<(Hash32, CallFrame)>, SourceError> {
    traces.into_iter().map(traced_frame).collect()
}

/// geth's `callTracer`, with its defaults.
fn call_tracer() -> TraceConfig {
    TraceConfig { tracer: Some("callTracer".into()), ..TraceConfig::default() }
}

/// The top frame of a `callTracer` trace; a node's answer read as one.
fn call_frame(trace: GethTrace) -> Result<CallFrame, SourceError> {
    match trace {
        GethTrace::Call(frame) => Ok(*frame),
        GethTrace::Node(value) => serde_json::from_value(value)
            .map_err(|e| SourceError::Unavailable(format!("the node's callTracer trace could not be read: {e}"))),
        other => Err(SourceError::Unavailable(format!("a callTracer trace came back as another tracer's: {other:?}"))),
    }
}

/// One transaction's frame of a block's `callTracer` trace; its error when
/// it could not be traced.
fn traced_frame(traced: BlockTraceResult) -> Result<(Hash32, CallFrame), SourceError> {
    let BlockTraceResult { tx_hash, result, error } = traced;
    match result {
        Some(trace) => Ok((tx_hash, call_frame(trace)?)),
        None => {
            Err(SourceError::Untraced(format!("transaction {tx_hash:#x}: {}", error.as_deref().unwrap_or("no trace"))))
        }
    }
}

/// The calls below `top` that moved value and took effect: each
/// succeeded, and so did every call it was made in. In the order they
/// began.
pub fn value_transfers(top: &CallFrame) -> Vec<&CallFrame> {
    let mut moved = Vec::new();
    if top.error.is_some() {
        return moved;
    }
    let mut pending: Vec<&CallFrame> = top.calls.iter().rev().collect();
    while let Some(frame) = pending.pop() {
        if frame.error.is_some() {
            continue; // undone, with every call inside it
        }
        if frame.value.is_some_and(|value| !value.is_zero()) && frame.kind != "DELEGATECALL" {
            moved.push(frame);
        }
        pending.extend(frame.calls.iter().rev());
    }
    moved
}

/// A block's parity traces as one tree of calls per transaction, in order.
pub fn parity_trees(traces: Vec<LocalizedTrace>) -> Vec<(Hash32, CallFrame)> {
    let mut trees: Vec<(Hash32, Vec<TransactionTrace>)> = Vec::new();
    for listed in traces {
        // A block's reward traces belong to no transaction.
        let Some(hash) = listed.transaction_hash else { continue };
        match trees.last_mut() {
            Some((last, calls)) if *last == hash => calls.push(listed.trace),
            _ => trees.push((hash, vec![listed.trace])),
        }
    }
    trees.into_iter().filter_map(|(hash, calls)| Some((hash, parity_tree(&calls)?))).collect()
}

/// One transaction's parity traces (in the order their calls began, each
/// placed by its `traceAddress`) as the tree `callTracer` gives; `None` for
/// no traces.
pub fn parity_tree(traces: &[TransactionTrace]) -> Option<CallFrame> {
    // Frames still open, outermost first; a trace at depth d closes those deeper than d.
    let mut open: Vec<CallFrame> = Vec::new();
    for trace in traces {
        let depth = trace.trace_address.len();
        while open.len() > depth.max(1) {
            close(&mut open);
        }
        if depth == 0 && !open.is_empty() {
            break; // a second top call belongs to another transaction
        }
        open.push(parity_frame(trace));
    }
    while open.len() > 1 {
        close(&mut open);
    }
    open.pop()
}

fn close(open: &mut Vec<CallFrame>) {
    if let Some(frame) = open.pop()
        && let Some(parent) = open.last_mut()
    {
        parent.calls.push(frame);
    }
}

/// A parity trace as a `callTracer` frame, without the calls inside it.
fn parity_frame(trace: &TransactionTrace) -> CallFrame {
    let (kind, from, to, value, gas, input) = match &trace.action {
        TraceAction::Call(call) => {
            (call.call_type.to_uppercase(), call.from, Some(call.to), call.value, call.gas, call.input.clone())
        }
        TraceAction::Create(create) => {
            let kind = create.creation_method.as_deref().unwrap_or("create").to_uppercase();
            (kind, create.from, None, create.value, create.gas, create.init.clone())
        }
        TraceAction::Selfdestruct(gone) => {
            ("SELFDESTRUCT".into(), gone.address, Some(gone.refund_address), gone.balance, U256::ZERO, Bytes::new())
        }
        TraceAction::Reward(reward) => ("REWARD".into(), reward.author, None, reward.value, U256::ZERO, Bytes::new()),
    };
    let (to, gas_used, output) = match &trace.result {
        Some(TraceOutput::Create(created)) => (Some(created.address), created.gas_used, Some(created.code.clone())),
        Some(TraceOutput::Call(called)) => (to, called.gas_used, Some(called.output.clone())),
        None => (to, U256::ZERO, None),
    };
    CallFrame {
        kind,
        from,
        to,
        value: Some(value),
        gas,
        gas_used,
        input,
        output,
        error: trace.error.clone(),
        revert_reason: None,
        calls: Vec::new(),
        logs: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(to: u8, address: &[u64], subtraces: u64) -> serde_json::Value {
        json!({
            "type": "call",
            "action": {"from": format!("0x{:040x}", 1), "callType": "call", "gas": "0x100", "input": "0x",
                       "to": format!("0x{to:040x}"), "value": "0x5"},
            "result": {"gasUsed": "0x10", "output": "0x"},
            "subtraces": subtraces,
            "traceAddress": address,
        })
    }

    #[test]
    fn parity_traces_rebuild_the_tree_of_calls() {
        // top → (a → (b), c)
        let listed = json!([call(0, &[], 2), call(0xa, &[0], 1), call(0xb, &[0, 0], 0), call(0xc, &[1], 0)]);
        let traces: Vec<TransactionTrace> = serde_json::from_value(listed).unwrap();
        let top = parity_tree(&traces).unwrap();
        let to = |frame: &CallFrame| frame.to.unwrap().0[19];
        assert_eq!(top.calls.iter().map(to).collect::<Vec<_>>(), [0xa, 0xc]);
        assert_eq!(top.calls[0].calls.iter().map(to).collect::<Vec<_>>(), [0xb]);
        assert_eq!((top.kind.as_str(), top.value, top.gas_used), ("CALL", Some(U256::from(5)), U256::from(0x10)));
        assert!(top.calls[1].calls.is_empty());
        assert!(parity_tree(&[]).is_none());
        // Value moved by every call but the top one; none under a failed call.
        assert_eq!(value_transfers(&top).iter().map(|frame| to(frame)).collect::<Vec<_>>(), [0xa, 0xb, 0xc]);
        let mut failed = top.clone();
        failed.calls[0].error = Some("execution reverted".into());
        assert_eq!(value_transfers(&failed).iter().map(|frame| to(frame)).collect::<Vec<_>>(), [0xc]);
    }
}
