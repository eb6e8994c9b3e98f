//! The cache of unchanging JSON-RPC answers, seen from the data source: a
//! call it can answer, alone or inside a batch, stops reaching the source
//! once the cache keeps it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, spawn};
use w3api_tests::observed::Observed;

/// Posts a JSON-RPC body to the eth gateway; the parsed answer.
async fn post(http: &reqwest::Client, url: &str, body: &Value) -> Value {
    let response = http.post(url).json(body).send().await.expect("the server answers");
    assert_eq!(response.status(), 200);
    response.json().await.expect("a JSON answer")
}

#[tokio::test]
async fn calls_inside_a_batch_are_answered_from_the_cache_once_kept() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let source = Observed::new(Devnet::new(0, Scale::TINY), move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        None
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = spawn(listener, source, ServerConfig::new(vec!["k".into()])).unwrap();
    let url = format!("{}/eth/k", server.url());
    let http = w3api_tests::http_client();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["0x1", false]},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_getBlockByNumber", "params": ["0x2", true]},
        {"jsonrpc": "2.0", "id": 3, "method": "eth_getTransactionByBlockNumberAndIndex", "params": ["0x1", "0x0"]},
        {"jsonrpc": "2.0", "id": 4, "method": "eth_getBlockByNumber", "params": ["latest", false]},
    ]);

    let first = post(&http, &url, &batch).await;
    let asked_first = calls.swap(0, Ordering::SeqCst);
    let results = first.as_array().unwrap();
    assert_eq!(results.len(), 4, "{first}");
    assert!(results.iter().all(|r| r["result"].is_object()), "every call has an answer: {first}");
    assert!(asked_first >= 4, "each call reaches the source the first time ({asked_first} questions)");

    // The cache keeps an answer the second time it is asked for, so that
    // questions asked once do not push out those asked again.
    let second = post(&http, &url, &batch).await;
    assert_eq!(second, first, "the same answers, each under its own id");
    assert!(calls.swap(0, Ordering::SeqCst) >= 4, "asked a second time, the calls reach the source and are kept");
    let third = post(&http, &url, &batch).await;
    assert_eq!(third, first);
    assert_eq!(calls.swap(0, Ordering::SeqCst), 1, "only the call by tag reaches the source again");

    // What a batch kept answers a single call too, under that call's id.
    let single = json!({"jsonrpc": "2.0", "id": "again", "method": "eth_getBlockByNumber", "params": ["0x2", true]});
    let answer = post(&http, &url, &single).await;
    assert_eq!(answer["id"], "again");
    assert_eq!(answer["result"], results[1]["result"]);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a kept answer does not reach the source");
}
