//! An in-process gateway for the contract tests: `w3api-server` over the
//! default devnet (seed 0), on 127.0.0.1 with a port of its own, on a tokio
//! runtime of its own, shared by every test of a test binary.
//!
//! Around the server's router sits a checking layer ([`check_exchange`]): it
//! buffers each request and response body and checks every raw response
//! against the specs as it passes, so the tests can talk through the
//! generated clients (which decode leniently, or not at all on errors) and
//! still hold the server to the wire contract:
//! - a REST response must have a status its operation declares and a body
//!   matching that status's schema; a non-2xx body must be an `Error`;
//! - a JSON-RPC response (single or batch) must answer every call, each
//!   result matching its method's result schema, each error carrying a code
//!   `spec/openrpc.json` declares.
//!
//! The layer records problems instead of panicking (a panic there would only
//! reach the client as a broken connection). Each test works in a
//! [`Session`] with an API key of its own, so that what the layer saw is
//! attributed to the test that caused it; [`Session::finish`] asserts that
//! the session's responses were checked, and passed.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, request};
use axum::middleware::{self, Next};
use axum::response::Response;
use serde_json::Value;
use w3api_devnet::{Devnet, Scale};
use w3api_rest::{Client, RetryPolicy};
use w3api_rpc::RpcClient;
use w3api_server::{API_KEY_HEADER, ServerConfig, router, serve};
use w3api_types::Chain;

use crate::spec::{Document, rest_operations};

/// Keys the server accepts; each session takes the next one.
const SESSION_KEYS: usize = 128;

/// Bodies larger than this are not buffered (the server refuses requests
/// over 1 MiB; the largest answers, batches of full blocks, stay far below).
const BUFFER_LIMIT: usize = 256 * 1024 * 1024;

fn session_key(index: usize) -> String {
    // Fixed width, so that no key is a prefix of another.
    format!("contract-key-{index:03}")
}

/// The shared server.
pub struct Local {
    base: String,
    devnet: Devnet,
    log: Arc<Log>,
    runtime: tokio::runtime::Runtime,
}

/// The server of this test binary, started on first use.
pub fn local() -> &'static Local {
    static LOCAL: OnceLock<Local> = OnceLock::new();
    LOCAL.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let devnet = Devnet::new(0, Scale::DEFAULT);
        let log = Arc::new(Log::default());
        let config = ServerConfig::new((0..SESSION_KEYS).map(session_key).collect());
        let app = router(devnet.clone(), config).layer(middleware::from_fn_with_state(log.clone(), check_exchange));
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
        let base = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(serve(listener, app, std::future::pending()));
        Local { base, devnet, log, runtime }
    })
}

impl Local {
    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The devnet the server answers from (to choose what to sample, not to
    /// predict answers).
    pub fn devnet(&self) -> &Devnet {
        &self.devnet
    }
}

/// One test's view of the server: its own API key, clients using it, and
/// what the checking layer recorded for it.
pub struct Session {
    key: String,
    local: &'static Local,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session with the next unused key.
    pub fn new() -> Session {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let index = NEXT.fetch_add(1, Ordering::Relaxed);
        assert!(index < SESSION_KEYS, "more than {SESSION_KEYS} sessions in one test binary");
        Session { key: session_key(index), local: local() }
    }

    /// The session's API key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// A key the server does not accept, still attributed to this session.
    pub fn wrong_key(&self) -> String {
        format!("{}-revoked", self.key)
    }

    /// The server's base address.
    pub fn base(&self) -> &str {
        self.local.base()
    }

    /// The devnet behind the server.
    pub fn devnet(&self) -> &Devnet {
        self.local.devnet()
    }

    /// A REST client with the session's key. Retries are off: a failure
    /// should show at once, not after backing off.
    pub fn rest(&self) -> Client {
        self.rest_with_key(&self.key)
    }

    /// A REST client with another key.
    pub fn rest_with_key(&self, key: &str) -> Client {
        Client::builder()
            .base_url(self.base())
            .api_key(key)
            .retry_policy(RetryPolicy::none())
            .build()
            .expect("a client for the local server")
    }

    /// An RPC client for `eth` with the session's key.
    pub fn rpc(&self) -> RpcClient {
        self.rpc_with_key(&self.key)
    }

    /// An RPC client for `eth` with another key.
    pub fn rpc_with_key(&self, key: &str) -> RpcClient {
        RpcClient::new(self.base(), Chain::Eth, key).expect("an RPC client for the local server")
    }

    /// The raw JSON-RPC endpoint for `eth`, for requests the typed client cannot send.
    pub fn rpc_url(&self) -> String {
        format!("{}/eth/{}", self.base(), self.key)
    }

    /// Runs a future on the server's runtime.
    pub fn run<T>(&self, future: impl Future<Output = T>) -> T {
        self.local.runtime.block_on(future)
    }

    /// What the checking layer recorded for this session so far.
    pub fn record(&self) -> Record {
        self.local.log.for_session(&self.key)
    }

    /// Asserts that the layer checked this session's responses and found
    /// nothing wrong; returns how many responses it checked.
    pub fn finish(self) -> usize {
        let record = self.record();
        assert!(
            record.problems.is_empty(),
            "{} response(s) broke the spec:\n{}",
            record.problems.len(),
            record.problems.join("\n\n")
        );
        assert!(record.checked > 0, "the checking layer saw no response of this session (key {})", self.key);
        record.checked
    }
}

/// What the checking layer saw for one key.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Responses checked.
    pub checked: usize,
    /// What was wrong with them, one message each.
    pub problems: Vec<String>,
}

/// Records by API key (as sent; wrong keys included).
#[derive(Default)]
struct Log {
    by_key: Mutex<BTreeMap<String, Record>>,
}

impl Log {
    fn add(&self, key: String, problems: Vec<String>) {
        let mut by_key = self.by_key.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let record = by_key.entry(key).or_default();
        record.checked += 1;
        record.problems.extend(problems);
    }

    /// The records of `key` and of keys derived from it (`{key}-...`).
    fn for_session(&self, key: &str) -> Record {
        let by_key = self.by_key.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let derived = format!("{key}-");
        by_key.iter().filter(|(k, _)| *k == key || k.starts_with(&derived)).fold(
            Record::default(),
            |mut all, (_, r)| {
                all.checked += r.checked;
                all.problems.extend(r.problems.iter().cloned());
                all
            },
        )
    }
}

/// What a request is, as far as the contract goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// A REST operation, by path template.
    Rest(&'static str),
    /// The JSON-RPC gateway, `POST /{chain}/{apiKey}`; the key is the second segment.
    Rpc,
    /// Nothing the specs describe.
    Other,
}

/// Which operation a method and path are.
pub fn route(method: &Method, path: &str) -> Route {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let matches = |template: &str| {
        let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
        parts.len() == segments.len()
            && parts
                .iter()
                .zip(&segments)
                .all(|(part, segment)| if part.starts_with('{') { !segment.is_empty() } else { part == segment })
    };
    if let Some((_, template)) = rest_operations().iter().find(|(m, t)| m == method.as_str() && matches(t)) {
        return Route::Rest(template);
    }
    if *method == Method::POST && segments.len() == 2 && segments.iter().all(|s| !s.is_empty()) {
        return Route::Rpc;
    }
    Route::Other
}

/// The checking layer: buffers both bodies, passes the request on, checks
/// the response, and hands it back unchanged.
async fn check_exchange(State(log): State<Arc<Log>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let (method, path) = (parts.method.clone(), parts.uri.path().to_string());
    let route = route(&method, &path);
    let key = api_key(&parts, &route);
    let mut problems = Vec::new();
    let request_body = buffer(body, "request", &mut problems).await;
    let response = next.run(Request::from_parts(parts, Body::from(request_body.clone()))).await;
    let (response_parts, body) = response.into_parts();
    let response_body = buffer(body, "response", &mut problems).await;
    let status = response_parts.status.as_u16();
    let what = format!("{method} {} -> {status}", redact(&path, &key));
    problems.extend(match route {
        Route::Rest(template) => check_rest(template, method.as_str(), status, &response_body),
        Route::Rpc => check_rpc(&request_body, &response_body),
        Route::Other => vec!["no operation of the specs has this method and path".into()],
    });
    let problems = problems.into_iter().map(|p| format!("{what}: {p}")).collect();
    log.add(key, problems);
    Response::from_parts(response_parts, Body::from(response_body))
}

async fn buffer(body: Body, what: &str, problems: &mut Vec<String>) -> Bytes {
    axum::body::to_bytes(body, BUFFER_LIMIT).await.unwrap_or_else(|e| {
        problems.push(format!("the {what} body could not be read: {e}"));
        Bytes::new()
    })
}

/// The key a request carries: the `X-API-Key` header, or the RPC path's second segment.
fn api_key(parts: &request::Parts, route: &Route) -> String {
    let from_path = || parts.uri.path().rsplit('/').next().map(str::to_string);
    let from_header = || parts.headers.get(API_KEY_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    match route {
        Route::Rpc => from_path(),
        _ => from_header(),
    }
    .unwrap_or_default()
}

fn redact(path: &str, key: &str) -> String {
    if key.is_empty() { path.to_string() } else { path.replace(key, "<key>") }
}

/// A REST response against its operation: declared status, matching body,
/// and an `Error` body for every error status.
pub fn check_rest(template: &str, method: &str, status: u16, body: &[u8]) -> Vec<String> {
    let json: Value = match serde_json::from_slice(body) {
        Ok(json) => json,
        Err(e) => return vec![format!("the body is not JSON ({e}): {}", String::from_utf8_lossy(body))],
    };
    let mut problems: Vec<String> =
        Document::check_response(template, method, status, &json).err().into_iter().collect();
    if !(200..300).contains(&status) {
        problems.extend(Document::OpenApi.validate_component("Error", &json).err());
    }
    problems
}

/// A JSON-RPC response against the calls of its request: every call with an
/// id answered once, each answer a result matching the method's result
/// schema or an error with a declared code.
pub fn check_rpc(request: &[u8], response: &[u8]) -> Vec<String> {
    let answer: Value = match serde_json::from_slice(response) {
        Ok(json) => json,
        Err(e) => return vec![format!("the body is not JSON ({e}): {}", String::from_utf8_lossy(response))],
    };
    // A request that is not JSON is answered with one error and no call to match.
    let calls = serde_json::from_slice::<Value>(request).map(|r| methods_by_id(&r)).unwrap_or_default();
    let answers: Vec<&Value> = match &answer {
        Value::Array(batch) => batch.iter().collect(),
        single => vec![single],
    };
    let mut problems = Vec::new();
    let mut answered = BTreeSet::new();
    for answer in answers {
        let id = answer["id"].to_string();
        if answer["jsonrpc"] != "2.0" {
            problems.push(format!("not a JSON-RPC 2.0 response: {answer}"));
        }
        if !answered.insert(id.clone()) && id != "null" {
            problems.push(format!("id {id} answered twice"));
        }
        problems.extend(check_rpc_answer(calls.get(&id).map(String::as_str), answer).err());
    }
    let top_level_error = !answer.is_array() && answer.get("error").is_some();
    if !top_level_error {
        let missing: Vec<&String> = calls.keys().filter(|id| !answered.contains(*id)).collect();
        if !missing.is_empty() {
            problems.push(format!("calls left unanswered: ids {missing:?}"));
        }
    }
    problems
}

/// One answer: a result for a known method, or an error with a declared code.
fn check_rpc_answer(method: Option<&str>, answer: &Value) -> Result<(), String> {
    match (answer.get("result"), answer.get("error")) {
        (Some(result), None) => {
            let method = method.ok_or_else(|| format!("a result for an id no call had: {answer}"))?;
            Document::check_rpc_result(method, result)
        }
        (None, Some(error)) => {
            let code = error["code"].as_i64().ok_or_else(|| format!("an error without an integer code: {answer}"))?;
            if !error["message"].is_string() {
                return Err(format!("an error without a message: {answer}"));
            }
            Document::check_rpc_error_code(code).map_err(|e| format!("{e}: {answer}"))
        }
        _ => Err(format!("neither exactly a result nor an error: {answer}")),
    }
}

/// The method of each call by its id (as JSON text), for a single request or a batch.
fn methods_by_id(request: &Value) -> BTreeMap<String, String> {
    let calls: Vec<&Value> = match request {
        Value::Array(batch) => batch.iter().collect(),
        single => vec![single],
    };
    calls
        .into_iter()
        .filter_map(|call| Some((call.get("id")?.to_string(), call.get("method")?.as_str()?.to_string())))
        .collect()
}
