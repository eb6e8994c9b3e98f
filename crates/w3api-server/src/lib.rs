//! The w3api interface over HTTP: the REST groups (sign-in, wallet data,
//! streams) and the JSON-RPC gateway on one listener, answering from any
//! [`DataSource`].
//!
//! ```no_run
//! # async fn example() -> std::io::Result<()> {
//! use w3api_devnet::{Devnet, Scale};
//! use w3api_server::{ServerConfig, serve, service, shutdown_signal};
//!
//! let config = ServerConfig::new(vec!["my-key".into()]);
//! let app = service(Devnet::new(0, Scale::DEFAULT), config);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! serve(listener, app, shutdown_signal()).await
//! # }
//! ```

// Dev-dependencies of the package's other targets (its suites and doc
// examples), named so that `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use w3api_devnet as _;

mod answer_cache;
mod auth;
mod cors;
mod error;
mod faults;
mod logging;
mod random;
mod rest;
mod rpc;
mod signin;
mod spawn;

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use sha2::Digest;

use axum::Router;
use axum::ServiceExt;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower::ServiceBuilder;
use tower::util::BoxCloneSyncService;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
/// What the server answers from: a data source for the chain and node
/// methods, whose views the query core reads for the Data API.
pub use w3api_answers::{Backend, DynBackend};

pub use auth::{API_KEY_HEADER, ApiKeys};
pub use cors::{CorsOrigins, InvalidOrigin};
pub use error::ApiError;
pub use faults::{FAULT_HEADER, Fault, FaultRule, FaultRules, Injection, MAX_DELAY, RuleId, RuleTarget, UnknownTarget};
pub use rpc::Gateway;
pub use spawn::{RunningServer, spawn, spawn_service};

/// Largest request body, in bytes.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// How the server behaves.
#[derive(Clone)]
pub struct ServerConfig {
    /// Keys accepted in `X-API-Key` and in the RPC path.
    pub api_keys: Vec<String>,
    /// Where sign-in challenges are kept (see `w3api_store::open`); `None`
    /// keeps them in this process's memory.
    pub store: Option<Arc<dyn w3api_store::Store>>,
    /// The secret cursors are signed with (any text; its SHA-256 is the
    /// key). Servers behind one load balancer need the same one, so that a
    /// cursor from one is valid on another; `None` draws a key at random.
    pub cursor_secret: Option<String>,
    /// Most sign-in challenges the in-memory store holds at once (expired
    /// ones are evicted).
    pub challenge_capacity: usize,
    /// Bytes of encoded answers kept for reuse (see the `answer_cache` module).
    pub answer_cache_bytes: u64,
    /// Which web pages may call the server from a browser.
    pub cors: CorsOrigins,
    /// Faults to inject, changed while the server runs through a clone
    /// (`Prefer` headers inject faults whatever this holds).
    pub faults: FaultRules,
    /// Whether the chain-control methods (`evm_mine`, `evm_snapshot`…)
    /// change chains; when `false` they are refused, saying so.
    pub cheats: bool,
    /// How stream deliveries are made (retries, timeouts, confirmation depth).
    pub streams: w3api_streams::StreamsConfig,
    /// How long the calls of one JSON-RPC request that run the EVM
    /// (`eth_call`, `eth_estimateGas`, `eth_createAccessList`; every call
    /// of a batch together) may take, as geth's `--rpc.evmtimeout`; a call
    /// still running then is stopped with geth's error.
    pub evm_timeout: std::time::Duration,
    /// Chains the gateway serves beyond the table's, each at
    /// `/0x<its hex id>/KEY` (a devnet chain from a genesis, `--init`).
    pub extra_chains: Vec<w3api_types::Chain>,
}

/// geth's default `--rpc.evmtimeout`.
pub const DEFAULT_EVM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl ServerConfig {
    /// A server accepting `api_keys`, holding up to 100,000 challenges and
    /// 256 MiB of answers, callable from any web page.
    pub fn new(api_keys: Vec<String>) -> ServerConfig {
        ServerConfig {
            api_keys,
            store: None,
            cursor_secret: None,
            challenge_capacity: 100_000,
            answer_cache_bytes: 256 * 1024 * 1024,
            cors: CorsOrigins::Any,
            faults: FaultRules::default(),
            cheats: true,
            streams: w3api_streams::StreamsConfig::default(),
            evm_timeout: DEFAULT_EVM_TIMEOUT,
            extra_chains: Vec::new(),
        }
    }
}

/// The HMAC key of cursors signed with `secret`.
fn cursor_key(secret: &str) -> [u8; 32] {
    sha2::Sha256::new().chain_update(b"w3api cursor secret").chain_update(secret).finalize().into()
}

/// A fresh random API key (32 letters and digits).
pub fn new_api_key() -> String {
    random::alphanumeric(32)
}

/// What the handlers share.
pub struct App<S> {
    source: Arc<S>,
    keys: ApiKeys,
    cursors: w3api_answers::Cursors,
    challenges: signin::Challenges,
    answers: Arc<answer_cache::Answers>,
    rpc: rpc::RpcServices,
    /// What the gateway's WebSocket subscriptions hear, per chain.
    feeds: Arc<rpc::feed::Feeds<S>>,
    /// Which pages may open the gateway's WebSocket.
    cors: CorsOrigins,
    streams: w3api_streams::Streams<S>,
    /// The streams engine, stopped when the last handle on the app goes.
    _engine: Option<w3api_streams::Engine>,
    /// Chains outside the chain table the source was started for, which
    /// the Data API takes by hex id.
    own_chains: Vec<w3api_types::Chain>,
}

/// The whole interface as one HTTP service: what [`serve`] and
/// [`spawn_service`] run, and what a caller may wrap in layers of its own.
pub type HttpService = BoxCloneSyncService<Request, Response, Infallible>;

/// The whole interface over `source`: the routes, and around them, once,
/// the layers every request passes (request ids, logs, panics, body limit,
/// CORS).
pub fn service<B: Backend>(source: B, config: ServerConfig) -> HttpService {
    service_over(DynBackend::new(source), config)
}

/// [`service`] over the one backend type the server is compiled for: the
/// server and the streams, generic over their backend, are instantiated
/// here alone, not once per backend in every crate that starts a server.
fn service_over(source: DynBackend, config: ServerConfig) -> HttpService {
    type S = DynBackend;
    let source = Arc::new(source);
    let keys = ApiKeys::new(&config.api_keys);
    // One budget of bytes for the REST and the JSON-RPC answers.
    let answers = Arc::new(answer_cache::Answers::new(config.answer_cache_bytes));
    let store = Arc::new(w3api_store::StoreCell::new(config.store, config.challenge_capacity));
    // Production signs deliveries with the project's API key until a secret is set.
    let default_secret = config.api_keys.first().cloned().unwrap_or_else(|| random::alphanumeric(32));
    let streams = w3api_streams::Streams::new(source.clone(), store.clone(), config.streams, default_secret);
    // Deliveries need a runtime to run on; a service built outside one
    // (in a synchronous test) answers the API without delivering.
    let engine = tokio::runtime::Handle::try_current().is_ok().then(|| streams.start());
    let cursors = w3api_answers::Cursors::new(config.cursor_secret.as_deref().map_or_else(random::bytes, cursor_key));
    let own_chains = w3api_source::Blocks::own_chains(&*source);
    let app = Arc::new(App {
        rpc: rpc::RpcServices::new(
            source.clone(),
            answers.clone(),
            BODY_LIMIT,
            (config.cheats, config.evm_timeout),
            &config.extra_chains,
            &config.faults,
            &cursors,
        ),
        feeds: Arc::new(rpc::feed::Feeds::new(source.clone())),
        cors: config.cors.clone(),
        source,
        keys: keys.clone(),
        cursors,
        challenges: signin::Challenges::new(store),
        answers,
        streams,
        _engine: engine,
        own_chains,
    });
    let authenticated =
        rest::routes::<S>().merge(rest::streams::routes::<S>()).route_layer(auth::RequireApiKeyLayer(keys));
    let routes = Router::new()
        .merge(authenticated)
        .route("/{chain}/{api_key}", post(rpc::entry::<S>).get(rpc::socket_entry::<S>))
        .route("/health", get(health))
        .route("/dashboard", get(rest::streams::dashboard))
        .route("/openapi.yaml", get(openapi))
        .route("/openrpc.json", get(openrpc))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app);
    around(routes, &config.cors, config.faults)
}

/// `routes` inside the layers every request passes: request ids, logs,
/// panics, the body limit, CORS and injected faults.
///
/// They wrap the whole router once, not through `Router::layer`, which
/// wraps every route in each layer, each in a box of its own: every
/// request then cloned and freed a dozen nested boxes before any work
/// began. Nor as a router's fallback service, which routes every request
/// twice.
fn around(routes: Router, cors: &CorsOrigins, faults: FaultRules) -> HttpService {
    // Requests are traced only when someone reads it: the layer otherwise
    // still times every request and wraps every body for events nobody records.
    let tracing_requests = tracing::enabled!(target: "tower_http::trace", tracing::Level::DEBUG)
        || tracing::enabled!(tracing::Level::DEBUG);
    let trace = tracing_requests.then(|| {
        ServiceBuilder::new()
            .map_response(|response: http::Response<_>| response.map(Body::new))
            .layer(TraceLayer::new_for_http().make_span_with(logging::request_span).on_failure(()))
            .into_inner()
    });
    let layered = ServiceBuilder::new()
        .layer(SetRequestIdLayer::x_request_id(logging::SequentialIds::new()))
        .option_layer(trace)
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(logging::ServerErrorsLayer)
        .layer(CatchPanicLayer::custom(|panic| ApiError::internal(panic_message(panic)).into_response()))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        // Outside the routes, so that a preflight is answered before any key check or 405.
        .layer(cors::layer(cors))
        // Inside CORS, so that a page in a browser can read an injected answer.
        .layer(faults::FaultLayer { rules: faults })
        .service(routes);
    BoxCloneSyncService::new(layered)
}

/// Serves `service` on `listener` until `shutdown` completes, then lets
/// requests in flight finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: HttpService,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, service.into_make_service()).with_graceful_shutdown(shutdown).await
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// What a handler's panic said, for the log.
fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    let text = panic.downcast_ref::<&str>().copied().or_else(|| panic.downcast_ref::<String>().map(String::as_str));
    format!("panic: {}", text.unwrap_or("(no message)"))
}

async fn health() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({ "status": "ok" }))
}

async fn openapi() -> Response {
    let mut response = include_str!("../../../spec/openapi.yaml").into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/yaml"));
    response
}

async fn openrpc() -> Response {
    let mut response = include_str!("../../../spec/openrpc.json").into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(format!(
        "No route for {} {}",
        request.method(),
        logging::redact(request.method(), request.uri().path())
    ))
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::method_not_allowed(
        request.method().as_str(),
        &logging::redact(request.method(), request.uri().path()),
        None,
    )
}
