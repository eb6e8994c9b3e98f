//! The pending pool over the gateway: what waits (`txpool_`), a filter of
//! what the chain accepts, the `pending` tag, and the drop cheats.

use serde_json::{Value, json};
use w3api_devnet::{Scale, dev_addresses};
use w3api_tests::local::{Local, Setup};

fn hex(n: u64) -> String {
    format!("{n:#x}")
}

/// A JSON-RPC quantity's value.
fn quantity(value: &Value) -> u64 {
    u64::from_str_radix(value.as_str().expect("a quantity").trim_start_matches("0x"), 16).expect("hex")
}

/// Two dev accounts of a fresh TINY devnet: a sender and a recipient.
fn accounts(sender: usize) -> (Local, String, String) {
    let local = Setup::new().scale(Scale::TINY).start();
    let address = |index| format!("{:#x}", dev_addresses().nth(index).unwrap());
    (local, address(sender), address(sender + 1))
}

#[test]
fn what_waits_is_listed_filtered_counted_and_dropped() {
    let (local, from, to) = accounts(3);
    let session = local.session();
    let filter = session.call("eth_newPendingTransactionFilter", json!([]));
    assert_eq!(session.call("evm_setAutomine", json!([false])), Value::Null);
    let nonce = quantity(&session.call("eth_getTransactionCount", json!([from, "latest"])));
    let send = |nonce: u64, value: u64| {
        let request = json!([{ "from": from, "to": to, "value": hex(value), "nonce": hex(nonce), "gas": "0x5208" }]);
        session.call("eth_sendTransaction", request)
    };
    // One ahead of the sender's nonce waits, queued; the one below it makes both pending.
    let ahead = send(nonce + 1, 2);
    let status = session.call("txpool_status", json!([]));
    assert_eq!(status, json!({ "pending": "0x0", "queued": "0x1" }));
    let next = send(nonce, 1);
    assert_eq!(session.call("txpool_status", json!([])), json!({ "pending": "0x2", "queued": "0x0" }));
    let content = session.call("txpool_content", json!([]));
    let mine = &content["pending"][&from];
    assert_eq!((&mine[nonce.to_string()]["hash"], &mine[(nonce + 1).to_string()]["hash"]), (&next, &ahead));
    assert_eq!(mine[nonce.to_string()]["blockNumber"], Value::Null);
    assert_eq!(session.call("txpool_contentFrom", json!([from])), json!({ "pending": mine, "queued": {} }));
    let inspect = session.call("txpool_inspect", json!([]));
    let line = inspect["pending"][&from][nonce.to_string()].as_str().unwrap();
    assert!(line.starts_with(&format!("{to}: 1 wei + 21000 gas × ")) && line.ends_with(" wei"), "{line}");
    // Waiting, as geth shows it: by hash without a block, and counted by the pending tag.
    assert_eq!(session.call("eth_getTransactionByHash", json!([next]))["blockNumber"], Value::Null);
    assert_eq!(session.call("eth_getTransactionCount", json!([from, "pending"])), json!(hex(nonce + 2)));
    assert_eq!(session.call("eth_getFilterChanges", json!([filter])), json!([ahead, next]));
    assert_eq!(session.call("eth_getFilterChanges", json!([filter])), json!([]), "each once");

    // Dropping the first leaves the second queued behind a gap.
    assert_eq!(session.call("anvil_dropTransaction", json!([next])), next);
    assert_eq!(session.call("hardhat_dropTransaction", json!([next])), json!(false));
    assert_eq!(session.call("anvil_dropTransaction", json!([next])), Value::Null);
    assert_eq!(session.call("txpool_status", json!([])), json!({ "pending": "0x0", "queued": "0x1" }));
    assert_eq!(session.call("anvil_dropAllTransactions", json!([])), Value::Null);
    assert_eq!(session.call("txpool_content", json!([])), json!({ "pending": {}, "queued": {} }));
    let head = session.call("eth_blockNumber", json!([]));
    session.call("evm_mine", json!([]));
    let mined = session.call("eth_getBlockByNumber", json!(["latest", false]));
    assert_eq!(mined["transactions"], json!([]), "nothing was left to mine after {head}");
    assert_eq!(session.call("evm_setAutomine", json!([true])), Value::Null);
    let refused = session.call_error("eth_getFilterLogs", json!([filter]));
    assert!(refused["message"].as_str().unwrap().contains("pending-transaction filter"), "{refused}");
}

#[test]
fn fifty_sequential_nonces_sent_at_once_in_any_order_are_all_mined_in_nonce_order() {
    let (local, from, to) = accounts(5);
    let session = local.session();
    let count = |tag: &str| quantity(&session.call("eth_getTransactionCount", json!([from, tag])));
    let first = count("latest");
    // Every other nonce from the top, then the rest: most arrive ahead of their turn.
    let mut order: Vec<u64> = (0..50).rev().step_by(2).chain((0..50).step_by(2)).map(|i| first + i).collect();
    order.dedup();
    let url = session.rpc_url();
    let hashes: Vec<(u64, Value)> = local.run(async {
        let client = w3api_tests::http_client();
        let sends = order.iter().map(|nonce| {
            let body = json!({ "jsonrpc": "2.0", "id": nonce, "method": "eth_sendTransaction",
                "params": [{ "from": from, "to": to, "value": "0x1", "nonce": hex(*nonce), "gas": "0x5208" }] });
            let request = client.post(&url).json(&body).send();
            async move { (*nonce, request.await.unwrap().json::<Value>().await.unwrap()) }
        });
        futures::future::join_all(sends).await
    });
    for (nonce, answer) in &hashes {
        assert!(answer["result"].is_string(), "nonce {nonce}: {answer}");
    }
    assert_eq!(count("latest"), first + 50, "all fifty mined");
    let mut placed: Vec<(u64, u64, u64)> = hashes
        .iter()
        .map(|(nonce, answer)| {
            let receipt = session.call("eth_getTransactionReceipt", json!([answer["result"]]));
            (*nonce, quantity(&receipt["blockNumber"]), quantity(&receipt["transactionIndex"]))
        })
        .collect();
    placed.sort();
    assert!(
        placed.windows(2).all(|pair| (pair[0].1, pair[0].2) < (pair[1].1, pair[1].2)),
        "in nonce order: {placed:?}"
    );
    assert_eq!(session.call("txpool_status", json!([])), json!({ "pending": "0x0", "queued": "0x0" }));
}

#[test]
fn interval_mining_makes_a_block_every_interval_holding_the_pool_until_it_is_turned_off() {
    let (local, from, to) = accounts(7);
    let session = local.session();
    let head = || quantity(&session.call("eth_blockNumber", json!([])));
    let start = head();
    assert_eq!(session.call("evm_setIntervalMining", json!([1])), Value::Null);
    assert_eq!(session.call("anvil_getAutomine", json!([])), json!(false), "interval mining turns automine off");
    let sent = session.call("eth_sendTransaction", json!([{ "from": from, "to": to, "value": "0x1" }]));
    let within = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !done() {
            assert!(std::time::Instant::now() < deadline, "{what} did not come within 20 s");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    within("the sent transaction's block", &|| !session.call("eth_getTransactionReceipt", json!([sent])).is_null());
    within("two more blocks", &|| head() >= start + 3);
    let block = |number: u64| session.call("eth_getBlockByNumber", json!([hex(number), false]));
    let newest = head();
    let (last, before) = (block(newest), block(newest - 1));
    assert_eq!(quantity(&last["timestamp"]), quantity(&before["timestamp"]) + 1, "a second apart, as set");
    assert_eq!(last["transactions"], json!([]), "an empty pool makes empty blocks");
    assert_eq!(session.call("anvil_setIntervalMining", json!([0])), Value::Null);
    let stopped = head();
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    assert_eq!(head(), stopped, "no block once it is off");
    let refused = session.call_error("evm_setIntervalMining", json!([100_000]));
    assert_eq!(refused["code"], -32602, "{refused}");
    assert_eq!(session.call("evm_setAutomine", json!([true])), Value::Null);
}
