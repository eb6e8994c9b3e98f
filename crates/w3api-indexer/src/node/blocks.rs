//! Blocks with their logs, read for the index in as few requests as the
//! node allows: headers, then the logs by `eth_getBlockReceipts` per block
//! or by one `eth_getLogs` over the range, each log checked to belong to
//! the header read with it; then, where the node traces calls, the value
//! moved inside their transactions (see `inner`).
//!
//! Only what the index reads is decoded (a header's links, its
//! transactions' hashes, parties and values, a log's address, topics, data
//! and place): the rest of a block or receipt is skipped by serde.

use std::ops::RangeInclusive;

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{LogsMethod, Node, NodeError, quantity};
use crate::block::{IndexedBlock, IndexedLog, IndexedTransaction, LogPosition};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderWire {
    number: U64,
    hash: B256,
    parent_hash: B256,
    timestamp: U64,
    transactions: Vec<TransactionWire>,
}

#[derive(Debug, Deserialize)]
struct TransactionWire {
    hash: B256,
    from: Address,
    #[serde(default)]
    to: Option<Address>,
    value: U256,
}

impl From<TransactionWire> for IndexedTransaction {
    fn from(tx: TransactionWire) -> Self {
        IndexedTransaction { hash: tx.hash, from: tx.from, to: tx.to, value: tx.value }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LogWire {
    address: Address,
    topics: Vec<B256>,
    data: Bytes,
    #[serde(default)]
    block_hash: Option<B256>,
    #[serde(default)]
    block_number: Option<U64>,
    #[serde(default)]
    log_index: Option<U64>,
    #[serde(default)]
    transaction_index: Option<U64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReceiptWire {
    #[serde(default)]
    block_hash: Option<B256>,
    logs: Vec<LogWire>,
}

impl LogWire {
    /// The log, with its place in the block; `None` when the node leaves
    /// that out (as for a pending log, which a mined block never has).
    fn indexed(self) -> Option<IndexedLog> {
        let place = |n: Option<U64>| n.and_then(|n| u32::try_from(n).ok());
        let position =
            LogPosition { transaction_index: place(self.transaction_index)?, log_index: place(self.log_index)? };
        Some(IndexedLog { address: self.address, topics: self.topics, data: self.data, position })
    }
}

const HEADER: &str = "eth_getBlockByNumber";
const RECEIPTS: &str = "eth_getBlockReceipts";
const LOGS: &str = "eth_getLogs";

impl Node {
    /// Blocks `range` with their logs, in order.
    pub async fn blocks(&self, range: RangeInclusive<u64>) -> Result<Vec<IndexedBlock>, NodeError> {
        let capabilities = self.capabilities().await?;
        let method = capabilities.logs_method();
        let mut calls: Vec<(&'static str, Value)> = Vec::new();
        for number in range.clone() {
            calls.push((HEADER, json!([quantity(number), true])));
            if method == LogsMethod::BlockReceipts {
                calls.push((RECEIPTS, json!([quantity(number)])));
            }
        }
        if method == LogsMethod::Logs {
            let filter = json!({ "fromBlock": quantity(*range.start()), "toBlock": quantity(*range.end()) });
            calls.push((LOGS, json!([filter])));
        }
        let answers = self.calls(&calls).await.inspect_err(|error| self.reprobe_after(error))?;
        let mut answers = answers.into_iter();
        let mut next = |method| answers.next().ok_or_else(|| self.failed(method, "an answer is missing"));

        let mut blocks = Vec::with_capacity(calls.len());
        for number in range {
            let header: Option<HeaderWire> = self.decode(HEADER, &next(HEADER)?)?;
            let header = header.ok_or_else(|| NodeError::MissingBlock { node: self.name.clone(), number })?;
            let mut block = IndexedBlock {
                number: header.number.to(),
                hash: header.hash,
                parent_hash: header.parent_hash,
                timestamp: header.timestamp.to(),
                transactions: header.transactions.into_iter().map(IndexedTransaction::from).collect(),
                logs: Vec::new(),
                inner: Vec::new(),
            };
            if method == LogsMethod::BlockReceipts {
                let receipts: Option<Vec<ReceiptWire>> = self.decode(RECEIPTS, &next(RECEIPTS)?)?;
                let receipts = receipts.ok_or_else(|| self.moved(number))?;
                if receipts.iter().any(|r| r.block_hash.is_some_and(|hash| hash != block.hash)) {
                    return Err(self.moved(number));
                }
                let logs = receipts.into_iter().flat_map(|r| r.logs);
                block.logs = logs.map(|log| self.placed(RECEIPTS, log)).collect::<Result<_, _>>()?;
            }
            blocks.push(block);
        }
        if method == LogsMethod::Logs {
            let logs: Vec<LogWire> = self.decode(LOGS, &next(LOGS)?)?;
            self.place_logs(&mut blocks, logs)?;
        }
        self.place_inner_transfers(&mut blocks, capabilities.call_traces).await?;
        Ok(blocks)
    }

    pub(super) fn decode<T: DeserializeOwned>(&self, method: &'static str, answer: &RawValue) -> Result<T, NodeError> {
        serde_json::from_str(answer.get())
            .map_err(|e| self.failed(method, format!("an answer that does not decode: {e}")))
    }

    /// Hands the logs of a range to their blocks, in log order; a log of
    /// another block hash means the node reorganised between the calls.
    pub(super) fn place_logs(&self, blocks: &mut [IndexedBlock], mut logs: Vec<LogWire>) -> Result<(), NodeError> {
        let first = blocks.first().map_or(0, |b| b.number);
        logs.sort_by_key(|log| (log.block_number, log.log_index));
        for log in logs {
            let number = log
                .block_number
                .map(|n| n.to::<u64>())
                .ok_or_else(|| self.failed(LOGS, "a log without its blockNumber"))?;
            let block = usize::try_from(number.wrapping_sub(first))
                .ok()
                .and_then(|offset| blocks.get_mut(offset))
                .ok_or_else(|| self.failed(LOGS, format!("a log of block {number}, outside the range asked")))?;
            if log.block_hash != Some(block.hash) {
                return Err(self.moved(number));
            }
            block.logs.push(self.placed(LOGS, log)?);
        }
        Ok(())
    }

    fn placed(&self, method: &'static str, log: LogWire) -> Result<IndexedLog, NodeError> {
        log.indexed().ok_or_else(|| self.failed(method, "a log without its transactionIndex or logIndex"))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn block(number: u64, hash: u8) -> IndexedBlock {
        let hash = B256::repeat_byte(hash);
        IndexedBlock {
            number,
            hash,
            parent_hash: B256::ZERO,
            timestamp: 0,
            transactions: Vec::new(),
            logs: Vec::new(),
            inner: Vec::new(),
        }
    }

    fn log(number: u64, index: u64, hash: u8, address: u8) -> LogWire {
        LogWire {
            address: Address::repeat_byte(address),
            topics: Vec::new(),
            data: Bytes::new(),
            block_hash: Some(B256::repeat_byte(hash)),
            block_number: Some(U64::from(number)),
            log_index: Some(U64::from(index)),
            transaction_index: Some(U64::ZERO),
        }
    }

    fn node() -> Node {
        Node::connect("http://127.0.0.1:1/secret-key", Duration::from_secs(1)).unwrap()
    }

    #[test]
    fn a_range_of_logs_goes_to_its_blocks_in_log_order() {
        let mut blocks = vec![block(5, 5), block(6, 6)];
        node().place_logs(&mut blocks, vec![log(6, 1, 6, 3), log(5, 0, 5, 1), log(6, 0, 6, 2)]).unwrap();
        let addresses = |b: &IndexedBlock| b.logs.iter().map(|l| l.address[0]).collect::<Vec<_>>();
        assert_eq!((addresses(&blocks[0]), addresses(&blocks[1])), (vec![1], vec![2, 3]));
    }

    #[test]
    fn a_log_of_another_branch_or_outside_the_range_is_refused() {
        let mut blocks = vec![block(5, 5)];
        let moved = node().place_logs(&mut blocks, vec![log(5, 0, 9, 1)]).unwrap_err();
        assert!(matches!(moved, NodeError::Moved { number: 5, .. }), "{moved}");
        let outside = node().place_logs(&mut blocks, vec![log(7, 0, 5, 1)]).unwrap_err();
        assert!(outside.to_string().contains("outside the range"), "{outside}");
    }

    #[test]
    fn a_log_without_its_place_in_the_block_is_refused() {
        let mut blocks = vec![block(5, 5)];
        let unplaced = LogWire { transaction_index: None, ..log(5, 0, 5, 1) };
        let refused = node().place_logs(&mut blocks, vec![unplaced]).unwrap_err();
        assert!(refused.to_string().contains("transactionIndex"), "{refused}");
        node().place_logs(&mut blocks, vec![log(5, 4, 5, 1)]).unwrap();
        assert_eq!(blocks[0].logs[0].position, LogPosition { transaction_index: 0, log_index: 4 });
    }
}
