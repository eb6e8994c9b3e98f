//! The standard JSON-RPC methods, answered by the node.
//!
//! The gateway's view of a chain ends at the indexed head: `latest` and
//! `pending` name it, and a block number past it does not exist yet, so
//! that a client reading the gateway and the wallet answers sees one chain.
//! Block hashes are the node's to resolve.

use alloy_primitives::{B256, Bytes, U64, U256};
use futures::future::try_join_all;
use serde::Deserialize;
use serde_json::{Value, json};
use w3api_source::{BlockRef, FINALIZED_DEPTH, FeeSuggestion, LogQuery, Raw, SAFE_DEPTH, SourceError};
use w3api_types::Address;
use w3api_types::rpc::{Block, BlockNumberOrTag, BlockTransactions, FeeHistory, Log, LogFilter, Receipt, Transaction};

use super::indexed_head;
use crate::follow::Followed;
use crate::node::{Answer, LogsMethod, NodeError};

/// A block named by number or hash, as the node is asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Number(u64),
    Hash(B256),
}

impl Named {
    /// The parameter naming the block: a quantity or a hash.
    fn param(self) -> Value {
        match self {
            Named::Number(number) => json!(format!("{number:#x}")),
            Named::Hash(hash) => json!(hash),
        }
    }

    /// The method for this kind of name: `by_number` or `by_hash`.
    fn method(self, by_number: &'static str, by_hash: &'static str) -> &'static str {
        match self {
            Named::Number(_) => by_number,
            Named::Hash(_) => by_hash,
        }
    }
}

#[derive(Debug, Deserialize)]
struct NumberOnly {
    number: U64,
}

pub(super) async fn request<R: Answer>(
    followed: &Followed,
    method: &'static str,
    params: Value,
) -> Result<R, SourceError> {
    followed.node.request(method, params).await.map_err(passed_on)
}

/// A node's failure of a call passed on to it: a refusal goes to the
/// caller as the node gave it, anything else is the source failing.
pub(super) fn passed_on(error: NodeError) -> SourceError {
    match error {
        NodeError::Refused { code, message, data, .. } => SourceError::NodeRefused { code, message, data },
        other => other.into(),
    }
}

/// The number of the block a reference names, in the gateway's view.
pub(super) async fn block_number(followed: &Followed, block: BlockRef) -> Result<Option<u64>, SourceError> {
    let head = indexed_head(followed).await?;
    // A node without the tags has them counted down from the head, as the devnet does.
    let tagged = |tag: &'static str, depth: u64| async move {
        if !followed.node.capabilities().await?.safety_tags {
            return Ok(Some(head.saturating_sub(depth)));
        }
        let header: Option<NumberOnly> = request(followed, "eth_getBlockByNumber", json!([tag, false])).await?;
        Ok::<_, SourceError>(Some(header.map_or(head, |h| h.number.to::<u64>().min(head))))
    };
    match block {
        BlockRef::Number(number) => Ok((number <= head).then_some(number)),
        BlockRef::Latest | BlockRef::Pending => Ok(Some(head)),
        BlockRef::Earliest => Ok(Some(0)),
        BlockRef::Safe => tagged("safe", SAFE_DEPTH).await,
        BlockRef::Finalized => tagged("finalized", FINALIZED_DEPTH).await,
        BlockRef::Hash(hash) => {
            let header: Option<NumberOnly> = request(followed, "eth_getBlockByHash", json!([hash, false])).await?;
            Ok(header.map(|h| h.number.to()))
        }
    }
}

/// The block a reference names, by hash as given or by number otherwise.
async fn named(followed: &Followed, block: BlockRef) -> Result<Option<Named>, SourceError> {
    Ok(match block {
        BlockRef::Hash(hash) => Some(Named::Hash(hash)),
        other => block_number(followed, other).await?.map(Named::Number),
    })
}

/// The number of the block a reference names, which must exist.
pub(super) async fn existing(followed: &Followed, block: BlockRef) -> Result<u64, SourceError> {
    if let Some(number) = block_number(followed, block).await? {
        return Ok(number);
    }
    let latest = indexed_head(followed).await?;
    Err(match block {
        BlockRef::Hash(hash) => SourceError::UnknownBlockHash(hash),
        BlockRef::Number(requested) => SourceError::BlockOutOfRange { requested, latest },
        _ => SourceError::BlockOutOfRange { requested: latest, latest },
    })
}

pub(super) async fn block(followed: &Followed, block: BlockRef, full: bool) -> Result<Option<Block>, SourceError> {
    let Some(named) = named(followed, block).await? else { return Ok(None) };
    let method = named.method("eth_getBlockByNumber", "eth_getBlockByHash");
    request(followed, method, json!([named.param(), full])).await
}

pub(super) async fn transaction(
    followed: &Followed,
    block: BlockRef,
    index: u64,
) -> Result<Option<Transaction>, SourceError> {
    let Some(named) = named(followed, block).await? else { return Ok(None) };
    let method = named.method("eth_getTransactionByBlockNumberAndIndex", "eth_getTransactionByBlockHashAndIndex");
    request(followed, method, json!([named.param(), format!("{index:#x}")])).await
}

pub(super) async fn block_transaction_count(followed: &Followed, block: BlockRef) -> Result<Option<u64>, SourceError> {
    let Some(named) = named(followed, block).await? else { return Ok(None) };
    let method = named.method("eth_getBlockTransactionCountByNumber", "eth_getBlockTransactionCountByHash");
    let count: Option<U64> = request(followed, method, json!([named.param()])).await?;
    Ok(count.map(|c| c.to()))
}

/// A transaction or a receipt by its hash.
pub(super) async fn by_hash<R: Answer>(
    followed: &Followed,
    method: &'static str,
    hash: B256,
) -> Result<Option<R>, SourceError> {
    request(followed, method, json!([hash])).await
}

/// How long a reader waits for the index to reach a block the node has
/// already mined; the node is polled at once, so this is seldom reached.
pub(super) const CATCH_UP: std::time::Duration = std::time::Duration::from_secs(5);

/// What the node says of a mined transaction, shown only once the index
/// holds its block: a client that has seen a receipt through the gateway
/// finds its effects in the next wallet answer. The index is asked to catch
/// up first; a block it does not reach in time (or that left the chain) is
/// past the gateway's view, and the transaction is answered as unknown
/// there, as a node that has not seen the block yet would answer it.
pub(super) async fn in_view<T>(
    followed: &Followed,
    found: Option<T>,
    block: impl Fn(&T) -> Option<(u64, B256)>,
) -> Option<T> {
    let found = found?;
    let Some((number, hash)) = block(&found) else { return Some(found) };
    followed.reach(number, hash, CATCH_UP).await.then_some(found)
}

/// Every receipt of a block: `eth_getBlockReceipts` where the node has it,
/// else one `eth_getTransactionReceipt` per transaction.
pub(super) async fn block_receipts(followed: &Followed, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
    let Some(named) = named(followed, block).await? else { return Ok(None) };
    if followed.node.logs_method().await? == LogsMethod::BlockReceipts {
        return request(followed, "eth_getBlockReceipts", json!([named.param()])).await;
    }
    let method = named.method("eth_getBlockByNumber", "eth_getBlockByHash");
    let Some(block): Option<Block> = request(followed, method, json!([named.param(), false])).await? else {
        return Ok(None);
    };
    let hashes = match block.transactions {
        BlockTransactions::Hashes(hashes) => hashes,
        BlockTransactions::Full(transactions) => transactions.into_iter().map(|t| t.hash).collect(),
    };
    let receipts = try_join_all(hashes.into_iter().map(|hash| async move {
        let receipt: Option<Receipt> = by_hash(followed, "eth_getTransactionReceipt", hash).await?;
        receipt.ok_or_else(|| SourceError::Unavailable(format!("the node has no receipt of {hash:#x}")))
    }))
    .await?;
    Ok(Some(receipts))
}

pub(super) async fn logs(followed: &Followed, query: &LogQuery) -> Result<Vec<Log>, SourceError> {
    let filter = LogFilter {
        from_block: Some(BlockNumberOrTag::Number(query.from_block)),
        to_block: Some(BlockNumberOrTag::Number(query.to_block)),
        block_hash: None,
        ..query.filter.clone()
    };
    let logs: Vec<Log> = request(followed, "eth_getLogs", json!([filter])).await?;
    if logs.len() > query.max_logs {
        return Err(SourceError::TooManyLogs { limit: query.max_logs });
    }
    Ok(logs)
}

/// A balance or a transaction count of an account after a block.
pub(super) async fn account_state(
    followed: &Followed,
    method: &'static str,
    address: Address,
    block: BlockRef,
) -> Result<U256, SourceError> {
    at_block(followed, method, vec![json!(address)], block, Vec::new()).await
}

/// A state read passed to the node at a block of the gateway's view: the
/// block goes between the method's own parameters `before` and `after`. It
/// is read by hash where the index knows the block's hash (or the caller
/// named it so), so that the answer comes from the branch the gateway shows.
pub(super) async fn at_block<R: Answer>(
    followed: &Followed,
    method: &'static str,
    before: Vec<Value>,
    block: BlockRef,
    after: Vec<Value>,
) -> Result<R, SourceError> {
    let number = existing(followed, block).await?;
    let hash = match block {
        BlockRef::Hash(hash) => Some(hash),
        _ => followed.indexed_header(number).await?.map(|(hash, _)| hash),
    };
    followed.node.state_at(method, before, (number, hash), after).await.map_err(passed_on)
}

pub(super) async fn fee_history(
    followed: &Followed,
    count: u64,
    newest: BlockRef,
    percentiles: &[f64],
) -> Result<FeeHistory, SourceError> {
    let newest = existing(followed, newest).await?;
    request(followed, "eth_feeHistory", json!([format!("{count:#x}"), format!("{newest:#x}"), percentiles])).await
}

/// The next block's base fee (the last of a one-block fee history) and the
/// node's suggested tip.
pub(super) async fn fee_suggestion(followed: &Followed) -> Result<FeeSuggestion, SourceError> {
    let head = indexed_head(followed).await?;
    let history: FeeHistory = request(followed, "eth_feeHistory", json!(["0x1", format!("{head:#x}"), []])).await?;
    let tip: U256 = request(followed, "eth_maxPriorityFeePerGas", json!([])).await?;
    Ok(FeeSuggestion {
        next_base_fee: history.base_fee_per_gas.last().copied().unwrap_or(0),
        tip: u128::try_from(tip).unwrap_or(u128::MAX),
    })
}

/// `debug_getRawHeader`, `debug_getRawBlock` and `debug_getRawTransaction`
/// passed to the node, with a block resolved in the gateway's view; a block
/// the view does not hold is none.
pub(super) async fn raw(followed: &Followed, raw: Raw) -> Result<Option<Bytes>, SourceError> {
    let (method, block) = match raw {
        Raw::Header(block) => ("debug_getRawHeader", block),
        Raw::Block(block) => ("debug_getRawBlock", block),
        Raw::Transaction(hash) => return request(followed, "debug_getRawTransaction", json!([hash])).await,
    };
    match block_number(followed, block).await? {
        Some(number) => request(followed, method, json!([format!("{number:#x}")])).await,
        None => Ok(None),
    }
}

/// `debug_getRawReceipts` passed to the node, as [`raw`] passes a block's.
pub(super) async fn raw_receipts(followed: &Followed, block: BlockRef) -> Result<Option<Vec<Bytes>>, SourceError> {
    match block_number(followed, block).await? {
        Some(number) => request(followed, "debug_getRawReceipts", json!([format!("{number:#x}")])).await,
        None => Ok(None),
    }
}
