//! A dApp's execution, state and filter methods, passed to the node.
//!
//! Reads at a block name the block in the gateway's view (`latest` is the
//! newest indexed block), as the other forwarded methods do; the node's
//! errors, reverts with their data included, reach the caller unchanged.
//! Filters live on the node, so their ids hold across replicas; what a
//! filter shows is waited for in the index, as receipts are.

use alloy_primitives::B256;
use serde_json::{Value, json};
use w3api_rpc::method;
use w3api_source::{
    BlockRef, ChangeFilter, SourceError, Tracing, geth_call_tree, geth_call_trees, parity_tree, parity_trees,
};
use w3api_types::rpc::{
    AccessListResult, AccountProof, BlockTraceResult, BuiltPayload, Bytes, CallFrame, FilterChanges, FilterId,
    GethTrace, Hash32, LocalizedTrace, Log, LogFilter, PayloadAttributes, SimulatePayload, SimulatedBlock,
    StateOverrides, StorageKey, TraceConfig, TraceFilter, TraceResults, TraceType, TransactionRequest, TxpoolContent,
    TypedData,
};
use w3api_types::{Address, Chain, U256};

use super::NodeSource;
use super::forward::{CATCH_UP, at_block, block_number, existing, request};
use crate::follow::Followed;
use crate::{Answer, CallTraces};

/// State overrides as the parameter after the block, left out when none
/// are given (a node without overrides may refuse even an empty one).
fn overrides_param(overrides: Option<StateOverrides>) -> Vec<Value> {
    overrides.map(|overrides| json!(overrides)).into_iter().collect()
}

/// Waits for the index to hold the newest block that `changes` name, so
/// that a client seeing them finds them in the wallet answers too. The
/// changes are the node's to give once only, so they are answered even
/// when the index does not get there in time.
async fn bring_into_view(followed: &Followed, changes: &FilterChanges) -> Result<(), SourceError> {
    let newest = match changes {
        FilterChanges::Logs(_) => changes.log_blocks().max_by_key(|(number, _)| *number),
        FilterChanges::Hashes(hashes) => match hashes.last() {
            None => None,
            Some(hash) => block_number(followed, BlockRef::Hash(*hash)).await?.map(|number| (number, *hash)),
        },
    };
    if let Some((number, hash)) = newest {
        followed.reach(number, hash, CATCH_UP).await;
    }
    Ok(())
}

impl w3api_source::State for NodeSource {
    async fn balance(&self, chain: Chain, address: Address, block: BlockRef) -> Result<U256, SourceError> {
        super::forward::account_state(self.chain(chain)?, "eth_getBalance", address, block).await
    }

    async fn transaction_count(&self, chain: Chain, address: Address, block: BlockRef) -> Result<u64, SourceError> {
        let followed = self.chain(chain)?;
        // The next nonce to use counts the node's pool, which the index
        // does not see: a wallet sending twice in a row needs two nonces.
        let count: U256 = if block == BlockRef::Pending {
            request(followed, "eth_getTransactionCount", serde_json::json!([address, "pending"])).await?
        } else {
            super::forward::account_state(followed, "eth_getTransactionCount", address, block).await?
        };
        u64::try_from(count).map_err(|_| SourceError::Unavailable(format!("the node counts {count} transactions")))
    }

    async fn code(&self, chain: Chain, address: Address, block: BlockRef) -> Result<Bytes, SourceError> {
        at_block(self.chain(chain)?, method::ETH_GET_CODE, vec![json!(address)], block, Vec::new()).await
    }

    async fn storage_at(
        &self,
        chain: Chain,
        address: Address,
        slot: U256,
        block: BlockRef,
    ) -> Result<Hash32, SourceError> {
        let before = vec![json!(address), json!(slot)];
        // Read as a number: Ganache leaves out the leading zeros that the
        // 32-byte word others give has, and the answer is the word.
        let word: U256 = at_block(self.chain(chain)?, method::ETH_GET_STORAGE_AT, before, block, Vec::new()).await?;
        Ok(Hash32::from(word))
    }

    async fn proof(
        &self,
        chain: Chain,
        address: Address,
        keys: Vec<StorageKey>,
        block: BlockRef,
    ) -> Result<AccountProof, SourceError> {
        let before = vec![json!(address), json!(keys)];
        at_block(self.chain(chain)?, method::ETH_GET_PROOF, before, block, Vec::new()).await
    }
}

impl w3api_source::Calls for NodeSource {
    async fn call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> Result<Bytes, SourceError> {
        let after = overrides_param(overrides);
        at_block(self.chain(chain)?, method::ETH_CALL, vec![json!(request)], block, after).await
    }

    async fn estimate_gas(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> Result<U256, SourceError> {
        let after = overrides_param(overrides);
        at_block(self.chain(chain)?, method::ETH_ESTIMATE_GAS, vec![json!(request)], block, after).await
    }

    async fn create_access_list(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
    ) -> Result<AccessListResult, SourceError> {
        at_block(self.chain(chain)?, method::ETH_CREATE_ACCESS_LIST, vec![json!(request)], block, Vec::new()).await
    }

    async fn simulate(
        &self,
        chain: Chain,
        payload: SimulatePayload,
        block: BlockRef,
    ) -> Result<Vec<SimulatedBlock>, SourceError> {
        let method = method::ETH_SIMULATE_V1;
        at_block(self.chain(chain)?, method, vec![json!(payload)], block, Vec::new()).await.map_err(lacks(method))
    }

    async fn build_block(
        &self,
        chain: Chain,
        parent: Hash32,
        attributes: PayloadAttributes,
        transactions: Option<Vec<Bytes>>,
        extra_data: Option<Bytes>,
    ) -> Result<BuiltPayload, SourceError> {
        let method = method::TESTING_BUILD_BLOCK_V1;
        let params = json!([parent, attributes, transactions, extra_data]);
        request(self.chain(chain)?, method, params).await.map_err(lacks(method))
    }
}

impl w3api_source::Sending for NodeSource {
    async fn send_raw_transaction(&self, chain: Chain, transaction: Bytes) -> Result<B256, SourceError> {
        request(self.chain(chain)?, method::ETH_SEND_RAW_TRANSACTION, json!([transaction])).await
    }

    async fn pool_content(&self, chain: Chain) -> Result<TxpoolContent, SourceError> {
        let method = method::TXPOOL_CONTENT;
        request(self.chain(chain)?, method, json!([])).await.map_err(lacks(method))
    }
}

impl w3api_source::Filters for NodeSource {
    /// Kept by the node, which bounds them as it does.
    async fn new_filter(&self, chain: Chain, _owner: String, filter: LogFilter) -> Result<FilterId, SourceError> {
        request(self.chain(chain)?, method::ETH_NEW_FILTER, json!([filter])).await
    }

    async fn new_change_filter(
        &self,
        chain: Chain,
        _owner: String,
        kind: ChangeFilter,
    ) -> Result<FilterId, SourceError> {
        let method = match kind {
            ChangeFilter::Blocks => method::ETH_NEW_BLOCK_FILTER,
            ChangeFilter::PendingTransactions => method::ETH_NEW_PENDING_TRANSACTION_FILTER,
        };
        request(self.chain(chain)?, method, json!([])).await
    }

    async fn filter_changes(&self, chain: Chain, id: FilterId) -> Result<FilterChanges, SourceError> {
        let followed = self.chain(chain)?;
        let changes = request(followed, method::ETH_GET_FILTER_CHANGES, json!([id])).await?;
        bring_into_view(followed, &changes).await?;
        Ok(changes)
    }

    async fn filter_logs(&self, chain: Chain, id: FilterId) -> Result<Vec<Log>, SourceError> {
        request(self.chain(chain)?, method::ETH_GET_FILTER_LOGS, json!([id])).await
    }

    async fn uninstall_filter(&self, chain: Chain, id: FilterId) -> Result<bool, SourceError> {
        request(self.chain(chain)?, method::ETH_UNINSTALL_FILTER, json!([id])).await
    }
}

impl w3api_source::Signing for NodeSource {
    async fn signing_accounts(&self, chain: Chain) -> Result<Vec<Address>, SourceError> {
        request(self.chain(chain)?, method::ETH_ACCOUNTS, json!([])).await
    }

    async fn send_transaction(&self, chain: Chain, transaction: TransactionRequest) -> Result<B256, SourceError> {
        request(self.chain(chain)?, method::ETH_SEND_TRANSACTION, json!([transaction])).await
    }

    async fn sign(&self, chain: Chain, address: Address, message: Bytes) -> Result<Bytes, SourceError> {
        // eth_sign, which every node takes; personal_sign is the same
        // signature with the parameters the other way round.
        request(self.chain(chain)?, method::ETH_SIGN, json!([address, message])).await
    }

    async fn sign_typed_data(&self, chain: Chain, address: Address, typed: TypedData) -> Result<Bytes, SourceError> {
        request(self.chain(chain)?, method::ETH_SIGN_TYPED_DATA_V4, json!([address, typed])).await
    }
}

/// Traces are the node's: passed on with the block in the gateway's view,
/// the config as the caller gave it, and the answer as the node gave it
/// (a node may write a struct log in an older shape than geth's).
impl Tracing for NodeSource {
    async fn trace_transaction(
        &self,
        chain: Chain,
        hash: Hash32,
        config: TraceConfig,
    ) -> Result<GethTrace, SourceError> {
        let trace = request(self.chain(chain)?, method::DEBUG_TRACE_TRANSACTION, json!([hash, config])).await?;
        Ok(GethTrace::Node(trace))
    }

    async fn trace_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        config: TraceConfig,
    ) -> Result<GethTrace, SourceError> {
        let (before, after) = (vec![json!(request)], vec![json!(config)]);
        at_block(self.chain(chain)?, method::DEBUG_TRACE_CALL, before, block, after).await.map(GethTrace::Node)
    }

    async fn trace_block(
        &self,
        chain: Chain,
        block: BlockRef,
        config: TraceConfig,
    ) -> Result<Vec<BlockTraceResult>, SourceError> {
        let followed = self.chain(chain)?;
        let traces: Vec<NodeBlockTrace> = match block {
            BlockRef::Hash(hash) => request(followed, method::DEBUG_TRACE_BLOCK_BY_HASH, json!([hash, config])).await?,
            other => {
                let number = existing(followed, other).await?;
                let params = json!([format!("{number:#x}"), config]);
                request(followed, method::DEBUG_TRACE_BLOCK_BY_NUMBER, params).await?
            }
        };
        Ok(traces.into_iter().map(NodeBlockTrace::into_result).collect())
    }

    async fn parity_transaction(&self, chain: Chain, hash: Hash32) -> Result<Option<Vec<LocalizedTrace>>, SourceError> {
        parity(self.chain(chain)?, method::TRACE_TRANSACTION, json!([hash])).await
    }

    async fn parity_block(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<LocalizedTrace>>, SourceError> {
        let followed = self.chain(chain)?;
        // A block the gateway has not indexed is null, as a block after the node's latest is.
        let Some(number) = block_number(followed, block).await? else { return Ok(None) };
        parity(followed, method::TRACE_BLOCK, json!([format!("{number:#x}")])).await
    }

    async fn parity_filter(&self, chain: Chain, filter: TraceFilter) -> Result<Vec<LocalizedTrace>, SourceError> {
        // The gateway has made the filter's blocks numbers of its own view.
        parity(self.chain(chain)?, method::TRACE_FILTER, json!([filter])).await
    }

    async fn parity_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        types: Vec<TraceType>,
    ) -> Result<TraceResults, SourceError> {
        let followed = self.chain(chain)?;
        let before = vec![json!(request), json!(types)];
        at_block(followed, method::TRACE_CALL, before, block, Vec::new()).await.map_err(lacks(method::TRACE_CALL))
    }

    async fn parity_replay(
        &self,
        chain: Chain,
        hash: Hash32,
        types: Vec<TraceType>,
    ) -> Result<TraceResults, SourceError> {
        parity(self.chain(chain)?, method::TRACE_REPLAY_TRANSACTION, json!([hash, types])).await
    }

    async fn call_tree(&self, chain: Chain, hash: Hash32) -> Result<Option<CallFrame>, SourceError> {
        let followed = self.chain(chain)?;
        match call_traces(followed).await? {
            CallTraces::CallTracer => geth_call_tree(self, chain, hash).await.map(Some),
            CallTraces::Parity => {
                let traces: Option<Vec<LocalizedTrace>> =
                    parity(followed, method::TRACE_TRANSACTION, json!([hash])).await?;
                let traces: Vec<_> = traces.unwrap_or_default().into_iter().map(|listed| listed.trace).collect();
                Ok(Some(parity_tree(&traces).ok_or(SourceError::NoTransaction(hash))?))
            }
            CallTraces::Untraced => Ok(None),
        }
    }

    async fn call_trees(&self, chain: Chain, block: Hash32) -> Result<Option<Vec<(Hash32, CallFrame)>>, SourceError> {
        let followed = self.chain(chain)?;
        match call_traces(followed).await? {
            CallTraces::CallTracer => geth_call_trees(self, chain, block).await.map(Some),
            CallTraces::Parity => {
                let number = existing(followed, BlockRef::Hash(block)).await?;
                let traces: Option<Vec<LocalizedTrace>> =
                    parity(followed, method::TRACE_BLOCK, json!([format!("{number:#x}")])).await?;
                Ok(Some(parity_trees(traces.unwrap_or_default())))
            }
            CallTraces::Untraced => Ok(None),
        }
    }
}

/// How the node traces calls, as its probe found.
async fn call_traces(followed: &Followed) -> Result<CallTraces, SourceError> {
    Ok(followed.node.capabilities().await?.call_traces)
}

/// A parity trace method passed to the node.
async fn parity<R: Answer>(followed: &Followed, method: &'static str, params: Value) -> Result<R, SourceError> {
    request(followed, method, params).await.map_err(lacks(method))
}

/// A node that does not know `method` (it has no trace_ namespace, as
/// Hardhat and Ganache have none) is said to lack it, not to have failed.
fn lacks(method: &'static str) -> impl Fn(SourceError) -> SourceError {
    move |error| match error {
        // -32601 is JSON-RPC's "method not found"; -32004 is EIP-1474's "method not supported".
        SourceError::NodeRefused { code: -32601 | -32004, .. } => SourceError::NodeLacks(method),
        // Ganache says so with the code of a parse error.
        SourceError::NodeRefused { code: -32700, message, .. } if message.contains("does not exist") => {
            SourceError::NodeLacks(method)
        }
        other => other,
    }
}

/// One transaction's trace in a node's block trace, its trace kept as the
/// node wrote it.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeBlockTrace {
    tx_hash: Hash32,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<String>,
}

impl NodeBlockTrace {
    fn into_result(self) -> BlockTraceResult {
        BlockTraceResult { tx_hash: self.tx_hash, result: self.result.map(GethTrace::Node), error: self.error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(code: i64, message: &str) -> SourceError {
        SourceError::NodeRefused { code, message: message.into(), data: None }
    }

    #[test]
    fn a_node_without_the_method_lacks_it_however_it_says_so() {
        let lacking = |error| matches!(lacks("eth_simulateV1")(error), SourceError::NodeLacks("eth_simulateV1"));
        assert!(lacking(refused(-32601, "the method eth_simulateV1 does not exist/is not available")));
        assert!(lacking(refused(-32004, "Method not supported")));
        // Ganache's words, with a parse error's code.
        assert!(lacking(refused(-32700, "The method eth_simulateV1 does not exist/is not available")));
        // A parse error of the node's own, or any other refusal, is passed on as it is.
        assert!(!lacking(refused(-32700, "Parse error")));
        assert!(!lacking(refused(-32000, "header not found")));
    }
}
