//! Where the API is and how to authenticate: the global options.

use clap::Args;
use w3api_rest::Client;
use w3api_rpc::{PRODUCTION_RPC_URL, RpcClient};
use w3api_types::Chain;

use crate::error::CliError;

/// Options that say which server to call, shared by every API command.
/// Without a URL the production service is called.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct ConnectionArgs {
    /// API key, sent as X-API-Key (REST) and in the RPC path. `serve` accepts it
    /// repeated: every key given is let in.
    #[arg(long = "api-key", global = true, env = "W3API_API_KEY", hide_env_values = true)]
    pub api_keys: Vec<String>,
    /// One base URL for every group, REST and RPC (e.g. http://127.0.0.1:8080 for `w3api serve`).
    #[arg(long, global = true, env = "W3API_BASE_URL")]
    pub base_url: Option<String>,
    /// Base URL of the wallet-data group (overrides --base-url).
    #[arg(long, global = true, env = "W3API_DATA_URL")]
    pub data_url: Option<String>,
    /// Base URL of the sign-in group (overrides --base-url).
    #[arg(long, global = true, env = "W3API_AUTH_URL")]
    pub auth_url: Option<String>,
    /// Base URL of the streams group (overrides --base-url).
    #[arg(long, global = true, env = "W3API_STREAMS_URL")]
    pub streams_url: Option<String>,
    /// Base URL of the JSON-RPC gateway; calls go to {rpc-url}/{chain}/{api-key} (overrides --base-url).
    #[arg(long, global = true, env = "W3API_RPC_URL")]
    pub rpc_url: Option<String>,
}

impl ConnectionArgs {
    /// Options for a server answering every group at `base_url` with `api_key`.
    pub(crate) fn local(base_url: &str, api_key: &str) -> ConnectionArgs {
        ConnectionArgs { api_keys: vec![api_key.into()], base_url: Some(base_url.into()), ..ConnectionArgs::default() }
    }

    /// The one key a client sends; several are a mistake, not a choice to make silently.
    fn api_key(&self) -> Result<&str, CliError> {
        match self.api_keys.as_slice() {
            [key] if !key.is_empty() => Ok(key),
            [] | [_] => Err(CliError::MissingApiKey),
            keys => Err(CliError::Input(format!(
                "{} API keys given; a client command sends one (only `serve` accepts --api-key repeated)",
                keys.len()
            ))),
        }
    }

    /// The REST client these options describe.
    pub(crate) fn rest(&self) -> Result<Client, CliError> {
        let mut builder = Client::builder().api_key(self.api_key()?);
        if let Some(url) = &self.base_url {
            builder = builder.base_url(url);
        }
        if let Some(url) = &self.data_url {
            builder = builder.data_url(url);
        }
        if let Some(url) = &self.auth_url {
            builder = builder.auth_url(url);
        }
        if let Some(url) = &self.streams_url {
            builder = builder.streams_url(url);
        }
        Ok(builder.build()?)
    }

    /// The RPC client for `chain` these options describe.
    pub(crate) fn rpc(&self, chain: Chain) -> Result<RpcClient, CliError> {
        let url = self.rpc_url.as_deref().or(self.base_url.as_deref()).unwrap_or(PRODUCTION_RPC_URL);
        Ok(RpcClient::new(url, chain, self.api_key()?)?)
    }
}
