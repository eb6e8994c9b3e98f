//! The RPC client against a stub gateway on loopback: the execution-API
//! fixtures replayed, batches, typed errors, and the key kept out of sight.
//! HTTP refusals and timeouts come from the real server's injected faults
//! (`server/faults.rs`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use w3api_rpc::{ErrorCode, RetryPolicy, RpcClient, RpcError};
use w3api_spec_check::fixtures;
use w3api_types::Chain;
use w3api_types::rpc::{BlockNumberOrTag, Hash32, TokenPriceParams, TransactionIndex};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const KEY: &str = "secret-key-77";

/// Answers each JSON-RPC request (or batch) with a canned response carrying
/// the request's id.
struct Canned(Value);

impl Respond for Canned {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).expect("the client sends JSON");
        let answer = |call: &Value, canned: &Value| {
            let mut canned = canned.clone();
            canned["id"] = call["id"].clone();
            canned
        };
        let reply = match (&body, &self.0) {
            (Value::Array(calls), Value::Array(canned)) => {
                calls.iter().zip(canned).map(|(c, a)| answer(c, a)).collect()
            }
            (call, canned) => answer(call, canned),
        };
        ResponseTemplate::new(200).set_body_json(reply)
    }
}

async fn gateway(canned: Value) -> (MockServer, RpcClient) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(format!("/eth/{KEY}"))).respond_with(Canned(canned)).mount(&server).await;
    let client = RpcClient::new(&server.uri(), Chain::Eth, KEY).unwrap();
    (server, client)
}

async fn sent_params(server: &MockServer) -> Value {
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    body["params"].clone()
}

/// Calls the method of a fixture through the typed client and returns the
/// result re-encoded.
async fn call(client: &RpcClient, method: &str, params: &[Value]) -> Value {
    fn param<T: serde::de::DeserializeOwned>(params: &[Value], i: usize) -> T {
        serde_json::from_value(params[i].clone()).unwrap()
    }
    let result = match method {
        "eth_getBlockByNumber" => {
            serde_json::to_value(client.get_block_by_number(param(params, 0), param(params, 1)).await.unwrap())
        }
        "eth_getTransactionByBlockHashAndIndex" => {
            let (hash, index): (Hash32, TransactionIndex) = (param(params, 0), param(params, 1));
            serde_json::to_value(client.get_transaction_by_block_hash_and_index(hash, index).await.unwrap())
        }
        "eth_getTransactionByBlockNumberAndIndex" => {
            let (block, index): (BlockNumberOrTag, TransactionIndex) = (param(params, 0), param(params, 1));
            serde_json::to_value(client.get_transaction_by_block_number_and_index(block, index).await.unwrap())
        }
        other => panic!("{other} is not a method of the gateway"),
    };
    result.unwrap()
}

#[tokio::test]
async fn execution_api_fixtures_replay_through_the_client() {
    let dir = fixtures::fixtures_dir();
    let cases = fixtures::typed_execution_apis(&dir);
    assert!(cases.len() >= 12, "{} cases", cases.len());
    for case in cases {
        let (server, client) = gateway(case.response.clone()).await;
        let params = case.request["params"].as_array().unwrap().clone();
        let result = call(&client, case.method(), &params).await;
        assert_eq!(sent_params(&server).await, case.request["params"], "{}: params sent", case.path.display());
        assert_eq!(result, case.response["result"], "{}: result re-encoded", case.path.display());
    }
}

#[tokio::test]
async fn token_price_sends_one_object_param() {
    let canned = json!({"jsonrpc": "2.0", "id": 0, "result": {
        "nativePrice": {"value": "1", "decimals": 18, "name": "Ether", "symbol": "ETH"},
        "usdPrice": 2.5, "exchangeAddress": "0x1f98431c8ad98523631ae4a59f267346ea31f984", "exchangeName": "Uniswap v3"
    }});
    let (server, client) = gateway(canned).await;
    let token = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599".parse().unwrap();
    let params = TokenPriceParams { to_block: Some(16), ..TokenPriceParams::new(token) };
    let price = client.get_token_price(params).await.unwrap();
    assert_eq!(price.usd_price, 2.5);
    assert_eq!(
        sent_params(&server).await,
        json!([{ "address": "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "toBlock": 16 }])
    );
}

#[tokio::test]
async fn a_batch_sends_one_request_and_reads_each_answer_by_handle() {
    let block = json!({"jsonrpc": "2.0", "id": 0, "result": null});
    let error = json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "bad index"}});
    let (server, client) = gateway(json!([block, error])).await;
    let mut batch = client.batch();
    let missing_block = batch.get_block_by_number(BlockNumberOrTag::Number(1000), false);
    let bad = batch.get_transaction_by_block_number_and_index(BlockNumberOrTag::Latest, 0.into());
    assert_eq!(batch.len(), 2);
    let answers = batch.send().await.unwrap();
    assert_eq!(answers.get(&missing_block).unwrap(), None);
    let failure = answers.get(&bad).unwrap_err();
    assert_eq!(failure.kind(), Some(ErrorCode::InvalidParams));
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body[0]["method"], "eth_getBlockByNumber");
    assert_eq!(body[0]["params"], json!(["0x3e8", false]));
    assert_eq!(body[1]["params"], json!(["latest", "0x0"]));
}

#[tokio::test]
async fn an_empty_batch_is_refused_before_sending() {
    let (server, client) = gateway(json!(null)).await;
    assert!(matches!(client.batch().send().await, Err(RpcError::Config(_))));
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn json_rpc_errors_are_typed() {
    let canned = json!({"jsonrpc": "2.0", "id": 0, "error": {
        "code": -32001, "message": "No pair prices 0x00", "data": {"token": "0x00"}
    }});
    let (_server, client) = gateway(canned).await;
    let error = client.get_token_price(TokenPriceParams::new(Default::default())).await.unwrap_err();
    assert_eq!(error.kind(), Some(ErrorCode::PriceNotFound));
    assert_eq!(
        error,
        RpcError::Rpc { code: -32001, message: "No pair prices 0x00".into(), data: Some(json!({"token": "0x00"})) }
    );
}

#[tokio::test]
async fn the_key_is_in_the_url_and_nowhere_else() {
    let (server, client) = gateway(json!({"jsonrpc": "2.0", "id": 0, "result": null})).await;
    client.get_block_by_number(BlockNumberOrTag::Earliest, true).await.unwrap();
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.url.path(), format!("/eth/{KEY}"));
    assert!(!String::from_utf8_lossy(&request.body).contains(KEY));
    assert!(!format!("{client:?}").contains(KEY));
    assert!(client.endpoint().ends_with("/eth/<redacted>"));
    // A transport failure does not show the key either.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // A refused connection is tried again (a read), then reported.
    let retry = RetryPolicy { max_attempts: 3, initial_backoff: Duration::from_millis(50), ..RetryPolicy::default() };
    let closed =
        RpcClient::builder(&format!("http://127.0.0.1:{port}"), Chain::Eth, KEY).retry_policy(retry).build().unwrap();
    let started = Instant::now();
    let error = closed.get_block_by_number(BlockNumberOrTag::Latest, false).await.unwrap_err();
    assert!(matches!(error, RpcError::Transport(_)), "{error:?}");
    assert!(started.elapsed() >= Duration::from_millis(75), "two backoffs: {:?}", started.elapsed());
    assert!(!error.to_string().contains(KEY), "{error}");
}

#[test]
fn keys_with_reserved_characters_are_escaped_in_the_path() {
    let client = RpcClient::new("http://127.0.0.1:9/", Chain::PolygonAmoy, "a/b c").unwrap();
    assert_eq!(client.endpoint(), "http://127.0.0.1:9/amoy/<redacted>");
    assert!(!format!("{client:?}").contains("a/b"));
}

#[test]
fn chains_without_a_gateway_and_empty_keys_are_refused() {
    let error = RpcClient::new("http://127.0.0.1:9", Chain::Palm, KEY).unwrap_err();
    assert_eq!(error.to_string(), "chain palm is not served by the RPC gateway");
    assert!(matches!(RpcClient::new("http://127.0.0.1:9", Chain::Eth, ""), Err(RpcError::Config(_))));
    assert!(matches!(RpcClient::new("ftp://x", Chain::Eth, KEY), Err(RpcError::Config(_))));
}

#[test]
fn error_codes_round_trip() {
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_code(code.code()), Some(code));
    }
    assert_eq!(ErrorCode::ParseError.code(), -32700);
    assert_eq!(ErrorCode::from_code(1), None);
}
