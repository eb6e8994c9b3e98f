//! Node mode keeps the gateway's own time budget: a node that takes too
//! long with a call never holds the request past it. The node here is a
//! second `w3api serve` on the devnet, with no gas cap and a long budget of
//! its own, running a call that loops until it is stopped.
#![cfg(unix)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::Server;

/// Init code returning the runtime `0x5b600056`, a loop that ends only
/// when the gas does.
const LOOP_INIT: &str = "0x635b6000566000526004601cf3";

async fn call(base: &str, method: &str, params: Value) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&call).send().await.unwrap();
    response.json().await.unwrap()
}

#[test]
fn a_node_slow_with_a_call_never_holds_the_request_past_the_gateway_budget() {
    let node =
        Server::start(&["--api-key", "k", "--scale", "tiny", "--rpc-gas-cap", "0", "--rpc-evm-timeout", "60s"], &[]);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dev = format!("{:#x}", w3api_devnet::dev_addresses().next().unwrap());
    let sent = runtime.block_on(call(&node.base, "eth_sendTransaction", json!([{"from": dev, "data": LOOP_INIT}])));
    let receipt = runtime.block_on(call(&node.base, "eth_getTransactionReceipt", json!([sent["result"]])));
    let looping = receipt["result"]["contractAddress"].clone();
    assert!(looping.is_string(), "{receipt}");

    let upstream = format!("eth={}/eth/k", node.base);
    let gateway = Server::start(&["--api-key", "k", "--upstream", &upstream, "--rpc-evm-timeout", "500ms"], &[]);
    // The gateway answers at a block once it has indexed it.
    let started = Instant::now();
    while runtime.block_on(call(&gateway.base, "eth_getCode", json!([looping, "latest"])))["result"] != "0x5b600056" {
        assert!(started.elapsed() < Duration::from_secs(60), "the gateway did not index the node's newest block");
        std::thread::sleep(Duration::from_millis(200));
    }
    let started = Instant::now();
    let answer =
        runtime.block_on(call(&gateway.base, "eth_call", json!([{"to": looping, "gas": "0x8000000000000000"}])));
    let took = started.elapsed();
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    assert_eq!(answer["error"]["message"], "execution aborted (timeout = 500ms)", "{answer}");
    assert!(took < Duration::from_secs(5), "answered at the gateway's budget, not the node's: {took:?}");
    // The node answers on.
    let started = Instant::now();
    let empty =
        runtime.block_on(call(&node.base, "eth_call", json!([{"to": "0x00000000000000000000000000000000000000aa"}])));
    assert_eq!(empty["result"], "0x", "{empty}");
    assert!(started.elapsed() < Duration::from_secs(5));
}
