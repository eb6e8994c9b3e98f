//! One request must never stop the server: calls that loop for ever end
//! at the gas cap or the time budget with geth's errors, run where they
//! starve nothing else, and stop when their client hangs up; log filters
//! are as large as geth takes, and as many as a key may keep.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use w3api_devnet::{ExecutionLimits, Scale, dev_addresses};
use w3api_server::ServerConfig;
use w3api_tests::local::{Local, Session, Setup};

/// Init code returning the runtime `0x5b600056`: JUMPDEST PUSH1 0 JUMP, a
/// loop that ends only when the gas does.
const LOOP_INIT: &str = "0x635b6000566000526004601cf3";
const LOOP_RUNTIME: &str = "0x5b600056";
/// 2^63, as the probe asked.
const HUGE_GAS: &str = "0x8000000000000000";

/// A server on the tiny devnet whose calls run within `limits` and `timeout`.
fn server(limits: ExecutionLimits, timeout: Duration) -> Local {
    Setup::new()
        .scale(Scale::TINY)
        .config(move |config| ServerConfig { evm_timeout: timeout, ..config })
        .source(move |devnet| devnet.with_execution_limits(limits))
        .start()
}

/// Deploys the looping contract from the first dev account; its address.
fn deploy_loop(session: &Session<'_>) -> Value {
    let from = format!("{:#x}", dev_addresses().next().unwrap());
    let hash = session.call("eth_sendTransaction", json!([{"from": from, "data": LOOP_INIT}]));
    let receipt = session.call("eth_getTransactionReceipt", json!([hash]));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    let address = receipt["contractAddress"].clone();
    assert_eq!(session.call("eth_getCode", json!([address, "latest"])), LOOP_RUNTIME);
    address
}

fn looping_call(to: &Value, gas: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": to, "gas": gas}, "latest"]})
}

/// The error of a raw JSON-RPC call, and how long it took.
fn timed_error(session: &Session<'_>, call: &Value) -> (Value, Duration) {
    let started = Instant::now();
    let answer = session.post_rpc("eth", call);
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.text);
    (answer.body.get("error").unwrap_or_else(|| panic!("expected an error: {}", answer.text)).clone(), took)
}

#[test]
fn a_call_asking_for_any_gas_runs_at_the_cap_and_ends_out_of_gas() {
    // A budget the cap ends first even on a loaded machine in a debug
    // build (50,000,000 gas of this loop is some 14 million steps).
    let budget = Duration::from_secs(30);
    let local = server(ExecutionLimits::default(), budget);
    let session = local.session();
    let looping = deploy_loop(&session);
    for gas in [HUGE_GAS, "0xffffffffffffffff"] {
        let (error, took) = timed_error(&session, &looping_call(&looping, gas));
        assert_eq!(error["message"], "out of gas", "gas {gas}: {error}");
        assert!(took < budget, "gas {gas}: ended by the cap, within the budget: {took:?}");
    }
    // The same loop as override code, with nothing deployed there.
    let elsewhere = "0x00000000000000000000000000000000000c0de1";
    let overridden = json!({"jsonrpc": "2.0", "id": 2, "method": "eth_call", "params": [
        {"to": elsewhere, "gas": HUGE_GAS}, "latest", {elsewhere: {"code": LOOP_RUNTIME}}]});
    let (error, _) = timed_error(&session, &overridden);
    assert_eq!(error["message"], "out of gas", "{error}");
    // geth's estimate with all the gas there is failing for want of gas.
    let estimate = session.call_error("eth_estimateGas", json!([{"to": looping, "gas": HUGE_GAS}]));
    assert_eq!(estimate["message"], format!("gas required exceeds allowance ({})", w3api_devnet::DEFAULT_GAS_CAP));
    session.finish();
}

#[test]
fn a_call_past_the_budget_is_stopped_and_a_batch_shares_one_budget() {
    let uncapped = ExecutionLimits { gas_cap: u64::MAX, ..ExecutionLimits::default() };
    let local = server(uncapped, Duration::from_millis(300));
    let session = local.session();
    let looping = deploy_loop(&session);
    let (error, took) = timed_error(&session, &looping_call(&looping, HUGE_GAS));
    assert_eq!(error["code"], -32000, "{error}");
    assert_eq!(error["message"], "execution aborted (timeout = 300ms)", "{error}");
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3), "stopped at the budget: {took:?}");

    let estimate = session.call_error("eth_estimateGas", json!([{"to": looping, "gas": HUGE_GAS}]));
    assert_eq!(estimate["message"], "execution aborted (timeout = 300ms)", "{estimate}");

    // Ten looping calls in one batch take the budget once between them.
    let batch: Vec<Value> = (0..10)
        .map(|id| {
            let mut call = looping_call(&looping, HUGE_GAS);
            call["id"] = json!(id);
            call
        })
        .collect();
    let started = Instant::now();
    let answer = session.post_rpc("eth", &Value::Array(batch));
    let took = started.elapsed();
    let answers = answer.body.as_array().unwrap_or_else(|| panic!("a batch answer: {}", answer.text));
    assert_eq!(answers.len(), 10);
    for answer in answers {
        assert_eq!(answer["error"]["message"], "execution aborted (timeout = 300ms)", "{answer}");
    }
    assert!(took < Duration::from_secs(3), "the batch took one budget, not ten: {took:?}");
    // The server is whole afterwards.
    assert!(session.call("eth_blockNumber", json!([])).is_string());
    session.finish();
}

/// The 99th percentile of `samples`.
fn p99(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[(samples.len() * 99).div_ceil(100) - 1]
}

#[test]
fn looping_calls_on_every_slot_do_not_delay_health_or_another_chain() {
    let uncapped = ExecutionLimits { gas_cap: u64::MAX, ..ExecutionLimits::default() };
    let local = server(uncapped, Duration::from_secs(4));
    let session = local.session();
    let looping = deploy_loop(&session);
    // Generated first, so that what is measured is a read, not generation.
    let polygon = json!({"jsonrpc": "2.0", "id": 3, "method": "eth_blockNumber", "params": []});
    assert_eq!(session.post_rpc("polygon", &polygon).status, 200);

    let url = format!("{}/eth/{}", local.base(), session.key());
    let loops: Vec<_> = (0..8)
        .map(|_| {
            let (url, body) = (url.clone(), looping_call(&looping, HUGE_GAS));
            local.spawn(async move { w3api_tests::http_client().post(url).json(&body).send().await })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (mut health, mut other_chain) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let started = Instant::now();
        assert_eq!(session.send(|c| c.get(format!("{}/health", local.base()))).status, 200);
        health.push(started.elapsed());
        let started = Instant::now();
        assert_eq!(session.post_rpc("polygon", &polygon).status, 200);
        other_chain.push(started.elapsed());
    }
    assert!(loops.iter().all(|call| !call.is_finished()), "the looping calls were still running throughout");
    let (health, other_chain) = (p99(health), p99(other_chain));
    assert!(health < Duration::from_millis(100), "GET /health p99 {health:?}");
    assert!(other_chain < Duration::from_millis(100), "eth_blockNumber on polygon p99 {other_chain:?}");
    for call in loops {
        let answer = local.run(call).unwrap().unwrap();
        let body: Value = local.run(answer.json()).unwrap();
        assert_eq!(body["error"]["message"], "execution aborted (timeout = 4s)", "{body}");
    }
}

#[test]
fn a_client_that_hangs_up_frees_its_slot_at_once() {
    // One slot, and a budget far longer than the test: only the hang-up can free it.
    let limits = ExecutionLimits { gas_cap: u64::MAX, slots: 1, queue: 8 };
    let local = server(limits, Duration::from_secs(120));
    let session = local.session();
    let looping = deploy_loop(&session);
    let url = format!("{}/eth/{}", local.base(), session.key());
    let body = looping_call(&looping, HUGE_GAS);
    let hung_up = local.spawn(async move {
        let client = w3api_tests::http_client();
        tokio::time::timeout(Duration::from_millis(500), client.post(url).json(&body).send()).await
    });
    assert!(local.run(hung_up).unwrap().is_err(), "the looping call was still running when its client left");
    // The next call needs the one slot: it runs as soon as the first stops.
    let started = Instant::now();
    let empty = session.call("eth_call", json!([{"to": "0x00000000000000000000000000000000000000aa"}, "latest"]));
    assert_eq!(empty, "0x");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "the next call waited {took:?} for the slot");
    session.finish();
}

fn addresses(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{:#042x}", i + 1)).collect()
}

#[test]
fn a_log_filter_is_as_large_as_geth_takes() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let whole = json!({"fromBlock": "0x0", "toBlock": "latest"});
    let with = |key: &str, value: Value| {
        let mut filter = whole.clone();
        filter[key] = value;
        filter
    };
    let most = with("address", json!(addresses(1000)));
    assert!(session.call("eth_getLogs", json!([most])).is_array());
    let topic = format!("{:#066x}", 1);
    let topics = with("topics", json!([topic, null, [topic], topic]));
    assert!(session.call("eth_getLogs", json!([topics])).is_array());

    let too_large = [
        (with("address", json!(addresses(1001))), "filter.address: 1001 addresses; at most 1000"),
        (with("topics", json!([null, null, null, null, topic])), "filter.topics: 5 positions; a log has at most 4"),
        (with("topics", json!([null, vec![topic.clone(); 1001]])), "filter.topics[1]: 1001 topics; at most 1000"),
    ];
    for (filter, expected) in too_large {
        for method in ["eth_getLogs", "eth_newFilter"] {
            let error = session.call_error(method, json!([filter]));
            assert_eq!(error["code"], -32602, "{method}: {error}");
            assert_eq!(error["message"], expected, "{method}");
        }
    }
    session.finish();
}

/// How long a batch of `count` block-filter installs takes, and its answers.
fn install_batch(session: &Session<'_>, count: usize) -> (Duration, Vec<Value>) {
    let batch: Vec<Value> = (0..count)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "eth_newBlockFilter", "params": []}))
        .collect();
    let started = Instant::now();
    let answer = session.post_rpc("eth", &Value::Array(batch));
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.text);
    (took, answer.body.as_array().expect("a batch answer").clone())
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[test]
fn a_hundred_thousand_filter_installs_stay_within_the_cap_and_the_last_costs_what_the_first_did() {
    let per_key = w3api_devnet::FILTERS_PER_KEY;
    let local = Setup::new().scale(Scale::TINY).start();
    let sessions: Vec<Session<'_>> = (0..100_000 / per_key).map(|_| local.session()).collect();
    let (mut took, mut some_id) = (Vec::new(), None);
    for session in &sessions {
        for _ in 0..per_key / 1000 {
            let (time, answers) = install_batch(session, 1000);
            let refused = answers.iter().find(|a| !a["result"].is_string());
            assert!(refused.is_none(), "{refused:?}");
            some_id.get_or_insert_with(|| answers[0]["result"].clone());
            took.push(time);
        }
    }
    // Every key is at its cap now: one more is refused, saying why.
    let (_, refused) = install_batch(&sessions[0], 1);
    assert_eq!(refused[0]["error"]["code"], -32602, "{}", refused[0]);
    let message = refused[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("keeps {per_key} filters")) && message.contains("eth_uninstallFilter"),
        "{message}"
    );
    // Uninstalling one makes room for one.
    assert_eq!(sessions[0].call("eth_uninstallFilter", json!([some_id])), true);
    let (_, installed) = install_batch(&sessions[0], 1);
    assert!(installed[0]["result"].is_string(), "{}", installed[0]);
    let (first, last) = (median(took[..3].to_vec()), median(took[took.len() - 3..].to_vec()));
    assert!(last <= first * 3 + Duration::from_millis(100), "first batches {first:?}, last batches {last:?}");
}

#[test]
fn an_account_override_that_is_not_an_object_is_refused_naming_the_account() {
    let session = w3api_tests::local::local().session();
    let account = "0x00000000000000000000000000000000000000aa";
    let listed = json!([{"to": account}, "latest", {account: ["0x1", "0x0", "0x5b600056"]}]);
    let error = session.call_error("eth_call", listed);
    assert_eq!(error["code"], -32602, "{error}");
    assert!(error.to_string().contains(&format!("{account} is not an object")), "{error}");
    // As an object it is taken.
    let code = json!([{"to": account}, "latest", {account: {"code": "0x600160005260206000f3"}}]);
    assert_eq!(session.call("eth_call", code), format!("{:#066x}", 1));
    session.finish();
}

#[test]
fn a_short_storage_key_is_left_padded_as_geth_reads_it() {
    let session = w3api_tests::local::local().session();
    let token = format!("{:#x}", session.devnet().chain(w3api_types::Chain::Eth).world.tokens[0].address);
    let whole = format!("{:#066x}", 1);
    let slot = session.call("eth_getStorageAt", json!([token, "0x1", "latest"]));
    let proof = session.call("eth_getProof", json!([token, ["0x1", whole], "latest"]));
    let keys: Vec<&Value> = proof["storageProof"].as_array().unwrap().iter().map(|p| &p["key"]).collect();
    assert_eq!(keys, [&json!("0x1"), &json!(whole)], "each key as it was asked for");
    let value = &proof["storageProof"][0]["value"];
    assert_eq!(value, &proof["storageProof"][1]["value"], "the same slot");
    let stored: alloy_primitives::U256 = slot.as_str().unwrap().parse().unwrap();
    assert_eq!(value, &json!(format!("{stored:#x}")));
    let too_long = format!("0x{}", "1".repeat(65));
    let error = session.call_error("eth_getProof", json!([token, [too_long], "latest"]));
    assert_eq!(error["code"], -32602, "{error}");
    assert!(error.to_string().contains("65 hex digits"), "{error}");
    session.finish();
}
