//! `include=internal_transactions`: the calls a transaction made inside
//! the EVM, read from the source's `callTracer` trace of it (the devnet
//! runs it again; node mode asks the node) and listed below the
//! transaction's own call in the order they began.

use w3api_source::SourceError;
use w3api_types::rpc::{CallFrame, Receipt};
use w3api_types::{B256, Chain, InternalTransaction, TransactionInclude, U256};

use crate::Backend;

/// Whether a request asked for internal transactions.
pub fn wanted(include: Option<TransactionInclude>) -> bool {
    include == Some(TransactionInclude::InternalTransactions)
}

/// The internal transactions of the mined transaction whose receipt is
/// `receipt`. A source that cannot trace its chain (a node without a call
/// tracer, which its probe logs) has none to list, as production lists none
/// on a chain it does not trace.
pub async fn of_mined<S: Backend>(
    source: &S,
    chain: Chain,
    receipt: &Receipt,
) -> Result<Vec<InternalTransaction>, SourceError> {
    let hash = receipt.transaction_hash;
    let tree = source.call_tree(chain, hash).await?;
    Ok(tree.map(|top| flattened(&top, (hash, (receipt.block_number, receipt.block_hash)))).unwrap_or_default())
}

/// The internal transactions of each of the `count` transactions of block
/// `block`, in order, from one trace of the block.
pub async fn of_block<S: Backend>(
    source: &S,
    chain: Chain,
    (number, hash): (u64, B256),
    count: usize,
) -> Result<Vec<Vec<InternalTransaction>>, SourceError> {
    // A block without transactions has nothing to trace; the genesis cannot be traced at all.
    if count == 0 {
        return Ok(Vec::new());
    }
    let Some(trees) = source.call_trees(chain, hash).await? else { return Ok(vec![Vec::new(); count]) };
    if trees.len() != count {
        let traced = trees.len();
        return Err(SourceError::Unavailable(format!("block {number}: {count} transactions, {traced} traced")));
    }
    Ok(trees.iter().map(|(tx, top)| flattened(top, (*tx, (number, hash)))).collect())
}

/// Every frame below `top`, depth first in the order they began, each
/// placed in its transaction and block.
fn flattened(top: &CallFrame, (hash, (number, block)): (B256, (u64, B256))) -> Vec<InternalTransaction> {
    let listed = |(frame, _): (&CallFrame, u32)| InternalTransaction {
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
    };
    top.frames().skip(1).map(listed).collect()
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
