//! The native value a transaction moves inside the EVM, below its own
//! call: a contract paying out (WETH's `withdraw`, a router's refund, a
//! splitter), a creation given value, a self-destruct's balance. The
//! ledger learns them as a block is made, so a wallet's history lists what
//! reached it that way; no receipt says so.
//!
//! They are read from revm-inspectors' call arena, recorded with nothing
//! but the frames and their inputs: its frames know whether they
//! succeeded, so value moved by a call that was undone later (by itself or
//! by one it was made in) is left out, as it never moved. The same frames
//! give the calls to `console.sol`'s address, whose inputs a dev node
//! prints.

use alloy_primitives::{Address, Bytes, U256, address};
use revm::context::TxEnv;
use revm::{DatabaseRef, InspectEvm, MainBuilder};
use revm_inspectors::tracing::types::{CallKind, CallTraceNode};
use revm_inspectors::tracing::{TracingInspector, TracingInspectorConfig};

use crate::evm::{BlockSpec, Checks, Outcome, Refused, context};

/// Native value one call inside a transaction moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerTransfer {
    /// Who paid it: the calling contract, or the one that self-destructed.
    pub from: Address,
    /// Who received it.
    pub to: Address,
    /// How much, in wei.
    pub value: U256,
}

/// The address Hardhat's (and Foundry's) `console.sol` calls.
pub const CONSOLE: Address = address!("0x000000000000000000636F6e736F6c652e6c6f67");

/// What a transaction did inside the EVM that its receipt does not say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inside {
    /// The native value its inner calls moved, in the order they began.
    pub transfers: Vec<InnerTransfer>,
    /// The inputs of its calls to [`CONSOLE`], in order, undone or not.
    pub console: Vec<Bytes>,
}

/// Runs `tx` as [`crate::ChainState::transact`] does, and answers what it
/// did inside.
pub(crate) fn transact_moving<D: DatabaseRef>(
    state: D,
    chain_id: u64,
    block: &BlockSpec,
    tx: TxEnv,
    checks: Checks,
) -> Result<(Outcome, Inside), Refused<D::Error>> {
    let mut frames = record_frames();
    let outcome = context(state, chain_id, block, checks).build_mainnet_with_inspector(&mut frames).inspect_tx(tx)?;
    Ok((outcome, inside(&frames)))
}

/// An inspector that records each frame with its input, and nothing else:
/// what [`inside`] reads.
pub(crate) fn record_frames() -> TracingInspector {
    TracingInspector::new(TracingInspectorConfig { record_inputs: true, ..TracingInspectorConfig::none() })
}

/// What the transaction `frames` recorded did inside.
pub(crate) fn inside(frames: &TracingInspector) -> Inside {
    let nodes = frames.traces().nodes();
    let console = nodes.iter().filter(|node| node.trace.address == CONSOLE).map(|node| node.trace.data.clone());
    Inside { transfers: inner_transfers(nodes), console: console.collect() }
}

/// The value moved by the frames below the top one that took effect, and
/// the balance of any contract that self-destructed (the top one too).
fn inner_transfers(nodes: &[CallTraceNode]) -> Vec<InnerTransfer> {
    let undone = |node: &CallTraceNode| {
        let mut at = Some(node.idx);
        while let Some(index) = at {
            if !nodes[index].trace.success {
                return true;
            }
            at = nodes[index].parent;
        }
        false
    };
    let mut moved = Vec::new();
    for node in nodes.iter().filter(|node| !undone(node)) {
        let trace = &node.trace;
        // A delegate call or call-code runs another's code as the caller: no value leaves it.
        let pays = matches!(trace.kind, CallKind::Call | CallKind::Create | CallKind::Create2);
        if node.parent.is_some() && pays && !trace.value.is_zero() {
            moved.push(InnerTransfer { from: trace.caller, to: trace.address, value: trace.value });
        }
        if let (Some(to), Some(value)) = (trace.selfdestruct_refund_target, trace.selfdestruct_transferred_value)
            && !value.is_zero()
        {
            let from = trace.selfdestruct_address.unwrap_or(trace.address);
            moved.push(InnerTransfer { from, to, value });
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use revm_inspectors::tracing::types::CallTrace;

    use super::*;

    /// Frame `idx`, made in `parent`, from `caller` to `address` with `value`.
    fn frame(
        idx: usize,
        parent: Option<usize>,
        (caller, address): (u8, u8),
        value: u64,
        success: bool,
    ) -> CallTraceNode {
        let trace = CallTrace {
            caller: Address::repeat_byte(caller),
            address: Address::repeat_byte(address),
            value: U256::from(value),
            success,
            kind: CallKind::Call,
            ..CallTrace::default()
        };
        CallTraceNode { idx, parent, trace, ..CallTraceNode::default() }
    }

    fn moved(nodes: &[CallTraceNode]) -> Vec<(u8, u8, u64)> {
        let byte = |address: Address| address.0[0];
        inner_transfers(nodes).iter().map(|t| (byte(t.from), byte(t.to), t.value.to::<u64>())).collect()
    }

    #[test]
    fn value_of_inner_calls_that_took_effect_is_moved_and_the_top_calls_is_not() {
        let nodes = [
            frame(0, None, (1, 2), 100, true),
            frame(1, Some(0), (2, 3), 7, true),
            // Undone: it failed, and so did the call it was made in.
            frame(2, Some(0), (2, 4), 5, false),
            frame(3, Some(2), (4, 5), 1, true),
            frame(4, Some(1), (3, 6), 2, true),
            frame(5, Some(1), (3, 7), 0, true),
        ];
        assert_eq!(moved(&nodes), [(2, 3, 7), (3, 6, 2)]);
        let mut failed = nodes.clone();
        failed[0].trace.success = false;
        assert!(moved(&failed).is_empty(), "a failed transaction moves nothing inside");
    }

    #[test]
    fn a_delegate_call_moves_nothing_and_a_self_destruct_pays_its_balance_out() {
        let mut nodes = [frame(0, None, (1, 2), 0, true), frame(1, Some(0), (2, 3), 9, true)];
        nodes[1].trace.kind = CallKind::DelegateCall;
        nodes[0].trace.selfdestruct_address = Some(Address::repeat_byte(2));
        nodes[0].trace.selfdestruct_refund_target = Some(Address::repeat_byte(8));
        nodes[0].trace.selfdestruct_transferred_value = Some(U256::from(40));
        assert_eq!(moved(&nodes), [(2, 8, 40)]);
    }
}
