//! The in-process server of the workspace's tests: `w3api-server` over the
//! devnet (seed 0), on 127.0.0.1 with a port of its own, on a tokio runtime
//! of its own, started through the test kit (`w3api_testkit::Builder`). [`local`] is
//! the server a test binary shares (default devnet, 256 session keys); a test
//! that needs another configuration (other keys, CORS origins, a small
//! challenge capacity, a tiny devnet, another data source) starts a server of
//! its own with [`Setup::start`], the one other way to get a server.
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
//!   `spec/openrpc.json` declares;
//! - an answer marked as an injected fault (`x-w3api-fault`) is off the
//!   contract on purpose, and passes unchecked.
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
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, request};
use axum::middleware::{self, Next};
use axum::response::Response;
use serde_json::Value;
use tower::ServiceBuilder;
use w3api_devnet::{Devnet, Scale};
use w3api_rest::{Client, RetryPolicy};
use w3api_rpc::RpcClient;
use w3api_server::Backend;
use w3api_server::{API_KEY_HEADER, HttpService, ServerConfig};
use w3api_spec_check::spec::{Document, rest_operations};
use w3api_types::Chain;

/// Keys the server accepts; each session takes the next one.
const SESSION_KEYS: usize = 256;

/// Bodies larger than this are not buffered (the server refuses requests
/// over 1 MiB; the largest answers, batches of full blocks, stay far below).
const BUFFER_LIMIT: usize = 256 * 1024 * 1024;

fn session_key(index: usize) -> String {
    // Fixed width, so that no key is a prefix of another.
    format!("contract-key-{index:03}")
}

/// How a server is set up: the shared server's setup by default, changed
/// for a test that needs something else. A server starts through the test
/// kit (`w3api-testkit`), as users' tests start theirs, with the checking
/// layer around it.
pub struct Setup {
    kit: w3api_testkit::Builder,
}

impl Default for Setup {
    fn default() -> Self {
        Setup::new()
    }
}

impl Setup {
    /// The shared server's setup: the default devnet, the session keys, and
    /// the server's default configuration otherwise.
    pub fn new() -> Setup {
        let keys: Vec<String> = (0..SESSION_KEYS).map(session_key).collect();
        Setup { kit: w3api_testkit::Server::builder().config(|config| ServerConfig { api_keys: keys, ..config }) }
    }

    /// Another size of devnet.
    pub fn scale(self, scale: Scale) -> Setup {
        Setup { kit: self.kit.scale(scale) }
    }

    /// The configuration changed by `adjust` (it receives the session keys
    /// in `api_keys`; sessions need them).
    pub fn config(self, adjust: impl FnOnce(ServerConfig) -> ServerConfig) -> Setup {
        Setup { kit: self.kit.config(adjust) }
    }

    /// Another data source, made from the devnet (a wrapper around it, say).
    pub fn source<S: Backend>(self, source: impl FnOnce(Devnet) -> S + Send + 'static) -> Setup {
        Setup { kit: self.kit.source(source) }
    }

    /// Starts a server of its own with this setup.
    pub fn start(self) -> Local {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let log = Arc::new(Log::default());
        let checked = log.clone();
        let kit = self.kit.wrap(move |service| {
            HttpService::new(
                ServiceBuilder::new().layer(middleware::from_fn_with_state(checked, check_exchange)).service(service),
            )
        });
        let server = runtime.block_on(kit.start());
        Local {
            base: server.url().to_string(),
            devnet: server.devnet().clone(),
            log,
            http: crate::http_client(),
            sessions: AtomicUsize::new(0),
            server: Some(server),
            runtime,
        }
    }
}

/// A running server, with what its tests need to talk to it.
pub struct Local {
    base: String,
    devnet: Devnet,
    log: Arc<Log>,
    http: reqwest::Client,
    sessions: AtomicUsize,
    // Before the runtime, so that the server is told to stop before its runtime goes.
    server: Option<w3api_testkit::Server>,
    runtime: tokio::runtime::Runtime,
}

/// The server this test binary shares, started on first use.
pub fn local() -> &'static Local {
    static LOCAL: OnceLock<Local> = OnceLock::new();
    LOCAL.get_or_init(|| Setup::new().start())
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

    /// A session with the next unused key of this server.
    pub fn session(&self) -> Session<'_> {
        let index = self.sessions.fetch_add(1, Ordering::Relaxed);
        assert!(index < SESSION_KEYS, "more than {SESSION_KEYS} sessions on one server");
        Session { key: session_key(index), local: self }
    }

    /// Runs a future on the server's runtime.
    pub fn run<T>(&self, future: impl Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    /// Starts a future on the server's runtime without waiting for it (a
    /// request left in flight, say).
    pub fn spawn<F>(&self, future: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.runtime.spawn(future)
    }

    /// Stops the server as [`w3api_testkit::Server::shutdown`] does: no new
    /// connection, requests in flight finish; returns once it has stopped.
    pub fn stop(&mut self) {
        let server = self.server.take().expect("the server is running");
        let stopped =
            self.runtime.block_on(async { tokio::time::timeout(Duration::from_secs(10), server.shutdown()).await });
        stopped.expect("the server stops within 10 s").expect("the server ends without an error");
    }
}

/// One test's view of a server: its own API key, clients using it, and
/// what the checking layer recorded for it.
pub struct Session<'a> {
    key: String,
    local: &'a Local,
}

impl Default for Session<'static> {
    fn default() -> Self {
        Session::new()
    }
}

impl Session<'static> {
    /// A session on the shared server, with its next unused key.
    pub fn new() -> Session<'static> {
        local().session()
    }
}

impl Session<'_> {
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

    /// An RPC client for `eth` with the session's key. Retries are off, as
    /// the REST client's are.
    pub fn rpc(&self) -> RpcClient {
        self.rpc_with_key(&self.key)
    }

    /// An RPC client for `eth` with another key.
    pub fn rpc_with_key(&self, key: &str) -> RpcClient {
        RpcClient::builder(self.base(), Chain::Eth, key)
            .retry_policy(RetryPolicy::none())
            .build()
            .expect("an RPC client for the local server")
    }

    /// The raw JSON-RPC endpoint for `eth`, for requests the typed client cannot send.
    pub fn rpc_url(&self) -> String {
        format!("{}/eth/{}", self.base(), self.key)
    }

    /// Runs a future on the server's runtime.
    pub fn run<T>(&self, future: impl Future<Output = T>) -> T {
        self.local.run(future)
    }

    /// Sends a raw request built by `build` (from the harness's HTTP client)
    /// and reads the answer.
    pub fn send(&self, build: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder) -> Answer {
        self.run(async {
            let response = build(&self.local.http).send().await.expect("the server answers");
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let text = response.text().await.expect("a readable body");
            let body = serde_json::from_str(&text).unwrap_or(Value::Null);
            Answer { status, headers, body, text }
        })
    }

    /// GET `path` (a REST operation, with the session's key); panics unless
    /// the answer is one `template` declares.
    pub fn get(&self, template: &str, path: &str) -> Answer {
        let answer = self.send(|c| c.get(format!("{}{path}", self.base())).header(API_KEY_HEADER, self.key()));
        answer.check(template, "get");
        answer
    }

    /// POST JSON to a REST operation with the session's key; panics unless
    /// the answer is one the operation declares.
    pub fn post(&self, template: &str, body: &Value) -> Answer {
        let answer =
            self.send(|c| c.post(format!("{}{template}", self.base())).header(API_KEY_HEADER, self.key()).json(body));
        answer.check(template, "post");
        answer
    }

    /// POST a raw JSON-RPC body to `/{chain}/{key}`.
    pub fn post_rpc(&self, chain: &str, body: &Value) -> Answer {
        self.send(|c| c.post(format!("{}/{chain}/{}", self.base(), self.key())).json(body))
    }

    /// The result of one raw JSON-RPC call on `eth`, checked against the spec.
    pub fn call(&self, method: &str, params: Value) -> Value {
        let mut call = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": method});
        call["params"] = params;
        let answer = self.post_rpc("eth", &call);
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.body["id"], 7);
        let result = answer.body.get("result").unwrap_or_else(|| panic!("{method}: {}", answer.text)).clone();
        Document::check_rpc_result(method, &result).unwrap();
        result
    }

    /// The error object of one raw JSON-RPC call on `eth`, its code checked against the spec.
    pub fn call_error(&self, method: &str, params: Value) -> Value {
        let mut call = serde_json::json!({"jsonrpc": "2.0", "id": 8, "method": method});
        call["params"] = params;
        let answer = self.post_rpc("eth", &call);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let error =
            answer.body.get("error").unwrap_or_else(|| panic!("{method}: expected an error, got {}", answer.text));
        Document::check_rpc_error_code(error["code"].as_i64().expect("an integer code")).unwrap();
        error.clone()
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

/// A raw response: status, headers and body (parsed as JSON when it is JSON).
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The response headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body as JSON; `null` when it is not JSON.
    pub body: Value,
    /// The body as text, for assertion messages.
    pub text: String,
}

impl Answer {
    /// Panics unless the status is one the operation declares and the body
    /// matches that status's schema.
    pub fn check(&self, template: &str, method: &str) {
        if let Err(problem) = Document::check_response(template, method, self.status, &self.body) {
            panic!("{problem}");
        }
    }

    /// The messages of an `Error` body.
    pub fn messages(&self) -> Vec<String> {
        match &self.body["message"] {
            Value::String(one) => vec![one.clone()],
            Value::Array(many) => many.iter().map(|m| m.as_str().expect("a text message").to_string()).collect(),
            other => panic!("not an Error body: {other} ({})", self.text),
        }
    }

    /// Asserts the status, that the body is an `Error`, and that some
    /// message contains `fragment`.
    pub fn expect_error(&self, status: u16, fragment: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        let messages = self.messages();
        assert!(messages.iter().any(|m| m.contains(fragment)), "no message contains {fragment:?}: {messages:?}");
        Document::OpenApi.validate_component("Error", &self.body).unwrap();
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
        let mut by_key = self.by_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let record = by_key.entry(key).or_default();
        record.checked += 1;
        record.problems.extend(problems);
    }

    /// The records of `key` and of keys derived from it (`{key}-...`).
    fn for_session(&self, key: &str) -> Record {
        let by_key = self.by_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
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
    // As the router: a literal segment wins over a parameter (`/nft/{address}/owners`
    // over `/nft/{address}/{token_id}`).
    let literals = |template: &str| template.split('/').filter(|part| !part.starts_with('{')).count();
    let found = rest_operations().iter().filter(|(m, t)| m == method.as_str() && matches(t));
    if let Some((_, template)) = found.max_by_key(|(_, t)| literals(t)) {
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
    // An injected fault answers off the contract on purpose (and may be no
    // answer at all): it passes as it is.
    if response.headers().contains_key(w3api_server::FAULT_HEADER) {
        return response;
    }
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
