//! `w3api serve --block-time` and `--no-cheats` as a user runs them.
#![cfg(unix)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::{Server, get, line_starting};

/// The result of a JSON-RPC call on eth with the key `k`.
fn call(runtime: &tokio::runtime::Runtime, base: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    runtime.block_on(async {
        let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&body).send().await.unwrap();
        response.json::<Value>().await.unwrap()
    })
}

fn quantity(value: &Value) -> u64 {
    u64::from_str_radix(value.as_str().expect("a hex quantity").trim_start_matches("0x"), 16).unwrap()
}

fn block_number(runtime: &tokio::runtime::Runtime, base: &str) -> u64 {
    quantity(&call(runtime, base, "eth_blockNumber", json!([]))["result"])
}

#[test]
fn one_block_a_second_for_ten_seconds_is_about_ten_blocks_that_wallets_follow() {
    let mut server = Server::start(&["--scale", "tiny", "--api-key", "k", "--block-time", "1s"], &[]);
    line_starting(&mut server, "blocks: one of ordinary activity every 1s");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let base = server.base.clone();
    let first = block_number(&runtime, &base);
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(10));
    let last = block_number(&runtime, &base);
    let elapsed = started.elapsed().as_secs_f64();
    let made = last - first;
    assert!((elapsed - 2.0..=elapsed + 1.0).contains(&(made as f64)), "{made} blocks in {elapsed:.1} s");

    // Whoever sent a transaction in those blocks paid for gas: wallet
    // tokens at the newest block say so, as eth_getBalance does.
    let senders: Vec<String> = (first + 1..=last)
        .flat_map(|number| {
            let block = call(&runtime, &base, "eth_getBlockByNumber", json!([format!("{number:#x}"), true]));
            let transactions = block["result"]["transactions"].as_array().cloned().unwrap_or_default();
            transactions.into_iter().map(|tx| tx["from"].as_str().unwrap().to_string()).collect::<Vec<_>>()
        })
        .collect();
    assert!(senders.len() as u64 >= made, "{} transactions in {made} blocks of activity", senders.len());
    let native = |tokens: &Value| {
        let native = tokens["result"].as_array().unwrap().iter().find(|t| t["native_token"] == true).cloned();
        native.map(|t| t["balance"].as_str().unwrap().to_string())
    };
    for sender in senders.iter().take(3) {
        let before = get(&runtime, &base, &format!("/api/v2.2/wallets/{sender}/tokens?chain=eth&to_block={first}"));
        let now = get(&runtime, &base, &format!("/api/v2.2/wallets/{sender}/tokens?chain=eth")).json();
        let at = now["block_number"].as_u64().unwrap();
        assert!(at >= last, "wallet tokens at block {at}, after block {last} was made");
        assert_ne!(native(&now), native(&before.json()), "{sender} paid for gas since block {first}");
        let balance = call(&runtime, &base, "eth_getBalance", json!([sender, format!("{at:#x}")]));
        let balance =
            alloy_primitives::U256::from_str_radix(balance["result"].as_str().unwrap().trim_start_matches("0x"), 16);
        assert_eq!(native(&now), Some(balance.unwrap().to_string()), "{sender} at block {at}");
    }
}

#[test]
fn no_cheats_is_said_at_start_and_refuses_chain_control() {
    let mut server = Server::start(&["--scale", "tiny", "--api-key", "k", "--no-cheats"], &[]);
    line_starting(&mut server, "blocks: only from chain-control methods");
    line_starting(&mut server, "chain-control methods refused (--no-cheats)");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let latest = block_number(&runtime, &server.base);
    let refused = call(&runtime, &server.base, "evm_mine", json!([]));
    assert_eq!(refused["error"]["code"], -32004, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("--no-cheats"), "{refused}");
    assert_eq!(block_number(&runtime, &server.base), latest);
}
