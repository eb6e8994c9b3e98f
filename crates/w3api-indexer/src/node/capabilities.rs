//! What a node accepts, learnt by asking it rather than assumed from its
//! name. Nodes differ in what they take beyond the core methods:
//!
//! | | Hardhat | Ganache 7 | geth, reth, Erigon | hosted |
//! |---|---|---|---|---|
//! | EIP-1898 `{blockHash}` objects | yes | no | yes | mostly |
//! | `eth_getBlockReceipts` | no (2.29) | no | yes | mostly |
//! | batches | yes | yes | up to 1,000 calls | often 10 to 100 calls |
//! | `safe` / `finalized` | yes | yes | after the merge | yes |
//! | call traces | no | no | `callTracer` (Erigon, Nethermind: also `trace_block`) | some |
//!
//! Each has a fallback, so that a node answering only the core methods is
//! indexed as fully as one answering all of them: a state read by block
//! number with the block's hash checked after, `eth_getLogs` over a range,
//! smaller batches or single calls, and tags counted down from the head.

use alloy_primitives::Address;
use serde_json::json;

use super::{HeaderLink, Node, NodeError};

/// What one node was found to accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// State reads (`eth_getBalance`…) take an EIP-1898 block object, so
    /// that a read names its block by hash and fails rather than answering
    /// from another branch.
    pub block_objects: bool,
    /// `eth_getBlockReceipts` gives a block's receipts in one call.
    pub block_receipts: bool,
    /// Most calls one JSON-RPC batch may hold; 1 when the node takes none.
    pub batch_calls: usize,
    /// The `safe` and `finalized` block tags.
    pub safety_tags: bool,
    /// How the node traces the calls inside a transaction.
    pub call_traces: CallTraces,
}

/// How a node gives the calls a transaction made inside the EVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallTraces {
    /// `debug_traceBlockByNumber` with geth's `callTracer` (geth, reth,
    /// Erigon, Anvil).
    CallTracer,
    /// Parity's `trace_block` (OpenEthereum, Nethermind).
    Parity,
    /// Neither (Hardhat 2, Ganache): no internal transactions.
    Untraced,
}

/// How a node gives the logs of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogsMethod {
    /// `eth_getBlockReceipts`, one call per block.
    BlockReceipts,
    /// `eth_getLogs` over a batch's range, one call per batch.
    Logs,
}

impl Capabilities {
    /// How this node gives a block's logs.
    pub fn logs_method(&self) -> LogsMethod {
        if self.block_receipts { LogsMethod::BlockReceipts } else { LogsMethod::Logs }
    }

    /// What each capability the node lacks is replaced with, for the log.
    pub fn fallbacks(&self) -> Vec<&'static str> {
        let mut fallbacks = Vec::new();
        if !self.block_objects {
            fallbacks.push("state read by block number, the block's hash checked after (no EIP-1898 block objects)");
        }
        if !self.block_receipts {
            fallbacks.push("logs by eth_getLogs over each batch's range (no eth_getBlockReceipts)");
        }
        if self.batch_calls == 1 {
            fallbacks.push("single calls (no batches)");
        }
        if !self.safety_tags {
            fallbacks.push("safe and finalized counted down from the head (no such tags)");
        }
        match self.call_traces {
            CallTraces::CallTracer => {}
            CallTraces::Parity => fallbacks.push("internal transactions from trace_block (no callTracer)"),
            CallTraces::Untraced => fallbacks.push(
                "no internal transactions: the node traces neither with callTracer nor with trace_block, so \
                 include=internal_transactions lists none",
            ),
        }
        fallbacks
    }
}

impl Node {
    /// Asks the node what it accepts. A refusal of a probe means the
    /// capability is missing; a node that cannot be reached is an error.
    pub(super) async fn probe(&self) -> Result<Capabilities, NodeError> {
        let head: Option<HeaderLink> = self.request("eth_getBlockByNumber", json!(["latest", false])).await?;
        let head = head.ok_or_else(|| self.failed("eth_getBlockByNumber", "the node has no latest block"))?;
        let number = format!("{:#x}", head.number.to::<u64>());
        let by_object = json!([Address::ZERO, { "blockHash": head.hash, "requireCanonical": true }]);
        let (block_objects, block_receipts, safe, finalized) = tokio::join!(
            self.accepts("eth_getBalance", by_object),
            self.accepts("eth_getBlockReceipts", json!([number])),
            self.accepts_block("safe"),
            self.accepts_block("finalized"),
        );
        let capabilities = Capabilities {
            block_objects: block_objects?,
            block_receipts: block_receipts?,
            batch_calls: self.largest_batch().await?,
            safety_tags: safe? && finalized?,
            call_traces: self.call_traces(&number).await?,
        };
        tracing::info!(node = self.name(), ?capabilities, fallbacks = ?capabilities.fallbacks(), "probed the node");
        Ok(capabilities)
    }

    /// Whether the node answers the call; `Err` only when it cannot be reached.
    async fn accepts(&self, method: &'static str, params: serde_json::Value) -> Result<bool, NodeError> {
        match self.request::<serde_json::Value>(method, params).await {
            Ok(_) => Ok(true),
            Err(NodeError::Refused { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// How the node traces block `number`'s calls: an answer in the shape
    /// asked for counts, a refusal or another shape (a node that ignores
    /// the tracer) does not.
    async fn call_traces(&self, number: &str) -> Result<CallTraces, NodeError> {
        let config = json!([number, { "tracer": "callTracer" }]);
        let is_call_frame = |trace: &serde_json::Value| trace["result"]["type"].is_string();
        if let Some(traces) = self.answer("debug_traceBlockByNumber", config).await?
            && traces.as_array().is_some_and(|traces| traces.iter().all(is_call_frame))
        {
            return Ok(CallTraces::CallTracer);
        }
        let parity = self.answer("trace_block", json!([number])).await?;
        if parity.is_some_and(|traces| traces.is_array()) {
            return Ok(CallTraces::Parity);
        }
        Ok(CallTraces::Untraced)
    }

    /// The node's answer to the call; `None` when it refuses it or answers
    /// with an error of its own, `Err` only when it cannot be reached.
    async fn answer(
        &self,
        method: &'static str,
        params: serde_json::Value,
    ) -> Result<Option<serde_json::Value>, NodeError> {
        match self.request::<serde_json::Value>(method, params).await {
            Ok(answer) => Ok(Some(answer)),
            Err(NodeError::Refused { .. } | NodeError::Failed { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Whether the node names a block by `tag`.
    async fn accepts_block(&self, tag: &'static str) -> Result<bool, NodeError> {
        match self.request::<Option<HeaderLink>>("eth_getBlockByNumber", json!([tag, false])).await {
            Ok(block) => Ok(block.is_some()),
            Err(NodeError::Refused { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// The largest batch the node answers in full, up to the size the
    /// follower sends, halving from there; 1 when it answers none.
    async fn largest_batch(&self) -> Result<usize, NodeError> {
        let mut size = self.wanted_batch.max(1);
        while size > 1 {
            if self.answers_batch(size).await? {
                return Ok(size);
            }
            size /= 2;
        }
        Ok(1)
    }

    /// Whether a batch of `size` cheap calls comes back answered in full.
    async fn answers_batch(&self, size: usize) -> Result<bool, NodeError> {
        let calls = vec![("eth_chainId", json!([])); size];
        match self.batch(&calls).await {
            Ok(_) => Ok(true),
            Err(NodeError::Failed { .. } | NodeError::Refused { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_node_needs_no_fallback_and_a_bare_one_names_each() {
        let full = Capabilities {
            block_objects: true,
            block_receipts: true,
            batch_calls: 101,
            safety_tags: true,
            call_traces: CallTraces::CallTracer,
        };
        assert!(full.fallbacks().is_empty());
        assert_eq!(full.logs_method(), LogsMethod::BlockReceipts);
        let bare = Capabilities {
            block_objects: false,
            block_receipts: false,
            batch_calls: 1,
            safety_tags: false,
            call_traces: CallTraces::Untraced,
        };
        assert_eq!(bare.fallbacks().len(), 5);
        assert_eq!(bare.logs_method(), LogsMethod::Logs);
    }
}
