//! Injected faults: what `Prefer` headers and fault rules make the server
//! answer, and the clients' retries against them.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use w3api_devnet::Scale;
use w3api_rest::RetryPolicy;
use w3api_rpc::{ErrorCode, RpcError};
use w3api_server::{FAULT_HEADER, Fault, FaultRule, FaultRules, Injection, RuleTarget, ServerConfig};
use w3api_tests::local::{Session, Setup};
use w3api_types::Chain;

/// The answer of a raw request, or the transport error that ended it.
struct Raw {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Result<Vec<u8>, String>,
}

/// Sends `request` (built with the session's server address) with `prefer`.
fn send(
    session: &Session,
    prefer: &str,
    request: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder,
) -> Result<Raw, String> {
    let http = w3api_tests::http_client();
    session.run(async {
        let response = request(&http).header("prefer", prefer).send().await.map_err(|e| format!("{e:?}"))?;
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        let body = response.bytes().await.map(|b| b.to_vec()).map_err(|e| format!("{e:?}"));
        Ok(Raw { status, headers, body })
    })
}

/// A wallet-tokens request with the session's key.
fn tokens<'a>(session: &'a Session<'_>) -> impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder + 'a {
    let wallet = session.devnet().sample_wallets(1)[0];
    let url = format!("{}/api/v2.2/wallets/{wallet:#x}/tokens?chain=eth", session.base());
    move |http| http.get(url).header("x-api-key", session.key())
}

/// A JSON-RPC request to the session's gateway.
fn rpc(session: &Session<'_>, body: Value) -> impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder {
    let url = session.rpc_url();
    move |http| http.post(url).json(&body)
}

fn json(raw: &Raw) -> Value {
    serde_json::from_slice(raw.body.as_ref().expect("a whole body")).expect("a JSON body")
}

#[test]
fn prefer_code_answers_that_status_in_the_apis_own_format() {
    let session = Session::new();
    let limited = send(&session, "code=429", tokens(&session)).unwrap();
    assert_eq!(limited.status, 429);
    assert_eq!(limited.headers["retry-after"], "1");
    assert_eq!(limited.headers[FAULT_HEADER], "code=429");
    assert_eq!(json(&limited), json!({ "message": "Too Many Requests (injected: code=429)" }));

    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "eth_blockNumber", "params": [] });
    let down = send(&session, "code=503", rpc(&session, call)).unwrap();
    assert_eq!(down.status, 503);
    let error = json(&down);
    assert_eq!((error["id"].clone(), error["error"]["code"].clone()), (json!(7), json!(-32603)), "{error}");

    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": [] },
        { "jsonrpc": "2.0", "id": "two", "method": "eth_chainId", "params": [] },
    ]);
    let limited = send(&session, "code=429", rpc(&session, batch)).unwrap();
    assert_eq!(
        (limited.status, &limited.headers["retry-after"]),
        (429, &"1".parse::<reqwest::header::HeaderValue>().unwrap())
    );
    let errors = json(&limited);
    let ids: Vec<_> = errors.as_array().unwrap().iter().map(|e| e["id"].clone()).collect();
    assert_eq!(ids, [json!(1), json!("two")], "one error per call: {errors}");
    assert!(errors.as_array().unwrap().iter().all(|e| e["error"]["code"] == -32005), "{errors}");
}

#[test]
fn a_bad_prefer_value_is_refused_naming_it() {
    let session = Session::new();
    let refused = send(&session, "code=299", tokens(&session)).unwrap();
    assert_eq!(refused.status, 400);
    let message = json(&refused)["message"].as_str().unwrap().to_string();
    assert!(message.contains("Prefer: code=299"), "{message}");
    let ignored = send(&session, "return=minimal", tokens(&session)).unwrap();
    assert_eq!(ignored.status, 200, "preferences of others are left alone");
}

#[test]
fn prefer_delay_holds_the_answer_back() {
    let session = Session::new();
    let started = Instant::now();
    let slow = send(&session, "delay=300ms", tokens(&session)).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());
    assert_eq!(slow.status, 200);
    assert!(json(&slow)["result"].is_array());
    assert_eq!(slow.headers[FAULT_HEADER], "delay=300ms");
}

#[test]
fn prefer_fault_breaks_the_connection_or_the_body() {
    let session = Session::new();
    let reset = send(&session, "fault=reset", tokens(&session)).err().expect("no answer at all");
    assert!(reset.contains("IncompleteMessage"), "{reset}");

    let truncated = send(&session, "fault=truncate", tokens(&session)).unwrap();
    assert_eq!(truncated.status, 200);
    let promised: usize = truncated.headers["content-length"].to_str().unwrap().parse().unwrap();
    assert!(promised > 100, "the whole answer's length is announced");
    assert!(truncated.body.is_err(), "the body stops short of it");

    let malformed = send(&session, "fault=malformed", tokens(&session)).unwrap();
    assert_eq!(malformed.status, 200);
    let body = malformed.body.unwrap();
    assert!(serde_json::from_slice::<Value>(&body).is_err(), "{}", String::from_utf8_lossy(&body));
    assert_eq!(malformed.headers[FAULT_HEADER], "fault=malformed");
}

/// A server whose fault rules the test holds.
fn server_with_rules() -> (w3api_tests::local::Local, FaultRules) {
    let rules = FaultRules::default();
    let held = rules.clone();
    let server = Setup::new().scale(Scale::TINY).config(move |config| ServerConfig { faults: held, ..config }).start();
    (server, rules)
}

fn status(code: u16) -> Injection {
    Injection { fault: Some(Fault::Status(code.try_into().unwrap())), delay: None }
}

#[test]
fn the_rest_client_retries_rule_made_429s_and_succeeds() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let target = RuleTarget::Operation("getWalletTokenBalancesPrice".into());
    rules.add(FaultRule { target: target.clone(), injection: status(429), times: Some(2) }).unwrap();
    let client = w3api_rest::Client::builder()
        .base_url(session.base())
        .api_key(session.key())
        .retry_policy(RetryPolicy { max_attempts: 3, ..RetryPolicy::default() })
        .build()
        .unwrap();
    let wallet = session.devnet().sample_wallets(1)[0];
    let started = Instant::now();
    let page = session.run(client.data().get_wallet_token_balances_price().address(wallet).send()).unwrap();
    assert!(!page.result.is_empty());
    assert!(started.elapsed() >= Duration::from_secs(2), "waited Retry-After twice: {:?}", started.elapsed());
    assert!(rules.list().is_empty(), "both 429s were spent");

    // Without retries, the first 429 is the answer.
    rules.add(FaultRule { target, injection: status(429), times: Some(1) }).unwrap();
    let error =
        session.run(session.rest().data().get_wallet_token_balances_price().address(wallet).send()).unwrap_err();
    assert_eq!(w3api_rest::Error::from(error).status().map(|s| s.as_u16()), Some(429));
}

/// A REST client of `session` retrying `attempts` times with short backoff.
fn retrying(session: &Session<'_>, attempts: u32, timeout: Duration) -> w3api_rest::Client {
    w3api_rest::Client::builder()
        .base_url(session.base())
        .api_key(session.key())
        .timeout(timeout)
        .retry_policy(RetryPolicy {
            max_attempts: attempts,
            initial_backoff: Duration::from_millis(5),
            ..RetryPolicy::default()
        })
        .build()
        .unwrap()
}

/// How many times each rule has left.
fn times_left(rules: &FaultRules) -> Vec<Option<u32>> {
    rules.list().into_iter().map(|(_, rule)| rule.times).collect()
}

#[test]
fn the_rest_client_gives_up_after_its_attempts_and_never_retries_a_post() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let nfts = RuleTarget::Operation("getWalletNfts".into());
    rules.add(FaultRule { target: nfts, injection: status(503), times: Some(5) }).unwrap();
    let client = retrying(&session, 3, Duration::from_secs(30));
    let wallet = session.devnet().sample_wallets(1)[0];
    let error = session.run(client.data().get_wallet_nfts().address(wallet).send()).unwrap_err();
    assert_eq!(w3api_rest::Error::from(error).status().map(|s| s.as_u16()), Some(503));
    assert_eq!(times_left(&rules), [Some(2)], "three attempts, then the 503 is the answer");

    rules.clear();
    let challenge = RuleTarget::Operation("requestSolanaChallenge".into());
    rules.add(FaultRule { target: challenge, injection: status(503), times: Some(2) }).unwrap();
    let request: w3api_types::SolanaChallengeRequest = serde_json::from_value(json!({
        "domain": "example.com", "address": "3fbvSBt23R6TbSkPQoyi56XSaFE6mYHxQyQwqnMa93fK",
        "uri": "https://example.com/login", "network": "mainnet", "timeout": 60
    }))
    .unwrap();
    let error = session.run(client.auth().request_solana_challenge().body(request).send()).unwrap_err();
    assert_eq!(w3api_rest::Error::from(error).status().map(|s| s.as_u16()), Some(503));
    assert_eq!(times_left(&rules), [Some(1)], "a POST is sent once");
}

/// Holds the next five answers to `target` back half a second each.
fn five_slow_answers(rules: &FaultRules, target: RuleTarget) {
    let slow = Injection { fault: None, delay: Some(Duration::from_millis(500)) };
    rules.add(FaultRule { target, injection: slow, times: Some(5) }).unwrap();
}

#[test]
fn the_rest_client_retries_timeouts_then_reports_a_transport_error() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    five_slow_answers(&rules, RuleTarget::Operation("getWalletNfts".into()));
    let client = retrying(&session, 2, Duration::from_millis(100));
    let wallet = session.devnet().sample_wallets(1)[0];
    let error =
        w3api_rest::Error::from(session.run(client.data().get_wallet_nfts().address(wallet).send()).unwrap_err());
    assert!(matches!(&error, w3api_rest::Error::Transport(e) if e.is_timeout()), "{error:?}");
    assert_eq!(times_left(&rules), [Some(3)], "two attempts");
}

#[test]
fn the_rpc_client_reports_each_fault_as_its_error() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let client = rpc_client(&session, RetryPolicy::none(), Duration::from_millis(300));
    // The chain is made on its first read, which may take longer than the
    // client waits: made first, only the faults are timed.
    drop(server.devnet().chain(Chain::Eth));
    let fail_once = |injection| {
        let target = RuleTarget::RpcMethod("eth_blockNumber".into());
        rules.add(FaultRule { target, injection, times: Some(1) }).unwrap();
        session.run(client.block_number()).unwrap_err()
    };
    for (code, kind) in [(429, ErrorCode::RateLimited), (401, ErrorCode::Unauthorized)] {
        let error = fail_once(status(code));
        assert_eq!((error.clone(), error.kind()), (RpcError::Http { status: code }, Some(kind)));
    }
    assert_eq!(fail_once(Injection { fault: None, delay: Some(Duration::from_secs(1)) }), RpcError::Timeout);
    let truncated = fail_once(Injection { fault: Some(Fault::Truncate), delay: None });
    assert!(matches!(truncated, RpcError::Transport(_)), "{truncated:?}");
    let malformed = fail_once(Injection { fault: Some(Fault::Malformed), delay: None });
    assert!(matches!(malformed, RpcError::InvalidResponse(_) | RpcError::Transport(_)), "{malformed:?}");
    assert!(session.run(client.block_number()).is_ok(), "every rule is spent");
}

/// An RPC client of `session` with `retry` and a timeout per attempt.
fn rpc_client(session: &Session<'_>, retry: RetryPolicy, timeout: Duration) -> w3api_rpc::RpcClient {
    w3api_rpc::RpcClient::builder(session.base(), Chain::Eth, session.key())
        .timeout(timeout)
        .retry_policy(retry)
        .build()
        .unwrap()
}

/// `attempts` attempts in all, with short backoff.
fn attempts(attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts: attempts, initial_backoff: Duration::from_millis(5), ..RetryPolicy::default() }
}

#[test]
fn the_rpc_client_retries_rule_made_429s_on_reads_and_succeeds() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let target = RuleTarget::RpcMethod("eth_blockNumber".into());
    rules.add(FaultRule { target, injection: status(429), times: Some(2) }).unwrap();
    let client = rpc_client(&session, attempts(3), Duration::from_secs(30));
    let started = Instant::now();
    let head = session.run(client.block_number()).unwrap();
    assert!(head.0 > 0, "{head:?}");
    assert!(started.elapsed() >= Duration::from_secs(2), "waited Retry-After twice: {:?}", started.elapsed());
    assert!(rules.list().is_empty(), "both 429s were spent");
}

#[test]
fn the_rpc_client_gives_up_after_its_attempts_and_never_resends_a_send() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let client = rpc_client(&session, attempts(3), Duration::from_secs(30));
    let wallet = session.devnet().sample_wallets(1)[0];
    let balance = RuleTarget::RpcMethod("eth_getBalance".into());
    rules.add(FaultRule { target: balance, injection: status(503), times: Some(5) }).unwrap();
    let error = session.run(client.get_balance(wallet, None)).unwrap_err();
    assert_eq!(error, RpcError::Http { status: 503 });
    assert_eq!(times_left(&rules), [Some(2)], "three attempts, then the 503 is the answer");

    rules.clear();
    let send = RuleTarget::RpcMethod("eth_sendRawTransaction".into());
    rules.add(FaultRule { target: send, injection: status(503), times: Some(3) }).unwrap();
    let raw = w3api_types::rpc::Bytes::from(vec![0x02, 0xc0]);
    let error = session.run(client.send_raw_transaction(raw.clone())).unwrap_err();
    assert_eq!(error, RpcError::Http { status: 503 });
    assert_eq!(times_left(&rules), [Some(2)], "a send is sent once");
    let mut batch = client.batch();
    let _head = batch.block_number();
    let _hash = batch.send_raw_transaction(raw);
    let error = session.run(batch.send()).unwrap_err();
    assert_eq!(error, RpcError::Http { status: 503 });
    assert_eq!(times_left(&rules), [Some(1)], "a batch with a send is sent once");
}

#[test]
fn the_rpc_client_retries_timeouts_then_reports_a_timeout() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    five_slow_answers(&rules, RuleTarget::RpcMethod("eth_blockNumber".into()));
    let client = rpc_client(&session, attempts(2), Duration::from_millis(100));
    assert_eq!(session.run(client.block_number()), Err(RpcError::Timeout));
    assert_eq!(times_left(&rules), [Some(3)], "two attempts");
}

#[test]
fn rpc_rules_spoil_the_calls_of_their_method_only() {
    let (server, rules) = server_with_rules();
    let session = server.session();
    let target = RuleTarget::RpcMethod("eth_chainId".into());
    rules.add(FaultRule { target, injection: status(503), times: Some(1) }).unwrap();
    let client = session.rpc();
    assert!(session.run(client.block_number()).is_ok(), "another method answers");
    let error = session.run(client.chain_id()).unwrap_err();
    assert!(error.to_string().contains("503") || error.to_string().contains("-32603"), "{error}");
    assert_eq!(session.run(client.chain_id()).unwrap(), w3api_types::rpc::Uint64(1), "the rule is spent");
}
