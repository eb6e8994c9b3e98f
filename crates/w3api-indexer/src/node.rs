//! The upstream node over JSON-RPC, through alloy's RPC client: block
//! headers with their logs for the index, contract metadata by `eth_call`
//! at a block, and any call the gateway forwards.
//!
//! Only what the index reads is decoded (a header's links, a log's address,
//! topics and data): the rest of a block or receipt is skipped by serde.

use std::ops::RangeInclusive;
use std::time::Duration;

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use alloy_rpc_client::RpcClient;
use alloy_sol_types::{SolCall, sol};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::sync::OnceCell;

use crate::block::{IndexedBlock, IndexedLog};
use crate::index::{CollectionMeta, TokenMeta};

sol! {
    function name() returns (string);
    function symbol() returns (string);
    function decimals() returns (uint8);
    function tokenURI(uint256 id) returns (string);
    function uri(uint256 id) returns (string);
}

/// Why the node did not answer as the index needs.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The call failed: transport, HTTP status, or a JSON-RPC error.
    #[error("node {node}: {method} failed: {message}")]
    Failed {
        /// The node, without its path (which may hold a key).
        node: String,
        /// The method called.
        method: &'static str,
        /// What went wrong.
        message: String,
    },
    /// A block the node said it has, missing when read.
    #[error("node {node} has no block {number}")]
    MissingBlock {
        /// The node.
        node: String,
        /// The block.
        number: u64,
    },
    /// A block that changed between reading its header and its logs.
    #[error("node {node} replaced block {number} while it was read")]
    Moved {
        /// The node.
        node: String,
        /// The block.
        number: u64,
    },
}

/// What a node's answer can be read as (what alloy's client asks of one).
pub trait Answer: DeserializeOwned + std::fmt::Debug + Send + Sync + Unpin + 'static {}

impl<T: DeserializeOwned + std::fmt::Debug + Send + Sync + Unpin + 'static> Answer for T {}

/// How the node is read: blocks per request batch, and batches in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchLimits {
    /// Blocks per JSON-RPC batch.
    pub batch: usize,
    /// Batches in flight at once.
    pub concurrency: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits { batch: 50, concurrency: 4 }
    }
}

/// How a node gives the logs of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogsMethod {
    /// `eth_getBlockReceipts`, one call per block.
    BlockReceipts,
    /// `eth_getLogs` over a batch's range, one call per batch.
    Logs,
}

/// An upstream node.
#[derive(Debug)]
pub struct Node {
    client: RpcClient,
    /// Scheme, host and port, for messages.
    name: String,
    logs_method: OnceCell<LogsMethod>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderWire {
    number: U64,
    hash: B256,
    parent_hash: B256,
    timestamp: U64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogWire {
    address: Address,
    topics: Vec<B256>,
    data: Bytes,
    #[serde(default)]
    block_hash: Option<B256>,
    #[serde(default)]
    block_number: Option<U64>,
    #[serde(default)]
    log_index: Option<U64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReceiptWire {
    #[serde(default)]
    block_hash: Option<B256>,
    logs: Vec<LogWire>,
}

impl From<LogWire> for IndexedLog {
    fn from(log: LogWire) -> Self {
        IndexedLog { address: log.address, topics: log.topics, data: log.data }
    }
}

/// A block number as a JSON-RPC quantity.
fn quantity(number: u64) -> String {
    format!("{number:#x}")
}

impl Node {
    /// A node at `url` (http or https); requests time out after `timeout`.
    pub fn connect(url: &str, timeout: Duration) -> Result<Node, NodeError> {
        let failed = |message: String| NodeError::Failed { node: url.to_string(), method: "connect", message };
        let parsed: url::Url = url.parse().map_err(|e| failed(format!("{url:?} is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(failed(format!("{url:?} is not an http(s) URL")));
        }
        let name = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or_default())
            + &parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| failed(format!("cannot build an HTTP client: {e}")))?;
        Ok(Node { client: RpcClient::new_http_with_client(http, parsed), name, logs_method: OnceCell::new() })
    }

    /// The node's scheme, host and port.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn failed(&self, method: &'static str, error: impl std::fmt::Display) -> NodeError {
        NodeError::Failed { node: self.name.clone(), method, message: error.to_string() }
    }

    /// One call, its result read as `R`.
    pub async fn request<R: Answer>(&self, method: &'static str, params: serde_json::Value) -> Result<R, NodeError> {
        self.client.request(method, params).await.map_err(|e| self.failed(method, e))
    }

    /// The newest block's number.
    pub async fn head(&self) -> Result<u64, NodeError> {
        let head: U64 = self.request("eth_blockNumber", json!([])).await?;
        Ok(head.to())
    }

    /// The hash of block `number`; `None` past the head.
    pub async fn hash_at(&self, number: u64) -> Result<Option<B256>, NodeError> {
        let header: Option<HeaderWire> = self.request("eth_getBlockByNumber", json!([quantity(number), false])).await?;
        Ok(header.map(|h| h.hash))
    }

    /// How this node gives a block's logs: `eth_getBlockReceipts` where it
    /// answers it, else `eth_getLogs`. Asked once.
    pub async fn logs_method(&self) -> LogsMethod {
        *self
            .logs_method
            .get_or_init(|| async {
                let probe: Result<Option<Vec<ReceiptWire>>, _> =
                    self.request("eth_getBlockReceipts", json!(["latest"])).await;
                if probe.is_ok() { LogsMethod::BlockReceipts } else { LogsMethod::Logs }
            })
            .await
    }

    /// Blocks `range` with their logs, in order, read in one batch.
    pub async fn blocks(&self, range: RangeInclusive<u64>) -> Result<Vec<IndexedBlock>, NodeError> {
        let method = self.logs_method().await;
        let mut batch = self.client.new_batch();
        let mut headers = Vec::new();
        let mut receipts = Vec::new();
        for number in range.clone() {
            let header =
                batch.add_call::<_, Option<HeaderWire>>("eth_getBlockByNumber", &json!([quantity(number), false]));
            headers.push(header.map_err(|e| self.failed("eth_getBlockByNumber", e))?);
            if method == LogsMethod::BlockReceipts {
                let call =
                    batch.add_call::<_, Option<Vec<ReceiptWire>>>("eth_getBlockReceipts", &json!([quantity(number)]));
                receipts.push(call.map_err(|e| self.failed("eth_getBlockReceipts", e))?);
            }
        }
        let logs = (method == LogsMethod::Logs).then(|| {
            let filter = json!([{ "fromBlock": quantity(*range.start()), "toBlock": quantity(*range.end()) }]);
            batch.add_call::<_, Vec<LogWire>>("eth_getLogs", &filter)
        });
        let logs = logs.transpose().map_err(|e| self.failed("eth_getLogs", e))?;
        batch.send().await.map_err(|e| self.failed("batch", e))?;

        let mut blocks = Vec::with_capacity(headers.len());
        for (number, header) in range.clone().zip(headers) {
            let header = header.await.map_err(|e| self.failed("eth_getBlockByNumber", e))?;
            let header = header.ok_or_else(|| NodeError::MissingBlock { node: self.name.clone(), number })?;
            blocks.push(IndexedBlock {
                number: header.number.to(),
                hash: header.hash,
                parent_hash: header.parent_hash,
                timestamp: header.timestamp.to(),
                logs: Vec::new(),
            });
        }
        for (block, receipts) in blocks.iter_mut().zip(receipts) {
            let receipts = receipts.await.map_err(|e| self.failed("eth_getBlockReceipts", e))?;
            let receipts = receipts.ok_or_else(|| self.moved(block.number))?;
            if receipts.iter().any(|r| r.block_hash.is_some_and(|hash| hash != block.hash)) {
                return Err(self.moved(block.number));
            }
            block.logs = receipts.into_iter().flat_map(|r| r.logs).map(IndexedLog::from).collect();
        }
        if let Some(logs) = logs {
            let logs = logs.await.map_err(|e| self.failed("eth_getLogs", e))?;
            self.place_logs(&mut blocks, logs)?;
        }
        Ok(blocks)
    }

    fn moved(&self, number: u64) -> NodeError {
        NodeError::Moved { node: self.name.clone(), number }
    }

    /// Hands the logs of a range to their blocks, in log order; a log of
    /// another block hash means the node reorganised between the calls.
    fn place_logs(&self, blocks: &mut [IndexedBlock], mut logs: Vec<LogWire>) -> Result<(), NodeError> {
        let first = blocks.first().map_or(0, |b| b.number);
        logs.sort_by_key(|log| (log.block_number, log.log_index));
        for log in logs {
            let number = log
                .block_number
                .map(|n| n.to::<u64>())
                .ok_or_else(|| self.failed("eth_getLogs", "a log without its blockNumber"))?;
            let block =
                usize::try_from(number.wrapping_sub(first)).ok().and_then(|offset| blocks.get_mut(offset)).ok_or_else(
                    || self.failed("eth_getLogs", format!("a log of block {number}, outside the range asked")),
                )?;
            if log.block_hash != Some(block.hash) {
                return Err(self.moved(number));
            }
            block.logs.push(log.into());
        }
        Ok(())
    }

    async fn call<C: SolCall>(&self, to: Address, call: &C, block: u64) -> Result<Bytes, NodeError> {
        let request = json!([{ "to": to, "data": Bytes::from(call.abi_encode()) }, quantity(block)]);
        self.request("eth_call", request).await
    }

    /// A token's name, symbol and decimals at `block`. A contract that does
    /// not answer one of them (a token older than ERC20's optional fields)
    /// gets an empty name or symbol and 0 decimals; `bytes32` names, as the
    /// earliest tokens return them, are read as text.
    pub async fn token_meta(&self, token: Address, block: u64) -> TokenMeta {
        let (name, symbol, decimals) = tokio::join!(
            self.call(token, &nameCall {}, block),
            self.call(token, &symbolCall {}, block),
            self.call(token, &decimalsCall {}, block),
        );
        TokenMeta {
            name: name.ok().and_then(|b| text(&b)).unwrap_or_default(),
            symbol: symbol.ok().and_then(|b| text(&b)).unwrap_or_default(),
            decimals: decimals.ok().and_then(|b| decimalsCall::abi_decode_returns(&b).ok()).unwrap_or(0),
        }
    }

    /// A collection's name and symbol at `block` (empty where it has none,
    /// as ERC1155 need not).
    pub async fn collection_meta(&self, collection: Address, erc1155: bool, block: u64) -> CollectionMeta {
        let (name, symbol) =
            tokio::join!(self.call(collection, &nameCall {}, block), self.call(collection, &symbolCall {}, block));
        CollectionMeta {
            name: name.ok().and_then(|b| text(&b)).unwrap_or_default(),
            symbol: symbol.ok().and_then(|b| text(&b)).unwrap_or_default(),
            erc1155,
        }
    }

    /// An NFT's URI at `block`: ERC721's `tokenURI`, or ERC1155's `uri`
    /// with `{id}` replaced as the standard says. `None` when the contract
    /// does not answer.
    pub async fn token_uri(&self, collection: Address, id: U256, erc1155: bool, block: u64) -> Option<String> {
        if erc1155 {
            let uri = self.call(collection, &uriCall { id }, block).await.ok()?;
            let uri = uriCall::abi_decode_returns(&uri).ok()?;
            Some(uri.replace("{id}", &format!("{id:064x}")))
        } else {
            let uri = self.call(collection, &tokenURICall { id }, block).await.ok()?;
            tokenURICall::abi_decode_returns(&uri).ok()
        }
    }
}

/// A `string` return, or a `bytes32` one trimmed of its padding.
fn text(returned: &[u8]) -> Option<String> {
    if let Ok(text) = nameCall::abi_decode_returns(returned) {
        return Some(text);
    }
    (returned.len() == 32).then(|| String::from_utf8_lossy(returned).trim_end_matches('\0').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(number: u64, hash: u8) -> IndexedBlock {
        IndexedBlock { number, hash: B256::repeat_byte(hash), parent_hash: B256::ZERO, timestamp: 0, logs: Vec::new() }
    }

    fn log(number: u64, index: u64, hash: u8, address: u8) -> LogWire {
        LogWire {
            address: Address::repeat_byte(address),
            topics: Vec::new(),
            data: Bytes::new(),
            block_hash: Some(B256::repeat_byte(hash)),
            block_number: Some(U64::from(number)),
            log_index: Some(U64::from(index)),
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
    fn a_node_is_named_without_its_path_and_a_bad_url_is_refused() {
        assert_eq!(node().name(), "http://127.0.0.1:1");
        for url in ["127.0.0.1:8545", "ws://127.0.0.1:8545", "not a url"] {
            let error = Node::connect(url, Duration::from_secs(1)).unwrap_err();
            assert!(error.to_string().contains("URL"), "{url}: {error}");
        }
    }

    #[test]
    fn names_read_as_strings_or_as_bytes32() {
        let string = nameCall::abi_encode_returns(&"Wrapped Ether".to_string());
        assert_eq!(text(&string).as_deref(), Some("Wrapped Ether"));
        let mut bytes32 = [0u8; 32];
        bytes32[..5].copy_from_slice(b"Maker");
        assert_eq!(text(&bytes32).as_deref(), Some("Maker"));
        assert_eq!(text(&[1, 2, 3]), None);
    }
}
