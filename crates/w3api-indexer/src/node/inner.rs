//! The native value calls inside a block's transactions moved, from the
//! node's call traces: one `debug_traceBlockByNumber` with `callTracer` (or
//! parity's `trace_block`) per block that has transactions, read as trees
//! of calls whose value-moving frames that took effect are kept.
//!
//! A node that could not trace a block it has (a full node past the state
//! it keeps, for one) leaves that block without them, said in the log;
//! an unreachable node fails the read, to be tried again.

use serde_json::json;
use w3api_source::{geth_trees, parity_trees, value_transfers};
use w3api_types::rpc::{BlockTraceResult, CallFrame, Hash32, LocalizedTrace};

use super::{CallTraces, Node, NodeError, quantity};
use crate::block::{IndexedBlock, IndexedInnerTransfer};

const CALL_TRACER: &str = "debug_traceBlockByNumber";
const PARITY: &str = "trace_block";

impl Node {
    /// Gives each of `blocks` the value moved inside its transactions, as
    /// the node traces them (`how`, from its probe).
    pub(super) async fn place_inner_transfers(
        &self,
        blocks: &mut [IndexedBlock],
        how: CallTraces,
    ) -> Result<(), NodeError> {
        let method = match how {
            CallTraces::CallTracer => CALL_TRACER,
            CallTraces::Parity => PARITY,
            CallTraces::Untraced => return Ok(()),
        };
        let traced: Vec<&mut IndexedBlock> = blocks.iter_mut().filter(|b| !b.transactions.is_empty()).collect();
        let calls: Vec<_> = traced
            .iter()
            .map(|block| match how {
                CallTraces::Parity => (method, json!([quantity(block.number)])),
                _ => (method, json!([quantity(block.number), { "tracer": "callTracer" }])),
            })
            .collect();
        if calls.is_empty() {
            return Ok(());
        }
        let answers = match self.calls(&calls).await {
            Ok(answers) => answers,
            Err(NodeError::Refused { code, message, .. }) => {
                let (first, last) = (traced[0].number, traced[traced.len() - 1].number);
                tracing::warn!(
                    node = self.name,
                    method,
                    code,
                    message,
                    "the node did not trace blocks {first} to {last}: their internal transfers are not indexed"
                );
                return Ok(());
            }
            Err(error) => return Err(error),
        };
        for (block, answer) in traced.into_iter().zip(answers) {
            let trees = match how {
                CallTraces::Parity => parity_trees(self.decode::<Vec<LocalizedTrace>>(method, &answer)?),
                _ => geth_trees(self.decode::<Vec<BlockTraceResult>>(method, &answer)?)
                    .map_err(|error| self.failed(method, error))?,
            };
            block.inner = self.inner_of(block, &trees)?;
        }
        Ok(())
    }

    /// The value moved in `block`, from its trees of calls; trees of other
    /// transactions than the block's mean the node moved to another branch.
    fn inner_of(
        &self,
        block: &IndexedBlock,
        trees: &[(Hash32, CallFrame)],
    ) -> Result<Vec<IndexedInnerTransfer>, NodeError> {
        let mut moved = Vec::new();
        for (hash, top) in trees {
            let index =
                block.transactions.iter().position(|tx| tx.hash == *hash).ok_or_else(|| self.moved(block.number))?;
            moved.extend(value_transfers(top).into_iter().map(|frame| IndexedInnerTransfer {
                transaction_index: index as u32,
                from: frame.from,
                to: frame.to.unwrap_or_default(),
                value: frame.value.unwrap_or_default(),
            }));
        }
        Ok(moved)
    }
}
