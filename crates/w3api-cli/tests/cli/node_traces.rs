//! Node mode traces through its node: the node here is a second
//! `w3api serve` on the devnet, which answers `debug_traceBlockByNumber`
//! with `callTracer`, so the gateway's probe finds it and reads internal
//! transactions from it; the `trace_` methods pass through with the block
//! in the gateway's view.
#![cfg(unix)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::Server;

struct Caller {
    runtime: tokio::runtime::Runtime,
}

impl Caller {
    fn rpc(&self, base: &str, method: &str, params: Value) -> Value {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let client = w3api_tests::http_client();
        self.runtime.block_on(async {
            client.post(format!("{base}/eth/k")).json(&call).send().await.unwrap().json().await.unwrap()
        })
    }

    fn get(&self, base: &str, path: &str) -> Value {
        let client = w3api_tests::http_client();
        self.runtime.block_on(async {
            let response = client.get(format!("{base}{path}")).header("X-API-Key", "k").send().await.unwrap();
            assert_eq!(response.status(), 200, "{path}");
            response.json().await.unwrap()
        })
    }
}

#[test]
fn internal_transactions_and_parity_traces_come_from_the_node() {
    let node = Server::start(&["--api-key", "k", "--scale", "tiny"], &[]);
    let caller = Caller { runtime: tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap() };
    let latest = caller.rpc(&node.base, "eth_blockNumber", json!([]));
    let latest = u64::from_str_radix(&latest["result"].as_str().unwrap()[2..], 16).unwrap();
    // The first generated transaction that called inside, as the node lists it.
    let (hash, block, expected) = (1..=latest)
        .find_map(|number| {
            let path = format!("/api/v2.2/block/{number}?chain=eth&include=internal_transactions");
            let block = caller.get(&node.base, &path);
            let tx = block["transactions"].as_array()?.iter().find(|tx| tx["internal_transactions"] != json!([]))?;
            Some((tx["hash"].as_str()?.to_string(), number, tx["internal_transactions"].clone()))
        })
        .expect("a generated transaction with internal calls");

    let upstream = format!("eth={}/eth/k", node.base);
    let gateway = Server::start(&["--api-key", "k", "--upstream", &upstream], &[]);
    let started = Instant::now();
    while caller.rpc(&gateway.base, "eth_blockNumber", json!([]))["result"] != format!("{latest:#x}") {
        assert!(started.elapsed() < Duration::from_secs(120), "the gateway did not index the node's chain");
        std::thread::sleep(Duration::from_millis(200));
    }
    let path = format!("/api/v2.2/transaction/{hash}?chain=eth&include=internal_transactions");
    assert_eq!(caller.get(&gateway.base, &path)["internal_transactions"], expected);
    let path = format!("/api/v2.2/block/{block}?chain=eth&include=internal_transactions");
    let in_block = caller.get(&gateway.base, &path);
    let listed = in_block["transactions"].as_array().unwrap().iter().find(|tx| tx["hash"] == hash.as_str()).unwrap();
    assert_eq!(listed["internal_transactions"], expected);

    // trace_* pass through: the node's answer, and null past what the gateway indexed.
    let traced = caller.rpc(&gateway.base, "trace_transaction", json!([hash]));
    assert_eq!(traced, caller.rpc(&node.base, "trace_transaction", json!([hash])));
    assert_eq!(traced["result"].as_array().unwrap().len(), expected.as_array().unwrap().len() + 1);
    let past = caller.rpc(&gateway.base, "trace_block", json!([format!("{:#x}", latest + 1)]));
    assert_eq!(past["result"], Value::Null, "{past}");
    let filter = json!([{"fromBlock": format!("{block:#x}"), "toBlock": format!("{block:#x}")}]);
    assert_eq!(
        caller.rpc(&gateway.base, "trace_filter", filter.clone()),
        caller.rpc(&node.base, "trace_filter", filter)
    );

    // The value paid inside transactions is in each payee's history, as on the node's own devnet.
    let mut payees: Vec<String> = Vec::new();
    for number in 1..=latest {
        let path = format!("/api/v2.2/block/{number}?chain=eth&include=internal_transactions");
        for tx in caller.get(&node.base, &path)["transactions"].as_array().unwrap() {
            let paid = tx["internal_transactions"].as_array().unwrap().iter().filter(|call| call["value"] != "0");
            payees.extend(paid.filter_map(|call| call["to"].as_str().map(str::to_string)));
        }
    }
    payees.sort();
    payees.dedup();
    assert!(!payees.is_empty(), "the generated chain pays someone inside a transaction");
    let mut inside = 0;
    for payee in payees.iter().take(5) {
        let path = format!("/api/v2.2/wallets/{payee}/history?chain=eth&to_block={latest}&limit=100");
        // The native currency's logo is the devnet's own; the rest of each transfer is the chain's.
        let transfers = |base: &str| -> Vec<(Value, Value)> {
            let items = caller.get(base, &path)["result"].as_array().unwrap().clone();
            let moved = |item: &Value| -> Value {
                let keys = ["from_address", "to_address", "value", "direction", "internal_transaction"];
                let each = |t: &Value| keys.iter().map(|k| t[*k].clone()).collect::<Vec<_>>();
                item["native_transfers"].as_array().unwrap().iter().map(each).collect::<Vec<_>>().into()
            };
            items.iter().map(|item| (item["hash"].clone(), moved(item))).collect()
        };
        let (indexed, devnet) = (transfers(&gateway.base), transfers(&node.base));
        assert_eq!(indexed, devnet, "{payee}: the history's native transfers");
        let internal = |(_, moved): &(Value, Value)| moved.as_array().unwrap().iter().any(|t| t[4] == true);
        inside += indexed.iter().filter(|item| internal(item)).count();
    }
    assert!(inside > 0, "some of them paid inside a transaction");
}
