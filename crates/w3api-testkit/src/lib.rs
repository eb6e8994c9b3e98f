//! The w3api server inside your own tests, started in one line:
//!
//! ```
//! use w3api_testkit::Server;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::start().await;
//! let wallet = server.devnet().sample_wallets(1)[0];
//! let tokens = server.rest().data().get_wallet_token_balances_price().address(wallet).send().await.unwrap();
//! assert!(!tokens.result.is_empty());
//! # }
//! ```
//!
//! The server runs in the test's own process, on a task of the current
//! tokio runtime, bound to 127.0.0.1 on a port of its own, over a devnet of
//! its own; it stops when the [`Server`] is dropped. Its address and API key
//! are there for other clients ([`Server::url`], [`Server::api_key`]), and
//! [`Server::faults`] makes it fail on purpose: a status such as 429 or
//! 503, a delay, a reset connection, a truncated or malformed body, for a
//! REST operation or a JSON-RPC method, a given number of times. A request
//! can also ask for a fault itself, with a `Prefer` header.
//!
//! The test shapes the chain: [`Server::devnet`] takes snapshots, reverts,
//! mines and sets balances ([`ChainControl`], the same controls the gateway
//! serves as `evm_snapshot`, `anvil_mine`, `anvil_setBalance`…), and
//! [`Builder::block_time`] adds live blocks of ordinary activity.
//!
//! Streams deliver to [`Webhooks`], a receiver that records each delivery
//! and checks its signature; [`Builder::config`] sets the retry schedule
//! and confirmation depth ([`StreamsConfig`]) to what a test can wait for.

mod webhooks;

use std::time::Duration;

pub use w3api_devnet::{BlockPlan, CreatedWallet, Devnet, Moved, NewNftMetadata, NewToken, Scale};
use w3api_rest::Client;
use w3api_rpc::RpcClient;
use w3api_server::Backend;
use w3api_server::{HttpService, RunningServer, ServerConfig, new_api_key, service, spawn_service};

pub use w3api_source::ChainControl;
pub use w3api_source::scenario::{Applied, Scenario, ScenarioError, Step};
use w3api_types::Chain;

pub use w3api_streams::{SIGNATURE_HEADER, StreamsConfig, signature};
pub use webhooks::{Received, Webhooks};

pub use w3api_server::{FAULT_HEADER, Fault, FaultRule, FaultRules, Injection, RuleId, RuleTarget, UnknownTarget};

/// Builds the service a server answers with, from its devnet and configuration.
type MakeService = Box<dyn FnOnce(Devnet, ServerConfig) -> HttpService + Send>;

/// Wraps the service in layers of the caller's.
type Wrap = Box<dyn FnOnce(HttpService) -> HttpService + Send>;

/// A server running for a test; dropped, it stops.
pub struct Server {
    running: Option<RunningServer>,
    url: String,
    api_key: String,
    devnet: Devnet,
    faults: FaultRules,
    /// Live blocks, when asked for; stopped with the server.
    producer: Option<tokio::task::JoinHandle<()>>,
}

/// How a [`Server`] is set up: [`Server::builder`], then [`Builder::start`].
pub struct Builder {
    seed: u64,
    scale: Scale,
    index_delay: Option<Duration>,
    block_time: Option<Duration>,
    config: ServerConfig,
    make: MakeService,
    wrap: Option<Wrap>,
}

impl Server {
    /// A server on a fresh devnet (seed 0, default scale) with one API key.
    /// Panics if no loopback port can be bound, as a test can go no further.
    pub async fn start() -> Server {
        Server::builder().start().await
    }

    /// A server set up otherwise: another devnet, more keys, other settings.
    pub fn builder() -> Builder {
        Builder {
            seed: 0,
            scale: Scale::DEFAULT,
            index_delay: None,
            block_time: None,
            config: ServerConfig::new(vec![new_api_key()]),
            make: Box::new(service::<Devnet>),
            wrap: None,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's first API key, which [`Server::rest`] and [`Server::rpc`] use.
    pub fn api_key(&self) -> &str {
        &self.api_key
    }

    /// The devnet the server answers from, to pick wallets, tokens and
    /// blocks from.
    pub fn devnet(&self) -> &Devnet {
        &self.devnet
    }

    /// A REST client of this server, with its key and the default retry policy.
    pub fn rest(&self) -> Client {
        Client::builder().base_url(&self.url).api_key(&self.api_key).build().expect("a client of a loopback URL")
    }

    /// A JSON-RPC client of this server's gateway for `chain`.
    pub fn rpc(&self, chain: Chain) -> RpcClient {
        RpcClient::new(&self.url, chain, &self.api_key).expect("a gateway client of a loopback URL")
    }

    /// The JSON-RPC endpoint for `chain`, with the key, for other clients
    /// (viem, ethers, web3.py).
    pub fn rpc_url(&self, chain: Chain) -> String {
        let chain = chain.rpc_slug().map_or_else(|| chain.to_string(), str::to_string);
        format!("{}/{chain}/{}", self.url, self.api_key)
    }

    /// The server's fault rules; a rule added here applies from the next request on.
    pub fn faults(&self) -> &FaultRules {
        &self.faults
    }

    /// Shapes the server's devnet with `scenario`'s steps (wallets, tokens,
    /// collections, mints, transfers, prices, blocks); the names it gave
    /// stand for their addresses in what it returns.
    pub async fn apply(&self, scenario: &Scenario) -> Result<Applied, ScenarioError> {
        scenario.apply(&self.devnet).await
    }

    /// Stops accepting connections, lets the requests in flight finish,
    /// and returns once the server has stopped.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        match self.running.take() {
            Some(running) => running.shutdown().await,
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(producer) = &self.producer {
            producer.abort();
        }
    }
}

impl Builder {
    /// The devnet's seed: the same seed serves the same data.
    pub fn seed(self, seed: u64) -> Builder {
        Builder { seed, ..self }
    }

    /// The devnet's size ([`Scale::TINY`] generates fastest).
    pub fn scale(self, scale: Scale) -> Builder {
        Builder { scale, ..self }
    }

    /// Adds a block of ordinary activity to every chain in use every
    /// `every` (as `w3api serve --block-time`). Without it, blocks come
    /// only from the chain controls ([`Devnet::mine_blocks`], `evm_mine`…).
    pub fn block_time(self, every: Duration) -> Builder {
        Builder { block_time: Some(every), ..self }
    }

    /// How long an NFT collection named in a filter for the first time
    /// reports `SYNCING` (3 s unless set).
    pub fn index_delay(self, delay: Duration) -> Builder {
        Builder { index_delay: Some(delay), ..self }
    }

    /// The server's configuration, changed by `adjust`; it receives the
    /// kit's API key in `api_keys`, which the kit's clients use while it
    /// stays first.
    pub fn config(self, adjust: impl FnOnce(ServerConfig) -> ServerConfig) -> Builder {
        Builder { config: adjust(self.config), ..self }
    }

    /// Another data source, made from the devnet (a wrapper around it, say).
    pub fn source<S: Backend>(self, source: impl FnOnce(Devnet) -> S + Send + 'static) -> Builder {
        Builder { make: Box::new(move |devnet, config| service(source(devnet), config)), ..self }
    }

    /// The service wrapped in layers of the caller's (one that checks every
    /// exchange, say) before it is served.
    pub fn wrap(self, wrap: impl FnOnce(HttpService) -> HttpService + Send + 'static) -> Builder {
        Builder { wrap: Some(Box::new(wrap)), ..self }
    }

    /// Binds 127.0.0.1 on a free port and serves there, on a task of the
    /// current tokio runtime. Panics outside a runtime, or when no loopback
    /// port can be bound.
    pub async fn start(mut self) -> Server {
        // One store for the server and its devnet, as `w3api serve` has:
        // the chains' journal beside the sign-in challenges, so that
        // `anvil_dumpState` has what to dump.
        let store = match &self.config.store {
            Some(store) => store.clone(),
            None => w3api_store::open(&w3api_store::Location::Memory, self.config.challenge_capacity)
                .await
                .expect("an in-memory store opens"),
        };
        self.config.store = Some(store.clone());
        let devnet = Devnet::new(self.seed, self.scale).with_store(store);
        let devnet = match self.index_delay {
            Some(delay) => devnet.with_index_delay(delay),
            None => devnet,
        };
        let api_key = self.config.api_keys.first().cloned().expect("at least one API key");
        let faults = self.config.faults.clone();
        let service = (self.make)(devnet.clone(), self.config);
        let service = match self.wrap {
            Some(wrap) => wrap(service),
            None => service,
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let running = spawn_service(listener, service).expect("the bound listener has an address");
        let producer = self.block_time.map(|every| tokio::spawn(devnet.clone().produce_blocks(every)));
        Server { url: running.url(), running: Some(running), api_key, devnet, faults, producer }
    }
}
