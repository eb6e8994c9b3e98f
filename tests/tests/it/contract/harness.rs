//! The checking layer itself: it must recognise each operation, and its
//! checks must fail on answers that break the specs, or the other tests'
//! `finish()` would prove nothing.

use axum::http::Method;
use serde_json::{Value, json};
use w3api_spec_check::spec::rest_operations;
use w3api_tests::local::{Route, Session, check_rest, check_rpc, route};

fn bytes(json: &Value) -> Vec<u8> {
    serde_json::to_vec(json).unwrap()
}

#[test]
fn requests_are_routed_to_their_operation() {
    let cases = [
        (Method::GET, "/api/v2.2/wallets/0xabc/tokens", Route::Rest("/api/v2.2/wallets/{address}/tokens")),
        (Method::GET, "/api/v2.2/0xabc/nft", Route::Rest("/api/v2.2/{address}/nft")),
        (Method::GET, "/api/v2.2/0xabc/nft/collections", Route::Rest("/api/v2.2/{address}/nft/collections")),
        (Method::GET, "/api/v2.2/0xabc/balance", Route::Rest("/api/v2.2/{address}/balance")),
        (Method::GET, "/api/v2.2/wallets/balances", Route::Rest("/api/v2.2/wallets/balances")),
        (Method::GET, "/api/v2.2/0xabc/erc20", Route::Rest("/api/v2.2/{address}/erc20")),
        (Method::GET, "/api/v2.2/erc20/0xabc/price", Route::Rest("/api/v2.2/erc20/{address}/price")),
        (Method::POST, "/api/v2.2/erc20/prices", Route::Rest("/api/v2.2/erc20/prices")),
        (Method::GET, "/api/v2.2/erc20/metadata", Route::Rest("/api/v2.2/erc20/metadata")),
        (Method::GET, "/api/v2.2/dateToBlock", Route::Rest("/api/v2.2/dateToBlock")),
        (Method::GET, "/api/v2.2/wallets/0xabc/net-worth", Route::Rest("/api/v2.2/wallets/{address}/net-worth")),
        (Method::GET, "/api/v2.2/nft/0xabc", Route::Rest("/api/v2.2/nft/{address}")),
        (Method::GET, "/api/v2.2/nft/0xabc/owners", Route::Rest("/api/v2.2/nft/{address}/owners")),
        (Method::GET, "/api/v2.2/nft/0xabc/15", Route::Rest("/api/v2.2/nft/{address}/{token_id}")),
        (Method::GET, "/api/v2.2/nft/0xabc/15/owners", Route::Rest("/api/v2.2/nft/{address}/{token_id}/owners")),
        (Method::POST, "/api/v2.2/nft/getMultipleNFTs", Route::Rest("/api/v2.2/nft/getMultipleNFTs")),
        (Method::GET, "/api/v2.2/nft/0xabc/transfers", Route::Rest("/api/v2.2/nft/{address}/transfers")),
        (Method::GET, "/api/v2.2/0xabc/nft/transfers", Route::Rest("/api/v2.2/{address}/nft/transfers")),
        (Method::GET, "/api/v2.2/0xabc/erc20/transfers", Route::Rest("/api/v2.2/{address}/erc20/transfers")),
        (Method::GET, "/api/v2.2/erc20/0xabc/transfers", Route::Rest("/api/v2.2/erc20/{address}/transfers")),
        (Method::GET, "/api/v2.2/0xabc", Route::Rest("/api/v2.2/{address}")),
        (Method::GET, "/api/v2.2/wallets/0xabc/stats", Route::Rest("/api/v2.2/wallets/{address}/stats")),
        (Method::GET, "/api/v2.2/wallets/0xabc/chains", Route::Rest("/api/v2.2/wallets/{address}/chains")),
        (Method::GET, "/api/v2.2/wallets/0xabc/history", Route::Rest("/api/v2.2/wallets/{address}/history")),
        (Method::GET, "/api/v2.2/dateToBlock", Route::Rest("/api/v2.2/dateToBlock")),
        (Method::GET, "/api/v2.2/block/15", Route::Rest("/api/v2.2/block/{block_number_or_hash}")),
        (Method::GET, "/api/v2.2/transaction/0xab", Route::Rest("/api/v2.2/transaction/{transaction_hash}")),
        (
            Method::GET,
            "/api/v2.2/transaction/0xab/verbose",
            Route::Rest("/api/v2.2/transaction/{transaction_hash}/verbose"),
        ),
        (Method::GET, "/streams/evm/some-id", Route::Rest("/streams/evm/{id}")),
        (Method::POST, "/challenge/request/solana", Route::Rest("/challenge/request/solana")),
        (Method::POST, "/challenge/verify/solana", Route::Rest("/challenge/verify/solana")),
        (Method::POST, "/eth/some-key", Route::Rpc),
        (Method::GET, "/eth/some-key", Route::Other),
        (Method::GET, "/health", Route::Other),
        (Method::GET, "/api/v2.2/wallets//tokens", Route::Other),
    ];
    for (method, path, expected) in cases {
        assert_eq!(route(&method, path), expected, "{method} {path}");
    }
    assert_eq!(rest_operations().len(), 48, "the spec's REST operations: {:?}", rest_operations());
}

#[test]
fn rest_answers_that_break_the_spec_are_caught() {
    let tokens = "/api/v2.2/wallets/{address}/tokens";
    let page = json!({"cursor": null, "page": 1, "page_size": 100, "block_number": "5", "result": []});
    assert_eq!(check_rest(tokens, "GET", 200, &bytes(&page)), Vec::<String>::new());
    let error = json!({"message": "limit: \"101\" is not an integer from 0 to 100"});
    assert_eq!(check_rest(tokens, "GET", 400, &bytes(&error)), Vec::<String>::new());
    let broken = [
        (200, json!({"page": 1, "page_size": 100}), "a page without its result"),
        (200, json!({"cursor": 7, "page": 1, "page_size": 100, "result": []}), "a numeric cursor"),
        (404, error.clone(), "a status the operation does not declare"),
        (400, json!({"error": "bad"}), "an error body that is not an Error"),
        (500, json!([]), "an error body that is not an Error"),
    ];
    for (status, body, what) in broken {
        assert!(!check_rest(tokens, "GET", status, &bytes(&body)).is_empty(), "{what} passed");
    }
    assert!(!check_rest(tokens, "GET", 200, b"<html>").is_empty(), "a body that is not JSON passed");
}

#[test]
fn rpc_answers_that_break_the_spec_are_caught() {
    let call = |id: u64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": []});
    let batch = bytes(&json!([call(1, "eth_getBlockByNumber"), call(2, "eth_getTokenPrice")]));
    let ok = json!([
        {"jsonrpc": "2.0", "id": 1, "result": null},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32001, "message": "no price"}},
    ]);
    assert_eq!(check_rpc(&batch, &bytes(&ok)), Vec::<String>::new());
    let broken = [
        (json!([{"jsonrpc": "2.0", "id": 1, "result": null}]), "a call left unanswered"),
        (json!([{"jsonrpc": "2.0", "id": 1, "result": {"number": 5}}, ok[1]]), "a block that is not a Block"),
        (json!([ok[0], {"jsonrpc": "2.0", "id": 2, "error": {"code": -32042, "message": "?"}}]), "an undeclared code"),
        (json!([ok[0], ok[1], {"jsonrpc": "2.0", "id": 3, "result": null}]), "a result no call asked for"),
        (json!([ok[0], {"jsonrpc": "2.0", "id": 2}]), "an answer without result or error"),
        (json!([{"jsonrpc": "1.0", "id": 1, "result": null}, ok[1]]), "another JSON-RPC version"),
    ];
    for (answer, what) in broken {
        assert!(!check_rpc(&batch, &bytes(&answer)).is_empty(), "{what} passed");
    }
}

#[test]
fn what_the_layer_finds_is_recorded_for_the_session_that_caused_it() {
    let session = Session::new();
    let other = Session::new();
    let http = w3api_tests::http_client();
    // `/health` is no operation of the specs: the layer records a problem, and the answer still arrives.
    let status = session.run(async {
        let response = http.get(format!("{}/health", session.base())).header("x-api-key", session.key()).send().await;
        response.unwrap().status().as_u16()
    });
    assert_eq!(status, 200);
    let record = session.record();
    assert_eq!(record.checked, 1);
    assert_eq!(record.problems.len(), 1, "{:?}", record.problems);
    assert!(record.problems[0].contains("GET /health -> 200"), "{:?}", record.problems);
    assert_eq!(other.record().checked, 0, "nothing is recorded for another session");
}
