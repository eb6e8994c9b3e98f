//! The upstream node over JSON-RPC, through alloy's RPC client: block
//! headers with their logs for the index ([`blocks`]), contract metadata by
//! `eth_call` at a block ([`contracts`]), state at an indexed block, and
//! any call the gateway forwards.
//!
//! Nothing is assumed of the node beyond the core methods: what else it
//! accepts is probed at first use and again after an error that suggests
//! it changed ([`capabilities`]), and a node that limits its request rate
//! is slowed down for, never given up on ([`throttle`]).

mod blocks;
mod capabilities;
mod contracts;
mod inner;
mod throttle;
mod transactions;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::{B256, U64};
use alloy_rpc_client::RpcClient;
use alloy_transport::{RpcError, TransportError};
use futures::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

pub use capabilities::{CallTraces, Capabilities, LogsMethod};

/// Why the node did not answer as needed.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The index was asked to be kept in tables, on a store that holds none.
    #[error("--index postgres keeps the index in the PostgreSQL database of --database, and none is given")]
    NoTables,
    /// No answer: transport, HTTP status, or an answer that does not decode.
    #[error("node {node}: {method} failed: {message}")]
    Failed {
        /// The node, without its path (which may hold a key).
        node: String,
        /// The method called.
        method: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The node answered the call with a JSON-RPC error: a revert, a
    /// method it does not have, parameters it does not take.
    #[error("node {node}: {method} refused: error {code}: {message}")]
    Refused {
        /// The node.
        node: String,
        /// The method called.
        method: &'static str,
        /// The node's error code.
        code: i64,
        /// The node's message.
        message: String,
        /// The node's error data, as it sent it (revert data, for one).
        data: Option<Box<RawValue>>,
    },
    /// The node kept refusing the call as too many requests.
    #[error("node {node}: {method} still refused as too many requests after {waited:?}")]
    Throttled {
        /// The node.
        node: String,
        /// The method called.
        method: &'static str,
        /// How long it was tried.
        waited: Duration,
    },
    /// A block the node said it has, missing when read.
    #[error("node {node} has no block {number}")]
    MissingBlock {
        /// The node.
        node: String,
        /// The block.
        number: u64,
    },
    /// A block that changed between two reads of it.
    #[error("node {node} replaced block {number} while it was read")]
    Moved {
        /// The node.
        node: String,
        /// The block.
        number: u64,
    },
}

impl NodeError {
    /// Whether the node refused a call in a way that says it lacks a method
    /// or a form of parameter, as after a node is replaced behind its URL.
    pub fn suggests_missing_capability(&self) -> bool {
        let NodeError::Refused { code, message, .. } = self else { return false };
        // Ganache answers -32700 ("parse error") for any parameter it cannot read.
        matches!(code, -32601 | -32602 | -32700)
            || ["not supported", "not available", "does not exist", "unsupported"]
                .iter()
                .any(|words| message.to_lowercase().contains(words))
    }
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

impl FetchLimits {
    /// Most calls one batch of blocks needs: a header and receipts per
    /// block, or headers and one `eth_getLogs`.
    pub fn calls_per_batch(&self) -> usize {
        self.batch.max(1) * 2
    }
}

/// Requests in flight at once when a batch goes out as several requests.
const PARTS_IN_FLIGHT: usize = 8;

/// How long an idle connection to the node is kept for the next request.
/// Shorter than the 5 s after which Node.js servers (Hardhat, Ganache)
/// close idle keep-alive connections: reusing one just as the server
/// closes it loses the request, which a POST cannot safely send again.
const POOL_IDLE: Duration = Duration::from_secs(4);

/// An upstream node.
#[derive(Debug)]
pub struct Node {
    client: RpcClient,
    /// Scheme, host and port, for messages.
    name: String,
    /// The largest batch the follower would send, which the probe tries.
    wanted_batch: usize,
    capabilities: parking_lot::Mutex<Option<Capabilities>>,
    /// One probe at a time; the others wait for its result.
    probing: tokio::sync::Mutex<()>,
    /// Whether the node was seen limiting its rate (said once in the log).
    throttled: AtomicBool,
}

/// A block's number and hash, all a probe or a hash lookup reads of it.
#[derive(Debug, Deserialize)]
struct HeaderLink {
    number: U64,
    hash: B256,
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
            .pool_idle_timeout(POOL_IDLE)
            .build()
            .map_err(|e| failed(format!("cannot build an HTTP client: {e}")))?;
        Ok(Node {
            client: RpcClient::new_http_with_client(http, parsed),
            name,
            wanted_batch: FetchLimits::default().calls_per_batch(),
            capabilities: parking_lot::Mutex::new(None),
            probing: tokio::sync::Mutex::new(()),
            throttled: AtomicBool::new(false),
        })
    }

    /// The node, probed for batches of up to `calls` calls (the follower's
    /// [`FetchLimits::calls_per_batch`]).
    pub fn wanting_batches_of(mut self, calls: usize) -> Node {
        self.wanted_batch = calls.max(1);
        self
    }

    /// The node's scheme, host and port.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn failed(&self, method: &'static str, error: impl std::fmt::Display) -> NodeError {
        NodeError::Failed { node: self.name.clone(), method, message: error.to_string() }
    }

    fn moved(&self, number: u64) -> NodeError {
        NodeError::Moved { node: self.name.clone(), number }
    }

    /// A transport error as this node's error.
    fn classify(&self, method: &'static str, error: TransportError) -> NodeError {
        match error {
            RpcError::ErrorResp(payload) => NodeError::Refused {
                node: self.name.clone(),
                method,
                code: payload.code,
                message: payload.message.into_owned(),
                data: payload.data,
            },
            other => self.failed(method, other),
        }
    }

    /// Runs `attempt` until the node stops refusing it as too many
    /// requests, pausing longer each time, for at most [`throttle::PATIENCE`].
    async fn with_patience<T, F, Fut>(&self, method: &'static str, mut attempt: F) -> Result<T, NodeError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, TransportError>>,
    {
        let started = Instant::now();
        let mut pause = throttle::FIRST_PAUSE;
        loop {
            match attempt().await {
                Ok(answer) => return Ok(answer),
                Err(error) if throttle::rate_limited(&error) => {
                    let waited = started.elapsed();
                    if waited >= throttle::PATIENCE {
                        return Err(NodeError::Throttled { node: self.name.clone(), method, waited });
                    }
                    if !self.throttled.swap(true, Ordering::Relaxed) {
                        tracing::warn!(node = self.name, method, %error,
                            "the node limits its request rate: what it refuses is asked again, slower");
                    }
                    tokio::time::sleep(throttle::jittered(pause)).await;
                    pause = throttle::next_pause(pause);
                }
                Err(error) => return Err(self.classify(method, error)),
            }
        }
    }

    /// One call, its result read as `R`.
    pub async fn request<R: Answer>(&self, method: &'static str, params: Value) -> Result<R, NodeError> {
        self.with_patience(method, || {
            let params = params.clone();
            async move { self.client.request(method, params).await }
        })
        .await
    }

    /// The answers to `calls`, in order: in batches as large as the node
    /// takes, or one by one when it takes none.
    async fn calls(&self, calls: &[(&'static str, Value)]) -> Result<Vec<Box<RawValue>>, NodeError> {
        let size = self.capabilities().await?.batch_calls.max(1);
        // The requests are made before the stream: a closure over borrowed
        // parts inside it would make the future too general to be Send.
        let requests: Vec<_> = calls.chunks(size).map(|part| self.batch(part)).collect();
        let parts: Vec<Vec<Box<RawValue>>> =
            futures::stream::iter(requests).buffered(PARTS_IN_FLIGHT).try_collect().await?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// One request of one call or a batch of several; a rate limit on
    /// any call sends the whole batch again.
    async fn batch(&self, calls: &[(&'static str, Value)]) -> Result<Vec<Box<RawValue>>, NodeError> {
        if let [(method, params)] = calls {
            return Ok(vec![self.request(method, params.clone()).await?]);
        }
        let methods = calls.iter().map(|(method, _)| *method).collect::<Vec<_>>();
        let answers = self
            .with_patience("batch", || async {
                let mut batch = self.client.new_batch();
                let waiters = calls
                    .iter()
                    .map(|(method, params)| batch.add_call::<_, Box<RawValue>>(*method, params))
                    .collect::<Result<Vec<_>, _>>()?;
                batch.send().await?;
                let mut answers = Vec::with_capacity(waiters.len());
                for waiter in waiters {
                    match waiter.await {
                        Err(error) if throttle::rate_limited(&error) => return Err(error),
                        answer => answers.push(answer),
                    }
                }
                Ok(answers)
            })
            .await?;
        answers.into_iter().zip(methods).map(|(answer, method)| answer.map_err(|e| self.classify(method, e))).collect()
    }

    /// What the node accepts, probed at first use.
    pub async fn capabilities(&self) -> Result<Capabilities, NodeError> {
        if let Some(known) = *self.capabilities.lock() {
            return Ok(known);
        }
        let _probing = self.probing.lock().await;
        if let Some(known) = *self.capabilities.lock() {
            return Ok(known);
        }
        let probed = self.probe().await?;
        *self.capabilities.lock() = Some(probed);
        Ok(probed)
    }

    /// Forgets what the node accepts after an error suggesting it changed,
    /// so that the next call probes it again.
    pub fn reprobe_after(&self, error: &NodeError) {
        if error.suggests_missing_capability() && self.capabilities.lock().take().is_some() {
            tracing::info!(node = self.name, %error, "the node refused a call it took before: probing it again");
        }
    }

    /// How this node gives a block's logs.
    pub async fn logs_method(&self) -> Result<LogsMethod, NodeError> {
        Ok(self.capabilities().await?.logs_method())
    }

    /// The newest block's number.
    pub async fn head(&self) -> Result<u64, NodeError> {
        let head: U64 = self.request("eth_blockNumber", json!([])).await?;
        Ok(head.to())
    }

    /// The hash of block `number`; `None` past the head.
    pub async fn hash_at(&self, number: u64) -> Result<Option<B256>, NodeError> {
        let header: Option<HeaderLink> = self.request("eth_getBlockByNumber", json!([quantity(number), false])).await?;
        Ok(header.map(|h| h.hash))
    }

    /// A state read (`eth_getBalance`, `eth_call`…) at block `number`:
    /// the block goes between the method's own parameters `before` and
    /// `after`. With its `hash` known, an answer from another branch is
    /// refused: where the node takes EIP-1898 objects, the block is named
    /// by hash and must be canonical; elsewhere it is named by number and
    /// its hash checked after. Without, it is named by number alone.
    pub async fn state_at<R: Answer>(
        &self,
        method: &'static str,
        before: Vec<Value>,
        (number, hash): (u64, Option<B256>),
        after: Vec<Value>,
    ) -> Result<R, NodeError> {
        let by_object = match hash {
            Some(hash) if self.capabilities().await?.block_objects => Some(hash),
            _ => None,
        };
        let block = match by_object {
            Some(hash) => json!({ "blockHash": hash, "requireCanonical": true }),
            None => json!(quantity(number)),
        };
        let params = before.into_iter().chain([block]).chain(after).collect();
        let answer = self.request(method, Value::Array(params)).await.inspect_err(|error| self.reprobe_after(error))?;
        if let (Some(hash), None) = (hash, by_object)
            && self.hash_at(number).await? != Some(hash)
        {
            return Err(self.moved(number));
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> Node {
        Node::connect("http://127.0.0.1:1/secret-key", Duration::from_secs(1)).unwrap()
    }

    fn refused(code: i64, message: &str) -> NodeError {
        NodeError::Refused { node: String::new(), method: "m", code, message: message.into(), data: None }
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
    fn refusals_of_a_method_or_a_parameter_form_suggest_probing_again() {
        let ganache = "The method eth_getBlockReceipts does not exist/is not available";
        assert!(refused(-32700, ganache).suggests_missing_capability());
        assert!(refused(-32601, "Method not found").suggests_missing_capability());
        assert!(refused(-32000, "eth_getBlockReceipts is not supported").suggests_missing_capability());
        assert!(!refused(3, "execution reverted").suggests_missing_capability());
        assert!(!refused(-32000, "header not found").suggests_missing_capability());
        assert!(!node().failed("m", "connection refused").suggests_missing_capability());
    }
}
