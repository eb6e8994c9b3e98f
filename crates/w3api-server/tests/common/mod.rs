//! One server on 127.0.0.1:0 for a test binary, on a runtime of its own,
//! over the tiny devnet; and requests whose answers are checked against the
//! spec as they come.

#![allow(dead_code)]

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, router, serve};
use w3api_tests::spec::Document;
use w3api_types::Address;

pub const KEY: &str = "test-key-for-the-server";
pub const SECOND_KEY: &str = "another-accepted-key";
pub const INDEX_DELAY: Duration = Duration::from_millis(600);

pub struct Harness {
    pub base: String,
    pub http: reqwest::Client,
    pub devnet: Devnet,
    runtime: tokio::runtime::Runtime,
}

/// A response: status, headers and body (parsed as JSON when it is JSON).
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

/// The test binary's shared server, accepting `KEY` and `SECOND_KEY`.
pub fn server() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| start(|config| config))
}

/// A server of its own, with the shared server's configuration changed by `adjust`.
pub fn start(adjust: impl FnOnce(ServerConfig) -> ServerConfig) -> Harness {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let devnet = Devnet::new(0, Scale::TINY).with_index_delay(INDEX_DELAY);
    let config = adjust(ServerConfig::new(vec![KEY.into(), SECOND_KEY.into()]));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(serve(listener, router(devnet.clone(), config), std::future::pending()));
    Harness { base, http: w3api_tests::http_client(), devnet, runtime }
}

impl Harness {
    /// Runs a future on the server's runtime.
    pub fn run<T>(&self, future: impl Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    /// Sends a request built by `build` and reads the answer.
    pub fn send(&self, build: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder) -> Answer {
        self.run(async {
            let response = build(&self.http).send().await.expect("the server answers");
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let text = response.text().await.unwrap();
            let body = serde_json::from_str(&text).unwrap_or(Value::Null);
            Answer { status, headers, body, text }
        })
    }

    /// GET a REST operation with the key, checked against the spec.
    pub fn get(&self, template: &str, path: &str) -> Answer {
        let answer = self.send(|c| c.get(format!("{}{path}", self.base)).header("x-api-key", KEY));
        answer.check(template, "get");
        answer
    }

    /// POST JSON to a REST operation with the key, checked against the spec.
    pub fn post(&self, template: &str, body: &Value) -> Answer {
        let answer = self.send(|c| c.post(format!("{}{template}", self.base)).header("x-api-key", KEY).json(body));
        answer.check(template, "post");
        answer
    }

    /// POST a JSON-RPC body to `/{chain}/{key}`.
    pub fn rpc(&self, chain: &str, body: &Value) -> Answer {
        self.send(|c| c.post(format!("{}/{chain}/{KEY}", self.base)).json(body))
    }

    /// The result of one JSON-RPC call on `eth`, checked against the spec.
    pub fn call(&self, method: &str, params: Value) -> Value {
        let answer =
            self.rpc("eth", &serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}));
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.body["id"], 7);
        let result = answer.body.get("result").unwrap_or_else(|| panic!("{method}: {}", answer.text)).clone();
        Document::check_rpc_result(method, &result).unwrap();
        result
    }

    /// The error object of one JSON-RPC call on `eth`.
    pub fn call_error(&self, method: &str, params: Value) -> Value {
        let answer =
            self.rpc("eth", &serde_json::json!({"jsonrpc": "2.0", "id": 8, "method": method, "params": params}));
        assert_eq!(answer.status, 200, "{}", answer.text);
        let error =
            answer.body.get("error").unwrap_or_else(|| panic!("{method}: expected an error, got {}", answer.text));
        Document::check_rpc_error_code(error["code"].as_i64().unwrap()).unwrap();
        error.clone()
    }

    /// Wallets of the devnet, the showcase wallet first.
    pub fn wallets(&self, count: usize) -> Vec<Address> {
        self.devnet.sample_wallets(count)
    }
}

impl Answer {
    /// Checks the answer against the operation: its status must be declared
    /// and its body must match the schema of that status.
    pub fn check(&self, template: &str, method: &str) {
        if let Err(problem) = Document::check_response(template, method, self.status, &self.body) {
            panic!("{problem}");
        }
    }

    /// The messages of an `Error` body.
    pub fn messages(&self) -> Vec<String> {
        match &self.body["message"] {
            Value::String(one) => vec![one.clone()],
            Value::Array(many) => many.iter().map(|m| m.as_str().unwrap().to_string()).collect(),
            other => panic!("not an Error body: {other} ({})", self.text),
        }
    }

    /// Asserts the status and that some message contains `fragment`.
    pub fn expect_error(&self, status: u16, fragment: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        let messages = self.messages();
        assert!(messages.iter().any(|m| m.contains(fragment)), "no message contains {fragment:?}: {messages:?}");
        Document::OpenApi.validate_component("Error", &self.body).unwrap();
    }
}
