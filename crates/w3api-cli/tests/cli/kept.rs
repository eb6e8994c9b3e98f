//! What users do to the devnet is kept where the server's state is: a
//! server killed with SIGKILL and started again on its data directory
//! serves the same chain, and replicas on one PostgreSQL database serve
//! one chain between them, whichever a request reaches. Skipped, with the
//! reason printed, when the environment names no database (see
//! `w3api_store::testing`).
#![cfg(unix)]

use serde_json::{Value, json};

use crate::serve::{Server, database, line_starting, runtime};

const DEPLOYER: &str = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const SECOND: &str = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
/// Init code that deploys a contract answering 42 to any call.
const ANSWERS_42: &str = "0x600a600c600039600a6000f3602a60005260206000f3";

/// The result of a JSON-RPC call on eth with the key `k`; an error fails the test, naming it.
pub(crate) async fn rpc(base: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&body).send().await.unwrap();
    let answer: Value = response.json().await.unwrap();
    match answer.get("result") {
        Some(result) => result.clone(),
        None => panic!("{method} {params}: {answer}"),
    }
}

fn quantity(value: &Value) -> u64 {
    serde_json::from_value::<w3api_types::rpc::Uint64>(value.clone()).expect("a hex quantity").0
}

/// Deploys a contract, sends, cheats and shapes the chain through `base`;
/// returns the contract's address and the token created.
async fn shape(base: &str) -> (String, String) {
    rpc(base, "eth_sendTransaction", json!([{"from": DEPLOYER, "data": ANSWERS_42}])).await;
    let receipt_of = |hash: Value| async move { rpc(base, "eth_getTransactionReceipt", json!([hash])).await };
    let sent = rpc(base, "eth_sendTransaction", json!([{"from": DEPLOYER, "to": SECOND, "value": "0x1234"}])).await;
    assert_eq!(receipt_of(sent).await["status"], "0x1");
    let contract = format!("{:#x}", DEPLOYER.parse::<alloy_primitives::Address>().unwrap().create(0));
    let snapshot = rpc(base, "evm_snapshot", json!([])).await;
    rpc(base, "anvil_mine", json!(["0x5", "0x3c"])).await;
    assert_eq!(rpc(base, "evm_revert", json!([snapshot])).await, true);
    rpc(base, "anvil_setStorageAt", json!([contract, "0x7", format!("0x{}", "09".repeat(32))])).await;
    rpc(base, "anvil_setBalance", json!([SECOND, "0xde0b6b3a7640000"])).await;
    rpc(base, "evm_increaseTime", json!(["0xe10"])).await;
    rpc(base, "evm_mine", json!([])).await;
    let token =
        rpc(base, "w3api_createToken", json!([{"name": "Kept", "symbol": "KEPT", "decimals": 6, "usdPrice": 2.5}]));
    let token = token.await.as_str().unwrap().to_string();
    rpc(base, "w3api_mintToken", json!([token, DEPLOYER, "0xf4240"])).await;
    (contract, token)
}

/// What a restart must give back: blocks, code, storage, balances, nonces
/// and the Data API's answers.
async fn seen(base: &str, contract: &str) -> Vec<Value> {
    let latest = quantity(&rpc(base, "eth_blockNumber", json!([])).await);
    let mut seen = Vec::new();
    for number in latest - 10..=latest {
        seen.push(rpc(base, "eth_getBlockByNumber", json!([format!("{number:#x}"), true])).await);
    }
    seen.push(rpc(base, "eth_getCode", json!([contract, "latest"])).await);
    seen.push(rpc(base, "eth_call", json!([{"to": contract}, "latest"])).await);
    seen.push(rpc(base, "eth_getStorageAt", json!([contract, "0x7", "latest"])).await);
    for who in [DEPLOYER, SECOND] {
        seen.push(rpc(base, "eth_getBalance", json!([who, "latest"])).await);
        seen.push(rpc(base, "eth_getTransactionCount", json!([who, "latest"])).await);
    }
    let tokens = w3api_tests::http_client()
        .get(format!("{base}/api/v2.2/wallets/{DEPLOYER}/tokens?chain=eth"))
        .header("X-API-Key", "k")
        .send()
        .await
        .unwrap();
    seen.push(tokens.json().await.unwrap());
    seen
}

#[test]
fn a_chain_outlives_sigkill_on_its_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--scale", "tiny", "--api-key", "k", "--data-dir", dir.path().to_str().unwrap()];
    let runtime = runtime();
    let server = Server::start(&args, &[]);
    let (contract, token) = runtime.block_on(shape(&server.base));
    let before = runtime.block_on(seen(&server.base, &contract));
    assert_ne!(before[11], "0x", "the contract has code");
    assert!(
        before.last().unwrap().to_string().contains(&token),
        "the wallet holds the token: {}",
        before.last().unwrap()
    );
    // SIGKILL: nothing of a graceful stop runs.
    drop(server);

    let mut again = Server::start(&args, &[]);
    let restored = line_starting(&mut again, "chain eth:");
    assert!(restored.contains("kept changes made again"), "{restored}");
    assert_eq!(runtime.block_on(seen(&again.base, &contract)), before, "the same chain after SIGKILL");
    // The server goes on from there.
    let sent = runtime.block_on(rpc(&again.base, "eth_sendTransaction", json!([{"from": DEPLOYER, "to": SECOND}])));
    assert!(sent.is_string(), "{sent}");

    // A server on another seed refuses the directory, naming why.
    drop(again);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0", "--seed", "9"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("another seed") && stderr.contains("--seed"), "{stderr}");
}

fn replica(url: &str) -> Server {
    Server::start(&["--scale", "tiny", "--api-key", "k", "--database", url], &[])
}

#[test]
fn replicas_on_one_database_serve_one_chain() {
    let Some(url) = database("the shared-chain tests") else { return };
    let runtime = runtime();
    let (a, b) = (replica(&url), replica(&url));
    // Written through A, read through B at once, over the gateway and the Data API.
    let (contract, token) = runtime.block_on(shape(&a.base));
    assert_eq!(runtime.block_on(seen(&b.base, &contract)), runtime.block_on(seen(&a.base, &contract)));
    for _ in 0..5 {
        let hash = runtime.block_on(rpc(&a.base, "eth_sendTransaction", json!([{"from": DEPLOYER, "to": SECOND}])));
        let receipt = runtime.block_on(rpc(&b.base, "eth_getTransactionReceipt", json!([hash])));
        assert_eq!(receipt["status"], "0x1", "B reads A's write at once: {receipt}");
        // And the other way about: B writes on top of A's chain.
        let wallet = runtime.block_on(rpc(&b.base, "w3api_mintToken", json!([token, SECOND, "0x10"])));
        assert_eq!(wallet, Value::Null);
    }
    let holdings = runtime.block_on(async {
        let tokens = w3api_tests::http_client()
            .get(format!("{}/api/v2.2/wallets/{SECOND}/tokens?chain=eth", a.base))
            .header("X-API-Key", "k")
            .send()
            .await
            .unwrap();
        tokens.json::<Value>().await.unwrap()
    });
    let minted =
        holdings["result"].as_array().unwrap().iter().find(|holding| holding["token_address"] == token.as_str());
    assert_eq!(minted.map(|holding| holding["balance"].clone()), Some(json!("80")), "A sees B's mints: {holdings}");
    // Snapshots are the chain's: taken on one, reverted on the other.
    let snapshot = runtime.block_on(rpc(&a.base, "evm_snapshot", json!([])));
    let head = runtime.block_on(rpc(&a.base, "eth_blockNumber", json!([])));
    runtime.block_on(rpc(&a.base, "anvil_mine", json!(["0x3"])));
    assert_eq!(runtime.block_on(rpc(&b.base, "evm_revert", json!([snapshot]))), true);
    assert_eq!(runtime.block_on(rpc(&a.base, "eth_blockNumber", json!([]))), head);
}

#[test]
fn killing_the_writer_mid_sends_loses_nothing_acknowledged_and_mines_nothing_twice() {
    let Some(url) = database("the shared-chain tests") else { return };
    let runtime = runtime();
    let (a, b) = (replica(&url), replica(&url));
    let (a_base, b_base) = (a.base.clone(), b.base.clone());
    // Two senders, one through each replica, each from its own account;
    // A dies with sends in flight, and its sender moves to B.
    let sender = |first: String, then: String, from: &'static str| {
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let mut acknowledged = Vec::new();
            let started = std::time::Instant::now();
            while started.elapsed() < std::time::Duration::from_secs(6) {
                let base = if started.elapsed() < std::time::Duration::from_secs(2) { &first } else { &then };
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_sendTransaction",
                    "params": [{"from": from, "to": SECOND, "value": "0x1"}]});
                let sent = runtime.block_on(async {
                    let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&body).send().await;
                    match response {
                        Ok(response) => response.json::<Value>().await.ok(),
                        Err(_) => None,
                    }
                });
                if let Some(hash) = sent.and_then(|answer| answer.get("result").cloned()) {
                    acknowledged.push(hash.as_str().unwrap().to_string());
                }
            }
            acknowledged
        })
    };
    let through_a = sender(a_base.clone(), b_base.clone(), DEPLOYER);
    let through_b = sender(b_base.clone(), b_base.clone(), SECOND);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(a); // SIGKILL, sends in flight
    let acknowledged = [through_a.join().unwrap(), through_b.join().unwrap()];
    assert!(acknowledged.iter().all(|sent| sent.len() > 10), "both senders were answered: {acknowledged:?}");

    // Every acknowledged send is in exactly one block, each sender's in nonce order.
    let latest = quantity(&runtime.block_on(rpc(&b_base, "eth_blockNumber", json!([]))));
    let mut mined: Vec<(String, String, u64)> = Vec::new();
    let first = latest.saturating_sub(acknowledged.iter().map(Vec::len).sum::<usize>() as u64 + 20);
    for number in first..=latest {
        let block = runtime.block_on(rpc(&b_base, "eth_getBlockByNumber", json!([format!("{number:#x}"), true])));
        for tx in block["transactions"].as_array().unwrap() {
            let from = tx["from"].as_str().unwrap().to_lowercase();
            if from == DEPLOYER || from == SECOND {
                mined.push((from, tx["hash"].as_str().unwrap().to_string(), quantity(&tx["nonce"])));
            }
        }
    }
    for (from, sent) in [DEPLOYER, SECOND].iter().zip(&acknowledged) {
        let own: Vec<&(String, String, u64)> = mined.iter().filter(|(by, _, _)| by == from).collect();
        let nonces: Vec<u64> = own.iter().map(|(_, _, nonce)| *nonce).collect();
        assert!(
            nonces.windows(2).all(|pair| pair[1] == pair[0] + 1),
            "{from}: nonces in order, none twice: {nonces:?}"
        );
        for hash in sent {
            let times = own.iter().filter(|(_, mined, _)| mined == hash).count();
            assert_eq!(times, 1, "{from}: acknowledged {hash} is mined once");
        }
    }
    // A replica started now replays the same chain.
    let c = replica(&url);
    let head =
        |base: &str| runtime.block_on(rpc(base, "eth_getBlockByNumber", json!(["latest", false])))["hash"].clone();
    assert_eq!(head(&c.base), head(&b_base));
}

/// The JSON-RPC error of a call that must fail.
async fn rpc_error(base: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&body).send().await.unwrap();
    let answer: Value = response.json().await.unwrap();
    answer.get("error").cloned().unwrap_or_else(|| panic!("{method} {params} succeeded: {answer}"))
}

#[test]
fn a_dumped_state_loads_into_a_fresh_server_as_the_same_chain() {
    let runtime = runtime();
    let args = ["--scale", "tiny", "--api-key", "k"];
    let first = Server::start(&args, &[]);
    let (contract, _) = runtime.block_on(shape(&first.base));
    let dumped = runtime.block_on(rpc(&first.base, "anvil_dumpState", json!([])));
    let before = runtime.block_on(seen(&first.base, &contract));

    let fresh = Server::start(&args, &[]);
    assert_eq!(runtime.block_on(rpc(&fresh.base, "anvil_loadState", json!([dumped]))), true);
    assert_eq!(runtime.block_on(seen(&fresh.base, &contract)), before, "the same chain, loaded");
    // Loaded, it is kept as any change is: dumped again, it loads again.
    let again = runtime.block_on(rpc(&fresh.base, "anvil_dumpState", json!([true])));
    let third = Server::start(&args, &[]);
    assert_eq!(runtime.block_on(rpc(&third.base, "anvil_loadState", json!([again]))), true);
    assert_eq!(runtime.block_on(seen(&third.base, &contract)), before, "a dump of a loaded chain");

    // What cannot be loaded is refused, naming why, and changes nothing.
    let other_seed = Server::start(&["--seed", "5", "--scale", "tiny", "--api-key", "k"], &[]);
    let head =
        runtime.block_on(rpc(&other_seed.base, "eth_getBlockByNumber", json!(["latest", false])))["hash"].clone();
    let refused = runtime.block_on(rpc_error(&other_seed.base, "anvil_loadState", json!([dumped])));
    assert_eq!(refused["code"], -32602, "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("--seed"), "{refused}");
    let after =
        runtime.block_on(rpc(&other_seed.base, "eth_getBlockByNumber", json!(["latest", false])))["hash"].clone();
    assert_eq!(after, head, "a refused load changes nothing");
    let garbage = runtime.block_on(rpc_error(&fresh.base, "anvil_loadState", json!(["0x1234"])));
    assert!(garbage["message"].as_str().unwrap().contains("state: not a dump"), "{garbage}");
}

#[test]
fn resets_take_the_options_tools_send_and_refuse_a_fork() {
    let runtime = runtime();
    let server = Server::start(&["--scale", "tiny", "--api-key", "k"], &[]);
    let seed_head =
        runtime.block_on(rpc(&server.base, "eth_getBlockByNumber", json!(["latest", false])))["hash"].clone();
    let head = || runtime.block_on(rpc(&server.base, "eth_getBlockByNumber", json!(["latest", false])))["hash"].clone();
    // viem's reset() sends a forking object with empty fields; Hardhat's scripts send nothing.
    for (method, params, answer) in [
        ("anvil_reset", json!([{"forking": {"blockNumber": null}}]), Value::Null),
        ("hardhat_reset", json!([]), json!(true)),
        ("hardhat_reset", json!([{}]), json!(true)),
    ] {
        runtime.block_on(rpc(&server.base, "evm_mine", json!([])));
        assert_ne!(head(), seed_head);
        assert_eq!(runtime.block_on(rpc(&server.base, method, params.clone())), answer, "{method} {params}");
        assert_eq!(head(), seed_head, "{method} {params}: the seed's chain again");
    }
    let fork = json!([{"forking": {"jsonRpcUrl": "http://127.0.0.1:8545", "blockNumber": 5}}]);
    let refused = runtime.block_on(rpc_error(&server.base, "hardhat_reset", fork));
    assert!(refused["message"].as_str().unwrap().contains("does not fork"), "{refused}");
    let at_block = runtime.block_on(rpc_error(&server.base, "anvil_reset", json!([{"forking": {"blockNumber": 5}}])));
    assert!(at_block["message"].as_str().unwrap().contains("forking.blockNumber"), "{at_block}");
}

#[test]
fn the_state_file_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state.json");
    let args = ["--scale", "tiny", "--api-key", "k", "--state", file.to_str().unwrap()];
    let runtime = runtime();
    let mut first = Server::start(&args, &[]);
    let prefix = format!("state {}:", file.display());
    let none = line_starting(&mut first, &prefix);
    assert!(none.contains("none yet"), "{none}");
    let (contract, _) = runtime.block_on(shape(&first.base));
    let before = runtime.block_on(seen(&first.base, &contract));
    let (stopped, stderr) = first.terminate();
    assert!(stopped, "{stderr}");
    assert!(file.exists(), "written when the server stopped");

    let mut again = Server::start(&args, &[]);
    let loaded = line_starting(&mut again, &prefix);
    assert!(loaded.contains("loaded chains eth"), "{loaded}");
    assert_eq!(runtime.block_on(seen(&again.base, &contract)), before, "the same chain from the state file");
}

#[test]
fn replicas_with_a_block_time_make_one_block_a_tick_between_them() {
    let Some(url) = database("the shared-chain tests") else { return };
    let runtime = runtime();
    let args = ["--scale", "tiny", "--api-key", "k", "--database", &url, "--block-time", "1s"];
    let (a, b) = (Server::start(&args, &[]), Server::start(&args, &[]));
    let number = |base: &str| quantity(&runtime.block_on(rpc(base, "eth_blockNumber", json!([]))));
    let first = number(&a.base);
    let started = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_secs(6));
    let made = number(&b.base) - first;
    let elapsed = started.elapsed().as_secs_f64();
    // Each replica making its own would be two a second.
    assert!((elapsed - 2.0..=elapsed + 1.0).contains(&(made as f64)), "{made} blocks in {elapsed:.1} s");
    let head = |base: &str| runtime.block_on(rpc(base, "eth_getBlockByNumber", json!(["latest", false])));
    let (on_a, on_b) = (head(&a.base), head(&b.base));
    let same = quantity(&on_a["number"]).min(quantity(&on_b["number"]));
    let at = |base: &str| runtime.block_on(rpc(base, "eth_getBlockByNumber", json!([format!("{same:#x}"), false])));
    assert_eq!(at(&a.base)["hash"], at(&b.base)["hash"], "one chain: the same block {same} on both");
}

/// `tests/fixtures/execution-apis/`, where the conformance cases' genesis is.
/// The whole answer to a JSON-RPC call with the key `k` on the execution
/// clients' suite's chain (0xc72dd9d5e883e), served from its genesis.
async fn suite_chain_call(base: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = w3api_tests::http_client().post(format!("{base}/0xc72dd9d5e883e/k")).json(&body).send();
    response.await.unwrap().json::<Value>().await.unwrap()
}

fn execution_apis() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/execution-apis")
}

#[test]
fn a_chain_from_a_genesis_has_the_genesis_block_geth_makes_and_is_kept_on_top_of_it() {
    let genesis = execution_apis().join("genesis.json");
    let case = std::fs::read_to_string(execution_apis().join("eth_getBlockByNumber/get-genesis.io")).unwrap();
    let expected: Value =
        case.lines().find_map(|line| line.strip_prefix("<< ")).map(serde_json::from_str).unwrap().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = ["--scale", "tiny", "--api-key", "k", "--data-dir", dir.path().to_str().unwrap()];
    let args = [&data[..], &["--init", genesis.to_str().unwrap()]].concat();
    let runtime = runtime();
    let mut server = Server::start(&args, &[]);
    let from = line_starting(&mut server, "chain 0xc72dd9d5e883e:");
    assert!(from.contains("starts from the genesis"), "{from}");
    let call = |base: &str, method: &str, params: Value| runtime.block_on(suite_chain_call(base, method, params));
    // Block 0, field for field, as the execution clients' suite has it.
    let block = call(&server.base, "eth_getBlockByNumber", json!(["0x0", true]));
    assert_eq!(block["result"], expected["result"], "{block}");
    assert_eq!(call(&server.base, "eth_chainId", json!([]))["result"], "0xc72dd9d5e883e");
    // The alloc's accounts, code included.
    let system = "0x00000961ef480eb55e80d19ad83579a64c007002";
    assert_eq!(call(&server.base, "eth_getBalance", json!([system, "0x0"]))["result"], "0x1");
    let code = call(&server.base, "eth_getCode", json!([system, "latest"]));
    assert!(code["result"].as_str().unwrap().starts_with("0x3373ffff"), "{code}");
    // Changes on top of it are kept, and replayed on it after SIGKILL.
    call(&server.base, "anvil_setBalance", json!([DEPLOYER, "0xde0b6b3a7640000"]));
    let sent = call(&server.base, "eth_sendTransaction", json!([{"from": DEPLOYER, "to": SECOND, "value": "0x1234"}]));
    assert!(sent["result"].is_string(), "{sent}");
    let head = call(&server.base, "eth_getBlockByNumber", json!(["latest", false]))["result"].clone();
    drop(server);
    let again = Server::start(&args, &[]);
    assert_eq!(call(&again.base, "eth_getBlockByNumber", json!(["latest", false]))["result"], head);
    assert_eq!(call(&again.base, "eth_getBalance", json!([SECOND, "latest"]))["result"], "0x1234");
    drop(again);
    // Without --init, the kept chain is not the seed's: refused, naming it.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--init"), "{stderr}");
}

#[test]
fn an_imported_chain_is_served_from_its_head_and_a_tampered_one_stops_the_start_naming_block_and_field() {
    let genesis = execution_apis().join("genesis.json");
    let chain = execution_apis().join("chain.rlp");
    let args = ["--scale", "tiny", "--api-key", "k", "--init", genesis.to_str().unwrap()];
    fn with_chain<'a>(args: &[&'a str], path: &'a std::path::Path) -> Vec<&'a str> {
        [args, &["--import", path.to_str().unwrap()]].concat()
    }
    let runtime = runtime();
    let mut server = Server::start(&with_chain(&args, &chain), &[]);
    let from = line_starting(&mut server, "chain 0xc72dd9d5e883e:");
    assert!(from.contains("starts from the genesis"), "{from}");
    let imported = line_starting(&mut server, "chain 0xc72dd9d5e883e:");
    assert!(imported.contains("chain.rlp imported in"), "{imported}");
    let block = |number: &str| {
        let answer = runtime.block_on(suite_chain_call(&server.base, "eth_getBlockByNumber", json!([number, false])));
        answer["result"].clone()
    };
    let head = block("latest");
    assert_eq!(head["number"], "0x36", "{head}");
    assert_eq!(head["hash"], "0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7");
    // The Data API answers for the chain by its hex id: the native row is the account's balance.
    let full = runtime.block_on(suite_chain_call(&server.base, "eth_getBlockByNumber", json!(["latest", true])));
    let sender = full["result"]["transactions"][0]["from"].as_str().unwrap().to_owned();
    let url = format!("{}/api/v2.2/wallets/{sender}/tokens?chain=0xc72dd9d5e883e&to_block=54", server.base);
    let tokens: Value = runtime.block_on(async {
        let response = w3api_tests::http_client().get(url).header("x-api-key", "k").send().await.unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    });
    let balance = runtime.block_on(suite_chain_call(&server.base, "eth_getBalance", json!([sender, "0x36"])));
    let native = tokens["result"].as_array().unwrap().iter().find(|row| row["native_token"] == true).cloned();
    let native = native.unwrap_or_else(|| panic!("a native row: {tokens}"));
    let wei = u128::from_str_radix(balance["result"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert_eq!(native["balance"], wei.to_string(), "{tokens}");
    // One byte of block 20's receipts root changed.
    let root = block("0x14")["receiptsRoot"].as_str().unwrap().to_owned();
    drop(server);
    let root: Vec<u8> =
        (2..root.len()).step_by(2).map(|at| u8::from_str_radix(&root[at..at + 2], 16).unwrap()).collect();
    let mut bytes = std::fs::read(&chain).unwrap();
    let at = bytes.windows(32).position(|window| window == root.as_slice()).unwrap();
    bytes[at + 31] ^= 1;
    let dir = tempfile::tempdir().unwrap();
    let tampered = dir.path().join("chain.rlp");
    std::fs::write(&tampered, bytes).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(with_chain(&args, &tampered))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("--import") && stderr.contains("block 20 (0x") && stderr.contains("receiptsRoot"),
        "{stderr}"
    );
    // --import continues the chain of --init, and needs it.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0", "--import", chain.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--init"), "{stderr}");
}

#[test]
fn changes_on_an_imported_chain_are_kept_on_top_of_it_and_refused_without_the_import() {
    let genesis = execution_apis().join("genesis.json");
    let chain = execution_apis().join("chain.rlp");
    let dir = tempfile::tempdir().unwrap();
    let data = ["--scale", "tiny", "--api-key", "k", "--data-dir", dir.path().to_str().unwrap()];
    let init = [&data[..], &["--init", genesis.to_str().unwrap()]].concat();
    let imported = [&init[..], &["--import", chain.to_str().unwrap()]].concat();
    let runtime = runtime();
    let call = |base: &str, method: &str, params: Value| runtime.block_on(suite_chain_call(base, method, params));
    let server = Server::start(&imported, &[]);
    call(&server.base, "anvil_setBalance", json!([DEPLOYER, "0xde0b6b3a7640000"]));
    let sent = call(&server.base, "eth_sendTransaction", json!([{"from": DEPLOYER, "to": SECOND, "value": "0x1234"}]));
    assert!(sent["result"].is_string(), "{sent}");
    let head = call(&server.base, "eth_getBlockByNumber", json!(["latest", false]))["result"].clone();
    assert_eq!(head["number"], "0x38", "the imported 54 blocks, a balance set and a transaction: {head}");
    drop(server);
    // Started again on the same data with the same import: the same chain.
    let again = Server::start(&imported, &[]);
    assert_eq!(call(&again.base, "eth_getBlockByNumber", json!(["latest", false]))["result"], head);
    assert_eq!(call(&again.base, "eth_getBalance", json!([SECOND, "latest"]))["result"], "0x1234");
    drop(again);
    // The genesis alone makes another chain than the one kept: refused, naming what to pass.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(&init)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--import"), "{stderr}");
}
