//! The Ethereum execution-API fixtures replayed against the gateway as raw
//! JSON-RPC: each request is answered with its id and a result the spec
//! allows, shaped like the fixture's (every field the fixture's result has,
//! ours has; the values differ, the devnet being another chain).

use std::collections::BTreeSet;

use serde_json::Value;
use w3api_spec_check::fixtures::{self, ExecutionApiCase};
use w3api_spec_check::spec::Document;
use w3api_tests::local::Session;
use w3api_types::rpc::BlockNumberOrTag;

/// Sends one raw JSON-RPC request and returns the response body.
async fn post(session: &Session<'_>, http: &reqwest::Client, request: &Value) -> Value {
    let response = http.post(session.rpc_url()).json(request).send().await.expect("the gateway answers");
    assert_eq!(response.status(), 200);
    response.json().await.expect("a JSON answer")
}

/// The fields of `expected` missing from `actual`, for objects; for full
/// blocks, also those of each fixture transaction missing from our first
/// transaction of the same type.
fn missing_fields(expected: &Value, actual: &Value) -> Vec<String> {
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<BTreeSet<_>>()).unwrap_or_default();
    let mut missing: Vec<String> = keys(expected).difference(&keys(actual)).cloned().collect();
    let transactions = |v: &Value| v["transactions"].as_array().cloned().unwrap_or_default();
    for theirs in transactions(expected).iter().filter(|t| t.is_object()) {
        let ours = transactions(actual).into_iter().find(|t| t["type"] == theirs["type"]);
        if let Some(ours) = ours {
            missing.extend(
                keys(theirs).difference(&keys(&ours)).map(|k| format!("transactions[type {}].{k}", theirs["type"])),
            );
        }
    }
    missing.sort();
    missing.dedup();
    missing
}

/// A by-hash request names a block of the fixture's chain, which ours does
/// not have; it is asked again with the hash of our block of that number.
async fn with_our_block_hash(session: &Session<'_>, case: &ExecutionApiCase) -> Option<Value> {
    let number = case.response["result"]["blockNumber"].as_str()?;
    let number: BlockNumberOrTag = number.parse().ok()?;
    let block = session.rpc().get_block_by_number(number, false).await.unwrap()?;
    let mut request = case.request.clone();
    request["params"][0] = Value::String(format!("{:#x}", block.hash));
    Some(request)
}

/// Checks one case; returns what is wrong with it.
async fn replay(session: &Session<'_>, http: &reqwest::Client, case: &ExecutionApiCase) -> Vec<String> {
    let mut answer = post(session, http, &case.request).await;
    let expected = &case.response["result"];
    let by_hash = case.method() == "eth_getTransactionByBlockHashAndIndex";
    if by_hash && answer["result"].is_null() && !expected.is_null() {
        let request = with_our_block_hash(session, case).await.expect("the fixture's block number exists here");
        answer = post(session, http, &request).await;
    }
    let mut problems = Vec::new();
    if answer["id"] != case.request["id"] || answer["jsonrpc"] != "2.0" {
        problems.push(format!("not a JSON-RPC 2.0 answer to id {}: {answer}", case.request["id"]));
    }
    let Some(result) = answer.get("result").filter(|_| answer.get("error").is_none()) else {
        return vec![format!("no result: {answer}")];
    };
    problems.extend(Document::check_rpc_result(case.method(), result).err());
    if expected.is_object() && result.is_null() {
        problems.push("the fixture has a result, ours is null".into());
    }
    let missing = missing_fields(expected, result);
    if !missing.is_empty() {
        problems.push(format!("fields of the fixture's result missing from ours: {missing:?}"));
    }
    problems
}

#[test]
fn every_fixture_request_is_answered_like_the_fixture() {
    let dir = fixtures::fixtures_dir();
    let cases = fixtures::execution_apis(&dir);
    assert!(!cases.is_empty(), "no execution-API fixtures under {}", dir.display());
    let session = Session::new();
    let http = w3api_tests::http_client();
    let failures: Vec<String> = session.run(async {
        let mut failures = Vec::new();
        for case in &cases {
            let problems = replay(&session, &http, case).await;
            failures.extend(problems.into_iter().map(|p| format!("{} ({}): {p}", case.path.display(), case.request)));
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(session.finish() >= cases.len());
}
