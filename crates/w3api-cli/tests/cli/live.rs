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
    serde_json::from_value::<w3api_types::rpc::Uint64>(value.clone()).expect("a hex quantity").0
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
        let at: u64 = now["block_number"].as_str().unwrap().parse().unwrap();
        assert!(at >= last, "wallet tokens at block {at}, after block {last} was made");
        assert_ne!(native(&now), native(&before.json()), "{sender} paid for gas since block {first}");
        let balance = call(&runtime, &base, "eth_getBalance", json!([sender, format!("{at:#x}")]));
        let balance: w3api_types::U256 = serde_json::from_value(balance["result"].clone()).unwrap();
        assert_eq!(native(&now), Some(balance.to_string()), "{sender} at block {at}");
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

/// The scenario file of the testing page.
fn book_scenario() -> String {
    let section = crate::book::section("testing.md", "scenario");
    crate::book::blocks(&section, "yaml").into_iter().next().expect("a yaml block")
}

#[test]
fn the_book_scenario_runs_as_shown() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("world.yaml");
    std::fs::write(&file, book_scenario()).unwrap();
    let mut server = Server::start(&["--api-key", "k", "--scenario", file.to_str().unwrap()], &[]);
    let applied = line_starting(&mut server, "scenario ");
    assert!(applied.ends_with("world.yaml: 9 steps applied"), "{applied}");
    let mut names = std::collections::BTreeMap::new();
    for _ in 0..4 {
        let line = server.line();
        let (name, address) = line.trim().rsplit_once(' ').unwrap();
        names.insert(name.to_string(), address.to_string());
    }
    assert_eq!(names.keys().collect::<Vec<_>>(), ["GOOD", "JUNK", "Test Badges", "alice"]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let alice = &names["alice"];
    let tokens = get(&runtime, &server.base, &format!("/api/v2.2/wallets/{alice}/tokens?chain=eth")).json();
    let held: Vec<(String, String, bool)> = tokens["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["symbol"].as_str().unwrap().into(),
                t["balance_formatted"].as_str().unwrap().into(),
                t["possible_spam"] == true,
            )
        })
        .collect();
    assert_eq!(held.len(), 3, "{held:?}");
    assert!(held.contains(&("GOOD".into(), "1500".into(), false)), "{held:?}");
    assert!(held.contains(&("JUNK".into(), "1000000".into(), true)), "{held:?}");
    let good = tokens["result"].as_array().unwrap().iter().find(|t| t["symbol"] == "GOOD").unwrap();
    assert!((good["usd_value"].as_f64().unwrap() - 4500.0).abs() < 1e-6, "{good}");
    let unspammed =
        get(&runtime, &server.base, &format!("/api/v2.2/wallets/{alice}/tokens?chain=eth&exclude_spam=true"));
    assert_eq!(unspammed.json()["result"].as_array().unwrap().len(), 2);
    let nfts = get(&runtime, &server.base, &format!("/api/v2.2/{alice}/nft?chain=eth&normalizeMetadata=true")).json();
    let nft = &nfts["result"][0];
    assert_eq!(nft["normalized_metadata"]["name"], "Gold Badge", "{nfts}");
    assert_eq!(nft["normalized_metadata"]["attributes"][0]["trait_type"], "Metal", "{nfts}");
}

#[test]
fn a_bad_scenario_file_stops_the_server_naming_the_line_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "steps:\n  - wallet: { name: alice }\n  - mint:\n      token: GOOD\n      too: alice\n",
            "line 5: steps[1].mint.too: unknown field `too`",
        ),
        (
            "steps:\n  - wallet: { name: alice }\n  - mint: { token: GOOD, to: alice, amount: 1 }\n",
            "step 2 (line 3): mint: no token of the scenario is named \"GOOD\"",
        ),
    ];
    for (text, says) in cases {
        let file = dir.path().join("bad.yaml");
        std::fs::write(&file, text).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
            .args(["serve", "--listen", "127.0.0.1:0", "--scale", "tiny", "--scenario", file.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}");
        assert!(stderr.contains(says), "{says} in: {stderr}");
        assert!(stderr.contains("bad.yaml"), "names the file: {stderr}");
    }
}

/// The streams page's walk-through: the receiver (Python) and the curl that
/// creates the stream.
fn book_streams() -> (String, String) {
    let section = crate::book::section("streams.md", "streams");
    let python = crate::book::blocks(&section, "python").into_iter().next().expect("a python block");
    let shell = crate::book::blocks(&section, "sh").into_iter().next().expect("a sh block");
    let curl = &shell[shell.find("curl ").expect("the curl that creates the stream")..];
    let curl = &curl[..curl.find("}]}]}'").expect("the end of the stream's body") + "}]}]}'".len()];
    (python, curl.to_string())
}

/// A Python that has pycryptodome's keccak (CI's venv has it).
fn python_with_keccak() -> Option<String> {
    let venv = w3api_spec_check::repository_root().join("target/ci/venv/bin/python");
    [venv.to_string_lossy().into_owned(), "python3".to_string()].into_iter().find(|python| {
        std::process::Command::new(python)
            .args(["-c", "from Crypto.Hash import keccak"])
            .output()
            .is_ok_and(|out| out.status.success())
    })
}

#[test]
fn the_book_streams_walkthrough_runs_as_shown() {
    let Some(python) = python_with_keccak() else {
        assert!(std::env::var_os("CI").is_none(), "CI has pycryptodome in target/ci/venv (installed by .ci/run)");
        eprintln!("skipping the book's streams walk-through: no Python with pycryptodome (pip install pycryptodome)");
        return;
    };
    let (receiver, curl) = book_streams();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("receiver.py");
    std::fs::write(&script, receiver.replace("8081", &port.to_string())).unwrap();
    let server =
        Server::start(&["--scale", "tiny", "--api-key", "dev-key", "--block-time", "1s", "--confirmations", "3"], &[]);
    let mut receiver = std::process::Command::new(&python)
        .arg(&script)
        .env("W3API_API_KEY", "dev-key")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the receiver starts");
    let printed = crate::serve::lines(receiver.stdout.take().unwrap());
    std::thread::sleep(Duration::from_millis(500));
    let created = std::process::Command::new("bash")
        .args(["-c", &curl.replace("8081", &port.to_string())])
        .env("URL", &server.base)
        .env("W3API_API_KEY", "dev-key")
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&created.stdout).unwrap_or(Value::Null);
    assert_eq!(answer["status"], "active", "{}", String::from_utf8_lossy(&created.stdout));
    let started = Instant::now();
    let (mut test, mut unconfirmed, mut confirmed) = (false, false, false);
    while !(test && unconfirmed && confirmed) && started.elapsed() < Duration::from_secs(40) {
        let Ok(line) = printed.recv_timeout(Duration::from_secs(1)) else { continue };
        assert!(line.starts_with("verified "), "every request verifies: {line}");
        test |= line.starts_with(r#"verified {"confirmed":true,"chainId":"""#);
        unconfirmed |= line.starts_with(r#"verified {"confirmed":false,"chainId":"0x1""#);
        confirmed |= line.starts_with(r#"verified {"confirmed":true,"chainId":"0x1""#);
    }
    let _ = receiver.kill();
    let _ = receiver.wait();
    assert!(
        test && unconfirmed && confirmed,
        "the test webhook, then blocks both ways ({test}, {unconfirmed}, {confirmed})"
    );
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let page = runtime.block_on(async {
        w3api_tests::http_client().get(format!("{}/dashboard", server.base)).send().await.unwrap().text().await.unwrap()
    });
    assert!(
        page.contains("<html") || page.contains("<!doctype html") || page.contains("<!DOCTYPE html"),
        "the deliveries page"
    );
}
