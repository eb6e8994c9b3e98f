//! `include=internal_transactions`: the calls a transaction made inside
//! the EVM, read from the source's `callTracer` trace of it (the devnet
//! runs it again; node mode asks the node) and listed below the
//! transaction's own call in the order they began.

use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{BlockTraceResult, CallFrame, GethTrace, TraceConfig};
use w3api_types::{B256, Chain, InternalTransaction, TransactionInclude, U256};

use crate::Backend;

/// Whether a request asked for internal transactions.
pub(crate) fn wanted(include: Option<TransactionInclude>) -> bool {
    include == Some(TransactionInclude::InternalTransactions)
}

/// The internal transactions of the mined transaction `hash`, of block
/// `block` (number and hash).
pub(crate) async fn of_transaction<S: Backend>(
    source: &S,
    chain: Chain,
    hash: B256,
    block: (u64, B256),
) -> Result<Vec<InternalTransaction>, SourceError> {
    let trace = source.trace_transaction(chain, hash, call_tracer()).await?;
    Ok(flattened(&call_frame(trace)?, (hash, block)))
}

/// The internal transactions of each transaction of block `block`, in
/// order, from one trace of the block.
pub(crate) async fn of_block<S: Backend>(
    source: &S,
    chain: Chain,
    (number, hash): (u64, B256),
) -> Result<Vec<Vec<InternalTransaction>>, SourceError> {
    let traces = source.trace_block(chain, BlockRef::Hash(hash), call_tracer()).await?;
    let flatten = |BlockTraceResult { tx_hash, result, error }: BlockTraceResult| match result {
        Some(trace) => Ok(flattened(&call_frame(trace)?, (tx_hash, (number, hash)))),
        None => {
            Err(SourceError::Untraced(format!("transaction {tx_hash:#x}: {}", error.as_deref().unwrap_or("no trace"))))
        }
    };
    traces.into_iter().map(flatten).collect()
}

fn call_tracer() -> TraceConfig {
    TraceConfig { tracer: Some("callTracer".into()), ..TraceConfig::default() }
}

/// The top call frame of a `callTracer` trace; a node's answer read as one.
fn call_frame(trace: GethTrace) -> Result<CallFrame, SourceError> {
    match trace {
        GethTrace::Call(frame) => Ok(*frame),
        GethTrace::Node(value) => serde_json::from_value(value)
            .map_err(|e| SourceError::Unavailable(format!("the node's callTracer trace could not be read: {e}"))),
        other => Err(SourceError::Unavailable(format!("a callTracer trace came back as another tracer's: {other:?}"))),
    }
}

/// Every frame below `top`, depth first in the order they began, each
/// placed in its transaction and block.
fn flattened(top: &CallFrame, (hash, (number, block)): (B256, (u64, B256))) -> Vec<InternalTransaction> {
    let mut listed = Vec::new();
    let mut pending: Vec<&CallFrame> = top.calls.iter().rev().collect();
    while let Some(frame) = pending.pop() {
        listed.push(InternalTransaction {
            transaction_hash: hash,
            block_number: number,
            block_hash: block,
            kind: frame.kind.clone(),
            from: frame.from,
            to: frame.to.unwrap_or_default(),
            value: frame.value.unwrap_or(U256::ZERO),
            gas: frame.gas,
            gas_used: frame.gas_used,
            input: frame.input.clone(),
            output: frame.output.clone().unwrap_or_default(),
            error: frame.error.clone(),
        });
        pending.extend(frame.calls.iter().rev());
    }
    listed
}

#[cfg(test)]
mod tests {
    use w3api_types::Address;

    use super::*;

    fn frame(kind: &str, to: u8, calls: Vec<CallFrame>) -> CallFrame {
        let json = serde_json::json!({
            "type": kind, "from": Address::repeat_byte(1), "to": Address::repeat_byte(to),
            "gas": "0x10", "gasUsed": "0x8", "input": "0x",
        });
        CallFrame { calls, ..serde_json::from_value(json).unwrap() }
    }

    #[test]
    fn frames_below_the_top_are_listed_in_the_order_they_began() {
        let tree =
            frame("CALL", 0, vec![frame("CALL", 1, vec![frame("STATICCALL", 2, vec![])]), frame("CREATE", 3, vec![])]);
        let block = (7, B256::repeat_byte(9));
        let listed = flattened(&tree, (B256::repeat_byte(8), block));
        let order: Vec<_> = listed.iter().map(|call| (call.kind.as_str(), call.to)).collect();
        let to = Address::repeat_byte;
        assert_eq!(order, [("CALL", to(1)), ("STATICCALL", to(2)), ("CREATE", to(3))]);
        assert!(listed.iter().all(|call| call.value == U256::ZERO && call.output.is_empty() && call.block_number == 7));
        assert!(flattened(&frame("CALL", 0, vec![]), (B256::ZERO, block)).is_empty());
    }
}
