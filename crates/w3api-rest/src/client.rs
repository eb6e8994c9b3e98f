//! Building a client: API key, base addresses, timeouts, retries.

use std::fmt;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};

use crate::generated::{auth, data, streams};
use w3api_retry::RetryPolicy;

/// Production base address of the sign-in group.
pub const PRODUCTION_AUTH_URL: &str = "https://authapi.moralis.io";
/// Production base address of the wallet-data group.
pub const PRODUCTION_DATA_URL: &str = "https://deep-index.moralis.io";
/// Production base address of the streams group.
pub const PRODUCTION_STREAMS_URL: &str = "https://api.moralis-streams.com";

const API_KEY_HEADER: &str = "x-api-key";

/// A client for the three groups of the REST interface.
///
/// Each group is a progenitor client; call its operations through
/// [`Client::auth`], [`Client::data`] and [`Client::streams`]. Cloning is
/// cheap (the connection pool is shared).
#[derive(Clone, Debug)]
pub struct Client {
    auth: auth::Client,
    data: data::Client,
    streams: streams::Client,
}

impl Client {
    /// A builder starting from the production base addresses.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client for the production service with this API key.
    pub fn production(api_key: impl Into<String>) -> Result<Client, BuildError> {
        Client::builder().api_key(api_key).build()
    }

    /// A client for a server answering every group on one address, such as
    /// `w3api serve` (`http://127.0.0.1:8080`).
    pub fn local(base_url: impl Into<String>, api_key: impl Into<String>) -> Result<Client, BuildError> {
        Client::builder().base_url(base_url).api_key(api_key).build()
    }

    /// Sign-in with a Solana account.
    pub fn auth(&self) -> &auth::Client {
        &self.auth
    }

    /// Wallet token balances, NFTs and NFT collections.
    pub fn data(&self) -> &data::Client {
        &self.data
    }

    /// EVM stream configuration.
    pub fn streams(&self) -> &streams::Client {
        &self.streams
    }
}

/// What the generated clients carry besides their base address.
#[derive(Clone, Debug)]
pub struct ClientState {
    pub(crate) retry: RetryPolicy,
}

/// Configures a [`Client`]. Starts from the production base addresses, a
/// 30-second timeout, and [`RetryPolicy::default`].
#[derive(Clone)]
pub struct ClientBuilder {
    api_key: Option<String>,
    auth_url: String,
    data_url: String,
    streams_url: String,
    timeout: Duration,
    user_agent: String,
    retry: RetryPolicy,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            api_key: None,
            auth_url: PRODUCTION_AUTH_URL.into(),
            data_url: PRODUCTION_DATA_URL.into(),
            streams_url: PRODUCTION_STREAMS_URL.into(),
            timeout: Duration::from_secs(30),
            user_agent: concat!("w3api-rest/", env!("CARGO_PKG_VERSION")).into(),
            retry: RetryPolicy::default(),
        }
    }
}

/// The key never appears in debug output.
impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("auth_url", &self.auth_url)
            .field("data_url", &self.data_url)
            .field("streams_url", &self.streams_url)
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .finish()
    }
}

impl ClientBuilder {
    /// The API key, sent as `X-API-Key` on every request. Without one the
    /// server answers 401.
    pub fn api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }

    /// One base address for all three groups (a local server).
    pub fn base_url(self, url: impl Into<String>) -> Self {
        let url = url.into();
        self.auth_url(url.clone()).data_url(url.clone()).streams_url(url)
    }

    /// Base address of the sign-in group.
    pub fn auth_url(mut self, url: impl Into<String>) -> Self {
        self.auth_url = url.into();
        self
    }

    /// Base address of the wallet-data group.
    pub fn data_url(mut self, url: impl Into<String>) -> Self {
        self.data_url = url.into();
        self
    }

    /// Base address of the streams group.
    pub fn streams_url(mut self, url: impl Into<String>) -> Self {
        self.streams_url = url.into();
        self
    }

    /// Time allowed for each attempt of a request, connection included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// How failed GET requests are retried.
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Builds the client, checking the base addresses and the key.
    pub fn build(self) -> Result<Client, BuildError> {
        let auth_url = base_url("auth", &self.auth_url)?;
        let data_url = base_url("data", &self.data_url)?;
        let streams_url = base_url("streams", &self.streams_url)?;
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(key).map_err(|_| BuildError::InvalidApiKey)?;
            value.set_sensitive(true);
            headers.insert(API_KEY_HEADER, value);
        }
        // reqwest leaves the TLS crypto provider to the application; ring is
        // the one jsonrpsee already uses. An application that installed its
        // own keeps it.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .user_agent(self.user_agent)
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            .build()
            .map_err(BuildError::Http)?;
        let state = ClientState { retry: self.retry };
        Ok(Client {
            auth: auth::Client::new_with_client(&auth_url, http.clone(), state.clone()),
            data: data::Client::new_with_client(&data_url, http.clone(), state.clone()),
            streams: streams::Client::new_with_client(&streams_url, http, state),
        })
    }
}

/// Checks a base address and drops a trailing slash (paths start with one).
fn base_url(group: &'static str, url: &str) -> Result<String, BuildError> {
    let invalid = |reason: String| BuildError::InvalidBaseUrl { group, url: url.to_string(), reason };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!("scheme {:?} is not http or https", parsed.scheme())));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(invalid("a base address has no query or fragment".into()));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// Why a client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A base address is not an absolute http(s) URL.
    #[error("invalid base address for the {group} group ({url:?}): {reason}")]
    InvalidBaseUrl {
        /// `auth`, `data` or `streams`.
        group: &'static str,
        /// The address given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The API key has characters an HTTP header cannot carry.
    #[error("the API key has characters an HTTP header cannot carry")]
    InvalidApiKey,
    /// The HTTP client could not be set up.
    #[error("setting up the HTTP client: {0}")]
    Http(#[source] reqwest::Error),
}
