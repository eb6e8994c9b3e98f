//! The gateway client: one URL per chain and API key.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use jsonrpsee::core::ClientError;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::http_client::{HttpBackend, HttpClient, HttpClientBuilder, RpcLogger, RpcService};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use w3api_retry::RetryPolicy;
use w3api_types::Chain;

use crate::retry::{RetryLayer, Retrying};
use crate::{Batch, RpcError};

/// jsonrpsee's HTTP client over the retrying transport.
type Transport = HttpClient<RpcLogger<RpcService<Retrying<HttpBackend>>>>;

/// Production base address of the gateway.
pub const PRODUCTION_RPC_URL: &str = "https://site1.moralis-nodes.com";

/// Characters a path segment keeps as they are (RFC 3986 unreserved).
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A client of the JSON-RPC gateway for one chain and API key.
///
/// The typed methods (`get_block_by_number`, ...) are generated from
/// `spec/openrpc.json`; [`RpcClient::batch`] groups calls in one request.
#[derive(Clone)]
pub struct RpcClient {
    transport: Transport,
    /// The endpoint with the key replaced, for messages.
    shown_endpoint: String,
    /// Forms of the key that must never be shown.
    secrets: Vec<String>,
}

impl fmt::Debug for RpcClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RpcClient").field("endpoint", &self.shown_endpoint).finish_non_exhaustive()
    }
}

impl RpcClient {
    /// A client posting to `{rpc_url}/{chain}/{api_key}`, with a 30-second
    /// timeout per attempt and [`RetryPolicy::default`] for reads.
    pub fn new(rpc_url: &str, chain: Chain, api_key: &str) -> Result<RpcClient, RpcError> {
        RpcClient::builder(rpc_url, chain, api_key).build()
    }

    /// A client of the production gateway.
    pub fn production(chain: Chain, api_key: &str) -> Result<RpcClient, RpcError> {
        RpcClient::new(PRODUCTION_RPC_URL, chain, api_key)
    }

    /// A builder, to set the timeout and size limits.
    pub fn builder(rpc_url: &str, chain: Chain, api_key: &str) -> RpcClientBuilder {
        RpcClientBuilder {
            rpc_url: rpc_url.to_string(),
            chain,
            api_key: api_key.to_string(),
            timeout: Duration::from_secs(30),
            max_response_size: 64 * 1024 * 1024,
            retry: RetryPolicy::default(),
        }
    }

    /// The endpoint, with the API key replaced by `<redacted>`.
    pub fn endpoint(&self) -> &str {
        &self.shown_endpoint
    }

    /// A new batch of calls, sent together by [`Batch::send`].
    pub fn batch(&self) -> Batch<'_> {
        Batch::new(self)
    }

    /// The jsonrpsee client, which implements [`crate::EthApiClient`]
    /// (with this client's retries).
    pub fn transport(&self) -> &(impl ClientT + Send + Sync) {
        &self.transport
    }

    /// Converts a jsonrpsee error, removing the key from any text it holds.
    pub(crate) fn error(&self, error: ClientError) -> RpcError {
        RpcError::from_client_error(error, &|text: &str| self.redact(text))
    }

    fn redact(&self, text: &str) -> String {
        self.secrets.iter().fold(text.to_string(), |text, secret| text.replace(secret.as_str(), "<redacted>"))
    }
}

/// Configures an [`RpcClient`].
#[derive(Clone)]
pub struct RpcClientBuilder {
    rpc_url: String,
    chain: Chain,
    api_key: String,
    timeout: Duration,
    max_response_size: u32,
    retry: RetryPolicy,
}

impl fmt::Debug for RpcClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RpcClientBuilder")
            .field("rpc_url", &self.rpc_url)
            .field("chain", &self.chain)
            .field("api_key", &"<redacted>")
            .field("timeout", &self.timeout)
            .field("max_response_size", &self.max_response_size)
            .field("retry", &self.retry)
            .finish()
    }
}

impl RpcClientBuilder {
    /// Time allowed for each attempt at a request, batches included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How requests of reads alone are retried (as the REST client's GETs
    /// are); requests with a send, a filter poll or a cheat method are sent
    /// once whatever the policy. [`RetryPolicy::none`] sends every request once.
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Largest response accepted, in bytes (default 64 MiB: blocks with full
    /// transactions are large).
    pub fn max_response_size(mut self, bytes: u32) -> Self {
        self.max_response_size = bytes;
        self
    }

    /// Builds the client. Fails when the chain has no RPC slug, the key is
    /// empty, or the base address is not an http(s) URL.
    pub fn build(self) -> Result<RpcClient, RpcError> {
        let slug = self
            .chain
            .rpc_slug()
            .ok_or_else(|| RpcError::Config(format!("chain {} is not served by the RPC gateway", self.chain)))?;
        if self.api_key.is_empty() {
            return Err(RpcError::Config("the API key is empty".into()));
        }
        let base = self.rpc_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(RpcError::Config(format!("the RPC base address {base:?} is not an http(s) URL")));
        }
        let encoded_key = utf8_percent_encode(&self.api_key, PATH_SEGMENT).to_string();
        let endpoint = format!("{base}/{slug}/{encoded_key}");
        let shown_endpoint = format!("{base}/{slug}/<redacted>");
        let secrets = vec![encoded_key, self.api_key];
        let retries = RetryLayer { attempt_timeout: self.timeout, policy: Arc::new(self.retry.clone()) };
        let transport = HttpClientBuilder::default()
            .set_http_middleware(tower::ServiceBuilder::new().layer(retries))
            // Each attempt has its own timeout below; this one bounds them all.
            .request_timeout(self.retry.longest_exchange(self.timeout))
            .max_response_size(self.max_response_size)
            .build(&endpoint)
            .map_err(|e| {
                let text = secrets.iter().fold(e.to_string(), |t, s| t.replace(s.as_str(), "<redacted>"));
                RpcError::Config(format!("building the client for {shown_endpoint}: {text}"))
            })?;
        Ok(RpcClient { transport, shown_endpoint, secrets })
    }
}
